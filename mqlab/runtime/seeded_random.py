"""Random number generators seeded from a value, for drivers that derive their own streams from a run's seed.

Java: none. The engine draws from its runtime's ``random`` (the simulated world seeds every node's); a fault
campaign or a workload derives further streams from the run's seed (``"<seed>:nemesis:<profile>"``) so each part of a
run is reproducible on its own. A text seed is hashed with SHA-512 by ``random.Random`` (not by ``hash()``), so the
stream is the same in every process.
"""

from __future__ import annotations

import random


def seeded_random(seed: int | str) -> random.Random:
    """A generator of its own, seeded with ``seed``."""
    return random.Random(seed)
