"""Mirror of org.apache.rocketmq.client.consumer.rebalance: the six queue allocation strategies of 4.9.3."""
