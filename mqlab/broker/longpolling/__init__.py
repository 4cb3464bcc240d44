"""Mirror of org.apache.rocketmq.broker.longpolling."""
