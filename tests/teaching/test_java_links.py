"""Links to the Java twin: citations read from docstrings, classes resolved, URLs with line anchors."""

import functools
import inspect

import pytest

from mqlab.teaching import java_links
from mqlab.teaching.java_links import Citation, JavaTables

BLOB = "https://github.com/apache/rocketmq/blob/rocketmq-all-4.9.3/"


def url(key: str) -> str:
    path, line = java_links.default_tables().lines[key]
    return f"{BLOB}{path}#L{line}"


# --- reading docstrings --------------------------------------------------------------------------------------------


def test_member_citations_reads_java_paragraphs_only():
    doc = inspect.cleandoc(
        """Summary mentioning CommitLog#flush outside a Java paragraph.

        Java: CommitLog#recoverAbnormally (and #isMappedFileMatchedRecover), via MappedFileQueue#load / #doLoad
        and org.apache.rocketmq.store.DefaultMessageStore$ReputMessageService#doReput.

        Later: ``Java: Example#notACitation`` in code is an example.
        """
    )
    assert java_links.member_citations(doc) == [
        Citation("CommitLog", "recoverAbnormally"),
        Citation("CommitLog", "isMappedFileMatchedRecover"),
        Citation("MappedFileQueue", "load"),
        Citation("MappedFileQueue", "doLoad"),
        Citation("org.apache.rocketmq.store.DefaultMessageStore$ReputMessageService", "doReput"),
    ]


@pytest.mark.parametrize(
    ("doc", "expected"),
    [
        ("Java: #getCallbackExecutor.", ["#getCallbackExecutor"]),
        (
            "Java: none (inline in IndexFile#putKey and #selectPhyOffset)",
            ["IndexFile#putKey", "IndexFile#selectPhyOffset"],
        ),
        ("Java: IndexFile#indexKeyHashMethod (``topic#key`` strings)", ["IndexFile#indexKeyHashMethod"]),
        ("Java: none in 4.9.3 (ISSUE #3940 moved them)", []),
        ("Java: a ``-s`` as yyyy-MM-dd#HH:mm:ss:SSS", []),
        ("Java: TopicSysFlag.FLAG_UNIT and MixAll#MASTER_ID", ["MixAll#MASTER_ID"]),
        ("Java: none (teaching helper)", []),
        (None, []),
    ],
)
def test_member_citations_skips_what_is_not_a_citation(doc, expected):
    assert [str(citation) for citation in java_links.member_citations(doc)] == expected


@pytest.mark.parametrize(
    ("doc", "expected"),
    [
        (
            "Log.\n\nJava: org.apache.rocketmq.store.CommitLog (rocketmq-all-4.9.3)",
            "org.apache.rocketmq.store.CommitLog",
        ),
        ("Java: SendMessageRequestHeader.", "SendMessageRequestHeader"),
        ("Java: RebalanceLockManager$LockEntry.", "RebalanceLockManager$LockEntry"),
        ("Java: CommitLog#load", None),
        ("Java: none (teaching helper)", None),
        ("No Java line.", None),
    ],
)
def test_class_citation_is_the_class_a_java_line_opens_with(doc, expected):
    assert java_links.class_citation(doc) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("CommitLog#recoverNormally", Citation("CommitLog", "recoverNormally")),
        ("CommitLog", Citation("CommitLog")),
        ("#load", Citation("", "load")),
        (
            "DefaultMessageStore.ReputMessageService#doReput",
            Citation("DefaultMessageStore.ReputMessageService", "doReput"),
        ),
        ("not a citation", None),
        ("", None),
    ],
)
def test_parse_citation(text, expected):
    assert java_links.parse_citation(text) == expected


# --- resolving -----------------------------------------------------------------------------------------------------

KNOWN = {
    "org.apache.rocketmq.store.CommitLog",
    "org.apache.rocketmq.store.DefaultMessageStore$ReputMessageService",
    "org.apache.rocketmq.broker.longpolling.PullRequest",
    "org.apache.rocketmq.client.impl.consumer.PullRequest",
    "org.apache.rocketmq.client.impl.consumer.PullMessageService",
    "org.apache.rocketmq.client.impl.consumer.ConsumeMessageOrderlyService$ConsumeRequest",
    "org.apache.rocketmq.client.impl.consumer.ConsumeMessageConcurrentlyService$ConsumeRequest",
}


@pytest.mark.spec("TEACH-2")
@pytest.mark.parametrize(
    ("name", "context", "expected"),
    [
        ("CommitLog", None, "org.apache.rocketmq.store.CommitLog"),
        ("org.apache.rocketmq.store.CommitLog", None, "org.apache.rocketmq.store.CommitLog"),
        ("ReputMessageService", None, "org.apache.rocketmq.store.DefaultMessageStore$ReputMessageService"),
        (
            "DefaultMessageStore$ReputMessageService",
            None,
            "org.apache.rocketmq.store.DefaultMessageStore$ReputMessageService",
        ),
        (
            "DefaultMessageStore.ReputMessageService",
            None,
            "org.apache.rocketmq.store.DefaultMessageStore$ReputMessageService",
        ),
        (
            "org.apache.rocketmq.store.DefaultMessageStore.ReputMessageService",
            None,
            "org.apache.rocketmq.store.DefaultMessageStore$ReputMessageService",
        ),
        ("PullRequest", None, None),  # two packages: no context, no answer
        (
            "PullRequest",
            "org.apache.rocketmq.client.impl.consumer.PullMessageService",
            "org.apache.rocketmq.client.impl.consumer.PullRequest",
        ),
        (
            "PullRequest",
            "org.apache.rocketmq.broker.longpolling.PullRequestHoldService",
            "org.apache.rocketmq.broker.longpolling.PullRequest",
        ),
        (
            "ConsumeRequest",
            "org.apache.rocketmq.client.impl.consumer.ConsumeMessageOrderlyService",
            "org.apache.rocketmq.client.impl.consumer.ConsumeMessageOrderlyService$ConsumeRequest",
        ),
        ("java.lang.String", None, None),
        ("String", None, None),
        ("org.apache.rocketmq.store.NoSuchClass", None, None),
    ],
)
def test_resolve_class(name, context, expected):
    assert java_links.resolve_class(name, KNOWN, context) == expected


def test_resolve_citation_gives_a_relative_member_the_context_class():
    context = "org.apache.rocketmq.store.CommitLog"
    assert java_links.resolve_citation(Citation("", "load"), KNOWN, context) == f"{context}#load"
    assert java_links.resolve_citation(Citation("", "load"), KNOWN, None) is None
    assert java_links.resolve_citation(Citation("CommitLog"), KNOWN, None) == context


# --- java_url ------------------------------------------------------------------------------------------------------


@pytest.mark.spec("TEACH-2")
def test_java_url_of_classes_modules_and_methods():
    from mqlab.remoting.netty.netty_remoting_server import NettyRemotingServer
    from mqlab.store import commit_log
    from mqlab.store.commit_log import CommitLog
    from mqlab.store.reput_message_service import ReputMessageService

    commit_log_class = url("org.apache.rocketmq.store.CommitLog")
    assert commit_log_class.startswith(BLOB + "store/src/main/java/org/apache/rocketmq/store/CommitLog.java#L")
    assert java_links.java_url(CommitLog) == commit_log_class
    assert java_links.java_url(commit_log) == commit_log_class
    assert java_links.java_url(CommitLog.recover_normally) == url("org.apache.rocketmq.store.CommitLog#recoverNormally")
    reput = "org.apache.rocketmq.store.DefaultMessageStore$ReputMessageService"
    assert java_links.java_url(ReputMessageService) == url(reput)
    assert java_links.java_url(ReputMessageService.run_once) == url(f"{reput}#doReput")
    # "#getCallbackExecutor" alone: the method's own class
    assert java_links.java_url(NettyRemotingServer.get_callback_executor) == url(
        "org.apache.rocketmq.remoting.netty.NettyRemotingServer#getCallbackExecutor"
    )


@pytest.mark.spec("TEACH-2")
def test_java_url_of_bound_methods_properties_and_wrapped_functions():
    from mqlab.store.commit_log import CommitLog

    expected = url("org.apache.rocketmq.store.CommitLog#getMaxOffset")
    instance = object.__new__(CommitLog)
    assert java_links.java_url(instance.get_max_offset) == expected

    @functools.wraps(CommitLog.get_max_offset)
    def wrapper(*args):
        return CommitLog.get_max_offset(*args)

    assert java_links.java_url(wrapper) == expected
    thing = "x/src/main/java/org/apache/rocketmq/x/Thing.java"
    tables = JavaTables({"org.apache.rocketmq.x.Thing#size": (thing, 7), "org.apache.rocketmq.x.Thing": (thing, 3)})

    class Thing:
        """Java: org.apache.rocketmq.x.Thing"""

        @property
        def size(self):
            """Java: #size"""

        @staticmethod
        def make():
            """Java: Thing#size"""

    Thing.__module__ = __name__
    assert java_links.java_key(Thing, tables) == "org.apache.rocketmq.x.Thing"
    assert java_links.java_url(Thing.__dict__["size"], tables=tables) is None  # a local class: no owner to find
    assert (
        java_links.java_url(Thing.make, tables=tables) == BLOB + "x/src/main/java/org/apache/rocketmq/x/Thing.java#L7"
    )


@pytest.mark.spec("TEACH-2")
@pytest.mark.parametrize(
    ("citation", "key"),
    [
        ("CommitLog#recoverNormally", "org.apache.rocketmq.store.CommitLog#recoverNormally"),
        ("CommitLog", "org.apache.rocketmq.store.CommitLog"),
        ("org.apache.rocketmq.store.CommitLog", "org.apache.rocketmq.store.CommitLog"),
        (
            "DefaultMessageStore$ReputMessageService",
            "org.apache.rocketmq.store.DefaultMessageStore$ReputMessageService",
        ),
        (
            "DefaultMessageStore.ReputMessageService#doReput",
            "org.apache.rocketmq.store.DefaultMessageStore$ReputMessageService#doReput",
        ),
        ("Java: CommitLog#recoverNormally", "org.apache.rocketmq.store.CommitLog#recoverNormally"),
    ],
)
def test_java_url_of_citation_strings(citation, key):
    assert java_links.java_url(citation) == url(key)


@pytest.mark.spec("TEACH-2")
@pytest.mark.parametrize("target", ["CommitLog#noSuchMethod", "NoSuchClass", "java.lang.String#hashCode", "", 42])
def test_java_url_is_none_for_unknown_names_and_values(target):
    assert java_links.java_url(target) is None


@pytest.mark.spec("TEACH-2")
def test_java_url_is_none_for_teaching_helpers():
    from mqlab.teaching import check, show

    assert java_links.java_url(check) is None
    assert java_links.java_url(show) is None
    assert java_links.java_url(java_links) is None


def test_read_java_lines_rejects_a_bad_table():
    with pytest.raises(ValueError, match="header"):
        java_links.read_java_lines("java,line\n")
    with pytest.raises(ValueError, match=":2:"):
        java_links.read_java_lines("java,path,line\norg.apache.rocketmq.X,x.java,seven\n")


def test_static_citations_reads_a_module_without_importing_it():
    source = inspect.cleandoc(
        '''
        """Thing. Java: org.apache.rocketmq.x.Thing (rocketmq-all-4.9.3)"""

        class Thing:
            """The thing."""

            def size(self):
                """Java: #size"""

        class Helper:
            """Java: Other$Inner."""

            def run(self):
                """Java: #run"""

        def free():
            """Java: Thing#make"""
        '''
    )
    known = {"org.apache.rocketmq.x.Thing", "org.apache.rocketmq.x.Other$Inner"}
    cited = {item.python: item for item in java_links.static_citations("mqlab.x", source, known, {})}
    assert cited["mqlab.x"].java_class == "org.apache.rocketmq.x.Thing"
    assert cited["mqlab.x.Thing"].java_class == "org.apache.rocketmq.x.Thing"  # named like the module's twin
    assert cited["mqlab.x.Thing.size"].keys(known) == ["org.apache.rocketmq.x.Thing#size"]
    assert cited["mqlab.x.Helper"].java_class == "org.apache.rocketmq.x.Other$Inner"
    assert cited["mqlab.x.Helper.run"].keys(known) == ["org.apache.rocketmq.x.Other$Inner#run"]
    assert cited["mqlab.x.free"].keys(known) == ["org.apache.rocketmq.x.Thing#make"]
    tables = JavaTables(
        {"org.apache.rocketmq.x.Thing#size": ("T.java", 9), "org.apache.rocketmq.x.Thing": ("T.java", 2)}
    )
    links = java_links.static_links(cited.values(), tables)
    assert links == {
        "mqlab.x": ("org.apache.rocketmq.x.Thing", f"{BLOB}T.java#L2"),
        "mqlab.x.Thing": ("org.apache.rocketmq.x.Thing", f"{BLOB}T.java#L2"),
        "mqlab.x.Thing.size": ("org.apache.rocketmq.x.Thing#size", f"{BLOB}T.java#L9"),
    }
