"""Mirror of org.apache.rocketmq.broker.subscription."""
