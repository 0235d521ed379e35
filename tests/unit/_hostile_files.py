"""Hostile and odd log files for the tests that show no file can freeze Moraine or blow its memory:
OpenCode databases whose schema runs SQL of its own, and a Gemini CLI legacy document of any size
written without ever being held in memory."""

from __future__ import annotations

import json
import random
import sqlite3
import time
from pathlib import Path
from typing import Any

CTE = "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c)"
FOREVER = f"({CTE} SELECT max(x) FROM c)"  # a scalar that never finishes computing

SESSION_COLUMNS = ("id TEXT PRIMARY KEY, project_id TEXT NOT NULL, parent_id TEXT, directory TEXT NOT NULL, "
                   "title TEXT NOT NULL, time_created INTEGER NOT NULL, time_updated INTEGER NOT NULL")
MESSAGE_COLUMNS = "id TEXT PRIMARY KEY, session_id TEXT NOT NULL, time_created INTEGER NOT NULL, " \
                  "time_updated INTEGER NOT NULL, data TEXT NOT NULL"
PART_COLUMNS = "id TEXT PRIMARY KEY, message_id TEXT NOT NULL, session_id TEXT NOT NULL, " \
               "time_created INTEGER NOT NULL, time_updated INTEGER NOT NULL, data TEXT NOT NULL"

# What each variant is, and whether a reader that pastes names or trusts the schema would hang on it.
VARIANTS = {
    "column": "every table has a column named by a never-ending query (a reader pasting names runs it)",
    "view-session": "session is a view whose time_updated never finishes computing",
    "view-message": "message is a view over an endless recursive CTE",
    "view-part": "part is a view over an endless recursive CTE",
    "virtual": "part is a virtual (FTS5) table",
    "generated": "part.data is a VIRTUAL generated column of 1e9 bytes per row",
    "trigger": "a huge recursive trigger (fires on writes only: a reader never runs it)",
    "unindexed": "no index on session_id and 5000 sessions: reading each would scan the tables 5000 times",
}
REFUSED = {"view-session", "view-message", "view-part", "virtual", "generated", "unindexed"}


def opencode_db(path: Path, variant: str, word: str) -> None:
    """An OpenCode database with one real session (its prompt holds `word`), made hostile as
    `variant` says (VARIANTS)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    db = sqlite3.connect(path, isolation_level=None)
    extra = f', "{FOREVER}" TEXT' if variant == "column" else ""
    db.execute(f"CREATE TABLE {'session_t' if variant == 'view-session' else 'session'} ({SESSION_COLUMNS}{extra})")
    db.execute(f"CREATE TABLE {'message_t' if variant == 'view-message' else 'message'} ({MESSAGE_COLUMNS}{extra})")
    if variant == "virtual":
        db.execute("CREATE VIRTUAL TABLE part USING fts5(id, message_id, session_id, time_created, time_updated, data)")
    elif variant == "generated":  # the computed column is added after the rows (computing it costs seconds)
        db.execute(f"CREATE TABLE part ({PART_COLUMNS.replace('data TEXT NOT NULL', 'body TEXT')})")
    else:
        db.execute(f"CREATE TABLE {'part_t' if variant == 'view-part' else 'part'} ({PART_COLUMNS}{extra})")
    if variant not in ("unindexed", "view-session", "view-message", "view-part"):
        db.execute("CREATE INDEX message_session_idx ON message (session_id, time_created, id)")
        if variant != "virtual":
            db.execute("CREATE INDEX part_session_idx ON part (session_id)")
    now = int(time.time() * 1000)
    sessions = 5000 if variant == "unindexed" else 1
    db.execute("BEGIN")
    for n in range(sessions):
        _session(db, variant, f"ses_{variant}_{n:05d}", now + n, f"{word} {n}" if n else word)
    db.execute("COMMIT")
    if variant == "view-session":
        db.execute(f"CREATE VIEW session AS SELECT id, project_id, parent_id, directory, title, time_created, "
                   f"{FOREVER} AS time_updated FROM session_t")
    if variant == "view-message":
        db.execute(f"CREATE VIEW message AS {CTE} SELECT 'msg_' || x AS id, 'ses' AS session_id, x AS time_created, "
                   "x AS time_updated, '{}' AS data FROM c")
    if variant == "view-part":
        db.execute(f"CREATE VIEW part AS {CTE} SELECT 'prt_' || x AS id, 'msg' AS message_id, 'ses' AS session_id, "
                   "x AS time_created, x AS time_updated, '{}' AS data FROM c")
    if variant == "generated":
        db.execute("ALTER TABLE part ADD COLUMN data TEXT "
                   "GENERATED ALWAYS AS (printf('%.*c', 1000000000, 'x')) VIRTUAL")
    if variant == "trigger":
        padding = "x" * 2_000_000
        db.execute("PRAGMA recursive_triggers = ON")
        db.execute(f"CREATE TRIGGER grow AFTER INSERT ON part WHEN '{padding}' <> '' BEGIN "
                   f"INSERT INTO part (id, message_id, session_id, time_created, time_updated, data) "
                   f"SELECT new.id || x, new.message_id, new.session_id, x, x, new.data FROM ({CTE} SELECT x FROM c); "
                   "END")
    db.close()


def _session(db: sqlite3.Connection, variant: str, sid: str, ms: int, prompt: str) -> None:
    tables = {t: (f"{t}_t" if variant == f"view-{t}" else t) for t in ("session", "message", "part")}
    db.execute(f"INSERT INTO {tables['session']} (id, project_id, directory, title, time_created, time_updated) "
               "VALUES (?, 'prj', '/work/hostile', 'Hostile', ?, ?)", (sid, ms, ms))
    for i, (role, text) in enumerate((("user", prompt), ("assistant", f"answer {prompt}"))):
        mid, pid = f"msg_{sid}_{i}", f"prt_{sid}_{i}"
        data: dict[str, Any] = {"role": role, "time": {"created": ms + i}}
        if role == "assistant":
            data.update(finish="stop", time={"created": ms + i, "completed": ms + i})
        db.execute(f"INSERT INTO {tables['message']} (id, session_id, time_created, time_updated, data) "
                   "VALUES (?, ?, ?, ?, ?)", (mid, sid, ms + i, ms + i, json.dumps(data)))
        part = json.dumps({"type": "text", "text": text})
        if variant == "generated":
            db.execute("INSERT INTO part (id, message_id, session_id, time_created, time_updated, body) "
                       "VALUES (?, ?, ?, ?, ?, ?)", (pid, mid, sid, ms + i, ms + i, part))
        else:
            db.execute(f"INSERT INTO {tables['part']} (id, message_id, session_id, time_created, time_updated, data) "
                       "VALUES (?, ?, ?, ?, ?, ?)", (pid, mid, sid, ms + i, ms + i, part))


def gemini_legacy(path: Path, size: int, *, summary_last: bool = True, seed: int = 7) -> int:
    """A Gemini CLI legacy `session-*.json` of about `size` bytes (pretty-printed as the CLI wrote
    it, `summary` after the messages as a real rewrite leaves it), written message by message.
    Returns the number of messages."""
    rnd = random.Random(seed)
    words = ["gannet", "skua", "fulmar", "petrel", "tern", "auk", "puffin", "shag", "eider", "kittiwake"]
    path.parent.mkdir(parents=True, exist_ok=True)
    n = 0
    with path.open("w", encoding="utf-8") as fh:
        head = {"sessionId": "7c0ffee1-4a2b-4c3d-9e8f-00000000beef", "projectHash": "gull-repo",
                "startTime": "2026-03-12T09:00:00.000Z", "lastUpdated": "2026-03-12T19:04:10.000Z"}
        if not summary_last:
            head["summary"] = "A very long session"
        fh.write("{\n" + "".join(f"  {json.dumps(k)}: {json.dumps(v)},\n" for k, v in head.items()))
        fh.write('  "messages": [\n')
        while fh.tell() < size:
            n += 1
            ts = f"2026-03-12T{9 + (n // 3600) % 10:02d}:{(n // 60) % 60:02d}:{n % 60:02d}.000Z"
            text = " ".join(rnd.choice(words) + str(rnd.randrange(1000)) for _ in range(rnd.randrange(20, 400)))
            if n % 2:
                message: dict[str, Any] = {"id": f"u-{n}", "timestamp": ts, "type": "user", "content": [{"text": text}]}
            else:
                output = f"Command: ls\nDirectory: (root)\nOutput: {text}\nExit Code: 0"
                message = {"id": f"g-{n}", "timestamp": ts, "type": "gemini", "model": "gemini-2.5-pro",
                           "thoughts": [{"subject": "Thinking", "description": text[:200], "timestamp": ts}],
                           "content": text,
                           "toolCalls": [{"id": f"sh-{n}", "name": "run_shell_command", "args": {"command": "ls"},
                                          "status": "success", "timestamp": ts,
                                          "result": [{"functionResponse": {"id": f"sh-{n}", "name": "run_shell_command",
                                                                           "response": {"output": output}}}]}]}
            body = json.dumps(message, indent=2)
            fh.write(("" if n == 1 else ",\n") + "\n".join("    " + line for line in body.split("\n")))
        fh.write("\n  ]" + (',\n  "summary": "A very long session"' if summary_last else "") + "\n}\n")
    return n
