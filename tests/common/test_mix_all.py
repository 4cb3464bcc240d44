"""java.util.Properties syntax, MixAll#properties2Object's key table and value conversion, and their strict errors."""

import enum
from dataclasses import dataclass

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mqlab.client.client_config import ClientConfig
from mqlab.common.broker_config import BrokerConfig
from mqlab.common.config_errors import (
    ConfigError,
    InvalidConfigValueError,
    PropertiesSyntaxError,
    UnknownConfigKeyError,
)
from mqlab.common.mix_all import (
    JAVA_INT,
    JAVA_LONG,
    JavaInt,
    JavaLong,
    Properties,
    config_keys,
    java_key_of,
    object2properties,
    parse_java_integral,
    properties2object,
    properties2string,
    string2properties,
    suggest_config_key,
)
from mqlab.common.namesrv.namesrv_config import NamesrvConfig
from mqlab.remoting.netty.netty_client_config import NettyClientConfig
from mqlab.remoting.netty.netty_server_config import NettyServerConfig
from mqlab.store.config.broker_role import BrokerRole
from mqlab.store.config.flush_disk_type import FlushDiskType
from mqlab.store.config.message_store_config import MessageStoreConfig

# --- the key table -------------------------------------------------------------------------------------------------

# Every key MixAll#properties2Object accepts in 4.9.3 (the setters' names without "set", first letter lowered) and the
# setter's parameter type, extracted from the rocketmq-all-4.9.3 sources. brokerRole / flushDiskType also have a
# String setter that calls valueOf; AccessChannel / LanguageCode setters are never called by properties2Object.
JAVA_SETTERS_4_9_3 = {
    MessageStoreConfig: """
        accessMessageInMemoryMaxRatio:int bitMapLengthConsumeQueueExt:int brokerRole:BrokerRole
        checkCRCOnRecover:boolean cleanFileForciblyEnable:boolean cleanResourceInterval:int
        commitCommitLogLeastPages:int commitCommitLogThoroughInterval:int commitIntervalCommitLog:int
        dLegerGroup:String dLegerPeers:String dLegerSelfId:String debugLockEnable:boolean defaultQueryMaxNum:int
        deleteCommitLogFilesInterval:int deleteConsumeQueueFilesInterval:int deleteWhen:String
        destroyMapedFileIntervalForcibly:int diskFallRecorded:boolean diskMaxUsedSpaceRatio:int
        duplicationEnable:boolean enableBatchPush:boolean enableConsumeQueueExt:boolean
        enableDLegerCommitLog:boolean enableLmq:boolean enableMultiDispatch:boolean
        enableScheduleAsyncDeliver:boolean enableScheduleMessageStats:boolean fastFailIfNoBufferInStorePool:boolean
        fileReservedTime:int flushCommitLogLeastPages:int flushCommitLogThoroughInterval:int
        flushCommitLogTimed:boolean flushConsumeQueueLeastPages:int flushConsumeQueueThoroughInterval:int
        flushDelayOffsetInterval:long flushDiskType:FlushDiskType flushIntervalCommitLog:int
        flushIntervalConsumeQueue:int flushLeastPagesWhenWarmMapedFile:int haHousekeepingInterval:int
        haListenPort:int haMasterAddress:String haSendHeartbeatInterval:int haSlaveFallbehindMax:int
        haTransferBatchSize:int mappedFileSizeCommitLog:int mappedFileSizeConsumeQueue:int
        mappedFileSizeConsumeQueueExt:int maxHashSlotNum:int maxIndexNum:int maxLmqConsumeQueueNum:int
        maxMessageSize:int maxMsgsNumBatch:int maxTransferBytesOnMessageInDisk:int
        maxTransferBytesOnMessageInMemory:int maxTransferCountOnMessageInDisk:int
        maxTransferCountOnMessageInMemory:int messageDelayLevel:String messageIndexEnable:boolean
        messageIndexSafe:boolean offsetCheckInSlave:boolean osPageCacheBusyTimeOutMills:long
        preferredLeaderId:String putMsgIndexHightWater:int readOnlyCommitLogStorePaths:String
        redeleteHangedFileInterval:int scheduleAsyncDeliverMaxPendingLimit:int
        scheduleAsyncDeliverMaxResendNum2Blocked:int slaveTimeout:int storePathCommitLog:String
        storePathRootDir:String syncFlushTimeout:int transientStorePoolEnable:boolean transientStorePoolSize:int
        useReentrantLockWhenPutMessage:boolean warmMapedFileEnable:boolean
    """,
    BrokerConfig: """
        aclEnable:boolean adminBrokerThreadPoolNums:int autoCreateSubscriptionGroup:boolean
        autoCreateTopicEnable:boolean autoDeleteUnusedStats:boolean brokerClusterName:String
        brokerFastFailureEnable:boolean brokerIP1:String brokerIP2:String brokerId:long brokerName:String
        brokerPermission:int brokerTopicEnable:boolean clientManageThreadPoolNums:int
        clientManagerThreadPoolQueueCapacity:int clusterTopicEnable:boolean commercialBaseCount:int
        commercialBigCount:int commercialEnable:boolean commercialTimerCount:int commercialTransCount:int
        compressedRegister:boolean consumerFallbehindThreshold:long consumerManageThreadPoolNums:int
        consumerManagerThreadPoolQueueCapacity:int defaultTopicQueueNums:int
        disableConsumeIfConsumerReadSlowly:boolean enableCalcFilterBitMap:boolean enableDetailStat:boolean
        enablePropertyFilter:boolean endTransactionPoolQueueCapacity:int endTransactionThreadPoolNums:int
        expectConsumerNumUseFilter:int fetchNamesrvAddrByAddressServer:boolean filterDataCleanTimeSpan:long
        filterServerNums:int filterSupportRetry:boolean flushConsumerOffsetHistoryInterval:int
        flushConsumerOffsetInterval:int forceRegister:boolean heartbeatThreadPoolNums:int
        heartbeatThreadPoolQueueCapacity:int highSpeedMode:boolean isolateLogEnable:boolean
        longPollingEnable:boolean maxDelayTime:int maxErrorRateOfBloomFilter:int messageStorePlugIn:String
        msgTraceTopicName:String namesrvAddr:String notifyConsumerIdsChangedEnable:boolean
        processReplyMessageThreadPoolNums:int pullMessageThreadPoolNums:int pullThreadPoolQueueCapacity:int
        putMessageFutureThreadPoolNums:int putThreadPoolQueueCapacity:int queryMessageThreadPoolNums:int
        queryThreadPoolQueueCapacity:int regionId:String registerBrokerTimeoutMills:int
        registerNameServerPeriod:int rejectTransactionMessage:boolean replyThreadPoolQueueCapacity:int
        rocketmqHome:String sendMessageThreadPoolNums:int sendThreadPoolQueueCapacity:int
        shortPollingTimeMills:long slaveReadEnable:boolean startAcceptSendRequestTimeStamp:long
        storeReplyMessageEnable:boolean traceOn:boolean traceTopicEnable:boolean transactionCheckInterval:long
        transactionCheckMax:int transactionTimeOut:long transferMsgByHeap:boolean
        waitTimeMillsInHeartbeatQueue:long waitTimeMillsInPullQueue:long waitTimeMillsInSendQueue:long
        waitTimeMillsInTransactionQueue:long
    """,
    NamesrvConfig: """
        clusterTest:boolean configStorePath:String kvConfigPath:String orderMessageEnable:boolean
        productEnvName:String rocketmqHome:String
    """,
    NettyServerConfig: """
        listenPort:int serverAsyncSemaphoreValue:int serverCallbackExecutorThreads:int
        serverChannelMaxIdleTimeSeconds:int serverOnewaySemaphoreValue:int serverPooledByteBufAllocatorEnable:boolean
        serverSelectorThreads:int serverSocketBacklog:int serverSocketRcvBufSize:int serverSocketSndBufSize:int
        serverWorkerThreads:int useEpollNativeSelector:boolean writeBufferHighWaterMark:int
        writeBufferLowWaterMark:int
    """,
    NettyClientConfig: """
        channelNotActiveInterval:long clientAsyncSemaphoreValue:int clientCallbackExecutorThreads:int
        clientChannelMaxIdleTimeSeconds:int clientCloseSocketIfTimeout:boolean clientOnewaySemaphoreValue:int
        clientPooledByteBufAllocatorEnable:boolean clientSocketRcvBufSize:int clientSocketSndBufSize:int
        clientWorkerThreads:int connectTimeoutMillis:int useTLS:boolean writeBufferHighWaterMark:int
        writeBufferLowWaterMark:int
    """,
    ClientConfig: """
        accessChannel:String clientCallbackExecutorThreads:int clientIP:String heartbeatBrokerInterval:int
        instanceName:String language:String mqClientApiTimeout:int namespace:String namesrvAddr:String
        persistConsumerOffsetInterval:int pollNameServerInterval:int pullTimeDelayMillsWhenException:long
        unitMode:boolean unitName:String useTLS:boolean vipChannelEnabled:boolean
    """,
}


# Keys mqlab adds to a class, not in 4.9.3 (each one *stricter than 4.9.3*, documented on its spec page).
MQLAB_KEYS: dict[type, str] = {
    MessageStoreConfig: "haMaxConnections:int",  # docs/spec/store-ha.md, HA-20
    NettyServerConfig: "writeBufferHardLimit:int",  # docs/spec/remoting-transport.md, NET-21
    NettyClientConfig: "writeBufferHardLimit:int",  # docs/spec/remoting-transport.md, NET-21
}


@pytest.mark.spec("CFG-8")
@pytest.mark.parametrize("config_class", list(JAVA_SETTERS_4_9_3), ids=lambda c: c.__name__)
def test_keys_and_types_are_the_4_9_3_setters(config_class: type) -> None:
    expected = dict(item.split(":") for item in JAVA_SETTERS_4_9_3[config_class].split())
    expected.update(item.split(":") for item in MQLAB_KEYS.get(config_class, "").split())
    actual = {key: field.java_type for key, field in config_keys(config_class).items()}
    assert actual == expected, f"{config_class.__name__} set* methods"


@pytest.mark.spec("CFG-8")
@pytest.mark.parametrize(
    ("field", "key"),
    [
        ("broker_cluster_name", "brokerClusterName"),
        ("broker_ip1", "brokerIP1"),
        ("check_crc_on_recover", "checkCRCOnRecover"),
        ("use_tls", "useTLS"),
        ("client_ip", "clientIP"),
        ("d_leger_self_id", "dLegerSelfId"),
        ("enable_d_leger_commit_log", "enableDLegerCommitLog"),
        ("schedule_async_deliver_max_resend_num2_blocked", "scheduleAsyncDeliverMaxResendNum2Blocked"),
        ("put_msg_index_hight_water", "putMsgIndexHightWater"),
        ("mq_client_api_timeout", "mqClientApiTimeout"),
    ],
)
def test_java_key_of(field: str, key: str) -> None:
    assert java_key_of(field) == key


# --- java.util.Properties syntax -----------------------------------------------------------------------------------

# (name, text, entries). Expected entries derived by loading each text with java.util.Properties#load (OpenJDK 17).
SYNTAX = [
    ("comments", "# comment\n! bang comment\n  # indented comment\nkey=value\n", {"key": "value"}),
    (
        "separators",
        "a=1\nb:2\nc 3\nd = 4\ne : 5\nf\t6\ng  =  7\nh =: 8\ni==9\n",
        {"a": "1", "b": "2", "c": "3", "d": "4", "e": "5", "f": "6", "g": "7", "h": ": 8", "i": "=9"},
    ),
    ("trailing_blanks_kept", "k = v  \n", {"k": "v  "}),
    ("key_only", "keyonly\nkey2=\nkey3 \n", {"key2": "", "key3": "", "keyonly": ""}),
    ("continuation", "k = a,\\\n    b,\\\n\tc\n", {"k": "a,b,c"}),
    ("even_backslashes_do_not_continue", "k = a\\\\\nnext=1\n", {"k": "a\\", "next": "1"}),
    ("escapes", "k\\ 1 = \\t\\n\\r\\f\\x\\=\\:\\\\\n", {"k 1": "\t\n\r\x0cx=:\\"}),
    ("unicode_escapes", "name=\\u0041\\u00e9\\uD83D\\uDE00\n", {"name": "A\u00e9\U0001f600"}),
    ("escaped_separators_in_key", "a\\=b=c\nd\\:e:f\n", {"a=b": "c", "d:e": "f"}),
    ("crlf_and_cr", "a=1\r\nb=2\rc=3\n", {"a": "1", "b": "2", "c": "3"}),
    ("comment_is_not_continued", "# comment \\\nk=v\n", {"k": "v"}),
    ("duplicate_last_wins", "k=1\nk=2\n", {"k": "2"}),
    ("hash_inside_value", "k=v#not a comment\n", {"k": "v#not a comment"}),
    ("blank_lines", "\n   \n\t\nk=v", {"k": "v"}),
    ("backslash_at_end_of_text", "k=v\\", {"k": "v"}),
    ("continuation_then_blank_line", "k=a\\\n\nnext=1\n", {"k": "a", "next": "1"}),
    ("continuation_line_indent_skipped", "k=\\\n   x\n", {"k": "x"}),
    ("empty_key", "=v\n", {"": "v"}),
    ("form_feed_separator", "\x0ck\x0cv\n", {"k": "v"}),
]


@pytest.mark.spec("CFG-9")
@pytest.mark.parametrize(("name", "text", "entries"), SYNTAX, ids=[row[0] for row in SYNTAX])
def test_properties_syntax_matches_java(name: str, text: str, entries: dict[str, str]) -> None:
    assert dict(string2properties(text)) == entries


@pytest.mark.spec("CFG-9")
def test_line_numbers_are_where_each_entry_starts() -> None:
    text = "# header\n\nk1=a\\\n  b\nk2=c\r\nk3=d\rk4=e\n  k5 = f\nk1=again"
    properties = string2properties(text, source="broker.conf")
    assert properties.source == "broker.conf"
    assert properties.line_numbers == {"k1": 9, "k2": 5, "k3": 6, "k4": 7, "k5": 8}
    assert properties["k1"] == "again"


@pytest.mark.spec("CFG-9")
@pytest.mark.parametrize("text", ["k=\\u00G1", "k=\\u12", "# fine\nk=ok\nbad=x\\uZZZZ\n"])
def test_malformed_unicode_escape(text: str) -> None:
    with pytest.raises(PropertiesSyntaxError) as info:
        string2properties(text, source="namesrv.properties")
    assert info.value.source == "namesrv.properties"
    assert info.value.line == text.count("\n", 0, text.index("\\u")) + 1
    assert "malformed \\uxxxx" in str(info.value)


@pytest.mark.spec("CFG-9")
def test_properties2string_writes_key_value_lines() -> None:
    assert properties2string({"a": "1", "b": None, "c": "x y"}) == "a=1\nc=x y\n"
    assert dict(string2properties(properties2string({"brokerName": "broker-a", "brokerId": "0"}))) == {
        "brokerName": "broker-a",
        "brokerId": "0",
    }


# --- value conversion ----------------------------------------------------------------------------------------------

# Integer.parseInt verdicts derived under OpenJDK 17 (None: NumberFormatException).
PARSE_INT = [
    ("+5", 5),
    ("-0", 0),
    ("0048", 48),
    ("\u0664\u0668", 48),  # Arabic-Indic digits: Character.digit accepts every Unicode decimal digit
    ("\uff14\uff18", 48),  # fullwidth digits
    ("\U0001d7ce", None),  # a digit outside the BMP is two UTF-16 surrogates to Java
    ("1_000", None),
    ("0x10", None),
    (" 1", None),
    ("1 ", None),
    ("", None),
    ("+", None),
    ("2147483647", 2147483647),
    ("2147483648", None),
    ("-2147483648", -2147483648),
    ("-2147483649", None),
    ("1e3", None),
    ("10L", None),
]


@pytest.mark.spec("CFG-11")
@pytest.mark.parametrize(("text", "expected"), PARSE_INT, ids=[repr(row[0]) for row in PARSE_INT])
def test_int_parses_like_integer_parse_int(text: str, expected: int | None) -> None:
    if expected is None:
        with pytest.raises(ValueError):
            parse_java_integral(text, JAVA_INT)
    else:
        assert parse_java_integral(text, JAVA_INT) == expected


@pytest.mark.spec("CFG-11")
def test_long_range() -> None:
    assert parse_java_integral("9223372036854775807", JAVA_LONG) == 2**63 - 1
    assert parse_java_integral("-9223372036854775808", JAVA_LONG) == -(2**63)
    with pytest.raises(ValueError):
        parse_java_integral("9223372036854775808", JAVA_LONG)
    # brokerId is a Java long, fileReservedTime an int.
    config = BrokerConfig()
    properties2object({"brokerId": "4294967296"}, config)
    assert config.broker_id == 2**32
    with pytest.raises(InvalidConfigValueError):
        properties2object({"fileReservedTime": "4294967296"}, MessageStoreConfig())


@pytest.mark.spec("CFG-11")
@pytest.mark.parametrize(("text", "expected"), [("true", True), ("false", False), ("TRUE", True), ("False", False)])
def test_booleans_accept_true_and_false_in_any_case(text: str, expected: bool) -> None:
    config = BrokerConfig(auto_create_topic_enable=not expected)
    properties2object({"autoCreateTopicEnable": text}, config)
    assert config.auto_create_topic_enable is expected


@pytest.mark.spec("CFG-11")
def test_enums_by_member_name_and_strings_as_is() -> None:
    config = MessageStoreConfig()
    properties2object(
        {"brokerRole": "SLAVE", "flushDiskType": "SYNC_FLUSH", "deleteWhen": " 01;13 ", "haMasterAddress": ""}, config
    )
    assert config.broker_role is BrokerRole.SLAVE
    assert config.flush_disk_type is FlushDiskType.SYNC_FLUSH
    assert config.delete_when == " 01;13 "
    assert config.ha_master_address == ""


@pytest.mark.spec("CFG-11")
def test_properties2object_returns_the_applied_keys_in_file_order() -> None:
    properties = string2properties("fileReservedTime=48\ndeleteWhen=01\nmaxHashSlotNum=100\n")
    config = MessageStoreConfig()
    assert properties2object(properties, config) == ["fileReservedTime", "deleteWhen", "maxHashSlotNum"]
    assert (config.file_reserved_time, config.delete_when, config.max_hash_slot_num) == (48, "01", 100)


# --- errors --------------------------------------------------------------------------------------------------------


@pytest.mark.spec("CFG-12")
def test_unknown_key_names_key_source_line_and_nearest_key() -> None:
    properties = string2properties("brokerClusterName=c\n\nbrokerClustername=x\n", source="broker.conf")
    with pytest.raises(UnknownConfigKeyError) as info:
        properties2object(properties, BrokerConfig())
    error = info.value
    assert (error.key, error.source, error.line, error.suggestion) == (
        "brokerClustername",
        "broker.conf",
        3,
        "brokerClusterName",
    )
    assert str(error).startswith(
        "broker.conf:3: unknown config key 'brokerClustername'; did you mean 'brokerClusterName'?"
    )


@pytest.mark.spec("CFG-12")
@pytest.mark.parametrize(
    ("key", "suggestion"),
    [
        ("flushDiskTyp", "flushDiskType"),
        ("filereservedtime", "fileReservedTime"),
        ("mapedFileSizeCommitLog", "mappedFileSizeCommitLog"),
        ("storePathRoot", "storePathRootDir"),
        ("zzzzzz", None),
    ],
)
def test_unknown_key_suggestions(key: str, suggestion: str | None) -> None:
    with pytest.raises(UnknownConfigKeyError) as info:
        properties2object({key: "1"}, MessageStoreConfig())
    assert info.value.suggestion == suggestion
    assert info.value.line is None
    assert ("did you mean" in str(info.value)) is (suggestion is not None)
    assert suggest_config_key(key, config_keys(MessageStoreConfig)) == suggestion


@pytest.mark.spec("CFG-12")
def test_unknown_keys_can_be_ignored_for_fan_out() -> None:
    config = MessageStoreConfig()
    assert properties2object({"listenPort": "1", "fileReservedTime": "1"}, config, ignore_unknown=True) == [
        "fileReservedTime"
    ]


BAD_VALUES = [
    ("fileReservedTime", "48h", "a Java int (-2147483648..2147483647)", "no '_', '0x' or unit suffix"),
    ("fileReservedTime", "48 ", "a Java int", "surrounding blanks"),
    ("maxHashSlotNum", "1_000", "a Java int", "no '_'"),
    ("mappedFileSizeCommitLog", "0x10", "a Java int", "'0x'"),
    ("mappedFileSizeCommitLog", "2147483648", "a Java int", "out of range"),
    ("flushDelayOffsetInterval", "1.5", "a Java long (-9223372036854775808..9223372036854775807)", "decimal digits"),
    ("messageIndexEnable", "yes", "true or false (any case)", "would silently read this as false"),
    ("messageIndexEnable", "true ", "true or false", "remove the surrounding blanks"),
    ("messageIndexEnable", "1", "true or false", "Boolean.parseBoolean"),
    ("brokerRole", "async_master", "one of ASYNC_MASTER, SYNC_MASTER, SLAVE", "did you mean 'ASYNC_MASTER'?"),
    ("flushDiskType", "FLUSH", "one of SYNC_FLUSH, ASYNC_FLUSH", "silently keep the default"),
]


@pytest.mark.spec("CFG-13")
@pytest.mark.parametrize(("key", "value", "expected", "hint"), BAD_VALUES, ids=[f"{r[0]}={r[1]!r}" for r in BAD_VALUES])
def test_bad_value_names_key_value_type_source_and_line(key: str, value: str, expected: str, hint: str) -> None:
    text = f"# broker\nbrokerRole=SYNC_MASTER\n{key}={value}\n" if key != "brokerRole" else f"\n\n{key}={value}"
    with pytest.raises(InvalidConfigValueError) as info:
        properties2object(string2properties(text, source="conf/broker.conf"), MessageStoreConfig())
    error = info.value
    assert (error.key, error.value, error.source, error.line) == (key, value, "conf/broker.conf", 3)
    assert error.expected.startswith(expected)
    message = str(error)
    assert message.startswith(f"conf/broker.conf:3: invalid value {value!r} for {key}: expected {expected}")
    assert hint in message


@pytest.mark.spec("CFG-13")
def test_first_problem_in_file_order_is_reported() -> None:
    properties = string2properties("deleteWhen=04\nfileReservedTime=x\nmaxIndexNum=y\n")
    with pytest.raises(InvalidConfigValueError) as info:
        properties2object(properties, MessageStoreConfig())
    assert (info.value.key, info.value.line) == ("fileReservedTime", 2)


@pytest.mark.spec("CFG-12", "CFG-13")
def test_errors_share_config_error_which_is_a_value_error() -> None:
    for error_type in (UnknownConfigKeyError, InvalidConfigValueError, PropertiesSyntaxError):
        assert issubclass(error_type, ConfigError)
    assert issubclass(ConfigError, ValueError)


@pytest.mark.spec("CFG-17")
def test_a_failed_apply_changes_nothing() -> None:
    config = MessageStoreConfig()
    before = object2properties(config)
    with pytest.raises(InvalidConfigValueError):
        properties2object(string2properties("fileReservedTime=12\ndeleteWhen=01\nmaxIndexNum=lots\n"), config)
    with pytest.raises(UnknownConfigKeyError):
        properties2object(string2properties("fileReservedTime=12\nnoSuchKey=1\n"), config)
    assert object2properties(config) == before


def test_unsupported_field_type_is_a_programming_error() -> None:
    @dataclass(slots=True)
    class Odd:
        ratio: float = 0.5

    with pytest.raises(TypeError, match="ratio"):
        config_keys(Odd)


# --- object2properties and round trips -----------------------------------------------------------------------------


@pytest.mark.spec("CFG-16")
def test_object2properties_writes_java_to_string_and_skips_nulls() -> None:
    properties = object2properties(MessageStoreConfig())
    assert properties["flushDiskType"] == "ASYNC_FLUSH"
    assert properties["messageIndexEnable"] == "true"
    assert properties["mappedFileSizeCommitLog"] == "1073741824"
    # Java would write the field name isEnableBatchPush, which its own setter does not read back.
    assert properties["enableBatchPush"] == "false"
    assert "haMasterAddress" not in properties


@pytest.mark.spec("CFG-16")
@pytest.mark.parametrize("config_class", [MessageStoreConfig, BrokerConfig, NettyServerConfig, NamesrvConfig])
def test_defaults_round_trip_through_text(config_class: type) -> None:
    original = config_class()
    text = properties2string(object2properties(original))
    restored = config_class()
    properties2object(string2properties(text), restored)
    assert restored == original


def _escape(text: str, *, is_key: bool) -> list[str]:
    """Escape units so that any string survives Properties#load (all blanks escaped, so lines may be split)."""
    units = []
    for char in text:
        if char in "\\=:#! " or (is_key and char in "\t\f"):
            units.append("\\" + char)
        elif char in "\t\n\r\f":
            units.append("\\" + {"\t": "t", "\n": "n", "\r": "r", "\f": "f"}[char])
        elif " " <= char <= "~":
            units.append(char)
        else:
            encoded = char.encode("utf-16-be", "surrogatepass")
            units += [f"\\u{int.from_bytes(encoded[i : i + 2], 'big'):04X}" for i in range(0, len(encoded), 2)]
    return units


def _value_strategy(config_class: type, key: str) -> st.SearchStrategy[object]:
    field = config_keys(config_class)[key]
    if field.integral is not None:
        return st.integers(field.integral.min_value, field.integral.max_value)
    if field.java_type == "boolean":
        return st.booleans()
    if field.enum_type is not None:
        return st.sampled_from(list(field.enum_type))
    return st.text(max_size=20)


@st.composite
def config_files(draw: st.DrawFn, config_class: type) -> tuple[str, dict[str, object], dict[str, int]]:
    """A properties text setting random fields to random valid values, with comments, blank lines and splits."""
    keys = draw(st.lists(st.sampled_from(sorted(config_keys(config_class))), unique=True, max_size=8))
    lines: list[str] = []
    values: dict[str, object] = {}
    starts: dict[str, int] = {}
    for key in keys:
        value = draw(_value_strategy(config_class, key))
        if draw(st.booleans()):
            lines.append(draw(st.sampled_from(["", "# a comment", "! another", "   "])))
        written = value.name if isinstance(value, enum.Enum) else value
        if isinstance(written, bool):
            written = draw(st.sampled_from(["true", "TRUE", "True"] if written else ["false", "FALSE"]))
        units = _escape(str(written), is_key=False)
        separator = draw(st.sampled_from(["=", " = ", ":", ": ", " ", "\t"]))
        split_at = draw(st.integers(0, len(units)))
        starts[key] = len(lines) + 1
        if units and draw(st.booleans()):
            lines += [key + separator + "".join(units[:split_at]) + "\\", "    " + "".join(units[split_at:])]
        else:
            lines.append(key + separator + "".join(units))
        values[key] = value
    ending = draw(st.sampled_from(["\n", "\r\n", "\r"]))
    return ending.join(lines), values, starts


@pytest.mark.spec("CFG-16")
@pytest.mark.parametrize("config_class", [MessageStoreConfig, BrokerConfig, NettyClientConfig])
def test_random_valid_files_round_trip(config_class: type) -> None:
    # Building hypothesis' Unicode tables can take seconds on a fresh cache; that is not slow generation.
    @settings(suppress_health_check=[HealthCheck.too_slow])
    @given(config_files(config_class))
    def check(case: tuple[str, dict[str, object], dict[str, int]]) -> None:
        text, values, starts = case
        properties = string2properties(text)
        assert properties.line_numbers == starts
        config = config_class()
        properties2object(properties, config)
        for key, value in values.items():
            assert getattr(config, config_keys(config_class)[key].name) == value, key

    check()


@pytest.mark.spec("CFG-16")
@given(st.dictionaries(st.text(max_size=8), st.text(max_size=12), max_size=6))
def test_any_keys_and_values_round_trip_when_escaped(entries: dict[str, str]) -> None:
    text = "\n".join(
        "".join(_escape(k, is_key=True)) + "=" + "".join(_escape(v, is_key=False)) for k, v in entries.items()
    )
    assert dict(string2properties(text)) == entries


def test_properties_is_a_dict_with_source() -> None:
    properties = Properties("x.conf")
    properties["a"] = "1"
    assert properties == {"a": "1"}
    assert (properties.source, properties.line_numbers) == ("x.conf", {})


def test_annotations_are_plain_ints_at_runtime() -> None:
    @dataclass(slots=True)
    class Sizes:
        small: JavaInt = 1
        big: JavaLong = 2

    fields = config_keys(Sizes)
    assert (fields["small"].java_type, fields["big"].java_type) == ("int", "long")
