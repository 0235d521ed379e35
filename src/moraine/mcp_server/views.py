"""Builders of the JSON blocks the tools share (session, turn and event views)."""

from __future__ import annotations

import shlex
from typing import Any

from moraine.mcp_server.contract import compact
from moraine.model import Event, format_ts
from moraine.store.engine import Store
from moraine.store.session import Session
from moraine.store.turns import Turn


def native_id(session: Session) -> str:
    """The harness's own session id (the key after `<source>:`; a Claude subagent's is its
    `agent-…` name)."""
    native = session.key.split(":", 1)[-1]
    return native.rsplit("/", 1)[-1] if session.parent_key else native


def resume_command(session: Session) -> str | None:
    """How to go back to the session in its harness: Codex `codex resume <id>` and Copilot
    `copilot --resume <id>` anywhere; Claude Code `claude --resume <id>`, Pi `pi --session <id>`,
    Qwen Code `qwen --resume <id>`, Kimi `kimi -r <id>`, Cursor `cursor-agent --resume <id>` and
    Gemini `gemini --resume <id>` and OpenCode `opencode --session <id>` from the session's cwd.
    Null where the harness has none (a subagent transcript)."""
    if session.parent_key:
        return None
    native = shlex.quote(native_id(session))
    if session.source == "codex":
        return f"codex resume {native}"
    if session.source == "copilot-cli":  # found by id wherever it is run
        return f"copilot --resume {native}"
    if session.source in _RESUME_IN_CWD:
        command = _RESUME_IN_CWD[session.source].format(native)
        return f"cd {shlex.quote(session.cwd)} && {command}" if session.cwd else command
    return None


# Harnesses that look a session up among those of the directory they run in.
_RESUME_IN_CWD = {"claude-code": "claude --resume {}", "pi": "pi --session {}", "qwen-code": "qwen --resume {}",
                  "kimi-cli": "kimi -r {}", "cursor": "cursor-agent --resume {}", "gemini-cli": "gemini --resume {}",
                  "opencode": "opencode --session {}"}


def session_brief(store: Store, session: Session) -> dict[str, Any]:
    return {"id": session.id, "title": session.title, "source": session.source, "native_id": native_id(session),
            "cwd": session.cwd, "git_branch": session.git_branch, "resume_command": resume_command(session)}


def session_times(store: Store, session: Session) -> dict[str, Any]:
    return {
        **session_brief(store, session),
        "started_at": format_ts(session.started_ms),
        "updated_at": format_ts(session.updated_ms),
        "completed": store.session_completed(session),
    }


def session_full(store: Store, session: Session) -> dict[str, Any]:
    return {
        **session_times(store, session),
        "turn_count": len(store.turns(session)),
        "event_count": len(session.docs),
        "mode": session.mode,
        "cwd": session.cwd,
        "parent_session_id": store.session_id_of_key(session.parent_key),
    }


def event_id(store: Store, doc: int | None) -> str | None:
    return None if doc is None else store.event_id(doc)


def event_summary_text(event: Event) -> str:
    text = event.text
    if event.type == "tool_call" and event.tool_name and text.startswith(event.tool_name):
        text = text[len(event.tool_name):].lstrip("\n") or event.tool_name
    if not text.strip() and event.tool_name:
        text = event.tool_name
    return text


def text_ref(store: Store, doc: int | None) -> dict[str, Any] | None:
    """`{event_id, text, truncated}` summary of an event, or null."""
    if doc is None:
        return None
    text, truncated = compact(event_summary_text(store.event(doc)))
    return {"event_id": store.event_id(doc), "text": text, "truncated": truncated}


def turn_docs(session: Session, turn: Turn) -> list[int]:
    return session.docs[turn.start : turn.end]


def turn_summary(store: Store, session: Session, turn: Turn) -> dict[str, Any]:
    docs = turn_docs(session, turn)
    terminal = event_id(store, turn.terminal_doc)
    tid = store.turn_id(session, turn.ordinal)
    return {
        "id": tid,
        "ordinal": turn.ordinal,
        "completed": turn.completed,
        "terminal_event_id": terminal,
        "event_count": len(docs),
        "started_at": format_ts(turn.started_ms),
        "updated_at": format_ts(turn.updated_ms),
        "user_input": text_ref(store, turn.user_doc),
        "final_response": text_ref(store, turn.final_doc),
        "tools_called": store.tools_called(docs),
        "event_types": store.event_types(docs),
        "open": {"turn_id": tid, "terminal_event_id": terminal},
    }
