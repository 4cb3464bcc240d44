"""Mirror of org.apache.rocketmq.broker.offset."""
