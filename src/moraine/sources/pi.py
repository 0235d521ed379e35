"""Pi coding agent sessions (`$PI_CODING_AGENT_DIR/sessions/--<cwd>--/<ts>_<uuid>.jsonl`) → events.

Reads session format v3 of badlogic/pi-mono `packages/coding-agent` (checked at coding-agent
0.58.3, see docs/harnesses/pi.md): a `session` header (id, cwd,
`parentSession` for a fork), then entries `{type, id, parentId, timestamp, …}` forming a tree.
Every entry is indexed, abandoned branches included (they are real history), in file order.

A turn starts only at a `message` of role `user`; `custom`/`custom_message` entries are
injected context (`system`), a `!cmd` the person ran (`bashExecution`) is a tool call and its
output, summaries of compactions and branches are `compaction`. An assistant message ends the
turn when it stops for good (`stop`, `length`); `aborted` and `error` end it as an abort.
Pi appends to its files, but rewrites one whole when it migrates an older version: the tailer
then starts a new generation, and the same lines give the same IDs.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from moraine.model import TERMINAL_ABORT, TERMINAL_FINISH, Event, LineRef, make_uid
from moraine.sources._clean import as_text, text_or_none
from moraine.sources._common import advance_ts, content_text, kept, session_id_from_path
from moraine.sources._emit import Emitter

NAME = "pi"
EXIT_RE = re.compile(r"Command exited with code (-?\d+)\s*$")
FINISH_REASONS = frozenset({"stop", "length"})
ABORT_REASONS = frozenset({"aborted", "error"})


def initial_state(path: str) -> dict[str, Any]:
    return {"sid": session_id_from_path(path), "ts": 0, "calls": {}, "model": None}


def _emitter(ref: LineRef, state: dict[str, Any]) -> Emitter:
    sid = state.get("sid") or make_uid("pi-file", ref.file.rsplit("/", 1)[-1])
    return Emitter(NAME, f"{NAME}:{sid}", ref, state, state["ts"])


def parse(record: dict[str, Any], ref: LineRef, state: dict[str, Any]) -> list[Event]:
    """One session-file entry → zero or more events."""
    advance_ts(state, record.get("timestamp"))
    kind = record.get("type")
    if kind == "session":
        session_id = text_or_none(record.get("id"))
        if session_id:
            state["sid"] = kept(session_id.lower())
    emit = _emitter(ref, state)
    handler = _HANDLERS.get(kind, _unknown) if isinstance(kind, str) else _unknown
    handler(record, emit)
    return emit.events


# A handler gets the whole entry and the emitter.
Handler = Callable[[dict[str, Any], Emitter], None]


def _message_entry(record: dict[str, Any], emit: Emitter) -> None:
    message = record.get("message")
    if isinstance(message, dict):
        _message(message, emit)
    else:
        _unknown(record, emit)


def _summary(record: dict[str, Any], emit: Emitter) -> None:
    emit.add("compaction", as_text(record.get("summary") or ""))


def _custom_message(record: dict[str, Any], emit: Emitter) -> None:
    emit.add("system", content_text(record.get("content")), meta=_custom(record))


def _model_change(record: dict[str, Any], emit: Emitter) -> None:
    model = "/".join(p for p in (text_or_none(record.get("provider")), text_or_none(record.get("modelId"))) if p)
    emit.state["model"] = kept(model) if model else emit.state.get("model")
    emit.add("runtime", f"model: {model}" if model else "", model=model or None)


def _thinking_level(record: dict[str, Any], emit: Emitter) -> None:
    emit.add("runtime", f"thinking level: {as_text(record.get('thinkingLevel') or '')}")


def _session_info(record: dict[str, Any], emit: Emitter) -> None:
    name = text_or_none(record.get("name"))
    emit.add("system", name or "", meta={"title_custom": name} if name else {})


def _label(record: dict[str, Any], emit: Emitter) -> None:
    emit.add("runtime", text_or_none(record.get("label")) or "")


def _custom_entry(record: dict[str, Any], emit: Emitter) -> None:
    emit.add("runtime", "", meta=_custom(record))


def _unknown(record: dict[str, Any], emit: Emitter) -> None:
    emit.add("unknown", "", meta={"record_type": as_text(record.get("type"))})


def _custom(record: dict[str, Any]) -> dict[str, Any]:
    kind = text_or_none(record.get("customType"))
    return {"custom_type": kind} if kind else {}


def _header(record: dict[str, Any], emit: Emitter) -> None:
    """The session's cwd; a forked session names the session it was forked from."""
    meta: dict[str, Any] = {"cwd": text_or_none(record.get("cwd"))}
    parent = text_or_none(record.get("parentSession"))
    parent_id = session_id_from_path(parent) if parent else None
    if parent_id:
        meta["forked_from"] = f"{NAME}:{parent_id}"
    emit.add("system", "", meta={k: v for k, v in meta.items() if v})


def _message(message: dict[str, Any], emit: Emitter) -> None:
    role = message.get("role")
    if role == "user":
        text = content_text(message.get("content"))
        emit.add("user_input", text, starts_turn=bool(text.strip()))
    elif role == "assistant":
        _assistant(message, emit)
    elif role == "toolResult":
        _tool_result(message, emit)
    elif role == "bashExecution":
        _bash(message, emit)
    elif role in ("custom", "hookMessage"):
        emit.add("system", content_text(message.get("content")), meta=_custom(message))
    elif role in ("compactionSummary", "branchSummary"):
        emit.add("compaction", as_text(message.get("summary") or ""))
    else:
        emit.add("unknown", "", meta={"record_type": f"message/{as_text(role)}"})


def _assistant(message: dict[str, Any], emit: Emitter) -> None:
    state = emit.state
    model = text_or_none(message.get("model")) or state.get("model")
    raw = message.get("content")
    content: list[Any] = raw if isinstance(raw, list) else [raw]
    last: Event | None = None
    for block in content:
        if isinstance(block, str):
            last = emit.add("assistant_response", block, model=model)
            continue
        if not isinstance(block, dict):
            continue
        kind = block.get("type")
        if kind == "text":
            last = emit.add("assistant_response", as_text(block.get("text") or ""), model=model)
        elif kind == "thinking":
            emit.add("reasoning", as_text(block.get("thinking") or ""), model=model)
        elif kind == "toolCall":
            _tool_call(block, model, emit)
        else:
            emit.add("unknown", "", meta={"block_type": as_text(kind)})
    reason = text_or_none(message.get("stopReason"))
    if reason in FINISH_REASONS:
        if last is None:
            last = emit.add("runtime", "", model=model, meta={"stop_reason": reason})
        last.terminal = TERMINAL_FINISH
    elif reason in ABORT_REASONS:
        detail = text_or_none(message.get("errorMessage")) or ("interrupted" if reason == "aborted" else "error")
        emit.add("runtime", detail, model=model, terminal=TERMINAL_ABORT, meta={"stop_reason": reason})


def _tool_call(block: dict[str, Any], model: str | None, emit: Emitter) -> None:
    emit.tool_call(text_or_none(block.get("name")), text_or_none(block.get("id")), block.get("arguments"), model)


def _tool_result(message: dict[str, Any], emit: Emitter) -> None:
    call_id = text_or_none(message.get("toolCallId"))
    name = text_or_none(message.get("toolName")) or emit.tool_name(call_id)
    text = content_text(message.get("content"))
    error = message.get("isError") is True
    exit_code = None
    if name == "bash":  # the bash tool states a failure's code at the end of its output
        match = EXIT_RE.search(text)
        exit_code = int(match.group(1)) if match else (None if error else 0)
    emit.tool_response(text, name, call_id, exit_code, error)


def _bash(message: dict[str, Any], emit: Emitter) -> None:
    """A `!cmd` the person ran in Pi's prompt: the command and its output, not a prompt."""
    code = message.get("exitCode")
    exit_code = code if type(code) is int else None
    meta = {k: True for k in ("cancelled", "truncated", "excludeFromContext") if message.get(k) is True}
    command = as_text(message.get("command") or "")
    emit.add("tool_call", command, tool_name="bash", arguments={"command": command}, meta={"typed_by_user": True})
    emit.add("tool_response", as_text(message.get("output") or ""), tool_name="bash", exit_code=exit_code, meta=meta)


_HANDLERS: dict[str, Handler] = {
    "session": _header,
    "message": _message_entry,
    "compaction": _summary,
    "branch_summary": _summary,
    "custom_message": _custom_message,
    "model_change": _model_change,
    "thinking_level_change": _thinking_level,
    "session_info": _session_info,
    "label": _label,
    "custom": _custom_entry,
}
