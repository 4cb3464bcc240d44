"""Reading a RocketMQ store with PySpark: a sample-store generator, the file readers and Python Data Sources.

Java: none (teaching helper). RocketMQ has no Spark integration; this package reads the files the store writes
(CommitLog segments, ConsumeQueue and index files, config JSON, the checkpoint) so a learner can query them with
Spark SQL.

- ``sample_store``: writes a small, realistic store deterministically (the simulated runtime fixes every byte).
- ``segment_reader``: Spark-free iteration over CommitLog segments (in byte ranges cut at record starts, with
  corrupt spans) and ConsumeQueue files, yielding Arrow batches.
- ``store_files``: where a directory's stores are; IndexFile, config JSON and checkpoint tables (no Spark).
- ``datasources``: the ``mqlab_*`` data sources (docs/spec/spark-datasources.md) and a local session helper.
- ``functions``: Spark column functions for bodies, properties, message ids and index keys.
- ``rocketmq_source``, ``rocketmq_sink``, ``rocketmq_client``: the ``rocketmq`` format, Structured Streaming from
  and to a running broker over the 4.x protocol (docs/spec/spark-streaming.md).
"""
