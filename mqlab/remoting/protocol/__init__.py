"""Mirror of org.apache.rocketmq.remoting.protocol."""
