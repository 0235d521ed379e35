"""OpenCode (`$XDG_DATA_HOME|~/.local/share` `/opencode`) → normalized events.

Reads OpenCode's SQLite store `opencode.db` (also `opencode-<channel>.db`) of v1.2 to v1.18 (schema
checked at tag v1.18.3, `packages/core/src/database/schema.gen.ts`; columns are read by name, since
an upgraded database orders them differently): the `session`, `message` and `part` tables (`data`
holds a message or part minus its ids; `time_created` / `time_updated` in epoch ms); and the JSON
tree `storage/{session/<project>,message/<session>,part/<message>}/<id>.json` that releases up to
v1.1 rewrote in place (docs/harnesses/opencode-storage.md, docs/harnesses/cursor-opencode-kimi-pi.md
§2). Both are read whole, never by lines (`_document`). The v2 `session_message` table is not read
(empty in the releases checked).

The database is opened read-only (`mode=ro`, short read transactions: in WAL mode the writer
is never blocked) and polled by a cursor: the highest `time_updated` seen. Parts are updated in
place while streaming, so each poll re-reads every session with a row updated since the cursor
(less a few seconds of slack: the times are the app's wall clock), whole; events are named by
part id, so a part read again replaces its copy, and one deleted (a revert) is retired. A
session of the JSON tree that the database also holds is read from the database only; one whose
session file is missing is read from its messages. The database is a foreign file and read as
one (`_opencode_db.Db`): only known columns of plain tables, the schema untrusted, every statement under a
deadline SQLite enforces; what cannot be read so is reported ("cannot read: …"), never waited on.

A turn starts at a user message's first text part that is neither `synthetic` nor `ignored`
(nor a `<system-reminder>` older releases left unflagged); an assistant message that finished
(`finish` other than `tool-calls`) ends it, one with an `error` aborts it. Tool parts give a call
and, once `completed` or `error`, a response (the bash tool's exit code is `metadata.exit`).
Child sessions (`parent_id`, made by the `task` tool) name their parent. The title is the
session's, unless it is the `New session - <time>` placeholder. Resume: `opencode --session <id>`.
"""

from __future__ import annotations

import contextlib
import os
import re
import sqlite3
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from moraine.model import TERMINAL_ABORT, TERMINAL_FINISH, Event, LineRef
from moraine.sources._clean import as_text, json_object, text_or_none
from moraine.sources._common import parse_ts_ms
from moraine.sources._document import Read, Unreadable, read_regular
from moraine.sources._emit import Emitter
from moraine.sources._json import decode
from moraine.sources._opencode_db import RETRY_S, Db, Refused, Row, busy, problem, records

NAME = "opencode"
DB_RE = re.compile(r"/opencode(?:-[A-Za-z0-9_.-]+)?\.db$")
LEGACY_RE = re.compile(r"/storage/session/[^/]+/[^/]+\.json$")
MESSAGE_RE = re.compile(r"/storage/message/([^/]+)/[^/]+\.json$")
DEFAULT_TITLE_RE = re.compile(r"^(New session - |Child session - )\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$",
                              re.IGNORECASE)
SLACK_MS = 5_000  # `time_updated` is the app's wall clock: rows may land slightly behind the cursor
NOT_FINISHED = (None, "", "tool-calls", "unknown")
# The data folder also holds git snapshots: walk only where logs are (a session whose session
# file is missing is found by its messages' folder).
UNDER = ("storage/session", "storage/message")


# -- which files ----------------------------------------------------------------------------

def accepts(path: str) -> bool:
    return DB_RE.search(path) is not None or LEGACY_RE.search(path) is not None or _orphan_log(path)


def whole(path: str) -> bool:
    return accepts(path)


def read(path: str, key: str, cursor: dict[str, Any]) -> Read:
    return _read_db(path, cursor) if DB_RE.search(path) else _read_legacy(path)


class _Retry:
    """When a database that could not be read is tried again: its change token takes one more
    number every RETRY_S after the failure (only in this process: a new one reads it when it
    changes)."""

    def __init__(self) -> None:
        self.failed: dict[str, float] = {}
        self.extra: dict[str, list[int]] = {}

    def failure(self, path: str) -> None:
        self.failed[path] = time.monotonic()

    def success(self, path: str) -> None:
        self.failed.pop(path, None)

    def token(self, path: str) -> list[int]:
        extra = self.extra.get(path, [])
        failed = self.failed.get(path)
        if failed is not None and time.monotonic() - failed >= RETRY_S:
            extra = [(extra[0] if extra else 0) + 1]
            self.failed[path] = time.monotonic()  # one more try now; the next after another RETRY_S
        if len(self.extra) < 4096:
            self.extra[path] = extra
        return extra


_RETRY = _Retry()


def _read_db(path: str, cursor: dict[str, Any]) -> Read:
    high = int(cursor.get("high", 0) or 0)
    since = high - SLACK_MS if high else -1
    try:
        db = Db(path)
    except sqlite3.Error as exc:
        _RETRY.failure(path)
        if busy(exc):
            return Read(problem=problem(exc))
        return Read(problem=f"cannot read: cannot open the database read-only ({exc}): read again when it changes")
    try:
        db.check()
        db.con.execute("BEGIN")  # one snapshot for the scan
        try:
            new_high, changed = db.scan(since)
        finally:
            with contextlib.suppress(sqlite3.Error):
                db.con.execute("COMMIT")
        db.check_plans(len(changed))
    except (Refused, sqlite3.Error) as exc:
        db.close()
        _RETRY.failure(path)
        return Read(problem=problem(exc))
    return Read(_sessions(path, db, changed), whole_file=False, cursor={"high": max(high, new_high)})


def _sessions(path: str, db: Db, changed: list[str]) -> Iterator[list[dict[str, Any]]]:
    """Each changed session's records, one at a time (each in its own short read transaction)."""
    try:
        for sid in changed:
            group = db.session(sid)
            if group:
                yield group
        _RETRY.success(path)
    except sqlite3.Error as exc:
        _RETRY.failure(path)
        raise Unreadable(problem(exc)) from None
    finally:
        db.close()


# -- the JSON tree of older releases -----------------------------------------------------------

def _read_legacy(path: str) -> Read:
    """A session file with its messages and parts (`storage/message/<session>/`,
    `storage/part/<message>/`); nothing when the database holds the session. A session whose
    file is missing is read from the first file of its messages' folder (`_orphan_log`), its
    record made of what the messages say."""
    storage = Path(path).parents[2]
    orphan = MESSAGE_RE.search(path)
    if orphan:
        sid = orphan.group(1)
        if _session_file(storage, sid) is not None:
            return Read([])  # its session file came back: that log reads it
        session: Any = {"id": sid}
    else:
        session = _load(Path(path))
        if not isinstance(session, dict):
            return Read(problem="not a session document (being written?): read again when it changes")
        sid = text_or_none(session.get("id")) or Path(path).stem
    if _in_database(storage.parent, sid):
        return Read([])
    messages: list[Row] = []
    for file in _json_files(storage / "message" / sid):
        data = _load(file)
        if isinstance(data, dict):
            created = json_object(data.get("time")).get("created")
            messages.append((file.stem, created if isinstance(created, int) else None, data))
    messages.sort(key=lambda m: (m[1] or 0, m[0]))
    if orphan:
        session = _derived_session(sid, messages)
    times = json_object(session.get("time"))
    record = {"$kind": "session", "id": sid, "title": session.get("title"), "directory": session.get("directory"),
              "parent_id": session.get("parentID"), "time_created": times.get("created"),
              "time_updated": times.get("updated")}
    return Read([_legacy_records(storage, record, messages)])


def _legacy_records(storage: Path, record: dict[str, Any], messages: list[Row]) -> Iterator[dict[str, Any]]:
    """The session's records, each message's parts read from `storage/part/<message>/` only when
    its turn comes (a session's parts are never all held at once)."""
    def parts(message_id: str) -> list[Row]:
        return [(file.stem, None, _load(file)) for file in _json_files(storage / "part" / message_id)]

    yield from records(record, messages, parts)


def _derived_session(sid: str, messages: list[Row]) -> dict[str, Any]:
    """A session record made of its messages (its file is missing): created with the first
    message, in the folder the first message that names one worked in; no title."""
    directory = next((text_or_none(json_object(data.get("path")).get("cwd")) for _, _, data in messages
                      if isinstance(data, dict) and text_or_none(json_object(data.get("path")).get("cwd"))), None)
    created = next((c for _, c, _ in messages if c is not None), None)
    return {"id": sid, "directory": directory, "time": {"created": created}}


def legacy_token(path: str) -> list[int]:
    """What a log read whole is made of besides its own file, for its change token: for a
    session of the JSON tree, every message and part file's size and mtime (they are rewritten
    in place without touching the session file); for a database, the retry count (`_Retry`)."""
    if DB_RE.search(path):
        return _RETRY.token(path)
    storage = Path(path).parents[2]
    orphan = MESSAGE_RE.search(path)
    sid = orphan.group(1) if orphan else Path(path).stem
    out: list[int] = []
    messages = storage / "message" / sid
    for folder in [messages, *(storage / "part" / f.stem for f in _json_files(messages))]:
        for file in _json_files(folder):
            try:
                stat = file.stat()
            except OSError:
                continue
            out += [stat.st_size, stat.st_mtime_ns]
    return out


def _json_files(folder: Path) -> list[Path]:
    """The JSON files of a folder, links not followed (a tree file is never a link out of it)."""
    try:
        with os.scandir(folder) as entries:
            return sorted(Path(e.path) for e in entries
                          if e.name.endswith(".json") and e.is_file(follow_symlinks=False))
    except OSError:
        return []


def _load(file: Path) -> Any:
    try:
        raw = read_regular(str(file), MAX_TREE_FILE_BYTES)
        return None if raw is None else decode(raw)[0]
    except (OSError, ValueError, RecursionError):
        return None


MAX_TREE_FILE_BYTES = 64 * 1024 * 1024  # one message or part file (OpenCode cuts tool output far below)
_FIRST: dict[str, tuple[int, str | None]] = {}  # message folder → (its mtime, its first JSON file)


def _orphan_log(path: str) -> bool:
    """Whether `path` (a message file) stands for a session whose session file is missing: the
    first JSON file (by name: OpenCode's ids sort by time) of a session's messages folder, when
    no `storage/session/<project>/<session>.json` exists."""
    match = MESSAGE_RE.search(path)
    if match is None:
        return False
    folder = os.path.dirname(path)
    try:
        mtime = os.stat(folder).st_mtime_ns
    except OSError:
        return False
    cached = _FIRST.get(folder)
    if cached is None or cached[0] != mtime:
        files = _json_files(Path(folder))
        if len(_FIRST) >= 65_536:
            _FIRST.clear()
        cached = _FIRST[folder] = (mtime, str(files[0]) if files else None)
    return cached[1] == path and _session_file(Path(path).parents[2], match.group(1)) is None


def _session_file(storage: Path, sid: str) -> Path | None:
    try:
        with os.scandir(storage / "session") as projects:
            for project in projects:
                candidate = Path(project.path) / f"{sid}.json"
                if project.is_dir(follow_symlinks=False) and candidate.is_file():
                    return candidate
    except OSError:
        return None
    return None


def _in_database(data_dir: Path, sid: str) -> bool:
    for path in sorted(data_dir.glob("opencode*.db")):
        if not DB_RE.search(str(path)):
            continue
        try:
            db = Db(str(path))
        except sqlite3.Error:
            continue
        try:
            db.check()
            if db.one('SELECT 1 FROM main."session" WHERE "id" = ?', (sid,)):
                return True
        except (Refused, sqlite3.Error):
            continue
        finally:
            db.close()
    return False


# -- records → events --------------------------------------------------------------------------

def initial_state(path: str) -> dict[str, Any]:
    return {"ts": 0}


def _emitter(ref: LineRef, state: dict[str, Any], record_id: str) -> Emitter:
    return Emitter(NAME, f"{NAME}:{state.get('sid') or 'unknown'}", ref, state, state["ts"], None, record_id)


def _time(state: dict[str, Any], *values: Any) -> None:
    for value in values:
        ts = parse_ts_ms(value) if value is not None else None
        if ts is not None:
            state["ts"] = ts
            return


def parse(record: dict[str, Any], ref: LineRef, state: dict[str, Any]) -> list[Event]:
    kind = record.get("$kind")
    if kind == "session":
        return _session(record, ref, state)
    if kind == "orphan":
        return _orphan(record)
    data = record.get("data")
    if not isinstance(data, dict):
        raise ValueError(f"{kind} {as_text(record.get('id'))[:40]} has no readable data")
    if kind == "message":
        return _message(record, data, ref, state)
    if kind == "part":
        return _part(record, data, ref, state)
    if kind == "message_end":
        return _message_end(record, data, ref, state)
    raise ValueError(f"unknown record kind {as_text(kind)[:40]}")


def _orphan(record: dict[str, Any]) -> list[Event]:
    """Parts whose message row is missing cannot be placed in a turn: quarantined, not dropped."""
    raise ValueError(f"{record.get('parts')} parts of message {as_text(record.get('id'))[:60]} whose message row "
                     "is missing")


def _session(record: dict[str, Any], ref: LineRef, state: dict[str, Any]) -> list[Event]:
    state["sid"] = text_or_none(record.get("id"))
    _time(state, record.get("time_created"))
    title = text_or_none(record.get("title"))
    if title and DEFAULT_TITLE_RE.match(title):
        title = None
    meta: dict[str, Any] = {}
    if text_or_none(record.get("directory")):
        meta["cwd"] = state["cwd"] = record["directory"]  # a message's own path.cwd is said only where it differs
    if text_or_none(record.get("parent_id")):
        meta["parent"] = f"{NAME}:{record['parent_id']}"
    if title:
        meta["title_ai"] = title
    emit = _emitter(ref, state, "session")
    emit.add("system", title or "", meta=meta)
    return emit.events


def _message(record: dict[str, Any], data: dict[str, Any], ref: LineRef, state: dict[str, Any]) -> list[Event]:
    times = json_object(data.get("time"))
    _time(state, record.get("time_created"), times.get("created"))
    state["role"] = text_or_none(data.get("role"))
    state["prompted"] = False
    state["model"] = text_or_none(data.get("modelID")) or _model_of(data.get("model"))
    state["summary"] = data.get("summary") is True or data.get("mode") == "compaction" \
        or data.get("agent") == "compaction"
    path = json_object(data.get("path"))
    cwd = text_or_none(path.get("cwd"))
    if cwd and cwd != state.get("cwd"):
        state["cwd"] = cwd
        emit = _emitter(ref, state, str(record.get("id")))
        emit.add("system", "", meta={"cwd": cwd})
        return emit.events
    return []


def _model_of(value: Any) -> str | None:
    if isinstance(value, dict):
        return text_or_none(value.get("modelID")) or text_or_none(value.get("id"))
    return text_or_none(value)


def _part(record: dict[str, Any], data: dict[str, Any], ref: LineRef, state: dict[str, Any]) -> list[Event]:
    times = json_object(data.get("time"))
    _time(state, record.get("time_created"), times.get("start"))
    emit = _emitter(ref, state, str(record.get("id")))
    kind, user = data.get("type"), state.get("role") == "user"
    model = None if user else state.get("model")
    if kind == "text":
        _text_part(data, emit, user, model)
    elif kind == "reasoning":
        emit.add("reasoning", as_text(data.get("text") or ""), model=model)
    elif kind == "tool":
        _tool(data, emit, model)
    elif kind == "file":
        name = text_or_none(data.get("filename")) or text_or_none(json_object(data.get("source")).get("path"))
        emit.add("system", f"[file] {name or ''} {as_text(data.get('mime') or '')}".strip())
    elif kind == "compaction":
        emit.add("compaction", "", meta={"auto": data.get("auto") is True})
    elif kind in ("subtask", "agent"):
        emit.add("system", as_text(data.get("prompt") or data.get("description") or data.get("name") or ""))
    elif kind == "retry":
        emit.add("runtime", as_text(_error_text(data.get("error"))), meta={"retry": True})
    elif kind not in ("step-start", "step-finish", "snapshot", "patch"):
        emit.add("unknown", "", meta={"part_type": as_text(kind)})
    return emit.events


def _text_part(data: dict[str, Any], emit: Emitter, user: bool, model: str | None) -> None:
    """The first text the person typed in a message starts the turn; text the app injected into
    a user message (flagged, or an unflagged reminder of older releases) is context."""
    text = as_text(data.get("text") or "")
    injected = data.get("synthetic") is True or data.get("ignored") is True \
        or text.lstrip().startswith("<system-reminder>")
    if user and not injected and text.strip():
        emit.add("user_input", text, starts_turn=not emit.state.get("prompted"))
        emit.state["prompted"] = True
    elif user or injected:
        emit.add("system", text)
    else:
        emit.add("compaction" if emit.state.get("summary") else "assistant_response", text, model=model)


def _tool(data: dict[str, Any], emit: Emitter, model: str | None) -> None:
    name, call_id = text_or_none(data.get("tool")), text_or_none(data.get("callID"))
    tool_state = json_object(data.get("state"))
    emit.tool_call(name, call_id, tool_state.get("input"), model)
    status = tool_state.get("status")
    if status not in ("completed", "error"):
        return  # pending or running: the part is rewritten with its result
    metadata = json_object(tool_state.get("metadata"))
    exit_code = metadata.get("exit")
    output = tool_state.get("output") if status == "completed" else tool_state.get("error")
    emit.tool_response(as_text(output or ""), name, call_id, exit_code if type(exit_code) is int else None,
                       status == "error", {"status": status})


def _error_text(error: Any) -> str:
    if isinstance(error, dict):
        detail = json_object(error.get("data"))
        return ": ".join(t for t in (text_or_none(error.get("name")), text_or_none(detail.get("message"))) if t)
    return as_text(error or "")


def _message_end(record: dict[str, Any], data: dict[str, Any], ref: LineRef, state: dict[str, Any]) -> list[Event]:
    """After an assistant message's parts: its error aborts the turn, its finish ends it."""
    if data.get("role") != "assistant":
        return []
    times = json_object(data.get("time"))
    _time(state, times.get("completed"))
    emit = _emitter(ref, state, f"{record.get('id')}:end")
    if data.get("error"):
        emit.add("runtime", _error_text(data["error"]), terminal=TERMINAL_ABORT, meta={"error": True})
    elif data.get("finish") not in NOT_FINISHED and times.get("completed") is not None:
        emit.add("runtime", "", terminal=TERMINAL_FINISH, meta={"finish": as_text(data["finish"])})
    return emit.events
