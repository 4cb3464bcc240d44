"""Mirror of org.apache.rocketmq.client.producer: send results, callbacks, queue selectors, producer settings."""
