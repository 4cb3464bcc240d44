"""Mirror of org.apache.rocketmq.broker.client.net."""
