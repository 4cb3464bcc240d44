"""Operator tools: the admin client and the ``mqlab admin`` commands (RocketMQ's ``mqadmin``).

Java: org.apache.rocketmq.tools (rocketmq-all-4.9.3)
"""
