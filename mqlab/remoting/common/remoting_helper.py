"""Small helpers of the remoting layer: channel addresses and one-line exception descriptions.

Java: org.apache.rocketmq.remoting.common.RemotingHelper (rocketmq-all-4.9.3)
Left out: ``invokeSync`` (a blocking request over a raw socket, used only by admin tools).
"""

from __future__ import annotations

import os
from typing import Any

from mqlab.runtime.network import split_address

# Java: RemotingHelper.ROCKETMQ_REMOTING (the logger name)
ROCKETMQ_REMOTING = "RocketmqRemoting"
DEFAULT_CHARSET = "UTF-8"


def exception_simple_desc(e: BaseException | None) -> str:
    """``"<exception>, <where it was raised>"``: the remark of a SYSTEM_ERROR response to a failed request.

    Java: RemotingHelper#exceptionSimpleDesc (``e.toString()``, then the top stack frame). Python's version names
    the exception class (module-qualified unless it is a built-in), its message, and the innermost frame as
    ``module.function(file.py:line)``.
    """
    if e is None:
        return ""
    cls = type(e)
    name = cls.__qualname__ if cls.__module__ == "builtins" else f"{cls.__module__}.{cls.__qualname__}"
    message = str(e)
    text = f"{name}: {message}" if message else name
    tb = e.__traceback__
    if tb is not None:
        while tb.tb_next is not None:
            tb = tb.tb_next
        code = tb.tb_frame.f_code
        module = tb.tb_frame.f_globals.get("__name__", "?")
        text += f", {module}.{code.co_qualname}({os.path.basename(code.co_filename)}:{tb.tb_lineno})"
    return text


def string2_socket_address(addr: str) -> tuple[str, int]:
    """``"host:port"`` → ``(host, port)``, split at the last colon. Java: RemotingHelper#string2SocketAddress."""
    return split_address(addr)


def parse_channel_remote_addr(channel: Any) -> str:
    """The peer's ``"ip:port"`` of a channel (``""`` for none). Java: RemotingHelper#parseChannelRemoteAddr."""
    if channel is None:
        return ""
    return parse_socket_address_addr(getattr(channel, "remote_address", "") or "")


def parse_socket_address_addr(socket_address: str | None) -> str:
    """The text after the last ``/`` (Java prints addresses as ``host/ip:port``).

    Java: RemotingHelper#parseSocketAddressAddr
    """
    if not socket_address:
        return ""
    return socket_address[socket_address.rfind("/") + 1 :]
