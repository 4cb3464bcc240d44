"""The store's façade: wires CommitLog, ConsumeQueues, reput and flush services, and answers reads and writes.

Java: org.apache.rocketmq.store.DefaultMessageStore (rocketmq-all-4.9.3)
Promoted inner classes: ReputMessageService, FlushConsumeQueueService, CommitLogDispatcherBuildConsumeQueue,
CommitLogDispatcherBuildIndex
Left out: DLedger, LMQ, store statistics

Life cycle: ``load()`` maps the files and recovers them (normally after a clean shutdown, abnormally after a crash,
decided by the ``abort`` file), ``start()`` dispatches whatever the ConsumeQueues lack and starts the services,
``shutdown()`` stops them and removes ``abort`` when everything was dispatched.

A CommitLog segment whose size differs from ``mappedFileSizeCommitLog`` stops ``load`` with ``StoreLoadError``
before any file is touched, as Java's ``MappedFileQueue#doLoad`` refuses it. Bad files are reported, not fatal,
where the data can be rebuilt: a ConsumeQueue with a wrong-sized file is moved to ``<root>/quarantine/`` and rebuilt
from the CommitLog (Java refuses to start), and what recovery cuts from the CommitLog is moved to the quarantine
too instead of being erased. Everything recovery cut or moved is listed in ``recovery_report``.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import struct
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from mqlab.common.constant.logger_name import STORE_LOGGER_NAME, get_logger
from mqlab.common.message.message_ext_batch import MessageExtBatch
from mqlab.common.message.message_record_layout import PROPERTIES_MAX_BYTES, TOPIC_MAX_BYTES
from mqlab.common.mix_all import is_lmq
from mqlab.common.topic.topic_validator import (
    RMQ_SYS_SCHEDULE_TOPIC,
    RMQ_SYS_TRANS_OP_HALF_TOPIC,
    is_safe_path_component,
)
from mqlab.runtime.scheduler import CompletedFuture, TimerHandle
from mqlab.store.clean_commit_log_service import CleanCommitLogPass, CleanCommitLogService
from mqlab.store.clean_consume_queue_service import CleanConsumeQueuePass, CleanConsumeQueueService
from mqlab.store.commit_log import CommitLog, RecoveryOutcome
from mqlab.store.commit_log_dispatcher import CommitLogDispatcher
from mqlab.store.commit_log_dispatcher_build_consume_queue import CommitLogDispatcherBuildConsumeQueue
from mqlab.store.commit_log_dispatcher_build_index import CommitLogDispatcherBuildIndex
from mqlab.store.config import store_path_config_helper as paths
from mqlab.store.config.broker_role import BrokerRole
from mqlab.store.consume_queue import CQ_STORE_UNIT_SIZE, UNIT, ConsumeQueue
from mqlab.store.dispatch_request import DispatchRequest
from mqlab.store.flush_consume_queue_service import FlushConsumeQueueService
from mqlab.store.get_message_result import GetMessageResult
from mqlab.store.get_message_status import GetMessageStatus
from mqlab.store.ha.ha_service import HAService
from mqlab.store.index.index_service import IndexService
from mqlab.store.message_ext_broker_inner import MessageExtBrokerInner
from mqlab.store.message_filter import MessageFilter
from mqlab.store.put_message_result import PutMessageResult
from mqlab.store.put_message_status import PutMessageStatus
from mqlab.store.quarantine import move_consume_queue
from mqlab.store.query_message_result import QueryMessageResult
from mqlab.store.reput_message_service import ReputMessageService
from mqlab.store.running_flags import RunningFlags
from mqlab.store.schedule.schedule_message_service import ScheduleMessageService
from mqlab.store.select_mapped_buffer_result import SelectMappedBufferResult
from mqlab.store.store_checkpoint import StoreCheckpoint
from mqlab.store.store_errors import StoreLoadError, StoreLockedError, StorePathError
from mqlab.store.transient_store_pool import TransientStorePool

if TYPE_CHECKING:
    from mqlab.common.broker_config import BrokerConfig
    from mqlab.runtime.runtime import Runtime
    from mqlab.store.config.message_store_config import MessageStoreConfig
    from mqlab.store.message_arriving_listener import MessageArrivingListener

_LOG = get_logger(STORE_LOGGER_NAME)
_LONG = struct.Struct(">q")
# Enum members read on every put and every dispatched record. Reading one through its Enum class costs a descriptor
# call in CPython 3.11 (about five times a module global), so the hot paths read these names instead.
_PUT_OK = PutMessageStatus.PUT_OK
_SLAVE = BrokerRole.SLAVE


def _max_filter_bytes(max_msg_nums: int) -> int:
    """How many bytes of ConsumeQueue units one get_message scans at most (Java: ``maxFilterMessageCount``)."""
    return max(16000, max_msg_nums * CQ_STORE_UNIT_SIZE)


@dataclass(slots=True)
class RecoveryReport:
    """What ``load`` found and repaired."""

    last_exit_ok: bool = True
    commit_log: RecoveryOutcome | None = None
    quarantined_queues: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    def lines(self) -> list[str]:
        """One line per finding, for printing."""
        out = [f"previous shutdown {'clean' if self.last_exit_ok else 'NOT clean (abort file present)'}"]
        out += [
            f"moved damaged ConsumeQueue {q} to quarantine; rebuilt from the CommitLog" for q in self.quarantined_queues
        ]
        if self.commit_log is not None:
            c = self.commit_log
            out.append(f"{c.mode} recovery: CommitLog ends at offset {c.max_offset}")
            if c.stopped_because:
                out.append(f"scan stopped: {c.stopped_because}")
            if c.dropped_bytes:
                out.append(f"dropped {c.dropped_bytes} bytes after offset {c.max_offset}")
            out += [f"deleted segment {name} (it lay past the last good record)" for name in c.removed_files]
            if c.quarantined:
                out.append(f"kept the cut bytes in {c.quarantined}/ (list them with: mqlab store quarantine)")
        return out + self.notes


class DefaultMessageStore:
    """A RocketMQ store in a directory.

    Args:
        config: paths, sizes, flush policy.
        runtime: clock, scheduler and trace.
        broker_config: the broker's settings (long polling switch, broker id); optional for a bare store.
        message_arriving_listener: told about every dispatched message (the broker's long-polling hook).
    """

    # The CommitLog class load() makes (Java: none); a subclass may judge records its own way (mqlab.labs does).
    commit_log_class: type[CommitLog] = CommitLog

    def __init__(
        self,
        config: MessageStoreConfig,
        runtime: Runtime,
        *,
        broker_config: BrokerConfig | None = None,
        message_arriving_listener: MessageArrivingListener | None = None,
    ):
        self.config = config
        self.runtime = runtime
        self.broker_config = broker_config
        self.root = Path(config.store_path_root_dir)
        self.running_flags = RunningFlags()
        self.shutdown_flag = True
        self.consume_queue_table: dict[str, dict[int, ConsumeQueue]] = {}
        self._cq_lock = threading.Lock()
        self.transient_store_pool = TransientStorePool(
            config.transient_store_pool_size, config.mapped_file_size_commit_log
        )
        self.store_checkpoint: StoreCheckpoint | None = None
        self.commit_log: CommitLog | None = None
        self.dispatcher_list: list[CommitLogDispatcher] = [
            CommitLogDispatcherBuildConsumeQueue(self.put_message_position_info)
        ]
        # Made in load() (it needs the checkpoint); the index dispatcher asks for it at each record.
        self.index_service: IndexService | None = None
        self.dispatcher_list.append(CommitLogDispatcherBuildIndex(config, lambda: self.index_service))
        self.reput_message_service: ReputMessageService | None = None
        self.flush_consume_queue_service: FlushConsumeQueueService | None = None
        # Delayed messages (docs/spec/store-delay-messages.md). Created here as in Java's constructor; its load()
        # runs at the end of load(), after recovery (4.9.3 order).
        self.schedule_message_service = ScheduleMessageService(self)
        # Made in load() with the CommitLog; add_schedule_task() runs them, shutdown() cancels the timers.
        self.clean_commit_log_service: CleanCommitLogService | None = None
        self.clean_consume_queue_service: CleanConsumeQueueService | None = None
        self._schedule_handles: list[TimerHandle] = []
        self.message_arriving_listener = message_arriving_listener
        # Replication (docs/spec/store-ha.md): built here as in Java, so a SYNC_MASTER without a slave answers
        # SLAVE_NOT_AVAILABLE (HA-1). Java also always binds its port and starts its threads; mqlab does that only
        # for a store that asks with enable_ha() (a bare store has no network, and tests on port 0 share a host).
        self.ha_service: HAService = HAService(self, runtime)
        self.ha_enabled = False
        self.recovery_report = RecoveryReport()
        self._lock_fd = -1
        self._loaded = False

    # -- load and recover ----------------------------------------------------------------------------------------
    def load(self) -> bool:
        """Lock the directory, map the files and recover them.

        Java: DefaultMessageStore#load (mqlab takes the ``lock`` file here rather than in ``start``, so a second
        store on the same directory fails before it recovers anything)

        Raises:
            StoreLockedError: another store holds the directory.
        """
        self.root.mkdir(parents=True, exist_ok=True)
        self._acquire_lock()
        last_exit_ok = not paths.get_abort_file(self.root).exists()
        self.recovery_report = RecoveryReport(last_exit_ok=last_exit_ok)
        self._check_segment_sizes()
        checkpoint_path = paths.get_store_checkpoint(self.root)
        if not checkpoint_path.exists() and any(Path(self.config.store_path_commit_log).glob("[0-9]*")):
            self.recovery_report.notes.append(
                "checkpoint file missing: created an empty one (all three timestamps 0, so an abnormal recovery "
                "scans from the first CommitLog file)"
            )
        has_data = any(Path(self.config.store_path_commit_log).glob("[0-9]*"))
        index_dir = paths.get_store_path_index(self.root)
        if has_data and self.config.message_index_enable and not index_dir.is_dir():
            note = (
                "index directory missing: queries by key find only messages dispatched from now on "
                "(and what an abnormal recovery re-dispatches)"
            )
            self.recovery_report.notes.append(note)
            _LOG.warning("%s: %s", index_dir, note)
        self.store_checkpoint = StoreCheckpoint(checkpoint_path)
        self.index_service = IndexService(self.config, self.runtime, self.store_checkpoint, self.running_flags)
        if self.config.is_transient_store_pool_enable():
            self.transient_store_pool.init()
        self.commit_log = self.commit_log_class(
            self.config, self.runtime, self.store_checkpoint, self.transient_store_pool
        )
        self.commit_log.schedule_message_service = self.schedule_message_service
        self.commit_log.ha_service = self.ha_service
        self.commit_log.load()
        rebuild_all = self.load_consume_queue()
        self.reput_message_service = ReputMessageService(
            self.runtime,
            self.config,
            self.commit_log,
            self.do_dispatch,
            long_polling_enable=lambda: self.broker_config is None or self.broker_config.long_polling_enable,
        )
        self.reput_message_service.message_arriving_listener = self.message_arriving_listener
        self.flush_consume_queue_service = FlushConsumeQueueService(
            self.runtime, self.config, self.iter_consume_queues, self.store_checkpoint
        )
        self._create_clean_services()
        # Java's order: index files first (after a crash, those newer than the checkpoint go), then recovery,
        # whose re-dispatch rebuilds their entries.
        self.index_service.load(last_exit_ok)
        self.recover(last_exit_ok and not rebuild_all, rebuild_from_first_file=rebuild_all)
        # Last, as in 4.9.3: correctDelayOffset needs the recovered ConsumeQueues (so recovery ran with no delay
        # levels parsed yet; the spec page explains what that does to re-dispatched delayed messages).
        if not self.schedule_message_service.load():
            raise StoreLoadError("config/delayOffset.json and its .bak are both unreadable")
        self._loaded = True
        self.runtime.trace_event(
            "DefaultMessageStore", "load", lastExitOK=last_exit_ok, maxOffset=self.get_max_phy_offset()
        )
        return True

    def _acquire_lock(self) -> None:
        lock_path = paths.get_lock_file(self.root)
        fd = os.open(lock_path, os.O_RDWR | os.O_CREAT, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError as exc:
            os.close(fd)
            raise StoreLockedError(f"Lock failed,MQ already started: {lock_path} is held by another store") from exc
        os.ftruncate(fd, 0)
        os.write(fd, b"lock")
        self._lock_fd = fd

    def _release_lock(self) -> None:
        if self._lock_fd >= 0:
            fcntl.flock(self._lock_fd, fcntl.LOCK_UN)
            os.close(self._lock_fd)
            self._lock_fd = -1

    def _check_segment_sizes(self) -> None:
        """Refuse, before anything is created or changed, a CommitLog segment of another size than configured.

        Java: MappedFileQueue#doLoad refuses to load such a file. A store written with another
        ``mappedFileSizeCommitLog`` (or a segment cut short by a copy) is left exactly as it is (HARD-4).

        Raises:
            StoreLoadError: naming the file, its size and the configured size.
        """
        directory = Path(self.config.store_path_commit_log)
        if not directory.is_dir():
            return
        size = self.config.mapped_file_size_commit_log
        for path in sorted(directory.iterdir()):
            if path.is_file() and path.name.isdigit() and path.stat().st_size != size:
                self._release_lock()
                raise StoreLoadError(
                    f"{path} is {path.stat().st_size} bytes but mappedFileSizeCommitLog is {size}: start with the "
                    "size the store was written with; no file was changed"
                )

    def load_consume_queue(self) -> bool:
        """Map every ConsumeQueue under ``consumequeue/<topic>/<queueId>``; quarantine damaged ones.

        Java: DefaultMessageStore#loadConsumeQueue

        Returns:
            Whether some queue was quarantined, so every queue must be rebuilt from the first CommitLog file.
        """
        cq_root = paths.get_store_path_consume_queue(self.root)
        quarantined = False
        if not cq_root.is_dir():
            return False
        size = self.config.get_mapped_file_size_consume_queue()
        for topic_dir in sorted(p for p in cq_root.iterdir() if p.is_dir()):
            for queue_dir in sorted(p for p in topic_dir.iterdir() if p.is_dir()):
                if not queue_dir.name.isdigit():
                    continue
                files = [p for p in queue_dir.iterdir() if p.is_file()]
                if any(p.stat().st_size != size or not p.name.isdigit() for p in files):
                    self._quarantine(queue_dir)
                    quarantined = True
                    continue
                queue = ConsumeQueue(topic_dir.name, int(queue_dir.name), cq_root, size, runtime=self.runtime)
                queue.load()
                self.consume_queue_table.setdefault(topic_dir.name, {})[queue.queue_id] = queue
        return quarantined

    def _quarantine(self, queue_dir: Path) -> None:
        move_consume_queue(self.root, queue_dir)  # never over an earlier entry (HARD-5)
        self.recovery_report.quarantined_queues.append(f"{queue_dir.parent.name}/{queue_dir.name}")

    def recover(self, last_exit_ok: bool, *, rebuild_from_first_file: bool = False) -> None:
        """ConsumeQueues first, then the CommitLog (normally or abnormally), then the topic-queue table.

        Java: DefaultMessageStore#recover
        """
        assert self.commit_log is not None and self.store_checkpoint is not None
        max_phy_offset_of_cq = self.recover_consume_queue()
        if last_exit_ok:
            outcome = self.commit_log.recover_normally(max_phy_offset_of_cq, self.truncate_dirty_logic_files)
        else:
            checkpoint = self.store_checkpoint
            use_index = self.config.message_index_enable and self.config.message_index_safe
            min_timestamp = checkpoint.get_min_timestamp_index() if use_index else checkpoint.get_min_timestamp()
            if rebuild_from_first_file:
                min_timestamp = -1  # no segment qualifies: the scan starts at the first one
            outcome = self.commit_log.recover_abnormally(
                max_phy_offset_of_cq, self.truncate_dirty_logic_files, self.do_dispatch, min_timestamp
            )
        if outcome.destroy_logics:
            self.destroy_logics()
        self.recovery_report.commit_log = outcome
        self.recover_topic_queue_table()

    def recover_consume_queue(self) -> int:
        """Recover every queue; return the highest CommitLog end any of them points at.

        Java: DefaultMessageStore#recoverConsumeQueue
        """
        max_physic_offset = -1
        for queue in self.iter_consume_queues():
            queue.recover()
            max_physic_offset = max(max_physic_offset, queue.max_physic_offset)
        return max_physic_offset

    def recover_topic_queue_table(self) -> None:
        """Rebuild the next queue offset of every queue from its ConsumeQueue, and fix min offsets.

        Java: DefaultMessageStore#recoverTopicQueueTable
        """
        assert self.commit_log is not None
        table = self.commit_log.topic_queue_table
        table.clear()
        min_phy_offset = self.commit_log.get_min_offset()
        for queue in self.iter_consume_queues():
            table[f"{queue.topic}-{queue.queue_id}"] = queue.get_max_offset_in_queue()
            queue.correct_min_offset(min_phy_offset)

    def truncate_dirty_logic_files(self, phy_offset: int) -> None:
        """Cut every ConsumeQueue back to CommitLog offset ``phy_offset``. Java: #truncateDirtyLogicFiles."""
        for queue in self.iter_consume_queues():
            queue.truncate_dirty_logic_files(phy_offset)

    def destroy_logics(self) -> None:
        """Delete every ConsumeQueue (the CommitLog is empty). Java: DefaultMessageStore#destroyLogics."""
        for queue in self.iter_consume_queues():
            queue.destroy()
        self.consume_queue_table.clear()

    # -- start and stop ------------------------------------------------------------------------------------------
    def start(self) -> None:
        """Dispatch what the ConsumeQueues lack, start the services and create the ``abort`` file.

        Java: DefaultMessageStore#start
        """
        if not self._loaded:
            self.load()
        assert self.commit_log is not None and self.reput_message_service is not None
        commit_log = self.commit_log
        reput_from = max(commit_log.get_min_offset(), 0)
        for queue in self.iter_consume_queues():
            reput_from = max(reput_from, queue.max_physic_offset)
        self.reput_message_service.reput_from_offset = max(reput_from, commit_log.get_min_offset(), 0)
        self.reput_message_service.start()
        self._wait_for_reput()
        self.recover_topic_queue_table()
        self.handle_schedule_message_service(self.config.broker_role)
        assert self.flush_consume_queue_service is not None
        self.flush_consume_queue_service.start()
        commit_log.start()
        if self.ha_enabled:
            self.ha_service.start()
        paths.get_abort_file(self.root).touch()
        self.add_schedule_task()
        self.shutdown_flag = False
        self.runtime.trace_event("DefaultMessageStore", "start", reputFromOffset=reput_from)

    def handle_schedule_message_service(self, broker_role: BrokerRole) -> None:
        """A slave stops delivering delayed messages; any other role starts it.

        Java: DefaultMessageStore#handleScheduleMessageService
        """
        if broker_role is BrokerRole.SLAVE:
            self.schedule_message_service.shutdown()
        else:
            self.schedule_message_service.start()

    def _wait_for_reput(self) -> None:
        """Wait, however long it takes, until reput has dispatched everything, logging progress each second.

        Java: the loop in DefaultMessageStore#start ("Try to finish doing reput the messages fall behind during the
        starting"). The topic-queue table is rebuilt from the ConsumeQueues right after: before they hold every
        record, a new put could be given a queue offset an undispatched record already has (AUDIT-1).
        """
        if self.runtime.simulated:
            world = getattr(self.runtime.scheduler, "world", None)
            if world is not None:
                world.run_until(lambda: self.dispatch_behind_bytes() <= 0)  # raises if nothing can make progress
                return
        while self.dispatch_behind_bytes() > 0:
            self.runtime.scheduler.sleep(1000)
            reput = self.reput_message_service
            assert reput is not None
            _LOG.info(
                "Try to finish doing reput the messages fall behind during the starting, reputOffset=%d maxOffset=%d "
                "behind=%d",
                reput.reput_from_offset,
                self.get_max_phy_offset(),
                self.dispatch_behind_bytes(),
            )

    def _wait_until(self, condition, interval_ms: int = 100, limit_ms: int = 60_000) -> bool:
        if self.runtime.simulated:
            world_runs = getattr(self.runtime.scheduler, "world", None)
            if world_runs is not None:
                return world_runs.run_until(condition, timeout_ms=limit_ms)
        waited = 0
        while not condition() and waited < limit_ms:
            self.runtime.scheduler.sleep(interval_ms)
            waited += interval_ms
        return condition()

    def shutdown(self) -> None:
        """Stop everything; a clean stop (writable and fully dispatched) removes the ``abort`` file.

        Java: DefaultMessageStore#shutdown
        """
        if not self.shutdown_flag:
            self.shutdown_flag = True
            self._cancel_schedule_tasks()  # Java shuts both scheduled executors down first
            self.ha_service.shutdown()  # nothing when it was never started
            self.schedule_message_service.shutdown()  # persists config/delayOffset.json
            assert self.commit_log is not None and self.reput_message_service is not None
            self.commit_log.shutdown()
            self._wait_until(lambda: not self.reput_message_service.is_commit_log_available(), limit_ms=5000)
            self.reput_message_service.shutdown()
            if self.flush_consume_queue_service is not None:
                self.flush_consume_queue_service.shutdown()
                if self.runtime.simulated:
                    self.flush_consume_queue_service.on_stopped()
            if self.index_service is not None:
                self.index_service.flush()  # mqlab forces the last index file; Java leaves it to the OS
            if self.running_flags.is_writeable() and self.dispatch_behind_bytes() == 0:
                with contextlib.suppress(FileNotFoundError):
                    paths.get_abort_file(self.root).unlink()
            self.runtime.trace_event("DefaultMessageStore", "shutdown", maxOffset=self.get_max_phy_offset())
        self._close_files()

    def _close_files(self) -> None:
        self._cancel_schedule_tasks()  # also when a crash skipped shutdown(): no timer may touch closed files
        if self.index_service is not None:
            self.index_service.shutdown()
        if self.store_checkpoint is not None:
            self.store_checkpoint.shutdown()
        if self.commit_log is not None:
            self.commit_log.mapped_file_queue.shutdown()
        for queue in self.iter_consume_queues():
            queue.shutdown()
        self.transient_store_pool.destroy()
        self._release_lock()
        self._loaded = False

    def destroy(self) -> None:
        """Delete every file of the store. Java: DefaultMessageStore#destroy."""
        self.destroy_logics()
        if self.commit_log is not None:
            self.commit_log.mapped_file_queue.destroy()
        if self.index_service is not None:
            self.index_service.destroy()
        for name in ("abort", "checkpoint"):
            with contextlib.suppress(FileNotFoundError):
                (self.root / name).unlink()

    # -- cleaning expired files (docs/spec/store-cleaning.md) ---------------------------------------------------
    def _create_clean_services(self) -> None:
        assert self.commit_log is not None
        # Java's constructor creates both directories (MappedFile#ensureDirOK); a missing one would measure as -1,
        # which the cleaner reads as "disk full, reclaim space".
        Path(self.config.store_path_commit_log).mkdir(parents=True, exist_ok=True)
        paths.get_store_path_consume_queue(self.root).mkdir(parents=True, exist_ok=True)
        self.clean_commit_log_service = CleanCommitLogService(
            self.config, self.runtime, self.commit_log, self.running_flags
        )
        self.clean_consume_queue_service = CleanConsumeQueueService(
            self.config,
            self.runtime,
            self.commit_log,
            self.iter_consume_queues,
            index_service=lambda: getattr(self, "index_service", None),
        )

    def add_schedule_task(self) -> None:
        """Clean files every ``cleanResourceInterval`` (first after 60 s) and check the disk every 10 s (after 1 s).

        Java: DefaultMessageStore#addScheduleTask (left out: the ten-minute ``checkSelf`` log and the lock-debug
        task, which only write logs)
        """
        assert self.clean_commit_log_service is not None
        scheduler = self.runtime.scheduler
        self._cancel_schedule_tasks()
        self._schedule_handles = [
            scheduler.schedule_at_fixed_rate(
                60 * 1000, self.config.clean_resource_interval, self.clean_files_periodically, name="cleanFiles"
            ),
            scheduler.schedule_at_fixed_rate(
                1000, 10_000, self.clean_commit_log_service.is_space_full, name="DiskCheckScheduledThread"
            ),
        ]

    def _cancel_schedule_tasks(self) -> None:
        handles, self._schedule_handles = self._schedule_handles, []
        for handle in handles:
            handle.cancel()

    def clean_files_periodically(self) -> tuple[CleanCommitLogPass | None, CleanConsumeQueuePass | None]:
        """One clean round: expired CommitLog segments, then the ConsumeQueue and index files they leave useless.

        Java: DefaultMessageStore#cleanFilesPeriodically

        Returns:
            The CommitLog pass and the ConsumeQueue pass (either is ``None`` if its step failed), for printing.
        """
        assert self.clean_commit_log_service is not None and self.clean_consume_queue_service is not None
        return self.clean_commit_log_service.run(), self.clean_consume_queue_service.run()

    def execute_delete_files_manually(self) -> None:
        """Make the next 20 clean rounds delete expired segments whatever the hour and disk.

        Java: DefaultMessageStore#executeDeleteFilesManually (the admin request DELETE_EXPIRED_COMMITLOG)
        """
        assert self.clean_commit_log_service is not None
        self.clean_commit_log_service.execute_delete_files_manually()

    # -- replication ---------------------------------------------------------------------------------------------
    def enable_ha(self, listen_host: str = "0.0.0.0") -> HAService:
        """Run replication: ``start`` binds ``haListenPort`` on ``listen_host`` and starts the HA threads.

        Java: HAService#start, which 4.9.3's ``DefaultMessageStore#start`` always calls; the HA service itself is
        built in the constructor, as Java's is.
        """
        self.ha_enabled = True
        self.ha_service.accept_socket_service.listen_host = listen_host
        return self.ha_service

    def update_ha_master_address(self, new_addr: str | None) -> None:
        """Where the slave's HA client connects. Java: DefaultMessageStore#updateHaMasterAddress."""
        self.ha_service.update_master_address(new_addr)

    def get_commit_log_data(self, offset: int, *, max_size: int | None = None) -> SelectMappedBufferResult | None:
        """Bytes from ``offset`` to the readable end of its segment, at most ``max_size`` (shut down: none).

        Java: DefaultMessageStore#getCommitLogData (mqlab copies, so the HA writer asks only for one batch)
        """
        if self.shutdown_flag or self.commit_log is None:
            return None
        return self.commit_log.get_data(offset, offset == 0, max_size=max_size)

    def append_to_commit_log(self, start_offset: int, data: bytes) -> bool:
        """Append replicated bytes and wake reput (a slave). Java: DefaultMessageStore#appendToCommitLog."""
        if self.shutdown_flag or self.commit_log is None:
            return False
        result = self.commit_log.append_data(start_offset, data)
        if result:
            assert self.reput_message_service is not None
            self.reput_message_service.wakeup()
        else:
            self.runtime.trace_event(
                "DefaultMessageStore", "appendToCommitLogFailed", offset=start_offset, size=len(data)
            )
        return result

    # -- writing -------------------------------------------------------------------------------------------------
    def check_store_status(self) -> PutMessageStatus:
        """Shut down, slave, not writable (disk full, queue errors) or page cache busy. Java: #checkStoreStatus."""
        if self.shutdown_flag:
            return PutMessageStatus.SERVICE_NOT_AVAILABLE
        if self.config.broker_role is _SLAVE:
            return PutMessageStatus.SERVICE_NOT_AVAILABLE
        if not self.running_flags.is_writeable():
            return PutMessageStatus.SERVICE_NOT_AVAILABLE
        if self.is_os_page_cache_busy():
            return PutMessageStatus.OS_PAGECACHE_BUSY
        return _PUT_OK

    @staticmethod
    def check_message(msg: Any) -> PutMessageStatus:
        """Topic over 127 characters or properties over 32767: MESSAGE_ILLEGAL. Java: #checkMessage.

        mqlab also refuses a topic that cannot be a directory below the store (``/``, ``..``; HARD-2): its
        ConsumeQueue would be written outside the store root.
        """
        topic = msg.topic or ""
        if len(topic) > TOPIC_MAX_BYTES or (not topic.isascii() and len(topic.encode("utf-8")) > TOPIC_MAX_BYTES):
            return PutMessageStatus.MESSAGE_ILLEGAL
        if not is_safe_path_component(topic):
            return PutMessageStatus.MESSAGE_ILLEGAL
        properties = getattr(msg, "properties_string", None)
        if properties and len(properties) > PROPERTIES_MAX_BYTES:
            return PutMessageStatus.MESSAGE_ILLEGAL
        return _PUT_OK

    def async_put_message(self, msg: MessageExtBrokerInner):
        """Check store and message, then hand to the CommitLog; returns a future of ``PutMessageResult``.

        Java: DefaultMessageStore#asyncPutMessage
        """
        status = self.check_store_status()
        if status is _PUT_OK:
            status = self.check_message(msg)
        if status is not _PUT_OK:
            return self._completed(PutMessageResult(status))
        assert self.commit_log is not None
        return self.commit_log.async_put_message(msg)

    def async_put_messages(self, batch: MessageExtBatch):
        """The batch variant. Java: DefaultMessageStore#asyncPutMessages."""
        status = self.check_store_status()
        if status is _PUT_OK:
            status = self.check_message(batch)
        if status is not _PUT_OK:
            return self._completed(PutMessageResult(status))
        assert self.commit_log is not None
        return self.commit_log.async_put_messages(batch)

    def put_message(self, msg: MessageExtBrokerInner) -> PutMessageResult:
        """Put and wait, at most ``max(syncFlushTimeout, slaveTimeout) + 5 s``. Java: DefaultMessageStore#putMessage."""
        return self._wait_for_put_result(self.async_put_message(msg))

    def put_messages(self, batch: MessageExtBatch) -> PutMessageResult:
        """Put a batch and wait. Java: DefaultMessageStore#putMessages."""
        return self._wait_for_put_result(self.async_put_messages(batch))

    def _wait_for_put_result(self, future) -> PutMessageResult:
        timeout = max(self.config.sync_flush_timeout, self.config.slave_timeout) + 5000
        try:
            return future.result(timeout)
        except TimeoutError:
            return PutMessageResult(PutMessageStatus.UNKNOWN_ERROR)

    def _completed(self, value: Any) -> CompletedFuture[Any]:
        return CompletedFuture(value)

    def is_os_page_cache_busy(self) -> bool:
        """The put lock has been held longer than ``osPageCacheBusyTimeOutMills`` (and less than 10,000,000 ms).

        Java: DefaultMessageStore#isOSPageCacheBusy. No lock held means a begin time of 0, so a "held" time of the
        whole epoch, which the 10,000,000 ms bound rules out; a lock held longer than that (2.8 hours) is not busy
        either (AUDIT-11).
        """
        if self.commit_log is None:
            return False
        held = self.runtime.now_ms() - self.commit_log.begin_time_in_lock
        return held < 10_000_000 and held > self.config.os_page_cache_busy_time_out_mills

    # -- dispatch ------------------------------------------------------------------------------------------------
    def do_dispatch(self, request: DispatchRequest) -> None:
        """Hand one record to every dispatcher. Java: DefaultMessageStore#doDispatch."""
        for dispatcher in self.dispatcher_list:
            dispatcher.dispatch(request)

    def put_message_position_info(self, request: DispatchRequest) -> None:
        """Write the record's ConsumeQueue unit (retrying; a queue that keeps failing stops all writes).

        Java: DefaultMessageStore#putMessagePositionInfo → ConsumeQueue#putMessagePositionInfoWrapper
        """
        try:
            queue = self.find_consume_queue(request.topic, request.queue_id)
        except StorePathError as exc:
            # Only a CommitLog written elsewhere can hold such a topic (puts refuse it): skip its unit, keep going.
            self.runtime.trace_event("DefaultMessageStore", "unsafeTopicSkipped", topic=request.topic, error=str(exc))
            return
        for _ in range(30):
            if not self.running_flags.is_cq_writeable():
                break
            if queue.put_message_position_info(
                request.commit_log_offset, request.msg_size, request.tags_code, request.consume_queue_offset
            ):
                assert self.store_checkpoint is not None
                if self.config.broker_role is _SLAVE:
                    self.store_checkpoint.physic_msg_timestamp = request.store_timestamp
                self.store_checkpoint.logics_msg_timestamp = request.store_timestamp
                return
            self.runtime.scheduler.sleep(1000)
        self.running_flags.make_logics_queue_error()
        self.runtime.trace_event(
            "DefaultMessageStore", "logicsQueueError", topic=request.topic, queueId=request.queue_id
        )

    def dispatch_behind_bytes(self) -> int:
        """CommitLog bytes reput has not dispatched yet. Java: DefaultMessageStore#dispatchBehindBytes."""
        return self.reput_message_service.behind() if self.reput_message_service is not None else 0

    # -- ConsumeQueues -------------------------------------------------------------------------------------------
    def find_consume_queue(self, topic: str, queue_id: int) -> ConsumeQueue:
        """The queue object, created empty on first use (so an unknown queue reads as empty).

        Java: DefaultMessageStore#findConsumeQueue

        Raises:
            StorePathError: ``topic`` cannot be a directory below the store (HARD-2; Java builds the path as given).
        """
        queues = self.consume_queue_table.get(topic)
        if queues is not None:
            queue = queues.get(queue_id)
            if queue is not None:
                return queue
        if not is_safe_path_component(topic):
            raise StorePathError(
                f"topic {topic!r} cannot name a directory below {paths.get_store_path_consume_queue(self.root)}"
            )
        with self._cq_lock:
            queues = self.consume_queue_table.setdefault(topic, {})
            queue = queues.get(queue_id)
            if queue is None:
                queue = ConsumeQueue(
                    topic,
                    queue_id,
                    paths.get_store_path_consume_queue(self.root),
                    self.config.get_mapped_file_size_consume_queue(),
                    runtime=self.runtime,
                )
                queues[queue_id] = queue
            return queue

    def clean_unused_topic(self, topics: set[str]) -> list[str]:
        """Destroy the ConsumeQueues of every topic not in ``topics`` (the broker's configured topic names).

        Each such queue's files are deleted and its next queue offset forgotten. The schedule topic, the
        transaction op-half topic and LMQ topics are kept. The CommitLog is not touched: the messages stay until
        they expire. Returns the topics destroyed, in table order.

        Java: DefaultMessageStore#cleanUnusedTopic (Java returns 0; stats cleanup left out)
        """
        kept = {RMQ_SYS_SCHEDULE_TOPIC, RMQ_SYS_TRANS_OP_HALF_TOPIC}
        destroyed: list[str] = []
        with self._cq_lock:
            for topic in list(self.consume_queue_table):
                if topic in topics or topic in kept or is_lmq(topic):
                    continue
                for queue in list(self.consume_queue_table[topic].values()):
                    queue.destroy()
                    if self.commit_log is not None:
                        self.commit_log.remove_queue_from_topic_queue_table(queue.topic, queue.queue_id)
                del self.consume_queue_table[topic]
                destroyed.append(topic)
        return destroyed

    def clean_unused_lmq_topic(self, topic: str) -> None:
        """Destroy one LMQ topic's ConsumeQueues. Java: DefaultMessageStore#cleanUnusedLmqTopic."""
        with self._cq_lock:
            queues = self.consume_queue_table.pop(topic, None)
            for queue in list((queues or {}).values()):
                queue.destroy()
                if self.commit_log is not None:
                    self.commit_log.remove_queue_from_topic_queue_table(queue.topic, queue.queue_id)

    def iter_consume_queues(self) -> Iterator[ConsumeQueue]:
        """Every ConsumeQueue, topic by topic."""
        for queues in list(self.consume_queue_table.values()):
            yield from list(queues.values())

    # -- reading -------------------------------------------------------------------------------------------------
    def get_message(
        self,
        group: str,
        topic: str,
        queue_id: int,
        offset: int,
        max_msg_nums: int,
        message_filter: MessageFilter | None = None,
    ) -> GetMessageResult | None:
        """Up to ``max_msg_nums`` messages of a queue from logical ``offset``, with status and next offset.

        Java: DefaultMessageStore#getMessage (see the status table in the store spec). ``None`` while the store is
        not started (between ``load`` and ``start``) and from the first line of ``shutdown`` on, as in 4.9.3
        (AUDIT-7); the pull processor then answers SYSTEM_ERROR "store getMessage return null".
        """
        if self.shutdown_flag:
            return None
        if not self.running_flags.is_readable():
            return None
        assert self.commit_log is not None
        max_offset_py = self.commit_log.get_max_offset()
        queue = self.find_consume_queue(topic, queue_id)
        min_offset = queue.get_min_offset_in_queue()
        max_offset = queue.get_max_offset_in_queue()
        result = GetMessageResult()
        if max_offset == 0:
            status, next_begin = GetMessageStatus.NO_MESSAGE_IN_QUEUE, self._next_offset_correction(offset, 0)
        elif offset < min_offset:
            status, next_begin = GetMessageStatus.OFFSET_TOO_SMALL, self._next_offset_correction(offset, min_offset)
        elif offset == max_offset:
            status, next_begin = GetMessageStatus.OFFSET_OVERFLOW_ONE, self._next_offset_correction(offset, offset)
        elif offset > max_offset:
            status = GetMessageStatus.OFFSET_OVERFLOW_BADLY
            next_begin = self._next_offset_correction(offset, min_offset if min_offset == 0 else max_offset)
        else:
            # Only the units the scan below can reach (max_filter_bytes) are read.
            buffer = queue.get_index_buffer(offset, max_size=_max_filter_bytes(max_msg_nums))
            if buffer is None:
                status = GetMessageStatus.OFFSET_FOUND_NULL
                next_begin = self._next_offset_correction(offset, queue.roll_next_file(offset))
            else:
                status, scanned = self._iterate_consume_queue(
                    buffer, max_offset_py, max_msg_nums, message_filter, result
                )
                next_begin = offset + scanned // CQ_STORE_UNIT_SIZE
        result.status = status
        result.next_begin_offset = next_begin
        result.min_offset = min_offset
        result.max_offset = max_offset
        return result

    def _iterate_consume_queue(
        self,
        buffer: SelectMappedBufferResult,
        max_offset_py: int,
        max_msg_nums: int,
        message_filter: MessageFilter | None,
        result: GetMessageResult,
    ) -> tuple[GetMessageStatus, int]:
        """Scan units: batch-full check, tags-code filter, CommitLog read, CommitLog filter. Returns (status, bytes)."""
        assert self.commit_log is not None
        commit_log = self.commit_log
        status = GetMessageStatus.NO_MATCHED_MESSAGE
        next_phy_file_start = None
        max_phy_offset_pulling = 0
        max_filter_bytes = _max_filter_bytes(max_msg_nums)
        data = buffer.data
        limit = min(len(data), max_filter_bytes)
        memory = self.runtime.total_physical_memory * self.config.access_message_in_memory_max_ratio // 100
        i = 0
        while i < limit:
            offset_py, size_py, tags_code = UNIT.unpack_from(data, i)
            max_phy_offset_pulling = offset_py
            if next_phy_file_start is not None and offset_py < next_phy_file_start:
                i += CQ_STORE_UNIT_SIZE
                continue
            in_disk = max_offset_py - offset_py > memory
            if self._is_the_batch_full(size_py, max_msg_nums, result.buffer_total_size, result.message_count, in_disk):
                break
            if message_filter is not None and not message_filter.is_matched_by_consume_queue(tags_code, None):
                if result.buffer_total_size == 0:
                    status = GetMessageStatus.NO_MATCHED_MESSAGE
                i += CQ_STORE_UNIT_SIZE
                continue
            select = commit_log.get_message(offset_py, size_py)
            if select is None:
                if result.buffer_total_size == 0:
                    status = GetMessageStatus.MESSAGE_WAS_REMOVING
                next_phy_file_start = commit_log.roll_next_file(offset_py)
                i += CQ_STORE_UNIT_SIZE
                continue
            if message_filter is not None and not message_filter.is_matched_by_commit_log(select.data, None):
                if result.buffer_total_size == 0:
                    status = GetMessageStatus.NO_MATCHED_MESSAGE
                i += CQ_STORE_UNIT_SIZE
                continue
            result.add_message(select, buffer.start_offset // CQ_STORE_UNIT_SIZE + i // CQ_STORE_UNIT_SIZE)
            status = GetMessageStatus.FOUND
            next_phy_file_start = None
            i += CQ_STORE_UNIT_SIZE
        result.suggest_pulling_from_slave = max_offset_py - max_phy_offset_pulling > memory
        return status, i

    def _is_the_batch_full(self, size_py: int, max_msg_nums: int, buffer_total: int, message_total: int, in_disk: bool):
        """Java: DefaultMessageStore#isTheBatchFull."""
        if buffer_total == 0 or message_total == 0:
            return False
        if max_msg_nums <= message_total:
            return True
        if in_disk:
            max_bytes = self.config.max_transfer_bytes_on_message_in_disk
            max_count = self.config.max_transfer_count_on_message_in_disk
        else:
            max_bytes = self.config.max_transfer_bytes_on_message_in_memory
            max_count = self.config.max_transfer_count_on_message_in_memory
        return buffer_total + size_py > max_bytes or message_total > max_count - 1

    def _next_offset_correction(self, old_offset: int, new_offset: int) -> int:
        """A slave keeps the requested offset unless ``offsetCheckInSlave``. Java: #nextOffsetCorrection."""
        if self.config.broker_role is not BrokerRole.SLAVE or self.config.offset_check_in_slave:
            return new_offset
        return old_offset

    def get_max_offset_in_queue(self, topic: str, queue_id: int) -> int:
        """One past the last unit of the queue. Java: DefaultMessageStore#getMaxOffsetInQueue."""
        return self.find_consume_queue(topic, queue_id).get_max_offset_in_queue()

    def get_min_offset_in_queue(self, topic: str, queue_id: int) -> int:
        """First readable logical offset. Java: DefaultMessageStore#getMinOffsetInQueue."""
        return self.find_consume_queue(topic, queue_id).get_min_offset_in_queue()

    def get_commit_log_offset_in_queue(self, topic: str, queue_id: int, consume_queue_offset: int) -> int:
        """CommitLog offset of the record at a queue offset (0 if none). Java: #getCommitLogOffsetInQueue."""
        buffer = self.find_consume_queue(topic, queue_id).get_index_buffer(consume_queue_offset)
        if buffer is None or buffer.size < CQ_STORE_UNIT_SIZE:
            return 0
        return _LONG.unpack_from(buffer.data, 0)[0]

    def get_offset_in_queue_by_time(self, topic: str, queue_id: int, timestamp: int) -> int:
        """Queue offset of the message stored closest to ``timestamp``. Java: #getOffsetInQueueByTime."""
        assert self.commit_log is not None
        return self.find_consume_queue(topic, queue_id).get_offset_in_queue_by_time(
            timestamp, self.commit_log.get_min_offset(), self.commit_log.pickup_store_timestamp
        )

    def look_message_by_offset(self, commit_log_offset: int, size: int | None = None):
        """Decode the record at a CommitLog offset (``None`` if absent). Java: #lookMessageByOffset."""
        from mqlab.common.message import message_decoder

        assert self.commit_log is not None
        if size is None:
            head = self.commit_log.get_message(commit_log_offset, 4)
            if head is None:
                return None
            size = struct.unpack(">i", head.data)[0]
        result = self.commit_log.get_message(commit_log_offset, size)
        if result is None:
            return None
        # Java decodes without inflating the body (MessageDecoder#decode(buffer, true, false)).
        return message_decoder.decode(result.data, decompress_body=False, where=f"commitlog offset {commit_log_offset}")

    def select_one_message_by_offset(self, commit_log_offset: int, size: int | None = None):
        """The raw record at a CommitLog offset. Java: DefaultMessageStore#selectOneMessageByOffset."""
        assert self.commit_log is not None
        if size is None:
            head = self.commit_log.get_message(commit_log_offset, 4)
            if head is None:
                return None
            size = struct.unpack(">i", head.data)[0]
        return self.commit_log.get_message(commit_log_offset, size)

    def query_message(
        self, topic: str, key: str, max_num: int, begin_timestamp: int, end_timestamp: int
    ) -> QueryMessageResult:
        """Records whose ``topic#key`` *hash* is in the index within the time window, ascending by offset.

        Up to three rounds: ask the index (at most ``maxMsgsNumBatch`` offsets), sort the offsets, read the
        records; stop once something was read, else retry with the window's end moved back to the store time of
        the first offset found. The key strings are never compared here (Java's check is commented out): a key
        with the same hash brings its records too, and the reader filters (``mqlab.store.index.key_check``).

        Java: DefaultMessageStore#queryMessage
        """
        result = QueryMessageResult()
        if self.index_service is None:
            return result
        last_query_msg_time = end_timestamp
        for _ in range(3):
            found = self.index_service.query_offset(topic, key, max_num, begin_timestamp, last_query_msg_time)
            if not found.phy_offsets:
                break
            result.index_last_update_phyoffset = found.index_last_update_phyoffset
            result.index_last_update_timestamp = found.index_last_update_timestamp
            last_query_msg_time = self._read_query_hits(sorted(found.phy_offsets), result, last_query_msg_time)
            if result.buffer_total_size > 0 or last_query_msg_time < begin_timestamp:
                break
        return result

    def _read_query_hits(self, phy_offsets: list[int], result: QueryMessageResult, last_query_msg_time: int) -> int:
        """Add each readable record to ``result``; return the first offset's store time (the next round's end)."""
        assert self.commit_log is not None
        for m, offset in enumerate(phy_offsets):
            select = self.select_one_message_by_offset(offset)
            if select is None:
                continue  # deleted or past the end: Java logs the failed lookup and goes on
            if m == 0:
                last_query_msg_time = self.commit_log.pickup_store_timestamp(offset, select.size)
            result.add_message(select)
        return last_query_msg_time

    def get_earliest_message_time(self, topic: str | None = None, queue_id: int = 0) -> int:
        """Store time of the first message of a queue (or of the CommitLog); -1 if none.

        Java: DefaultMessageStore#getEarliestMessageTime (both overloads)
        """
        assert self.commit_log is not None
        if topic is None:
            min_offset = self.commit_log.get_min_offset()
            head = self.commit_log.get_message(min_offset, 4) if min_offset >= 0 else None
            if head is None:
                return -1
            return self.commit_log.pickup_store_timestamp(min_offset, struct.unpack(">i", head.data)[0])
        queue = self.find_consume_queue(topic, queue_id)
        buffer = queue.get_index_buffer(queue.get_min_offset_in_queue())
        if buffer is None or buffer.size < CQ_STORE_UNIT_SIZE:
            return -1
        offset, size, _tags = UNIT.unpack_from(buffer.data, 0)
        return self.commit_log.pickup_store_timestamp(offset, size)

    def get_message_store_timestamp(self, topic: str, queue_id: int, consume_queue_offset: int) -> int:
        """Store time of the message at a queue offset (-1 if none). Java: #getMessageStoreTimeStamp."""
        assert self.commit_log is not None
        buffer = self.find_consume_queue(topic, queue_id).get_index_buffer(consume_queue_offset)
        if buffer is None or buffer.size < CQ_STORE_UNIT_SIZE:
            return -1
        offset, size, _tags = UNIT.unpack_from(buffer.data, 0)
        return self.commit_log.pickup_store_timestamp(offset, size)

    def check_in_disk_by_consume_offset(self, topic: str, queue_id: int, consume_offset: int) -> bool:
        """Whether that message is probably out of the page cache. Java: #checkInDiskByConsumeOffset."""
        assert self.commit_log is not None
        buffer = self.find_consume_queue(topic, queue_id).get_index_buffer(consume_offset)
        if buffer is None or buffer.size < CQ_STORE_UNIT_SIZE:
            return False
        offset_py = _LONG.unpack_from(buffer.data, 0)[0]
        return self.check_in_disk_by_commit_offset(offset_py, self.commit_log.get_max_offset())

    def check_in_disk_by_commit_offset(self, offset_py: int, max_offset_py: int) -> bool:
        """More than ``accessMessageInMemoryMaxRatio`` % of RAM behind the head. Java: #checkInDiskByCommitOffset."""
        memory = self.runtime.total_physical_memory * self.config.access_message_in_memory_max_ratio // 100
        return max_offset_py - offset_py > memory

    def get_min_phy_offset(self) -> int:
        """First CommitLog offset still stored. Java: DefaultMessageStore#getMinPhyOffset."""
        return self.commit_log.get_min_offset() if self.commit_log is not None else -1

    def get_max_phy_offset(self) -> int:
        """End of the CommitLog. Java: DefaultMessageStore#getMaxPhyOffset."""
        return self.commit_log.get_max_offset() if self.commit_log is not None else 0

    def now(self) -> int:
        """The store's clock. Java: DefaultMessageStore#now."""
        return self.runtime.now_ms()
