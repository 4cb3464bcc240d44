"""The ``mqlab admin`` sub commands, one module per Java command class (Java: org.apache.rocketmq.tools.command)."""
