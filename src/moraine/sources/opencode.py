"""OpenCode (`$XDG_DATA_HOME|~/.local/share` `/opencode`) → normalized events.

Reads OpenCode's SQLite store `opencode.db` (also `opencode-<channel>.db`) of v1.2 to v1.18 (schema
checked at tag v1.18.3, `packages/core/src/database/schema.gen.ts`; columns are read by name, since
an upgraded database orders them differently): the `session`, `message` and `part` tables (`data`
holds a message or part minus its ids; `time_created` / `time_updated` in epoch ms); and the JSON
tree `storage/{session/<project>,message/<session>,part/<message>}/<id>.json` that releases up to
v1.1 rewrote in place (docs/harnesses/opencode-storage.md, docs/harnesses/cursor-opencode-kimi-pi.md
§2). Both are read whole, never by lines (`_document`). The v2 `session_message` table is not read
(empty in the releases checked).

The database is opened read-only (`mode=ro`, a short read transaction: in WAL mode the writer
is never blocked) and polled by a cursor: the highest `time_updated` seen. Parts are updated in
place while streaming, so each poll re-reads every session with a row updated since the cursor
(less a few seconds of slack: the times are the app's wall clock), whole; events are named by
part id, so a part read again replaces its copy, and one deleted (a revert) is retired. A
session of the JSON tree that the database also holds is read from the database only.

A turn starts at a user message's first text part that is neither `synthetic` nor `ignored`
(nor a `<system-reminder>` older releases left unflagged); an assistant message that finished
(`finish` other than `tool-calls`) ends it, one with an `error` aborts it. Tool parts give a call
and, once `completed` or `error`, a response (the bash tool's exit code is `metadata.exit`).
Child sessions (`parent_id`, made by the `task` tool) name their parent. The title is the
session's, unless it is the `New session - <time>` placeholder. Resume: `opencode --session <id>`.
"""

from __future__ import annotations

import re
import sqlite3
from pathlib import Path
from typing import Any
from urllib.parse import quote

from moraine.model import TERMINAL_ABORT, TERMINAL_FINISH, Event, LineRef
from moraine.sources._clean import as_text, json_object, text_or_none
from moraine.sources._common import parse_ts_ms
from moraine.sources._document import MAX_DOCUMENT_BYTES, Read
from moraine.sources._emit import Emitter
from moraine.sources._json import decode

NAME = "opencode"
DB_RE = re.compile(r"/opencode(?:-[A-Za-z0-9_.-]+)?\.db$")
LEGACY_RE = re.compile(r"/storage/session/[^/]+/[^/]+\.json$")
DEFAULT_TITLE_RE = re.compile(r"^(New session - |Child session - )\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$",
                              re.IGNORECASE)
SLACK_MS = 5_000  # `time_updated` is the app's wall clock: rows may land slightly behind the cursor
BUSY_MS = 2_000
NOT_FINISHED = (None, "", "tool-calls", "unknown")
UNDER = ("storage/session",)  # the data folder also holds git snapshots: walk only where logs are


# -- which files ----------------------------------------------------------------------------

def accepts(path: str) -> bool:
    return DB_RE.search(path) is not None or LEGACY_RE.search(path) is not None


def whole(path: str) -> bool:
    return accepts(path)


def read(path: str, key: str, cursor: dict[str, Any]) -> Read:
    return _read_db(path, cursor) if DB_RE.search(path) else _read_legacy(path)


# -- the database ----------------------------------------------------------------------------

_CHANGED = """
    SELECT id FROM session WHERE time_updated > :since
    UNION SELECT session_id FROM message WHERE time_updated > :since
    UNION SELECT session_id FROM part WHERE time_updated > :since"""
_HIGH = "SELECT max(m) FROM (SELECT max(time_updated) AS m FROM session UNION ALL " \
        "SELECT max(time_updated) FROM message UNION ALL SELECT max(time_updated) FROM part)"


def _connect(path: str) -> sqlite3.Connection:
    """Read-only, never creating the file, waiting briefly for a writer's lock (a database not
    in WAL mode), and never holding a transaction longer than one read."""
    con = sqlite3.connect(f"file:{quote(path)}?mode=ro", uri=True, timeout=BUSY_MS / 1000,
                          isolation_level=None, check_same_thread=False)
    con.execute("PRAGMA query_only = 1")
    return con


def _read_db(path: str, cursor: dict[str, Any]) -> Read:
    high = int(cursor.get("high", 0) or 0)
    try:
        con = _connect(path)
    except sqlite3.Error as exc:
        return Read(problem=f"cannot open the database read-only: {exc}")
    try:
        con.execute("BEGIN")  # one snapshot for the whole read
        new_high = int(con.execute(_HIGH).fetchone()[0] or 0)
        since = high - SLACK_MS if high else -1
        changed = sorted({row[0] for row in con.execute(_CHANGED, {"since": since}) if row[0] is not None})
        groups = [_session_records(con, sid) for sid in changed]
        con.execute("COMMIT")
    except sqlite3.Error as exc:
        return Read(problem=f"not readable as an OpenCode database ({exc}): read again when it changes")
    finally:
        con.close()
    return Read([g for g in groups if g], whole_file=False, cursor={"high": max(high, new_high)})


def _session_records(con: sqlite3.Connection, sid: str) -> list[dict[str, Any]]:
    columns = [d[1] for d in con.execute("PRAGMA table_info(session)")]
    row = con.execute(f"SELECT {', '.join(columns)} FROM session WHERE id = ?", (sid,)).fetchone()
    session = {"$kind": "session", **dict(zip(columns, row, strict=True))} if row else {"$kind": "session", "id": sid}
    messages = con.execute("SELECT id, time_created, data FROM message WHERE session_id = ? "
                           "ORDER BY time_created, id", (sid,)).fetchall()
    parts: dict[str, list[tuple[str, int, str]]] = {}
    for part_id, message_id, created, data in con.execute(
            "SELECT id, message_id, time_created, data FROM part WHERE session_id = ? ORDER BY id", (sid,)):
        parts.setdefault(message_id, []).append((part_id, created, data))
    return _assemble(session, [(mid, created, _data(data)) for mid, created, data in messages],
                     {mid: [(pid, created, _data(data)) for pid, created, data in rows] for mid, rows in parts.items()})


def _data(raw: Any) -> Any:
    if isinstance(raw, bytes | str):
        try:
            return decode(raw.encode("utf-8", "surrogatepass") if isinstance(raw, str) else raw)[0]
        except (ValueError, RecursionError):
            return None
    return None


# A message or a part as read: its id, its creation time (epoch ms) when known, its decoded data.
Row = tuple[str, int | None, Any]


def _assemble(session: dict[str, Any], messages: list[Row], parts: dict[str, list[Row]]) -> list[dict[str, Any]]:
    """A session's records in order: the session, then each message, its parts, and its end."""
    records: list[dict[str, Any]] = [session]
    for message_id, created, data in messages:
        base = {"id": message_id, "session_id": session.get("id"), "time_created": created}
        records.append({"$kind": "message", **base, "data": data})
        for part_id, part_created, part in parts.get(message_id, []):
            records.append({"$kind": "part", "id": part_id, "message_id": message_id, "time_created": part_created,
                            "data": part})
        records.append({"$kind": "message_end", **base, "data": data})
    known = {message_id for message_id, _, _ in messages}
    for message_id in sorted(set(parts) - known):  # parts whose message row is gone: said, not dropped
        records.append({"$kind": "orphan", "id": message_id, "parts": len(parts[message_id])})
    return records


# -- the JSON tree of older releases -----------------------------------------------------------

def _read_legacy(path: str) -> Read:
    """A session file with its messages and parts (`storage/message/<session>/`,
    `storage/part/<message>/`); nothing when the database holds the session."""
    storage = Path(path).parents[2]
    session = _load(Path(path))
    if not isinstance(session, dict):
        return Read(problem="not a session document (being written?): read again when it changes")
    sid = text_or_none(session.get("id")) or Path(path).stem
    if _in_database(storage.parent, sid):
        return Read([])
    time = json_object(session.get("time"))
    record = {"$kind": "session", "id": sid, "title": session.get("title"), "directory": session.get("directory"),
              "parent_id": session.get("parentID"), "time_created": time.get("created"),
              "time_updated": time.get("updated")}
    messages: list[Row] = []
    for file in _json_files(storage / "message" / sid):
        data = _load(file)
        if isinstance(data, dict):
            created = json_object(data.get("time")).get("created")
            messages.append((file.stem, created if isinstance(created, int) else None, data))
    messages.sort(key=lambda m: (m[1] or 0, m[0]))
    parts: dict[str, list[Row]] = {mid: [(file.stem, None, _load(file)) for file in _json_files(storage / "part" / mid)]
                                   for mid, _, _ in messages}
    return Read([_assemble(record, messages, parts)])


def legacy_token(path: str) -> list[int]:
    """What a session of the JSON tree is made of, for its change token: every message and part
    file's size and mtime (they are rewritten in place without touching the session file)."""
    storage = Path(path).parents[2]
    sid = Path(path).stem
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
    try:
        return sorted(p for p in folder.iterdir() if p.suffix == ".json" and p.is_file())
    except OSError:
        return []


def _load(file: Path) -> Any:
    try:
        if file.stat().st_size > MAX_DOCUMENT_BYTES:
            return None
        return decode(file.read_bytes())[0]
    except (OSError, ValueError, RecursionError):
        return None


def _in_database(data_dir: Path, sid: str) -> bool:
    for db in sorted(data_dir.glob("opencode*.db")):
        if not DB_RE.search(str(db)):
            continue
        try:
            con = _connect(str(db))
            try:
                if con.execute("SELECT 1 FROM session WHERE id = ?", (sid,)).fetchone():
                    return True
            finally:
                con.close()
        except sqlite3.Error:
            continue
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
