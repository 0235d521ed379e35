"""One ingest pass: find the logs, read their complete new lines, commit batches.

Used by `moraine index` (one pass), by `moraine mcp` before answering (catch-up), and by
the daemon's watcher. Each batch is one WAL frame carrying its files' checkpoints.
"""

from __future__ import annotations

import copy
import fnmatch
import os
import sys
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path

from moraine.ingest.checkpoint import Checkpoint
from moraine.ingest.tailer import complete_lines, needs_reset
from moraine.model import Event, IngestIssue
from moraine.sources import ADAPTERS, Adapter, normalize_line
from moraine.sources._common import LineRef
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
    excludes = store.config.ingest.exclude
    for source in store.config.sources:
        if not source.enabled:
            continue
        root = Path(source.root).expanduser()
        if not root.is_dir():
            missing.append(str(root))
            continue
        adapter = ADAPTERS[source.harness]
        for path in sorted(root.glob(adapter.pattern)):
            text = str(path)
            if path.is_file() and not any(fnmatch.fnmatch(text, pat) for pat in excludes):
                found.append((text, adapter))
    return found, missing


class _Batch:
    def __init__(self) -> None:
        self.events: list[Event] = []
        self.issues: list[IngestIssue] = []
        self.checkpoints: dict[str, Checkpoint] = {}


def ingest_once(store: Store, progress: Progress | None = None) -> IngestSummary:
    """Catch up every configured log; safe to run concurrently from several processes."""
    started = time.monotonic()
    summary = IngestSummary()
    with store.writer():
        files, summary.roots_missing = discover(store)
        summary.files_seen = len(files)
        work = _changed(store, files)
        total = sum(size - cp.offset for _, _, cp, size in work)
        batch = _Batch()
        done = 0
        for path, adapter, checkpoint, _size in work:
            summary.files_read += 1
            for consumed in _read_file(store, path, adapter, checkpoint, batch, summary):
                done += consumed
                if progress:
                    progress(done, total)
        _flush(store, batch, summary)
    summary.seconds = time.monotonic() - started
    return summary


def _changed(store: Store, files: Iterable[tuple[str, Adapter]]) -> list[tuple[str, Adapter, Checkpoint, int]]:
    work = []
    for path, adapter in files:
        try:
            stat = os.stat(path)
        except OSError:
            continue
        checkpoint = store.checkpoints.get(path)
        if checkpoint is None:
            checkpoint = Checkpoint(adapter.name, stat.st_ino, 0, 1, 0, 0, adapter.initial_state(path))
        else:
            checkpoint = copy.deepcopy(checkpoint)
            if needs_reset(checkpoint, stat):
                checkpoint = Checkpoint(adapter.name, stat.st_ino, 0, checkpoint.generation + 1, 0, 0,
                                        adapter.initial_state(path))
            elif stat.st_size == checkpoint.offset:
                continue
        checkpoint.inode = stat.st_ino
        work.append((path, adapter, checkpoint, stat.st_size))
    return work


def _read_file(store: Store, path: str, adapter: Adapter, checkpoint: Checkpoint, batch: _Batch,
               summary: IngestSummary) -> Iterable[int]:
    limit = store.config.ingest.batch_events
    for line in complete_lines(path, checkpoint.offset, checkpoint.line):
        ref = LineRef(path, checkpoint.generation, line.number, line.offset)
        events, issue = normalize_line(adapter, line.raw, ref, checkpoint.state)
        batch.events.extend(events)
        if issue:
            batch.issues.append(issue)
        consumed = line.end - checkpoint.offset
        checkpoint.offset, checkpoint.line = line.end, line.number
        checkpoint.size = max(checkpoint.size, line.end)
        summary.bytes_read += consumed
        batch.checkpoints[path] = checkpoint
        if len(batch.events) >= limit:
            batch.checkpoints[path] = copy.deepcopy(checkpoint)
            _flush(store, batch, summary)
        yield consumed
    batch.checkpoints[path] = checkpoint


def _flush(store: Store, batch: _Batch, summary: IngestSummary) -> None:
    if not (batch.events or batch.issues or batch.checkpoints):
        return
    store.commit(batch.events, batch.issues, batch.checkpoints)
    summary.events += len(batch.events)
    summary.issues += len(batch.issues)
    batch.events, batch.issues, batch.checkpoints = [], [], {}


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
