"""Mirror of org.apache.rocketmq.remoting.common."""
