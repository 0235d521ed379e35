"""One ingest pass: find the logs, read their complete new lines, commit batches.

Used by `moraine index` (one pass), by `moraine mcp` before answering (catch-up), and by
the daemon's watcher. Each batch is one WAL frame carrying its files' checkpoints.
"""

from __future__ import annotations

import fnmatch
import heapq
import os
import sys
import threading
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from moraine.collector import freeze_held, sparse_collections
from moraine.ingest.changes import changed_logs
from moraine.ingest.checkpoint import pending_bytes
from moraine.ingest.normalize import (
    Part,
    Task,
    Work,
    normalize_tasks,
    pool_serves,
    whole_parts,
)
from moraine.ingest.state import NEWEST_LOGS, ingest_state
from moraine.ingest.whole import claim, delta, release
from moraine.model import Checkpoint
from moraine.redaction.structured import REDACTED_PATH, display_path, path_key
from moraine.sources import ADAPTERS, Adapter
from moraine.store.batch import Batch
from moraine.store.engine import Store

Progress = Callable[[int, int], None]


@dataclass
class IngestSummary:
    files_seen: int = 0
    files_read: int = 0
    events: int = 0
    issues: int = 0
    bytes_read: int = 0
    left: list[str] = field(default_factory=list)  # the logs a slice left unread, for the next one
    seconds: float = 0.0
    roots_missing: list[str] = field(default_factory=list)

    @property
    def cut(self) -> bool:
        """A slice ended before every new line was read: a later pass reads them."""
        return bool(self.left)

    def as_dict(self) -> dict[str, object]:
        return {k: getattr(self, k) for k in self.__dataclass_fields__}


def discover(store: Store) -> tuple[list[tuple[str, Adapter]], list[str]]:
    """Every log file under the enabled source roots, minus the exclude globs."""
    found: list[tuple[str, Adapter]] = []
    missing: list[str] = []
    ingest = store.config.ingest
    for source in store.config.sources:
        if not source.enabled:
            continue
        root = Path(source.root).expanduser()
        if not root.is_dir():
            if not source.optional:  # a harness not installed here is not a missing root
                missing.append(str(root))
            continue
        adapter = ADAPTERS[source.harness]
        paths = ingest_state(store).discovery.files(str(root), ingest.exclude, ingest.follow_symlinks, adapter.suffixes,
                                      adapter.under)
        found.extend((path, adapter) for path in paths if adapter.accepts(path))
    return found, missing


def unread_bytes(store: Store) -> int:
    """Bytes of the logs not indexed yet: beyond each read log's checkpoint, and the whole of each
    log under the roots never read (a first index stopped half-way leaves most of them). A walk of
    the roots: for status, not for every call."""
    found, _ = discover(store)
    unseen = [path for path, _ in found
              if (key := path_key(path) or path) not in store.checkpoints and key not in store.forgotten]
    return pending_bytes(store.checkpoints) + pending_bytes({}, unseen)


def named(store: Store, paths: Iterable[str]) -> list[tuple[str, Adapter]]:
    """The logs among `paths` (files a watcher saw change), each with its harness, as a walk
    of the roots would find them; a symlink is left to the walk, which judges where it points."""
    ingest = store.config.ingest
    found: list[tuple[str, Adapter]] = []
    paths = sorted(set(paths))
    for source in store.config.sources:
        if not source.enabled:
            continue
        root = str(Path(source.root).expanduser()).rstrip("/") + "/"
        adapter = ADAPTERS[source.harness]
        for path in paths:
            if not path.startswith(root) or not path.endswith(adapter.suffixes) or not adapter.accepts(path):
                continue
            rel = path[len(root):]
            if adapter.under is not None and "/" in rel and not rel.startswith(tuple(u + "/" for u in adapter.under)):
                continue
            if any(fnmatch.fnmatch(path, pattern) for pattern in ingest.exclude) or os.path.islink(path):
                continue
            found.append((path, adapter))
    return found


def on_disk(store: Store, keys: Iterable[str]) -> dict[str, bool]:
    """Whether each log (by its key) is still on disk. A redacted key names no real path, so
    those are looked up among the files a discovery walk finds now."""
    keys = list(keys)
    present: set[str] | None = None
    result = {}
    for key in keys:
        if key.startswith(REDACTED_PATH):
            if present is None:
                present = {path_key(path) or "" for path, _ in discover(store)[0]}
            result[key] = key in present
        else:
            result[key] = os.path.exists(key)
    return result


def _file_problems(store: Store, files: list[tuple[str, Adapter]]) -> tuple[list[tuple[str, str, Adapter]],
                                                                            dict[str, str]]:
    """Each file with the key it goes by in the state, and every file that cannot be read
    (by its display name) with the reason; a name that is not valid UTF-8 is one of those."""
    keyed: list[tuple[str, str, Adapter]] = []
    problems = {display_path(path): reason for path, reason in ingest_state(store).discovery.problems.items()}
    known = store.checkpoints
    for path, adapter in files:
        # a path the state already holds as a key was clean when first read (a redacted key is
        # never the raw path): no redaction pass over 30k paths after a restart
        key = path if path in known else path_key(path)
        if key is None:
            problems[display_path(path)] = "file name is not valid UTF-8: not read (rename the file to index it)"
        else:
            keyed.append((path, key, adapter))
    return keyed, problems


# A sliced pass reads this many bytes of its smallest logs whatever the time (about 0.15 s of
# lines that are all junk, a few ms of real ones).
SLICE_FLOOR_BYTES = 64 * 1024

FULL_SWEEP_S = 2.0  # a quick catch-up re-stats every log at least this often
RECENT_S = 3600.0  # logs modified within this window count as live: stat-ed on every catch-up


def catch_up(store: Store) -> IngestSummary:
    """The catch-up before an MCP answer: new files and live logs (modified in the last hour)
    every time, every other log at most every FULL_SWEEP_S seconds. Stat-ing thousands of
    dormant logs per call would cost more than the query; a dormant session that resumes is
    seen within FULL_SWEEP_S."""
    now = time.monotonic()
    ingest = ingest_state(store)
    if now - ingest.last_sweep >= FULL_SWEEP_S:
        ingest.last_sweep = now
        return ingest_once(store)
    return ingest_once(store, live_only=True)


def ingest_once(store: Store, progress: Progress | None = None, *, parallel: bool | None = None,
                live_only: bool = False, snapshot: bool = False, only: set[str] | None = None,
                slice_s: float | None = None, wait: float | None = None, defer_bytes: int | None = None
                ) -> IngestSummary:
    """Catch up every configured log; safe to run concurrently from several processes.

    A snapshot is published whenever `store.snapshot_events` accumulated in the WAL, and at
    the end with `snapshot` (a one-shot `moraine index`), so a restart maps it instead of
    replaying a long WAL. The daemon's passes are slices: with `slice_s`, a pass holds the
    writer lock about that long, then stops at a line's end (the logs it left are in
    `summary.left`, for the next slice), and it waits at most `wait` seconds for another
    pass's writer lock (WriterBusy); so no log, however large or full of junk, holds the
    lock, or a tool call waiting on it, for longer than a slice."""
    started = time.monotonic()
    summary = IngestSummary()
    with store.writer(wait=wait), sparse_collections():
        # The daemon's watcher names the files that changed: only those are looked at (no walk).
        found, summary.roots_missing = discover(store) if only is None else (named(store, only), [])
        summary.files_seen = len(found)
        files, problems = _file_problems(store, found)
        if live_only:
            horizon, mtimes = time.time() - RECENT_S, ingest_state(store).mtimes
            files = [f for f in files if f[1] not in store.checkpoints or mtimes.get(f[1], 0.0) >= horizon]
        work = changed_logs(store, files, problems)
        work, whole = _apart(work)  # logs read whole: read after this section, outside the writer lock
        _note_newest(store, files, walked=only is None and not live_only)
        limit = store.config.ingest.batch_events
        deadline = 0.0 if slice_s is None else time.monotonic() + slice_s
        now = [w for w in work if defer_bytes is None or w[4] - w[3].offset < defer_bytes]  # the rest is left
        tasks, sizes = _tasks(now, limit, deadline)
        total = sum(sizes) + sum(size for *_, size in whole)
        summary.files_read = len(tasks) + len(whole)
        use_pool = pool_serves(now, sizes, slice_s, parallel)
        pending = _Pending()
        docs_before = store.index.n_docs
        # A pass with at least as many new bytes as the index holds builds it, and ends merging
        # its segments into one: merging on the way would rewrite each posting several times.
        bulk = slice_s is None and use_pool and total >= sum(cp.offset for cp in store.checkpoints.values())
        store.defer_merges = BULK_SEGMENTS if bulk else 0
        normalized = normalize_tasks(tasks, sizes, use_pool, store.config.ingest.workers)
        try:
            _index_parts(store, tasks, normalized, pending, summary, problems, (progress, total))
            pending.file_issues = _file_issue_changes(store, problems, {key for _, key, _ in files},
                                                      {key for _, key, _, _, _ in work},
                                                      walked=only is None and not live_only)
            pending.flush(store, summary)
        finally:
            normalized.close()
            store.defer_merges = 0
        summary.left = _left(store, work, problems)
        if not summary.cut:
            ingest_state(store).lag_bytes = 0  # every complete line seen in this pass is now indexed
        built = bulk or (slice_s is None and use_pool and store.index.n_docs >= 2 * docs_before)
        if not whole or only is not None or live_only:
            _publish(store, snapshot, built=built)
    if whole:  # a full pass waits for them; a catch-up (a call's, the watcher's) only a moment
        _read_whole_logs(store, whole, summary, None if only is None and not live_only else WHOLE_WAIT_S,
                         (snapshot, built), (progress, total - sum(size for *_, size in whole), total))
    # The catalog holds millions of long-lived objects; keep them out of the cyclic GC's
    # full collections, which otherwise stall a query now and then for tens of ms.
    freeze_held()
    summary.seconds = time.monotonic() - started
    if progress and total and summary.bytes_read < total:
        progress(total, total)  # a bar ends whole, its line ended (bytes left to a later pass count as done)
    return summary


def _index_parts(store: Store, tasks: list[Task], normalized: Iterable[list[Part]], pending: _Pending,
                 summary: IngestSummary, problems: dict[str, str], shown: tuple[Progress | None, int]) -> None:
    """Each log's parts (`normalized`, one list per task) into the pending frame (committed
    every batch of events); a slice stops after a log whose task's deadline passed."""
    progress, total = shown
    limit = store.config.ingest.batch_events
    for task, parts in zip(tasks, normalized, strict=True):
        for part in parts:
            if part.problem is not None:
                problems[part.key] = part.problem
            pending.add(part, limit, store, summary)
            summary.bytes_read += part.read
            if progress:
                progress(summary.bytes_read, total)
        if task.deadline and time.monotonic() > task.deadline:
            return  # the slice is spent: the logs not read to their end are the next one's


def _tasks(work: list[Work], limit: int, deadline: float) -> tuple[list[Task], list[int]]:
    """One task per log read by lines (each to stop at `deadline`, 0: none), and the new bytes
    each holds. A slice reads the logs with the fewest new bytes first, and the first
    SLICE_FLOOR_BYTES of them whatever the time: an agent's own new line is read before a
    large or junk log's backlog, on a loaded machine too."""
    sizes = [size - cp.offset for _, _, _, cp, size in work]
    if not deadline:
        return [Task(path, key, adapter.name, cp, limit) for path, key, adapter, cp, _ in work], sizes
    order = sorted(range(len(work)), key=sizes.__getitem__)
    tasks, floor = [], SLICE_FLOOR_BYTES
    for i in order:
        path, key, adapter, cp, _ = work[i]
        floor -= sizes[i]
        tasks.append(Task(path, key, adapter.name, cp, limit, deadline if floor < 0 else 0.0))
    return tasks, [sizes[i] for i in order]


def _left(store: Store, work: list[Work], problems: dict[str, str]) -> list[str]:
    """The logs a sliced pass did not read to the size it saw (a log it could not read is not
    left: its problem is noted, and the next change or walk tries it again)."""
    left = []
    for path, key, _, _, size in work:
        reached = store.checkpoints.get(key)
        if key not in problems and (reached is None or reached.size < size):
            left.append(path)
    return left


def _apart(work: list[Work]) -> tuple[list[Work], list[Work]]:
    """The logs read by lines, and those read whole."""
    return [w for w in work if not w[2].whole(w[0])], [w for w in work if w[2].whole(w[0])]


WHOLE_WAIT_S = 0.1  # how long a catch-up pass waits for the logs read whole it found changed


def _read_whole_logs(store: Store, whole: list[Work], summary: IngestSummary, wait: float | None,
                     publish: tuple[bool, bool], shown: tuple[Progress | None, int, int]) -> None:
    """Read the logs read whole, outside the writer lock (`_WholeReader`). A full pass waits
    for them and ends as `ingest_once` does; a catch-up waits at most `wait` seconds: a read
    still going on then (a large document, a database slow to answer) finishes by itself in
    the background, so neither a tool call nor the watcher's next pass waits on it."""
    reader = _WholeReader(store, whole, summary if wait is None else IngestSummary(), shown,
                          follow=wait is not None)
    if wait is None:
        reader.run()
        with store.writer(), sparse_collections():
            _publish(store, *publish)
        return
    thread = threading.Thread(target=reader.run, name="moraine-whole-read", daemon=True)
    thread.start()
    thread.join(wait)


class _WholeReader:
    """Reads logs read whole, one pass per log at a time (`claim`: a log another thread is
    reading now is left to it), committing about every batch of events with the writer lock
    held only for the commit, then their per-file issues. With `follow`, a log that changed
    while it was read is read again, so what a skipped pass would have read is not lost."""

    def __init__(self, store: Store, whole: list[Work], summary: IngestSummary,
                 shown: tuple[Progress | None, int, int], *, follow: bool) -> None:
        self.store, self.whole, self.summary, self.follow = store, whole, summary, follow
        self.progress, self.done, self.total = shown
        self.pending = _Pending()
        self.limit = store.config.ingest.batch_events

    def run(self) -> None:
        store = self.store
        mine = [w for w in self.whole if claim(store, w[1])]
        held = {w[1] for w in mine}
        try:
            while mine:
                problems = self._read(mine)
                keys = {w[1] for w in mine}
                with store.writer(), sparse_collections():
                    self.pending.file_issues = _file_issue_changes(store, problems, keys, keys, walked=False)
                    self.pending.flush(store, self.summary)
                    moved = self._moved(mine) if self.follow else []
                done = keys - {w[1] for w in moved}
                release(store, sorted(done))
                held -= done
                mine = moved
        except Exception as exc:  # in the background: said in the log; the next pass reads the log again
            if not self.follow:
                raise
            print(f"moraine: reading a log failed: {type(exc).__name__}: {exc}", file=sys.stderr)
        finally:
            release(store, sorted(held))

    def _read(self, logs: list[Work]) -> dict[str, str]:
        problems: dict[str, str] = {}
        waiting: list[Part] = []
        for path, key, adapter, checkpoint, _ in logs:
            for part in whole_parts(path, key, adapter.name, checkpoint):
                waiting.append(part)
                if part.problem is not None:
                    problems[key] = part.problem
                if sum(len(p.batch) for p in waiting) >= self.limit:
                    self._commit(waiting)
                    waiting = []
        self._commit(waiting)
        return problems

    def _commit(self, parts: list[Part]) -> None:
        if not parts:
            return
        with self.store.writer(), sparse_collections():
            for part in parts:
                self.pending.add(part, self.limit, self.store, self.summary)
                self.done += part.read
                self.summary.bytes_read += part.read
                if self.progress:
                    self.progress(self.done, self.total)
            self.pending.flush(self.store, self.summary)

    def _moved(self, logs: list[Work]) -> list[Work]:
        """The logs whose change token moved since they were read."""
        return changed_logs(self.store, [(path, key, adapter) for path, key, adapter, _, _ in logs], {})


def _publish(store: Store, snapshot: bool, built: bool) -> None:
    """End a pass: publish if asked (or due); and when the pass built most of the index (a
    backfill, `moraine index`, a reindex), merge its segments into one first. A query pays
    per segment it reads: at 1M events the four segments the usual merges leave answered in
    4.6 / 24 ms (P50 / P95) what one answers in 2.9 / 18 ms; the merge takes ~5 s."""
    if built:
        store.merge_all()
    if snapshot and (store.frames_since_snapshot or store.manifest is None):
        store.publish()
    else:
        store.maybe_publish()


def _note_newest(store: Store, files: list[tuple[str, str, Adapter]], walked: bool) -> None:
    """Keep the logs written last: after a walk, the NEWEST_LOGS of newest mtime; after a pass
    over the files a watcher named, those first."""
    ingest = ingest_state(store)
    if walked:
        newest = heapq.nlargest(NEWEST_LOGS, files, key=lambda f: ingest.mtimes.get(f[1], 0.0))
        ingest.newest = {log[0]: log for log in newest}
    elif files:
        ingest.note_written(files)


def moved_newest(store: Store) -> set[str]:
    """Those of the logs written last that hold something unread, by the test every pass makes
    (`changed_logs`: a stat each, a log read whole by its change token), so a call sees a write the
    watcher has not reported yet (its note travels through three threads; under load a call can
    arrive first)."""
    return {path for path, _, _, _, _ in changed_logs(store, list(ingest_state(store).newest.values()), {})}


def unread_new_logs(store: Store) -> set[str]:
    """The logs in the folders written to within RECENT_S that the state holds nothing of yet,
    found by stat-ing those folders (`Discovery.live`): with `moved_newest`, what a call reads
    before the watcher says. Judged by the state, not by the last listing: a log that a pass
    running now has listed but not committed still counts, so the call waits for that pass."""
    since = time.time_ns() - int(RECENT_S * 1e9)
    known, forgotten, issues = store.checkpoints, store.forgotten, store.file_issues
    unread = [path for path in ingest_state(store).discovery.live(since) if path not in known]
    return {path for path, _ in named(store, unread)
            if (key := path_key(path)) is not None and key not in known and key not in forgotten
            and key not in issues}


def _file_issue_changes(store: Store, problems: dict[str, str], listed: set[str], read: set[str], walked: bool
                        ) -> dict[str, str | None]:
    """What changed in the per-file issues: this pass's problems, minus the old ones it saw
    resolved (a file read to its end; after a walk, a link or name no longer reported). An
    issue of a file this pass did not look at (a watcher pass names only some files, a log read
    whole is another reader's) stays as it was."""
    changes: dict[str, str | None] = {k: v for k, v in problems.items() if store.file_issues.get(k) != v}
    for key in store.file_issues:
        if key not in problems and (key in read or (walked and key not in listed)):
            changes[key] = None
    return changes


# Segments a pass building the index lets accumulate before its publishes merge any: a query
# pays per segment it reads (see `_publish`), a merge rewrites every posting of its run.
BULK_SEGMENTS = 16
class _Pending:
    """Parts waiting to become one WAL frame (several small files share a frame)."""

    def __init__(self) -> None:
        self.batches: list[Batch] = []
        self.events = 0
        self.issues: list[list[Any]] = []
        self.checkpoints: dict[str, Checkpoint] = {}
        self.retire: list[str] = []  # IDs of events a log read whole no longer holds
        self.file_issues: dict[str, str | None] = {}  # the last frame of a pass carries their changes

    def add(self, part: Part, limit: int, store: Store, summary: IngestSummary) -> None:
        key, batch, checkpoint, replaces = part.key, part.batch, part.checkpoint, part.replaces
        if replaces is not None:
            batch, retire = delta(store, key, batch, replaces)
            self.retire.extend(retire)
        if len(batch):
            self.batches.append(batch)
            self.events += len(batch)
        self.issues.extend(part.issues)
        if checkpoint is not None:
            self.checkpoints[key] = checkpoint
        if self.events >= limit:
            self.flush(store, summary)

    def flush(self, store: Store, summary: IngestSummary) -> None:
        if not (self.events or self.issues or self.checkpoints or self.file_issues or self.retire):
            return
        extra: dict[str, Any] = {"file_issues": self.file_issues} if self.file_issues else {}
        if self.retire:
            extra["retire"] = self.retire
        store.commit(Batch.concat(self.batches), self.issues, self.checkpoints, extra)
        self.file_issues, self.retire = {}, []
        summary.events += self.events
        summary.issues += len(self.issues)
        self.batches, self.events, self.issues, self.checkpoints = [], 0, [], {}
        store.maybe_publish()
        freeze_held()  # what the store now holds lives as long as it: no collection need scan it again


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
