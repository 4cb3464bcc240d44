"""The admin client the commands use (Java: org.apache.rocketmq.tools.admin)."""
