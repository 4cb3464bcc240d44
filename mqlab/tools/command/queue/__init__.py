"""Java: org.apache.rocketmq.tools.command.queue."""
