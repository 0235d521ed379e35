"""Qwen Code chats (`$QWEN_RUNTIME_DIR|$QWEN_HOME|~/.qwen` `/projects/<cwd>/chats/<id>.jsonl`) → events.

Reads the append-only JSONL ChatRecords of QwenLM/qwen-code (`chatRecordingService.ts`, the
format since the JSON → JSONL switch of late 2025; see docs/harnesses/qwen-code.md):
records `{uuid, parentUuid, sessionId, timestamp, type, subtype?, cwd, gitBranch?, message?,
model?, toolCallResult?, systemPayload?}` with `type` user, assistant, tool_result or system.
Every record is indexed in file order, a rewound (abandoned) branch included.

A turn starts only at a `user` record without a subtype (what the person typed: its
`systemPayload.displayText` when present); notifications, cron and goal prompts are `system`,
a message typed while tools ran (`mid_turn_user_message`) stays inside its turn. Parts: text
→ `assistant_response`, thought text → `reasoning`, `functionCall` → `tool_call`; a
`tool_result` is paired by its call id. `system/turn_result` and `system/branch_checkpoint`
end a turn; a compaction's replacement history is not re-indexed (it repeats earlier turns).
"""

from __future__ import annotations

import re
from typing import Any

from moraine.model import TERMINAL_ABORT, TERMINAL_FINISH, Event, LineRef, make_uid
from moraine.sources._clean import as_text, json_object, text_or_none
from moraine.sources._common import advance_ts, kept, note_version, session_id_from_path
from moraine.sources._emit import Emitter, changed

NAME = "qwen-code"
EXIT_RE = re.compile(r"(?:exit code:?|exited with (?:status|code))\s*(-?\d+)", re.IGNORECASE)
SYSTEM_INPUT = frozenset({"notification", "cron", "goal_runtime"})
ERROR_STATUSES = frozenset({"error", "failed"})


def initial_state(path: str) -> dict[str, Any]:
    stem = path.rsplit("/", 1)[-1].rsplit(".", 1)[0]
    return {"sid": session_id_from_path(path) or kept(stem), "ts": 0, "calls": {}}


def _emitter(ref: LineRef, state: dict[str, Any], record: dict[str, Any]) -> Emitter:
    sid = state.get("sid") or make_uid("qwen-file", ref.file.rsplit("/", 1)[-1])
    context = changed(state, {"cwd": text_or_none(record.get("cwd")),
                              "git_branch": text_or_none(record.get("gitBranch"))})
    return Emitter(NAME, f"{NAME}:{sid}", ref, state, state["ts"], context)


def parse(record: dict[str, Any], ref: LineRef, state: dict[str, Any]) -> list[Event]:
    """One chat record → zero or more events."""
    advance_ts(state, record.get("timestamp"))
    sid = text_or_none(record.get("sessionId"))
    if sid and not state.get("sid_from_record"):
        state["sid"], state["sid_from_record"] = kept(sid), True
    note_version(state, record.get("version"))
    emit = _emitter(ref, state, record)
    kind = record.get("type")
    if kind == "user":
        _user(record, emit)
    elif kind == "assistant":
        _assistant(record, emit)
    elif kind == "tool_result":
        _tool_result(record, emit)
    elif kind == "system":
        _system(record, emit)
    else:
        emit.add("unknown", "", meta={"record_type": as_text(kind)})
    return emit.events


def _parts(record: dict[str, Any]) -> list[dict[str, Any]]:
    message = record.get("message")
    parts = message.get("parts") if isinstance(message, dict) else None
    return [p for p in parts if isinstance(p, dict)] if isinstance(parts, list) else []


def _text(parts: list[dict[str, Any]], thought: bool = False) -> str:
    return "\n".join(as_text(p["text"]) for p in parts if "text" in p and bool(p.get("thought")) == thought)


def _payload(record: dict[str, Any]) -> dict[str, Any]:
    return json_object(record.get("systemPayload"))


def _user(record: dict[str, Any], emit: Emitter) -> None:
    subtype = text_or_none(record.get("subtype"))
    shown = text_or_none(_payload(record).get("displayText"))
    text = shown if shown is not None else _text(_parts(record))
    if subtype in SYSTEM_INPUT or record.get("isSidechain") is True:
        emit.add("system", text, meta={"subtype": subtype or "sidechain"})
    elif subtype in (None, "realtime_message"):
        emit.add("user_input", text, starts_turn=bool(text.strip()))
    elif subtype == "mid_turn_user_message":
        emit.add("user_input", text, meta={"subtype": subtype})  # typed by the person, inside the turn
    else:
        emit.add("system", text, meta={"subtype": subtype})


def _assistant(record: dict[str, Any], emit: Emitter) -> None:
    model = text_or_none(record.get("model"))
    for part in _parts(record):
        if "text" in part:
            emit.add("reasoning" if part.get("thought") else "assistant_response", as_text(part["text"]), model=model)
        elif isinstance(part.get("functionCall"), dict):
            _tool_call(part["functionCall"], model, emit)
        else:
            emit.add("unknown", "", meta={"part": ",".join(sorted(map(str, part)))[:80]})


def _tool_call(call: dict[str, Any], model: str | None, emit: Emitter) -> None:
    emit.tool_call(text_or_none(call.get("name")), text_or_none(call.get("id")), call.get("args"), model)


def _tool_result(record: dict[str, Any], emit: Emitter) -> None:
    result = json_object(record.get("toolCallResult"))
    response: dict[str, Any] = next(
        (p["functionResponse"] for p in _parts(record) if isinstance(p.get("functionResponse"), dict)), {})
    call_id = text_or_none(result.get("callId")) or text_or_none(response.get("id"))
    name = text_or_none(response.get("name")) or emit.tool_name(call_id)
    body = json_object(response.get("response"))
    text = next((as_text(body[k]) for k in ("output", "error") if body.get(k) is not None), None)
    if text is None:
        text = as_text(result.get("resultDisplay") or "")
    status = text_or_none(result.get("status"))
    match = EXIT_RE.search(text)
    emit.tool_response(text, name, call_id, int(match.group(1)) if match else None, status in ERROR_STATUSES,
                       {"status": status} if status else {})


def _system(record: dict[str, Any], emit: Emitter) -> None:
    subtype = text_or_none(record.get("subtype"))
    payload = _payload(record)
    if subtype == "custom_title":
        title = text_or_none(payload.get("customTitle"))
        key = "title_ai" if payload.get("titleSource") == "auto" else "title_custom"
        emit.add("system", title or "", meta={key: title} if title else {})
    elif subtype == "chat_compression":
        emit.add("compaction", "", meta={"subtype": subtype})  # the replacement history repeats earlier turns
    elif subtype == "turn_result":
        state = text_or_none(payload.get("state"))
        error = json_object(payload.get("error"))
        detail = text_or_none(error.get("message")) or state or ""
        emit.add("runtime", detail, terminal=TERMINAL_FINISH if state == "completed" else TERMINAL_ABORT,
                 meta={"subtype": subtype})
    elif subtype == "branch_checkpoint":
        emit.add("runtime", "", terminal=TERMINAL_FINISH, meta={"subtype": subtype})
    elif subtype == "slash_command":
        emit.add("system", text_or_none(payload.get("rawCommand")) or "", meta={"subtype": subtype})
    else:
        emit.add("system", "", meta={"subtype": subtype or "none"})
