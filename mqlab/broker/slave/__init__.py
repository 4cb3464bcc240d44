"""What a slave broker copies from its master besides the CommitLog (``org.apache.rocketmq.broker.slave``)."""
