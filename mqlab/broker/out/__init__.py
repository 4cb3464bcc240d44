"""Mirror of org.apache.rocketmq.broker.out."""
