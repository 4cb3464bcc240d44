"""Named errors for malformed messages, records and ids.

Java: none (teaching helper). RocketMQ's decoders mostly log and return null; mqlab raises one of these instead,
naming the field, the byte position and, when known, the file or frame it came from.
"""

from __future__ import annotations


class MessageFormatError(ValueError):
    """Bytes that are not a valid message record (or a value that cannot be encoded into one).

    Attributes:
        field: name of the record field at fault (e.g. ``"MAGICCODE"``), if one is.
        position: absolute byte position of that field in the buffer that was read, if known.
        where: the buffer's origin (a file name, a frame), if the caller said.
    """

    def __init__(self, message: str, *, field: str | None = None, position: int | None = None, where: str = ""):
        self.field = field
        self.position = position
        self.where = where
        detail = []
        if field is not None:
            detail.append(f"field {field}")
        if position is not None:
            detail.append(f"at byte {position}")
        if where:
            detail.append(f"in {where}")
        super().__init__(message + (f" ({', '.join(detail)})" if detail else ""))


class TruncatedRecordError(MessageFormatError):
    """The buffer ends before the record does."""


class BadMagicCodeError(MessageFormatError):
    """The MAGICCODE field is neither the message nor the blank magic code."""


class BodyCrcMismatchError(MessageFormatError):
    """The stored BODYCRC does not match the CRC of the stored body."""


class RecordSizeMismatchError(MessageFormatError):
    """TOTALSIZE disagrees with the lengths of the fields it covers."""


class TopicTooLongError(MessageFormatError):
    """A topic longer than 127 bytes cannot be stored in a v1 record (its length is one signed byte)."""


class PropertiesTooLongError(MessageFormatError):
    """A properties string longer than 32767 bytes cannot be stored (its length is a signed short)."""


class BadMessageIdError(MessageFormatError):
    """A message id that is not 32 or 56 hex characters."""
