"""Mirror of org.apache.rocketmq.common.sysflag."""
