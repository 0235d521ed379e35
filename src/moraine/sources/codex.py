"""Codex CLI rollouts (`$CODEX_HOME/sessions/**/rollout-*.jsonl`) → normalized events.

Handles the current format (`{timestamp, type, payload}`) and old rollouts whose records
have no `payload` wrapper. Injected context sent with the user role is `system`; a prompt
or reply written twice (response_item + event_msg mirror) is one event.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Hashable
from typing import Any

from moraine.model import TERMINAL_ABORT, TERMINAL_FINISH, Event, LineRef, make_uid
from moraine.sources._clean import json_list, json_object, json_str, text_or_none
from moraine.sources._common import (
    advance_ts,
    arguments_text,
    content_text,
    exit_code_from_output,
    is_moraine_tool,
    is_web_tool,
    kept,
    maybe_json,
    new_event,
    note_version,
    parse_ts_ms,
    session_id_from_path,
)
from moraine.sources._mirror import claim_mirror, text_key

NAME = "codex"
INJECTED_PREFIXES = (
    "<environment_context>",
    "# agents.md instructions",
    "<user_instructions>",
    "# context from my ide",
    "<turn_aborted>",
    "<user_shell_command>",
    "<permissions instructions>",
    "<recommended_plugins>",
    "<system-reminder>",
)
LEGACY_ITEM_TYPES = frozenset(
    {"message", "function_call", "function_call_output", "reasoning", "custom_tool_call",
     "custom_tool_call_output", "local_shell_call", "web_search_call"}
)
ROLLOUT_TS_RE = re.compile(r"rollout-(\d{4})-(\d{2})-(\d{2})T(\d{2})-(\d{2})-(\d{2})")
MAX_CALLS = 512
CWD_RE = re.compile(r"<cwd>([^<]+)</cwd>|Current working directory:\s*(\S[^\n<]*)")
KNOWN_EVENT_MSGS = frozenset(
    {"token_count", "exec_command_begin", "exec_command_end", "exec_command_output_delta", "patch_apply_begin",
     "patch_apply_end", "turn_diff", "plan_update", "agent_reasoning_raw_content", "agent_reasoning_section_break",
     "background_event", "session_configured", "web_search_begin", "web_search_end", "get_history_entry_response",
     "mcp_list_tools_response", "list_custom_prompts_response", "entered_review_mode", "exited_review_mode",
     "item_completed", "search_results_received", "user_shell_command", "view_image_tool_call"}
)


def initial_state(path: str) -> dict[str, Any]:
    """Per-file parser state; persisted with the checkpoint so tailing can resume."""
    state: dict[str, Any] = {"sid": session_id_from_path(path), "ts": 0, "calls": {}, "model": None}
    match = ROLLOUT_TS_RE.search(path)
    if match:
        y, mo, d, h, mi, s = match.groups()
        state["ts"] = parse_ts_ms(f"{y}-{mo}-{d}T{h}:{mi}:{s}Z") or 0
    return state


def is_injected(text: str) -> bool:
    return text.lstrip()[:40].lower().startswith(INJECTED_PREFIXES)


class _Emitter:
    """Builds the events of one record with stable IDs and the inherited context."""

    def __init__(self, ref: LineRef, state: dict[str, Any], ts_ms: int) -> None:
        self.ref, self.state, self.ts_ms = ref, state, ts_ms
        self.events: list[Event] = []
        sid = state.get("sid") or make_uid("codex-file", ref.file.rsplit("/", 1)[-1])
        self.session_key = f"{NAME}:{sid}"

    def add(self, type_: str, text: str = "", **fields: Any) -> Event:
        event = new_event(NAME, self.session_key, self.ref, len(self.events), type_, self.ts_ms, text,
                          harness_version=self.state.get("version"), **fields)
        if event.model is None and type_ == "assistant_response":
            event.model = self.state.get("model")
        self.events.append(event)
        return event


def parse(record: dict[str, Any], ref: LineRef, state: dict[str, Any]) -> list[Event]:
    """One rollout record → zero or more events (pure apart from the parser state)."""
    advance_ts(state, record.get("timestamp"))
    kind = record.get("type")
    payload = json_object(record.get("payload"))
    if kind is None and "id" in record and "record_type" not in record:
        return _old_header(record, ref, state)
    if kind == "session_meta":
        session_id = text_or_none(payload.get("id"))
        if session_id:
            state["sid"] = kept(session_id.lower())
    emit = _Emitter(ref, state, state["ts"])
    handler = _RECORD_HANDLERS.get(kind)
    if handler is not None:
        handler(record, payload, emit)
    elif record.get("record_type") == "state":
        return []  # old-format resume marker: carries nothing to show or search
    else:
        emit.add("unknown", "", meta={"record_type": str(kind)})
    return emit.events


def _old_header(record: dict[str, Any], ref: LineRef, state: dict[str, Any]) -> list[Event]:
    """The first line of an old-format rollout: the session id and the instructions."""
    state["sid"] = kept((text_or_none(record["id"]) or "").lower()) or state.get("sid")
    emit = _Emitter(ref, state, state["ts"])
    emit.add("system", content_text(record.get("instructions")), meta={"header": True})
    return emit.events


# A record handler gets the whole record, its `payload` (empty when there is none) and the emitter.
RecordHandler = Callable[[dict[str, Any], dict[str, Any], _Emitter], None]


def _response_record(record: dict[str, Any], payload: dict[str, Any], emit: _Emitter) -> None:
    _response_item(payload, emit)


def _legacy_item(record: dict[str, Any], payload: dict[str, Any], emit: _Emitter) -> None:
    """Old rollouts write the item itself as the record, without a `payload` wrapper."""
    _response_item(record, emit)


def _event_record(record: dict[str, Any], payload: dict[str, Any], emit: _Emitter) -> None:
    _event_msg(payload, emit)


def _session_meta(record: dict[str, Any], payload: dict[str, Any], emit: _Emitter) -> None:
    meta = {"cwd": text_or_none(payload.get("cwd")), "originator": text_or_none(payload.get("originator")),
            "git_branch": _git_branch(payload.get("git"))}
    model = text_or_none(payload.get("model"))
    if model:
        emit.state["model"] = kept(model)
    note_version(emit.state, payload.get("cli_version"))
    emit.add("system", "", meta={k: v for k, v in meta.items() if v})


def _turn_context(record: dict[str, Any], payload: dict[str, Any], emit: _Emitter) -> None:
    model = text_or_none(payload.get("model"))
    if model:
        emit.state["model"] = kept(model)
    cwd = text_or_none(payload.get("cwd"))
    emit.add("system", "", model=model, meta={"cwd": cwd} if cwd else {})


def _compacted(record: dict[str, Any], payload: dict[str, Any], emit: _Emitter) -> None:
    emit.add("compaction", json_str(payload.get("message")))


def _git_branch(git: Any) -> str | None:
    return text_or_none(git.get("branch")) if isinstance(git, dict) else None


def _message(item: dict[str, Any], emit: _Emitter) -> None:
    role = item.get("role") or "assistant"
    text = content_text(item.get("content"))
    if role == "user":
        if is_injected(text):
            cwd = CWD_RE.search(text)
            emit.add("system", text, meta={"cwd": (cwd.group(1) or cwd.group(2)).strip()} if cwd else {})
        elif not claim_mirror(emit.state, "user", [text_key(text)], "item"):
            emit.add("user_input", text, starts_turn=True)
    elif role == "assistant":
        if not claim_mirror(emit.state, "assistant", [text_key(text)], "item"):
            emit.add("assistant_response", text, phase=text_or_none(item.get("phase")))
    else:
        emit.add("system", text)


def _remember_call(emit: _Emitter, call_id: Any, name: str | None, excluded: bool) -> None:
    if not call_id:
        return
    calls: dict[str, list[Any]] = emit.state.setdefault("calls", {})
    calls[kept(str(call_id))] = [kept(name), excluded]
    while len(calls) > MAX_CALLS:
        calls.pop(next(iter(calls)))


def _tool_call(emit: _Emitter, name: Any, call_id: Any, arguments: Any) -> None:
    name, call_id = text_or_none(name), text_or_none(call_id)
    excluded = is_moraine_tool(name)
    meta: dict[str, Any] = {}
    if is_web_tool(name):
        meta["web"] = True
    if excluded:
        meta["moraine"] = True
    emit.add("tool_call", arguments_text(name, arguments), tool_name=name, tool_call_id=call_id,
             arguments=arguments, excluded=excluded, meta=meta)
    _remember_call(emit, call_id, name, excluded)


def _tool_output(emit: _Emitter, call_id: Any, output: Any) -> None:
    call_id = text_or_none(call_id)
    name, excluded = emit.state.get("calls", {}).get(kept(str(call_id)), [None, False])
    decoded = maybe_json(output)
    text = output if isinstance(output, str) else content_text(output)
    if isinstance(decoded, dict) and isinstance(decoded.get("output"), str):
        text = decoded["output"]
    emit.add("tool_response", text, tool_name=name, tool_call_id=call_id,
             exit_code=exit_code_from_output(decoded), excluded=bool(excluded))


def _response_item(item: dict[str, Any], emit: _Emitter) -> None:
    kind = item.get("type")
    if kind == "message":
        _message(item, emit)
    elif kind in ("function_call", "custom_tool_call"):
        raw = item.get("arguments") if kind == "function_call" else item.get("input")
        _tool_call(emit, item.get("name"), item.get("call_id") or item.get("id"), maybe_json(raw))
    elif kind in ("function_call_output", "custom_tool_call_output"):
        _tool_output(emit, item.get("call_id"), item.get("output"))
    elif kind == "local_shell_call":
        action = json_object(item.get("action"))
        _tool_call(emit, "local_shell", item.get("call_id") or item.get("id"), action)
    elif kind == "web_search_call":
        action = json_object(item.get("action"))
        queries = json_list(action.get("queries"))
        query = action.get("query") or " ".join(text_or_none(q) or "" for q in queries)
        emit.add("tool_call", text_or_none(query) or "", tool_name="web_search", arguments=action or None,
                 meta={"web": True})
    elif kind == "reasoning":
        parts = [content_text(s) for s in item.get("summary") or [] if isinstance(s, dict | str)]
        parts = [p for p in parts if p]
        text = "\n".join(parts)
        keys = [text_key(p) for p in parts] + ([text_key(text)] if text else [])
        if not text or not claim_mirror(emit.state, "reasoning", keys, "item"):
            emit.add("reasoning", text, meta={"encrypted": True} if item.get("encrypted_content") else {})
    else:
        emit.add("unknown", content_text(item.get("content")), meta={"item_type": str(kind)})


def _event_msg(payload: dict[str, Any], emit: _Emitter) -> None:
    kind = payload.get("type")
    if isinstance(kind, str) and kind in _EVENT_HANDLERS:
        _EVENT_HANDLERS[kind](kind, payload, emit)
    elif kind in KNOWN_EVENT_MSGS:
        emit.add("system", "", meta={"event_type": str(kind)})
    else:
        emit.add("unknown", "", meta={"event_type": str(kind)})


# An event handler gets the `event_msg` type, its payload and the emitter.
EventHandler = Callable[[str, dict[str, Any], _Emitter], None]


def _user_message(kind: str, payload: dict[str, Any], emit: _Emitter) -> None:
    text = json_str(payload.get("message"))
    if not claim_mirror(emit.state, "user", [text_key(text)], "event"):
        emit.add("user_input", text, starts_turn=True)


def _agent_message(kind: str, payload: dict[str, Any], emit: _Emitter) -> None:
    text = json_str(payload.get("message"))
    if not claim_mirror(emit.state, "assistant", [text_key(text)], "event"):
        emit.add("assistant_response", text, phase=text_or_none(payload.get("phase")))


def _agent_reasoning(kind: str, payload: dict[str, Any], emit: _Emitter) -> None:
    text = json_str(payload.get("text"))
    if not claim_mirror(emit.state, "reasoning", [text_key(text)], "event"):
        emit.add("reasoning", text)


def _task_complete(kind: str, payload: dict[str, Any], emit: _Emitter) -> None:
    emit.add("runtime", "", terminal=TERMINAL_FINISH, meta={"status": "task_complete"})


def _turn_aborted(kind: str, payload: dict[str, Any], emit: _Emitter) -> None:
    reason = payload.get("reason")
    emit.add("runtime", f"turn aborted: {reason}" if reason else "turn aborted",
             terminal=TERMINAL_ABORT, meta={"status": "turn_aborted"})


def _task_started(kind: str, payload: dict[str, Any], emit: _Emitter) -> None:
    emit.add("runtime", "", meta={"status": kind})


def _mcp_tool_call(kind: str, payload: dict[str, Any], emit: _Emitter) -> None:
    """An MCP call's bounds; a call to Moraine's own server is left out of search."""
    invocation = json_object(payload.get("invocation"))
    ours = str(invocation.get("server", "")).lower() == "moraine"
    emit.add("system", "", excluded=ours, meta={"event_type": kind, **({"moraine": True} if ours else {})})


def _system_message(kind: str, payload: dict[str, Any], emit: _Emitter) -> None:
    emit.add("system", json_str(payload.get("message")), meta={"event_type": kind})


# Keyed by the `type` as read: a list or an object there fails the lookup (TypeError), and the
# line is quarantined rather than shown as an unknown record.
_RECORD_HANDLERS: dict[Hashable, RecordHandler] = {
    "response_item": _response_record,
    **dict.fromkeys(LEGACY_ITEM_TYPES, _legacy_item),
    "event_msg": _event_record,
    "session_meta": _session_meta,
    "turn_context": _turn_context,
    "compacted": _compacted,
}

_EVENT_HANDLERS: dict[str, EventHandler] = {
    "user_message": _user_message,
    "agent_message": _agent_message,
    "agent_reasoning": _agent_reasoning,
    "task_complete": _task_complete,
    "turn_aborted": _turn_aborted,
    "task_started": _task_started,
    "mcp_tool_call_begin": _mcp_tool_call,
    "mcp_tool_call_end": _mcp_tool_call,
    **dict.fromkeys(("context_compacted", "error", "stream_error", "shutdown_complete"), _system_message),
}
