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
one (`_Db`): only known columns of plain tables, the schema untrusted, every statement under a
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
from collections.abc import Callable, Generator, Iterator
from pathlib import Path
from typing import Any
from urllib.parse import quote

from moraine.model import TERMINAL_ABORT, TERMINAL_FINISH, Event, LineRef
from moraine.sources._clean import as_text, json_object, text_or_none
from moraine.sources._common import parse_ts_ms
from moraine.sources._document import Read, Unreadable, read_regular
from moraine.sources._emit import Emitter
from moraine.sources._json import decode

NAME = "opencode"
DB_RE = re.compile(r"/opencode(?:-[A-Za-z0-9_.-]+)?\.db$")
LEGACY_RE = re.compile(r"/storage/session/[^/]+/[^/]+\.json$")
MESSAGE_RE = re.compile(r"/storage/message/([^/]+)/[^/]+\.json$")
DEFAULT_TITLE_RE = re.compile(r"^(New session - |Child session - )\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$",
                              re.IGNORECASE)
SLACK_MS = 5_000  # `time_updated` is the app's wall clock: rows may land slightly behind the cursor
# How long a read waits for a writer's lock (a database not in WAL mode): a write by the app takes
# milliseconds; a lock held longer is passed over and tried again (RETRY_S), never waited on while
# the reader holds Moraine's writer lock.
BUSY_MS = 100
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


# -- the database ----------------------------------------------------------------------------
#
# The database is a file from outside: any name in its schema and any object behind a table's
# name is the file's say. So no identifier is ever read from it (only the known columns are
# selected, quoted, from objects checked to be plain tables: a view, a virtual table or a
# computed column would run the file's own SQL), it is opened read-only with its schema
# untrusted, and every statement runs under a deadline SQLite enforces itself (a progress
# handler interrupts it), renewed per slice of rows: a query that would never end is stopped.
# A database that cannot be read is reported ("cannot read: …") and read again when it
# changes (and, by a long-lived process, every RETRY_S).

SLICE_S = 2.0  # one statement, or one slice of its rows, may run this long before SQLite interrupts it
PROGRESS_OPS = 10_000  # virtual machine steps between two looks at the deadline
SCAN_ROWS = 20_000  # rows (by rowid) one slice of the change scan looks at
FETCH_ROWS = 2_000  # rows fetched per slice
MAX_VALUE_BYTES = 64 * 1024 * 1024  # a longer text or blob is refused by SQLite (SQLITE_LIMIT_LENGTH)
SCAN_WORK = 20_000_000  # rows the per-session reads may visit when no index serves them
RETRY_S = 300.0  # a database that could not be read is tried again this often by a long-lived process
_TABLES: dict[str, tuple[str, ...]] = {  # the columns read, and only those (the first ones are required)
    "session": ("id", "time_updated", "time_created", "parent_id", "directory", "title"),
    "message": ("id", "session_id", "time_created", "time_updated", "data"),
    "part": ("id", "message_id", "session_id", "time_created", "time_updated", "data"),
}
_REQUIRED = {"session": 2, "message": 5, "part": 6}
_BY_SESSION = '"session_id" = ?'
_OWNER = {"session": "id", "message": "session_id", "part": "session_id"}  # the column naming the session


def _q(name: str) -> str:
    """One of the identifiers above, quoted (never a name read from the file)."""
    assert name in _TABLES or any(name in cols for cols in _TABLES.values()) or name in ("rowid", "_rowid_", "oid")
    return f'"{name}"'


class _Refused(Exception):
    """The database is not one this reader will run queries on."""


def _connect(path: str, *, immutable: bool = False) -> sqlite3.Connection:
    """Read-only, never creating the file, waiting BUSY_MS at most for a writer's lock (a database
    not in WAL mode), never holding a transaction longer than one read; the schema untrusted (no
    function with side effects runs from it) and no value longer than MAX_VALUE_BYTES."""
    uri = f"file:{quote(path)}?mode=ro" + ("&immutable=1" if immutable else "")
    con = sqlite3.connect(uri, uri=True, timeout=BUSY_MS / 1000, isolation_level=None, check_same_thread=False)
    try:
        if hasattr(con, "enable_load_extension"):  # absent when the module was built without it
            con.enable_load_extension(False)
        con.setlimit(sqlite3.SQLITE_LIMIT_LENGTH, MAX_VALUE_BYTES)
        con.setlimit(sqlite3.SQLITE_LIMIT_ATTACHED, 0)
        con.execute("PRAGMA query_only = 1")
        con.execute("PRAGMA trusted_schema = OFF")
    except BaseException:
        con.close()
        raise
    return con


class _Db:
    """A read-only connection whose every statement runs under a deadline SQLite enforces."""

    def __init__(self, path: str) -> None:
        self.path = path
        self.deadline = float("inf")
        self.con = _connect(path)
        try:
            self._install()
            self.con.execute("SELECT 1 FROM sqlite_master LIMIT 1").fetchall()  # opens the file: may fail
        except sqlite3.OperationalError:
            self.con.close()
            if not self._unwritable_folder():
                raise
            # A WAL database in a folder this user cannot write has no shared-memory file to
            # read through: read as it stands on disk (nothing can be writing it here either).
            self.con = _connect(path, immutable=True)
            self._install()
        self.rowid: dict[str, str] = {}
        self.columns: dict[str, tuple[str, ...]] = {}

    def _install(self) -> None:
        self.con.set_progress_handler(self._expired, PROGRESS_OPS)

    def _unwritable_folder(self) -> bool:
        return not os.access(os.path.dirname(self.path) or ".", os.W_OK)

    def _expired(self) -> int:
        return 1 if time.monotonic() > self.deadline else 0

    def rows(self, sql: str, params: Any = ()) -> Generator[tuple[Any, ...], None, None]:
        """A statement's rows, fetched FETCH_ROWS at a time; each fetch (the first runs the
        statement) must finish within SLICE_S or SQLite interrupts it."""
        self.deadline = time.monotonic() + SLICE_S
        try:
            cursor = self.con.execute(sql, params)
            while True:
                batch = cursor.fetchmany(FETCH_ROWS)
                if not batch:
                    return
                yield from batch
                self.deadline = time.monotonic() + SLICE_S
        finally:
            self.deadline = float("inf")

    def one(self, sql: str, params: Any = ()) -> tuple[Any, ...] | None:
        rows = self.rows(sql, params)
        try:
            return next(rows, None)
        finally:
            rows.close()

    def close(self) -> None:
        with contextlib.suppress(sqlite3.Error):
            self.con.close()

    def check(self) -> None:
        """Each table read is a plain table holding the columns read (none of them computed
        when read), with a rowid to scan it by; else `_Refused`."""
        kinds: dict[str, list[tuple[str, str]]] = {}
        for name, kind, sql in self.rows("SELECT lower(name), type, coalesce(sql, '') FROM sqlite_master WHERE "
                                         "type IN ('table', 'view') AND lower(name) IN ('session', 'message', 'part')"):
            kinds.setdefault(name, []).append((kind, sql))
        for table, wanted in _TABLES.items():
            found = kinds.get(table)
            if not found:
                raise _Refused(f"no {table} table")
            if len(found) != 1 or found[0][0] != "table" or VIRTUAL_RE.match(found[0][1]):
                raise _Refused(f"{table} is a {found[0][0] if found[0][0] != 'table' else 'virtual table'}, "
                               "not a plain table: its own SQL would run")
            columns = {str(name).lower(): hidden for name, hidden in
                       self.rows("SELECT name, hidden FROM pragma_table_xinfo(?)", (table,))}
            present = tuple(c for c in wanted if c in columns)
            if present[:_REQUIRED[table]] != wanted[:_REQUIRED[table]]:
                missing = [c for c in wanted[:_REQUIRED[table]] if c not in columns]
                raise _Refused(f"{table} has no {', '.join(missing)} column")
            computed = [c for c in present if columns[c] == 2]  # a VIRTUAL generated column runs its expression
            if computed:
                raise _Refused(f"{table}.{computed[0]} is computed when read")
            alias = next((a for a in ("rowid", "_rowid_", "oid") if a not in columns), None)
            if alias is None or WITHOUT_ROWID_RE.search(found[0][1]):
                raise _Refused(f"{table} has no rowid to scan it by")
            self.columns[table], self.rowid[table] = present, alias

    def scan(self, since: int) -> tuple[int, list[str]]:
        """The highest `time_updated` of the three tables, and the sessions with a row updated
        after `since`; each table is scanned SCAN_ROWS rowids at a time, so no statement runs long
        (OpenCode keeps no index on `time_updated`)."""
        high = 0
        changed: set[str] = set()
        top_rowid = 2**63 - 1
        for table, owner in _OWNER.items():
            rowid, name = _q(self.rowid[table]), f"main.{_q(table)}"
            step = (f"SELECT {_q(owner)}, max({_q('time_updated')}) FROM {name} "
                    f"WHERE {rowid} BETWEEN ? AND ? GROUP BY 1")
            following = f"SELECT min({rowid}) FROM {name} WHERE {rowid} > ?"
            first = self.one(f"SELECT min({rowid}) FROM {name}")
            low = first[0] if first else None
            while isinstance(low, int):
                end = min(low + SCAN_ROWS - 1, top_rowid)
                for sid, updated in self.rows(step, (low, end)):
                    if isinstance(updated, int):
                        high = max(high, updated)
                        if updated > since and sid is not None:
                            changed.add(str(sid))
                after = self.one(following, (end,)) if end < top_rowid else None
                low = after[0] if after else None
        return high, sorted(changed)

    def check_plans(self, sessions: int) -> None:
        """Reading a session's messages and parts must not scan a whole table each time (a
        database without the indexes OpenCode makes): refused when that would visit too many rows."""
        for table in ("message", "part"):
            plan = " ".join(str(row[3]) for row in self.rows(f"EXPLAIN QUERY PLAN {self._read(table, _BY_SESSION)}",
                                                                   ("",)))
            if "SEARCH" in plan:
                continue
            last = self.one(f"SELECT max({_q(self.rowid[table])}) FROM main.{_q(table)}")
            rows = int(last[0]) if last and isinstance(last[0], int) else 0
            if rows * sessions > SCAN_WORK:
                raise _Refused(f"no index on {table}.session_id: reading {sessions} sessions would scan "
                               f"its {rows} rows each time")

    def _read(self, table: str, where: str) -> str:
        """The columns read of `table`'s rows `where` says, in the order a session is assembled in."""
        columns = ", ".join(_q(c) for c in _TABLES[table] if c not in ("session_id", "time_updated"))
        order = "ORDER BY \"time_created\", \"id\"" if table == "message" else "ORDER BY \"id\""
        return f"SELECT {columns} FROM main.{_q(table)} WHERE {where} {order}"

    def _rows_of(self, table: str, sid: str) -> list[tuple[Any, ...]]:
        """A session's rows of `table`; when one holds a value over MAX_VALUE_BYTES (SQLite
        refuses to load it), read one by one and that row left out: one oversized tool output
        never hides the rest of the session, nor the database's other sessions."""
        try:
            return list(self.rows(self._read(table, _BY_SESSION), (sid,)))
        except sqlite3.DataError:
            pass
        ids = [row[0] for row in self.rows(f"SELECT \"id\" FROM main.{_q(table)} WHERE {_BY_SESSION}", (sid,))]
        kept = [row for row_id in ids if (row := self._row_or_none(table, row_id)) is not None]
        if table == "message":  # in the order the whole read gives
            kept.sort(key=lambda r: (r[1] if isinstance(r[1], int) else 0, str(r[0])))
        else:
            kept.sort(key=lambda r: str(r[0]))
        return kept

    def _row_or_none(self, table: str, row_id: Any) -> tuple[Any, ...] | None:
        try:
            return self.one(self._read(table, "\"id\" = ?"), (row_id,))
        except sqlite3.DataError:  # the oversized row
            return None

    def session(self, sid: str) -> list[dict[str, Any]]:
        """One session's records, read in one read transaction (so its messages and parts agree)."""
        self.deadline = time.monotonic() + SLICE_S
        self.con.execute("BEGIN")
        try:
            columns = self.columns["session"]
            row = self.one(f"SELECT {', '.join(_q(c) for c in columns)} FROM main.\"session\" WHERE \"id\" = ?",
                           (sid,))
            session = {"$kind": "session", **dict(zip(columns, row, strict=True))} if row else \
                {"$kind": "session", "id": sid}
            messages = [(str(mid), created if isinstance(created, int) else None, _data(data))
                        for mid, created, data in self._rows_of("message", sid)]
            parts: dict[str, list[Row]] = {}
            for part_id, message_id, created, data in self._rows_of("part", sid):
                parts.setdefault(str(message_id), []).append(
                    (str(part_id), created if isinstance(created, int) else None, _data(data)))
        finally:
            with contextlib.suppress(sqlite3.Error):
                self.con.execute("COMMIT")
        return _assemble(session, messages, parts)


VIRTUAL_RE = re.compile(r"\s*CREATE\s+VIRTUAL\s", re.IGNORECASE)
WITHOUT_ROWID_RE = re.compile(r"\)\s*WITHOUT\s+ROWID\b[^)]*$", re.IGNORECASE)


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
        db = _Db(path)
    except sqlite3.Error as exc:
        _RETRY.failure(path)
        if _busy(exc):
            return Read(problem=_problem(exc))
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
    except (_Refused, sqlite3.Error) as exc:
        db.close()
        _RETRY.failure(path)
        return Read(problem=_problem(exc))
    return Read(_sessions(path, db, changed), whole_file=False, cursor={"high": max(high, new_high)})


def _sessions(path: str, db: _Db, changed: list[str]) -> Iterator[list[dict[str, Any]]]:
    """Each changed session's records, one at a time (each in its own short read transaction)."""
    try:
        for sid in changed:
            group = db.session(sid)
            if group:
                yield group
        _RETRY.success(path)
    except sqlite3.Error as exc:
        _RETRY.failure(path)
        raise Unreadable(_problem(exc)) from None
    finally:
        db.close()


_BUSY_ERRORS = ("database is locked", "database is busy")


def _busy(exc: Exception) -> bool:
    """A writer holds the lock: the file is fine, only not readable for now."""
    return isinstance(exc, sqlite3.OperationalError) and str(exc).lower().startswith(_BUSY_ERRORS)


def _problem(exc: Exception) -> str:
    if _busy(exc):
        return (f"busy: the database is locked by its writer (waited {BUSY_MS} ms): read again in "
                f"{RETRY_S:g} s or when it changes")
    if isinstance(exc, sqlite3.OperationalError) and "interrupt" in str(exc).lower():
        return (f"cannot read: a query on the database ran over {SLICE_S:g} s and was stopped "
                "(a hostile or damaged database?): read again when it changes")
    if isinstance(exc, _Refused):
        return f"cannot read: not an OpenCode database as this reader knows it ({exc}): read again when it changes"
    return f"cannot read: not readable as an OpenCode database ({exc}): read again when it changes"


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
    records = list(_records(session, messages, lambda message_id: parts.get(message_id, [])))
    known = {message_id for message_id, _, _ in messages}
    for message_id in sorted(set(parts) - known):  # parts whose message row is gone: said, not dropped
        records.append({"$kind": "orphan", "id": message_id, "parts": len(parts[message_id])})
    return records


def _records(session: dict[str, Any], messages: list[Row], parts: Callable[[str], list[Row]]
             ) -> Iterator[dict[str, Any]]:
    yield session
    for message_id, created, data in messages:
        base = {"id": message_id, "session_id": session.get("id"), "time_created": created}
        yield {"$kind": "message", **base, "data": data}
        for part_id, part_created, part in parts(message_id):
            yield {"$kind": "part", "id": part_id, "message_id": message_id, "time_created": part_created,
                   "data": part}
        yield {"$kind": "message_end", **base, "data": data}


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

    yield from _records(record, messages, parts)


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
            db = _Db(str(path))
        except sqlite3.Error:
            continue
        try:
            db.check()
            if db.one('SELECT 1 FROM main."session" WHERE "id" = ?', (sid,)):
                return True
        except (_Refused, sqlite3.Error):
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
