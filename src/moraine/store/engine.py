"""The Store facade: one write path (WAL frame → catalog + index), many readers.

Several processes may share a state directory (agent hosts each run `moraine mcp`): the
writer lock serialises appends, and every process first applies the frames others wrote
since it last looked, so all of them see one history and no event is applied twice.
"""

from __future__ import annotations

import fcntl
import os
import shutil
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from types import ModuleType
from typing import Any, Generic, TypeVar, cast

import numpy as np

from moraine.collector import loading
from moraine.config import Config
from moraine.errors import MoraineError, StateError, WriterBusy
from moraine.index.searcher import Hits, InvertedIndex
from moraine.model import EVENT_TYPES, ROW_FORMAT, TYPE_CODE, Checkpoint, IngestIssue
from moraine.redaction.redact import rules_fingerprint
from moraine.store import apply, snapshot
from moraine.store.batch import Batch
from moraine.store.catalog import Catalog
from moraine.store.invariants import check_invariants
from moraine.store.publish import Publisher
from moraine.store.reading import Reader
from moraine.store.redactions import Redactions
from moraine.store.snapshot import Manifest, collect_garbage, current_manifest
from moraine.store.state import State, StoreStats
from moraine.store.validate import packable_frame, screen_frame
from moraine.store.wal import HEADER, Position, Wal, WalSet

T = TypeVar("T")
WRITER_LOCK = "lock"  # the file in the state's home whose flock orders the processes that write


def _framed(payload: dict[str, Any], batch: Batch) -> dict[str, Any]:
    """The payload as the WAL frames it: the batch in its wire form, absent when empty."""
    return {**payload, "batch": batch.to_wire()} if len(batch) else payload


class _Reload(Exception):
    """A WAL frame failed to apply midway: the in-memory state is rebuilt without it."""


class _InState(Generic[T]):
    """A Store attribute that is its current state's (`Store.state`): read and set there, so the
    callers of the Store need not know that a reload swaps the whole state."""

    def __set_name__(self, owner: type, name: str) -> None:
        self.name = name

    def __get__(self, store: Store, owner: type | None = None) -> T:
        return cast(T, getattr(store.state, self.name))

    def __set__(self, store: Store, value: T) -> None:
        setattr(store.state, self.name, value)


class Store:
    """State directory layout: see `store.snapshot` (CURRENT, generations, segments, content,
    columns, wal/) plus `lock`, the writer lock. It owns the WAL, the writer lock and the
    in-memory state (`store.state`), and does the writer's jobs through their modules: a frame
    applied (`store.apply`), a generation published (`store.publish`). What tools read of it:
    `store.read`, a `Reader` (sessions, turns, events, doc sets), with `search` here.

    It sets nothing for the process: the entry points do (`cli.own_process`: files private to
    the user, the redaction rules of `[redaction]`); the home directory is made private here all
    the same, so a state opened by any other caller stays unreadable to other users."""

    catalog = _InState[Catalog]()
    index = _InState[InvertedIndex]()
    checkpoints = _InState[dict[str, Checkpoint]]()
    stats = _InState[StoreStats]()
    manifest = _InState["Manifest | None"]()
    file_issues = _InState[dict[str, str]]()
    tombstones = _InState[set[str]]()
    forgotten = _InState[dict[str, int]]()
    tracked = _InState[list[list[Any]]]()
    redactions = _InState[Redactions]()
    position = _InState[Position]()
    events_since_snapshot = _InState[int]()
    frames_since_snapshot = _InState[int]()

    def __init__(self, config: Config, *, create: bool = True, busy: Callable[[float], object] | None = None) -> None:
        """`busy`: called with the seconds waited so far, about every 0.1 s, while another process
        holds the writer lock (a long indexing pass); it may raise to give up waiting."""
        self.config = config
        self.home = config.home
        _make_home(self.home, create)
        self.lock_path = self.home / WRITER_LOCK
        # Guards the in-memory state within a process: a daemon's ingest thread applies frames
        # while its connection threads search; the flock (`writer()`) orders processes.
        self.lock = threading.RLock()
        # WAL frames that failed to apply although screened (position → reason): skipped on
        # the reload that follows, and reported with the quarantine, until a snapshot covers them.
        self.bad_frames: dict[tuple[int, int], str] = {}
        self._writer_thread: int | None = None  # the thread inside `writer()`
        self.defer_merges = 0  # segments below which a publish merges none (set by a pass building the index)
        self.kernel: ModuleType | None = None  # the compiled window search, once loaded (`use_kernel`)
        self.publishing = False  # a publish is under way (see `publish`)
        self.state = self._empty()
        self.read = Reader(self)  # the read facade, over whichever state is current
        with self.writer(busy):
            self._reload()

    def _empty(self) -> State:
        return State((self.config.bm25.k1, self.config.bm25.b), self.kernel)

    def _reload(self) -> None:
        """The state loaded again in place (under the readers' lock when other threads read)."""
        self.state = self._loaded(self.lock)

    def _loaded(self, guard: threading.RLock) -> State:
        """A state loaded from the published snapshot and the WAL after it; each frame that fails
        to apply is marked and the load starts again without it. `guard`: the lock its sealing
        takes (the readers' when they read this state while it loads)."""
        for _ in range(1000):
            state = self._empty()
            try:
                with loading():
                    self._load(state, guard)
                return state
            except _Reload:
                continue
            except (MoraineError, OSError):
                raise
            except Exception as exc:  # a state this code cannot read: say so, and how to mend it
                raise StateError(f"{self.home}: the state cannot be opened ({type(exc).__name__}: {exc}); "
                                 "run `moraine doctor --repair` (it rebuilds the state from the logs)") from exc
        raise StateError(f"{self.home}: too many write-ahead log frames fail to apply; run `moraine reindex`")

    def _reload_aside(self) -> None:
        """Load the state again (another process's snapshot) into a fresh object, with the readers'
        lock free, then swap it in: at a million events a load takes seconds, which no tool call
        may wait for. Runs inside `writer()`, so nothing else changes the state meanwhile."""
        fresh = self._loaded(threading.RLock())  # its own lock: readers keep reading the old state meanwhile
        with self.lock:
            self.state = fresh
            fresh.index.kernel = self.kernel  # `use_kernel` may have run while the fresh state loaded

    def use_kernel(self, kernel: ModuleType | None) -> None:
        """Search with the compiled window search from now on (None: the numpy path), reloads included."""
        self.kernel = kernel
        self.index.kernel = kernel

    def _load(self, state: State, guard: threading.RLock) -> None:
        """The published snapshot (mapped, not re-read), then the WAL frames after it."""
        self.wal_set = WalSet(self.home / "wal", self.config.store.fsync)
        manifest = current_manifest(self.home)
        if manifest is not None:
            state.restore(self.home, manifest)
        self._collect_garbage(manifest)
        seqs = self.wal_set.seqs()
        first = manifest.wal_seq if manifest else seqs[0]
        if not seqs or seqs[0] > first or first not in seqs:
            raise StateError(f"write-ahead log {self.wal_set.path(first)} is missing: frames after the snapshot "
                             "are lost; run `moraine doctor --repair`")
        state.position = (first, len(HEADER))
        self._catch_up_wal(state, guard)

    def _collect_garbage(self, manifest: Manifest | None) -> None:
        if manifest is not None:
            collect_garbage(self.home, manifest)
            self.wal_set.remove_before(manifest.wal_seq)
        else:
            for name in ("segments", "content", *snapshot.SHARED):
                shutil.rmtree(self.home / name, ignore_errors=True)
            for path in self.home.glob("gen-*"):
                shutil.rmtree(path, ignore_errors=True)

    # -- writing ---------------------------------------------------------------------------

    @contextmanager
    def writer(self, busy: Callable[[float], object] | None = None, wait: float | None = None) -> Iterator[None]:
        """Exclusive writer lock; on entry, catch up with frames other processes appended.
        While another process holds it, `busy` is told how long this one has waited; with
        `wait`, WriterBusy after that many seconds."""
        fd = os.open(self.lock_path, os.O_RDWR | os.O_CREAT, 0o600)
        try:
            _lock(fd, busy, wait)
            self._writer_thread = threading.get_ident()
            if self.position[0] and self.position[0] not in self.wal_set.seqs():
                self._reload_aside()  # another process published and retired the WAL file this one read
            elif self.position[0]:
                with self.lock:
                    try:
                        self._catch_up_wal(self.state, self.lock)
                    except _Reload:
                        self._reload()
            start = self.position
            yield
            if self.config.store.fsync == "batch" and self.position != start:
                self.wal_set.open(self.position[0]).sync()  # one fsync per batch of frames
        finally:
            self._writer_thread = None
            fcntl.flock(fd, fcntl.LOCK_UN)
            os.close(fd)

    @property
    def writer_thread(self) -> int | None:
        """The ident of this process's thread inside `writer()`, if one is."""
        return self._writer_thread

    def _assert_writer(self) -> None:
        """What reads the state without `self.lock` relies on this thread being its only writer."""
        if self._writer_thread != threading.get_ident():
            raise RuntimeError("publishing or merging needs the writer lock: call it inside `writer()`")

    def _catch_up_wal(self, state: State, guard: threading.RLock) -> None:
        """Apply to `state` the frames appended since its position (by this process or another),
        across WAL files. The file at the position exists: `writer()` reloads first when another
        process's snapshot retired it (`_reload_aside`), and a load starts at a file it checked."""
        seqs = self.wal_set.seqs()
        seq, offset = state.position
        for number in [n for n in seqs if n >= seq]:
            wal = self.wal_set.open(number)
            start = offset if number == seq else len(HEADER)
            end = self._replay(state, guard, wal, start)
            state.position = (number, end)
            if number != seqs[-1] and wal.size() > end:
                raise StateError(f"{wal.path} is damaged at byte {end} (a closed WAL file must end with a whole "
                                 "frame); run `moraine doctor --repair` to salvage every intact frame")
        self._cut_torn_tail(state)

    def _cut_torn_tail(self, state: State) -> None:
        """Bytes after the last whole frame, seen under the lock, are a writer's crash mid-append:
        cut them before appending, or the next frame would land behind garbage."""
        wal = self.wal_set.open(state.position[0])
        end = state.position[1]
        if wal.size() > end:
            if wal.damaged_after(end):
                raise StateError(
                    f"{wal.path} is damaged at byte {end}: intact frames follow a bad one. Refusing to go on "
                    "rather than drop them; run `moraine doctor --repair` to salvage every intact frame."
                )
            state.stats.torn_bytes += wal.cut_tail(end)

    def commit(self, events: Batch | list[list[Any]], issues: list[list[Any]], checkpoints: dict[str, Checkpoint],
               extra: dict[str, Any] | None = None) -> None:
        """Append one frame (events + issues + the checkpoints they reach), then apply it.

        Events come as the parse workers emit them (a `Batch`, each event checked there) or as
        wire rows from anywhere else (screened here). Call inside `writer()`.
        """
        payload: dict[str, Any] = {"issues": issues, "at": int(time.time() * 1000),
                                   "checkpoints": {path: cp.to_wire() for path, cp in checkpoints.items()},
                                   "row_format": ROW_FORMAT}
        payload.update(extra or {})
        if isinstance(events, Batch):
            batch = events
        else:
            payload, rejected = screen_frame({**payload, "events": events}, "commit")
            payload["issues"] = [*payload.get("issues", []), *(i.to_wire() for i in rejected)]
            batch = payload.pop("batch")
        if len(batch):
            payload["rules"] = rules_fingerprint()  # what the events were redacted with
        seq, start = self.position
        try:
            end = self.wal_set.open(seq).append(_framed(payload, batch))
        except (OverflowError, ValueError, TypeError):  # unpackable: nothing was written
            payload, batch = packable_frame(payload, batch)
            end = self.wal_set.open(seq).append(_framed(payload, batch))
        framed = {**payload, "batch": batch}
        state = self.state
        try:
            prepared = apply.prepare(state, framed)  # tokenizing, most of a frame's cost, before the readers' lock
            with self.lock:
                apply.apply(state, framed, prepared)
                state.position = (seq, end)
        except Exception as exc:  # a bug, not bad input: the frame is skipped from now on
            with self.lock:
                self.bad_frames[(seq, start)] = f"wal_frame_skipped: {type(exc).__name__}: {exc}"[:500]
                self._reload()
            return
        self._seal_when_full(state, self.lock)

    def _seal_when_full(self, state: State, guard: threading.RLock) -> None:
        """Seal a full memtable; the new segment is built with the readers' lock free."""
        if len(state.index.mem) >= self.config.store.seal_events:
            state.index.seal(guard=guard)

    def _replay(self, state: State, guard: threading.RLock, wal: Wal, start: int) -> int:
        """Apply the frames after `start`. A frame is screened first (rows the store cannot
        apply are quarantined, the rest applies); one that fails all the same is skipped on a
        reload from the snapshot and reported, never allowed to make the state unusable."""
        end = max(start, len(HEADER))
        seq = int(wal.path.name[:-4]) if wal.path.name[:-4].isdigit() else 0
        for frame in wal.frames(start):
            where = f"{wal.path}@{frame.offset}"
            if (seq, frame.offset) in self.bad_frames:
                apply.record_issues(state, [IngestIssue(where, 0, seq, frame.offset,
                                                        self.bad_frames[(seq, frame.offset)], "")])
            else:
                payload, issues = screen_frame(frame.payload, where)
                try:
                    apply.apply(state, payload)
                except Exception as exc:  # a bug, not bad input: skip this frame and start over
                    self.bad_frames[(seq, frame.offset)] = f"wal_frame_skipped: {type(exc).__name__}: {exc}"[:500]
                    raise _Reload from exc
                apply.record_issues(state, issues)
                self._seal_when_full(state, guard)
            end = frame.end
        return end

    def forget(self, paths: list[str]) -> int:
        """Retire every event read from these logs and drop their checkpoints (one frame).
        Call inside `writer()`."""
        before = self.read.live_event_count()
        self.commit([], [], {}, {"forget": sorted(paths)})
        return before - self.read.live_event_count()

    def publish(self) -> Manifest:
        """Seal, merge, rotate the WAL and publish a snapshot generation; then drop what it
        covers (`store.publish`). Call inside `writer()`. While it runs `publishing` is true: the
        daemon's calls then answer without waiting for the writer lock (a publish takes seconds
        on a large state). Every path publishes through here: a pass's, the daemon's periodic
        one, `merge_all`'s."""
        self._assert_writer()
        self.publishing = True
        try:
            return self._publisher().publish(self.defer_merges)
        finally:
            self.publishing = False

    def _publisher(self) -> Publisher:
        return Publisher(self.state, self.home, self.wal_set, self.lock)

    def merge_all(self) -> None:
        """Seal and merge every segment into one, streamed to disk, and publish it. A publish
        comes first: the memory it frees (the fresh content) is what the merge needs. Call
        inside `writer()`."""
        self._assert_writer()
        if len(self.index.segments) + (len(self.index.mem) > 0) < 2:
            return
        if self.frames_since_snapshot or self.manifest is None:
            self.publish()
        self.index.merge_all(self._publisher().new_segment_dir, guard=self.lock)  # searches go on meanwhile
        self.publish()

    def maybe_publish(self) -> Manifest | None:
        """Publish when enough has accumulated since the last snapshot. Call inside `writer()`."""
        if self.events_since_snapshot >= self.config.store.snapshot_events:
            return self.publish()
        return None

    def counts(self) -> dict[str, int]:
        return self.state.counts()

    def _check(self) -> None:
        """Assert the state's invariants (the stress tests call it after every operation)."""
        check_invariants(self.state, self.home)

    # -- reading ---------------------------------------------------------------------------

    def search(
        self, terms: list[str], k: int, types: list[str], scope: np.ndarray | None, deadline: float | None,
        *, exact_total: bool = True, min_match: int = 1, exclude: np.ndarray | None = None,
    ) -> Hits:
        """Top k of the query's terms (tokenized once, by the caller: `query_terms`); no hit
        among `exclude`."""
        if isinstance(terms, str):  # a query string would be read as its characters
            raise TypeError("Store.search takes the query's terms (query_terms), not the query")
        allowed = np.zeros(len(EVENT_TYPES), dtype=bool)
        allowed[[TYPE_CODE[t] for t in types]] = True
        c = self.catalog
        return self.index.search(
            terms, k, k1=self.config.bm25.k1, b=self.config.bm25.b, type_codes=c.type_code.view,
            allowed_types=allowed, tiebreak_ts=c.ts.view, tiebreak_uid=c.uid.view, scope=scope,
            deadline=deadline, exact_total=exact_total, min_match=min_match, exclude=exclude,
        )

    def redaction_counts(self) -> dict[str, int]:
        return self.redactions.counts(self.catalog.alive.view, self.stats.issues, self.checkpoints)


def _make_home(home: Path, create: bool) -> None:
    """The state's directory, made if missing (unless `create` is false) and private to the user."""
    if not home.exists():
        if not create:
            raise StateError(f"no Moraine state at {home}: run `moraine index` first")
        try:
            home.mkdir(parents=True, mode=0o700)
        except OSError as exc:
            raise StateError(f"cannot create the Moraine state at {home}: {exc.strerror}") from exc
    if not os.access(home, os.R_OK | os.W_OK | os.X_OK):
        raise StateError(f"the Moraine state at {home} is not readable and writable by this user")
    try:
        os.chmod(home, 0o700)
    except OSError as exc:
        raise StateError(f"cannot make {home} private to this user: {exc.strerror}") from exc


@contextmanager
def writer_lock(home: Path) -> Iterator[None]:
    """The state's writer lock alone, without opening the state: for what replaces the state
    whole (a restore, a rebuild's install, a repair), which may be a state that cannot be opened."""
    fd = os.open(home / WRITER_LOCK, os.O_RDWR | os.O_CREAT, 0o600)
    try:
        _lock(fd, None)
        yield
    finally:
        os.close(fd)


def _lock(fd: int, busy: Callable[[float], object] | None, wait: float | None = None) -> None:
    """flock(LOCK_EX) on `fd`; with `busy` or `wait`, polled (telling `busy` the seconds
    waited; WriterBusy once `wait` seconds passed)."""
    if busy is None and wait is None:
        fcntl.flock(fd, fcntl.LOCK_EX)
        return
    started = time.monotonic()
    while True:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return
        except BlockingIOError:
            waited = time.monotonic() - started
            if wait is not None and waited >= wait:
                raise WriterBusy(f"another pass has held the writer lock for {waited:.1f} s") from None
            if busy is not None:
                busy(waited)
            time.sleep(0.02 if wait is not None else 0.1)
