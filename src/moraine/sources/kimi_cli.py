"""Kimi CLI wires (`$KIMI_SHARE_DIR|~/.kimi` `/sessions/<md5 of cwd>/<session>/wire.jsonl`) → events.

Reads the append-only `wire.jsonl` of MoonshotAI/kimi-cli (wire protocol 1.x, checked at
kimi-cli 1.49.0; see docs/harnesses/kimi-cli.md): a `metadata` header, then
`{timestamp: <epoch seconds>, message: {type, payload}}` lines of complete wire messages.
A subagent's own `subagents/<agent>/wire.jsonl` is a child session naming its parent; the
parent's `SubagentEvent` lines mirror it and are not indexed twice.

A turn starts at `TurnBegin` (not at a synthetic `<system-reminder>` prompt, nor, in a
subagent, at the parent agent's delegation: those are turn starts of the child only);
`SteerInput` (typed mid-turn) stays inside the turn. `TurnEnd` and `StepInterrupted` end a
turn. The wire records no cwd: it is looked up in `kimi.json` (`work_dirs[].path`, whose md5
names the sessions folder), read once per process.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Callable
from functools import lru_cache
from pathlib import Path
from typing import Any

from moraine.model import TERMINAL_ABORT, TERMINAL_FINISH, Event, LineRef, make_uid
from moraine.sources._clean import as_text, json_object, text_or_none
from moraine.sources._common import content_text, maybe_json, parse_ts_ms
from moraine.sources._emit import Emitter, announced

NAME = "kimi-cli"
PATH_RE = re.compile(r"/sessions/([^/]+)/([^/]+)/(?:subagents/([^/]+)/)?wire\.jsonl$")
EXIT_RE = re.compile(r"exit code:?\s*(-?\d+)", re.IGNORECASE)
RUNTIME = frozenset({"StepBegin", "StepRetry", "StatusUpdate", "MCPLoadingBegin", "MCPLoadingEnd", "HookTriggered",
                     "HookResolved", "Notification", "PlanDisplay", "ApprovalRequest", "ApprovalResponse",
                     "ApprovalRequestResolved", "QuestionRequest", "HookRequest", "ToolCallRequest"})
# The end of a compaction already shown; a streaming fragment; a mirror of the child's wire.
UNSHOWN = frozenset({"CompactionEnd", "ToolCallPart", "SubagentEvent"})


def initial_state(path: str) -> dict[str, Any]:
    state: dict[str, Any] = {"sid": None, "ts": 0, "calls": {}, "cwd": None, "parent": None}
    match = PATH_RE.search(path)
    if match:
        work_dir, session, agent = match.groups()
        state["sid"] = f"{session}/{agent}" if agent else session
        state["parent"] = session if agent else None
        state["cwd"] = _work_dirs(str(Path(path[: match.start()]) / "kimi.json")).get(work_dir.rsplit("_", 1)[-1])
    return state


@lru_cache(maxsize=8)
def _work_dirs(kimi_json: str) -> dict[str, str]:
    """md5 of each work dir's path → the path (Kimi names a sessions folder so)."""
    try:
        data = json.loads(Path(kimi_json).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    dirs = data.get("work_dirs") if isinstance(data, dict) else None
    return {hashlib.md5(d["path"].encode("utf-8"), usedforsecurity=False).hexdigest(): d["path"]
            for d in dirs or [] if isinstance(d, dict) and isinstance(d.get("path"), str)}


def _emitter(ref: LineRef, state: dict[str, Any]) -> Emitter:
    sid = state.get("sid") or make_uid("kimi-file", ref.file)
    return Emitter(NAME, f"{NAME}:{sid}", ref, state, state["ts"], announced(state, NAME))


def parse(record: dict[str, Any], ref: LineRef, state: dict[str, Any]) -> list[Event]:
    """One wire line → zero or more events."""
    ts = parse_ts_ms(record.get("timestamp"))
    if ts is not None:
        state["ts"] = ts
    if record.get("type") == "metadata":
        return []  # the protocol version only, and no time to give an event
    emit = _emitter(ref, state)
    message = json_object(record.get("message"))
    kind = text_or_none(message.get("type"))
    payload = json_object(message.get("payload"))
    if kind in UNSHOWN:
        return []
    handler = _HANDLERS.get(kind, _unknown) if kind is not None else _unknown
    handler(kind, payload, emit)
    return emit.events


# A handler gets the wire message's type, its payload and the emitter.
Handler = Callable[[str | None, dict[str, Any], Emitter], None]


def _turn_begin(kind: str | None, payload: dict[str, Any], emit: Emitter) -> None:
    text = content_text(payload.get("user_input"))
    synthetic = text.lstrip().startswith("<system-reminder>")
    emit.add("system" if synthetic else "user_input", text, starts_turn=not synthetic and bool(text.strip()))


def _steer(kind: str | None, payload: dict[str, Any], emit: Emitter) -> None:
    emit.add("user_input", content_text(payload.get("user_input")), meta={"steer": True})


def _turn_end(kind: str | None, payload: dict[str, Any], emit: Emitter) -> None:
    emit.add("runtime", "", terminal=TERMINAL_FINISH, meta={"wire": kind})


def _interrupted(kind: str | None, payload: dict[str, Any], emit: Emitter) -> None:
    emit.add("runtime", "interrupted", terminal=TERMINAL_ABORT, meta={"wire": kind})


def _compaction(kind: str | None, payload: dict[str, Any], emit: Emitter) -> None:
    emit.add("compaction", "", meta={"wire": kind})


def _btw_question(kind: str | None, payload: dict[str, Any], emit: Emitter) -> None:
    emit.add("user_input", as_text(payload.get("question") or ""), meta={"btw": True})


def _btw_answer(kind: str | None, payload: dict[str, Any], emit: Emitter) -> None:
    emit.add("assistant_response", as_text(payload.get("response") or payload.get("error") or ""))


def _runtime(kind: str | None, payload: dict[str, Any], emit: Emitter) -> None:
    emit.add("runtime", "", meta={"wire": kind})


def _unknown(kind: str | None, payload: dict[str, Any], emit: Emitter) -> None:
    emit.add("unknown", "", meta={"record_type": as_text(kind)})


def _part(wire: str | None, payload: dict[str, Any], emit: Emitter) -> None:
    kind = payload.get("type")
    if kind == "text":
        emit.add("assistant_response", as_text(payload.get("text") or ""))
    elif kind == "think":
        emit.add("reasoning", as_text(payload.get("think") or ""))
    else:
        emit.add("unknown", "", meta={"part": as_text(kind)})  # image, audio, video: no bytes indexed


def _tool_call(kind: str | None, payload: dict[str, Any], emit: Emitter) -> None:
    function = json_object(payload.get("function"))
    emit.tool_call(text_or_none(function.get("name")), text_or_none(payload.get("id")),
                   maybe_json(function.get("arguments")))


def _tool_result(kind: str | None, payload: dict[str, Any], emit: Emitter) -> None:
    call_id = text_or_none(payload.get("tool_call_id"))
    name = emit.tool_name(call_id) if call_id else None
    value = json_object(payload.get("return_value"))
    message = text_or_none(value.get("message")) or ""
    text = "\n".join(t for t in (content_text(value.get("output")), message) if t)
    match = EXIT_RE.search(message)
    error = value.get("is_error") is True
    exit_code = int(match.group(1)) if match else (0 if name == "Shell" and not error else None)
    emit.tool_response(text, name, call_id, exit_code, error)


_HANDLERS: dict[str, Handler] = {
    "TurnBegin": _turn_begin,
    "SteerInput": _steer,
    "ContentPart": _part,
    "ToolCall": _tool_call,
    "ToolResult": _tool_result,
    "TurnEnd": _turn_end,
    "StepInterrupted": _interrupted,
    "CompactionBegin": _compaction,
    "BtwBegin": _btw_question,
    "BtwEnd": _btw_answer,
    **dict.fromkeys(RUNTIME, _runtime),
}
