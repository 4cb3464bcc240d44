"""Mirror of org.apache.rocketmq.common.consistenthash: a hash ring with virtual nodes."""
