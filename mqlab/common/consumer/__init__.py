"""Mirror of org.apache.rocketmq.common.consumer."""
