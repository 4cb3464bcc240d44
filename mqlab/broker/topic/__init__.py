"""Mirror of org.apache.rocketmq.broker.topic."""
