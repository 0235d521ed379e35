"""Applying one WAL frame to the in-memory state (catalog, index, checkpoints, counters): the
one write path every frame takes, whether just written or replayed after a restart. A mixin
of `Store` (`store.engine`), which owns the state and the WAL these methods are given.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from moraine.config import Config
from moraine.index.memtable import BatchPostings
from moraine.index.searcher import InvertedIndex
from moraine.model import Checkpoint, IngestIssue
from moraine.store.batch import Batch
from moraine.store.catalog import Catalog
from moraine.store.redactions import Redactions
from moraine.store.session import Session

Touched = dict[int, tuple[int, int, str | None]]  # session ix → (started_ms, updated_ms, cwd) before the frame
Prepared = tuple[Batch, BatchPostings]  # the events to add; their searchable texts' postings


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
    forgotten: dict[str, int]
    forgot_since_publish: bool
    tracked: list[list[Any]]
    redactions: Redactions
    events_since_snapshot: int
    frames_since_snapshot: int

    def _prepare(self, payload: dict[str, Any]) -> Prepared | None:
        """The frame's events as `_apply` adds them (a forgotten session's lines dropped, a
        record seen twice in the frame once: the later one) and their searchable texts
        tokenized into postings. Apart so that a commit does it before taking the readers'
        lock: tokenizing was 4.7 and sorting the postings ~1.5 of the 8.0 s that applying
        frames took in a 100k-event backfill. It reads only what the writer changes, and the
        vocabulary it extends only grows (see `InvertedIndex.tokenize`)."""
        batch = payload.get("batch")
        if batch is None or not len(batch):
            return None
        batch = self._to_add(batch, self.tombstones.union(payload.get("tombstones", ())))
        indexable = batch.indexable()
        return batch, self.index.tokenize([batch.texts[i] for i in indexable.tolist()])

    def _apply(self, payload: dict[str, Any], prepared: Prepared | None = None) -> None:
        """Apply one screened frame (its events as a `Batch` under "batch"; `prepared`: its
        `_prepare`, when done already), in this order: what it retires, its new events, the
        sessions either changed (re-keyed once per frame), then what it records (issues,
        unreadable logs, checkpoints, counters). The order matters: a log's new generation
        retires the old one's events before its own are added."""
        touched: Touched = {}
        if payload.get("rewind"):  # `doctor --repair` lost frames: read every log again (uids dedupe)
            self._rewind_checkpoints()
        self._apply_retirements(payload, touched)
        self.tracked.extend(payload.get("tracked", ()))
        batch = payload.get("batch")
        if batch is not None and len(batch):
            self._apply_events(prepared or self._prepare(payload), payload.get("rules"), touched)
        for ix, before in touched.items():
            self.catalog.touch(self.catalog.sessions[ix], before)
        self._record_issues([IngestIssue.from_wire(row) for row in payload.get("issues", ())])
        self._apply_file_issues(payload)
        self._apply_checkpoints(payload)
        self._count_frame(payload, len(batch) if batch is not None else 0)

    def _rewind_checkpoints(self) -> None:
        """Every log is read again from its start (same inode and generation; a checkpoint at
        offset 0 is read with the adapter's initial state, which ingest supplies)."""
        self.checkpoints = {path: Checkpoint(cp.source, cp.inode, 0, cp.generation, 0, 0, {})
                            for path, cp in self.checkpoints.items()}

    def _apply_retirements(self, payload: dict[str, Any], touched: Touched) -> None:
        """Events the frame takes out before adding its own: forgotten logs (their checkpoints
        go too), logs whose new generation replaces them, tombstoned sessions, retired uids."""
        if payload.get("forget") or payload.get("tombstones"):
            self.forgot_since_publish = True  # the next publish writes the sessions' records whole
        for path in payload.get("forget", ()):
            self._retire_file(path, touched)
            known = self.checkpoints.pop(path, None)
            self.forgotten[path] = known.inode if known is not None else 0  # not read again while it is this file
        for path, row in payload.get("checkpoints", {}).items():
            known = self.checkpoints.get(path)
            if known is not None and Checkpoint.from_wire(row).generation > known.generation:
                self._retire_file(path, touched)  # replaced or truncated: its new generation replaces it
        for key in payload.get("tombstones", ()):
            self._retire_session(key, touched)
        for uid in payload.get("retire", ()):  # a log read whole no longer holds these events
            self._retire_uid(uid, touched)

    def _apply_events(self, prepared: Prepared | None, rules: Any, touched: Touched) -> None:
        """Add the prepared events under new doc ids; one already known (a rewind, a crash's
        lost frame) replaces the old doc."""
        if prepared is None or not len(prepared[0]):
            return
        batch, postings = prepared
        self._replace_known(batch.uids)
        sessions = {}
        for i in batch.first_of_each_key():
            k = int(batch.key_ix[i])
            sessions[k] = self.catalog.session_for(batch.keys[k], batch.sources[k], int(batch.ts[i]))
        self._note_sessions(list(sessions.values()), touched)
        first = self.index.reserve_docs(len(batch))
        self.catalog.append_batch(first, batch, sessions)
        self.redactions.add(first, batch.rows, batch.texts, rules)
        self.index.add_tokenized(first + batch.indexable(), postings)

    @staticmethod
    def _to_add(batch: Batch, tombstones: set[str]) -> Batch:
        """The events of sessions not forgotten by retention, each record once (the later)."""
        if tombstones and any(key in tombstones for key in batch.keys):  # a forgotten session's lines
            gone = np.array([key in tombstones for key in batch.keys], dtype=np.bool_)
            batch = batch.take(np.flatnonzero(~gone[batch.key_ix]))
        last = {uid: i for i, uid in enumerate(batch.uids)}  # the same record twice: the later one wins
        if len(last) < len(batch):
            batch = batch.take(sorted(last.values()))
        return batch

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

    def _count_frame(self, payload: dict[str, Any], events: int) -> None:
        """Counters count the frame's events as written, before tombstones and duplicates."""
        self.stats.frames += 1
        self.stats.events += events
        self.events_since_snapshot += events
        self.frames_since_snapshot += 1
        self.stats.last_ingest_ms = max(self.stats.last_ingest_ms, int(payload.get("at", 0)))

    def _retire_session(self, key: str, touched: Touched) -> None:
        """Forget a session for good: its events leave the index, and later lines are dropped."""
        self.tombstones.add(key)
        ix = self.catalog.by_key.get(key)
        if ix is not None:
            self._retire(list(self.catalog.sessions[ix].docs), touched)
            self._drop_issues(set(self.catalog.sessions[ix].file_ts))

    def _drop_issues(self, files: set[str]) -> None:
        """What was quarantined of forgotten logs goes with them (its fragments quote the lines)."""
        if any(issue.file in files for issue in self.stats.issues):
            self.stats.issues = [issue for issue in self.stats.issues if issue.file not in files]
            self.issue_keys = {key for key in self.issue_keys if key[0] not in files}

    def _retire_uid(self, uid: str, touched: Touched) -> None:
        doc = self.catalog.by_uid.get(uid)
        if doc is not None:
            self._retire([doc], touched)

    def _retire_file(self, path: str, touched: Touched) -> None:
        self._retire(self.catalog.file_docs(path).tolist(), touched)
        self._drop_issues({path})

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
