"""Gemini CLI chats (`$GEMINI_CLI_HOME|~` `/.gemini/tmp/<project>/chats/*.jsonl`) → normalized events.

Reads the JSONL chat form of google-gemini/gemini-cli v0.39 and later (`chatRecordingService`,
checked at v0.56; see docs/harnesses/gemini-qwen-copilot.md §1): a header line (`sessionId`,
`projectHash`, `startTime`, `kind`, `summary`), message records `{id, timestamp, type, content,
displayContent?, thoughts?, toolCalls?, model?}`, `$set` metadata lines and `$rewindTo` lines.
A message is appended again each time it changes (tokens, tool results): its events are named
by the message's `id`, not its line, so the later copy replaces the earlier one. Subagent chats
(`chats/<parent session>/<id>.jsonl`, header `kind: subagent`) are child sessions.

Also the single-document `chats/session-*.json` of v0.4 to v0.38 (the same `ConversationRecord`
with its `messages` inline, rewritten in place by `writeFileSync` on every update, checked at
f744913584^): read whole each time it changes, its header and messages parsed as the JSONL
records are, so an unchanged message keeps its IDs and one removed by a rewind is retired. A
session resumed by v0.39+ is copied into a `.jsonl` beside the old file with the same message
ids: both name the same events, so the session is not doubled.

A turn starts at a `user` record with text the person typed (`displayContent` when present),
not at injected `<session_context>` / `<hook_context>`, slash commands, or the synthetic user
records holding tool responses (v0.44+: they repeat `toolCalls[].result`). `info` records of a
cancelled request and `error` records end a turn as an abort. The chat records no cwd: it is
read from the project folder's `.project_root` (v0.29+).
"""

from __future__ import annotations

import hashlib
import json
import os
import re
from functools import lru_cache
from pathlib import Path
from typing import Any

import ijson

from moraine.model import TERMINAL_ABORT, Event, LineRef, make_uid
from moraine.sources._clean import COERCED, as_text, text_or_none
from moraine.sources._common import kept, parse_ts_ms
from moraine.sources._document import MAX_DOCUMENT_BYTES, Read, Unreadable, open_regular
from moraine.sources._emit import Emitter, announced
from moraine.sources._json import decode

NAME = "gemini-cli"
PATH_RE = re.compile(r"/tmp/([^/]+)/chats/(?:([^/]+)/)?([^/]+)\.jsonl?$")
LEGACY_RE = re.compile(r"/chats/session-[^/]*\.json$")
INJECTED = ("<session_context>", "<hook_context>")
CANCELLED = ("request cancelled", "user cancelled")
EXIT_RE = re.compile(r"^Exit Code: (-?\d+)$", re.MULTILINE)


def accepts(path: str) -> bool:
    """JSONL chats, and the legacy documents (not `logs.json` or `checkpoint-*.json` beside them)."""
    return path.endswith(".jsonl") or whole(path)


def whole(path: str) -> bool:
    return LEGACY_RE.search(path) is not None


def read(path: str, key: str, cursor: dict[str, Any]) -> Read:
    """A legacy document: its header (the record without `messages`) then each message.

    Streamed (`ijson`, its C parser): a first pass reads the header's keys, wherever they stand
    (`summary` is often written after the messages), and checks the whole document is JSON
    nested no deeper than MAX_DEPTH; a second yields the messages one by one. What is held is
    the header and one message, not the document (a 200 MB document parsed whole took 14 times
    its size). A document the streaming parser refuses (invalid UTF-8, a lone surrogate escape,
    an integer beyond 64 bits, NaN) is read whole by the lenient reader of lines when it is
    small, and reported otherwise."""
    with open_regular(path) as fh:
        stat = os.fstat(fh.fileno())
        size, stamp = stat.st_size, (stat.st_size, stat.st_mtime_ns, stat.st_ino)
        if size > MAX_DOCUMENT_BYTES:
            return Read(problem=f"document_too_large: over {MAX_DOCUMENT_BYTES} bytes: not read")
        if size == 0:
            return Read(problem="empty document (being written?): read again when it changes")
        start = 3 if fh.read(3) == BOM else 0
        fh.seek(start)
        try:
            header = _header(fh)
        except (ijson.JSONError, ValueError) as exc:
            if size <= LENIENT_BYTES:
                return _read_whole(fh, start)
            return Read(problem=f"json_parse_error: {_short(exc)} (a document being rewritten is read again "
                        "when it changes)")
        if header is None:  # not an object: said as the lenient reader says it
            return _read_whole(fh, start) if size <= LENIENT_BYTES else Read(problem="not_an_object")
    return Read([_streamed(path, start, header, stamp)])


BOM = b"\xef\xbb\xbf"
MAX_DEPTH = 512  # deeper JSON is read (and refused) by the lenient reader, when small enough for it
LENIENT_BYTES = 16 * 1024 * 1024  # a document the streaming parser refuses is read whole up to this size
_OPEN = {"start_map", "start_array"}
_CLOSE = {"end_map", "end_array"}


def _short(exc: Exception) -> str:
    return " ".join(str(exc).split())[:200]


def _stamp(path: str) -> tuple[int, int, int]:
    """What says the document is the one the first pass read (it is rewritten in place)."""
    stat = os.stat(path)
    return stat.st_size, stat.st_mtime_ns, stat.st_ino


def _values(events: Any, depth: int) -> Any:
    """The values held by a container just opened at nesting `depth`, each as (its key or None,
    the value), built without recursion, until the container ends. Deeper than MAX_DEPTH:
    ValueError."""
    stack: list[Any] = []  # the containers being built, outermost first
    keys: list[Any] = [None]  # the key being filled at each level (the first: in the container read)
    for event, value in events:
        if event == "map_key":
            keys[-1] = value
        elif event in _OPEN:
            _open(stack, keys, {} if event == "start_map" else [], MAX_DEPTH - depth)
        elif event in _CLOSE:
            if not stack:
                return
            node = stack.pop()
            keys.pop()
            if not stack:
                yield keys[-1], node
        elif stack:
            _put(stack[-1], keys[-1], value)
        else:
            yield keys[-1], value


def _open(stack: list[Any], keys: list[Any], node: Any, room: int) -> None:
    if len(stack) >= room:
        raise ValueError(f"nested deeper than {MAX_DEPTH}")
    if stack:
        _put(stack[-1], keys[-1], node)
    stack.append(node)
    keys.append(None)


def _put(parent: Any, key: Any, node: Any) -> None:
    if type(parent) is dict:
        parent[key] = node
    else:
        parent.append(node)


def _skip(events: Any, depth: int) -> None:
    """Past the rest of a container just opened at nesting `depth` (checking how deep it goes)."""
    level = 1
    for event, _ in events:
        if event in _OPEN:
            level += 1
            if depth + level > MAX_DEPTH:
                raise ValueError(f"nested deeper than {MAX_DEPTH}")
        elif event in _CLOSE:
            level -= 1
            if level == 0:
                return


MESSAGE = object()  # `_top` names each item of the `messages` array so


def _top(events: Any, *, stream: bool) -> Any:
    """The top object's keys and values, after its `start_map`: the `messages` array's items
    each as (MESSAGE, item) with `stream`, else skipped past."""
    for event, name in events:
        if event == "end_map":
            return
        event, value = next(events)
        if name == "messages" and event == "start_array":
            if stream:
                for _, item in _values(events, 1):
                    yield MESSAGE, item
            else:
                _skip(events, 1)
        elif event in _OPEN:
            built: Any = {} if event == "start_map" else []
            for key, item in _values(events, 1):
                _put(built, key, item)
            yield name, built
        else:
            yield name, value


def _header(fh: Any) -> dict[str, Any] | None:
    """The document's keys but `messages`, reading (and so checking) all of it; None when the
    document is not an object."""
    events = ijson.basic_parse(fh, use_float=True)
    first = next(events, (None, None))[0]
    header: dict[str, Any] | None = None
    if first == "start_map":
        header = dict(_top(events, stream=False))
    for _ in events:  # the end: nothing but white space may follow (ijson raises on anything else)
        pass
    return header


def _streamed(path: str, start: int, header: dict[str, Any], stamp: tuple[int, int, int]) -> Any:
    """The header, then each message, read again from the start of the document."""
    yield header
    try:
        with open_regular(path) as fh:
            fh.seek(start)
            events = ijson.basic_parse(fh, use_float=True)
            next(events)  # the top object's start (the first pass saw it)
            for name, value in _top(events, stream=True):
                if name is MESSAGE:
                    yield value
        if _stamp(path) != stamp:
            raise ValueError("the document changed while it was read")
    except (ijson.JSONError, ValueError, StopIteration, OSError) as exc:
        raise Unreadable(f"json_parse_error: {_short(exc)} (a document being rewritten is read again "
                         "when it changes)") from None


def _read_whole(fh: Any, start: int) -> Read:
    """The lenient reader: the document decoded at once (a small one the streaming parser refused)."""
    fh.seek(start)
    raw = fh.read(LENIENT_BYTES + 1)
    if not raw.strip():
        return Read(problem="empty document (being written?): read again when it changes")
    try:
        document, _ = decode(raw)
    except (ValueError, RecursionError) as exc:
        return Read(problem=f"json_parse_error: {exc} (a document being rewritten is read again when it changes)")
    if not isinstance(document, dict):
        return Read(problem=f"not_an_object: {type(document).__name__}")
    messages = document.pop("messages", None)
    return Read([[document, *(messages if isinstance(messages, list) else [])]])


def initial_state(path: str) -> dict[str, Any]:
    state: dict[str, Any] = {"sid": None, "ts": 0, "cwd": None, "parent": None}
    match = PATH_RE.search(path)
    if match:
        project, parent, stem = match.groups()
        state["parent"] = parent
        state["sid"] = stem if parent else None  # a main chat names its session in its header
        gemini = Path(path[: match.start()])
        state["cwd"] = _project_root(str(gemini / "tmp" / project / ".project_root"))
        if state["cwd"] is None and HASH_RE.match(project):
            state["cwd"] = _hashed_projects(str(gemini / "projects.json")).get(project)
    return state


HASH_RE = re.compile(r"^[0-9a-f]{64}$")  # before v0.29 a project folder was the sha256 of its path
_ROOTS: dict[str, str] = {}


def _project_root(marker: str) -> str | None:
    """The cwd a project folder's `.project_root` names (remembered once found: a marker that
    is missing now may be written later, so absence is not remembered)."""
    if marker in _ROOTS:
        return _ROOTS[marker]
    try:
        text = Path(marker).read_text(encoding="utf-8").strip()
    except (OSError, UnicodeDecodeError):
        return None
    if text and len(_ROOTS) < 4096:
        _ROOTS[marker] = text
    return text or None


@lru_cache(maxsize=16)
def _registry(path: str, mtime_ns: int) -> dict[str, str]:
    """sha256 of each project path `projects.json` names → the path."""
    try:
        projects = json.loads(Path(path).read_text(encoding="utf-8")).get("projects", {})
    except (OSError, ValueError, AttributeError):
        return {}
    if not isinstance(projects, dict):
        return {}
    return {hashlib.sha256(p.encode("utf-8")).hexdigest(): p for p in projects if isinstance(p, str)}


def _hashed_projects(path: str) -> dict[str, str]:
    """A project-hash folder's cwd, from the paths the project registry (v0.29+) lists."""
    try:
        mtime = os.stat(path).st_mtime_ns
    except OSError:
        return {}
    return _registry(path, mtime)


def _emitter(ref: LineRef, state: dict[str, Any], message_id: str | None) -> Emitter:
    sid = state.get("sid") or make_uid("gemini-file", ref.file)
    return Emitter(NAME, f"{NAME}:{sid}", ref, state, state["ts"], announced(state, NAME), message_id)


def parse(record: dict[str, Any], ref: LineRef, state: dict[str, Any]) -> list[Event]:
    """One chat line → zero or more events."""
    ts = parse_ts_ms(record.get("timestamp") or record.get("startTime"))
    if ts is not None:
        state["ts"] = ts
    elif record.get("timestamp") is not None:
        COERCED.append(f"timestamp {as_text(record['timestamp'])[:40]} is not a time in 1970-9999: previous kept")
    message_id = text_or_none(record.get("id"))
    session_id = text_or_none(record.get("sessionId")) if message_id is None else None
    if session_id:
        if not state.get("parent"):
            state["sid"] = kept(session_id)
        emit = _emitter(ref, state, None)
        summary = text_or_none(record.get("summary"))
        emit.add("system", summary or "", meta={"title_ai": summary} if summary else {})
        return emit.events
    emit = _emitter(ref, state, message_id)
    if isinstance(record.get("$set"), dict):
        _set(record["$set"], emit)
    elif "$rewindTo" in record:
        emit.add("system", "", meta={"rewind_to": text_or_none(record.get("$rewindTo"))})
    else:
        _message(record, emit)
    return emit.events


def _set(patch: dict[str, Any], emit: Emitter) -> None:
    summary = text_or_none(patch.get("summary"))
    if summary:
        emit.add("system", summary, meta={"title_ai": summary})
    if isinstance(patch.get("messages"), list):  # a checkpoint after /compress: the history, rebuilt
        snapshot = next((_text(m.get("content")) for m in patch["messages"] if isinstance(m, dict)
                         and "<state_snapshot>" in _text(m.get("content"))), "")
        emit.add("compaction", snapshot)


def _parts(content: Any) -> list[dict[str, Any]]:
    if isinstance(content, str):
        return [{"text": content}]
    if isinstance(content, dict):
        return [content]
    return [p for p in content if isinstance(p, dict)] if isinstance(content, list) else []


def _text(content: Any) -> str:
    return "\n".join(as_text(p["text"]) for p in _parts(content) if "text" in p and not p.get("thought"))


def _message(record: dict[str, Any], emit: Emitter) -> None:
    kind = record.get("type")
    content = record.get("content")
    if kind == "user":
        parts = _parts(content)
        if parts and not any("text" in p for p in parts):
            return  # tool responses recorded as a user message: already in the call's result
        text = _text(record["displayContent"]) if record.get("displayContent") is not None else _text(content)
        stripped = text.lstrip()
        if stripped.startswith(INJECTED) or stripped.startswith("/"):
            emit.add("system", text)
        else:
            emit.add("user_input", text, starts_turn=bool(stripped))
    elif kind == "gemini":
        _gemini(record, emit)
    elif kind == "info":
        text = _text(content)
        cancelled = text.strip().lower().startswith(CANCELLED)
        emit.add("runtime" if cancelled else "system", text, terminal=TERMINAL_ABORT if cancelled else 0)
    elif kind == "error":
        emit.add("runtime", _text(content), terminal=TERMINAL_ABORT, meta={"error": True})
    elif kind == "warning":
        emit.add("system", _text(content))
    else:
        emit.add("unknown", "", meta={"record_type": as_text(kind)})


def _gemini(record: dict[str, Any], emit: Emitter) -> None:
    model = text_or_none(record.get("model"))
    for thought in record.get("thoughts") or []:
        if isinstance(thought, dict):
            text = "\n".join(t for t in (text_or_none(thought.get("subject")), text_or_none(thought.get("description")))
                             if t)
            emit.add("reasoning", text, model=model)
    for part in _parts(record.get("content")):
        if part.get("thought") and "text" in part:
            emit.add("reasoning", as_text(part["text"]), model=model)
    text = _text(record.get("content"))
    if text.strip():
        emit.add("assistant_response", text, model=model)
    for call in record.get("toolCalls") or []:
        if isinstance(call, dict):
            _tool(call, model, emit)


def _tool(call: dict[str, Any], model: str | None, emit: Emitter) -> None:
    name, call_id = text_or_none(call.get("name")), text_or_none(call.get("id"))
    emit.tool_call(name, call_id, call.get("args"), model)
    status = text_or_none(call.get("status"))
    if call.get("result") is None and status not in ("success", "error", "cancelled"):
        return  # not finished yet: the message will be appended again with its result
    output = ""
    for part in _parts(call.get("result")):
        response = part.get("functionResponse")
        body = response.get("response") if isinstance(response, dict) else None
        if isinstance(body, dict):
            output = as_text(body.get("output") if body.get("output") is not None else body.get("error") or "")
    if not output and call.get("resultDisplay") is not None:
        output = as_text(call["resultDisplay"])
    match = EXIT_RE.search(output)
    exit_code = int(match.group(1)) if match else (0 if name == "run_shell_command" and status == "success" else None)
    emit.tool_response(output, name, call_id, exit_code, status == "error", {"status": status} if status else {})
