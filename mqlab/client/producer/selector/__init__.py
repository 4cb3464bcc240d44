"""Mirror of org.apache.rocketmq.client.producer.selector: the ready-made MessageQueueSelectors."""
