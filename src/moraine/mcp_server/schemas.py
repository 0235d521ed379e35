"""Pydantic models of the v1 response envelopes, published as each tool's `outputSchema`.

A tool returns either its success envelope or the error envelope (in-band errors), so the
published schema is `anyOf` both. Models allow extra fields: additive fields are allowed by
the contract, removing or renaming is not.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

EventType = Literal["user_input", "assistant_response", "reasoning", "tool_call", "tool_response",
                    "compaction", "system", "runtime", "unknown"]


class _Open(BaseModel):
    model_config = ConfigDict(extra="allow")


class Performance(_Open):
    elapsed_ms: int = Field(ge=0)
    sla_target_ms: int
    met_sla: bool


class _Envelope(_Open):
    tool: str
    request: dict[str, Any]
    warnings: list[str]
    performance: Performance


class ErrorObject(_Open):
    code: Literal["invalid_request", "invalid_id", "not_found", "unsupported_event_type",
                  "deadline_exceeded", "internal_error"]
    message: str
    details: dict[str, Any]


class ErrorEnvelope(_Envelope):
    schema_version: Literal["moraine.mcp.error.v1"]
    error: ErrorObject


class TextRef(_Open):
    event_id: str
    text: str | None
    truncated: bool


class SessionBrief(_Open):
    id: str
    title: str | None
    source: str


class SessionTimes(SessionBrief):
    started_at: str | None
    updated_at: str | None
    completed: bool


class SessionFull(SessionTimes):
    turn_count: int
    event_count: int


class HitEvent(_Open):
    id: str
    type: EventType
    timestamp: str | None
    ordinal: int = Field(ge=1)
    terminal: bool


class HitTurn(_Open):
    id: str
    ordinal: int = Field(ge=1)
    completed: bool
    event_count: int


class Snippet(_Open):
    text: str
    truncated: bool


class HitOpen(_Open):
    event_id: str
    turn_id: str
    session_id: str


class SearchHit(_Open):
    rank: int = Field(ge=1)
    score: float = Field(ge=0.0, le=1.0)
    id: str
    event: HitEvent
    turn: HitTurn
    session: SessionTimes
    snippet: Snippet
    open: HitOpen


class SearchData(_Open):
    result_count: int
    limit: int
    truncated: bool
    results: list[SearchHit]


class SearchEnvelope(_Envelope):
    schema_version: Literal["moraine.mcp.search_sessions.v1"]
    data: SearchData


class ListItem(_Open):
    rank: int
    id: str
    session: SessionFull
    open: dict[str, str]


class ListData(_Open):
    result_count: int
    limit: int
    truncated: bool
    sessions: list[ListItem]
    next_cursor: str | None


class ListEnvelope(_Envelope):
    schema_version: Literal["moraine.mcp.list_sessions.v1"]
    data: ListData


class TurnSummary(_Open):
    id: str
    ordinal: int
    completed: bool
    terminal_event_id: str | None
    event_count: int
    started_at: str | None
    updated_at: str | None
    user_input: TextRef | None
    final_response: TextRef | None
    tools_called: list[str]
    event_types: list[EventType]
    open: dict[str, str | None]


class OpenSessionData(_Open):
    kind: Literal["session"]
    session: SessionFull
    turns: list[TurnSummary]
    traversal: dict[str, str | None]


class EventRow(_Open):
    id: str
    ordinal: int
    type: EventType
    timestamp: str | None
    terminal: bool
    tool_name: str | None
    model: str | None
    summary: str
    truncated: bool


class OpenTurnData(_Open):
    kind: Literal["turn"]
    turn: dict[str, Any]
    session: SessionBrief
    summary: dict[str, Any]
    events: list[EventRow]
    traversal: dict[str, str | None]


class OpenEventData(_Open):
    kind: Literal["event"]
    event: dict[str, Any]
    content: dict[str, Any]
    session: SessionBrief
    turn: dict[str, Any]
    traversal: dict[str, str | None]


class OpenEnvelope(_Envelope):
    schema_version: Literal["moraine.mcp.open.v1"]
    data: OpenSessionData | OpenTurnData | OpenEventData = Field(discriminator="kind")


class SourceStatus(_Open):
    name: str
    harness: str
    root: str
    root_exists: bool
    files: int
    sessions: int
    events: int
    last_ingest_at: str | None


class IndexStatusData(_Open):
    sessions: int
    events: int
    searchable_documents: int
    sources: list[SourceStatus]
    pending_bytes: int
    quarantined_lines: int
    unreadable_files: int
    snapshot: dict[str, Any]
    last_ingest_at: str | None
    daemon: dict[str, Any] | None
    backfilling: bool
    redactions: dict[str, Any]


class IndexStatusEnvelope(_Envelope):
    schema_version: Literal["moraine.mcp.index_status.v1"]
    data: IndexStatusData


SUCCESS: dict[str, type[_Envelope]] = {"search_sessions": SearchEnvelope, "open": OpenEnvelope,
                                       "list_sessions": ListEnvelope, "index_status": IndexStatusEnvelope}


def output_schema(tool: str) -> dict[str, Any]:
    success = SUCCESS[tool].model_json_schema()
    error = ErrorEnvelope.model_json_schema()
    defs = {**success.pop("$defs", {}), **error.pop("$defs", {})}
    return {"type": "object", "anyOf": [success, error], "$defs": defs}
