"""Mirror of org.apache.rocketmq.remoting."""
