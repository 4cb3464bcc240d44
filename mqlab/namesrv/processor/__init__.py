"""Mirror of org.apache.rocketmq.namesrv.processor."""
