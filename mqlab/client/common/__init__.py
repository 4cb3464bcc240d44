"""Mirror of org.apache.rocketmq.client.common."""
