"""Master–slave replication of the CommitLog (Java package ``org.apache.rocketmq.store.ha``)."""
