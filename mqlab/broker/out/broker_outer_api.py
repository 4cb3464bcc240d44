"""The broker's calls to the name servers: register (every 30 s), ask whether to register, unregister.

Java: org.apache.rocketmq.broker.out.BrokerOuterAPI (rocketmq-all-4.9.3)
Left out: the address-server lookup (``fetchNameServerAddr``) and the slave's config sync calls.

Registration goes to every name server in parallel. Java runs one blocking request per name server on a small
thread pool and waits on a latch for at most the register timeout; mqlab sends the requests asynchronously and
waits on their futures for the same total time, which keeps the simulation single-threaded. Results are collected in
the order they arrive, as Java's CopyOnWriteArrayList does.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from mqlab.common import util_all
from mqlab.common.constant.logger_name import BROKER_LOGGER_NAME, get_logger
from mqlab.common.data_version import DataVersion
from mqlab.common.namesrv.register_broker_result import RegisterBrokerResult
from mqlab.common.protocol.body.kv_table import KVTable
from mqlab.common.protocol.body.register_broker_body import RegisterBrokerBody
from mqlab.common.protocol.header.namesrv import headers as h
from mqlab.common.protocol.request_code import RequestCode
from mqlab.common.protocol.response_code import ResponseCode
from mqlab.remoting.exception.remoting_exception import RemotingException
from mqlab.remoting.netty.netty_remoting_client import NettyRemotingClient
from mqlab.remoting.protocol import remoting_serializable
from mqlab.remoting.protocol.remoting_command import RemotingCommand, RequestIdGenerator
from mqlab.runtime.scheduler import FutureTimeoutError

if TYPE_CHECKING:
    from mqlab.common.protocol.body.topic_config_serialize_wrapper import TopicConfigSerializeWrapper
    from mqlab.remoting.netty.netty_client_config import NettyClientConfig
    from mqlab.remoting.netty.response_future import ResponseFuture
    from mqlab.runtime.runtime import Runtime
    from mqlab.runtime.scheduler import Future

# Java: unregisterBroker waits 3 s for each name server.
_LOG = get_logger(BROKER_LOGGER_NAME)
UNREGISTER_TIMEOUT_MILLIS = 3000


class BrokerOuterAPI:
    """A remoting client towards the name servers.

    Args:
        netty_client_config: the broker's client settings.
        runtime: clock, scheduler, network, trace.
    """

    def __init__(self, netty_client_config: NettyClientConfig, runtime: Runtime):
        self.runtime = runtime
        self.remoting_client = NettyRemotingClient(netty_client_config, runtime)

    def start(self) -> None:
        """Java: BrokerOuterAPI#start."""
        self.remoting_client.start()

    def shutdown(self) -> None:
        """Java: BrokerOuterAPI#shutdown."""
        self.remoting_client.shutdown()

    def update_name_server_address_list(self, addrs: str) -> None:
        """``"host:port;host:port"`` → the name-server list. Java: BrokerOuterAPI#updateNameServerAddressList."""
        self.remoting_client.update_name_server_address_list(addrs.split(";"))

    def _request(self, code: int, header: Any, body: bytes | None = None) -> RemotingCommand:
        opaque = self.runtime.singleton(RequestIdGenerator, RequestIdGenerator).next()
        request = RemotingCommand.create_request_command(code, header, opaque=opaque)
        request.body = body
        return request

    def _gather(self, futures: list[Future[Any]], timeout_mills: int) -> None:
        """Wait for all futures, at most ``timeout_mills`` in total (Java: ``countDownLatch.await(timeout)``)."""
        deadline = self.runtime.now_ms() + timeout_mills
        for future in futures:
            try:
                future.result(max(0, deadline - self.runtime.now_ms()))
            except FutureTimeoutError:
                return

    # -- registration ----------------------------------------------------------------------------------------
    def register_broker_all(
        self,
        cluster_name: str,
        broker_addr: str,
        broker_name: str,
        broker_id: int,
        ha_server_addr: str,
        topic_config_wrapper: TopicConfigSerializeWrapper,
        filter_server_list: list[str],
        oneway: bool,
        timeout_mills: int,
        compressed: bool,
    ) -> list[RegisterBrokerResult]:
        """Register with every name server in parallel; the results that came back in time.

        The body is the JSON ``RegisterBrokerBody`` or its zlib form (``compressedRegister``), and the header
        carries its CRC32, which the name server checks.

        Java: BrokerOuterAPI#registerBrokerAll
        """
        results: list[RegisterBrokerResult] = []
        addresses = self.remoting_client.get_name_server_address_list()
        if not addresses:
            return results
        body = RegisterBrokerBody(topic_config_wrapper, list(filter_server_list)).encode(compressed)
        header = h.RegisterBrokerRequestHeader(
            broker_name, broker_addr, cluster_name, ha_server_addr, broker_id, compressed, util_all.crc32(body)
        )
        futures = [self._register_broker(addr, oneway, timeout_mills, header, body, results) for addr in addresses]
        self._gather(futures, timeout_mills)
        self.runtime.trace_event(
            "BrokerOuterAPI",
            "registerBrokerAll",
            namesrvs=len(addresses),
            answered=len(results),
            oneway=oneway,
            topics=len(topic_config_wrapper.topic_config_table),
            dataVersion=topic_config_wrapper.data_version.counter,
        )
        return list(results)

    def _register_broker(
        self,
        namesrv_addr: str,
        oneway: bool,
        timeout_mills: int,
        header: h.RegisterBrokerRequestHeader,
        body: bytes,
        results: list[RegisterBrokerResult],
    ) -> Future[Any]:
        """One REGISTER_BROKER; the future completes when this name server is done with. Java: #registerBroker."""
        done = self.runtime.scheduler.new_future()
        request = self._request(RequestCode.REGISTER_BROKER, header, body)
        try:
            if oneway:
                self.remoting_client.invoke_oneway(namesrv_addr, request, timeout_mills)
                done.set_result(None)
                return done

            def on_response(response_future: ResponseFuture) -> None:
                try:
                    result = self._register_result(namesrv_addr, response_future.response_command)
                    if result is not None:
                        results.append(result)
                finally:
                    done.set_result(None)

            self.remoting_client.invoke_async(namesrv_addr, request, timeout_mills, on_response)
        except RemotingException as exc:
            self._register_failed(namesrv_addr, error=str(exc))
            done.set_result(None)
        return done

    def _register_failed(self, namesrv_addr: str, **why: Any) -> None:
        """Trace and log one name server that did not take the registration (Java logs a warning per name server)."""
        self.runtime.trace_event("BrokerOuterAPI", "registerFailed", namesrv=namesrv_addr, **why)
        detail = ", ".join(f"{key}={value}" for key, value in why.items())
        _LOG.warning("registerBroker to name server %s failed: %s", namesrv_addr, detail)

    def _register_result(self, namesrv_addr: str, response: RemotingCommand | None) -> RegisterBrokerResult | None:
        if response is None:
            self._register_failed(namesrv_addr, error="no response")
            return None
        if response.code != ResponseCode.SUCCESS:
            # Java throws MQBrokerException(code, remark); registerBrokerAll logs it and goes on.
            self._register_failed(namesrv_addr, code=response.code, remark=response.remark)
            return None
        header = response.decode_command_custom_header(h.RegisterBrokerResponseHeader)
        result = RegisterBrokerResult(header.ha_server_addr, header.master_addr)
        if response.body is not None:
            result.kv_table = dict(KVTable.decode(response.body).table)
        return result

    # -- unregistration --------------------------------------------------------------------------------------
    def unregister_broker_all(self, cluster_name: str, broker_addr: str, broker_name: str, broker_id: int) -> int:
        """Tell every name server, one after the other, that this broker leaves; returns how many confirmed.

        Java: BrokerOuterAPI#unregisterBrokerAll
        """
        confirmed = 0
        for addr in self.remoting_client.get_name_server_address_list() or []:
            try:
                self.unregister_broker(addr, cluster_name, broker_addr, broker_name, broker_id)
                confirmed += 1
            except (RemotingException, BrokerUnregisterError) as exc:  # Java logs and goes on
                self.runtime.trace_event("BrokerOuterAPI", "unregisterFailed", namesrv=addr, error=str(exc))
        return confirmed

    def unregister_broker(
        self, namesrv_addr: str, cluster_name: str, broker_addr: str, broker_name: str, broker_id: int
    ) -> None:
        """UNREGISTER_BROKER to one name server.

        Java: BrokerOuterAPI#unregisterBroker

        Raises:
            BrokerUnregisterError: the name server answered with an error code.
            RemotingException: no connection or no answer in 3 s.
        """
        header = h.UnRegisterBrokerRequestHeader(broker_name, broker_addr, cluster_name, broker_id)
        response = self.remoting_client.invoke_sync(
            namesrv_addr, self._request(RequestCode.UNREGISTER_BROKER, header), UNREGISTER_TIMEOUT_MILLIS
        )
        if response.code != ResponseCode.SUCCESS:
            raise BrokerUnregisterError(response.code, response.remark, broker_addr)
        self.runtime.trace_event("BrokerOuterAPI", "unregisterBroker", namesrv=namesrv_addr)

    # -- should we register? ---------------------------------------------------------------------------------
    def need_register(
        self,
        cluster_name: str,
        broker_addr: str,
        broker_name: str,
        broker_id: int,
        topic_config_wrapper: TopicConfigSerializeWrapper,
        timeout_mills: int,
    ) -> list[bool]:
        """Ask every name server (QUERY_DATA_VERSION) whether it holds an older topic config; one ``True`` per "yes".

        A name server that does not answer counts as "yes"; one that answers late is not counted (as Java, whose
        latch stops waiting).

        Java: BrokerOuterAPI#needRegister
        """
        changed_list: list[bool] = []
        addresses = self.remoting_client.get_name_server_address_list()
        if not addresses:
            return changed_list
        version = topic_config_wrapper.data_version
        futures = []
        for addr in addresses:
            done = self.runtime.scheduler.new_future()
            futures.append(done)
            header = h.QueryDataVersionRequestHeader(broker_name, broker_addr, cluster_name, broker_id)
            request = self._request(RequestCode.QUERY_DATA_VERSION, header, remoting_serializable.encode(version))

            def on_response(response_future: ResponseFuture, done: Future[Any] = done) -> None:
                try:
                    if self._data_version_changed(response_future.response_command, version):
                        changed_list.append(True)
                finally:
                    done.set_result(None)

            try:
                self.remoting_client.invoke_async(addr, request, timeout_mills, on_response)
            except RemotingException:
                changed_list.append(True)
                done.set_result(None)
        self._gather(futures, timeout_mills)
        return list(changed_list)

    @staticmethod
    def _data_version_changed(response: RemotingCommand | None, version: DataVersion) -> bool:
        if response is None:
            return True  # Java: the blocking call threw, which counts as "changed"
        if response.code != ResponseCode.SUCCESS:
            return False
        changed = response.decode_command_custom_header(h.QueryDataVersionResponseHeader).changed
        if response.body is not None:
            known = DataVersion.from_json(remoting_serializable.from_json(response.body))
            if known != version:
                changed = True
        return changed is None or bool(changed)

    # -- slave synchronisation (docs/spec/store-ha.md) -------------------------------------------------------
    def get_all_async(self, addr: str, code: int, callback: Callable[[str | None, Exception | None], None]) -> None:
        """A slave's GET_ALL request to its master (3 s) without blocking; ``callback(body, error)`` hears the end.

        Java: BrokerOuterAPI#getAllTopicConfig, #getAllConsumerOffset, #getAllDelayOffset,
        #getAllSubscriptionGroupConfig (synchronous calls on SlaveSynchronize's own thread in 4.9.3; mqlab chains
        asynchronous ones, so a master that does not answer holds up no caller, in a simulation either). Java sends
        the topic request to the master's VIP channel (listen port − 2); mqlab's broker has no VIP server, so every
        request goes to the master's own address.
        """

        def on_response(response_future: ResponseFuture) -> None:
            response = response_future.response_command
            if response is None:
                cause = response_future.cause
                callback(None, cause if isinstance(cause, Exception) else BrokerSyncError(code, -1, "timeout", addr))
            elif response.code != ResponseCode.SUCCESS:
                callback(None, BrokerSyncError(code, response.code, response.remark, addr))
            else:
                callback((response.body or b"").decode("utf-8"), None)

        try:
            self.remoting_client.invoke_async(addr, self._request(code, None), 3000, on_response)
        except RemotingException as exc:
            callback(None, exc)


class BrokerSyncError(Exception):
    """The master refused a slave-synchronisation request (Java: MQBrokerException with its code and remark)."""

    def __init__(self, request_code: int, code: int, remark: str | None, broker_addr: str):
        self.request_code, self.code, self.remark, self.broker_addr = request_code, code, remark, broker_addr
        super().__init__(f"request {request_code}: CODE: {code}  DESC: {remark}  BROKER: {broker_addr}")


class BrokerUnregisterError(Exception):
    """A name server refused UNREGISTER_BROKER (Java: MQBrokerException with its code and remark)."""

    def __init__(self, code: int, remark: str | None, broker_addr: str):
        self.code, self.remark, self.broker_addr = code, remark, broker_addr
        super().__init__(f"CODE: {code}  DESC: {remark}  BROKER: {broker_addr}")
