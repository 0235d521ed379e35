"""What a caller may pass where a session is named: a Moraine ID, a harness's own session id, or
a log file's path. One resolution for every face (`open`, `search_sessions`' `within_id`,
`search_session_history`'s `session_id`, and the CLI, which calls the same tools).

* A value that starts like a Moraine ID (`session:`, `turn:`, `event:`) is kept as it is: the
  contract's rules apply to it (`invalid_id` when malformed, `not_found` when it names nothing).
* Otherwise it is looked up as a native session id (what `codex resume` or `claude --resume`
  show, as `native_id` does; a subagent's `agent-…` name too), then as a log path (absolute,
  `~/…`, or relative to the caller's directory — the CLI's). The session's ID is used.
* A native id that names sessions of two harnesses (or two subagents) is ambiguous: the
  error lists the candidates' IDs (`invalid_request`, details `candidates`).
* Nothing found: a path to an existing file is `not_found` (a log Moraine has not indexed), as
  is a native id shaped like a harness's (a UUID, `agent-…`) or one the state knew (its session
  forgotten or its log replaced; the message does not say which); anything else is `invalid_id`.
"""

from __future__ import annotations

import contextlib
import os
import re
from pathlib import Path

from moraine.errors import ContractError
from moraine.mcp_server.views import native_id
from moraine.redaction.structured import path_key
from moraine.sources import ADAPTERS
from moraine.store.engine import Store
from moraine.store.session import Session

ID_PREFIXES = ("session:", "turn:", "event:")
# The shape of a harness's own session id (a UUID; a subagent's `agent-…`): one that names nothing
# is `not_found`, not a malformed Moraine ID.
NATIVE_ID = re.compile(r"^(?:[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}"
                       r"|agent-[A-Za-z0-9_-]{1,128})$")
MAX_CANDIDATES = 20


def sessions_named(store: Store, ref: str) -> list[Session]:
    """The live sessions a native session id or a log path names (several when ambiguous)."""
    found: dict[str, Session] = {}
    for source in ADAPTERS:
        for key in dict.fromkeys((f"{source}:{ref}", f"{source}:{ref.lower()}")):
            session = store.read.session_by_key(key)
            if session is not None and session.docs:
                found.setdefault(session.id, session)
    if ref.startswith("agent-") and not found:  # a subagent transcript, as native_id shows it
        for session in store.read.sessions_newest_first():
            if session.parent_key and native_id(session) == ref:
                found.setdefault(session.id, session)
    if found:
        return list(found.values())
    for candidate in _paths(ref):
        file_key = path_key(candidate)
        of_file = store.read.session_of_file(file_key) if file_key is not None else None
        if of_file is not None and of_file.docs:
            return [of_file]
    return []


def _paths(ref: str) -> list[str]:
    """The spellings of a path to try: as given, `~` expanded, made absolute and resolved."""
    if "\x00" in ref:
        return []
    expanded = os.path.expanduser(ref)
    out = [ref, expanded]
    with contextlib.suppress(OSError, RuntimeError, ValueError):  # a loop, a name the OS refuses
        out.append(str(Path(expanded).resolve()))
    return list(dict.fromkeys(out))


def resolve(store: Store, value: str, field: str = "id") -> str:
    """A Moraine ID for `value` (see the module's rules); raises ContractError when a native
    id is ambiguous or a path names a log that is not indexed."""
    ref = value.strip()
    if ref.startswith(ID_PREFIXES):
        return value
    sessions = sessions_named(store, ref) if ref else []
    if len(sessions) == 1:
        return sessions[0].id
    if len(sessions) > 1:
        ranked = sorted(sessions, key=lambda s: (-s.updated_ms, s.id))[:MAX_CANDIDATES]
        listed = ", ".join(f"{s.id} ({s.source}{', ' + s.cwd if s.cwd else ''})" for s in ranked)
        raise ContractError("invalid_request", f"{field} {ref!r} names {len(sessions)} sessions; pass one of "
                            f"their Moraine IDs: {listed}",
                            {"field": field, "candidates": [s.id for s in ranked]})
    if _is_file(ref):
        raise ContractError("not_found", f"{field} names a file Moraine has not indexed", {"field": field, "id": value})
    if NATIVE_ID.match(ref) or _retired(store, ref):  # one message: a forgotten session is not confirmed
        raise ContractError("not_found", f"no indexed session has the native id {ref!r} (a session whose log "
                            "was forgotten, cleaned up or replaced has none)", {"field": field, "id": value})
    return value  # the caller's parse_id answers invalid_id, naming what an ID looks like


def _retired(store: Store, ref: str) -> bool:
    """A session the state knew by this native id, whose events are all retired."""
    return any(store.read.session_by_key(f"{source}:{key}") is not None
               for source in ADAPTERS for key in dict.fromkeys((ref, ref.lower())))


def _is_file(ref: str) -> bool:
    if not ref or ("/" not in ref and not ref.startswith("~")):
        return False
    try:
        return any(Path(p).is_file() for p in _paths(ref))
    except (OSError, ValueError):
        return False
