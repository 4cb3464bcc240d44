"""Assorted constants and helpers shared by broker, client and tools.

Java: org.apache.rocketmq.common.MixAll (rocketmq-all-4.9.3)
Left out: file helpers, ACL and LMQ helpers beyond the prefix constant.

The second half reads configuration: ``string2properties`` follows ``java.util.Properties#load`` (the syntax of
broker.conf and namesrv.properties) and ``properties2object`` sets config fields by their Java key, like
``MixAll#properties2Object`` but strict: where Java silently skips a key or a value, mqlab raises a named
``ConfigError`` (see ``mqlab.common.config_errors``).
"""

from __future__ import annotations

import dataclasses
import difflib
import enum
import functools
import re
import types
import typing
from collections.abc import Iterator, Mapping
from typing import Annotated

from mqlab.common.config_errors import InvalidConfigValueError, PropertiesSyntaxError, UnknownConfigKeyError

# Topic every broker creates so producers can auto-create topics through it (createTopicKey).
AUTO_CREATE_TOPIC_KEY_TOPIC = "TBW102"
BENCHMARK_TOPIC = "BenchmarkTest"
SELF_TEST_TOPIC = "SELF_TEST_TOPIC"
OFFSET_MOVED_EVENT = "OFFSET_MOVED_EVENT"

DEFAULT_PRODUCER_GROUP = "DEFAULT_PRODUCER"
DEFAULT_CONSUMER_GROUP = "DEFAULT_CONSUMER"
TOOLS_CONSUMER_GROUP = "TOOLS_CONSUMER"
FILTERSRV_CONSUMER_GROUP = "FILTERSRV_CONSUMER"
MONITOR_CONSUMER_GROUP = "__MONITOR_CONSUMER"
CLIENT_INNER_PRODUCER_GROUP = "CLIENT_INNER_PRODUCER"
SELF_TEST_PRODUCER_GROUP = "SELF_TEST_P_GROUP"
SELF_TEST_CONSUMER_GROUP = "SELF_TEST_C_GROUP"
ONS_HTTP_PROXY_GROUP = "CID_ONS-HTTP-PROXY"
CID_ONSAPI_PERMISSION_GROUP = "CID_ONSAPI_PERMISSION"
CID_ONSAPI_OWNER_GROUP = "CID_ONSAPI_OWNER"
CID_ONSAPI_PULL_GROUP = "CID_ONSAPI_PULL"
CID_RMQ_SYS_PREFIX = "CID_RMQ_SYS_"
# The group under which the broker keeps its transaction check offsets (half and op queues).
CID_SYS_RMQ_TRANS = "CID_RMQ_SYS_TRANS"

RETRY_GROUP_TOPIC_PREFIX = "%RETRY%"
DLQ_GROUP_TOPIC_PREFIX = "%DLQ%"
LMQ_PREFIX = "%LMQ%"
REPLY_TOPIC_POSTFIX = "REPLY_TOPIC"
UNIQUE_MSG_QUERY_FLAG = "_UNIQUE_KEY_QUERY"
DEFAULT_TRACE_REGION_ID = "DefaultRegion"
CONSUME_CONTEXT_TYPE = "ConsumeContextType"

MASTER_ID = 0
FIRST_SLAVE_ID = 1
# Ordinal of MQVersion.Version.V4_9_3: the `version` every 4.9.3 remoting command carries.
CURRENT_VERSION = 399

DEFAULT_CHARSET = "UTF-8"


def get_retry_topic(consumer_group: str) -> str:
    """Name of the retry topic of a consumer group (``%RETRY%<group>``).

    Java: MixAll#getRetryTopic
    """
    return RETRY_GROUP_TOPIC_PREFIX + consumer_group


def get_dlq_topic(consumer_group: str) -> str:
    """Name of the dead-letter topic of a consumer group (``%DLQ%<group>``).

    Java: MixAll#getDLQTopic
    """
    return DLQ_GROUP_TOPIC_PREFIX + consumer_group


def is_sys_consumer_group(consumer_group: str) -> bool:
    """Whether a group name is reserved for RocketMQ's own consumers.

    Java: MixAll#isSysConsumerGroup
    """
    return consumer_group.startswith(CID_RMQ_SYS_PREFIX)


def is_lmq(topic: str | None) -> bool:
    """Whether a topic is a light message queue (``%LMQ%`` prefix; the feature itself is out of scope).

    Java: MixAll#isLmq
    """
    return topic is not None and topic.startswith(LMQ_PREFIX)


def get_reply_topic(cluster_name: str) -> str:
    """Name of the reply topic of a cluster (``<cluster>_REPLY_TOPIC``).

    Java: MixAll#getReplyTopic
    """
    return f"{cluster_name}_{REPLY_TOPIC_POSTFIX}"


def broker_vip_channel(is_change: bool, broker_addr: str) -> str:
    """Address of a broker's VIP channel: the same host, port minus 2.

    Java: MixAll#brokerVIPChannel
    """
    if not is_change:
        return broker_addr
    host, _, port = broker_addr.rpartition(":")
    return f"{host}:{int(port) - 2}"


# --------------------------------------------------------------------------------------------------------------------
# Configuration: java.util.Properties text and MixAll#properties2Object
# --------------------------------------------------------------------------------------------------------------------

# Where Java looks for defaults that mqlab takes from its caller instead (environment variable / -D property).
ROCKETMQ_HOME_ENV = "ROCKETMQ_HOME"
ROCKETMQ_HOME_PROPERTY = "rocketmq.home.dir"
NAMESRV_ADDR_ENV = "NAMESRV_ADDR"
NAMESRV_ADDR_PROPERTY = "rocketmq.namesrv.addr"

# Java sizes several thread pools from Runtime.availableProcessors(); mqlab assumes this many processors so that
# defaults (and every notebook printing them) do not depend on the machine. Callers may pass their own count.
REFERENCE_AVAILABLE_PROCESSORS = 4


@dataclasses.dataclass(frozen=True, slots=True)
class JavaIntegral:
    """The range of a Java integral type; config fields carry it as ``Annotated[int, JAVA_LONG]``.

    Java: none (teaching helper; the setter's parameter type decides the parser in MixAll#properties2Object)
    """

    name: str
    min_value: int
    max_value: int


JAVA_INT = JavaIntegral("int", -(2**31), 2**31 - 1)
JAVA_LONG = JavaIntegral("long", -(2**63), 2**63 - 1)
# Annotations for config fields: the Java type decides the accepted range (Integer.parseInt vs Long.parseLong).
JavaInt = Annotated[int, JAVA_INT]
JavaLong = Annotated[int, JAVA_LONG]

_PROPERTIES_WHITESPACE = " \t\f"
_LINE_ENDS = "\r\n"
_KEY_SEPARATORS = "=:"
_SIMPLE_ESCAPES = {"t": "\t", "r": "\r", "n": "\n", "f": "\f"}
_HEX_DIGITS = frozenset("0123456789abcdefABCDEF")


class Properties(dict[str, str]):
    """Keys and values read from properties text, remembering where each key was (last) set.

    Java: java.util.Properties (load and getProperty only; a later duplicate key replaces the earlier value)

    Attributes:
        source: Name of the text's origin, used in error messages (a file name or ``"<string>"``).
        line_numbers: For each key, the physical line (1-based) on which its logical line starts.
    """

    __slots__ = ("line_numbers", "source")

    def __init__(self, source: str = "<string>") -> None:
        super().__init__()
        self.source = source
        self.line_numbers: dict[str, int] = {}


def string2properties(text: str, *, source: str = "<string>") -> Properties:
    r"""Parse properties text (the format of broker.conf) into keys and values.

    Java: MixAll#string2Properties, which delegates to java.util.Properties#load. Java returns null when the text is
    malformed; mqlab raises ``PropertiesSyntaxError`` instead.

    The syntax, exactly as Java reads it:

    * a line whose first non-blank character is ``#`` or ``!`` is a comment; blank lines are skipped;
    * the key ends at the first unescaped ``=``, ``:`` or blank (space, tab, form feed); blanks around the
      separator are skipped, so ``k=v``, ``k: v``, ``k v`` and ``k = v`` all give ``v``;
    * leading blanks of every line are skipped, but trailing blanks stay in the value (``k = 48 `` gives ``"48 "``);
    * a line ending in an odd number of backslashes continues on the next line, whose leading blanks are skipped;
    * ``\t \n \r \f`` and ``\uXXXX`` are escapes; any other escaped character stands for itself (``\=``, ``\:``).

    Args:
        text: The decoded text (files are decoded as ISO-8859-1 by ``mqlab.common.config_file``, as Java does).
        source: Name used in error messages.

    Returns:
        The keys and values, with the line on which each key was set.

    Raises:
        PropertiesSyntaxError: A malformed ``\uXXXX`` escape.
    """
    properties = Properties(source)
    for line_number, logical_line in _logical_lines(text):
        raw_key, raw_value = _split_key_value(logical_line)
        key = _load_convert(raw_key, source=source, line=line_number)
        properties[key] = _load_convert(raw_value, source=source, line=line_number)
        properties.line_numbers[key] = line_number
    return properties


def _logical_lines(text: str) -> Iterator[tuple[int, str]]:
    """Yield (physical line of the first character, logical line) pairs; comments and blank lines are dropped.

    Java: java.util.Properties$LineReader#readLine as in JDK 9+ (checked against OpenJDK 17). JDK 8, which RocketMQ
    4.9.3 also runs on, differs only after a line holding nothing but a backslash: it reads a following ``#`` or
    ``!`` as text, and after a comment ending in a backslash it carries that backslash's state into the next line.
    """
    buffer: list[str] = []
    physical_line = start_line = 1
    last_index = len(text) - 1
    skip_white_space, appended_line_begin, preceding_backslash, skip_lf, in_comment = True, False, False, False, False
    for index, char in enumerate(text):
        char_line = physical_line
        # "\r\n" is one line end; a lone "\r" or "\n" is one too.
        if char == "\r" or (char == "\n" and (index == 0 or text[index - 1] != "\r")):
            physical_line += 1
        if skip_lf:
            skip_lf = False
            if char == "\n":
                continue
        if in_comment:
            # A comment runs to the end of its physical line; a trailing backslash does not continue it.
            if char in _LINE_ENDS:
                in_comment, skip_white_space = False, True
            continue
        if skip_white_space:
            if char in _PROPERTIES_WHITESPACE or (not appended_line_begin and char in _LINE_ENDS):
                continue
            skip_white_space, appended_line_begin = False, False
        if not buffer and char in "#!":
            in_comment = True
            continue
        if char not in _LINE_ENDS:
            if not buffer:
                start_line = char_line
            buffer.append(char)
            preceding_backslash = not preceding_backslash if char == "\\" else False
            continue
        if not buffer:
            skip_white_space = True
            continue
        if index == last_index:
            # The text's last character ends the line even after a backslash: the continuation has nothing to
            # join, and a line holding only a backslash becomes an empty key (Java quirk, kept).
            break
        if preceding_backslash:
            # An odd number of trailing backslashes joins the next line (its leading blanks are skipped).
            buffer.pop()
            skip_white_space, appended_line_begin, preceding_backslash = True, True, False
            skip_lf = char == "\r"
            continue
        yield start_line, "".join(buffer)
        buffer.clear()
        skip_white_space, appended_line_begin, preceding_backslash, skip_lf = True, False, False, False
    if buffer:
        if preceding_backslash:
            buffer.pop()
        yield start_line, "".join(buffer)


def _split_key_value(line: str) -> tuple[str, str]:
    """Split a logical line into its raw (still escaped) key and value.

    Java: java.util.Properties#load0
    """
    limit = len(line)
    key_len = 0
    value_start = limit
    has_separator = False
    preceding_backslash = False
    while key_len < limit:
        char = line[key_len]
        if char in _KEY_SEPARATORS and not preceding_backslash:
            value_start, has_separator = key_len + 1, True
            break
        if char in _PROPERTIES_WHITESPACE and not preceding_backslash:
            value_start = key_len + 1
            break
        preceding_backslash = not preceding_backslash if char == "\\" else False
        key_len += 1
    while value_start < limit:
        char = line[value_start]
        if char not in _PROPERTIES_WHITESPACE:
            # One "=" or ":" may follow the blanks that ended the key ("key = value").
            if has_separator or char not in _KEY_SEPARATORS:
                break
            has_separator = True
        value_start += 1
    return line[:key_len], line[value_start:]


def _load_convert(raw: str, *, source: str, line: int) -> str:
    """Resolve backslash escapes in a raw key or value.

    Java: java.util.Properties#loadConvert
    """
    if "\\" not in raw:
        return raw
    out: list[str] = []
    index, end = 0, len(raw)
    while index < end:
        char = raw[index]
        index += 1
        if char != "\\" or index == end:
            out.append(char)
            continue
        char = raw[index]
        index += 1
        if char != "u":
            out.append(_SIMPLE_ESCAPES.get(char, char))
            continue
        digits = raw[index : index + 4]
        if len(digits) < 4 or not _HEX_DIGITS.issuperset(digits):
            raise PropertiesSyntaxError(
                f"malformed \\uxxxx encoding: {raw[index - 2 : index + 4]!r}", source=source, line=line
            )
        out.append(chr(int(digits, 16)))
        index += 4
    # \uD83D\uDE00 names one character by its two UTF-16 halves: join such pairs as Java's String would.
    return "".join(out).encode("utf-16-le", "surrogatepass").decode("utf-16-le", "surrogatepass")


def properties2string(properties: Mapping[str, str | None]) -> str:
    """Write properties as ``key=value`` lines, without escaping (values that need escapes do not survive).

    Java: MixAll#properties2String (Java iterates its Hashtable; mqlab keeps the mapping's order)
    """
    return "".join(f"{key}={value}\n" for key, value in properties.items() if value is not None)


@dataclasses.dataclass(frozen=True, slots=True)
class ConfigField:
    """One settable field of a config class: its Python name, its Java key and the Java type that parses it.

    Java: none (teaching helper; Java finds the setter ``set<Key>`` by reflection)
    """

    name: str
    key: str
    java_type: str
    integral: JavaIntegral | None = None
    enum_type: type[enum.Enum] | None = None


# Java writes these words in capitals inside camelCase keys (brokerIP1, checkCRCOnRecover, useTLS, clientIP).
_KEY_ACRONYMS = frozenset({"crc", "ip", "tls"})


def java_key_of(field_name: str) -> str:
    """The Java config key of a snake_case field (``broker_ip1`` → ``brokerIP1``, ``d_leger_group`` → ``dLegerGroup``).

    Java: MixAll#properties2Object derives the key from the setter name (``setBrokerIP1`` → ``brokerIP1``).
    """
    first, *rest = field_name.split("_")
    parts = [first]
    for part in rest:
        word = part.rstrip("0123456789")
        parts.append(part.upper() if word in _KEY_ACRONYMS else part[:1].upper() + part[1:])
    return "".join(parts)


@functools.cache
def config_keys(config_class: type) -> dict[str, ConfigField]:
    """Every key a config dataclass accepts, mapped to its field (fields with ``init=False`` are not keys).

    Java: the ``set*`` methods MixAll#properties2Object finds by reflection.
    """
    hints = typing.get_type_hints(config_class, include_extras=True)
    table: dict[str, ConfigField] = {}
    for field in dataclasses.fields(config_class):
        if field.init:
            config_field = _config_field(field.name, hints[field.name])
            table[config_field.key] = config_field
    return table


def _config_field(name: str, hint: object) -> ConfigField:
    key = java_key_of(name)
    if typing.get_origin(hint) is Annotated:
        base, *metadata = typing.get_args(hint)
        integral = next((item for item in metadata if isinstance(item, JavaIntegral)), None)
        if base is int and integral is not None:
            return ConfigField(name, key, integral.name, integral=integral)
    if isinstance(hint, types.UnionType) or typing.get_origin(hint) is typing.Union:
        # "str | None": Java's reference-typed fields that start as null.
        non_null = [arg for arg in typing.get_args(hint) if arg is not type(None)]
        if len(non_null) == 1:
            return _config_field(name, non_null[0])
    if hint is bool:
        return ConfigField(name, key, "boolean")
    if hint is int:
        return ConfigField(name, key, "int", integral=JAVA_INT)
    if hint is str:
        return ConfigField(name, key, "String")
    if isinstance(hint, type) and issubclass(hint, enum.Enum):
        return ConfigField(name, key, hint.__name__, enum_type=hint)
    raise TypeError(f"config field {name!r} has a type properties2object cannot parse: {hint!r}")


def suggest_config_key(key: str, valid_keys: typing.Iterable[str]) -> str | None:
    """The valid key nearest to a misspelt one (case-insensitive difflib match), or None.

    Java: none (teaching helper)
    """
    by_lower = {valid.lower(): valid for valid in valid_keys}
    if key.lower() in by_lower:
        return by_lower[key.lower()]
    matches = difflib.get_close_matches(key.lower(), list(by_lower), n=1, cutoff=0.6)
    return by_lower[matches[0]] if matches else None


# What Integer.parseInt / Long.parseLong accept: an optional sign and decimal digits (Character.digit accepts any
# Unicode decimal digit, as \d does here), nothing else: no blanks, no "_", no "0x", no "L".
_JAVA_DECIMAL = re.compile(r"[+-]?\d+")


def parse_java_integral(text: str, integral: JavaIntegral = JAVA_INT) -> int:
    """Parse text as Java's ``Integer.parseInt`` (or ``Long.parseLong``) would.

    Java: java.lang.Integer#parseInt(String), java.lang.Long#parseLong(String)

    Raises:
        ValueError: Text that Java rejects with NumberFormatException (including values out of range).
    """
    # Java strings are UTF-16: a digit outside the BMP arrives as two surrogates that Character.digit rejects.
    if not _JAVA_DECIMAL.fullmatch(text) or any(ord(char) > 0xFFFF for char in text):
        raise ValueError(f"not a Java {integral.name}: {text!r}")
    value = int(text)
    if not integral.min_value <= value <= integral.max_value:
        raise ValueError(f"out of range for a Java {integral.name}: {text!r}")
    return value


def convert_config_value(field: ConfigField, text: str, *, source: str, line: int | None) -> object:
    """Convert one property value to the type of ``field``, or explain why it cannot be.

    Java: the type switch inside MixAll#properties2Object (plus ``BrokerRole#valueOf`` / ``FlushDiskType#valueOf``
    through their String setters). Java swallows every failure; mqlab raises.

    Raises:
        InvalidConfigValueError: The value is not a valid literal of the field's type.
    """
    if field.integral is not None:
        return _convert_integral(field, field.integral, text, source=source, line=line)
    if field.java_type == "boolean":
        return _convert_boolean(field, text, source=source, line=line)
    if field.enum_type is not None:
        return _convert_enum(field, field.enum_type, text, source=source, line=line)
    return text


def _convert_integral(field: ConfigField, integral: JavaIntegral, text: str, *, source: str, line: int | None) -> int:
    try:
        return parse_java_integral(text, integral)
    except ValueError:
        pass
    if text != text.strip():
        hint = "remove the surrounding blanks: Properties keeps trailing blanks and Java's parser rejects them"
    elif _JAVA_DECIMAL.fullmatch(text):
        hint = "out of range"
    else:
        hint = "only an optional sign and decimal digits; no '_', '0x' or unit suffix"
    hint += "; RocketMQ 4.9.3 would silently keep the default"
    expected = f"a Java {integral.name} ({integral.min_value}..{integral.max_value})"
    raise InvalidConfigValueError(field.key, text, expected=expected, source=source, line=line, hint=hint)


def _convert_boolean(field: ConfigField, text: str, *, source: str, line: int | None) -> bool:
    lowered = text.lower()
    if lowered in ("true", "false"):
        return lowered == "true"
    if text.strip().lower() in ("true", "false"):
        hint = "remove the surrounding blanks; Java's Boolean.parseBoolean would read this as false"
    else:
        hint = "Java's Boolean.parseBoolean would silently read this as false"
    raise InvalidConfigValueError(
        field.key, text, expected="true or false (any case)", source=source, line=line, hint=hint
    )


def _convert_enum(
    field: ConfigField, enum_type: type[enum.Enum], text: str, *, source: str, line: int | None
) -> enum.Enum:
    if text in enum_type.__members__:
        return enum_type[text]
    names = list(enum_type.__members__)
    near = next((name for name in names if name.lower() == text.strip().lower()), None)
    hint = f"did you mean {near!r}? Java's valueOf is case-sensitive; " if near else ""
    hint += "RocketMQ 4.9.3 would silently keep the default"
    expected = f"one of {', '.join(names)}"
    raise InvalidConfigValueError(field.key, text, expected=expected, source=source, line=line, hint=hint)


def properties2object(
    properties: Mapping[str, str], obj: object, *, source: str | None = None, ignore_unknown: bool = False
) -> list[str]:
    """Set the fields of a config object from properties keyed by Java name; return the keys applied.

    Java: MixAll#properties2Object. Java silently skips unknown keys and unparsable values; mqlab raises on the
    first problem in file order and changes nothing in that case (every value is converted before any is set).

    Args:
        properties: Keys and values, typically from ``string2properties`` (whose line numbers end up in errors).
        obj: A config dataclass (BrokerConfig, MessageStoreConfig, NettyServerConfig, ...).
        source: Name for error messages; defaults to the Properties' own source.
        ignore_unknown: Skip keys ``obj`` does not have (a loader that feeds one file to several objects checks
            unknown keys itself, against all of them).

    Returns:
        The keys that were applied, in file order.

    Raises:
        UnknownConfigKeyError: A key ``obj`` does not have (unless ``ignore_unknown``).
        InvalidConfigValueError: A value that does not parse as its field's Java type.
    """
    fields = config_keys(type(obj))
    where = source or getattr(properties, "source", "<properties>")
    lines: Mapping[str, int] = getattr(properties, "line_numbers", {})
    updates: dict[str, object] = {}
    applied: list[str] = []
    for key in sorted(properties, key=lambda k: lines.get(k, 0)):
        field = fields.get(key)
        if field is None:
            if ignore_unknown:
                continue
            suggestion = suggest_config_key(key, fields)
            raise UnknownConfigKeyError(key, source=where, line=lines.get(key), suggestion=suggestion)
        updates[field.name] = convert_config_value(field, properties[key], source=where, line=lines.get(key))
        applied.append(key)
    for name, value in updates.items():
        setattr(obj, name, value)
    return applied


def java_to_string(value: object) -> str:
    """A field value as Java's ``toString`` writes it (``true``/``false``, enum names, decimal numbers).

    Java: String#valueOf as used by MixAll#object2Properties
    """
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, enum.Enum):
        return value.name
    return str(value)


def object2properties(obj: object) -> dict[str, str]:
    """The fields of a config object as properties keyed by Java name; fields that are None are left out.

    Java: MixAll#object2Properties. Java names each entry after the declared field, so MessageStoreConfig's
    ``isEnableBatchPush`` comes out under a key its own setter does not read back; mqlab uses the setter's key
    (``enableBatchPush``) so that the output always parses back with ``properties2object``.
    """
    result: dict[str, str] = {}
    for field in config_keys(type(obj)).values():
        value = getattr(obj, field.name)
        if value is not None:
            result[field.key] = java_to_string(value)
    return result
