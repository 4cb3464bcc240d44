"""Named errors for configuration files (broker.conf, namesrv.properties) and config objects.

Java: none (teaching helper). RocketMQ 4.9.3's ``MixAll#properties2Object`` swallows every problem: an unknown key,
``fileReservedTime=48h`` or ``autoCreateTopicEnable=ture`` are silently ignored (or read as ``false``) and the broker
starts with a default the operator did not ask for. mqlab refuses such a file instead and says where the problem is.
"""

from __future__ import annotations


def _where(source: str, line: int | None) -> str:
    return f"{source}:{line}" if line is not None else source


class ConfigError(ValueError):
    """A configuration file or mapping that mqlab refuses to apply.

    Attributes:
        source: The file name (or ``"<string>"``) the text came from.
        line: The 1-based line where the offending entry starts, or None when unknown (a plain dict).
    """

    def __init__(self, message: str, *, source: str, line: int | None) -> None:
        super().__init__(f"{_where(source, line)}: {message}")
        self.source = source
        self.line = line


class PropertiesSyntaxError(ConfigError):
    r"""Text that ``java.util.Properties#load`` itself rejects (a malformed ``\uXXXX`` escape).

    Java throws ``IllegalArgumentException("Malformed \uxxxx encoding.")`` and the broker does not start.
    """


class UnknownConfigKeyError(ConfigError):
    """A key that no config object of the loader has (RocketMQ 4.9.3 silently ignores it).

    Attributes:
        key: The key as written in the file.
        suggestion: The nearest valid key (difflib), or None when nothing is close.
    """

    def __init__(self, key: str, *, source: str, line: int | None, suggestion: str | None) -> None:
        hint = f"; did you mean {suggestion!r}?" if suggestion else ""
        super().__init__(
            f"unknown config key {key!r}{hint} (RocketMQ 4.9.3 would silently ignore it)", source=source, line=line
        )
        self.key = key
        self.suggestion = suggestion


class InvalidConfigValueError(ConfigError):
    """A value that cannot be converted to its field's Java type, or that a start-up rule rejects.

    Attributes:
        key: The Java key (camelCase) the value was given for.
        value: The value exactly as read (trailing whitespace included: Properties keeps it).
        expected: What the field accepts, in words (``"Java int (-2147483648..2147483647)"``).
    """

    def __init__(self, key: str, value: str, *, expected: str, source: str, line: int | None, hint: str = "") -> None:
        extra = f" ({hint})" if hint else ""
        super().__init__(f"invalid value {value!r} for {key}: expected {expected}{extra}", source=source, line=line)
        self.key = key
        self.value = value
        self.expected = expected
