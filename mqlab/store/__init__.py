"""Mirror of org.apache.rocketmq.store."""
