"""The broker's check of a consumer or producer group name, shared by every processor that is handed one.

Java: none. 4.9.3's broker takes any group name on the wire; only clients check it (``Validators#checkGroup``).
mqlab's broker applies the client's rules too (``topic_validator.validate_group``) before a group can name a topic,
a directory or a table entry, and answers SYSTEM_ERROR with the client's message (docs/spec/hardening.md, HARD-1).
"""

from __future__ import annotations

from mqlab.common.topic import topic_validator
from mqlab.remoting.protocol.remoting_command import RemotingCommand


def refuse_invalid_group(group: str | None, response: RemotingCommand) -> bool:
    """Fill ``response`` with the refusal and return ``True`` if ``group`` is not a valid group name."""
    failure = topic_validator.validate_group(group)
    if failure is None:
        return False
    response.code, response.remark = failure
    return True
