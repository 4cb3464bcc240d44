"""Mirror of org.apache.rocketmq.remoting.exception."""
