"""Mirror of org.apache.rocketmq.client.exception."""
