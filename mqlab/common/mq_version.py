"""RocketMQ's release names and the number a client sends for them.

Every remoting command carries ``version``: the ordinal of the sender's release in ``MQVersion.Version``, an enum
listing every release name from V3_0_0_SNAPSHOT to V5_9_9 (612 names; 4.9.3 is number 399). A broker or an admin
tool turns the number back into a name with ``get_version_desc``; a number past the end names the last release.

The names follow a pattern, so mqlab builds the list from it instead of spelling out 612 names: after the 3.0.0
pre-releases, each patch release ``Vx_y_z`` is preceded by its ``Vx_y_z_SNAPSHOT``; 3.0 has patches 1..15, 3.1 and
3.2 patches 0..9, 3.3 to 3.9 patches 1..9, and 4.0 to 5.9 patches 0..9.

Java: org.apache.rocketmq.common.MQVersion (rocketmq-all-4.9.3), with its inner enum Version
"""

from __future__ import annotations

from enum import Enum


def _release_names() -> list[str]:
    names = ["V3_0_0_SNAPSHOT", "V3_0_0_ALPHA1"]
    names += [f"V3_0_0_BETA{i}" for i in range(1, 6)]
    for i in range(6, 10):
        names += [f"V3_0_0_BETA{i}_SNAPSHOT", f"V3_0_0_BETA{i}"]
    names.append("V3_0_0_FINAL")
    minors: list[tuple[int, int, range]] = [(3, 0, range(1, 16)), (3, 1, range(10)), (3, 2, range(10))]
    minors += [(3, minor, range(1, 10)) for minor in range(3, 10)]
    minors += [(major, minor, range(10)) for major in (4, 5) for minor in range(10)]
    for major, minor, patches in minors:
        for patch in patches:
            names += [f"V{major}_{minor}_{patch}_SNAPSHOT", f"V{major}_{minor}_{patch}"]
    return names


Version = Enum("Version", [(name, ordinal) for ordinal, name in enumerate(_release_names())])
"""Every release name, in release order; a member's value is its ordinal, the number a command carries.

Java: MQVersion.Version
"""

# Java: MQVersion.CURRENT_VERSION (the same number as mix_all.CURRENT_VERSION).
CURRENT_VERSION = Version["V4_9_3"].value


def get_version_desc(value: int) -> str:
    """The release name of a version number; numbers past the last release name the last one.

    Java: MQVersion#getVersionDesc (a negative number fails there with an index error; here with ValueError)

    Raises:
        ValueError: ``value`` is negative.
    """
    if value < 0:
        raise ValueError(f"no release has version number {value}")
    return value2version(value).name


def value2version(value: int) -> Version:
    """The release of a version number, the last one for numbers past it. Java: MQVersion#value2Version."""
    members = list(Version)
    return members[min(value, len(members) - 1)]
