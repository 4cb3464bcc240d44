"""Mirror of org.apache.rocketmq.broker.filter."""
