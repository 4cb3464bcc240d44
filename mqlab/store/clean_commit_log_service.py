"""Deletes expired CommitLog segments and watches the disk: why consumed messages are not deleted, and when they are.

Java: org.apache.rocketmq.store.DefaultMessageStore$CleanCommitLogService (rocketmq-all-4.9.3), an inner class
promoted to its own module. It is not a ``ServiceThread``: the store's scheduled executor calls ``run`` every
``cleanResourceInterval`` (10 s, first after 60 s) and, on a second executor, ``is_space_full`` every 10 s (first
after 1 s); see ``DefaultMessageStore#addScheduleTask``.

Nothing here looks at consumers. A message goes when its whole segment goes, and a segment goes when one of three
triggers fires and the segment is old enough (or the disk is so full that age no longer matters):

* time: the local hour is listed in ``deleteWhen`` ("04": the whole hour 04:00-04:59, one pass every 10 s);
* space: the disk holding the CommitLog (or the ConsumeQueues) is more than ``diskMaxUsedSpaceRatio`` % used;
* manual: ``execute_delete_files_manually`` (the admin command DELETE_EXPIRED_COMMITLOG) arms 20 passes.

A pass removes segments whose last write is more than ``fileReservedTime`` hours old, oldest first, at most 10, never
the segment being written, and stops at the first young one. Above ``diskSpaceCleanForciblyRatio`` (0.85) the age
test is dropped; above ``diskSpaceWarningLevelRatio`` (0.90) the store is also marked disk-full and refuses puts.

The two ratios are JVM system properties in Java (``rocketmq.broker.diskSpaceCleanForciblyRatio`` and
``rocketmq.broker.diskSpaceWarningLevelRatio``), not ``MessageStoreConfig`` fields; here they are constructor
arguments with the same defaults.

Left out: the multi-path CommitLog (Java measures every directory, keeps the smallest ratio and tells the CommitLog
which directories are full so it writes elsewhere); mqlab has one CommitLog directory.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING

from mqlab.common.constant.logger_name import STORE_LOGGER_NAME, get_logger
from mqlab.common.util_all import get_disk_partition_space_used_percent, is_it_time_to_do
from mqlab.store.config import store_path_config_helper as paths
from mqlab.store.running_flags import DISK_FULL_BIT

if TYPE_CHECKING:
    from mqlab.runtime.runtime import Runtime
    from mqlab.store.commit_log import CommitLog
    from mqlab.store.config.message_store_config import MessageStoreConfig
    from mqlab.store.running_flags import RunningFlags

# Java: CleanCommitLogService.MAX_MANUAL_DELETE_FILE_TIMES
_LOG = get_logger(STORE_LOGGER_NAME)
MAX_MANUAL_DELETE_FILE_TIMES = 20
# Java: -Drocketmq.broker.diskSpaceWarningLevelRatio (default "0.90"): above it the store stops accepting puts.
DISK_SPACE_WARNING_LEVEL_RATIO = 0.90
# Java: -Drocketmq.broker.diskSpaceCleanForciblyRatio (default "0.85"): above it files go whatever their age.
DISK_SPACE_CLEAN_FORCIBLY_RATIO = 0.85
HOUR_MS = 60 * 60 * 1000


@dataclass(slots=True, frozen=True)
class CleanCommitLogPass:
    """What one pass of the CommitLog cleaner saw and did.

    Java: none (teaching helper; Java writes the same values to the store log).

    Attributes:
        time_up: the local hour is in ``deleteWhen``.
        space_to_delete: a disk is fuller than ``diskMaxUsedSpaceRatio`` (or could not be measured).
        manual: a manual deletion pass was pending (one is used up by this pass).
        clean_at_once: age was ignored (disk above the forced-clean ratio and ``cleanFileForciblyEnable``).
        deleted: segments destroyed by this pass.
        redeleted: a hanging first segment was finally deleted (``redeleteHangedFile``).
    """

    time_up: bool = False
    space_to_delete: bool = False
    manual: bool = False
    clean_at_once: bool = False
    deleted: int = 0
    redeleted: bool = False

    @property
    def triggered(self) -> bool:
        """Whether any trigger fired, so a deletion scan ran."""
        return self.time_up or self.space_to_delete or self.manual


class CleanCommitLogService:
    """Time-, space- and manually-triggered deletion of old CommitLog segments, plus the disk-full switch.

    Args:
        config: ``deleteWhen``, ``fileReservedTime``, ``diskMaxUsedSpaceRatio``, the deletion intervals, paths.
        runtime: clock, time zone (for ``deleteWhen``), disk and trace.
        commit_log: whose segments are deleted.
        running_flags: the store's flags; the disk-full bit is set and cleared here.
        disk_space_warning_level_ratio: fraction of the disk above which the store is marked full (Java's system
            property ``rocketmq.broker.diskSpaceWarningLevelRatio``, 0.90).
        disk_space_clean_forcibly_ratio: fraction above which segments are deleted regardless of age (Java's system
            property ``rocketmq.broker.diskSpaceCleanForciblyRatio``, 0.85).
    """

    def __init__(
        self,
        config: MessageStoreConfig,
        runtime: Runtime,
        commit_log: CommitLog,
        running_flags: RunningFlags,
        *,
        disk_space_warning_level_ratio: float = DISK_SPACE_WARNING_LEVEL_RATIO,
        disk_space_clean_forcibly_ratio: float = DISK_SPACE_CLEAN_FORCIBLY_RATIO,
    ):
        self.config = config
        self.runtime = runtime
        self.commit_log = commit_log
        self.running_flags = running_flags
        self.disk_space_warning_level_ratio = disk_space_warning_level_ratio
        self.disk_space_clean_forcibly_ratio = disk_space_clean_forcibly_ratio
        self.last_redelete_timestamp = 0
        self.manual_delete_file_several_times = 0
        self.clean_immediately = False

    # -- paths ---------------------------------------------------------------------------------------------------
    @property
    def store_path_physic(self) -> Path:
        """The CommitLog directory. Java: DefaultMessageStore#getStorePathPhysic."""
        return Path(self.config.store_path_commit_log)

    @property
    def store_path_logics(self) -> Path:
        """The ConsumeQueue root directory. Java: DefaultMessageStore#getStorePathLogic."""
        return paths.get_store_path_consume_queue(self.config.store_path_root_dir)

    # -- the pass ------------------------------------------------------------------------------------------------
    def execute_delete_files_manually(self) -> None:
        """Arm 20 passes that delete expired segments whatever the hour and the disk.

        Java: CleanCommitLogService#executeDeleteFilesManually
        """
        self.manual_delete_file_several_times = MAX_MANUAL_DELETE_FILE_TIMES
        self.runtime.trace_event("CleanCommitLogService", "executeDeleteFilesManually")

    def run(self) -> CleanCommitLogPass | None:
        """One scheduled pass: delete expired segments, then retry a hanging first segment.

        Java: CleanCommitLogService#run. Like Java, a failure is recorded (here in the trace) and swallowed, so the
        periodic task keeps running; ``None`` is returned in that case.
        """
        try:
            result = self.delete_expired_files()
            return dataclasses.replace(result, redeleted=self.redelete_hanged_file())
        except Exception as exc:  # Java catches Throwable here so the scheduled task is not cancelled
            self.runtime.trace_event("CleanCommitLogService", "exception", error=repr(exc))
            return None

    def delete_expired_files(self) -> CleanCommitLogPass:
        """Check the three triggers; if one fires, delete old segments (all of them if the disk is very full).

        Java: CleanCommitLogService#deleteExpiredFiles
        """
        time_up = self.is_time_to_delete()
        space_to_delete = self.is_space_to_delete()
        manual = self.manual_delete_file_several_times > 0
        if not (time_up or space_to_delete or manual):
            return CleanCommitLogPass()
        if manual:
            self.manual_delete_file_several_times -= 1
        clean_at_once = self.config.clean_file_forcibly_enable and self.clean_immediately
        segments = [(m.file.name, m.file_from_offset) for m in self.commit_log.mapped_file_queue.mapped_files]
        # Java: CommitLog#deleteExpiredFile, which only forwards to MappedFileQueue#deleteExpiredFileByTime.
        deleted = self.commit_log.mapped_file_queue.delete_expired_file_by_time(
            self.config.file_reserved_time * HOUR_MS,
            self.config.delete_commit_log_files_interval,
            self.config.destroy_maped_file_interval_forcibly,
            clean_at_once,
        )
        if deleted:
            self._log_deleted(
                segments[:deleted], segments[deleted][1] if deleted < len(segments) else -1, clean_at_once
            )
        self.runtime.trace_event(
            "CleanCommitLogService",
            "deleteExpiredFiles",
            timeup=time_up,
            spacefull=space_to_delete,
            manualDeleteFileSeveralTimes=self.manual_delete_file_several_times,
            cleanAtOnce=clean_at_once,
            deleted=deleted,
        )
        return CleanCommitLogPass(time_up, space_to_delete, manual, clean_at_once, deleted)

    def _log_deleted(self, segments: list[tuple[str, int]], new_min_offset: int, forced: bool) -> None:
        """Log the deleted segments and the CommitLog offsets gone with them (Java logs each file to store.log).

        A forced deletion (the disk above ``diskSpaceCleanForciblyRatio``) may take messages no group has consumed
        yet; it is logged as a warning naming the files and the offset range lost (HARD-9).
        """
        names = ", ".join(name for name, _ in segments)
        lost = f"CommitLog offsets {segments[0][1]}..{new_min_offset if new_min_offset >= 0 else 'end'}"
        if forced:
            _LOG.warning(
                "disk full: deleted %d CommitLog file(s) regardless of age: %s (%s)", len(segments), names, lost
            )
        else:
            _LOG.info("deleted %d expired CommitLog file(s): %s (%s)", len(segments), names, lost)

    def redelete_hanged_file(self) -> bool:
        """At most every ``redeleteHangedFileInterval`` (120 s), retry destroying a first segment left hanging.

        A segment still held by a reader when it was destroyed stays listed but unavailable; the retry forces it
        once ``destroyMapedFileIntervalForcibly`` (120 s) has passed since the first attempt.

        Java: CleanCommitLogService#redeleteHangedFile
        """
        now = self.runtime.now_ms()
        if now - self.last_redelete_timestamp <= self.config.redelete_hanged_file_interval:
            return False
        self.last_redelete_timestamp = now
        return self.commit_log.mapped_file_queue.retry_delete_first_file(
            self.config.destroy_maped_file_interval_forcibly
        )

    # -- triggers ------------------------------------------------------------------------------------------------
    def local_hour(self) -> int:
        """The hour of day (0-23) on the runtime's clock, in the runtime's time zone (Java: the JVM's default)."""
        return datetime.fromtimestamp(self.runtime.now_ms() / 1000, self.runtime.tz).hour

    def is_time_to_delete(self) -> bool:
        """Whether the local hour is one of ``deleteWhen``'s (``"04"``, or several joined by ``;``).

        Java: CleanCommitLogService#isTimeToDelete → UtilAll#isItTimeToDo
        """
        return is_it_time_to_do(self.config.delete_when, self.local_hour())

    def is_space_to_delete(self) -> bool:
        """Measure the CommitLog disk, then the ConsumeQueue disk; set the disk flags and ``clean_immediately``.

        For each directory in turn: above the warning ratio (0.90) the store is marked disk-full and files will go
        regardless of age; above the forced ratio (0.85) only the latter; otherwise the disk-full mark is cleared.
        Then, if the ratio exceeds ``diskMaxUsedSpaceRatio`` % or could not be measured (-1), the answer is yes at
        once (so the ConsumeQueue directory is only looked at when the CommitLog one is below that limit).

        Java: CleanCommitLogService#isSpaceToDelete
        """
        ratio = self.config.get_disk_max_used_space_ratio() / 100.0
        self.clean_immediately = False
        for where, path in (("commitlog", self.store_path_physic), ("consumequeue", self.store_path_logics)):
            used = self.disk_used_ratio(path)
            self._check_levels(used, where)
            if used < 0 or used > ratio:
                return True
        return False

    def _check_levels(self, used: float, where: str) -> None:
        if used > self.disk_space_warning_level_ratio:
            self._mark_disk_full(used, where)
            self.clean_immediately = True
        elif used > self.disk_space_clean_forcibly_ratio:
            self.clean_immediately = True
        else:
            self._mark_disk_ok(used, where)

    def calc_store_path_physic_ratio(self) -> float:
        """Used fraction of the CommitLog's disk, -1 if the directory is missing.

        Java: CleanCommitLogService#calcStorePathPhysicRatio (one directory here; Java takes the minimum over all)
        """
        return self.disk_used_ratio(self.store_path_physic)

    def is_space_full(self) -> bool:
        """The 10-second disk check: mark the store disk-full above the warning ratio, disk-OK otherwise.

        Java: CleanCommitLogService#isSpaceFull
        """
        used = self.calc_store_path_physic_ratio()
        if used > self.disk_space_warning_level_ratio:
            self._mark_disk_full(used, "commitlog")
            return True
        self._mark_disk_ok(used, "commitlog")
        return False

    def disk_used_ratio(self, path: Path) -> float:
        """Used fraction (0..1, rounded up to 0.01) of the disk holding ``path``; -1 when ``path`` does not exist.

        Java: UtilAll#getDiskPartitionSpaceUsedPercent(String) (the sizes come from ``runtime.disk``)
        """
        if not path.exists():
            return -1.0
        space = self.runtime.disk.space(path)
        return get_disk_partition_space_used_percent(space.total, space.free, space.usable)

    def _mark_disk_full(self, used: float, where: str) -> None:
        was_full = bool(self.running_flags.flag_bits & DISK_FULL_BIT)
        self.running_flags.get_and_make_disk_full()
        if not was_full:
            self.runtime.trace_event("CleanCommitLogService", "diskFull", disk=where, ratio=used)

    def _mark_disk_ok(self, used: float, where: str) -> None:
        was_full = bool(self.running_flags.flag_bits & DISK_FULL_BIT)
        self.running_flags.get_and_make_disk_ok()
        if was_full:
            self.runtime.trace_event("CleanCommitLogService", "diskOK", disk=where, ratio=used)
