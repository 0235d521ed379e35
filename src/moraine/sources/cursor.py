"""Cursor agent transcripts (`~/.cursor/projects/<workspace>/agent-transcripts/**/*.jsonl`) → events.

Cursor is closed source; the format is as other tools read it (agentsview, cursor-history; see
docs/harnesses/cursor-opencode-kimi-pi.md), transcripts of 2026: one Anthropic-style message
a line, `{role, message: {content: [blocks]}}`, and `{"type": "turn_ended"}` lines; flat
(`<id>.jsonl`), nested (`<id>/<id>.jsonl`) and subagent (`<parent>/subagents/<child>.jsonl`)
layouts. Lines carry no timestamp (a `timestamp` or `model` is used when present): events take
the file's modification time when first read.

A turn starts at what the person typed: the inside of `<user_query>…</user_query>`; the rest
of such a line, and a user line that opens with another tag (`<cursor_commands>`, rules,
attached files), is `system`. A user line with no tag at all (older transcripts) is a prompt.
The workspace folder names the cwd lossily (every non-alphanumeric run became `-`): it is
taken as the cwd only when that path exists here.
"""

from __future__ import annotations

import contextlib
import os
import re
from typing import Any

from moraine.model import TERMINAL_ABORT, TERMINAL_FINISH, Event, LineRef, make_uid
from moraine.sources._clean import as_text, json_object, text_or_none
from moraine.sources._common import content_text, parse_ts_ms
from moraine.sources._emit import Emitter, announced

NAME = "cursor"
PATH_RE = re.compile(r"/projects/([^/]+)/agent-transcripts/(?:([^/]+)/)?(?:subagents/)?([^/]+)\.jsonl$")
QUERY_RE = re.compile(r"<user_query>\s*(.*?)\s*(?:</user_query>|$)", re.DOTALL)
TAG_RE = re.compile(r"\s*<([a-z_][a-z0-9_-]*)[ >]", re.IGNORECASE)
ABORT_STATUSES = frozenset({"error", "aborted", "cancelled", "canceled", "interrupted"})


def initial_state(path: str) -> dict[str, Any]:
    state: dict[str, Any] = {"sid": None, "ts": 0, "calls": {}, "cwd": None, "parent": None, "skip": True}
    match = PATH_RE.search(path)
    if match is None:
        return state  # another file under ~/.cursor/projects: not a transcript
    workspace, folder, stem = match.groups()
    state["skip"] = False
    subagent = "/subagents/" in path[match.start():]
    state["sid"] = f"{folder}/{stem}" if subagent and folder else stem
    state["parent"] = folder if subagent else None
    guess = "/" + workspace.replace("-", "/")
    state["cwd"] = guess if os.path.isdir(guess) else None
    with contextlib.suppress(OSError):  # no time in the lines: the file's is the best there is
        state["ts"] = int(os.stat(path).st_mtime * 1000)
    return state


def _emitter(ref: LineRef, state: dict[str, Any]) -> Emitter:
    sid = state.get("sid") or make_uid("cursor-file", ref.file)
    return Emitter(NAME, f"{NAME}:{sid}", ref, state, state["ts"], announced(state, NAME))


def parse(record: dict[str, Any], ref: LineRef, state: dict[str, Any]) -> list[Event]:
    """One transcript line → zero or more events."""
    if state.get("skip"):
        return []
    ts = parse_ts_ms(record.get("timestamp"))
    if ts is not None:
        state["ts"] = ts
    emit = _emitter(ref, state)
    if record.get("type") == "turn_ended":
        status = text_or_none(record.get("status")) or ""
        emit.add("runtime", status, terminal=TERMINAL_ABORT if status.lower() in ABORT_STATUSES else TERMINAL_FINISH)
        return emit.events
    role = record.get("role")
    content = json_object(record.get("message")).get("content")
    blocks = content if isinstance(content, list) else [{"type": "text", "text": content}] if content else []
    model = text_or_none(record.get("model"))
    for block in blocks:
        if isinstance(block, dict):
            _block(block, role, model, emit)
    if role not in ("user", "assistant", "tool") and not emit.events:
        emit.add("unknown", "", meta={"record_type": as_text(record.get("type") or role)})
    return emit.events


def _block(block: dict[str, Any], role: object, model: str | None, emit: Emitter) -> None:
    """One content block; what it is depends on the role of the line that holds it."""
    kind = block.get("type")
    if kind == "tool_result":
        _tool_result(block, emit)
    elif role == "user" and kind == "text":
        _user_text(as_text(block.get("text") or ""), emit)
    elif role == "assistant" and kind == "text":
        emit.add("assistant_response", as_text(block.get("text") or ""), model=model)
    elif role == "assistant" and kind in ("reasoning", "thinking"):
        emit.add("reasoning", as_text(block.get("text") or block.get("thinking") or ""), model=model)
    elif role == "assistant" and kind == "tool_use":
        _tool_use(block, model, emit)
    else:
        emit.add("unknown", "", meta={"block_type": as_text(kind), "role": as_text(role)})


def _user_text(text: str, emit: Emitter) -> None:
    query = QUERY_RE.search(text)
    if query is not None:
        rest = (text[: query.start()] + text[query.end():]).strip()
        if rest:
            emit.add("system", rest)
        emit.add("user_input", query.group(1), starts_turn=bool(query.group(1).strip()))
    elif TAG_RE.match(text):
        emit.add("system", text)  # rules, commands, attached files: context the harness sent
    else:
        emit.add("user_input", text, starts_turn=bool(text.strip()))


def _tool_use(block: dict[str, Any], model: str | None, emit: Emitter) -> None:
    emit.tool_call(text_or_none(block.get("name")), text_or_none(block.get("id")), block.get("input"), model)


def _tool_result(block: dict[str, Any], emit: Emitter) -> None:
    call_id = text_or_none(block.get("tool_use_id"))
    emit.tool_response(content_text(block.get("content")), emit.tool_name(call_id), call_id,
                       error=block.get("is_error") is True)
