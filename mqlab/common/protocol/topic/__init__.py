"""Mirror of org.apache.rocketmq.common.protocol.topic."""
