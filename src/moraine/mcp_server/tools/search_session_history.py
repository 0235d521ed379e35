"""`search_session_history` (a history tool): a regular expression, line by line, over transcripts.

A session's transcript is the text of its events in order (Moraine's own tool traffic and
unknown records left out), each event's text split into lines; `line_number` counts from 1
within that transcript. Matching is RE2 (linear time, see `index.grep`) over the mapped content
chunks, every text of the scope read, so the result is exactly a full scan's; the sessions
searched are those with transcript lines in scope (`searched_sessions_total` counts them;
`searched_sessions` lists the sessions of the matches shown, or with `session_id` that session,
or every one with `include_searched_ids`). A line counts once however many times the pattern
matches in it (grep's count). Output follows the history tools' schema (not the v1
envelope), with `event_id` and `timestamp` on each match and a readable text block beside it.
"""

from __future__ import annotations

import time
from concurrent.futures import Future
from concurrent.futures import TimeoutError as FutureTimeout
from typing import Any

import numpy as np
from pydantic import Field

from moraine.errors import ContractError, DeadlineExceeded, SeedError
from moraine.index import grep_pool
from moraine.index.grep import MAX_PATTERN, InvalidPattern, LineHits, Pattern, compile_pattern, matching_lines_in
from moraine.ingest.state import Freshness
from moraine.mcp_server.arguments import MAX_PATH, check
from moraine.mcp_server.contract import ToolResult, freshness_warnings, parse_id, seed_respond
from moraine.mcp_server.filters import TimeArguments, parse_window
from moraine.mcp_server.refs import resolve
from moraine.mcp_server.tools import Tool
from moraine.mcp_server.views import session_brief, session_label, short_time
from moraine.model import shown_ts
from moraine.store.contents import TextStretch, encode_text
from moraine.store.engine import Store
from moraine.store.session import Session

NAME = "search_session_history"
DESCRIPTION = (
    "Search session transcripts line by line with a regular expression (RE2 syntax: no backreferences or "
    "lookaround; (?i) for case-insensitive). Returns matching lines with their line number in the session's "
    "transcript, context lines, the event ID (pass it to open) and its timestamp; total_matches counts every "
    "matching line. session_id (a session: ID) limits the search to one session."
)


class HistoryArguments(TimeArguments):
    session_id: str | None = Field(None, min_length=1, max_length=MAX_PATH,
                                   description="A session: ID returned by Moraine, a harness's own session "
                                   "id (native_id) or a log file's path (null = all sessions).")
    query: str = Field(min_length=1, max_length=MAX_PATTERN,
                       description="Regular expression (RE2 syntax), matched within each line of "
                       "each session's transcript.")
    context_lines: int = Field(3, ge=0, le=10, description="Lines of context before and after each match (null = 3).")
    max_results: int = Field(10, ge=1, le=100, description="Matches to return; total_matches counts them all "
                             "(null = 10).")
    include_searched_ids: bool = Field(False, description="List every searched session's ID in searched_sessions "
                                       "(up to 1,000; default false: the sessions of the matches shown, and "
                                       "searched_sessions_total counts them all; null = false).")
    context_in_text: bool = Field(False, description="Also quote each match's context lines in the text content "
                                  "(default false: they are in the structured content, the text shows the matching "
                                  "lines; true for hosts that show the model only the text; null = false).")


_LINES = {"type": "array", "items": {"type": "string"}}
OUTPUT_SCHEMA: dict[str, Any] = {  # the history tools' schema (additive fields allowed), or their error form
    "type": "object",
    "anyOf": [
        {"type": "object", "required": ["matches", "total_matches", "searched_sessions"], "properties": {
            "matches": {"type": "array", "items": {"type": "object", "properties": {
                "session_id": {"type": "string"}, "line_number": {"type": "integer"},
                "matched_text": {"type": "string"}, "context_before": _LINES, "context_after": _LINES,
                "timestamp": {"type": ["string", "null"], "format": "date-time"}, "event_id": {"type": "string"}}}},
            "total_matches": {"type": "integer"}, "searched_sessions": _LINES,
            "searched_sessions_total": {"type": "integer"}, "truncated": {"type": "boolean"}}},
        {"type": "object", "required": ["error", "code"],
         "properties": {"error": {"type": "string"}, "code": {"type": "string"}}},
    ],
}
DEADLINE_S = 2.0
MAX_SEARCHED_LISTED = 1000
LINE_CHARS = 300  # a returned line (match or context) is cut here, with "…"


def _canonical(raw: Any) -> dict[str, Any]:
    args = check(HistoryArguments, raw)
    _, since_ms, until_ms = parse_window(args)
    return {"query": args.query, "session_id": args.session_id, "context_lines": args.context_lines,
            "max_results": args.max_results, "since_ms": since_ms, "until_ms": until_ms,
            "include_searched_ids": args.include_searched_ids, "context_in_text": args.context_in_text}


def _scope(store: Store, session_id: str | None) -> list[Session]:
    """The sessions to search, newest first."""
    if session_id is None:
        return store.read.sessions_newest_first()
    try:  # a Moraine ID, a harness's native session id or a log path (refs.resolve, as open takes them)
        parsed = parse_id(resolve(store, session_id, "session_id"), "session_id")
    except ContractError as exc:
        if exc.code == "invalid_request":  # an ambiguous native id: INVALID_REQUEST with the candidates' IDs
            raise
        parsed = None
    session = store.read.session_by_sid(parsed.key) if parsed is not None and parsed.kind == "session" else None
    if session is None or not session.docs:
        raise SeedError("SESSION_NOT_FOUND", f"Session {session_id} not found")
    return [session]


class _Transcript:
    """One session's transcript: its events' line counts and texts, read as needed."""

    def __init__(self, store: Store, session: Session) -> None:
        self.store, self.session = store, session
        self.docs = np.asarray(session.docs, dtype=np.int64)
        self.counts = store.read.line_counts(self.docs)
        self.position = {doc: i for i, doc in enumerate(session.docs)}
        self.before = np.concatenate([[0], np.cumsum(self.counts)[:-1]])  # lines before each event
        self.texts: dict[int, list[str]] = {}

    def lines(self, position: int) -> list[str]:
        if position not in self.texts:
            self.texts[position] = self.store.read.event(int(self.docs[position])).text.split("\n")
        return self.texts[position]

    def context(self, position: int, line: int, count: int, step: int) -> list[str]:
        """`count` lines before (step -1) or after (step 1) line `line` of the event at `position`."""
        out: list[str] = []
        lines = self.lines(position)
        i = line + step
        while len(out) < count:
            if 0 <= i < len(lines):
                out.append(_cut(lines[i]))
                i += step
                continue
            position += step
            while 0 <= position < len(self.docs) and self.counts[position] == 0:
                position += step
            if not 0 <= position < len(self.docs):
                break
            lines = self.lines(position)
            i = 0 if step > 0 else len(lines) - 1
        return out if step > 0 else out[::-1]


def _cut(line: str) -> str:
    return line if len(line) <= LINE_CHARS else line[: LINE_CHARS - 1] + "…"


def _candidates(store: Store, sessions: list[Session], request: dict[str, Any]) -> np.ndarray:
    """Docs that may hold a match: in a transcript and in scope."""
    return store.read.transcript_docs(sessions[0] if request["session_id"] is not None else None,
                                 request["since_ms"], request["until_ms"])


def search(store: Store, request: dict[str, Any], deadline: float) -> dict[str, Any]:
    try:
        pattern = compile_pattern(request["query"])
    except InvalidPattern as exc:
        raise SeedError("INVALID_REGEX", f"Invalid regex pattern: {exc}") from None
    with store.lock:  # what to scan is read under the readers' lock ...
        sessions = _scope(store, request["session_id"])
        docs = _candidates(store, sessions, request)
        scan = _Scan(store, pattern, request["query"], docs, deadline)  # the workers start on the chunk files
        searched, rank = _searched(store, sessions, docs, request)  # meanwhile
    hit_docs, hit_offsets = [], []
    for stretch, hits in scan.results():  # ... the scan runs without it: other calls are never held up by it
        hit_docs.append(stretch.docs[hits.which])
        hit_offsets.append(hits.offsets)
    found_docs = np.concatenate(hit_docs) if hit_docs else np.zeros(0, dtype=np.int64)
    offsets = np.concatenate(hit_offsets) if hit_offsets else np.zeros(0, dtype=np.int64)
    total = len(found_docs)
    with store.lock:
        first = _first_hits(store, rank, found_docs, offsets, request["max_results"])
        matches = _matches(store, searched, first, request)
    if request.get("include_searched_ids") or request["session_id"] is not None:
        listed = [s.id for s in searched[:MAX_SEARCHED_LISTED]]
    else:  # a count, not thousands of IDs: the sessions of the matches shown (newest first)
        listed = list(dict.fromkeys(m["session_id"] for m in matches))
    return {"matches": matches, "total_matches": total, "truncated": total > request["max_results"],
            "searched_sessions": listed, "searched_sessions_total": len(searched)}


def _searched(store: Store, sessions: list[Session], docs: np.ndarray, request: dict[str, Any]
              ) -> tuple[list[Session], np.ndarray]:
    """The sessions whose text is read (those with transcript lines in the window), newest
    first, and each session's rank among them by its index (len(searched): not searched)."""
    ixs = [store.read.session_index(s) for s in sessions]
    if request["session_id"] is None:  # a count by session, not np.unique: a sort of every doc cost 20-40 ms at 1M
        read = np.bincount(store.read.sessions_of(docs), minlength=store.read.session_total())[ixs] > 0
        sessions = [s for s, keep in zip(sessions, read.tolist(), strict=True) if keep]
        ixs = np.asarray(ixs, dtype=np.int64)[read].tolist()
    rank = np.full(store.read.session_total(), len(sessions), dtype=np.int64)
    rank[ixs] = np.arange(len(sessions))
    return sessions, rank


class _Scan:
    """Every stretch of texts with its matching lines. Large scans of chunk files are shared
    by the worker processes (RE2 holds the GIL: two cores take two processes), started at
    once; this process scans the texts held in memory when asked for the results."""

    def __init__(self, store: Store, pattern: Pattern, query: str, docs: np.ndarray, deadline: float) -> None:
        self.pattern, self.deadline = pattern, deadline
        self.stretches = list(store.read.text_chunks(docs))
        config = store.config.search
        size = sum(_text_bytes(s) for s in self.stretches if s.path is not None)
        self.futures: dict[int, Future[LineHits]] = {}
        if config.history_workers > 1 and size >= config.history_parallel_bytes:
            piece = max(_MIN_PIECE, size // (config.history_workers * _PIECES_PER_WORKER))
            self.stretches = [part for s in self.stretches
                              for part in (_split(s, piece) if s.path is not None else [s])]
            workers = grep_pool.pool(config.history_workers)
            mapped = [i for i, s in enumerate(self.stretches) if s.path is not None]
            biggest_first = sorted(mapped, key=lambda i: -_text_bytes(self.stretches[i]))  # the workers end together
            self.futures = {i: workers.submit(query, self.stretches[i].path,  # type: ignore[arg-type]
                                              self.stretches[i].starts, self.stretches[i].ends, deadline)
                            for i in biggest_first}

    def results(self) -> list[tuple[TextStretch, LineHits]]:
        out = []
        try:
            for i, stretch in enumerate(self.stretches):
                if i in self.futures:
                    continue
                _check_deadline(self.deadline)
                out.append((stretch, matching_lines_in(self.pattern, stretch.data, stretch.starts, stretch.ends,
                                                       stretch.newlines, self.deadline)))
            for i, future in self.futures.items():
                left = self.deadline - time.monotonic()
                out.append((self.stretches[i],
                            future.result(timeout=None if left == float("inf") else max(0.0, left))))
        except (FutureTimeout, DeadlineExceeded):  # every scan stops within a slice of the deadline
            _check_deadline(float("-inf"))
        finally:
            for future in self.futures.values():
                future.cancel()
        return out


# A scan is cut into pieces of about equal text, several a worker, taken in turn by whichever worker
# is free: cut a chunk at a time, the window's chunks (27-60 MB of text each in the 1M corpus's
# newest 30 days) left one worker idle while the other finished its last chunk.
_PIECES_PER_WORKER = 4
_MIN_PIECE = 4 << 20


def _text_bytes(stretch: TextStretch) -> int:
    return int((stretch.ends - stretch.starts).sum()) + len(stretch.starts)


def _split(stretch: TextStretch, piece: int) -> list[TextStretch]:
    """The stretch as consecutive stretches of about `piece` bytes of text each (whole texts)."""
    sizes = np.cumsum(stretch.ends - stretch.starts + 1)
    cuts = np.searchsorted(sizes, np.arange(piece, int(sizes[-1]) if len(sizes) else 0, piece), side="right")
    bounds = np.unique(np.concatenate([[0], cuts, [len(sizes)]]))
    return [TextStretch(stretch.data, stretch.starts[lo:hi], stretch.ends[lo:hi], stretch.docs[lo:hi],
                        stretch.newlines, stretch.path)
            for lo, hi in zip(bounds[:-1].tolist(), bounds[1:].tolist(), strict=True)]


def _check_deadline(deadline: float) -> None:
    if time.monotonic() > deadline:
        raise SeedError("DEADLINE_EXCEEDED", f"the search ran past {DEADLINE_S:.0f} s; narrow it with "
                           "session_id or since, or a pattern with a literal of 3+ characters")


def _first_hits(store: Store, rank: np.ndarray, docs: np.ndarray, offsets: np.ndarray, limit: int
                ) -> dict[int, list[tuple[int, int]]]:
    """The hits of the newest sessions that hold at least `limit` of them, by session (only
    these can be shown: the rest are only counted, so they are never unpacked)."""
    if not len(docs):
        return {}
    session_ix = store.read.sessions_of(docs)
    hit_rank = rank[session_ix]
    cut = int(np.searchsorted(np.cumsum(np.bincount(hit_rank)), min(len(docs), limit)))  # the limit-th hit's rank
    chosen = np.flatnonzero(hit_rank <= cut)
    found: dict[int, list[tuple[int, int]]] = {}
    for doc, offset, ix in zip(docs[chosen].tolist(), offsets[chosen].tolist(), session_ix[chosen].tolist(),
                               strict=True):
        found.setdefault(ix, []).append((doc, offset))
    return found


def _matches(store: Store, searched: list[Session], found: dict[int, list[tuple[int, int]]],
             request: dict[str, Any]) -> list[dict[str, Any]]:
    """The first `max_results` matching lines, newest session first, in transcript order, with
    context; cut short if the reply would outgrow the host's bound."""
    matches: list[dict[str, Any]] = []
    share = 0.4 if request.get("context_in_text") else 0.7  # with context in the text, the lines are there twice
    used, budget = 0, int(store.config.mcp.max_reply_chars * share)
    n = request["context_lines"]
    for session in searched:
        hits = found.get(store.read.session_index(session))
        if not hits:
            continue
        transcript = _Transcript(store, session)
        for doc, offset in sorted(hits, key=lambda h: (transcript.position[h[0]], h[1])):
            if len(matches) >= request["max_results"] or used > budget:
                return matches
            position = transcript.position[doc]
            line = encode_text("\n".join(transcript.lines(position)))[:offset].count(b"\n")
            matches.append({
                "session_id": session.id, "line_number": int(transcript.before[position]) + line + 1,
                "matched_text": _cut(transcript.lines(position)[line]),
                "context_before": transcript.context(position, line, n, -1),
                "context_after": transcript.context(position, line, n, 1),
                "timestamp": shown_ts(store.read.event_time(doc)), "event_id": store.read.event_id(doc),
            })
            used += sum(len(x) + 8 for x in (*matches[-1]["context_before"], *matches[-1]["context_after"],
                                             matches[-1]["matched_text"])) + 200
    return matches


def run(store: Store, args: Any, timer: Any = None, fresh: Freshness | None = None) -> ToolResult:
    return seed_respond(NAME, lambda: _answer(store, args, time.monotonic(), fresh or Freshness()))


def _answer(store: Store, args: Any, started: float, fresh: Freshness) -> ToolResult:
    request = _canonical(args)
    data = search(store, request, started + DEADLINE_S)
    data["warnings"] = freshness_warnings(store, fresh)
    return ToolResult(data, render(data, _labels(store, data), request["context_in_text"]))


def _labels(store: Store, data: dict[str, Any]) -> dict[str, str]:
    """For the text: each matching session's harness, project and title."""
    labels = {}
    for sid in dict.fromkeys(m["session_id"] for m in data["matches"]):
        session = store.read.session_by_sid(parse_id(sid).key)
        if session is not None:
            labels[sid] = session_label(session_brief(store, session))
    return labels


def render(data: dict[str, Any], labels: dict[str, str] | None = None, with_context: bool = False) -> str:
    """Matches grouped by session (its harness, project and title once), each with its line
    number, time, event ID and matching line; the context lines only `with_context` (they are
    in the structured content: a reply carries them once)."""
    labels = labels or {}
    listed = len(data["searched_sessions"])
    lines = [f'{data["total_matches"]} matching line(s) in {data["searched_sessions_total"]} session(s) searched; '
             f'{len(data["matches"])} shown.'
             + ("" if listed >= data["searched_sessions_total"] else
                " (searched_sessions lists the sessions of the matches shown; include_searched_ids=true lists all.)")]
    current = None
    for match in data["matches"]:
        if match["session_id"] != current:
            current = match["session_id"]
            lines.append(f'{current} — {labels.get(current, "")}'.rstrip(" —"))
        lines.append(f'  line {match["line_number"]} ({short_time(match["timestamp"])}, open: {match["event_id"]}):')
        lines += [f"      {line}" for line in match["context_before"] if with_context]
        lines.append(f"    > {match['matched_text']}")
        lines += [f"      {line}" for line in match["context_after"] if with_context]
    lines += [f"warning: {w}" for w in data.get("warnings", [])]
    return "\n".join(lines)


# It holds the readers' lock to read the state, not while its scan runs.
TOOL = Tool(NAME, DESCRIPTION, HistoryArguments, run, output_schema=OUTPUT_SCHEMA, locks_itself=True)
