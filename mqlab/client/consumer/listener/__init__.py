"""Mirror of org.apache.rocketmq.client.consumer.listener: listener protocols, statuses and contexts."""
