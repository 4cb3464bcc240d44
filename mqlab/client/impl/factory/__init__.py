"""Mirror of org.apache.rocketmq.client.impl.factory."""
