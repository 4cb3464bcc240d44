"""Mirror of org.apache.rocketmq.client.consumer."""
