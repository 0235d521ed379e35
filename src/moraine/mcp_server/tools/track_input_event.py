"""`track_input_event` (a history tool): record one prompt → input observation, durably, in Moraine's
own state (a WAL frame, then snapshots) — never in the agents' logs. Listed over MCP only with
`[mcp] allow_write_tools = true`: it changes data."""

from __future__ import annotations

import time
from typing import Any

from pydantic import Field

from moraine.errors import ContractError, SeedError
from moraine.ingest.state import Freshness
from moraine.mcp_server.arguments import MAX_PATH, MAX_TEXT, Arguments, check
from moraine.mcp_server.contract import ToolResult, parse_id, seed_respond
from moraine.mcp_server.refs import resolve
from moraine.mcp_server.tools import Tool
from moraine.redaction.redact import redact
from moraine.store.engine import Store

NAME = "track_input_event"
DESCRIPTION = (
    "Record that a prompt was answered with an input (and whether that went well), so get_learned_patterns "
    "counts it. Stored in Moraine's own state, redacted like everything it keeps."
)


class TrackArguments(Arguments):
    session_id: str = Field(min_length=1, max_length=MAX_PATH,
                            description="The session the observation belongs to: a Moraine ID (session, turn or "
                            "event), a harness's session id or a log path; one Moraine does not know is "
                            "SESSION_NOT_FOUND.")
    prompt_text: str = Field(min_length=1, max_length=MAX_TEXT, description="What was asked.")
    input_text: str = Field(max_length=MAX_TEXT, description="What was answered.")
    success: bool = Field(description="Whether the answer led to a good outcome.")
    input_source: str | None = Field(None, max_length=256,
                                     description="Where the input came from, e.g. user_typed (null = "
                                     "unknown).")
    response_time_ms: int | None = Field(None, ge=0, le=2**62 - 1, description="How long the answer took (null = "
                                         "unknown).")


OUTPUT_SCHEMA: dict[str, Any] = {"type": "object", "properties": {"tracked": {"type": "boolean"},
                                                                  "total_tracked": {"type": "integer"},
                                                                  "error": {"type": "string"},
                                                                  "code": {"type": "string"}}}


def run(store: Store, args: Any, timer: Any = None, fresh: Freshness | None = None) -> ToolResult:
    return seed_respond(NAME, lambda: _track(store, args))


def _track(store: Store, raw: Any) -> ToolResult:
    args = check(TrackArguments, raw)
    with store.lock:
        session_id = _session(store, args.session_id)
    if session_id is None:
        raise SeedError("SESSION_NOT_FOUND", f"Session {redact(args.session_id)[:200]} not found")
    prompt, answer = redact(args.prompt_text), redact(args.input_text)
    row = [session_id, prompt, answer, args.success, redact(args.input_source or ""), args.response_time_ms or 0,
           int(time.time() * 1000)]
    with store.writer():
        store.commit([], [], {}, {"tracked": [row]})
    data = {"tracked": True, "total_tracked": len(store.tracked)}
    return ToolResult(data, f"tracked: \"{prompt[:80]}\" → \"{answer[:40]}\" ({len(store.tracked)} observations)")


def _session(store: Store, ref: str) -> str | None:
    """The Moraine ID of the session `ref` names (any id `open` takes); None when it names none.
    A native id several sessions share is refused with their IDs, as the other tools refuse it."""
    try:
        parsed = parse_id(resolve(store, ref, "session_id"), "session_id")
    except ContractError as exc:
        if "candidates" in exc.details:  # INVALID_REQUEST with the candidates' IDs (`contract.seed_failure`)
            raise
        return None
    if parsed.kind == "event":
        doc = store.read.doc_by_uid(parsed.key)
        session = store.read.session_of(doc) if doc is not None else None
    else:
        session = store.read.session_by_sid(parsed.key)
    return session.id if session is not None and session.docs else None


TOOL = Tool(NAME, DESCRIPTION, TrackArguments, run, output_schema=OUTPUT_SCHEMA, writes=True)
