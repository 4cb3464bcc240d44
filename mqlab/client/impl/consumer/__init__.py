"""Mirror of org.apache.rocketmq.client.impl.consumer (so far: ProcessQueue, PullRequest, locks, PullResultExt)."""
