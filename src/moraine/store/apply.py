"""Applying one WAL frame to the in-memory state (catalog, index, checkpoints, counters): the
one write path every frame takes, whether just written or replayed after a restart. Functions
of a `State` (`store.state`); the Store (`store.engine`) calls them under its readers' lock.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from moraine.index.memtable import BatchPostings
from moraine.model import Checkpoint, IngestIssue
from moraine.store.batch import Batch
from moraine.store.session import Session
from moraine.store.state import State

Touched = dict[int, tuple[int, int, str | None]]  # session ix → (started_ms, updated_ms, cwd) before the frame
Prepared = tuple[Batch, BatchPostings]  # the events to add; their searchable texts' postings


def prepare(state: State, payload: dict[str, Any]) -> Prepared | None:
    """The frame's events as `apply` adds them (a forgotten session's lines dropped, a
    record seen twice in the frame once: the later one) and their searchable texts
    tokenized into postings. Apart so that a commit does it before taking the readers'
    lock: tokenizing was 4.7 and sorting the postings ~1.5 of the 8.0 s that applying
    frames took in a 100k-event backfill. It reads only what the writer changes, and the
    vocabulary it extends only grows (see `InvertedIndex.tokenize`)."""
    batch = payload.get("batch")
    if batch is None or not len(batch):
        return None
    batch = _to_add(batch, state.tombstones.union(payload.get("tombstones", ())))
    indexable = batch.indexable()
    return batch, state.index.tokenize([batch.texts[i] for i in indexable.tolist()])


def apply(state: State, payload: dict[str, Any], prepared: Prepared | None = None) -> None:
    """Apply one screened frame (its events as a `Batch` under "batch"; `prepared`: its
    `prepare`, when done already), in this order: what it retires, its new events, the
    sessions either changed (re-keyed once per frame), then what it records (issues,
    unreadable logs, checkpoints, counters). The order matters: a log's new generation
    retires the old one's events before its own are added."""
    touched: Touched = {}
    if payload.get("rewind"):  # `doctor --repair` lost frames: read every log again (uids dedupe)
        _rewind_checkpoints(state)
    _apply_retirements(state, payload, touched)
    state.tracked.extend(payload.get("tracked", ()))
    batch = payload.get("batch")
    if batch is not None and len(batch):
        _apply_events(state, prepared or prepare(state, payload), payload.get("rules"), touched)
    for ix, before in touched.items():
        state.catalog.touch(state.catalog.sessions[ix], before)
    record_issues(state, [IngestIssue.from_wire(row) for row in payload.get("issues", ())])
    _apply_file_issues(state, payload)
    _apply_checkpoints(state, payload)
    _count_frame(state, payload, len(batch) if batch is not None else 0)


def _rewind_checkpoints(state: State) -> None:
    """Every log is read again from its start (same inode and generation; a checkpoint at
    offset 0 is read with the adapter's initial state, which ingest supplies)."""
    state.checkpoints = {path: Checkpoint(cp.source, cp.inode, 0, cp.generation, 0, 0, {})
                        for path, cp in state.checkpoints.items()}


def _apply_retirements(state: State, payload: dict[str, Any], touched: Touched) -> None:
    """Events the frame takes out before adding its own: forgotten logs (their checkpoints
    go too), logs whose new generation replaces them, tombstoned sessions, retired uids."""
    if payload.get("forget") or payload.get("tombstones"):
        state.forgot_since_publish = True  # the next publish writes the sessions' records whole
    for path in payload.get("forget", ()):
        _retire_file(state, path, touched)
        known = state.checkpoints.pop(path, None)
        state.forgotten[path] = known.inode if known is not None else 0  # not read again while it is this file
    for path, row in payload.get("checkpoints", {}).items():
        known = state.checkpoints.get(path)
        if known is not None and Checkpoint.from_wire(row).generation > known.generation:
            _retire_file(state, path, touched)  # replaced or truncated: its new generation replaces it
    for key in payload.get("tombstones", ()):
        _retire_session(state, key, touched)
    for uid in payload.get("retire", ()):  # a log read whole no longer holds these events
        _retire_uid(state, uid, touched)


def _apply_events(state: State, prepared: Prepared | None, rules: Any, touched: Touched) -> None:
    """Add the prepared events under new doc ids; one already known (a rewind, a crash's
    lost frame) replaces the old doc."""
    if prepared is None or not len(prepared[0]):
        return
    batch, postings = prepared
    _replace_known(state, batch.uids)
    sessions = {}
    for i in batch.first_of_each_key():
        k = int(batch.key_ix[i])
        sessions[k] = state.catalog.session_for(batch.keys[k], batch.sources[k], int(batch.ts[i]))
    _note_sessions(state, list(sessions.values()), touched)
    first = state.index.reserve_docs(len(batch))
    state.catalog.append_batch(first, batch, sessions)
    state.redactions.add(first, batch.rows, batch.texts, rules)
    state.index.add_tokenized(first + batch.indexable(), postings)


def _to_add(batch: Batch, tombstones: set[str]) -> Batch:
    """The events of sessions not forgotten by retention, each record once (the later)."""
    if tombstones and any(key in tombstones for key in batch.keys):  # a forgotten session's lines
        gone = np.array([key in tombstones for key in batch.keys], dtype=np.bool_)
        batch = batch.take(np.flatnonzero(~gone[batch.key_ix]))
    last = {uid: i for i, uid in enumerate(batch.uids)}  # the same record twice: the later one wins
    if len(last) < len(batch):
        batch = batch.take(sorted(last.values()))
    return batch


def _replace_known(state: State, uids: list[str]) -> None:
    """Retire the live doc of each uid already stored: the new record replaces it."""
    for uid, doc in zip(uids, state.catalog.by_uid.find_many(uids), strict=True):
        if doc is not None:
            state.catalog.replaced(uid)
            state.index.delete(doc)


def _note_sessions(state: State, sessions: list[Session], touched: Touched) -> None:
    by_key = state.catalog.by_key
    for session in sessions:
        _note(touched, by_key[session.key], session)


def _apply_file_issues(state: State, payload: dict[str, Any]) -> None:
    """Why a log cannot be read now; None: it can again."""
    for path, reason in payload.get("file_issues", {}).items():
        if reason is None:
            state.file_issues.pop(path, None)
        else:
            state.file_issues[path] = reason


def _apply_checkpoints(state: State, payload: dict[str, Any]) -> None:
    """Where each log was read up to, and when each harness's logs were last read."""
    at = int(payload.get("at", 0))
    for path, row in payload.get("checkpoints", {}).items():
        state.checkpoints[path] = Checkpoint.from_wire(row)
        if at > state.stats.last_by_source.get(row[0], 0):
            state.stats.last_by_source[row[0]] = at


def _count_frame(state: State, payload: dict[str, Any], events: int) -> None:
    """Counters count the frame's events as written, before tombstones and duplicates."""
    state.stats.frames += 1
    state.stats.events += events
    state.events_since_snapshot += events
    state.frames_since_snapshot += 1
    state.stats.last_ingest_ms = max(state.stats.last_ingest_ms, int(payload.get("at", 0)))


def _retire_session(state: State, key: str, touched: Touched) -> None:
    """Forget a session for good: its events leave the index, and later lines are dropped."""
    state.tombstones.add(key)
    ix = state.catalog.by_key.get(key)
    if ix is not None:
        _retire(state, list(state.catalog.sessions[ix].docs), touched)
        _drop_issues(state, set(state.catalog.sessions[ix].file_ts))


def _drop_issues(state: State, files: set[str]) -> None:
    """What was quarantined of forgotten logs goes with them (its fragments quote the lines)."""
    if any(issue.file in files for issue in state.stats.issues):
        state.stats.issues = [issue for issue in state.stats.issues if issue.file not in files]
        state.issue_keys = {key for key in state.issue_keys if key[0] not in files}


def _retire_uid(state: State, uid: str, touched: Touched) -> None:
    doc = state.catalog.by_uid.get(uid)
    if doc is not None:
        _retire(state, [doc], touched)


def _retire_file(state: State, path: str, touched: Touched) -> None:
    _retire(state, state.catalog.file_docs(path).tolist(), touched)
    _drop_issues(state, {path})


def _retire(state: State, docs: list[int], touched: Touched) -> None:
    """Take live docs out of the catalog and the index, noting each session's times before
    (its place among the sessions is updated once the frame is applied)."""
    catalog = state.catalog
    for doc in docs:
        ix = int(catalog.session_ix.view[doc])
        _note(touched, ix, catalog.sessions[ix])
        catalog.replaced(catalog.uid.view[doc].decode("ascii"))
        state.index.delete(doc)


def record_issues(state: State, issues: list[IngestIssue]) -> None:
    for issue in issues:
        key = (issue.file, issue.generation, issue.line, issue.offset)
        if key not in state.issue_keys:  # a line re-read (rewind, lost frame) is quarantined once
            state.issue_keys.add(key)
            state.stats.issues.append(issue)


def _note(touched: Touched, ix: int, session: Session) -> None:
    """A session's times before the frame, noted the first time the frame touches it (its
    place among the sessions is updated once, after the frame)."""
    if ix not in touched:
        touched[ix] = (session.started_ms, session.updated_ms, session.cwd)
