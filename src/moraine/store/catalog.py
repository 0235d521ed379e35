"""Sessions, turns and per-event metadata, derived from the normalized events (a session
itself, and how an event folds into it, is `store.session`).

Per-event metadata is columnar (numpy), event content is packed msgpack addressed by doc
id, sessions are compact records ordered by `updated_at` in a `SortedKeyList`. Turns are
derived, not stored: a session's turn structure is recomputed (vectorized) only when the
session changed, so late or re-read events can never leave stale turn boundaries.
"""

from __future__ import annotations

import bisect
import itertools
from typing import Any

import numpy as np
from sortedcontainers import SortedKeyList, SortedList

from moraine.errors import StateError
from moraine.index.growable import Column
from moraine.model import TYPE_CODE, Event, event_ref, make_uid, session_ref, turn_ref
from moraine.store import columns
from moraine.store.batch import COMMENTARY, STARTS_TURN, TERMINAL_SHIFT, Batch
from moraine.store.contents import Contents
from moraine.store.session import Session, command_title, first_line, fold_event_meta
from moraine.store.turns import Turn, build_turns, one_turn
from moraine.store.uids import UidIndex, uid_keys
from moraine.store.validate import stored_row_problem

UNKNOWN = TYPE_CODE["unknown"]
TOOL_CALL = TYPE_CODE["tool_call"]


class Catalog:
    """Every event ever applied, with its session, in deterministic order."""

    def __init__(self) -> None:
        self.uid = Column("S26")
        self.type_code = Column(np.uint8)
        self.ts = Column(np.int64)
        self.session_ix = Column(np.int32)
        self.starts_turn = Column(np.bool_)
        self.terminal = Column(np.uint8)
        self.commentary = Column(np.bool_)
        self.alive = Column(np.bool_)
        self.pos = Column(np.int32)
        self.tool_ix = Column(np.int32)
        self.model_ix = Column(np.int32)
        self.file_ix = Column(np.int32)
        self.line = Column(np.int32)
        self.sub = Column(np.int32)
        self.nlines = Column(np.int32)  # lines of the event in its session's transcript (0: not in it; -1: unknown)
        self.tool_names: list[str] = [""]
        self.model_names: list[str] = [""]
        self.file_names: list[str] = [""]
        self._interned: dict[tuple[int, str], int] = {}
        self.content = Contents()
        self.by_uid = UidIndex(self.alive, self.uid)
        self.sessions: list[Session] = []
        self.by_key: dict[str, int] = {}
        self.by_sid: dict[str, int] = {}
        self.by_updated: SortedKeyList = SortedKeyList(key=lambda s: (s.updated_ms, s.id))
        self.projects: dict[str, SortedList] = {}
        self.orphans: dict[str, set[str]] = {}  # parent key → children seen before their parent
        self.source_names: list[str] = []  # each session's harness as a code: scope filters are masks
        self.session_source = Column(np.int16)

    # -- writing ---------------------------------------------------------------------------

    def session_for(self, key: str, source: str, ts_ms: int) -> Session:
        """The session of `key`, made (from its first event's harness and time) when new."""
        ix = self.by_key.get(key)
        if ix is None:
            sid = make_uid("session", key)
            session = Session(key=key, sid=sid, source=source, started_ms=ts_ms, updated_ms=ts_ms)
            ix = len(self.sessions)
            self.sessions.append(session)
            self.by_key[key] = ix
            self.by_sid[sid] = ix
            self.by_updated.add(session)
            self.session_source.extend(np.array([self._source_code(source)], dtype=np.int16))
        return self.sessions[ix]

    def _source_code(self, source: str) -> int:
        if source not in self.source_names:
            self.source_names.append(source)
        return self.source_names.index(source)

    def replaced(self, uid: str) -> int | None:
        """Retire the live doc with this uid (a re-read generation replaces, never duplicates)."""
        old = self.by_uid.pop(uid)
        if old is not None:
            self._retire(old)
        return old

    def file_docs(self, path: str) -> np.ndarray:
        """The live docs read from `path`."""
        ix = self._interned.get((2, path))
        if ix is None:
            return np.zeros(0, dtype=np.int64)
        return np.flatnonzero((self.file_ix.view == ix) & self.alive.view)

    def _retire(self, doc: int) -> None:
        self.alive[doc] = False
        self.content.blank(doc)
        session = self.sessions[int(self.session_ix.view[doc])]
        session.docs.remove(doc)
        session.order = None
        self._forget_turns(session)
        session.stale_meta = True

    def ordered(self, session: Session) -> list[tuple[Any, ...]]:
        """The session's sort keys (file start, file, line, sub), parallel to its docs."""
        if session.order is None:
            docs = np.asarray(session.docs, dtype=np.int64)
            names = [self.file_names[i] for i in self.file_ix.view[docs].tolist()]
            session.order = [(session.file_ts[f], f, ln, sb) for f, ln, sb in
                             zip(names, self.line.view[docs].tolist(), self.sub.view[docs].tolist(), strict=True)]
        return session.order

    def append_batch(self, first_doc: int, batch: Batch, sessions: dict[int, Session]) -> None:
        """Record a batch's events under consecutive doc ids (`sessions`: the session of each of
        the batch's keys that has events, from `session_for`). Columns grow once per batch; names
        are interned once per distinct name."""
        assert first_doc == len(self.content), "doc ids and catalog rows must stay aligned"
        n = len(batch)
        by_key = np.full(len(batch.keys), -1, dtype=np.int32)
        for k, session in sessions.items():
            by_key[k] = self.by_key[session.key]
        self.uid.extend(np.array(batch.uids, dtype="S26"))
        self.type_code.extend(batch.codes)
        self.ts.extend(batch.ts)
        self.session_ix.extend(by_key[batch.key_ix])
        self.starts_turn.extend(batch.flags & STARTS_TURN != 0)
        self.terminal.extend(batch.flags >> TERMINAL_SHIFT)
        self.commentary.extend(batch.flags & COMMENTARY != 0)
        self.alive.extend(np.ones(n, dtype=np.bool_))
        self.pos.extend(np.zeros(n, dtype=np.int32))
        self.tool_ix.extend(self._interned_ix(self.tool_names, 0, batch.names, batch.tool_ix))
        self.model_ix.extend(self._interned_ix(self.model_names, 1, batch.names, batch.model_ix))
        self.file_ix.extend(self._interned_ix(self.file_names, 2, batch.files, batch.file_ix))
        self.line.extend(batch.line)
        self.sub.extend(batch.sub)
        self.nlines.extend(batch.nlines)
        self.content.extend(batch.rows, batch.texts)
        self.by_uid.add_many(batch.uids, first_doc)
        self._order(first_doc, batch, [sessions[k] for k in batch.key_ix.tolist()])

    def _order(self, first_doc: int, batch: Batch, sessions: list[Session]) -> None:
        """Place each event in its session's order (log time of its file, line, sub-record) and
        fold it into the session's metadata."""
        files, file_ix = batch.files, batch.file_ix.tolist()
        ts, line, sub = batch.ts.tolist(), batch.line.tolist(), batch.sub.tolist()
        flags, codes, texts, metas = batch.flags.tolist(), batch.codes.tolist(), batch.texts, batch.metas
        for i, session in enumerate(sessions):
            doc_id = first_doc + i
            file = files[file_ix[i]]
            file_ts = session.file_ts.setdefault(file, ts[i])
            key = (file_ts, file, line[i], sub[i])
            order = self.ordered(session)
            if not order or key > order[-1]:
                order.append(key)
                session.docs.append(doc_id)
            else:
                at = bisect.bisect_right(order, key)
                order.insert(at, key)
                session.docs.insert(at, doc_id)
            meta = metas.get(i) if metas else None
            if meta:
                fold_event_meta(session, meta)
            if codes[i] == TOOL_CALL:
                session.tools = True
            self._fold_text(session, texts[i], bool(flags[i] & STARTS_TURN))
            self._forget_turns(session)

    def _interned_ix(self, table: list[str], kind: int, names: list[str], ix: np.ndarray) -> np.ndarray:
        """`ix` (into a batch's `names`) as indexes into the catalog's `table`, interning the
        names the batch uses."""
        mapped = np.zeros(len(names), dtype=np.int32)
        for k in np.unique(ix).tolist():
            mapped[k] = self._intern(table, kind, names[k])
        return mapped[ix]

    def _intern(self, table: list[str], kind: int, name: str | None) -> int:
        if not name:
            return 0
        ix = self._interned.get((kind, name))
        if ix is None:
            ix = self._interned[(kind, name)] = len(table)
            table.append(name)
        return ix

    @staticmethod
    def _fold_text(session: Session, text: str, starts_turn: bool) -> None:
        """The session's first prompt (the first turn-starting text) and a slash command's title."""
        if starts_turn and session.first_prompt is None and text.strip():
            session.first_prompt = first_line(text)
        elif session.title_command is None and text.lstrip().startswith("<command-"):
            session.title_command = command_title(text)

    def _refold_meta(self, session: Session) -> None:
        """Derive the session's titles, flags, cwd and parent again from its live events."""
        self._unlink_child(session)
        for name in ("cwd", "parent_key", "title_custom", "title_ai", "title_summary", "first_prompt", "git_branch",
                     "title_command"):
            setattr(session, name, None)
        session.web = session.moraine = session.tools = False
        for doc in session.docs:
            event = self.event(doc)
            if event.meta:
                fold_event_meta(session, event.meta)
            if event.type == "tool_call":
                session.tools = True
            self._fold_text(session, event.text, event.starts_turn)
        session.stale_meta = False

    def _unlink_child(self, session: Session) -> None:
        parent_ix = self.by_key.get(session.parent_key or "")
        if parent_ix is not None and session.key in self.sessions[parent_ix].children:
            self.sessions[parent_ix].children.remove(session.key)

    def touch(self, session: Session, before: tuple[int, int, str | None]) -> None:
        """Re-key a changed session in the ordered views (updated_at, project neighbours)."""
        old_started, old_updated, old_cwd = before
        if session.stale_meta:
            self._refold_meta(session)
        listed = session in self.by_updated
        if not session.docs:  # every event retired (its log replaced or forgotten): out of the views
            self.by_updated.discard(session)
            self._leave_project(old_cwd, old_started, session.sid)
            self._unlink_child(session)
            return
        started, updated = self._time_span(session)
        if updated != old_updated or started != old_started or not listed:
            self.by_updated.discard(session)
            session.started_ms, session.updated_ms = started, updated
            self.by_updated.add(session)
        if session.cwd != old_cwd or started != old_started or not listed:
            self._leave_project(old_cwd, old_started, session.sid)
            if session.cwd:
                self.projects.setdefault(session.cwd, SortedList()).add((started, session.sid))
        self._link_family(session)

    def _time_span(self, session: Session) -> tuple[int, int]:
        """First and last event times of a session with events."""
        times = self.ts.view[session.docs] if session.docs else np.zeros(1, np.int64)
        known = times[times > 0]  # a record without any timestamp must not date the session 1970
        times = known if len(known) else times
        return int(times.min()), int(times.max())

    def _leave_project(self, cwd: str | None, started: int, sid: str) -> None:
        """Take a session out of its project's neighbours, under the key it was listed with."""
        if cwd:
            self.projects.get(cwd, SortedList()).discard((started, sid))

    def _link_family(self, session: Session) -> None:
        """Link a session under its parent, and the children that came before it under it."""
        if session.parent_key:
            parent_ix = self.by_key.get(session.parent_key)
            if parent_ix is None:  # the child's lines came first (a crash's re-read): linked when it comes
                self.orphans.setdefault(session.parent_key, set()).add(session.key)
            elif session.key not in self.sessions[parent_ix].children:
                bisect.insort(self.sessions[parent_ix].children, session.key)  # one order however they came
        for child in self.orphans.pop(session.key, ()):
            if child not in session.children:
                bisect.insort(session.children, child)

    # -- persistence (see store.snapshot) -------------------------------------------------

    COLUMNS = ("uid", "type_code", "ts", "session_ix", "starts_turn", "terminal", "commentary", "alive",
               "tool_ix", "model_ix", "file_ix", "line", "sub", "nlines")
    # set once, when the event is appended: published as parts shared by generations (`store.columns`);
    # `nlines` only changes where a state older than it reads -1 (counted when first needed)
    GROWING = ("uid", "type_code", "ts", "session_ix", "starts_turn", "terminal", "commentary", "tool_ix",
               "model_ix", "file_ix", "line", "sub", "nlines")
    _SESSION_FIELDS = ("key", "sid", "source", "file_ts", "cwd", "parent_key", "children", "title_custom",
                       "title_ai", "title_summary", "first_prompt", "web", "moraine", "tools", "started_ms",
                       "updated_ms", "git_branch", "title_command")  # new fields go last: older snapshots lack them

    def snapshot_arrays(self) -> dict[str, np.ndarray]:
        arrays = {name: getattr(self, name).view for name in self.COLUMNS}
        arrays["uid_keys"], arrays["uid_docs"] = self.by_uid.compacted()
        lengths = np.array([len(s.docs) for s in self.sessions], dtype=np.int64)
        arrays["session_offsets"] = np.concatenate([[0], np.cumsum(lengths)]).astype(np.int64)
        arrays["session_docs"] = np.fromiter(itertools.chain.from_iterable(s.docs for s in self.sessions),
                                             dtype=np.int32, count=int(lengths.sum()))  # doc ids are int32 throughout
        return arrays

    def compact(self, keys: np.ndarray, docs: np.ndarray) -> None:
        """After a snapshot: the uid map becomes the sorted arrays just written (not a dict of
        every uid added since the start), and the sessions' sort keys are dropped (rebuilt from
        the columns when a session grows again), so a bulk index does not hold either for
        every event it ever read."""
        self.by_uid.restore(keys, docs)
        for session in self.sessions:
            session.order = None

    def snapshot_meta(self) -> dict[str, Any]:
        return {"tool_names": self.tool_names, "model_names": self.model_names, "file_names": self.file_names,
                "sessions": [[getattr(s, f) for f in self._SESSION_FIELDS] for s in self.sessions]}

    def restore(self, arrays: dict[str, Any], meta: dict[str, Any]) -> None:
        """Rebuild from a snapshot (`arrays`: each column's `columns.Source`); columns are copied
        into growable memory (they are small: the large parts, contents and postings, stay mapped)."""
        rows = columns.row_count(arrays.get("uid"))
        for name in self.COLUMNS:  # a column newer than the snapshot: -1 = to be derived when needed
            columns.fill(getattr(self, name), arrays.get(name), rows)
        self.tool_names, self.model_names, self.file_names = meta["tool_names"], meta["model_names"], \
            meta["file_names"]
        self._interned = {(kind, name): ix for kind, table in enumerate((self.tool_names, self.model_names,
                                                                         self.file_names))
                          for ix, name in enumerate(table) if ix}
        self.pos = Column(np.int32)
        self.pos.extend(np.zeros(self.uid.size, dtype=np.int32))
        self.by_uid = UidIndex(self.alive, self.uid)
        if "uid_keys" in arrays:
            self.by_uid.restore(arrays["uid_keys"], arrays["uid_docs"])
        else:  # a snapshot of the uids themselves, sorted: in key order too
            self.by_uid.restore(uid_keys(arrays["uid_sorted"]), np.asarray(arrays["uid_docs"]))
        bounds = np.asarray(arrays["session_offsets"]).tolist()
        docs = np.asarray(arrays["session_docs"]).tolist()
        fields = self._SESSION_FIELDS
        projects: dict[str, list[tuple[int, str]]] = {}
        for ix, row in enumerate(meta["sessions"]):
            session = Session(**dict(zip(fields, row, strict=False)))
            session.docs = docs[bounds[ix] : bounds[ix + 1]]
            session.order = None
            self.sessions.append(session)
            self.by_key[session.key] = ix
            self.by_sid[session.sid] = ix
            if session.docs and session.cwd:
                projects.setdefault(session.cwd, []).append((session.started_ms, session.sid))
        # bulk-built ordered views: one sort each instead of an insertion per session
        self.by_updated = SortedKeyList((s for s in self.sessions if s.docs), key=self.by_updated.key)
        self.projects = {cwd: SortedList(items) for cwd, items in projects.items()}
        self.session_source.extend(np.array([self._source_code(s.source) for s in self.sessions], dtype=np.int16))
        for session in self.sessions:
            if session.docs and session.parent_key and session.parent_key not in self.by_key:
                self.orphans.setdefault(session.parent_key, set()).add(session.key)

    # -- reading ---------------------------------------------------------------------------

    def event(self, doc_id: int) -> Event:
        """The doc's event as stored. A row that is not one (a bug wrote it, in a frame whose
        checksum held) is named with its remedy, not left to fail wherever a field is read."""
        try:
            row: Any = self.content.row(doc_id)
        except (IndexError, TypeError, ValueError):  # too short to hold a text; not msgpack
            row = None
        problem = "its row cannot be read" if row is None else stored_row_problem(row)
        if problem is not None:
            raise StateError(f"event {self.event_id(doc_id)} is stored damaged ({problem}); run `moraine reindex` "
                             "to rebuild the state from the logs")
        return Event.from_wire(row)

    def event_id(self, doc_id: int) -> str:
        return event_ref(self.uid.view[doc_id].decode("ascii"))

    def session_of(self, doc_id: int) -> Session:
        return self.sessions[int(self.session_ix.view[doc_id])]

    def turns(self, session: Session) -> list[Turn]:
        if session.turns is None:
            self._build_turns(session)
        assert session.turns is not None
        return session.turns

    def turn_of(self, doc_id: int) -> tuple[Session, Turn, int]:
        """The session, turn and one-based ordinal within the turn of a live doc. A session whose
        turns are not built yet gets only this turn built, and kept (a search hit's case: building
        every turn of each hit's session cost more than the search itself at 1M events, and even
        a short session's whole build, ~25 array calls, costs ~8 times its one turn's)."""
        session = self.session_of(doc_id)
        bounds = self._bounds(session)
        position = int(self.pos.view[doc_id])
        i = bisect.bisect_right(bounds, position) - 1
        turn = session.turns[i] if session.turns is not None else self._one_turn(session, i)
        return session, turn, position - turn.start + 1

    def last_turn(self, session: Session) -> Turn | None:
        """The session's last turn (whether the session is completed), built alone, and kept,
        when its turns are not built yet."""
        if session.turns is not None:
            return session.turns[-1] if session.turns else None
        return self._one_turn(session, len(self._bounds(session)) - 1) if session.docs else None

    def _bounds(self, session: Session) -> list[int]:
        """The session's turn starts, with each doc's position in the session set (once per
        change of the session: a hit's turn is then a bisect away)."""
        if session.bounds is None:
            docs = np.asarray(session.docs, dtype=np.int64)
            self.pos.view[docs] = np.arange(len(docs), dtype=np.int32)
            session.bounds = self._turn_starts(docs)
        return session.bounds

    def _one_turn(self, session: Session, i: int) -> Turn:
        """The session's turn of index `i`, built without the others and kept."""
        if session.some_turns is None:
            session.some_turns = {}
        turn = session.some_turns.get(i)
        if turn is not None:
            return turn
        bounds, n = self._bounds(session), len(session.docs)
        lo, hi = bounds[i], bounds[i + 1] if i + 1 < len(bounds) else n
        span = np.asarray(session.docs[lo:hi], dtype=np.int64)
        turn = one_turn(span, self.type_code.view[span], self.terminal.view[span], self.commentary.view[span],
                        self.ts.view[span], followed=hi < n)
        turn.ordinal, turn.start, turn.end = i + 1, lo, hi
        session.some_turns[i] = turn
        return turn

    @staticmethod
    def _forget_turns(session: Session) -> None:
        """The session changed: its turns, turn starts and positions are read again when next asked."""
        session.turns = session.bounds = session.some_turns = None

    def turn_id(self, session: Session, ordinal: int) -> str:
        return turn_ref(session.sid, ordinal)

    def _build_turns(self, session: Session) -> None:
        docs = np.asarray(session.docs, dtype=np.int64)
        bounds = self._bounds(session)
        session.turns = build_turns(docs, np.asarray(bounds, dtype=np.int64), self.type_code.view[docs],
                                    self.terminal.view[docs], self.commentary.view[docs], self.ts.view[docs])

    def _turn_starts(self, docs: np.ndarray) -> list[int]:
        """Where each turn of a session's ordered docs begins (the first always at 0)."""
        starts = np.flatnonzero(self.starts_turn.view[docs])
        return [0, *starts[1:].tolist()] if len(starts) else [0]

    def neighbours(self, session: Session) -> tuple[str | None, str | None]:
        """Previous and next session of the same project (same cwd), by start time."""
        if not session.cwd or session.cwd not in self.projects:
            return None, None
        ordered = self.projects[session.cwd]
        i = ordered.index((session.started_ms, session.sid))
        prev_sid = ordered[i - 1][1] if i > 0 else None
        next_sid = ordered[i + 1][1] if i + 1 < len(ordered) else None
        return (session_ref(prev_sid) if prev_sid else None, session_ref(next_sid) if next_sid else None)
