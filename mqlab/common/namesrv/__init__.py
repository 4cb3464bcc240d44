"""NameServer-side common classes (org.apache.rocketmq.common.namesrv)."""
