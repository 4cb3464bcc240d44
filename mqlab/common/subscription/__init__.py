"""Mirror of org.apache.rocketmq.common.subscription."""
