"""Crash safety of logs read whole under SIGKILL: Gemini CLI's legacy chats (one JSON document
per session, rewritten in place) and OpenCode's SQLite store (rows inserted, parts rewritten
while streaming, a revert deleting parts), against a clean index of the same final logs.

Why: such a log is not read from an offset. A changed document is read again whole, and a
database is polled by a cursor (its highest `time_updated`); the state's copy is replaced by
what was read, the changes only, with the retired IDs and the checkpoint (token and cursor) in
the same WAL frame. A kill at any instant (between the frames of one database pass, mid
publish, mid WAL append) must leave a state that the next run completes to exactly what one
clean read gives: the same live event IDs, none duplicated, identical events, sessions and
turns, no event of a removed message or part still live.

The logs change between runs (new messages, tool results filled in, a rewind that drops the
last messages of a chat, a revert that deletes parts, new sessions); tiny thresholds make every
run seal, merge and publish; some kills are followed by a torn WAL tail (see test_crash_kill).
Kills are placed by progress as in test_crash_kill (after a random number of observed changes
of the state directory, or at a publish under way), and rounds go on until enough kills have
landed, bounded by a count of rounds: a slow or loaded machine passes as a fast one does.
"""

from __future__ import annotations

import gc
import json
import os
import random
import sqlite3
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from moraine.config import load_config
from moraine.index.tokenize import query_terms
from moraine.store.engine import Store

_HERE = str(Path(__file__).resolve().parent)
if _HERE not in sys.path:
    sys.path.insert(0, _HERE)

from test_crash_kill import KillAt, _kill_plan, _run_to_end, _tear_wal_tail  # noqa: E402
from test_crash_kill import _run as _run_index  # noqa: E402

MORAINE = Path(sys.executable).parent / "moraine"
SEED = 20_261_124
MIN_KILLS = 30
MIN_TORN = 2
MAX_ROUNDS = 90
FINISH_EVERY = 6  # every 6th run is not killed
WORDS = ("heron", "plover", "kestrel", "sandpiper", "avocet", "godwit", "dunlin", "curlew", "東京都", "über")

OPENCODE_DDL = """
CREATE TABLE session (id TEXT PRIMARY KEY, project_id TEXT NOT NULL, parent_id TEXT, slug TEXT NOT NULL DEFAULT '',
  directory TEXT NOT NULL, title TEXT NOT NULL, version TEXT NOT NULL DEFAULT '1.0.0',
  time_created INTEGER NOT NULL, time_updated INTEGER NOT NULL);
CREATE TABLE message (id TEXT PRIMARY KEY, session_id TEXT NOT NULL, time_created INTEGER NOT NULL,
  time_updated INTEGER NOT NULL, data TEXT NOT NULL);
CREATE INDEX message_session_idx ON message (session_id, time_created, id);
CREATE TABLE part (id TEXT PRIMARY KEY, message_id TEXT NOT NULL, session_id TEXT NOT NULL,
  time_created INTEGER NOT NULL, time_updated INTEGER NOT NULL, data TEXT NOT NULL);
CREATE INDEX part_message_idx ON part (message_id, id);
"""


class Logs:
    """Both harnesses' logs, changed between runs by a seeded writer."""

    def __init__(self, root: Path, rng: random.Random) -> None:
        self.rng, self.root = rng, root
        self.gemini = root / "home" / ".gemini" / "tmp" / "proj" / "chats"
        self.gemini.mkdir(parents=True)
        (self.gemini.parent / ".project_root").write_text("/work/proj\n")
        self.chats: dict[Path, list[dict[str, Any]]] = {}
        self.db_path = root / "xdg" / "opencode" / "opencode.db"
        self.db_path.parent.mkdir(parents=True)
        db = self._db()
        db.executescript(OPENCODE_DDL)
        db.close()
        self.clock = 1_773_300_000_000  # 2026-03-12, ms
        self.n = 0
        self.sessions: list[str] = []
        self.running: list[tuple[str, str]] = []  # tool parts not finished yet: (part id, session id)

    def env(self) -> dict[str, str]:
        return {"CODEX_HOME": str(self.root / "none"), "CLAUDE_CONFIG_DIR": str(self.root / "none"),
                "GEMINI_CLI_HOME": str(self.root / "home"), "XDG_DATA_HOME": str(self.root / "xdg")}

    def _db(self) -> sqlite3.Connection:
        db = sqlite3.connect(self.db_path, isolation_level=None)
        db.execute("PRAGMA journal_mode = WAL")
        db.execute("PRAGMA busy_timeout = 5000")
        return db

    def _id(self, prefix: str) -> str:
        self.n += 1
        return f"{prefix}_{self.n:012d}"

    def _text(self) -> str:
        return " ".join(self.rng.choice(WORDS) for _ in range(self.rng.randint(3, 12)))

    def _tick(self) -> int:
        self.clock += self.rng.randint(500, 5000)
        return self.clock

    # -- Gemini legacy chats ----------------------------------------------------------------

    def change_chats(self) -> None:
        rng = self.rng
        if not self.chats or rng.random() < 0.3:
            path = self.gemini / f"session-2026-03-12T09-{len(self.chats):02d}-{rng.getrandbits(32):08x}.json"
            self.chats[path] = []
        for path in rng.sample(list(self.chats), min(len(self.chats), rng.randint(1, 3))):
            messages = self.chats[path]
            if messages and rng.random() < 0.12:  # a rewind
                del messages[rng.randint(max(1, len(messages) - 3), len(messages)) - 1:]
            for _ in range(rng.randint(5, 40)):
                messages.append(self._chat_message(messages))
            pending = [m for m in messages if m.get("toolCalls") and m["toolCalls"][0]["status"] == "executing"]
            for message in pending[: rng.randint(0, len(pending))]:
                call = message["toolCalls"][0]
                call["status"] = "success"
                call["result"] = [{"functionResponse": {"id": call["id"], "name": call["name"], "response": {
                    "output": f"Output: {self._text()}\nExit Code: {rng.choice((0, 0, 1))}"}}}]
            self._write_chat(path)

    def _chat_message(self, messages: list[dict[str, Any]]) -> dict[str, Any]:
        stamp = time.strftime("%Y-%m-%dT%H:%M:%S.000Z", time.gmtime(self._tick() / 1000))
        base = {"id": self._id("m"), "timestamp": stamp}
        if not messages or (messages[-1]["type"] == "gemini" and self.rng.random() < 0.5):
            return {**base, "type": "user", "content": self._text()}
        message = {**base, "type": "gemini", "model": "gemini-2.5-pro", "content": self._text()}
        if self.rng.random() < 0.4:
            message["toolCalls"] = [{"id": self._id("call"), "name": "run_shell_command",
                                     "args": {"command": f"grep -r {self.rng.choice(WORDS)} ."}, "status": "executing"}]
        return message

    def _write_chat(self, path: Path) -> None:
        doc = {"sessionId": path.stem[-8:] + "-0000-4000-8000-000000000000", "projectHash": "proj",
               "startTime": "2026-03-12T09:00:00.000Z", "lastUpdated": "2026-03-12T10:00:00.000Z",
               "messages": self.chats[path]}
        with path.open("r+" if path.exists() else "w") as fh:  # in place: truncate and write, as writeFileSync
            fh.truncate(0)
            fh.write(json.dumps(doc, indent=2, ensure_ascii=False))

    # -- OpenCode database ------------------------------------------------------------------

    def change_db(self) -> None:
        rng = self.rng
        db = self._db()
        try:
            if not self.sessions or rng.random() < 0.3:
                self._new_session(db)
            for sid in rng.sample(self.sessions, min(len(self.sessions), rng.randint(1, 3))):
                for _ in range(rng.randint(3, 15)):
                    self._exchange(db, sid)
            for part_id, _ in self.running[: rng.randint(0, len(self.running))]:
                self._finish_tool(db, part_id)
            if rng.random() < 0.15:  # a revert: the last message's parts of one session go
                sid = rng.choice(self.sessions)
                last = db.execute("SELECT id FROM message WHERE session_id = ? ORDER BY time_created DESC, id DESC "
                                  "LIMIT 1", (sid,)).fetchone()
                if last:
                    db.execute("DELETE FROM part WHERE message_id = ?", (last[0],))
                    db.execute("DELETE FROM message WHERE id = ?", (last[0],))
                    db.execute("UPDATE session SET time_updated = ? WHERE id = ?", (self._tick(), sid))
                    self.running = [(p, s) for p, s in self.running if s != sid or
                                    db.execute("SELECT 1 FROM part WHERE id = ?", (p,)).fetchone()]
        finally:
            db.close()

    def _new_session(self, db: sqlite3.Connection) -> None:
        sid, now = self._id("ses"), self._tick()
        db.execute("INSERT INTO session (id, project_id, directory, title, time_created, time_updated) "
                   "VALUES (?, 'prj_1', '/work/proj', ?, ?, ?)", (sid, f"About {self._text()}", now, now))
        self.sessions.append(sid)

    def _exchange(self, db: sqlite3.Connection, sid: str) -> None:
        now = self._tick()
        user = self._id("msg")
        db.execute("INSERT INTO message VALUES (?, ?, ?, ?, ?)",
                   (user, sid, now, now, json.dumps({"role": "user", "time": {"created": now}})))
        self._part(db, user, sid, {"type": "text", "text": self._text()})
        now = self._tick()
        reply = self._id("msg")
        data = {"role": "assistant", "modelID": "claude-sonnet-4", "providerID": "anthropic",
                "path": {"cwd": "/work/proj", "root": "/work/proj"}, "time": {"created": now, "completed": now + 900},
                "finish": "stop"}
        db.execute("INSERT INTO message VALUES (?, ?, ?, ?, ?)", (reply, sid, now, now, json.dumps(data)))
        self._part(db, reply, sid, {"type": "text", "text": self._text()})
        if self.rng.random() < 0.5:
            part = self._part(db, reply, sid, {"type": "tool", "tool": "bash", "callID": self._id("call"),
                                               "state": {"status": "running", "input": {"command": "make test"}}})
            self.running.append((part, sid))
        db.execute("UPDATE session SET time_updated = ? WHERE id = ?", (self._tick(), sid))

    def _part(self, db: sqlite3.Connection, message: str, sid: str, data: dict[str, Any]) -> str:
        part, now = self._id("prt"), self._tick()
        db.execute("INSERT INTO part VALUES (?, ?, ?, ?, ?, ?)", (part, message, sid, now, now, json.dumps(data)))
        return part

    def _finish_tool(self, db: sqlite3.Connection, part_id: str) -> None:
        row = db.execute("SELECT data FROM part WHERE id = ?", (part_id,)).fetchone()
        self.running = [(p, s) for p, s in self.running if p != part_id]
        if row is None:
            return
        data = json.loads(row[0])
        exit_code = self.rng.choice((0, 0, 2))
        data["state"] = {"status": "completed", "input": data["state"]["input"], "output": self._text(),
                         "metadata": {"exit": exit_code}, "title": "make test"}
        db.execute("UPDATE part SET data = ?, time_updated = ? WHERE id = ?", (json.dumps(data), self._tick(), part_id))


def _run(env: dict[str, str], kill_at: KillAt | None) -> tuple[int, int]:
    """`moraine index` as the line-log crash test runs it (a run not killed must succeed): the exit
    code and the changes of the state directory seen while it ran."""
    run = _run_index(env, kill_at) if kill_at is not None else _run_to_end(env)
    return run.returncode, run.steps


def _progress(home: Path) -> tuple[str, int]:
    """What a run leaves on disk: the published generation and the WAL's bytes."""
    pointer = home / "CURRENT"
    wal = sum(p.stat().st_size for p in (home / "wal").glob("*.log")) if (home / "wal").is_dir() else 0
    return (pointer.read_text() if pointer.exists() else "", wal)


def _env(logs: Logs, home: Path, settings: dict[str, str]) -> dict[str, str]:
    env = {**logs.env(), "MORAINE_HOME": str(home), "HOME": str(logs.root / "user-home"), **settings}
    for key in ("PATH", "LANG", "LC_ALL"):
        if key in os.environ:
            env[key] = os.environ[key]
    return env


def _open(home: Path, logs: Logs) -> Store:
    umask = os.umask(0o022)
    try:
        store = Store(load_config({"home": str(home), "store": {"fsync": "never"}}, env=logs.env()), create=False)
    finally:
        os.umask(umask)
    gc.unfreeze()
    return store


def _events(store: Store) -> dict[bytes, list[Any]]:
    catalog = store.catalog
    return {catalog.uid.view[d]: catalog.event(d).to_wire() for d in np.flatnonzero(catalog.alive.view).tolist()}


def _sessions(store: Store) -> dict[str, Any]:
    catalog = store.catalog
    return {s.key: ([catalog.uid.view[d] for d in s.docs], s.cwd, s.title, s.started_ms, s.updated_ms,
                    [(t.end - t.start, t.completed) for t in catalog.turns(s)])
            for s in catalog.sessions if s.docs}


def _checkpoints(store: Store) -> dict[str, list[Any]]:
    return {k: [*cp.to_wire()[:6], cp.adapter_state(), *cp.to_wire()[7:]] for k, cp in store.checkpoints.items()}


@pytest.mark.slow
@pytest.mark.timeout(900)
def test_sigkilled_runs_over_rewritten_documents_and_a_database_converge(tmp_path: Path) -> None:
    rng = random.Random(SEED)
    logs = Logs(tmp_path / "logs", rng)
    home = tmp_path / "crashed"
    kills = torn = progressed = 0
    kill_rng = random.Random(SEED + 1)  # where kills land; the logs keep their own sequence
    steps_of_a_run = 8  # the most changes a run showed lately (a finished run shows them all)
    round_no = 0
    while kills < MIN_KILLS or progressed < MIN_KILLS // 2 or torn < MIN_TORN:
        round_no += 1
        assert round_no <= MAX_ROUNDS, f"{kills} kills ({progressed} after progress), {torn} torn in {round_no} rounds"
        logs.change_chats()
        logs.change_db()
        settings = {"MORAINE_STORE_SEAL_EVENTS": "100", "MORAINE_STORE_SNAPSHOT_EVENTS": str(rng.randint(100, 200)),
                    "MORAINE_INGEST_BATCH_EVENTS": str(rng.randint(5, 30)), "MORAINE_STORE_FSYNC": "never"}
        finish = round_no % FINISH_EVERY == 0
        before = _progress(home)
        plan = KillAt(steps=10**9) if finish else _kill_plan(kill_rng, kills, steps_of_a_run)  # finish: watched only
        code, steps = _run(_env(logs, home, settings), plan)
        assert code == 0 or not finish
        if code == 0:
            steps_of_a_run = max(1, steps)  # runs grow with the logs: kill within the last whole run's changes
        else:
            kills += 1
            progressed += _progress(home) != before
            if rng.random() < 0.25 or torn < kills // 8:  # a tail can be torn only when a whole frame ends the WAL
                torn += _tear_wal_tail(home, rng)
        if round_no % FINISH_EVERY == 3:
            store = _open(home, logs)
            store._check()
            live = store.catalog.uid.view[store.catalog.alive.view].tolist()
            assert len(set(live)) == len(live), f"round {round_no}: duplicate live event IDs"
            del store
            gc.collect()
    # Twice: a read-only SQLite reader creates the database's empty -wal file when its writer has
    # removed it, and that file is part of the change token (ingest.whole.SIDE_FILES), so the first
    # read after the writer's last change records another token than every later read (the clean
    # index below is such a later read). The loop may end on a run killed before it opened the
    # database; the first pass here is then that first read, the second the later one.
    _run(_env(logs, home, {"MORAINE_STORE_FSYNC": "never"}), None)
    _run(_env(logs, home, {"MORAINE_STORE_FSYNC": "never"}), None)
    clean_home = tmp_path / "clean"
    _run(_env(logs, clean_home, {"MORAINE_STORE_FSYNC": "never"}), None)

    crashed, clean = _open(home, logs), _open(clean_home, logs)
    crashed._check()
    a, b = _events(crashed), _events(clean)
    assert len(b) > 300 and {s.source for s in clean.catalog.sessions} == {"gemini-cli", "opencode"}
    lost, extra = set(b) - set(a), set(a) - set(b)
    assert not lost and not extra, f"{len(lost)} lost, {len(extra)} extra"
    for uid, row in a.items():
        assert row == b[uid], uid
    assert _sessions(crashed) == _sessions(clean)
    ca, cb = _checkpoints(crashed), _checkpoints(clean)  # the same tokens, the same cursor
    assert set(ca) == set(cb)
    for key in ca:
        differ = [(i, x, y) for i, (x, y) in enumerate(zip(ca[key], cb[key], strict=True)) if x != y]
        assert not differ, (key, differ)  # (field, crashed, clean)
    assert crashed.index.n_docs == clean.index.n_docs and crashed.index.total_len == clean.index.total_len
    for word in WORDS:
        types = ["user_input", "assistant_response", "tool_response"]
        ha = crashed.search(query_terms(word, 16), 20, types, None, None)
        hb = clean.search(query_terms(word, 16), 20, types, None, None)
        assert ha.total == hb.total, word
    print(f"\n{round_no} rounds: {kills} kills ({progressed} after progress), {torn} torn WAL tails, "
          f"{len(b)} live events")
