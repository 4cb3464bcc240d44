"""Mirror of org.apache.rocketmq.client.latency: the producer's broker latency / fault bookkeeping."""
