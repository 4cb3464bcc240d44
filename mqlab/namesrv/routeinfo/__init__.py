"""Mirror of org.apache.rocketmq.namesrv.routeinfo."""
