"""Reading a RocketMQ store with PySpark: a sample-store generator, the file readers and two Python Data Sources.

Java: none (teaching helper). RocketMQ has no Spark integration; this package reads the files the store writes
(CommitLog segments and ConsumeQueue files) so a learner can query them with Spark SQL.

- ``sample_store``: writes a small, realistic store deterministically (the simulated runtime fixes every byte).
- ``segment_reader``: Spark-free iteration over CommitLog segments and ConsumeQueue files, yielding Arrow batches.
- ``datasources``: the ``mqlab_commitlog`` and ``mqlab_consumequeue`` data sources and a local session helper.
- ``rocketmq_source``, ``rocketmq_sink``, ``rocketmq_client``: the ``rocketmq`` format, Structured Streaming from
  and to a running broker over the 4.x protocol (docs/spec/spark-streaming.md).
"""
