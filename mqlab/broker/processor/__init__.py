"""Mirror of org.apache.rocketmq.broker.processor."""
