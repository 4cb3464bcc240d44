"""Mirror of org.apache.rocketmq.namesrv.kvconfig."""
