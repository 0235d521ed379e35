"""One ingest pass: find the logs, read their complete new lines, commit batches.

Used by `moraine index` (one pass), by `moraine mcp` before answering (catch-up), and by
the daemon's watcher. Each batch is one WAL frame carrying its files' checkpoints.
"""

from __future__ import annotations

import copy
import gc
import multiprocessing
import os
import sys
import time
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from moraine.ingest.checkpoint import Checkpoint
from moraine.ingest.tailer import complete_lines, needs_reset, record_head
from moraine.sources import ADAPTERS, Adapter, normalize_line
from moraine.sources._common import LineRef
from moraine.store.contents import pack_rows
from moraine.store.engine import Store

Progress = Callable[[int, int], None]


@dataclass
class IngestSummary:
    files_seen: int = 0
    files_read: int = 0
    events: int = 0
    issues: int = 0
    bytes_read: int = 0
    seconds: float = 0.0
    roots_missing: list[str] = field(default_factory=list)

    def as_dict(self) -> dict[str, object]:
        return {k: getattr(self, k) for k in self.__dataclass_fields__}


def discover(store: Store) -> tuple[list[tuple[str, Adapter]], list[str]]:
    """Every log file under the enabled source roots, minus the exclude globs."""
    found: list[tuple[str, Adapter]] = []
    missing: list[str] = []
    for source in store.config.sources:
        if not source.enabled:
            continue
        root = Path(source.root).expanduser()
        if not root.is_dir():
            missing.append(str(root))
            continue
        adapter = ADAPTERS[source.harness]
        found.extend((path, adapter) for path in store.discovery.files(str(root), store.config.ingest.exclude))
    return found, missing


# A pass bigger than this is normalized in a worker process while this one indexes:
# parsing/redaction and indexing then run on two cores instead of one.
PARALLEL_BYTES = 8 * 1024 * 1024

# path, events (wire rows), issues, checkpoint, bytes read, each event's row packed with msgpack
Part = tuple[str, list[list[Any]], list[list[Any]], list[Any], int, list[bytes]]


def normalize_file(task: tuple[str, str, list[Any], int]) -> list[Part]:
    """Read a file's complete new lines and normalize them (pure of the Store: runs anywhere).

    Returns parts of at most `limit` events, each with the checkpoint reached at its end,
    so every WAL frame carries exactly the checkpoint its events cover. Rows also come
    packed as the catalog stores them: packing here, in a worker, takes that work off the
    indexing process, which is the one that bounds a bulk pass.
    """
    path, adapter_name, checkpoint_wire, limit = task
    adapter = ADAPTERS[adapter_name]
    checkpoint = Checkpoint.from_wire(checkpoint_wire)
    state = checkpoint.adapter_state()
    parts: list[Part] = []
    events: list[list[Any]] = []
    issues: list[list[Any]] = []
    start = checkpoint.offset
    for line in complete_lines(path, checkpoint.offset, checkpoint.line):
        ref = LineRef(path, checkpoint.generation, line.number, line.offset)
        new, issue = normalize_line(adapter, line.raw, ref, state)
        events.extend(e.to_wire() for e in new)
        if issue:
            issues.append(issue.to_wire())
        checkpoint.offset, checkpoint.line = line.end, line.number
        if len(events) >= limit:
            # Mid-file, the size seen means nothing yet: record size = offset, so if a later
            # frame is lost in a crash the next pass reads the rest again.
            record_head(path, checkpoint)
            middle = copy.deepcopy(checkpoint)
            middle.size = checkpoint.offset
            parts.append((path, events, issues, middle.to_wire(), checkpoint.offset - start, pack_rows(events)))
            events, issues, start = [], [], checkpoint.offset
    checkpoint.size = max(checkpoint.size, checkpoint.offset)
    record_head(path, checkpoint)
    parts.append((path, events, issues, checkpoint.to_wire(), checkpoint.offset - start, pack_rows(events)))
    return parts


FULL_SWEEP_S = 2.0  # a quick catch-up re-stats every log at least this often
RECENT_S = 3600.0  # logs modified within this window count as live: stat-ed on every catch-up


def catch_up(store: Store) -> IngestSummary:
    """The catch-up before an MCP answer: new files and live logs (modified in the last hour)
    every time, every other log at most every FULL_SWEEP_S seconds. Stat-ing thousands of
    dormant logs per call would cost more than the query; a dormant session that resumes is
    seen within FULL_SWEEP_S."""
    now = time.monotonic()
    if now - store.last_sweep >= FULL_SWEEP_S:
        store.last_sweep = now
        return ingest_once(store)
    return ingest_once(store, live_only=True)


def ingest_once(store: Store, progress: Progress | None = None, *, parallel: bool | None = None,
                live_only: bool = False, snapshot: bool = False, only: set[str] | None = None) -> IngestSummary:
    """Catch up every configured log; safe to run concurrently from several processes.

    A snapshot is published whenever `store.snapshot_events` accumulated in the WAL, and at
    the end with `snapshot` (a one-shot `moraine index`), so a restart maps it instead of
    replaying a long WAL."""
    started = time.monotonic()
    summary = IngestSummary()
    with store.writer():
        files, summary.roots_missing = discover(store)
        summary.files_seen = len(files)
        if only is not None:  # the daemon's watcher names the files that changed
            files = [f for f in files if f[0] in only]
        if live_only:
            horizon = time.time() - RECENT_S
            files = [f for f in files if f[0] not in store.checkpoints or store.mtimes.get(f[0], 0.0) >= horizon]
        work = _changed(store, files)
        total = sum(size - cp.offset for _, _, cp, size in work)
        limit = store.config.ingest.batch_events
        tasks = [(path, adapter.name, cp.to_wire(), limit) for path, adapter, cp, _ in work]
        summary.files_read = len(tasks)
        use_pool = parallel if parallel is not None else (total >= PARALLEL_BYTES and (os.cpu_count() or 1) > 1)
        pending = _Pending()
        done = 0
        for parts in _normalized(tasks, use_pool, store.config.ingest.workers):
            for part in parts:
                pending.add(part, limit, store, summary)
                done += part[4]
                summary.bytes_read += part[4]
                if progress:
                    progress(done, total)
        pending.flush(store, summary)
        store.lag_bytes = 0  # every complete line seen in this pass is now indexed
        if snapshot and (store.frames_since_snapshot or store.manifest is None):
            store.publish()
        else:
            store.maybe_publish()
    # The catalog holds millions of long-lived objects; keep them out of the cyclic GC's
    # full collections, which otherwise stall a query now and then for tens of ms.
    gc.freeze()
    summary.seconds = time.monotonic() - started
    return summary


def _normalized(tasks: list[tuple[str, str, list[Any], int]], use_pool: bool, workers: int
                ) -> Iterator[list[Part]]:
    """Normalized parts in task order; with a pool, the worker runs ahead of the indexer."""
    if not use_pool:
        yield from map(normalize_file, tasks)
        return
    context = multiprocessing.get_context("spawn")
    with ProcessPoolExecutor(max_workers=workers, mp_context=context) as pool:
        yield from pool.map(normalize_file, tasks, chunksize=4)


def _changed(store: Store, files: Iterable[tuple[str, Adapter]]) -> list[tuple[str, Adapter, Checkpoint, int]]:
    """Files with new bytes, each with the checkpoint to resume from (a new generation when
    the file was replaced or truncated)."""
    work = []
    for path, adapter in files:
        try:
            stat = os.stat(path)
        except OSError:
            continue
        store.mtimes[path] = stat.st_mtime
        checkpoint = store.checkpoints.get(path)
        if checkpoint is None:
            checkpoint = Checkpoint(adapter.name, stat.st_ino, 0, 1, 0, 0, adapter.initial_state(path))
        elif needs_reset(checkpoint, stat, path if stat.st_size != checkpoint.size else None):
            checkpoint = Checkpoint(adapter.name, stat.st_ino, 0, checkpoint.generation + 1, 0, 0,
                                    adapter.initial_state(path))
        elif stat.st_size == checkpoint.size:
            continue  # no new bytes (a half-written last line waits without a re-read)
        else:
            checkpoint = copy.deepcopy(checkpoint)
        checkpoint.inode = stat.st_ino
        checkpoint.size = stat.st_size
        work.append((path, adapter, checkpoint, stat.st_size))
    return work


class _Pending:
    """Parts waiting to become one WAL frame (several small files share a frame)."""

    def __init__(self) -> None:
        self.events: list[list[Any]] = []
        self.packed: list[bytes] = []
        self.issues: list[list[Any]] = []
        self.checkpoints: dict[str, list[Any]] = {}

    def add(self, part: Part, limit: int, store: Store, summary: IngestSummary) -> None:
        path, events, issues, checkpoint, _, packed = part
        self.events.extend(events)
        self.packed.extend(packed)
        self.issues.extend(issues)
        self.checkpoints[path] = checkpoint
        if len(self.events) >= limit:
            self.flush(store, summary)

    def flush(self, store: Store, summary: IngestSummary) -> None:
        if not (self.events or self.issues or self.checkpoints):
            return
        store.commit(self.events, self.issues, self.checkpoints, packed=self.packed)
        summary.events += len(self.events)
        summary.issues += len(self.issues)
        self.events, self.packed, self.issues, self.checkpoints = [], [], [], {}
        store.maybe_publish()


def terminal_progress(label: str) -> Progress | None:
    """A progress bar on stderr when it is a terminal; silent otherwise."""
    if not sys.stderr.isatty():
        return None
    last = [0.0]

    def show(done: int, total: int) -> None:
        now = time.monotonic()
        if now - last[0] < 0.1 and done < total:
            return
        last[0] = now
        frac = done / total if total else 1.0
        bar = "#" * int(frac * 30)
        sys.stderr.write(f"\r{label} [{bar:<30}] {frac:6.1%} {done / 1e6:8.1f}/{total / 1e6:.1f} MB")
        if done >= total:
            sys.stderr.write("\n")
        sys.stderr.flush()

    return show
