"""Mirror of org.apache.rocketmq.common.constant."""
