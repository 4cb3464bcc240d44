"""Mirror of org.apache.rocketmq.common.admin."""
