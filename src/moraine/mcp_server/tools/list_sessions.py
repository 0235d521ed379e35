"""`list_sessions`: sessions overlapping a datetime window, metadata only, cursor-paged."""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any, Literal

from pydantic import Field

from moraine.errors import ContractError, DeadlineExceeded
from moraine.ingest.state import Freshness
from moraine.mcp_server.arguments import MAX_CURSOR, MAX_TIME, check, one_of
from moraine.mcp_server.contract import (
    Answer,
    Call,
    Timer,
    ToolResult,
    decode_cursor,
    encode_cursor,
    freshness_warnings,
    parse_datetime,
    respond,
    signature,
)
from moraine.mcp_server.filters import Scope, ScopeArguments, parse_scope
from moraine.mcp_server.tools import Tool
from moraine.mcp_server.views import one_line, project_of, session_full, short_time
from moraine.model import MODES
from moraine.store.engine import Store
from moraine.store.session import Session

NAME = "list_sessions"
DESCRIPTION = (
    "List past agent sessions whose activity overlaps a datetime window [start, end), newest "
    "first by default, with compact metadata (title, source, mode, turn/event counts). Page with "
    "next_cursor. Use search_sessions for content and open for details."
)
if TYPE_CHECKING:
    Mode = str
else:
    Mode = one_of(MODES)


class ListArguments(ScopeArguments):
    start_datetime: str = Field(max_length=MAX_TIME,
                                description="Inclusive: RFC 3339 with offset or Z, or a date (2026-03-01 = its "
                                "midnight UTC).")
    end_datetime: str = Field(max_length=MAX_TIME,
                              description="Exclusive: RFC 3339 with offset or Z, or a date (its midnight UTC).")
    limit: int = Field(20, ge=1, le=50, description="Sessions per page (null = 20).")
    cursor: str | None = Field(None, max_length=MAX_CURSOR,
                               description="next_cursor of the previous page (null = first page).")
    mode: Mode | None = Field(None, description="Only sessions of this mode (null = all).")
    sort: Literal["desc", "asc"] = Field("desc", description="By updated_at: desc (newest first) or asc "
                                         "(null = desc).")


SLA_TYPICAL, SLA_BROAD, SLA_BROAD_MODE = 300, 1000, 1200
DEADLINE_TYPICAL_S, DEADLINE_BROAD_S = 2.0, 3.0
BROAD_WINDOW_MS = 30 * 24 * 3600 * 1000


def _canonical(raw: Any) -> tuple[dict[str, Any], int, int, Scope]:
    args = check(ListArguments, raw)
    start_text, start_ms = parse_datetime(args.start_datetime, "start_datetime")
    end_text, end_ms = parse_datetime(args.end_datetime, "end_datetime")
    if end_ms <= start_ms:
        raise ContractError("invalid_request", "end_datetime must be later than start_datetime",
                            {"field": "end_datetime"})
    cursor = args.cursor
    if cursor is not None and not cursor.strip():
        raise ContractError("invalid_request", "cursor must be a non-empty string or null", {"field": "cursor"})
    request = {"start_datetime": start_text, "end_datetime": end_text, "limit": args.limit,
               "cursor": cursor.strip() if cursor else None, "mode": args.mode, "sort": args.sort}
    scope, echo = parse_scope(args)
    request.update(echo)
    return request, start_ms, end_ms, scope


def _signature(request: dict[str, Any], start_ms: int, end_ms: int) -> str:
    """What a cursor is bound to: the window, mode, sort and (when given) the scope filters."""
    extra = [request[k] for k in ("source", "cwd") if k in request]
    return signature(start_ms, end_ms, request["mode"], request["sort"], *extra)


def _page(store: Store, request: dict[str, Any], start_ms: int, end_ms: int, deadline: float,
          budget_s: float, scope: Scope) -> tuple[list[Session], bool]:
    """Sessions with updated_at >= start and started_at < end, keyset-paged after the cursor."""
    sig = _signature(request, start_ms, end_ms)
    after: tuple[int, str] | None = None
    if request["cursor"]:
        cursor = decode_cursor(request["cursor"])
        if cursor["f"] != sig:
            raise ContractError("invalid_request", "cursor does not match the current list_sessions filter "
                                "and sort", {"field": "cursor"})
        after = (int(cursor["u"]), str(cursor["i"]))
    found: list[Session] = []
    for i, session in enumerate(store.read.sessions_updated(start_ms, after, newest_first=request["sort"] == "desc")):
        if i % 512 == 0 and time.monotonic() > deadline:
            raise DeadlineExceeded(int(budget_s * 1000))
        if session.started_ms >= end_ms or (request["mode"] and session.mode != request["mode"]):
            continue
        if scope.sessions_filtered and not scope.session_ok(session):
            continue
        found.append(session)
        if len(found) > request["limit"]:
            break
    more = len(found) > request["limit"]
    return found[: request["limit"]], more


def run(store: Store, args: Any, timer: Timer | None = None, fresh: Freshness | None = None) -> ToolResult:
    return respond(Call(NAME, args, timer or Timer(), SLA_TYPICAL, fresh or Freshness()),
                   lambda call: _answer(store, call), render)


def _answer(store: Store, call: Call) -> Answer:
    request, start_ms, end_ms, scope = _canonical(call.args)
    broad = end_ms - start_ms >= BROAD_WINDOW_MS
    budget = DEADLINE_BROAD_S if broad else DEADLINE_TYPICAL_S
    sessions, more = _page(store, request, start_ms, end_ms, call.timer.deadline(budget), budget, scope)
    if broad:  # a window of a month or more is the spec's "broad window"
        call.sla_ms = SLA_BROAD_MODE if request["mode"] else SLA_BROAD
    next_cursor = None
    if more:
        last = sessions[-1]
        next_cursor = encode_cursor({"u": last.updated_ms, "i": last.id,
                                     "f": _signature(request, start_ms, end_ms)})
    items = [{"rank": i, "id": s.id, "session": {**session_full(store, s), "session_slug": None,
                                                  "session_summary": None},
              "open": {"session_id": s.id}} for i, s in enumerate(sessions, start=1)]
    data = {"result_count": len(items), "limit": request["limit"], "truncated": more,
            "sessions": items, "next_cursor": next_cursor}
    return request, data, freshness_warnings(store, call.fresh)


def render(envelope: dict[str, Any]) -> str:
    """Per session: when it was last active, which harness, which project, its title; its size,
    mode and ID; how to resume it in its harness."""
    data = envelope["data"]
    lines = [f'{data["result_count"]} session(s)' + (" (more: pass next_cursor)." if data["truncated"] else ".")]
    for item in data["sessions"]:
        s = item["session"]
        where = " · ".join(part for part in (project_of(s["cwd"]), s.get("git_branch")) if part)
        lines.append(one_line(f'{item["rank"]}. {s["updated_at"] or "?"} [{s["source"]}, {s["mode"]}, '
                              f'{s["turn_count"]} turns] {where + " — " if where else ""}{s["title"] or "(untitled)"}'
                              f'  ({s["id"]})'))
        lines.append(one_line(f'   {s["event_count"]} events, {"completed" if s["completed"] else "not completed"}, '
                              f'started {short_time(s["started_at"])}; cwd {s["cwd"]}'
                              + (f'; resume: {s["resume_command"]}' if s.get("resume_command") else "")))
    if data["next_cursor"]:
        lines.append(f'next_cursor: {data["next_cursor"]}')
    lines.extend(f"warning: {w}" for w in envelope["warnings"])
    return "\n".join(lines)


TOOL = Tool(NAME, DESCRIPTION, ListArguments, run)
