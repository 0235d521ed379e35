"""OpenCode's SQLite store read while OpenCode writes it: Moraine reads read-only and never
locks the writer out (the writer here waits for no lock at all: busy_timeout 0, so one
`database is locked` would fail it), streams of part updates are picked up by the cursor
(upserts, not duplicates), a deleted part is retired when its session changes, and Moraine
leaves no file of its own beside the database."""

from __future__ import annotations

import json
import sqlite3
import threading
import time
from pathlib import Path
from typing import Any

from moraine.config import load_config
from moraine.ingest.pipeline import ingest_once
from moraine.store.engine import Store

_DDL = """
CREATE TABLE session (id TEXT PRIMARY KEY, project_id TEXT NOT NULL, parent_id TEXT, directory TEXT NOT NULL,
  title TEXT NOT NULL, time_created INTEGER NOT NULL, time_updated INTEGER NOT NULL);
CREATE TABLE message (id TEXT PRIMARY KEY, session_id TEXT NOT NULL, time_created INTEGER NOT NULL,
  time_updated INTEGER NOT NULL, data TEXT NOT NULL);
CREATE TABLE part (id TEXT PRIMARY KEY, message_id TEXT NOT NULL, session_id TEXT NOT NULL,
  time_created INTEGER NOT NULL, time_updated INTEGER NOT NULL, data TEXT NOT NULL);
"""


def _now() -> int:
    return int(time.time() * 1000)


class Writer(threading.Thread):
    """OpenCode streaming: a session, then messages whose text part grows in place, row by row."""

    def __init__(self, path: Path, seconds: float) -> None:
        super().__init__(daemon=True)
        self.path, self.seconds = path, seconds
        self.errors: list[str] = []
        self.writes = 0
        self.texts: dict[str, str] = {}

    def run(self) -> None:
        db = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False)
        db.execute("PRAGMA busy_timeout = 0")  # never wait: a reader holding a lock would show at once
        end = time.monotonic() + self.seconds
        n = 0
        try:
            db.execute("INSERT INTO session VALUES ('ses_live', 'prj', NULL, '/work/live', 'Streaming', ?, ?)",
                       (_now(), _now()))
            while time.monotonic() < end:
                n += 1
                message, part = f"msg_{n:06d}", f"prt_{n:06d}"
                role = "user" if n % 2 else "assistant"
                data: dict[str, Any] = {"role": role, "time": {"created": _now()}}
                db.execute("INSERT INTO message VALUES (?, 'ses_live', ?, ?, ?)", (message, _now(), _now(),
                                                                                   json.dumps(data)))
                text = ""
                for word in ("gannet", "skua", "fulmar", f"w{n}"):  # the part grows in place
                    text = f"{text} {word}".strip()
                    db.execute("INSERT INTO part VALUES (?, ?, 'ses_live', ?, ?, ?) ON CONFLICT(id) DO UPDATE SET "
                               "data = excluded.data, time_updated = excluded.time_updated",
                               (part, message, _now(), _now(), json.dumps({"type": "text", "text": text})))
                    self.writes += 1
                    time.sleep(0.001)
                self.texts[part] = text
                db.execute("UPDATE session SET time_updated = ? WHERE id = 'ses_live'", (_now(),))
        except sqlite3.Error as exc:
            self.errors.append(str(exc))
        finally:
            db.close()


def test_reading_never_locks_the_writer_out_and_upserts(tmp_path: Path) -> None:
    data = tmp_path / "xdg" / "opencode"
    data.mkdir(parents=True)
    path = data / "opencode.db"
    db = sqlite3.connect(path, isolation_level=None)
    db.execute("PRAGMA journal_mode = WAL")
    db.executescript(_DDL)
    db.close()
    env = {"CODEX_HOME": str(tmp_path / "none"), "CLAUDE_CONFIG_DIR": str(tmp_path / "none"),
           "XDG_DATA_HOME": str(tmp_path / "xdg")}
    store = Store(load_config({"home": str(tmp_path / "state")}, env=env))
    writer = Writer(path, 3.0)
    writer.start()
    passes = 0
    while writer.is_alive():
        ingest_once(store)
        passes += 1
    writer.join()
    assert not writer.errors, writer.errors  # never `database is locked`
    assert writer.writes > 200 and passes > 5
    ingest_once(store)

    catalog = store.catalog
    session = next(s for s in catalog.sessions if s.key == "opencode:ses_live")
    events = [catalog.event(d) for d in session.docs]
    texts = [e.text for e in events if e.type in ("user_input", "assistant_response")]
    assert texts == list(writer.texts.values())  # each part once, at its final text
    # nothing of Moraine's beside it (SQLite's own -wal/-shm stay when a reader closed last)
    assert {p.name for p in data.iterdir()} <= {"opencode.db", "opencode.db-wal", "opencode.db-shm"}

    # a part deleted (a revert) leaves the index when its session is updated
    db = sqlite3.connect(path, isolation_level=None)
    last = max(writer.texts)
    db.execute("DELETE FROM part WHERE id = ?", (last,))
    db.execute("UPDATE session SET time_updated = ? WHERE id = 'ses_live'", (_now() + 10_000,))
    db.close()
    ingest_once(store)
    texts = [catalog.event(d).text for d in session.docs if catalog.event(d).type in ("user_input",
                                                                                      "assistant_response")]
    assert texts == [t for p, t in writer.texts.items() if p != last]
    store._check()

    # parts whose message row is gone are quarantined with the database's name, not dropped silently
    db = sqlite3.connect(path, isolation_level=None)
    db.execute("DELETE FROM message WHERE id = 'msg_000001'")
    db.execute("UPDATE session SET time_updated = ? WHERE id = 'ses_live'", (_now() + 20_000,))
    db.close()
    ingest_once(store)
    [issue] = [i for i in store.stats.issues if "message row is missing" in i.reason]
    assert issue.file == str(path) and "msg_000001" in issue.reason
