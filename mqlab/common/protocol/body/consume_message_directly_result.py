"""What a consumer answers to CONSUME_MESSAGE_DIRECTLY: how its listener took the one message it was handed.

``{"autoCommit":true,"consumeResult":"CR_SUCCESS","order":false,"remark":null,"spentTimeMills":3}``; fastjson leaves
out null fields, so ``remark`` only travels when the listener threw.

Java: org.apache.rocketmq.common.protocol.body.ConsumeMessageDirectlyResult (rocketmq-all-4.9.3)
"""

from __future__ import annotations

from dataclasses import dataclass

from mqlab.common.mix_all import java_to_string
from mqlab.common.protocol.body.cm_result import CMResult
from mqlab.remoting.protocol import remoting_serializable


@dataclass(slots=True)
class ConsumeMessageDirectlyResult:
    """``order``: an orderly listener; ``auto_commit``: its context's setting (always true for a concurrent one)."""

    order: bool = False
    auto_commit: bool = True
    consume_result: CMResult | None = None
    remark: str | None = None
    spent_time_mills: int = 0

    def encode(self) -> bytes:
        """Java: RemotingSerializable#encode."""
        return remoting_serializable.encode(self)

    @classmethod
    def decode(cls, body: bytes) -> ConsumeMessageDirectlyResult:
        """Java: RemotingSerializable#decode.

        Raises:
            ValueError: the body is not a JSON object.
        """
        data = remoting_serializable.from_json(body)
        if not isinstance(data, dict):
            raise ValueError("a ConsumeMessageDirectlyResult body must be a JSON object")
        result = data.get("consumeResult")
        return cls(
            bool(data.get("order", False)),
            bool(data.get("autoCommit", True)),
            CMResult[result] if result in CMResult.__members__ else None,
            data.get("remark"),
            int(data.get("spentTimeMills", 0)),
        )

    def to_string(self) -> str:
        """``ConsumeMessageDirectlyResult [order=..., ...]``. Java: ConsumeMessageDirectlyResult#toString."""
        result = self.consume_result.name if self.consume_result is not None else "null"
        return (
            f"ConsumeMessageDirectlyResult [order={java_to_string(self.order)}, "
            f"autoCommit={java_to_string(self.auto_commit)}, consumeResult={result}, "
            f"remark={'null' if self.remark is None else self.remark}, spentTimeMills={self.spent_time_mills}]"
        )
