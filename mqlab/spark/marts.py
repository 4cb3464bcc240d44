"""The table functions of ``mqlab analyze``: tidy tables from the raw ones, then the marts.

Java: none (teaching layer). Each function takes the run's ``Params`` and its input tables by name and returns a
DataFrame; ``DERIVED`` declares them (name, layer, inputs, function, facts, meaning) in run order and
``mqlab.spark.pipeline`` runs them. Every mart is sorted on its key columns, so two runs give the same rows in the
same order.

Which facts each table stands on (the ``facts`` column of the plan):

- **store**: the broker's own files only. A store says what was stored where and when, and, through the retry
  machinery, part of what consumers did: a failed clustering delivery is sent back into ``SCHEDULE_TOPIC_XXXX`` (then
  ``%RETRY%<group>``) or ``%DLQ%<group>``, and committed offsets are in ``consumerOffset.json``.
- **manifest**: the generator's ground truth (``manifest.json``): each send's mode and acknowledgement, each
  delivery attempt, each lost response. A store not made by ``mqlab gen-store`` has none; those columns are null.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from mqlab.common.extras import needs_extra

with needs_extra("spark", __name__):
    from pyspark.sql import Window
    from pyspark.sql import functions as sf

if TYPE_CHECKING:
    from pyspark.sql import Column, DataFrame

    from mqlab.spark.pipeline import Params

SCHEDULE_TOPIC = "SCHEDULE_TOPIC_XXXX"  # Java: TopicValidator.RMQ_SYS_SCHEDULE_TOPIC
RETRY_PREFIX = "%RETRY%"  # Java: MixAll.RETRY_GROUP_TOPIC_PREFIX
DLQ_PREFIX = "%DLQ%"  # Java: MixAll.DLQ_GROUP_TOPIC_PREFIX
STORE, MANIFEST, BOTH = "store", "manifest", "store+manifest"

# The kinds of CommitLog record (``records.kind``): which step of a message's life wrote it.
SEND = "send"  # a producer's send: a user-topic record, or a delayed one waiting in SCHEDULE_TOPIC_XXXX
DELAY_DELIVERY = "delay_delivery"  # the copy the schedule service put into the real topic when the delay was up
SEND_BACK = "send_back"  # a failed delivery sent back, waiting in SCHEDULE_TOPIC_XXXX for %RETRY%<group>
RETRY_DELIVERY = "retry_delivery"  # that message arriving in %RETRY%<group>
DEAD_LETTER = "dead_letter"  # a message given up after maxReconsumeTimes, in %DLQ%<group>
SYSTEM = "system"  # other system topics (RMQ_SYS_*: transactions, trace)


def _millis(column: str | Column) -> Column:
    return sf.unix_millis(sf.col(column) if isinstance(column, str) else column)


# -- tidy ------------------------------------------------------------------------------------------------------
def records(params: Params, commitlog: DataFrame) -> DataFrame:
    """Every CommitLog record with the properties that say where it stands in a message's life (``kind``)."""
    props = sf.col("properties")
    topic, real = sf.col("topic"), props["REAL_TOPIC"]
    kind = (
        sf.when(topic.startswith(RETRY_PREFIX), sf.lit(RETRY_DELIVERY))
        .when(topic.startswith(DLQ_PREFIX), sf.lit(DEAD_LETTER))
        .when((topic == SCHEDULE_TOPIC) & real.startswith(RETRY_PREFIX), sf.lit(SEND_BACK))
        .when(topic == SCHEDULE_TOPIC, sf.lit(SEND))
        .when(real.isNotNull() & (real == topic), sf.lit(DELAY_DELIVERY))
        .when(sf.upper(topic).startswith("RMQ_SYS_"), sf.lit(SYSTEM))
        .otherwise(sf.lit(SEND))
    )
    group_topic = sf.when(topic == SCHEDULE_TOPIC, real).otherwise(topic)
    group = sf.when(group_topic.startswith(RETRY_PREFIX), sf.substring(group_topic, len(RETRY_PREFIX) + 1, 1000)).when(
        group_topic.startswith(DLQ_PREFIX), sf.substring(group_topic, len(DLQ_PREFIX) + 1, 1000)
    )
    return commitlog.select(
        "broker",
        "segment",
        "physical_offset",
        "total_size",
        "body_size",
        "topic",
        "queue_id",
        "queue_offset",
        "uniq_key",
        "tags",
        "keys",
        sf.regexp_replace("born_host", r":\d+$", "").alias("born_ip"),  # a producer's port differs per broker
        sf.col("born_timestamp").alias("born_at"),
        sf.col("store_timestamp").alias("stored_at"),
        "reconsume_times",
        real.alias("real_topic"),
        props["DELAY"].cast("int").alias("delay_level"),
        kind.alias("kind"),
        # The topic the message belongs to: its real topic while delayed, its original one while being retried.
        sf.coalesce(props["RETRY_TOPIC"], real, topic).alias("message_topic"),
        group.alias("group"),
    )


def history(params: Params, records: DataFrame) -> DataFrame:
    """The delivery history the store keeps: delayed copies delivered, sends back, retries and dead letters."""
    events = (DELAY_DELIVERY, SEND_BACK, RETRY_DELIVERY, DEAD_LETTER)
    return records.where(sf.col("kind").isin(*events)).select(
        "uniq_key",
        sf.col("message_topic").alias("topic"),
        "group",
        sf.col("kind").alias("event"),
        "reconsume_times",
        "broker",
        sf.col("stored_at").alias("at"),
    )


def messages(params: Params, records: DataFrame, history: DataFrame) -> DataFrame:
    """One row per stored send, with how many copies of its UNIQ_KEY were stored and its history summed up."""
    summary = history.groupBy("uniq_key", "topic").agg(
        sf.min(sf.when(sf.col("event") == DELAY_DELIVERY, sf.col("at"))).alias("delivered_after_delay_at"),
        sf.count(sf.when(sf.col("event") == SEND_BACK, 1)).alias("sent_back"),
        sf.concat_ws(
            ",", sf.sort_array(sf.collect_set(sf.when(sf.col("event") == DEAD_LETTER, sf.col("group"))))
        ).alias("dead_lettered_by"),
    )
    copies = Window.partitionBy("uniq_key", "message_topic")
    sends = records.where(sf.col("kind") == SEND).select(
        "broker",
        sf.col("message_topic").alias("topic"),
        sf.col("topic").alias("stored_topic"),
        "queue_id",
        "queue_offset",
        "physical_offset",
        "segment",
        "uniq_key",
        "tags",
        "keys",
        "born_ip",
        "born_at",
        "stored_at",
        "body_size",
        "total_size",
        sf.coalesce("delay_level", sf.lit(0)).alias("delay_level"),
        sf.count("*").over(copies).alias("copies"),
    )
    return sends.join(summary, ["uniq_key", "topic"], "left").select(
        *sends.columns,
        "delivered_after_delay_at",
        sf.coalesce("sent_back", sf.lit(0)).alias("sent_back"),
        sf.coalesce("dead_lettered_by", sf.lit("")).alias("dead_lettered_by"),
    )


def units(params: Params, consumequeue: DataFrame, records: DataFrame) -> DataFrame:
    """Every ConsumeQueue unit with the record it points at (null columns for a unit pointing at nothing)."""
    cq = consumequeue.withColumnRenamed("segment", "cq_segment")
    rec = records.select("broker", "physical_offset", "segment", "uniq_key", "stored_at")
    on = (cq.broker == rec.broker) & (cq.commit_log_offset == rec.physical_offset)
    return cq.join(rec, on, "left").select(
        cq.broker,
        "topic",
        "queue_id",
        "queue_offset",
        "commit_log_offset",
        "size",
        "tags_code",
        "cq_segment",
        "segment",
        "uniq_key",
        "stored_at",
    )


def offsets(params: Params, consumer_offsets: DataFrame, consumequeue: DataFrame) -> DataFrame:
    """Each committed offset beside its queue's min and max offset (max = the next offset a send gets)."""
    bounds = consumequeue.groupBy("broker", "topic", "queue_id").agg(
        sf.min("queue_offset").alias("min_offset"), (sf.max("queue_offset") + 1).alias("max_offset")
    )
    return consumer_offsets.join(bounds, ["broker", "topic", "queue_id"], "left").select(
        "broker",
        "topic",
        "group",
        "queue_id",
        "kept_by",
        sf.col("offset").alias("consumer_offset"),
        sf.coalesce("min_offset", sf.lit(0)).alias("min_offset"),
        sf.coalesce("max_offset", sf.lit(0)).alias("max_offset"),
    )


# -- marts -----------------------------------------------------------------------------------------------------
def consumer_lag(params: Params, offsets: DataFrame) -> DataFrame:
    """What ``mqadmin consumerProgress`` shows per queue: broker offset, consumer offset and their diff.

    Broadcasting groups keep offsets on their clients (``kept_by`` is then the client id), so each instance has
    its own lag.
    """
    return offsets.select(
        "group",
        "topic",
        "broker",
        "queue_id",
        "kept_by",
        sf.col("max_offset").alias("broker_offset"),
        "consumer_offset",
        (sf.col("max_offset") - sf.col("consumer_offset")).alias("diff"),
    ).orderBy("group", "topic", "broker", "queue_id", "kept_by")


def retry_funnel(params: Params, history: DataFrame, attempts: DataFrame) -> DataFrame:
    """Per group and attempt (``reconsume_times`` of the delivery): failures sent back to retry or to the DLQ.

    Store side: a record sent back carries the failed delivery's ``reconsume_times + 1``. Manifest side: the
    attempts handed to the listener at that ``reconsume_times`` and how many were answered ``RECONSUME_LATER``.
    """
    failed = history.where(sf.col("event").isin(SEND_BACK, DEAD_LETTER))
    store = failed.groupBy("group", (sf.col("reconsume_times") - 1).alias("attempt")).agg(
        sf.count(sf.when(sf.col("event") == SEND_BACK, 1)).alias("sent_to_retry"),
        sf.count(sf.when(sf.col("event") == DEAD_LETTER, 1)).alias("sent_to_dlq"),
    )
    truth = attempts.groupBy("group", sf.col("reconsume_times").alias("attempt")).agg(
        sf.count("*").alias("attempts"),
        sf.count(sf.when(sf.col("status") == "RECONSUME_LATER", 1)).alias("failed"),
    )
    return (
        store.join(truth, ["group", "attempt"], "full_outer")
        .select(
            "group",
            "attempt",
            "attempts",
            "failed",
            sf.coalesce("sent_to_retry", sf.lit(0)).alias("sent_to_retry"),
            sf.coalesce("sent_to_dlq", sf.lit(0)).alias("sent_to_dlq"),
        )
        .orderBy("group", "attempt")
    )


def duplicates(params: Params, messages: DataFrame, sends: DataFrame, lost_responses: DataFrame) -> DataFrame:
    """UNIQ_KEYs stored more than once in their topic, and why.

    ``store_cause`` is what the store alone shows: copies with different born timestamps were sent again by the
    producer (the same Message, a new send); copies with one born timestamp were stored twice from one send.
    ``cause`` uses the manifest where there is one: a lost response (the broker stored it and its answer never came)
    followed by the application's own retry.
    """
    dup = messages.groupBy("topic", "uniq_key").agg(
        sf.count("*").alias("copies"),
        sf.concat_ws(",", sf.sort_array(sf.collect_list("broker"))).alias("brokers"),
        sf.count_distinct("born_at").alias("born_times"),
        sf.min("stored_at").alias("first_stored"),
        sf.max("stored_at").alias("last_stored"),
    )
    dup = dup.where(sf.col("copies") > 1)
    lost = lost_responses.groupBy("uniq_key").agg(sf.count("*").alias("lost_responses"))
    resent = sends.groupBy("uniq_key").agg(sf.sum("failed_attempts").cast("long").alias("app_resends"))
    store_cause = sf.when(sf.col("born_times") > 1, sf.lit("sent again by the producer")).otherwise(
        sf.lit("stored twice from one send")
    )
    cause = (
        sf.when(
            (sf.col("lost_responses") > 0) & (sf.col("app_resends") > 0),
            sf.lit("response lost, then the application sent it again"),
        )
        .when(sf.col("lost_responses") > 0, sf.lit("response lost, then sent again"))
        .otherwise(store_cause)
    )
    return (
        dup.join(lost, "uniq_key", "left")
        .join(resent, "uniq_key", "left")
        .select(
            "topic",
            "uniq_key",
            "copies",
            "brokers",
            "born_times",
            "first_stored",
            "last_stored",
            store_cause.alias("store_cause"),
            "lost_responses",
            "app_resends",
            cause.alias("cause"),
        )
        .orderBy("topic", "uniq_key")
    )


def delay_messages(params: Params, records: DataFrame, units: DataFrame, delay_offsets: DataFrame) -> DataFrame:
    """Each record of SCHEDULE_TOPIC_XXXX: when it was due (its unit's tags code) and when its copy arrived.

    ``kind`` is ``delay`` for a producer's delayed message and ``retry`` for a send-back. The due time is the
    ConsumeQueue unit's tags code, which for this topic holds the deliver timestamp
    (``CommitLog#checkMessageAndReturnSize`` computes it from the store time and the level); ``passed`` says whether
    the schedule service's offset for the level (``delayOffset.json``) is past the unit.
    """
    scheduled = records.where(sf.col("topic") == SCHEDULE_TOPIC)
    due = units.where(sf.col("topic") == SCHEDULE_TOPIC).select(
        "broker", sf.col("commit_log_offset").alias("physical_offset"), "tags_code"
    )
    order = Window.partitionBy("broker", "uniq_key", "real_topic", "reconsume_times").orderBy(
        "stored_at", "physical_offset"
    )
    scheduled = scheduled.join(due, ["broker", "physical_offset"], "left").withColumn("n", sf.row_number().over(order))
    arrived = (
        records.where(sf.col("kind").isin(DELAY_DELIVERY, RETRY_DELIVERY))
        .select(
            "broker",
            "uniq_key",
            sf.col("topic").alias("real_topic"),
            "reconsume_times",
            sf.col("stored_at").alias("delivered_at"),
            "physical_offset",
        )
        .withColumn("n", sf.row_number().over(order.orderBy("delivered_at", "physical_offset")))
        .drop("physical_offset")
    )
    levels = delay_offsets.select(
        sf.col("broker").alias("level_broker"),
        sf.col("delay_level").alias("level"),
        sf.col("offset").alias("level_offset"),
    )
    joined = scheduled.join(arrived, ["broker", "uniq_key", "real_topic", "reconsume_times", "n"], "left")
    joined = joined.join(
        levels, (sf.col("broker") == sf.col("level_broker")) & (sf.col("queue_id") + 1 == sf.col("level")), "left"
    )
    scheduled_at = sf.timestamp_millis(sf.col("tags_code"))
    return joined.select(
        "broker",
        sf.when(sf.col("real_topic").startswith(RETRY_PREFIX), sf.lit("retry"))
        .otherwise(sf.lit("delay"))
        .alias("kind"),
        "real_topic",
        "uniq_key",
        (sf.col("queue_id") + 1).alias("delay_level"),
        "reconsume_times",
        sf.col("queue_offset").alias("schedule_offset"),
        "stored_at",
        scheduled_at.alias("scheduled_at"),
        "delivered_at",
        (_millis("delivered_at") - sf.col("tags_code")).alias("late_ms"),
        (sf.col("queue_offset") < sf.coalesce("level_offset", sf.lit(0))).alias("passed"),
    ).orderBy("broker", "delay_level", "schedule_offset")


def store_latency(params: Params, messages: DataFrame, sends: DataFrame) -> DataFrame:
    """Store time minus born time (ms) per producer over time windows of ``params.latency_window_s``.

    The producer is the born host's IP (store side) and, where the manifest knows the UNIQ_KEY, its group.
    """
    window_ms = params.latency_window_s * 1000
    groups = sends.groupBy("uniq_key").agg(sf.min("producer_group").alias("producer_group"))
    lat = messages.join(groups, "uniq_key", "left").select(
        sf.coalesce("producer_group", sf.lit("")).alias("producer_group"),
        "born_ip",
        sf.timestamp_millis(sf.floor(_millis("stored_at") / window_ms) * window_ms).alias("window_start"),
        (_millis("stored_at") - _millis("born_at")).alias("latency_ms"),
    )
    return (
        lat.groupBy("producer_group", "born_ip", "window_start")
        .agg(
            sf.count("*").alias("messages"),
            sf.round(sf.avg("latency_ms"), 3).alias("mean_ms"),
            sf.percentile("latency_ms", sf.lit(0.5)).alias("p50_ms"),
            sf.percentile("latency_ms", sf.lit(0.9)).alias("p90_ms"),
            sf.max("latency_ms").alias("max_ms"),
        )
        .orderBy("producer_group", "born_ip", "window_start")
    )


def topic_volume(params: Params, records: DataFrame) -> DataFrame:
    """Records and bytes per topic and tag, over every topic the CommitLog holds (system topics included)."""
    system = sf.col("topic").startswith(RETRY_PREFIX) | sf.col("topic").startswith(DLQ_PREFIX)
    system = system | (sf.col("topic") == SCHEDULE_TOPIC) | sf.upper("topic").startswith("RMQ_SYS_")
    return (
        records.groupBy("topic", sf.coalesce("tags", sf.lit("")).alias("tags"))
        .agg(
            sf.count("*").alias("messages"),
            sf.sum("total_size").alias("bytes"),
            sf.concat_ws(",", sf.sort_array(sf.collect_set("broker"))).alias("brokers"),
        )
        .withColumn("system", system)
        .orderBy("topic", "tags")
    )


def hot_keys(params: Params, messages: DataFrame) -> DataFrame:
    """The ``params.top_keys`` most frequent business keys (KEYS, split on spaces) of each topic, with their share."""
    keyed = messages.where(sf.col("keys").isNotNull()).select("topic", sf.explode(sf.split("keys", " ")).alias("key"))
    counts = keyed.where(sf.col("key") != "").groupBy("topic", "key").agg(sf.count("*").alias("messages"))
    per_topic = Window.partitionBy("topic")
    ranked = counts.withColumn(
        "rank", sf.row_number().over(per_topic.orderBy(sf.desc("messages"), sf.asc("key")))
    ).withColumn("share", sf.round(sf.col("messages") / sf.sum("messages").over(per_topic), 6))
    return ranked.where(sf.col("rank") <= params.top_keys).orderBy("topic", "rank")


def expiry_segments(params: Params, records: DataFrame) -> DataFrame:
    """The what-if of ``CleanCommitLogService`` with ``fileReservedTime = params.file_reserved_ms`` at ``now``.

    A segment's last write is taken as its newest record's store time (the broker uses the file's modification
    time). As ``MappedFileQueue#deleteExpiredFileByTime`` does, the scan goes from the oldest segment, stops at the
    first one written less than the reserved time ago, and never takes a broker's last segment. ``now`` is
    ``params.now_ms`` or the newest store time of any broker.
    """
    now = sf.lit(params.now_ms) if params.now_ms is not None else None
    per_segment = records.groupBy("broker", "segment").agg(
        sf.count("*").alias("messages"),
        sf.sum("total_size").alias("bytes"),
        sf.min("stored_at").alias("first_stored"),
        sf.max("stored_at").alias("last_stored"),
    )
    if now is None:
        newest = records.agg(sf.max(_millis("stored_at")).alias("now_ms"))
        per_segment = per_segment.crossJoin(newest)
    else:
        per_segment = per_segment.withColumn("now_ms", now.cast("long"))
    by_offset = Window.partitionBy("broker").orderBy("start_offset")
    old = _millis("last_stored") + params.file_reserved_ms <= sf.col("now_ms")
    scan = by_offset.rowsBetween(Window.unboundedPreceding, Window.currentRow)
    with_rank = per_segment.withColumn("start_offset", sf.col("segment").cast("long")).withColumn(
        "is_last", sf.row_number().over(Window.partitionBy("broker").orderBy(sf.desc("start_offset"))) == 1
    )
    return (
        with_rank.withColumn("old", old)
        .withColumn("expires", sf.min(sf.col("old") & ~sf.col("is_last")).over(scan))
        .select(
            "broker",
            "segment",
            "start_offset",
            "messages",
            "bytes",
            "first_stored",
            "last_stored",
            sf.timestamp_millis(_millis("last_stored") + params.file_reserved_ms).alias("expires_at"),
            sf.timestamp_millis("now_ms").alias("now"),
            "is_last",
            "expires",
        )
        .orderBy("broker", "start_offset")
    )


def expiry_loss(params: Params, expiry_segments: DataFrame, units: DataFrame, offsets: DataFrame) -> DataFrame:
    """Per group (and client, for broadcasting), topic and broker: what the expired segments would take.

    ``lost`` counts units whose record goes with an expired segment at or past the group's committed offset
    (never consumed, now gone); ``deleted_consumed`` counts the ones below it (consumed already, no loss).
    """
    gone = expiry_segments.where("expires").select("broker", "segment")
    gone_units = units.join(gone, ["broker", "segment"]).select("broker", "topic", "queue_id", "queue_offset")
    o = offsets.alias("o")
    g = gone_units.alias("g")
    on = (
        (sf.col("o.broker") == sf.col("g.broker"))
        & (sf.col("o.topic") == sf.col("g.topic"))
        & (sf.col("o.queue_id") == sf.col("g.queue_id"))
    )
    past = sf.col("g.queue_offset") >= sf.col("o.consumer_offset")
    return (
        o.join(g, on, "left")
        .groupBy("o.group", "o.kept_by", "o.topic", "o.broker")
        .agg(
            sf.count(sf.when(past, 1)).alias("lost"),
            sf.count(sf.when(~past, 1)).alias("deleted_consumed"),
        )
        .orderBy("group", "kept_by", "topic", "broker")
    )


# -- the declaration -------------------------------------------------------------------------------------------
RAW_DOCS = (
    ("commitlog", STORE, "mqlab_commitlog per broker store, with broker and body_size (no body)"),
    ("consumequeue", STORE, "mqlab_consumequeue per broker store, with broker"),
    ("consumer_offsets", STORE, "config/consumerOffset.json, and broadcasting clients' offsets.json"),
    ("delay_offsets", STORE, "config/delayOffset.json: the schedule service's next offset per level"),
    ("sends", MANIFEST, "manifest producers: each send, its mode and acknowledgement"),
    ("attempts", MANIFEST, "manifest consumers: each delivery attempt and its answer"),
    ("lost_responses", MANIFEST, "manifest lost_responses: sends stored but never answered"),
)

DERIVED = (
    ("records", "tidy", ["commitlog"], records, STORE, "every record with its kind in a message's life"),
    ("history", "tidy", ["records"], history, STORE, "delays delivered, sends back, retries, dead letters"),
    ("messages", "tidy", ["records", "history"], messages, STORE, "one row per stored send, with its history"),
    ("units", "tidy", ["consumequeue", "records"], units, STORE, "ConsumeQueue units with their records"),
    ("offsets", "tidy", ["consumer_offsets", "consumequeue"], offsets, STORE, "committed offsets and queue bounds"),
    ("consumer_lag", "mart", ["offsets"], consumer_lag, STORE, "consumerProgress: broker/consumer offset, diff"),
    ("retry_funnel", "mart", ["history", "attempts"], retry_funnel, BOTH, "failures per group and attempt"),
    ("duplicates", "mart", ["messages", "sends", "lost_responses"], duplicates, BOTH, "UNIQ_KEYs stored twice"),
    ("delay_messages", "mart", ["records", "units", "delay_offsets"], delay_messages, STORE, "due vs delivered"),
    ("store_latency", "mart", ["messages", "sends"], store_latency, BOTH, "store - born per producer over time"),
    ("topic_volume", "mart", ["records"], topic_volume, STORE, "records and bytes per topic and tag"),
    ("hot_keys", "mart", ["messages"], hot_keys, STORE, "most frequent KEYS per topic"),
    ("expiry_segments", "mart", ["records"], expiry_segments, STORE, "which segments fileReservedTime removes"),
    ("expiry_loss", "mart", ["expiry_segments", "units", "offsets"], expiry_loss, STORE, "what each group loses"),
)
