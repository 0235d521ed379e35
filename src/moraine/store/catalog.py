"""Sessions, turns and per-event metadata, derived from the normalized events.

Per-event metadata is columnar (numpy), event content is packed msgpack addressed by doc
id, sessions are compact records ordered by `updated_at` in a `SortedKeyList`. Turns are
derived, not stored: a session's turn structure is recomputed (vectorized) only when the
session changed, so late or re-read events can never leave stale turn boundaries.
"""

from __future__ import annotations

import bisect
from dataclasses import dataclass, field
from typing import Any

import msgpack
import numpy as np
from sortedcontainers import SortedKeyList, SortedList

from moraine.index.growable import Column
from moraine.model import TERMINAL_FINISH, TYPE_CODE, Event
from moraine.sources._common import make_uid

USER = TYPE_CODE["user_input"]
ASSISTANT = TYPE_CODE["assistant_response"]
TOOL_CALL = TYPE_CODE["tool_call"]
UNKNOWN = TYPE_CODE["unknown"]
TITLE_CHARS = 80
PLACEHOLDERS = frozenset({"[image]", "[document]"})


@dataclass(slots=True)
class Turn:
    ordinal: int
    start: int  # position in the session's ordered docs
    end: int  # exclusive
    completed: bool
    terminal_doc: int | None
    user_doc: int | None
    final_doc: int | None
    started_ms: int
    updated_ms: int


@dataclass(slots=True, eq=False)
class Session:
    key: str
    sid: str
    source: str
    docs: list[int] = field(default_factory=list)
    order: list[tuple[Any, ...]] = field(default_factory=list)
    file_ts: dict[str, int] = field(default_factory=dict)
    cwd: str | None = None
    parent_key: str | None = None
    children: list[str] = field(default_factory=list)
    title_custom: str | None = None
    title_ai: str | None = None
    title_summary: str | None = None
    first_prompt: str | None = None
    web: bool = False
    moraine: bool = False
    tools: bool = False
    started_ms: int = 0
    updated_ms: int = 0
    bounds: list[int] | None = None
    turns: list[Turn] | None = None

    @property
    def id(self) -> str:
        return f"session:ses_{self.sid}"

    @property
    def title(self) -> str | None:
        return self.title_custom or self.title_ai or self.title_summary or self.first_prompt

    @property
    def mode(self) -> str:
        if self.web:
            return "web_search"
        if self.moraine:
            return "mcp_internal"
        return "tool_calling" if self.tools else "chat"


def _first_line(text: str) -> str:
    line = next((ln.strip() for ln in text.splitlines() if ln.strip() and ln.strip() not in PLACEHOLDERS), "")
    return line if len(line) <= TITLE_CHARS else line[: TITLE_CHARS - 1].rstrip() + "…"


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
        self.tool_names: list[str] = [""]
        self.model_names: list[str] = [""]
        self._interned: dict[tuple[int, str], int] = {}
        self.content: list[bytes] = []
        self.by_uid: dict[str, int] = {}
        self.sessions: list[Session] = []
        self.by_key: dict[str, int] = {}
        self.by_sid: dict[str, int] = {}
        self.by_updated: SortedKeyList = SortedKeyList(key=lambda s: (s.updated_ms, s.id))
        self.projects: dict[str, SortedList] = {}

    # -- writing ---------------------------------------------------------------------------

    def session_for(self, event: Event) -> Session:
        ix = self.by_key.get(event.session_key)
        if ix is None:
            sid = make_uid("session", event.session_key)
            session = Session(key=event.session_key, sid=sid, source=event.source,
                              started_ms=event.ts_ms, updated_ms=event.ts_ms)
            ix = len(self.sessions)
            self.sessions.append(session)
            self.by_key[event.session_key] = ix
            self.by_sid[sid] = ix
            self.by_updated.add(session)
        return self.sessions[ix]

    def replaced(self, uid: str) -> int | None:
        """Retire the live doc with this uid (a re-read generation replaces, never duplicates)."""
        old = self.by_uid.pop(uid, None)
        if old is None:
            return None
        self.alive[old] = False
        session = self.sessions[int(self.session_ix.view[old])]
        i = session.docs.index(old)
        del session.docs[i]
        del session.order[i]
        session.turns = None
        return old

    def append_batch(self, first_doc: int, events: list[Event], rows: list[list[Any]]) -> None:
        """Record events under consecutive doc ids; columns grow once per batch."""
        assert first_doc == len(self.content), "doc ids and catalog rows must stay aligned"
        sessions = [self.session_for(e) for e in events]
        n = len(events)
        self.uid.extend(np.array([e.uid.encode("ascii") for e in events], dtype="S26"))
        self.type_code.extend(np.array([TYPE_CODE.get(e.type, UNKNOWN) for e in events], dtype=np.uint8))
        self.ts.extend(np.array([e.ts_ms for e in events], dtype=np.int64))
        self.session_ix.extend(np.array([self.by_key[s.key] for s in sessions], dtype=np.int32))
        self.starts_turn.extend(np.array([e.starts_turn for e in events], dtype=np.bool_))
        self.terminal.extend(np.array([e.terminal for e in events], dtype=np.uint8))
        self.commentary.extend(np.array([(e.phase or "").lower() == "commentary" for e in events], dtype=np.bool_))
        self.alive.extend(np.ones(n, dtype=np.bool_))
        self.pos.extend(np.zeros(n, dtype=np.int32))
        self.tool_ix.extend(np.array([self._intern(self.tool_names, 0, e.tool_name) for e in events], np.int32))
        self.model_ix.extend(np.array([self._intern(self.model_names, 1, e.model) for e in events], np.int32))
        packb = msgpack.packb
        self.content.extend(packb(row, use_bin_type=True) for row in rows)
        for offset, (event, session) in enumerate(zip(events, sessions, strict=True)):
            doc_id = first_doc + offset
            self.by_uid[event.uid] = doc_id
            file_ts = session.file_ts.setdefault(event.file, event.ts_ms)
            key = (file_ts, event.file, event.line, event.sub)
            if not session.order or key > session.order[-1]:
                session.order.append(key)
                session.docs.append(doc_id)
            else:
                i = bisect.bisect_right(session.order, key)
                session.order.insert(i, key)
                session.docs.insert(i, doc_id)
            self._fold_meta(session, event)
            session.turns = None

    def _intern(self, table: list[str], kind: int, name: str | None) -> int:
        if not name:
            return 0
        ix = self._interned.get((kind, name))
        if ix is None:
            ix = self._interned[(kind, name)] = len(table)
            table.append(name)
        return ix

    def _fold_meta(self, session: Session, event: Event) -> None:
        meta = event.meta
        if meta:
            if meta.get("cwd") and not session.cwd:
                session.cwd = meta["cwd"]
            if meta.get("title_custom"):
                session.title_custom = str(meta["title_custom"])
            if meta.get("title_ai"):
                session.title_ai = str(meta["title_ai"])
            if meta.get("title_summary"):
                session.title_summary = str(meta["title_summary"])
            if meta.get("web"):
                session.web = True
            if meta.get("moraine"):
                session.moraine = True
            if meta.get("parent") and not session.parent_key:
                session.parent_key = meta["parent"]
        if event.type == "tool_call":
            session.tools = True
        if event.starts_turn and session.first_prompt is None and event.text.strip():
            session.first_prompt = _first_line(event.text)

    def touch(self, session: Session, before: tuple[int, int, str | None]) -> None:
        """Re-key a changed session in the ordered views (updated_at, project neighbours)."""
        old_started, old_updated, old_cwd = before
        times = self.ts.view[session.docs] if session.docs else np.zeros(1, np.int64)
        known = times[times > 0]  # a record without any timestamp must not date the session 1970
        times = known if len(known) else times
        started, updated = int(times.min()), int(times.max())
        if updated != old_updated or started != old_started:
            self.by_updated.discard(session)
            session.started_ms, session.updated_ms = started, updated
            self.by_updated.add(session)
        if session.cwd and (session.cwd != old_cwd or started != old_started):
            if old_cwd:
                self.projects.get(old_cwd, SortedList()).discard((old_started, session.sid))
            self.projects.setdefault(session.cwd, SortedList()).add((started, session.sid))
        if session.parent_key:
            parent_ix = self.by_key.get(session.parent_key)
            if parent_ix is not None and session.key not in self.sessions[parent_ix].children:
                self.sessions[parent_ix].children.append(session.key)

    # -- reading ---------------------------------------------------------------------------

    def event(self, doc_id: int) -> Event:
        return Event.from_wire(msgpack.unpackb(self.content[doc_id], raw=False))

    def event_id(self, doc_id: int) -> str:
        return f"event:evt_{self.uid.view[doc_id].decode('ascii')}"

    def session_of(self, doc_id: int) -> Session:
        return self.sessions[int(self.session_ix.view[doc_id])]

    def turns(self, session: Session) -> list[Turn]:
        if session.turns is None:
            self._build_turns(session)
        assert session.turns is not None
        return session.turns

    def turn_of(self, doc_id: int) -> tuple[Session, Turn, int]:
        """The session, turn and one-based ordinal within the turn of a live doc."""
        session = self.session_of(doc_id)
        turns = self.turns(session)
        position = int(self.pos.view[doc_id])
        turn = turns[bisect.bisect_right(session.bounds or [0], position) - 1]
        return session, turn, position - turn.start + 1

    def turn_id(self, session: Session, ordinal: int) -> str:
        return f"turn:trn_{session.sid}_{ordinal}"

    def _build_turns(self, session: Session) -> None:
        docs = np.asarray(session.docs, dtype=np.int64)
        self.pos.view[docs] = np.arange(len(docs), dtype=np.int32)
        starts = np.flatnonzero(self.starts_turn.view[docs])
        bounds = [0, *starts[1:].tolist()] if len(starts) else [0]
        types, marks = self.type_code.view[docs], self.terminal.view[docs]
        comment, times = self.commentary.view[docs], self.ts.view[docs]
        ends = [*bounds[1:], len(docs)]
        turns: list[Turn] = []
        for ordinal, (lo, hi) in enumerate(zip(bounds, ends, strict=True), start=1):
            is_last = hi == len(docs)
            turns.append(self._turn(ordinal, lo, hi, is_last, docs, types, marks, comment, times))
        session.bounds, session.turns = bounds, turns

    @staticmethod
    def _turn(ordinal: int, lo: int, hi: int, is_last: bool, docs: np.ndarray, types: np.ndarray,
              marks: np.ndarray, comment: np.ndarray, times: np.ndarray) -> Turn:
        t, m = types[lo:hi], marks[lo:hi]
        users = np.flatnonzero(t == USER)
        answers = np.flatnonzero(t == ASSISTANT)
        finals = answers[~comment[lo:hi][answers]] if len(answers) else answers
        finals = finals if len(finals) else answers
        markers = np.flatnonzero(m)
        terminal = final = None
        if len(markers):
            last = int(markers[-1])
            final = int(finals[-1]) if len(finals) else None
            terminal = final if m[last] == TERMINAL_FINISH and final is not None else last
        elif not is_last and len(finals):
            terminal = final = int(finals[-1])
        doc = (lambda p: int(docs[lo + p]) if p is not None else None)  # noqa: E731
        return Turn(
            ordinal=ordinal, start=lo, end=hi, completed=terminal is not None,
            terminal_doc=doc(terminal), user_doc=doc(int(users[0])) if len(users) else None,
            final_doc=doc(final), started_ms=int(times[lo:hi].min()), updated_ms=int(times[lo:hi].max()),
        )

    def neighbours(self, session: Session) -> tuple[str | None, str | None]:
        """Previous and next session of the same project (same cwd), by start time."""
        if not session.cwd or session.cwd not in self.projects:
            return None, None
        ordered = self.projects[session.cwd]
        i = ordered.index((session.started_ms, session.sid))
        prev_sid = ordered[i - 1][1] if i > 0 else None
        next_sid = ordered[i + 1][1] if i + 1 < len(ordered) else None
        return (f"session:ses_{prev_sid}" if prev_sid else None, f"session:ses_{next_sid}" if next_sid else None)

