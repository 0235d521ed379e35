"""Applying one WAL frame to the in-memory state (catalog, index, checkpoints, counters): the
one write path every frame takes, whether just written or replayed after a restart. A mixin
of `Store` (`store.engine`), which owns the state and the WAL these methods are given.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from moraine.config import Config
from moraine.index.searcher import InvertedIndex
from moraine.model import Checkpoint, Event, IngestIssue
from moraine.sources import ADAPTERS
from moraine.store.catalog import Catalog
from moraine.store.contents import pack_rows
from moraine.store.redactions import Redactions
from moraine.store.session import Session

UNINDEXED = frozenset({"unknown"})
Touched = dict[int, tuple[int, int, str | None]]  # session ix → (started_ms, updated_ms, cwd) before the frame


@dataclass
class StoreStats:
    frames: int = 0
    events: int = 0
    issues: list[IngestIssue] = field(default_factory=list)
    last_ingest_ms: int = 0
    torn_bytes: int = 0
    last_by_source: dict[str, int] = field(default_factory=dict)  # harness → last frame that read its logs


class FrameApplier:
    """The frame-applying half of `Store`: the attributes below are the Store's state."""

    config: Config
    catalog: Catalog
    index: InvertedIndex
    checkpoints: dict[str, Checkpoint]
    stats: StoreStats
    issue_keys: set[tuple[str, int, int, int]]
    file_issues: dict[str, str]
    tombstones: set[str]
    tracked: list[list[Any]]
    redactions: Redactions
    events_since_snapshot: int
    frames_since_snapshot: int

    def _apply(self, payload: dict[str, Any], packed: list[bytes] | None = None) -> None:
        """Apply one screened frame, in this order: what it retires, its new events, the
        sessions either changed (re-keyed once per frame), then what it records (issues,
        unreadable logs, checkpoints, counters). The order matters: a log's new generation
        retires the old one's events before its own are added."""
        touched: Touched = {}
        if payload.get("rewind"):  # `doctor --repair` lost frames: read every log again (uids dedupe)
            self._rewind_checkpoints()
        self._apply_retirements(payload, touched)
        self.tracked.extend(payload.get("tracked", ()))
        self._apply_events(payload, packed, touched)
        for ix, before in touched.items():
            self.catalog.touch(self.catalog.sessions[ix], before)
        self._record_issues([IngestIssue.from_wire(row) for row in payload.get("issues", ())])
        self._apply_file_issues(payload)
        self._apply_checkpoints(payload)
        self._count_frame(payload)
        if len(self.index.mem) >= self.config.store.seal_events:
            self.index.seal()

    def _rewind_checkpoints(self) -> None:
        """Every log is read again from its start (same inode and generation, fresh adapter state)."""
        self.checkpoints = {path: Checkpoint(cp.source, cp.inode, 0, cp.generation, 0, 0,
                                             ADAPTERS[cp.source].initial_state(path))
                            for path, cp in self.checkpoints.items()}

    def _apply_retirements(self, payload: dict[str, Any], touched: Touched) -> None:
        """Events the frame takes out before adding its own: forgotten logs (their checkpoints
        go too), logs whose new generation replaces them, tombstoned sessions, retired uids."""
        for path in payload.get("forget", ()):
            self._retire_file(path, touched)
            self.checkpoints.pop(path, None)
        for path, row in payload.get("checkpoints", {}).items():
            known = self.checkpoints.get(path)
            if known is not None and Checkpoint.from_wire(row).generation > known.generation:
                self._retire_file(path, touched)  # replaced or truncated: its new generation replaces it
        for key in payload.get("tombstones", ()):
            self._retire_session(key, touched)
        for uid in payload.get("retire", ()):  # a log read whole no longer holds these events
            self._retire_uid(uid, touched)

    def _apply_events(self, payload: dict[str, Any], packed: list[bytes] | None, touched: Touched) -> None:
        """Add the frame's events under new doc ids: a forgotten session's lines are dropped, a
        record seen twice in the frame counts once (the later one), and one already known (a
        rewind, a crash's lost frame) replaces the old doc."""
        rows, packed = self._without_tombstoned(payload.get("events", ()), packed)
        events = [Event.from_wire(row) for row in rows]
        last = {event.uid: i for i, event in enumerate(events)}  # the same record twice: the later one wins
        self._replace_known(list(last))
        if packed is None:
            packed = pack_rows(rows)
        if len(last) < len(events):
            kept = sorted(last.values())
            events, packed = [events[i] for i in kept], [packed[i] for i in kept]
        sessions = [self.catalog.session_for(event) for event in events]
        self._note_sessions(sessions, touched)
        first = self.index.reserve_docs(len(events))
        self.catalog.append_batch(first, events, packed, sessions)
        self.redactions.add(first, events, packed, payload.get("rules"))
        indexable = [(first + i, e.text) for i, e in enumerate(events)
                     if e.type not in UNINDEXED and not e.excluded and e.text]
        self.index.add_texts(np.array([d for d, _ in indexable], dtype=np.int64), [t for _, t in indexable])

    def _without_tombstoned(self, rows: list[list[Any]],
                            packed: list[bytes] | None) -> tuple[list[list[Any]], list[bytes] | None]:
        """The rows (and their packed forms) of sessions not forgotten by retention."""
        if self.tombstones and any(row[1] in self.tombstones for row in rows):  # a forgotten session's lines
            keep = [i for i, row in enumerate(rows) if row[1] not in self.tombstones]
            rows = [rows[i] for i in keep]
            packed = [packed[i] for i in keep] if packed is not None else None
        return rows, packed

    def _replace_known(self, uids: list[str]) -> None:
        """Retire the live doc of each uid already stored: the new record replaces it."""
        for uid, doc in zip(uids, self.catalog.by_uid.find_many(uids), strict=True):
            if doc is not None:
                self.catalog.replaced(uid)
                self.index.delete(doc)

    def _note_sessions(self, sessions: list[Session], touched: Touched) -> None:
        by_key = self.catalog.by_key
        for session in sessions:
            _note(touched, by_key[session.key], session)

    def _apply_file_issues(self, payload: dict[str, Any]) -> None:
        """Why a log cannot be read now; None: it can again."""
        for path, reason in payload.get("file_issues", {}).items():
            if reason is None:
                self.file_issues.pop(path, None)
            else:
                self.file_issues[path] = reason

    def _apply_checkpoints(self, payload: dict[str, Any]) -> None:
        """Where each log was read up to, and when each harness's logs were last read."""
        at = int(payload.get("at", 0))
        for path, row in payload.get("checkpoints", {}).items():
            self.checkpoints[path] = Checkpoint.from_wire(row)
            if at > self.stats.last_by_source.get(row[0], 0):
                self.stats.last_by_source[row[0]] = at

    def _count_frame(self, payload: dict[str, Any]) -> None:
        """Counters count the frame's event rows as written, before tombstones and duplicates."""
        self.stats.frames += 1
        self.stats.events += len(payload.get("events", ()))
        self.events_since_snapshot += len(payload.get("events", ()))
        self.frames_since_snapshot += 1
        self.stats.last_ingest_ms = max(self.stats.last_ingest_ms, int(payload.get("at", 0)))

    def _retire_session(self, key: str, touched: Touched) -> None:
        """Forget a session for good: its events leave the index, and later lines are dropped."""
        self.tombstones.add(key)
        ix = self.catalog.by_key.get(key)
        if ix is not None:
            self._retire(list(self.catalog.sessions[ix].docs), touched)

    def _retire_uid(self, uid: str, touched: Touched) -> None:
        doc = self.catalog.by_uid.get(uid)
        if doc is not None:
            self._retire([doc], touched)

    def _retire_file(self, path: str, touched: Touched) -> None:
        self._retire(self.catalog.file_docs(path).tolist(), touched)

    def _retire(self, docs: list[int], touched: Touched) -> None:
        """Take live docs out of the catalog and the index, noting each session's times before
        (its place among the sessions is updated once the frame is applied)."""
        catalog = self.catalog
        for doc in docs:
            ix = int(catalog.session_ix.view[doc])
            _note(touched, ix, catalog.sessions[ix])
            catalog.replaced(catalog.uid.view[doc].decode("ascii"))
            self.index.delete(doc)

    def _record_issues(self, issues: list[IngestIssue]) -> None:
        for issue in issues:
            key = (issue.file, issue.generation, issue.line, issue.offset)
            if key not in self.issue_keys:  # a line re-read (rewind, lost frame) is quarantined once
                self.issue_keys.add(key)
                self.stats.issues.append(issue)


def _note(touched: Touched, ix: int, session: Session) -> None:
    """A session's times before the frame, noted the first time the frame touches it (its
    place among the sessions is updated once, after the frame)."""
    if ix not in touched:
        touched[ix] = (session.started_ms, session.updated_ms, session.cwd)
