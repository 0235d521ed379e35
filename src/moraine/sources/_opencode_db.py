"""OpenCode's SQLite database, read as a file from outside (`opencode.py` reads it through `Db`).

Any name in its schema and any object behind a table's name is the file's say. So no identifier
is ever read from it (only the known columns are selected, quoted, from objects checked to be
plain tables: a view, a virtual table or a computed column would run the file's own SQL), it is
opened read-only with its schema untrusted, and every statement runs under a deadline SQLite
enforces itself (a progress handler interrupts it), renewed per slice of rows: a query that would
never end is stopped. A database that cannot be read is reported ("cannot read: …", `problem`)
and read again when it changes (and, by a long-lived process, every RETRY_S).
"""

from __future__ import annotations

import contextlib
import os
import re
import sqlite3
import time
from collections.abc import Callable, Generator, Iterator
from typing import Any
from urllib.parse import quote

from moraine.sources._json import decode

# How long a read waits for a writer's lock (a database not in WAL mode): a write by the app takes
# milliseconds; a lock held longer is passed over and tried again (RETRY_S), never waited on while
# the reader holds Moraine's writer lock.
BUSY_MS = 100
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


class Refused(Exception):
    """The database is not one this reader will run queries on."""


def connect(path: str, *, immutable: bool = False) -> sqlite3.Connection:
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


class Db:
    """A read-only connection whose every statement runs under a deadline SQLite enforces."""

    def __init__(self, path: str) -> None:
        self.path = path
        self.deadline = float("inf")
        self.con = connect(path)
        try:
            self._install()
            self.con.execute("SELECT 1 FROM sqlite_master LIMIT 1").fetchall()  # opens the file: may fail
        except sqlite3.OperationalError:
            self.con.close()
            if not self._unwritable_folder():
                raise
            # A WAL database in a folder this user cannot write has no shared-memory file to
            # read through: read as it stands on disk (nothing can be writing it here either).
            self.con = connect(path, immutable=True)
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
        when read), with a rowid to scan it by; else `Refused`."""
        kinds: dict[str, list[tuple[str, str]]] = {}
        for name, kind, sql in self.rows("SELECT lower(name), type, coalesce(sql, '') FROM sqlite_master WHERE "
                                         "type IN ('table', 'view') AND lower(name) IN ('session', 'message', 'part')"):
            kinds.setdefault(name, []).append((kind, sql))
        for table, wanted in _TABLES.items():
            found = kinds.get(table)
            if not found:
                raise Refused(f"no {table} table")
            if len(found) != 1 or found[0][0] != "table" or VIRTUAL_RE.match(found[0][1]):
                raise Refused(f"{table} is a {found[0][0] if found[0][0] != 'table' else 'virtual table'}, "
                               "not a plain table: its own SQL would run")
            columns = {str(name).lower(): hidden for name, hidden in
                       self.rows("SELECT name, hidden FROM pragma_table_xinfo(?)", (table,))}
            present = tuple(c for c in wanted if c in columns)
            if present[:_REQUIRED[table]] != wanted[:_REQUIRED[table]]:
                missing = [c for c in wanted[:_REQUIRED[table]] if c not in columns]
                raise Refused(f"{table} has no {', '.join(missing)} column")
            computed = [c for c in present if columns[c] == 2]  # a VIRTUAL generated column runs its expression
            if computed:
                raise Refused(f"{table}.{computed[0]} is computed when read")
            alias = next((a for a in ("rowid", "_rowid_", "oid") if a not in columns), None)
            if alias is None or WITHOUT_ROWID_RE.search(found[0][1]):
                raise Refused(f"{table} has no rowid to scan it by")
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
                raise Refused(f"no index on {table}.session_id: reading {sessions} sessions would scan "
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
        return assemble(session, messages, parts)


VIRTUAL_RE = re.compile(r"\s*CREATE\s+VIRTUAL\s", re.IGNORECASE)
WITHOUT_ROWID_RE = re.compile(r"\)\s*WITHOUT\s+ROWID\b[^)]*$", re.IGNORECASE)


_BUSY_ERRORS = ("database is locked", "database is busy")


def busy(exc: Exception) -> bool:
    """A writer holds the lock: the file is fine, only not readable for now."""
    return isinstance(exc, sqlite3.OperationalError) and str(exc).lower().startswith(_BUSY_ERRORS)


def problem(exc: Exception) -> str:
    if busy(exc):
        return (f"busy: the database is locked by its writer (waited {BUSY_MS} ms): read again in "
                f"{RETRY_S:g} s or when it changes")
    if isinstance(exc, sqlite3.OperationalError) and "interrupt" in str(exc).lower():
        return (f"cannot read: a query on the database ran over {SLICE_S:g} s and was stopped "
                "(a hostile or damaged database?): read again when it changes")
    if isinstance(exc, Refused):
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


def assemble(session: dict[str, Any], messages: list[Row], parts: dict[str, list[Row]]) -> list[dict[str, Any]]:
    """A session's records in order: the session, then each message, its parts, and its end."""
    found = list(records(session, messages, lambda message_id: parts.get(message_id, [])))
    known = {message_id for message_id, _, _ in messages}
    for message_id in sorted(set(parts) - known):  # parts whose message row is gone: said, not dropped
        found.append({"$kind": "orphan", "id": message_id, "parts": len(parts[message_id])})
    return found


def records(session: dict[str, Any], messages: list[Row], parts: Callable[[str], list[Row]]
             ) -> Iterator[dict[str, Any]]:
    yield session
    for message_id, created, data in messages:
        base = {"id": message_id, "session_id": session.get("id"), "time_created": created}
        yield {"$kind": "message", **base, "data": data}
        for part_id, part_created, part in parts(message_id):
            yield {"$kind": "part", "id": part_id, "message_id": message_id, "time_created": part_created,
                   "data": part}
        yield {"$kind": "message_end", **base, "data": data}
