"""Java: org.apache.rocketmq.tools.command.broker."""
