"""Mirror of org.apache.rocketmq.common.filter."""
