"""A peer that is not a slave on the master's HA port (issue 22, item 2; docs/spec/store-ha.md HA-19, HA-20).

4.9.3 takes the first 8-byte report of any connection as a request offset and raises ``push2SlaveMaxOffset`` with
it, unchecked: one report of ``2**62`` and a SYNC_MASTER acknowledges everything at once, whether a slave holds it
or not. mqlab refuses a report beyond the master's max offset and counts a report only up to the bytes the
connection has been sent; the 4.9.3 rule is the ``ha-trust-slave-report`` broken variant.
"""

from __future__ import annotations

import logging

import pytest

from mqlab.chaos.broken import variant
from mqlab.store.ha.ha_protocol import encode_report
from mqlab.store.put_message_status import PutMessageStatus
from tests.store.ha.ha_pair import MASTER_HA_ADDR, HAPair
from tests.store.helpers import inner

ROGUE_IP = "10.0.1.66"


class Peer:
    """A raw client of the HA port: records what the master sends and whether it closed the connection."""

    def __init__(self, pair: HAPair, node: str = "rogue", ip: str = ROGUE_IP):
        self.received = bytearray()
        self.closed = False
        self.channel = pair.world.runtime(node, ip=ip).network.connect(MASTER_HA_ADDR, self)

    def on_data(self, conn, data: bytes) -> None:
        self.received += data

    def on_close(self, conn) -> None:
        self.closed = True


def paused_slave_pair(tmp_path) -> HAPair:
    """A SYNC_MASTER whose real slave has acknowledged one message and then hears nothing more (a partition)."""
    pair = HAPair(tmp_path)
    pair.connect()
    assert pair.master.put_message(inner(pair.master_rt, 0)).put_message_status is PutMessageStatus.PUT_OK
    pair.world.network.partition(["master"], ["slave"])
    return pair


@pytest.mark.spec("HA-19")
def test_a_first_report_beyond_the_masters_end_is_refused_and_acknowledges_nothing(tmp_path, caplog):
    pair = paused_slave_pair(tmp_path)
    try:
        ha = pair.master.ha_service
        acked_before = ha.push2_slave_max_offset
        rogue = Peer(pair)
        rogue.channel.send(encode_report(2**62))
        with caplog.at_level(logging.WARNING):
            assert pair.world.run_until(lambda: rogue.closed, timeout_ms=1000)
        assert ha.push2_slave_max_offset == acked_before
        assert "beyond the master's max offset" in caplog.text
        assert [c.remote_address.split(":")[0] for c in ha.connection_list] == ["10.0.1.2"]  # the real slave only
        result = pair.master.put_message(inner(pair.master_rt, 1))
        assert result.put_message_status is PutMessageStatus.FLUSH_SLAVE_TIMEOUT
    finally:
        pair.shutdown()


@pytest.mark.spec("HA-19")
def test_reports_count_only_up_to_the_bytes_the_connection_was_sent(tmp_path):
    pair = paused_slave_pair(tmp_path)
    try:
        ha = pair.master.ha_service
        master_max = pair.master.get_max_phy_offset()
        rogue = Peer(pair)
        rogue.channel.send(encode_report(master_max))  # a plausible request offset: the master's own end
        pair.world.run_for(100)
        assert not rogue.closed
        rogue_conn = next(c for c in ha.connection_list if c.remote_address.startswith(ROGUE_IP))
        assert rogue_conn.slave_request_offset == master_max
        assert ha.push2_slave_max_offset < master_max or ha.push2_slave_max_offset == master_max  # the slave's ack
        acked_before = ha.push2_slave_max_offset
        put = pair.master.async_put_message(inner(pair.master_rt, 1))  # the master sends its bytes to both peers
        pair.world.run_for(50)
        new_end = pair.master.get_max_phy_offset()
        assert rogue_conn.write_socket_service.transferred_offset == new_end
        rogue.channel.send(encode_report(new_end - 10))  # part of what it was sent: counts
        pair.world.run_for(50)
        assert ha.push2_slave_max_offset == new_end - 10 > acked_before
        rogue.channel.send(encode_report(new_end))  # all of it: the put is acknowledged
        assert put.result(5000).put_message_status is PutMessageStatus.PUT_OK
    finally:
        pair.shutdown()


@pytest.mark.spec("HA-19")
def test_an_ack_beyond_what_was_sent_counts_only_up_to_what_was_sent(tmp_path):
    pair = paused_slave_pair(tmp_path)
    try:
        ha = pair.master.ha_service
        start = pair.master.get_max_phy_offset()
        rogue = Peer(pair)
        rogue.channel.send(encode_report(start))
        pair.world.run_for(50)
        rogue_conn = next(c for c in ha.connection_list if c.remote_address.startswith(ROGUE_IP))
        pair.master.put_message(inner(pair.master_rt, 1, wait=False))
        pair.world.run_for(300)  # no replica wait wakes the writers: they find the bytes within 100 ms
        sent = rogue_conn.write_socket_service.transferred_offset
        assert sent == pair.master.get_max_phy_offset()
        # Another put lands on the master but the writer has not run yet: an ack of the new end claims unsent bytes.
        pair.master.put_message(inner(pair.master_rt, 2, wait=False))
        rogue_conn.on_data(encode_report(pair.master.get_max_phy_offset()))
        assert ha.push2_slave_max_offset == sent < pair.master.get_max_phy_offset()
    finally:
        pair.shutdown()


@pytest.mark.spec("HA-19")
def test_the_4_9_3_rule_stays_reachable_as_a_broken_variant(tmp_path):
    pair = paused_slave_pair(tmp_path)
    try:
        with variant("ha-trust-slave-report"):
            rogue = Peer(pair)
            rogue.channel.send(encode_report(2**62))
            pair.world.run_for(50)
            assert pair.master.ha_service.push2_slave_max_offset == 2**62
            # Every later put is acknowledged at once though the only slave holds none of them.
            result = pair.master.put_message(inner(pair.master_rt, 1))
            assert result.put_message_status is PutMessageStatus.PUT_OK
            assert pair.slave.get_max_phy_offset() < pair.master.get_max_phy_offset()
    finally:
        pair.shutdown()


@pytest.mark.spec("HA-20")
def test_connections_beyond_ha_max_connections_are_refused_with_a_warning(tmp_path, caplog):
    pair = HAPair(tmp_path, ha_max_connections=3)
    try:
        assert pair.master.config.ha_max_connections == 3
        pair.connect()  # the real slave: 1 of 3
        peers = []
        with caplog.at_level(logging.WARNING):
            for i in range(4):
                peers.append(Peer(pair, f"peer-{i}", f"10.0.2.{i}"))
                pair.world.run_for(100)
        assert [p.closed for p in peers] == [False, False, True, True]
        assert len(pair.master.ha_service.connection_list) == 3
        assert caplog.text.count("haMaxConnections (3)") == 2
        refusals = [e for e in pair.world.trace if (e.component, e.event) == ("HAService", "refuseConnection")]
        assert [e.fields["limit"] for e in refusals] == [3, 3]
        peers[0].channel.close()  # a place frees up
        pair.world.run_for(100)
        late = Peer(pair, "late", "10.0.3.1")
        pair.world.run_for(100)
        assert not late.closed
    finally:
        pair.shutdown()


@pytest.mark.spec("HA-20")
def test_ha_max_connections_defaults_to_16():
    from mqlab.store.config.message_store_config import MessageStoreConfig

    assert MessageStoreConfig().ha_max_connections == 16  # mqlab only: 4.9.3 has no such limit
