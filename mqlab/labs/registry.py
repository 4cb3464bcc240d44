"""The labs, in the order of the notebooks they follow (store, then client, then broker).

Java: none (teaching layer).
"""

from __future__ import annotations

from mqlab.labs import allocation, consume_queue_unit, flow_control, recovery, remove_message, retry_ladder
from mqlab.labs.lab import Lab

LABS: dict[str, Lab] = {
    lab.name: lab
    for lab in (
        consume_queue_unit.LAB,
        recovery.RECORD_CHECK,
        recovery.RECOVERY_START,
        flow_control.LAB,
        allocation.AVERAGELY,
        allocation.BY_CIRCLE,
        remove_message.LAB,
        retry_ladder.LAB,
    )
}


class UnknownLabError(ValueError):
    """No lab has that name."""

    def __init__(self, name: str):
        super().__init__(f"there is no lab {name!r}; `mqlab lab list` shows them: {', '.join(LABS)}")
        self.name = name


def get_lab(name: str) -> Lab:
    """The lab called ``name`` (``allocate-averagely`` works for ``allocate_averagely``).

    Raises:
        UnknownLabError: no such lab.
    """
    lab = LABS.get(name.strip().replace("-", "_"))
    if lab is None:
        raise UnknownLabError(name)
    return lab
