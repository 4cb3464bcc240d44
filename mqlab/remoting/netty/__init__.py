"""Netty transport settings of the remoting layer (org.apache.rocketmq.remoting.netty)."""
