"""Builders of the JSON blocks the tools share (session, turn and event views)."""

from __future__ import annotations

import os
import re
from typing import Any

from moraine.harnesses import HARNESSES
from moraine.mcp_server.contract import compact
from moraine.model import Event, shown_ts
from moraine.store.engine import Store
from moraine.store.session import Session, first_line
from moraine.store.turns import Turn


def native_id(session: Session) -> str:
    """The harness's own session id (the key after `<source>:`; a Claude subagent's is its
    `agent-…` name)."""
    native = session.key.split(":", 1)[-1]
    return native.rsplit("/", 1)[-1] if session.parent_key else native


def resume_command(session: Session) -> str | None:
    """How to go back to the session in its harness (`harnesses.Harness.resume_command`: e.g.
    `codex resume <id>` anywhere, `cd <cwd> && claude --resume <id>`). Null where the harness
    has none, and for a subagent transcript."""
    harness = HARNESSES.get(session.source)
    if session.parent_key or harness is None:
        return None
    return harness.resume_command(native_id(session), session.cwd or None)


# Titles that name no task: the injected context a harness writes before the person's prompt
# (Codex's environment and IDE context, user instructions, AGENTS.md; Claude Code's local-command
# caveat and command echoes), a continuation note, an interrupt marker. Lower case, by prefix.
_INJECTED = ("<environment_context", "<user_instructions", "<system-reminder", "<command-", "<local-command",
             "<turn_aborted", "<permissions", "<instructions", "<user_shell_command", "# context from my ide",
             "# agents.md instructions", "caveat:", "[request interrupted", "this session is being continued",
             "<image", "[image", "[document")
_TAG_LINE = re.compile(r"^<([a-z][a-z0-9]*(?:[_-][a-z0-9]+)+)>")  # <snake_case> / <kebab-case> block openers
_IDE_REQUEST = re.compile(r"^## My request for \w+:[ \t]*$", re.M)
TITLE_TURNS = 8  # turns whose prompts are read for a title, at most
TITLE_DOCS = 50  # events read for a title when no prompt has one, at most


def placeholder_title(title: str | None) -> bool:
    """A title that says nothing about the session: none, `untitled`, punctuation only, or
    injected context (`<environment_context>`, `# Context from my IDE setup:`, `Caveat: …`)."""
    text = (title or "").strip()
    if not text or text.lower() in ("untitled", "untitled session", "(untitled)"):
        return True
    if not any(ch.isalnum() for ch in text):
        return True
    return text.lower().startswith(_INJECTED) or bool(_TAG_LINE.match(text))


def real_line(text: str) -> str | None:
    """The first line of a prompt that the person wrote: injected blocks (`<tag>…</tag>`) and
    context lines skipped; of an IDE-context prompt, the request after `## My request for …:`."""
    ide = text.lstrip().lower().startswith("# context from my ide")
    if ide and (request := _IDE_REQUEST.search(text)):
        text, ide = text[request.end():], False
    block: str | None = None
    for raw in text.splitlines():
        line = raw.strip()
        if block is not None:
            if line.startswith(f"</{block}"):
                block = None
            continue
        opener = _TAG_LINE.match(line)
        if opener and f"</{opener.group(1)}>" not in line:
            block = opener.group(1)
            continue
        if placeholder_title(line) or (ide and line.startswith(("#", "- "))):
            continue
        return first_line(line)
    return None


def display_title(store: Store, session: Session) -> str | None:
    """The session's title, or — when it names no task (`placeholder_title`) — the first line
    the person wrote: in the first turns' prompts, else the first user or assistant text. The
    store keeps the title as derived from the log (docs/decisions.md); this is how it is shown."""
    title = session.title
    if not placeholder_title(title):
        return title
    for turn in store.read.turns(session)[:TITLE_TURNS]:
        if turn.user_doc is not None and (line := real_line(store.read.event_text(turn.user_doc))):
            return line
    for doc in session.docs[:TITLE_DOCS]:
        if store.read.event_type(doc) in ("user_input", "assistant_response") and \
                (line := real_line(store.read.event_text(doc))):
            return line
    return None


def project_of(cwd: str | None) -> str | None:
    """The project a cwd names: its last folder (`~` for the home directory itself)."""
    if not cwd:
        return None
    path = cwd.rstrip("/")
    if not path:
        return "/"
    if path == os.path.expanduser("~").rstrip("/"):
        return "~"
    return path.rsplit("/", 1)[-1]


def short_time(timestamp: str | None) -> str:
    """`2026-03-18T11:05:27.704Z` → `2026-03-18 11:05Z` (the text's time; the JSON keeps the full one)."""
    if not timestamp:
        return "?"
    return f"{timestamp[:10]} {timestamp[11:16]}Z"


def session_label(session: dict[str, Any]) -> str:
    """`codex · webapp — Fix the migration` from a session object of any view."""
    where = " · ".join(part for part in (session.get("source"), project_of(session.get("cwd"))) if part)
    return one_line(f'{where} — {session.get("title") or "(untitled)"}')


# Line breaks and the other C0 controls, as their pictures (␊, ␍, ␛, …).
_PICTURES = {c: 0x2400 + c for c in range(32)} | {127: 0x2421}
# What a terminal obeys or a reader cannot see: every control character but tab and newline (their
# pictures; the C1 controls, which some terminals obey as ESC sequences, as �), the bidirectional
# embeddings, overrides and isolates that reorder what follows them (`file‮gnp.exe`), and the
# invisible characters that make two different texts look alike (as `<U+200B>`). Joiners are kept:
# scripts and emoji need them.
_SHOWN: dict[int, int | str] = {c: 0x2400 + c for c in range(32) if c not in (9, 10)} | {127: 0x2421} | \
    dict.fromkeys(range(0x80, 0xA0), 0xFFFD) | \
    {c: f"<U+{c:04X}>" for c in (*range(0x202A, 0x202F), *range(0x2066, 0x206A), 0x200B, 0x200E, 0x200F,
                                  0x2060, 0xFEFF)}


def one_line(text: str) -> str:
    """A line of a text answer built from a log's metadata (a title, a cwd, a branch, a tool's name,
    a resume command quoting them): whatever the log put in them stays on this line, shown, so a log
    cannot forge lines of the answer an agent or a person reads (a fake session, a fake
    `resume: curl … | sh`). The JSON keeps the values exact."""
    return text.translate(_PICTURES)


def session_brief(store: Store, session: Session) -> dict[str, Any]:
    return {"id": session.id, "title": display_title(store, session), "source": session.source,
            "native_id": native_id(session),
            "cwd": session.cwd, "git_branch": session.git_branch, "resume_command": resume_command(session)}


def session_times(store: Store, session: Session) -> dict[str, Any]:
    return {
        **session_brief(store, session),
        "started_at": shown_ts(session.started_ms),
        "updated_at": shown_ts(session.updated_ms),
        "completed": store.read.session_completed(session),
    }


def session_full(store: Store, session: Session) -> dict[str, Any]:
    return {
        **session_times(store, session),
        "turn_count": len(store.read.turns(session)),
        "event_count": len(session.docs),
        "mode": session.mode,
        "cwd": session.cwd,
        "parent_session_id": store.read.session_id_of_key(session.parent_key),
    }


def event_id(store: Store, doc: int | None) -> str | None:
    return None if doc is None else store.read.event_id(doc)


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
    text, truncated = compact(event_summary_text(store.read.event(doc)))
    return {"event_id": store.read.event_id(doc), "text": text, "truncated": truncated}


def turn_docs(session: Session, turn: Turn) -> list[int]:
    return session.docs[turn.start : turn.end]


def turn_summary(store: Store, session: Session, turn: Turn) -> dict[str, Any]:
    docs = turn_docs(session, turn)
    terminal = event_id(store, turn.terminal_doc)
    tid = store.read.turn_id(session, turn.ordinal)
    return {
        "id": tid,
        "ordinal": turn.ordinal,
        "completed": turn.completed,
        "terminal_event_id": terminal,
        "event_count": len(docs),
        "started_at": shown_ts(turn.started_ms),
        "updated_at": shown_ts(turn.updated_ms),
        "user_input": text_ref(store, turn.user_doc),
        "final_response": text_ref(store, turn.final_doc),
        "tools_called": store.read.tools_called(docs),
        "event_types": store.read.event_types(docs),
        "open": {"turn_id": tid, "terminal_event_id": terminal},
    }


def for_terminal(text: str) -> str:
    """Text for a person's terminal: what a log holds (a tool's output with escape sequences that
    recolour, retitle or, OSC 52, write the clipboard; a NUL; a bidi override) shown, not obeyed.
    `--json` keeps the exact text: JSON escapes it."""
    return text.translate(_SHOWN)
