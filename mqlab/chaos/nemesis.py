"""The nemesis: which faults a run suffers, and when, drawn from the run's seed.

Java: none (teaching helper, after Jepsen's nemesis). A fault profile names the kinds of fault a campaign uses;
``plan_faults`` turns ``(seed, profile, nodes, duration)`` into a list of ``FaultWindow``: a fault starts at
``start_ms`` (virtual ms after the send phase began) and is undone ``duration_ms`` later. Windows of one kind
never overlap, so undoing one (healing a partition, restarting a broker) never undoes another. Everything is
undone before the run's quiet phase, so the checker judges what the cluster did once the faults were over.

Kinds:

* ``broker-crash``: the broker process dies keeping the page cache (unflushed bytes survive), then restarts.
* ``power-loss``: the broker's machine loses power: bytes past each segment's flushed position are lost, then
  the broker restarts with abnormal recovery (``mqlab.store.crash.simulate_crash``).
* ``namesrv-loss``: the name server dies (its route table with it) and restarts empty.
* ``partition``: two nodes cannot reach each other.
* ``drop``: every frame is lost with a probability; ``delay``: every frame takes longer.
* ``consumer-crash``: a consumer process dies without persisting offsets; ``consumer-leave``: a clean shutdown;
  ``consumer-join``: a new instance joins its group.
* ``disk-full``: the disk fills to 96 % (the brokers refuse writes) and then frees again.

Kinds for workloads with a master/slave pair per broker name (``pairs``; the profile ``replication``):

* ``master-crash``: the master's process dies keeping the page cache, then the master comes back on its store.
* ``master-loss``: the master's machine loses power and is not brought back during the run: consumers read from the
  slave. 4.9.3 has no role change, and a master restarted on a CommitLog shorter than its slave's would refuse the
  slave's acknowledgements for good (HA-3), so an operator rebuilds such a machine from the slave instead.
* ``slave-crash``: the slave's process dies keeping the page cache, then restarts and reconnects.
* ``master-slave-partition``: the master and its slave cannot reach each other (clients reach both).

In such a workload ``power-loss`` of a master is a ``master-loss`` too.
"""

from __future__ import annotations

from dataclasses import dataclass

from mqlab.runtime.seeded_random import seeded_random

PROFILES: dict[str, tuple[str, ...]] = {
    "none": (),
    "crash": ("broker-crash", "power-loss"),
    "power-loss": ("power-loss",),
    "partition": ("partition",),
    "network": ("drop", "delay"),
    "consumers": ("consumer-crash", "consumer-leave", "consumer-join"),
    "namesrv": ("namesrv-loss",),
    "disk": ("disk-full",),
    "replication": ("master-crash", "master-loss", "slave-crash", "master-slave-partition"),
    "all": (
        "broker-crash",
        "power-loss",
        "partition",
        "drop",
        "delay",
        "consumer-crash",
        "consumer-leave",
        "consumer-join",
        "namesrv-loss",
        "disk-full",
    ),
}

# Kinds whose target is a broker / a consumer instance / a pair of nodes.
BROKER_FAULTS = {"broker-crash", "power-loss"}
CONSUMER_FAULTS = {"consumer-crash", "consumer-leave", "consumer-join"}
# Kinds whose target is a master (or its slave, or the pair) of a master/slave pair.
REPLICATION_FAULTS = {"master-crash", "master-loss", "slave-crash", "master-slave-partition"}


@dataclass(frozen=True, slots=True)
class FaultWindow:
    """One fault: its kind, target, start (ms after the send phase began) and how long until it is undone."""

    kind: str
    target: str
    start_ms: int
    duration_ms: int
    amount: float = 0.0  # drop probability, extra delay (ms)

    def describe(self) -> str:
        """``kind(target) at +start for duration``."""
        extra = f" amount={self.amount:g}" if self.amount else ""
        return f"{self.kind}({self.target}) at +{self.start_ms}ms for {self.duration_ms}ms{extra}"


def plan_faults(
    seed: int,
    profile: str,
    *,
    brokers: list[str],
    consumers: list[str],
    nodes: list[str],
    duration_ms: int,
    max_faults: int = 3,
    pairs: list[tuple[str, str]] | None = None,
) -> list[FaultWindow]:
    """Draw up to ``max_faults`` fault windows of the profile's kinds within ``duration_ms``.

    ``pairs`` lists ``(master, slave)`` node names; without pairs the replication kinds draw no window.

    Raises:
        ValueError: an unknown profile.
    """
    if profile not in PROFILES:
        raise ValueError(f"unknown fault profile {profile!r}; known: {', '.join(PROFILES)}")
    kinds = PROFILES[profile]
    if not kinds:
        return []
    rng = seeded_random(f"{seed}:nemesis:{profile}")
    busy_until: dict[str, int] = {}
    windows: list[FaultWindow] = []
    for _ in range(rng.randint(1, max_faults)):
        kind = rng.choice(kinds)
        start = rng.randrange(500, max(duration_ms - 1000, 501))
        if start < busy_until.get(kind, 0):
            continue  # one window of a kind at a time
        duration = rng.randrange(500, 6000)
        target, amount = "*", 0.0
        if kind in BROKER_FAULTS:
            target = rng.choice(brokers)
        elif kind in CONSUMER_FAULTS:
            if not consumers:
                continue
            target = rng.choice(consumers)
        elif kind in REPLICATION_FAULTS:
            if not pairs:
                continue
            master, slave = rng.choice(pairs)
            target = {"slave-crash": slave, "master-slave-partition": f"{master}|{slave}"}.get(kind, master)
        elif kind == "partition":
            a, b = rng.sample(nodes, 2)
            target = f"{a}|{b}"
        elif kind == "drop":
            amount = rng.choice((0.05, 0.2, 0.5))
        elif kind == "delay":
            amount = rng.choice((50, 500, 3500))
        busy_until[kind] = start + duration
        windows.append(FaultWindow(kind, target, start, duration, amount))
    return sorted(windows, key=lambda w: (w.start_ms, w.kind))
