"""GitHub Copilot CLI sessions (`$COPILOT_HOME|~/.copilot` `/session-state/<id>/events.jsonl`) → events.

Copilot CLI is closed source; the event schema is the one its SDK publishes (github/copilot-sdk
`session-events.ts`, generated from the CLI's schema; see docs/harnesses/copilot-cli.md),
for session-state files of CLI 0.0.342 and later, directory (`<id>/events.jsonl`) and early
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
from collections.abc import Callable
from typing import Any

from moraine.model import TERMINAL_ABORT, TERMINAL_FINISH, Event, LineRef, make_uid
from moraine.sources._clean import as_text, json_object, text_or_none
from moraine.sources._common import advance_ts, kept, maybe_json
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
    advance_ts(state, record.get("timestamp"))
    kind = text_or_none(record.get("type")) or ""
    data = json_object(record.get("data"))
    if kind == "session.start":
        session_id = text_or_none(data.get("sessionId"))
        if session_id:
            state["sid"] = kept(session_id)
    emit = _emitter(ref, state)
    agent = text_or_none(record.get("agentId"))
    meta = {"agent_id": agent} if agent else {}
    if kind in SILENT:
        return []
    _handler(kind)(kind, data, meta, emit)
    return emit.events


# A handler gets the event's type, its `data`, the metadata naming a sub-agent, and the emitter.
Handler = Callable[[str, dict[str, Any], dict[str, str], Emitter], None]


def _handler(kind: str) -> Handler:
    """Known types by name; families of types that carry nothing to search by their prefix."""
    handler = _HANDLERS.get(kind)
    if handler is not None:
        return handler
    if kind.startswith(("assistant.turn_", "session.")):
        return _runtime_marker  # a model call's bounds, a process's end, …
    if kind.startswith(("hook.", "permission.", "subagent.", "external_tool.")):
        return _system_marker
    return _unknown


def _reasoning(kind: str, data: dict[str, Any], meta: dict[str, str], emit: Emitter) -> None:
    emit.add("reasoning", as_text(data.get("content") or ""), model=emit.state.get("model"), meta=meta)


def _compaction(kind: str, data: dict[str, Any], meta: dict[str, str], emit: Emitter) -> None:
    emit.add("compaction", as_text(data.get("summaryContent") or ""), meta=meta)


def _abort(kind: str, data: dict[str, Any], meta: dict[str, str], emit: Emitter) -> None:
    detail = text_or_none(data.get("message")) or text_or_none(data.get("reason")) or kind
    emit.add("runtime", detail, terminal=TERMINAL_ABORT, meta={"event": kind, **meta})
    emit.state["open"] = False


def _task_complete(kind: str, data: dict[str, Any], meta: dict[str, str], emit: Emitter) -> None:
    emit.add("runtime", as_text(data.get("summary") or ""), terminal=TERMINAL_FINISH, meta={"event": kind})
    emit.state["open"] = False


def _model_change(kind: str, data: dict[str, Any], meta: dict[str, str], emit: Emitter) -> None:
    emit.state["model"] = kept(text_or_none(data.get("newModel")) or "") or emit.state.get("model")
    emit.add("system", f"model: {as_text(data.get('newModel') or '')}")


def _message(kind: str, data: dict[str, Any], meta: dict[str, str], emit: Emitter) -> None:
    emit.add("system", as_text(data.get("content") or data.get("message") or ""), meta={"event": kind, **meta})


def _runtime_marker(kind: str, data: dict[str, Any], meta: dict[str, str], emit: Emitter) -> None:
    emit.add("runtime", "", meta={"event": kind, **meta})


def _system_marker(kind: str, data: dict[str, Any], meta: dict[str, str], emit: Emitter) -> None:
    emit.add("system", "", meta={"event": kind, **meta})


def _unknown(kind: str, data: dict[str, Any], meta: dict[str, str], emit: Emitter) -> None:
    emit.add("unknown", "", meta={"record_type": kind})


def _context(kind: str, data: dict[str, Any], meta: dict[str, str], emit: Emitter) -> None:
    context = json_object(data.get("context"))
    model = text_or_none(data.get("selectedModel"))
    if model:
        emit.state["model"] = kept(model)
    where = {"cwd": text_or_none(context.get("cwd")), "git_branch": text_or_none(context.get("branch")),
             "repository": text_or_none(context.get("repository"))}
    emit.add("system", "", model=model, meta={"event": kind, **{k: v for k, v in where.items() if v}})


def _shutdown(kind: str, data: dict[str, Any], meta: dict[str, str], emit: Emitter) -> None:
    """The process ended. A turn still open ends with it (interactive sessions write no other
    end: the last answer before a shutdown is the turn's final one); an error shutdown aborts it."""
    error = data.get("shutdownType") == "error"
    terminal = (TERMINAL_ABORT if error else TERMINAL_FINISH) if emit.state.get("open") else 0
    detail = text_or_none(data.get("errorReason")) or "" if error else ""
    emit.add("runtime", detail, terminal=terminal, meta={"event": "session.shutdown", **meta})
    emit.state["open"] = False


def _user(kind: str, data: dict[str, Any], meta: dict[str, str], emit: Emitter) -> None:
    agent = meta.get("agent_id")
    text = as_text(data.get("content") or "")  # as shown in the timeline, not the model's wrapped text
    if agent or data.get("isAutopilotContinuation") is True or text_or_none(data.get("source")):
        emit.add("system", text, meta={"event": "user.message", "source": text_or_none(data.get("source")) or agent})
    elif data.get("delivery") == "steering":
        emit.add("user_input", text, meta={"delivery": "steering"})
    else:
        emit.add("user_input", text, starts_turn=bool(text.strip()))
        emit.state["open"] = emit.state.get("open") or bool(text.strip())


def _assistant(kind: str, data: dict[str, Any], meta: dict[str, str], emit: Emitter) -> None:
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


def _tool_start(kind: str, data: dict[str, Any], meta: dict[str, str], emit: Emitter) -> None:
    call_id = text_or_none(data.get("toolCallId"))
    if call_id and kept(call_id) in emit.state["calls"]:
        return  # already shown from the assistant message's toolRequests
    extra: dict[str, Any] = {**meta, "typed_by_user": True} if kind == "tool.user_requested" else meta
    emit.tool_call(text_or_none(data.get("toolName")), call_id, maybe_json(data.get("arguments")),
                   emit.state.get("model"), extra)


def _tool_complete(kind: str, data: dict[str, Any], meta: dict[str, str], emit: Emitter) -> None:
    call_id = text_or_none(data.get("toolCallId"))
    name = emit.tool_name(call_id) if call_id else None
    result = json_object(data.get("result"))
    error = json_object(data.get("error"))
    text = as_text(result.get("detailedContent") or result.get("content") or error.get("message") or "")
    exit_code = None
    for item in result.get("contents") or []:
        terminal = item.get("terminal") if isinstance(item, dict) else None
        if isinstance(terminal, dict) and type(terminal.get("exitCode")) is int:
            exit_code = terminal["exitCode"]
        elif isinstance(item, dict) and item.get("type") == "terminal" and type(item.get("exitCode")) is int:
            exit_code = item["exitCode"]
    emit.tool_response(text, name, call_id, exit_code, data.get("success") is False, meta)


_HANDLERS: dict[str, Handler] = {
    **dict.fromkeys(CONTEXT_EVENTS, _context),
    "user.message": _user,
    "assistant.message": _assistant,
    "assistant.reasoning": _reasoning,
    "tool.execution_start": _tool_start,
    "tool.user_requested": _tool_start,
    "tool.execution_complete": _tool_complete,
    "session.compaction_complete": _compaction,
    "abort": _abort,
    "session.error": _abort,
    "session.task_complete": _task_complete,
    "session.shutdown": _shutdown,
    "session.model_change": _model_change,
    **dict.fromkeys(("system.message", "system.notification", "skill.invoked", "session.info", "session.warning"),
                    _message),
}
