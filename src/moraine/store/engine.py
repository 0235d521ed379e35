"""The Store facade: one write path (WAL frame → catalog + index), many readers.

Several processes may share a state directory (agent hosts each run `moraine mcp`): the
writer lock serialises appends, and every process first applies the frames others wrote
since it last looked, so all of them see one history and no event is applied twice.
"""

from __future__ import annotations

import fcntl
import gc
import os
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from moraine.config import Config
from moraine.errors import StateError
from moraine.index.searcher import Hits, InvertedIndex
from moraine.index.tokenize import query_terms
from moraine.ingest.checkpoint import Checkpoint
from moraine.ingest.watcher import Discovery
from moraine.model import EVENT_TYPES, TYPE_CODE, Event, IngestIssue
from moraine.store.catalog import Catalog, Session
from moraine.store.wal import Wal

UNINDEXED = frozenset({"unknown"})


@dataclass
class StoreStats:
    frames: int = 0
    events: int = 0
    issues: list[IngestIssue] = field(default_factory=list)
    last_ingest_ms: int = 0
    torn_bytes: int = 0


class Store:
    """State directory layout: `wal.log` (the history), `lock` (the writer lock)."""

    def __init__(self, config: Config, *, create: bool = True) -> None:
        self.config = config
        self.home = config.home
        if not self.home.exists():
            if not create:
                raise StateError(f"no Moraine state at {self.home}: run `moraine index` first")
            try:
                self.home.mkdir(parents=True, mode=0o700)
            except OSError as exc:
                raise StateError(f"cannot create the Moraine state at {self.home}: {exc.strerror}") from exc
        if not os.access(self.home, os.R_OK | os.W_OK | os.X_OK):
            raise StateError(f"the Moraine state at {self.home} is not readable and writable by this user")
        try:
            os.chmod(self.home, 0o700)
        except OSError as exc:
            raise StateError(f"cannot make {self.home} private to this user: {exc.strerror}") from exc
        self.lock_path = self.home / "lock"
        self.catalog = Catalog()
        self.index = InvertedIndex()
        self.checkpoints: dict[str, Checkpoint] = {}
        self.stats = StoreStats()
        self.lag_bytes = 0  # complete-line bytes known in the logs but not yet ingested
        self.discovery = Discovery()
        self.mtimes: dict[str, float] = {}  # last seen mtime per log (decides what a quick catch-up stats)
        self.last_sweep = float("-inf")  # monotonic time of the last catch-up that stat-ed every log
        self.position = 0
        with self.writer():
            self.wal = Wal(self.home / "wal.log", config.store.fsync)
            self.position = self._replay(0)
            self._cut_torn_tail()
        gc.freeze()

    # -- writing ---------------------------------------------------------------------------

    @contextmanager
    def writer(self) -> Iterator[None]:
        """Exclusive writer lock; on entry, catch up with frames other processes appended."""
        fd = os.open(self.lock_path, os.O_RDWR | os.O_CREAT, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
            if hasattr(self, "wal"):
                self.position = self._replay(self.position)
                self._cut_torn_tail()
            yield
        finally:
            fcntl.flock(fd, fcntl.LOCK_UN)
            os.close(fd)

    def _cut_torn_tail(self) -> None:
        """Bytes after the last whole frame, seen under the lock, are a writer's crash mid-append:
        cut them before appending, or the next frame would land behind garbage."""
        if self.wal.size() > self.position:
            if self.wal.damaged_after(self.position):
                raise StateError(
                    f"{self.wal.path} is damaged at byte {self.position}: intact frames follow a bad one. "
                    "Refusing to go on rather than drop them; move the state aside and rebuild it with "
                    "`moraine index`."
                )
            self.stats.torn_bytes += self.wal.cut_tail(self.position)

    def commit(self, events: list[list[Any]], issues: list[list[Any]], checkpoints: dict[str, list[Any]]) -> None:
        """Append one frame (events + issues + the checkpoints they reach), then apply it.

        Rows are in wire form, as the parse workers produce them. Call inside `writer()`.
        """
        payload = {"events": events, "issues": issues, "checkpoints": checkpoints, "at": int(time.time() * 1000)}
        end = self.wal.append(payload)
        self._apply(payload)
        self.position = end

    def _replay(self, start: int) -> int:
        end = max(start, 16)
        for frame in self.wal.frames(start):
            self._apply(frame.payload)
            end = frame.end
        return end

    def _apply(self, payload: dict[str, Any]) -> None:
        touched: dict[int, tuple[int, int, str | None]] = {}
        catalog, index = self.catalog, self.index
        rows = payload.get("events", ())
        events = [Event.from_wire(row) for row in rows]
        seen: dict[str, int] = {}
        for i, event in enumerate(events):
            if event.uid in seen:  # the same record twice in one frame: the later one wins
                events[seen[event.uid]] = None  # type: ignore[call-overload]
            seen[event.uid] = i
            old = catalog.replaced(event.uid)
            if old is not None:
                index.delete(old)
        kept = [(e, r) for e, r in zip(events, rows, strict=True) if e is not None]
        events, rows = [e for e, _ in kept], [r for _, r in kept]
        for event in events:
            session = catalog.session_for(event)
            ix = catalog.by_key[session.key]
            if ix not in touched:
                touched[ix] = (session.started_ms, session.updated_ms, session.cwd)
        first = index.reserve_docs(len(events))
        catalog.append_batch(first, events, rows)
        indexable = [(first + i, e.text) for i, e in enumerate(events)
                     if e.type not in UNINDEXED and not e.excluded and e.text]
        index.add_texts(np.array([d for d, _ in indexable], dtype=np.int64), [t for _, t in indexable])
        for ix, before in touched.items():
            catalog.touch(catalog.sessions[ix], before)
        for row in payload.get("issues", ()):
            self.stats.issues.append(IngestIssue.from_wire(row))
        for path, row in payload.get("checkpoints", {}).items():
            self.checkpoints[path] = Checkpoint.from_wire(row)
        self.stats.frames += 1
        self.stats.events += len(payload.get("events", ()))
        self.stats.last_ingest_ms = max(self.stats.last_ingest_ms, int(payload.get("at", 0)))
        if len(index.mem) >= self.config.store.seal_events:
            index.seal()

    # -- reading ---------------------------------------------------------------------------

    def search(
        self, query: str, k: int, types: list[str], scope: np.ndarray | None, deadline: float | None,
        *, exact_total: bool = True,
    ) -> Hits:
        terms = query_terms(query, self.config.bm25.max_query_terms)
        allowed = np.zeros(len(EVENT_TYPES), dtype=bool)
        allowed[[TYPE_CODE[t] for t in types]] = True
        c = self.catalog
        return self.index.search(
            terms, k, k1=self.config.bm25.k1, b=self.config.bm25.b, type_codes=c.type_code.view,
            allowed_types=allowed, tiebreak_ts=c.ts.view, tiebreak_uid=c.uid.view, scope=scope,
            deadline=deadline, exact_total=exact_total,
        )

    def session_by_sid(self, sid: str) -> Session | None:
        ix = self.catalog.by_sid.get(sid)
        return None if ix is None else self.catalog.sessions[ix]

    def doc_by_uid(self, uid: str) -> int | None:
        return self.catalog.by_uid.get(uid)

    def pending_bytes(self) -> int:
        """Bytes known in the logs but not yet indexed (for freshness warnings)."""
        behind = 0
        for path, cp in self.checkpoints.items():
            try:
                size = os.stat(path).st_size
            except OSError:
                continue
            behind += max(0, size - cp.offset) if size >= cp.offset else size
        return behind

    def freshness_warnings(self) -> list[str]:
        """Say when lines are known in the logs but not yet indexed, so an empty result is
        not mistaken for proof of absence. Uses the lag measured by the last ingest pass
        (stat-ing every log per query would cost more than the query)."""
        behind = self.lag_bytes
        if behind <= 0:
            return []
        return [f"index is behind the logs by {behind} bytes not yet ingested; results may be incomplete"]
