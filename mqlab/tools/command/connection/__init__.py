"""Java: org.apache.rocketmq.tools.command.connection."""
