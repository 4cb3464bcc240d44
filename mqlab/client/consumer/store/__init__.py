"""Mirror of org.apache.rocketmq.client.consumer.store: where a consumer keeps its consume offsets."""
