"""What the MCP tools and the commands read of the state, by meaning: sessions, turns, events,
the doc sets a scope or a scan needs. `Store.read` is this facade (a `Reader` over the Store's
current state, which a reload swaps whole); the catalog's arrays, interned tables and ordered
indexes stay behind it, so the tools never index a column and a change of the catalog's layout
is made here, not in every tool. It writes nothing: a face that only reads (the page) is handed
a Reader, not the Store."""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterator, Sequence
from typing import TYPE_CHECKING, Protocol

import numpy as np

from moraine.model import EVENT_TYPES, Checkpoint, Event
from moraine.store.catalog import Catalog
from moraine.store.contents import TextStretch
from moraine.store.session import Session, transcript_lines
from moraine.store.turns import Turn

if TYPE_CHECKING:
    from moraine.store.state import State


class Holder(Protocol):
    """What a Reader reads through: the owner of the current state (the Store)."""

    state: State


class Reader:
    def __init__(self, holder: Holder) -> None:
        self._holder = holder

    @property
    def catalog(self) -> Catalog:
        return self._holder.state.catalog

    @property
    def checkpoints(self) -> dict[str, Checkpoint]:
        return self._holder.state.checkpoints

    # -- counts ----------------------------------------------------------------------------

    def session_count(self) -> int:
        """Sessions with at least one live event."""
        return len(self.catalog.by_updated)

    def live_event_count(self) -> int:
        return int(np.count_nonzero(self.catalog.alive.view))

    def text_bytes(self) -> int:
        """Transcript text held in content chunk files (what a history scan may read)."""
        return self.catalog.content.text_bytes()

    def harness_counts(self) -> dict[str, tuple[int, int]]:
        """Per harness: sessions with live events, and their live events."""
        catalog = self.catalog
        per_session = np.bincount(catalog.session_ix.view[catalog.alive.view], minlength=len(catalog.sessions))
        out: dict[str, tuple[int, int]] = {}
        for ix, session in enumerate(catalog.sessions):
            if session.docs:
                sessions, events = out.get(session.source, (0, 0))
                out[session.source] = (sessions + 1, events + int(per_session[ix]))
        return out

    def counts_under(self, roots: Sequence[Collection[str]]) -> list[tuple[int, int, int]]:
        """Per source, given as the path keys of its root (as configured and resolved): the logs
        read, and the sessions and live events read from under it. A log belongs to the most
        specific root holding it, so two sources of one harness are told apart, and a log no
        configured root holds (a source since removed) counts under none."""
        owner = _owner_of(roots)
        files = np.bincount(np.array([owner(path) for path in self.checkpoints] + [-1]) + 1,
                            minlength=len(roots) + 1)[1:]
        catalog = self.catalog
        owners = np.array([owner(name) for name in catalog.file_names], dtype=np.int64)
        alive = catalog.alive.view
        held = owners[catalog.file_ix.view[alive]]
        sessions = catalog.session_ix.view[alive]
        inside = held >= 0
        events = np.bincount(held[inside], minlength=len(roots))
        pairs = np.unique(held[inside] * max(len(catalog.sessions), 1) + sessions[inside])
        per_session = np.bincount(pairs // max(len(catalog.sessions), 1), minlength=len(roots))
        return [(int(f), int(s), int(e)) for f, s, e in zip(files, per_session, events, strict=True)]

    # -- sessions --------------------------------------------------------------------------

    def session_by_sid(self, sid: str) -> Session | None:
        ix = self.catalog.by_sid.get(sid)
        return None if ix is None else self.catalog.sessions[ix]

    def session_by_key(self, key: str) -> Session | None:
        """By the harness's key (`<source>:<native id>`)."""
        ix = self.catalog.by_key.get(key)
        return None if ix is None else self.catalog.sessions[ix]

    def session_of(self, doc: int) -> Session:
        return self.catalog.session_of(doc)

    def session_of_file(self, path_key: str) -> Session | None:
        """The session of a log file's first live event."""
        catalog = self.catalog
        if path_key not in catalog.file_names:
            return None
        docs = np.flatnonzero((catalog.file_ix.view == catalog.file_names.index(path_key)) & catalog.alive.view)
        return catalog.session_of(int(docs[0])) if len(docs) else None

    def sessions_newest_first(self) -> list[Session]:
        """Every session with live events, by last update, newest first."""
        return [s for s in reversed(self.catalog.by_updated) if s.docs]

    def sessions_updated(self, since_ms: int, after: tuple[int, str] | None, newest_first: bool) -> Iterator[Session]:
        """Sessions updated at or after `since_ms`, in update order, after the keyset cursor
        `after` (updated_ms, session ID) when given: `list_sessions`' pages, read off the sorted index."""
        by_updated = self.catalog.by_updated
        if newest_first:
            return by_updated.irange_key(min_key=(since_ms, ""), max_key=after, inclusive=(True, False), reverse=True)
        if after is not None:
            return by_updated.irange_key(min_key=after, inclusive=(False, True))
        return by_updated.irange_key(min_key=(since_ms, ""))

    def session_id_of_key(self, key: str | None) -> str | None:
        session = None if key is None else self.session_by_key(key)
        return None if session is None else session.id

    def children_ids(self, session: Session) -> list[str]:
        return [child.id for key in session.children if (child := self.session_by_key(key)) is not None]

    def neighbours(self, session: Session) -> tuple[str | None, str | None]:
        """Previous and next session of the same project (same cwd), by start time."""
        return self.catalog.neighbours(session)

    def session_completed(self, session: Session) -> bool:
        last = self.catalog.last_turn(session)
        return last is not None and last.completed

    def session_mask(self, sources: Collection[str] | None, cwd: str | None) -> np.ndarray:
        """Which sessions (by index) are of these harnesses and under this directory, without
        visiting each: a harness is a code column, a directory a walk over the distinct project
        directories."""
        catalog = self.catalog
        mask = np.ones(len(catalog.sessions), dtype=bool)
        if sources is not None:
            codes = [i for i, name in enumerate(catalog.source_names) if name in sources]
            mask &= np.isin(catalog.session_source.view, codes)
        if cwd is not None:
            in_dir = np.zeros(len(catalog.sessions), dtype=bool)
            for project, members in catalog.projects.items():
                if project == cwd or project.startswith(cwd.rstrip("/") + "/"):
                    in_dir[[catalog.by_sid[sid] for _, sid in members]] = True
            mask &= in_dir
        return mask

    def session_index(self, session: Session) -> int:
        """The session's index: what `session_mask` and `sessions_of` number sessions by."""
        return self.catalog.by_key[session.key]

    def sessions_of(self, docs: np.ndarray) -> np.ndarray:
        """Each doc's session index."""
        return self.catalog.session_ix.view[docs].astype(np.int64)

    def session_total(self) -> int:
        """How many session indexes there are (forgotten sessions keep theirs)."""
        return len(self.catalog.sessions)

    # -- turns -----------------------------------------------------------------------------

    def turns(self, session: Session) -> list[Turn]:
        return self.catalog.turns(session)

    def turn_of(self, doc: int) -> tuple[Session, Turn, int]:
        """The session, turn and one-based ordinal within the turn of a live doc."""
        return self.catalog.turn_of(doc)

    def turn_id(self, session: Session, ordinal: int) -> str:
        return self.catalog.turn_id(session, ordinal)

    # -- events ----------------------------------------------------------------------------

    def event(self, doc: int) -> Event:
        return self.catalog.event(doc)

    def event_id(self, doc: int) -> str:
        return self.catalog.event_id(doc)

    def doc_by_uid(self, uid: str) -> int | None:
        return self.catalog.by_uid.get(uid)

    def position_in_session(self, doc: int) -> int:
        """The doc's place in its session's event order (set once the session's turns are read)."""
        return int(self.catalog.pos.view[doc])

    def event_time(self, doc: int) -> int:
        return int(self.catalog.ts.view[doc])

    def event_type(self, doc: int) -> str:
        return EVENT_TYPES[int(self.catalog.type_code.view[doc])]

    def event_text(self, doc: int) -> str:
        """The event's text, without decoding the rest of its record (a search hit's snippet)."""
        return self.catalog.content.text(doc)

    def event_types(self, docs: list[int]) -> list[str]:
        """The docs' event types, each once, in order of first appearance."""
        codes: np.ndarray | list[int] = self.catalog.type_code.view[docs] if docs else []
        return list(dict.fromkeys(EVENT_TYPES[int(code)] for code in codes))

    def tools_called(self, docs: list[int]) -> list[str]:
        """Tools the docs call, each once, in order of first call."""
        catalog = self.catalog
        ids: np.ndarray | list[int] = catalog.tool_ix.view[docs] if docs else []
        calls: np.ndarray | list[int] = catalog.type_code.view[docs] if docs else []
        seen: dict[str, None] = {}
        for code, ix in zip(calls, ids, strict=True):
            if EVENT_TYPES[int(code)] == "tool_call" and ix:
                seen.setdefault(catalog.tool_names[int(ix)], None)
        return list(seen)

    def model_at(self, session: Session, position: int) -> str | None:
        """The latest model named at or before this place in the session."""
        catalog = self.catalog
        ids = catalog.model_ix.view[session.docs[max(0, position - 2000) : position + 1]]
        named = ids[ids > 0]
        return catalog.model_names[int(named[-1])] if len(named) else None

    # -- doc sets for a scope or a scan ----------------------------------------------------

    def docs_in_scope(self, sessions: np.ndarray | None, since_ms: int | None, until_ms: int | None,
                      within: np.ndarray | None) -> np.ndarray:
        """Docs (of `within`, or of the whole state) whose session is in the mask `sessions`
        (None: any) and whose time is in [since, until)."""
        catalog = self.catalog
        docs = within
        if docs is None:
            mask = sessions[catalog.session_ix.view] if sessions is not None else np.ones(len(catalog.content), bool)
            ts = catalog.ts.view
        else:
            mask = sessions[catalog.session_ix.view[docs]] if sessions is not None else np.ones(len(docs), bool)
            ts = catalog.ts.view[docs]
        if since_ms is not None:
            mask &= ts >= since_ms
        if until_ms is not None:
            mask &= ts < until_ms
        return np.flatnonzero(mask) if docs is None else docs[mask]

    def transcript_docs(self, session: Session | None, since_ms: int | None, until_ms: int | None) -> np.ndarray:
        """Live docs with transcript lines in [since, until), sorted: of one session, or of all
        (masks over whole columns: gathering them by doc id first cost 15-75 ms at 2M docs)."""
        catalog = self.catalog
        if session is not None:
            docs = np.sort(np.asarray(session.docs, dtype=np.int64))
            keep = self._with_lines(catalog.nlines.view[docs], catalog.ts.view[docs], since_ms, until_ms)
            return docs[keep]
        alive = catalog.alive.view
        return np.flatnonzero(alive & self._with_lines(catalog.nlines.view, catalog.ts.view, since_ms, until_ms))

    @staticmethod
    def _with_lines(nlines: np.ndarray, ts: np.ndarray, since_ms: int | None, until_ms: int | None) -> np.ndarray:
        keep = nlines != 0
        if since_ms is not None:
            keep &= ts >= since_ms
        if until_ms is not None:
            keep &= ts < until_ms
        return keep

    def line_counts(self, docs: np.ndarray) -> np.ndarray:
        """Each doc's transcript line count (counted and kept for a state written before the
        column existed)."""
        nlines = self.catalog.nlines.view
        counts = nlines[docs]
        for i in np.flatnonzero(counts < 0).tolist():
            counts[i] = nlines[docs[i]] = transcript_lines(self.catalog.event(int(docs[i])))
        return counts.astype(np.int64)

    def text_chunks(self, docs: np.ndarray) -> Iterator[TextStretch]:
        """The docs' transcript texts, a stretch per content chunk, read in place."""
        return self.catalog.content.text_chunks(docs)


def _owner_of(roots: Sequence[Collection[str]]) -> Callable[[str], int]:
    """The index of the most specific root holding a path key (-1: none)."""
    ranked = sorted(((len(key), i, key.rstrip("/")) for i, keys in enumerate(roots) for key in keys if key),
                    reverse=True)

    def owner(path: str) -> int:
        for _, i, root in ranked:
            if path == root or path.startswith(root + "/"):
                return i
        return -1

    return owner
