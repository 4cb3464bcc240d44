"""Mirror of org.apache.rocketmq.client.impl.producer (so far: TopicPublishInfo)."""
