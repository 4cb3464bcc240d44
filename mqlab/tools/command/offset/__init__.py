"""Offset commands (Java: org.apache.rocketmq.tools.command.offset)."""
