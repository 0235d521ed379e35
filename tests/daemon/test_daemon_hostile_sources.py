"""A hostile or stuck OpenCode database under a running daemon never holds up a tool call.

The real daemon (started by `moraine mcp`), a probe MCP client calling `search_sessions` over and
over. Hostile databases appear under the OpenCode root one after the other (renamed in, as a
file written elsewhere appears): each variant of `_hostile_files.VARIANTS`, and a database whose
writer holds an exclusive lock, so that reading it waits out SQLite's busy timeout (2 s of
foreign work: before this change the daemon did that wait holding the store's writer lock, and
every call waited with it). Every probe call is answered within PROBE_LIMIT_S; the databases
that cannot be read are reported by `moraine status` ("cannot read: …"), the others are
searchable; once the lock is released and the database changes, it is read; `moraine stop` ends
the daemon.
"""

from __future__ import annotations

import os
import sqlite3
import threading
import time

from _hostile_files import REFUSED, VARIANTS, opencode_db
from test_daemon_lifecycle import (  # noqa: F401 - `ws` is the workspace fixture
    LiveLogs,
    McpSession,
    Workspace,
    _alive,
    _wait,
    wait_backfilled,
    ws,
)

PROBE_LIMIT_S = 1.0


def _word(tag: str) -> str:
    return "zqhost" + "".join(c for c in tag if c.isalpha())


class Probe(threading.Thread):
    """search_sessions over and over through its own `moraine mcp`, each call timed."""

    def __init__(self, session: McpSession, word: str) -> None:
        super().__init__(daemon=True)
        self.session, self.word = session, word
        self.stop = threading.Event()
        self.durations: list[float] = []
        self.error: BaseException | None = None

    def run(self) -> None:
        try:
            while not self.stop.is_set():
                started = time.monotonic()
                assert self.session.hits(self.word), "the probe's own word is gone"
                self.durations.append(time.monotonic() - started)
        except BaseException as exc:  # reported by the test
            self.error = exc

    def assert_quick(self) -> None:
        """Stopped: every call answered, enough of them, none slower than PROBE_LIMIT_S."""
        assert self.error is None, self.error
        durations = sorted(self.durations)
        print(f"{len(durations)} probe calls: median {durations[len(durations) // 2] * 1000:.0f} ms, "
              f"slowest ten {[round(d * 1000) for d in durations[-10:]]} ms")
        assert len(durations) >= 20
        assert durations[-1] < PROBE_LIMIT_S, durations[-5:]


def _unreadable(workspace: Workspace) -> dict[str, str]:
    return workspace.run("status", "--json").json()["unreadable_files"]


def test_hostile_databases_never_hold_up_a_call(ws: Workspace) -> None:  # noqa: F811
    logs = LiveLogs(ws, claude=False)
    root = ws.root / ".local" / "share" / "opencode"  # HOME is the workspace: OpenCode's default data folder
    root.mkdir(parents=True)
    session = ws.mcp("a")
    wait_backfilled(session, logs.seed_words())
    probe = Probe(ws.mcp("probe"), logs.seed_words()[0])
    probe.start()
    staging = ws.root / "staging"
    try:
        # A database its writer holds locked: reading it waits SQLite's busy timeout (BUSY_MS), then
        # reports it busy.
        locked_path = staging / "opencode-locked.db"
        opencode_db(locked_path, "trigger", _word("locked"))
        holder = sqlite3.connect(locked_path, isolation_level=None)
        holder.execute("BEGIN EXCLUSIVE")
        os.rename(locked_path, root / locked_path.name)
        locked = root / locked_path.name
        _wait(lambda: _unreadable(ws).get(str(locked), "").startswith("busy: the database is locked"), 60,
              "the locked database to be reported", interval=0.5)
        for variant in VARIANTS:
            path = staging / f"opencode-{variant}.db"
            opencode_db(path, variant, _word(variant))
            os.rename(path, root / path.name)
            time.sleep(0.2)
        refused = {str(root / f"opencode-{v}.db") for v in REFUSED}
        _wait(lambda: refused <= {k for k, v in _unreadable(ws).items() if v.startswith("cannot read: ")}, 60,
              "every refused database to be reported", interval=0.5)
        for variant in sorted(set(VARIANTS) - REFUSED):
            _wait(lambda v=variant: session.hits(_word(v)), 30, f"the {variant} database to be searchable",
                  interval=0.2)
        holder.execute("COMMIT")  # the writer lets go, then writes (where the file is now): the database is read
        holder.close()
        writer = sqlite3.connect(locked, isolation_level=None)
        writer.execute("UPDATE session SET time_updated = time_updated + 1")
        writer.close()
        _wait(lambda: session.hits(_word("locked")), 30, "the unlocked database to be searchable", interval=0.2)
        _wait(lambda: str(locked) not in _unreadable(ws), 30, "the unlocked database's issue to go", interval=0.5)
    finally:
        probe.stop.set()
        probe.join(60)
    probe.assert_quick()
    unreadable = _unreadable(ws)
    for variant in REFUSED:
        assert unreadable[str(root / f"opencode-{variant}.db")].startswith("cannot read: ")
    pid = ws.status()["pid"]
    stopped = ws.run("stop", timeout=60)
    assert stopped.returncode == 0, stopped
    _wait(lambda: not _alive(pid), 30, "the daemon to exit")
    assert "Traceback" not in ws.daemon_log()
