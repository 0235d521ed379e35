"""GitHub Copilot CLI sessions (`$COPILOT_HOME|~/.copilot` `/session-state/<id>/events.jsonl`) → events.

Copilot CLI is closed source; the event schema is the one its SDK publishes (github/copilot-sdk
`session-events.ts`, generated from the CLI's schema; see docs/harnesses/gemini-qwen-copilot.md
§3), for session-state files of CLI 0.0.342 and later, directory (`<id>/events.jsonl`) and early
flat (`<id>.jsonl`) layouts. Each line: `{type, id, timestamp, parentId, data, agentId?}`;
transient events never reach the file. `/rewind` removes lines: the tailer then starts a new
generation.

A turn starts at a `user.message` the person typed: not an autopilot continuation, not one
with a `source` (a skill or another agent), not one of a sub-agent (`agentId`); a message sent
while the agent worked (`delivery: steering`) stays inside the turn. `assistant.turn_start` /
`turn_end` pairs are model calls, not turns. `abort` and `session.error` end a turn as an
abort, `session.task_complete` as a finish. A tool call named in an assistant message's
`toolRequests` and again by `tool.execution_start` is one event.
"""

from __future__ import annotations

import re
from typing import Any

from moraine.model import TERMINAL_ABORT, TERMINAL_FINISH, Event
from moraine.sources._clean import COERCED, as_text, text_or_none
from moraine.sources._common import LineRef, kept, make_uid, maybe_json, parse_ts_ms
from moraine.sources._emit import Emitter

NAME = "copilot-cli"
PATH_RE = re.compile(r"/session-state/([^/]+?)(?:/events)?\.jsonl$")
CONTEXT_EVENTS = frozenset({"session.start", "session.resume", "session.context_changed"})
SILENT = frozenset({"session.compaction_start"})


def initial_state(path: str) -> dict[str, Any]:
    match = PATH_RE.search(path)
    return {"sid": kept(match.group(1)) if match else None, "ts": 0, "calls": {}, "model": None}


def _emitter(ref: LineRef, state: dict[str, Any]) -> Emitter:
    sid = state.get("sid") or make_uid("copilot-file", ref.file)
    return Emitter(NAME, f"{NAME}:{sid}", ref, state, state["ts"])


def parse(record: dict[str, Any], ref: LineRef, state: dict[str, Any]) -> list[Event]:
    """One session event → zero or more events."""
    ts = parse_ts_ms(record.get("timestamp"))
    if ts is not None:
        state["ts"] = ts
    elif record.get("timestamp") is not None:
        COERCED.append(f"timestamp {as_text(record['timestamp'])[:40]} is not a time in 1970-9999: previous kept")
    kind = text_or_none(record.get("type")) or ""
    data = record.get("data") if isinstance(record.get("data"), dict) else {}
    if kind == "session.start" and text_or_none(data.get("sessionId")):
        state["sid"] = kept(text_or_none(data["sessionId"]))  # type: ignore[arg-type]
    emit = _emitter(ref, state)
    agent = text_or_none(record.get("agentId"))
    meta = {"agent_id": agent} if agent else {}
    if kind in CONTEXT_EVENTS:
        _context(kind, data, emit)
    elif kind == "user.message":
        _user(data, agent, emit)
    elif kind == "assistant.message":
        _assistant(data, meta, emit)
    elif kind == "assistant.reasoning":
        emit.add("reasoning", as_text(data.get("content") or ""), model=state.get("model"), meta=meta)
    elif kind in ("tool.execution_start", "tool.user_requested"):
        _tool_start(data, meta, emit, user=kind == "tool.user_requested")
    elif kind == "tool.execution_complete":
        _tool_complete(data, meta, emit)
    elif kind == "session.compaction_complete":
        emit.add("compaction", as_text(data.get("summaryContent") or ""), meta=meta)
    elif kind in ("abort", "session.error"):
        detail = text_or_none(data.get("message")) or text_or_none(data.get("reason")) or kind
        emit.add("runtime", detail, terminal=TERMINAL_ABORT, meta={"event": kind, **meta})
        state["open"] = False
    elif kind == "session.task_complete":
        emit.add("runtime", as_text(data.get("summary") or ""), terminal=TERMINAL_FINISH, meta={"event": kind})
        state["open"] = False
    elif kind == "session.shutdown":
        _shutdown(data, meta, emit)
    elif kind == "session.model_change":
        state["model"] = kept(text_or_none(data.get("newModel")) or "") or state.get("model")
        emit.add("system", f"model: {as_text(data.get('newModel') or '')}")
    elif kind in SILENT:
        return []
    elif kind in ("system.message", "system.notification", "skill.invoked", "session.info", "session.warning"):
        emit.add("system", as_text(data.get("content") or data.get("message") or ""), meta={"event": kind, **meta})
    elif kind.startswith(("assistant.turn_", "session.")):
        emit.add("runtime", "", meta={"event": kind, **meta})  # a model call's bounds, a process's end, …
    elif kind.startswith(("hook.", "permission.", "subagent.", "external_tool.")):
        emit.add("system", "", meta={"event": kind, **meta})
    else:
        emit.add("unknown", "", meta={"record_type": kind})
    return emit.events


def _context(kind: str, data: dict[str, Any], emit: Emitter) -> None:
    context = data.get("context") if isinstance(data.get("context"), dict) else {}
    model = text_or_none(data.get("selectedModel"))
    if model:
        emit.state["model"] = kept(model)
    meta = {"cwd": text_or_none(context.get("cwd")), "git_branch": text_or_none(context.get("branch")),
            "repository": text_or_none(context.get("repository"))}
    emit.add("system", "", model=model, meta={"event": kind, **{k: v for k, v in meta.items() if v}})


def _shutdown(data: dict[str, Any], meta: dict[str, Any], emit: Emitter) -> None:
    """The process ended. A turn still open ends with it (interactive sessions write no other
    end: the last answer before a shutdown is the turn's final one); an error shutdown aborts it."""
    error = data.get("shutdownType") == "error"
    terminal = (TERMINAL_ABORT if error else TERMINAL_FINISH) if emit.state.get("open") else 0
    detail = text_or_none(data.get("errorReason")) or "" if error else ""
    emit.add("runtime", detail, terminal=terminal, meta={"event": "session.shutdown", **meta})
    emit.state["open"] = False


def _user(data: dict[str, Any], agent: str | None, emit: Emitter) -> None:
    text = as_text(data.get("content") or "")  # as shown in the timeline, not the model's wrapped text
    if agent or data.get("isAutopilotContinuation") is True or text_or_none(data.get("source")):
        emit.add("system", text, meta={"event": "user.message", "source": text_or_none(data.get("source")) or agent})
    elif data.get("delivery") == "steering":
        emit.add("user_input", text, meta={"delivery": "steering"})
    else:
        emit.add("user_input", text, starts_turn=bool(text.strip()))
        emit.state["open"] = emit.state.get("open") or bool(text.strip())


def _assistant(data: dict[str, Any], meta: dict[str, Any], emit: Emitter) -> None:
    model = text_or_none(data.get("model")) or emit.state.get("model")
    if text_or_none(data.get("reasoningText")):
        emit.add("reasoning", as_text(data["reasoningText"]), model=model, meta=meta)
    content = as_text(data.get("content") or "")
    if content.strip():
        emit.add("assistant_response", content, model=model, meta=meta)
    for request in data.get("toolRequests") or []:
        if isinstance(request, dict):
            emit.tool_call(text_or_none(request.get("name")), text_or_none(request.get("toolCallId")),
                           maybe_json(request.get("arguments")), model, meta)


def _tool_start(data: dict[str, Any], meta: dict[str, Any], emit: Emitter, user: bool) -> None:
    call_id = text_or_none(data.get("toolCallId"))
    if call_id and kept(call_id) in emit.state["calls"]:
        return  # already shown from the assistant message's toolRequests
    extra = {**meta, "typed_by_user": True} if user else meta
    emit.tool_call(text_or_none(data.get("toolName")), call_id, maybe_json(data.get("arguments")),
                   emit.state.get("model"), extra)


def _tool_complete(data: dict[str, Any], meta: dict[str, Any], emit: Emitter) -> None:
    call_id = text_or_none(data.get("toolCallId"))
    name = emit.tool_name(call_id) if call_id else None
    result = data.get("result") if isinstance(data.get("result"), dict) else {}
    error = data.get("error") if isinstance(data.get("error"), dict) else {}
    text = as_text(result.get("detailedContent") or result.get("content") or error.get("message") or "")
    exit_code = None
    for item in result.get("contents") or []:
        terminal = item.get("terminal") if isinstance(item, dict) else None
        if isinstance(terminal, dict) and type(terminal.get("exitCode")) is int:
            exit_code = terminal["exitCode"]
        elif isinstance(item, dict) and item.get("type") == "terminal" and type(item.get("exitCode")) is int:
            exit_code = item["exitCode"]
    emit.tool_response(text, name, call_id, exit_code, data.get("success") is False, meta)
