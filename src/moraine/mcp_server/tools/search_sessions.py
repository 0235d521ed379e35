"""`search_sessions`: where should I look? Ranked handles into the session graph."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np
import orjson
from pydantic import Field, field_validator

from moraine.errors import ContractError
from moraine.ingest.state import Freshness
from moraine.mcp_server.arguments import MAX_PATH, check, one_of
from moraine.mcp_server.contract import (
    Answer,
    Call,
    Timer,
    ToolResult,
    freshness_warnings,
    parse_id,
    respond,
)
from moraine.mcp_server.filters import Scope, TimeScopeArguments, doc_scope, parse_scope
from moraine.mcp_server.refs import resolve
from moraine.mcp_server.tools import Tool
from moraine.mcp_server.views import session_label, session_times, short_time
from moraine.model import DEFAULT_SEARCH_TYPES, SEARCHABLE_TYPES, shown_ts
from moraine.store.engine import Store
from moraine.store.query import Found, Hit, Query, find

NAME = "search_sessions"
DESCRIPTION = (
    "Search Moraine's index of past AI coding-agent sessions (Codex, Claude Code, Pi, Qwen Code, Kimi CLI, "
    "Cursor, Copilot CLI, Gemini CLI, OpenCode) with BM25. "
    "Returns ranked compact hits with event/turn/session IDs to pass to `open`. Scope with "
    "within_id (a session or turn ID); event_types defaults to user_input, assistant_response, "
    "tool_response."
)
if TYPE_CHECKING:
    SearchableType = str
else:
    SearchableType = one_of(SEARCHABLE_TYPES)


class SearchArguments(TimeScopeArguments):
    UNSUPPORTED: ClassVar[dict[str, tuple[str, str]]] = {
        "event_types": ("unsupported_event_type", "unsupported event type")}
    MALFORMED: ClassVar[dict[str, tuple[str, str]]] = {
        "within_id": ("invalid_id", "within_id is not a valid Moraine MCP ID")}

    query: str = Field(min_length=1, max_length=4096,
                       description="What to look for; words, identifiers, paths, error text, ranked by the "
                       "words they hold. \"a phrase\" in quotes must occur as written (its words adjacent, "
                       "in order, any spelling: fix_migration holds \"fix migration\"); -word or "
                       "-\"a phrase\" (or NOT word) leaves out the events holding it; OR may stand between "
                       "words. Quote a flag to search it (\"rm -rf\").")
    within_id: str | None = Field(None, max_length=MAX_PATH,
                                  description="Restrict to one session or turn ID returned by Moraine, or "
                                  "a session named by its native id or log path (null = everywhere).")
    event_types: list[SearchableType] | None = Field(None, min_length=1, description="Event types to search "
                                                     "(null = user_input, assistant_response, tool_response).")
    n_hits: int = Field(10, ge=1, le=50, description="How many hits (null = 10).")
    min_should_match: int | None = Field(None, ge=1, le=256, description="Hits must contain at least this many "
                                         "of the query's terms (clamped to their number; null = the [search] "
                                         "default, 1).")
    min_score: float | None = Field(None, ge=0, le=1, description="Leave out hits scoring below this (0-1; null = "
                                    "the [search] default, 0).")

    @field_validator("query")
    @classmethod
    def _trimmed(cls, value: str) -> str:
        if not value.strip():
            raise ValueError("blank")  # refused as `query must be a non-empty string`
        return value.strip()


SLA_GLOBAL, SLA_TURN, SLA_SESSION = 750, 300, 500
SNIPPET_CHARS = 320  # of a hit's snippet in the text; fewer when the reply would outgrow its bound:
SHORTER_SNIPPETS = (120, 40, 0)
DEADLINE_S = 5.0


def _canonical(store: Store, raw: Any) -> tuple[dict[str, Any], Scope]:
    args = check(SearchArguments, raw)
    within = args.within_id
    resolved = resolve(store, within, "within_id") if within is not None and within.strip() else within
    if resolved is not None and parse_id(resolved, "within_id").kind == "event":
        raise ContractError("invalid_request", "within_id accepts session and turn IDs, not event IDs",
                            {"field": "within_id"})
    types = DEFAULT_SEARCH_TYPES if args.event_types is None else args.event_types
    request = {"query": args.query, "within_id": within,
               "event_types": [t for t in SEARCHABLE_TYPES if t in types], "n_hits": args.n_hits}
    if resolved != within:
        request["resolved_within_id"] = resolved
    scope, echo = parse_scope(args)
    request.update(echo)
    for name in ("min_should_match", "min_score"):
        if getattr(args, name) is not None:
            request[name] = getattr(args, name)
    return request, scope


def _scope(store: Store, within: str | None) -> tuple[np.ndarray | None, int]:
    if within is None:
        return None, SLA_GLOBAL
    parsed = parse_id(within, "within_id")
    session = store.read.session_by_sid(parsed.key)
    if session is None or not session.docs:
        raise ContractError("not_found", "session not found" if parsed.kind == "session" else "turn not found",
                            {"field": "within_id", "kind": parsed.kind, "id": within})
    if parsed.kind == "session":
        return np.asarray(session.docs, dtype=np.int64), SLA_SESSION
    turns = store.read.turns(session)
    if parsed.ordinal > len(turns):
        raise ContractError("not_found", "turn not found", {"field": "within_id", "kind": "turn", "id": within})
    turn = turns[parsed.ordinal - 1]
    return np.asarray(session.docs[turn.start : turn.end], dtype=np.int64), SLA_TURN


def _hit(store: Store, rank: int, hit: Hit, sessions: dict[int, dict[str, Any]]) -> dict[str, Any]:
    """One hit; `sessions` holds the session objects this reply built (hits share sessions)."""
    session, turn, ordinal = store.read.turn_of(hit.doc)
    shown = sessions.get(id(session))
    if shown is None:
        shown = sessions[id(session)] = session_times(store, session)
    eid = store.read.event_id(hit.doc)
    tid = store.read.turn_id(session, turn.ordinal)
    return {
        "rank": rank,
        "score": round(hit.score, 6),
        "id": eid,
        "event": {"id": eid, "type": store.read.event_type(hit.doc),
                  "timestamp": shown_ts(store.read.event_time(hit.doc)), "ordinal": ordinal,
                  "terminal": turn.terminal_doc == hit.doc},
        "turn": {"id": tid, "ordinal": turn.ordinal, "completed": turn.completed,
                 "event_count": turn.end - turn.start},
        "session": shown,
        "snippet": {"text": hit.snippet, "truncated": hit.snippet_cut},
        "open": {"event_id": eid, "turn_id": tid, "session_id": session.id},
    }


def run(store: Store, args: Any, timer: Timer | None = None, fresh: Freshness | None = None) -> ToolResult:
    result = respond(Call(NAME, args, timer or Timer(), SLA_GLOBAL, fresh or Freshness()),
                     lambda call: _answer(store, call), render)
    bound = store.config.mcp.max_reply_chars
    if "data" in result.structured and len(result.text) > bound // 4:  # many long hits: shorter snippets, or none
        size = len(orjson.dumps(result.structured))
        for chars in SHORTER_SNIPPETS:
            if len(result.text) + size <= bound:
                break
            result.text = render(result.structured, chars)
    return result


def _answer(store: Store, call: Call) -> Answer:
    request, filters = _canonical(store, call.args)
    within, call.sla_ms = _scope(store, request.get("resolved_within_id", request["within_id"]))
    n_hits = request["n_hits"]
    found = find(store, Query(request["query"], n_hits, request["event_types"], doc_scope(store, filters, within),
                              request.get("min_should_match"), request.get("min_score"),
                              call.timer.deadline(DEADLINE_S)))
    sessions: dict[int, dict[str, Any]] = {}
    results = [_hit(store, i + 1, hit, sessions) for i, hit in enumerate(found.hits)]
    data = {"result_count": len(results), "limit": n_hits, "truncated": found.more, "results": results}
    return request, data, _warnings(store, found, call.fresh)


def _warnings(store: Store, found: Found, fresh: Freshness) -> list[str]:
    """How the query was read (terms cut, syntax not searched yet, a phrase checked on the best
    candidates only), then how fresh the index is."""
    warnings = list(found.notes)
    if found.terms_cut is not None:
        cut_at = found.terms_cut
        warnings.append(f"query has more than {cut_at} distinct terms; only the first {cut_at} were used")
    if found.checked_only is not None:
        warnings.append(f"the phrases were checked on the best {found.checked_only} candidates only; "
                        "more hits may hold them: add words to narrow the search")
    warnings.extend(freshness_warnings(store, fresh))
    return warnings


def render(envelope: dict[str, Any], snippet_chars: int = SNIPPET_CHARS) -> str:
    """Per hit: when, which harness, which project and session; the event's type, score and
    snippet; the IDs to open. The JSON holds the same (no page of content: snippets only)."""
    data = envelope["data"]
    query = envelope["request"]["query"]
    lines = [f'Found {data["result_count"]} hit(s) for "{query}"'
             + (" (more exist; raise n_hits or narrow the query)." if data["truncated"] else ".")]
    for hit in data["results"]:
        turn = hit["turn"]
        lines.append(f'{hit["rank"]}. [{hit["event"]["type"]}] score={hit["score"]:.2f} '
                     f'{short_time(hit["event"]["timestamp"])} · {session_label(hit["session"])}')
        lines.append(f'   event {hit["event"]["ordinal"]}/{turn["event_count"]} of turn {turn["ordinal"]}'
                     f'{"" if turn["completed"] else " (incomplete)"}'
                     + (f': {_cut(hit["snippet"]["text"], snippet_chars)}' if snippet_chars else ""))
        lines.append(f'   open: {hit["open"]["event_id"]} (turn {hit["open"]["turn_id"]}, '
                     f'session {hit["open"]["session_id"]})')
    lines.extend(f"warning: {w}" for w in envelope["warnings"])
    return "\n".join(lines)


def _cut(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


TOOL = Tool(NAME, DESCRIPTION, SearchArguments, run)
