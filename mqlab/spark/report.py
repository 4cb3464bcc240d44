"""The report of ``mqlab analyze``: ``OUT/report.md`` and its plots in ``OUT/plots/``.

Java: none (teaching layer). The report holds the inputs and parameters, the plan, an index of the tables with
their row counts, and per mart a short summary table and a plot. Plots use ``mqlab.teaching.figures`` (fixed size,
DPI, font and PNG metadata), and every table is sorted, so the same stores give the same report, byte for byte;
nothing in it depends on the machine or the wall clock (no timings, no absolute paths).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from mqlab.common.extras import needs_extra
from mqlab.teaching.figures import figure, figure_png

with needs_extra("spark", __name__):
    import pandas as pd

if TYPE_CHECKING:
    from matplotlib.figure import Figure

    from mqlab.spark.pipeline import Params, PipelineResult, StoreInputs

REPORT = "report.md"
PLOTS = "plots"
FIGURE_SIZE = (6.4, 3.6)  # inches; 100 DPI (mqlab.teaching.figures.DPI): 640 x 360 px


def _cell(value: Any) -> str:
    if value is None or (not isinstance(value, (str, bool)) and pd.isna(value)):
        return ""
    if isinstance(value, pd.Timestamp):
        return value.strftime("%Y-%m-%d %H:%M:%S.%f")[:-3]
    if isinstance(value, float):
        return f"{value:g}"
    return str(value).replace("|", "\\|")


def markdown_table(frame: pd.DataFrame, limit: int | None = None) -> str:
    """``frame`` as a Markdown table (at most ``limit`` rows, then a line saying how many were left out)."""
    shown = frame if limit is None else frame.head(limit)
    lines = ["| " + " | ".join(frame.columns) + " |", "|" + "---|" * len(frame.columns)]
    lines += ["| " + " | ".join(_cell(v) for v in row) + " |" for row in shown.itertuples(index=False)]
    if limit is not None and len(frame) > limit:
        lines.append(f"\n({len(frame) - limit} more rows in the Parquet table)")
    return "\n".join(lines)


# -- summaries (pandas, from the marts) -------------------------------------------------------------------------
def lag_by_group(lag: pd.DataFrame) -> pd.DataFrame:
    """consumer_lag summed per group, topic and keeper (the lines ``consumerProgress`` ends each group with)."""
    out = lag.groupby(["group", "topic", "kept_by"], as_index=False).agg(
        queues=("queue_id", "count"),
        broker_offset=("broker_offset", "sum"),
        consumer_offset=("consumer_offset", "sum"),
        diff=("diff", "sum"),
    )
    return out.sort_values(["group", "topic", "kept_by"], ignore_index=True)


def latency_by_producer(latency: pd.DataFrame) -> pd.DataFrame:
    """store_latency over the whole run per producer: messages, mean and worst window p90, max."""
    latency = latency.assign(weighted=latency["mean_ms"] * latency["messages"])
    out = latency.groupby(["producer_group", "born_ip"], as_index=False).agg(
        messages=("messages", "sum"),
        weighted=("weighted", "sum"),
        worst_p90_ms=("p90_ms", "max"),
        max_ms=("max_ms", "max"),
    )
    out["mean_ms"] = (out.pop("weighted") / out["messages"]).round(3)
    return out[["producer_group", "born_ip", "messages", "mean_ms", "worst_p90_ms", "max_ms"]]


def delay_by_level(delay: pd.DataFrame) -> pd.DataFrame:
    """delay_messages per kind and level: how many, how many delivered, how late (ms) at worst."""
    delay = delay.assign(delivered=delay["delivered_at"].notna())
    out = delay.groupby(["kind", "delay_level"], as_index=False).agg(
        scheduled=("uniq_key", "count"), delivered=("delivered", "sum"), max_late_ms=("late_ms", "max")
    )
    return out.astype({"delivered": "int64"}).sort_values(["kind", "delay_level"], ignore_index=True)


def expiry_by_broker(segments: pd.DataFrame) -> pd.DataFrame:
    """expiry_segments per broker: segments, how many would go, and the bytes and records they hold."""
    gone = segments[segments["expires"].astype(bool)]
    total = segments.groupby("broker", as_index=False).agg(segments=("segment", "count"))
    freed = gone.groupby("broker", as_index=False).agg(
        expiring=("segment", "count"), bytes=("bytes", "sum"), messages=("messages", "sum")
    )
    out = total.merge(freed, on="broker", how="left").fillna(0)
    return out.astype({"expiring": "int64", "bytes": "int64", "messages": "int64"})


# -- plots -----------------------------------------------------------------------------------------------------
def plot_consumer_lag(marts: dict[str, pd.DataFrame]) -> Figure:
    """Total diff per group (and keeper), as horizontal bars."""
    summary = lag_by_group(marts["consumer_lag"])
    labels = [f"{r.group} · {r.topic} · {r.kept_by}" for r in summary.itertuples()]
    fig, ax = figure(size=FIGURE_SIZE)
    ax.barh(range(len(labels)), summary["diff"], color="tab:red")
    ax.set_yticks(range(len(labels)), labels, fontsize=7)
    ax.invert_yaxis()
    ax.set(xlabel="diff = broker offset - consumer offset (messages)", title="Consumer lag per group")
    return fig


def plot_retry_funnel(marts: dict[str, pd.DataFrame]) -> Figure:
    """Per group with failures: failures sent to retry and to the DLQ, by attempt."""
    funnel = marts["retry_funnel"]
    failing = funnel[(funnel["sent_to_retry"] + funnel["sent_to_dlq"]) > 0]
    fig, ax = figure(size=FIGURE_SIZE)
    for group, rows in failing.groupby("group", sort=True):
        ax.bar(rows["attempt"] - 0.2, rows["sent_to_retry"], width=0.4, label=f"{group}: to %RETRY%")
        ax.bar(rows["attempt"] + 0.2, rows["sent_to_dlq"], width=0.4, label=f"{group}: to %DLQ%")
    ax.set(xlabel="attempt (reconsume_times of the failed delivery)", ylabel="messages", title="Retry and DLQ funnel")
    if len(failing):
        ax.legend(fontsize=8)
    return fig


def plot_store_latency(marts: dict[str, pd.DataFrame]) -> Figure:
    """p90 of store - born per producer and time window."""
    latency = marts["store_latency"]
    fig, ax = figure(size=FIGURE_SIZE)
    for (group, ip), rows in latency.groupby(["producer_group", "born_ip"], sort=True):
        start = rows["window_start"].min()
        seconds = (rows["window_start"] - start).dt.total_seconds() if len(rows) else rows["window_start"]
        ax.plot(seconds, rows["p90_ms"], marker="o", label=f"{group or '?'} ({ip})")
    ax.set(xlabel="seconds since the producer's first window", ylabel="p90 store - born (ms)", title="Store latency")
    if len(latency):
        ax.legend(fontsize=8)
    return fig


def plot_topic_volume(marts: dict[str, pd.DataFrame]) -> Figure:
    """Records per topic and tag (system topics in grey)."""
    volume = marts["topic_volume"]
    labels = [f"{r.topic} {r.tags}".strip() for r in volume.itertuples()]
    colors = ["tab:gray" if s else "tab:blue" for s in volume["system"]]
    fig, ax = figure(size=FIGURE_SIZE)
    ax.barh(range(len(labels)), volume["messages"], color=colors)
    ax.set_yticks(range(len(labels)), labels, fontsize=7)
    ax.invert_yaxis()
    ax.set(xlabel="records", title="Topic and tag volume (grey: system topics)")
    return fig


def plot_delay(marts: dict[str, pd.DataFrame]) -> Figure:
    """Lateness (delivered - due, ms) of every delivered SCHEDULE_TOPIC_XXXX record, by level."""
    delay = marts["delay_messages"].dropna(subset=["late_ms"])
    fig, ax = figure(size=FIGURE_SIZE)
    for kind, rows in delay.groupby("kind", sort=True):
        ax.scatter(rows["delay_level"], rows["late_ms"], s=8, alpha=0.5, label=kind)
    ax.set(xlabel="delay level", ylabel="delivered - due (ms)", title="Delayed messages: delivered vs due")
    if len(delay):
        ax.legend(fontsize=8)
    return fig


FIGURES: dict[str, Callable[[dict[str, pd.DataFrame]], Figure]] = {
    "consumer_lag": plot_consumer_lag,
    "retry_funnel": plot_retry_funnel,
    "store_latency": plot_store_latency,
    "topic_volume": plot_topic_volume,
    "delay_messages": plot_delay,
}


# -- the report ------------------------------------------------------------------------------------------------
def mart_frames(result: PipelineResult) -> dict[str, pd.DataFrame]:
    """Every mart of a run as pandas, sorted as the mart declares."""
    return {t.name: result.pandas(t.name) for t in result.plan if t.layer == "mart"}


def _inputs_text(inputs: StoreInputs, params: Params) -> list[str]:
    import json

    lines = ["- Brokers: " + ", ".join(b.broker for b in inputs.brokers)]
    for path in inputs.manifests:
        manifest = json.loads(path.read_text(encoding="utf-8"))
        lines.append(f"- Manifest: scenario `{manifest['scenario']}`, seed {manifest['seed']}")
    if not inputs.manifests:
        lines.append("- Manifest: none (the manifest columns are empty)")
    now = "the newest store time" if params.now_ms is None else f"{params.now_ms} (epoch ms)"
    lines.append(f"- Expiry what-if: fileReservedTime = {params.file_reserved_ms} ms, evaluated at {now}")
    lines.append(f"- Hot keys: top {params.top_keys} per topic; store latency windows of {params.latency_window_s} s")
    return lines


def write_report(result: PipelineResult, inputs: StoreInputs, params: Params) -> Path:
    """Write ``report.md`` and ``plots/*.png`` under the run's output directory; return the report's path."""
    from mqlab.spark.pipeline import format_plan

    marts = mart_frames(result)
    plots = result.out / PLOTS
    plots.mkdir(parents=True, exist_ok=True)
    for name, draw in FIGURES.items():
        (plots / f"{name}.png").write_bytes(figure_png(draw(marts)))
    index = pd.DataFrame(
        [
            (t.name, t.layer, result.rows[t.name], t.facts, ", ".join(t.inputs), f"tables/{t.name}/")
            for t in result.plan
        ],
        columns=["table", "layer", "rows", "facts", "reads", "parquet"],
    )
    dup = marts["duplicates"]
    sections = [
        "# mqlab analyze",
        "\n".join(_inputs_text(inputs, params)),
        "## Plan\n\n```text\n" + format_plan(result.plan) + "\n```",
        "## Tables\n\n" + markdown_table(index),
        "## Consumer lag\n\nFrom `consumerOffset.json` (and broadcasting clients' `offsets.json`) against each queue's "
        "max offset in the ConsumeQueue.\n\n" + markdown_table(lag_by_group(marts["consumer_lag"])) + "\n\n"
        f"![consumer lag]({PLOTS}/consumer_lag.png)",
        "## Retry and DLQ funnel\n\n`sent_to_retry`, `sent_to_dlq` from the store; `attempts`, `failed` from the "
        "manifest.\n\n" + markdown_table(marts["retry_funnel"]) + f"\n\n![retry funnel]({PLOTS}/retry_funnel.png)",
        f"## Duplicates\n\n{len(dup)} UNIQ_KEY(s) stored more than once.\n\n"
        + markdown_table(dup[["topic", "uniq_key", "copies", "brokers", "cause"]], limit=20),
        "## Delayed messages\n\n"
        + markdown_table(delay_by_level(marts["delay_messages"]))
        + f"\n\n![delayed messages]({PLOTS}/delay_messages.png)",
        "## Store latency\n\n"
        + markdown_table(latency_by_producer(marts["store_latency"]))
        + f"\n\n![store latency]({PLOTS}/store_latency.png)",
        "## Topic and tag volume\n\n"
        + markdown_table(marts["topic_volume"])
        + f"\n\n![topic volume]({PLOTS}/topic_volume.png)",
        "## Hot keys\n\n" + markdown_table(marts["hot_keys"][marts["hot_keys"]["rank"] <= 3]),
        "## Expiry what-if\n\n"
        + markdown_table(expiry_by_broker(marts["expiry_segments"]))
        + "\n\n"
        + markdown_table(marts["expiry_loss"]),
    ]
    path = result.out / REPORT
    path.write_text("\n\n".join(sections) + "\n", encoding="utf-8")
    return path
