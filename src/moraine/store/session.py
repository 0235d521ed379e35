"""A session: the record its events fold into (titles, flags, cwd, parent, times, its docs in
order, its turns once built), and how one event's text and metadata fold into it.

The catalog owns the sessions and keeps them consistent with the event columns; this module is
only what one session is, so the tools, the store and the retention code can name it without
the catalog's machinery.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from moraine.model import Event, session_ref
from moraine.store.turns import Turn

TITLE_CHARS = 80
PLACEHOLDERS = frozenset({"[image]", "[document]"})


@dataclass(slots=True, eq=False)
class Session:
    key: str
    sid: str
    source: str
    docs: list[int] = field(default_factory=list)
    order: list[tuple[Any, ...]] | None = field(default_factory=list)  # None: rebuild from the columns
    file_ts: dict[str, int] = field(default_factory=dict)
    cwd: str | None = None
    parent_key: str | None = None
    children: list[str] = field(default_factory=list)
    title_custom: str | None = None
    title_ai: str | None = None
    title_summary: str | None = None
    first_prompt: str | None = None
    web: bool = False
    moraine: bool = False
    tools: bool = False
    started_ms: int = 0
    updated_ms: int = 0
    bounds: list[int] | None = None  # where each turn starts; None: read again from the columns
    turns: list[Turn] | None = None
    some_turns: dict[int, Turn] | None = None  # a long session's turns built one by one, by index
    stale_meta: bool = False  # events were retired: titles, flags, cwd, parent are folded again
    git_branch: str | None = None
    title_command: str | None = None  # a slash command, the title of a session with no typed prompt

    @property
    def id(self) -> str:
        return session_ref(self.sid)

    @property
    def title(self) -> str | None:
        return self.title_custom or self.title_ai or self.title_summary or self.first_prompt or self.title_command

    @property
    def mode(self) -> str:
        if self.web:
            return "web_search"
        if self.moraine:
            return "mcp_internal"
        return "tool_calling" if self.tools else "chat"


_COMMAND_NAME = re.compile(r"<command-name>\s*([^<]*?)\s*</command-name>")
_COMMAND_ARGS = re.compile(r"<command-args>\s*([^<]*?)\s*</command-args>")


def command_title(text: str) -> str | None:
    """`<command-name>/exit</command-name>…<command-args>now</command-args>` → `/exit now`
    (the tags come in either order, with `<command-message>` among them)."""
    name = _COMMAND_NAME.search(text)
    if not name or not name.group(1):
        return None
    args = _COMMAND_ARGS.search(text)
    return first_line(name.group(1) + (" " + args.group(1) if args and args.group(1) else "")) or None


def transcript_lines(event: Event) -> int:
    """The event's lines in its session's transcript (what `search_session_history` greps):
    every event with text but Moraine's own tool traffic and unknown records."""
    if not event.text or event.excluded or event.type == "unknown":
        return 0
    return event.text.count("\n") + 1


def fold_event_meta(session: Session, meta: dict[str, Any]) -> None:
    """An event's metadata into its session: titles and flags from any event, the first cwd,
    parent and git branch seen."""
    if meta.get("cwd") and not session.cwd:
        session.cwd = meta["cwd"]
    if meta.get("title_custom"):
        session.title_custom = str(meta["title_custom"])
    if meta.get("title_ai"):
        session.title_ai = str(meta["title_ai"])
    if meta.get("title_summary"):
        session.title_summary = str(meta["title_summary"])
    if meta.get("web"):
        session.web = True
    if meta.get("moraine"):
        session.moraine = True
    if meta.get("parent") and not session.parent_key:
        session.parent_key = meta["parent"]
    if meta.get("git_branch") and not session.git_branch:
        session.git_branch = meta["git_branch"]


def first_line(text: str) -> str:
    line = next((ln.strip() for ln in text.splitlines() if ln.strip() and ln.strip() not in PLACEHOLDERS), "")
    return line if len(line) <= TITLE_CHARS else line[: TITLE_CHARS - 1].rstrip() + "…"
