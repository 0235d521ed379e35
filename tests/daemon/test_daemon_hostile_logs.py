"""A log full of junk, or a large one being written, under a running daemon never holds up a
tool call.

The real daemon (started by `moraine mcp`) and a probe MCP client calling `search_sessions` over
and over. Then: a Claude Code transcript of 300,000 lines that are not JSON (each one a
quarantined line: about 25 µs of work each, several seconds in all), a file of random bytes
named `.jsonl`, and a large valid transcript written in bursts. The daemon's passes are short slices
(`LOOP_SLICE_S`, `CALL_SLICE_S`) and a call never waits long for the ingest loop's (which reads
the rest), so every probe call is answered within the probe's limit (`Probe.assert_quick`),
and a word appended to a live transcript while the daemon reads all that is found by the very
next call (read-your-writes). The junk ends quarantined, counted by `moraine status`, and the
valid transcript's last line is searchable.
"""

from __future__ import annotations

import os
import random
import time

from test_daemon_hostile_sources import Probe
from test_daemon_lifecycle import (  # noqa: F401 - `ws` is the workspace fixture
    LiveLogs,
    McpSession,
    Workspace,
    _wait,
    claude_user,
    wait_backfilled,
    ws,
)

SID = "7c666c01-d38e-4658-8650-0000000da3{:02d}"


def _quarantined(session: McpSession) -> int:
    """Asked of the daemon (`moraine status --json` lists every quarantined line: parsing 300,000 of
    them here would hold this process's GIL, and the probe thread's clock with it)."""
    return int(session.call("index_status", {})["data"]["quarantined_lines"])


def test_junk_and_large_logs_never_hold_up_a_call(ws: Workspace) -> None:  # noqa: F811
    logs = LiveLogs(ws, codex=False)
    session = ws.mcp("a")
    wait_backfilled(session, logs.seed_words())
    # Everything written is made before the probe starts: this process's own work would hold the
    # probe thread up (the GIL) and be counted as the daemon's.
    junk = "".join(f"not json {i}\n" for i in range(300_000)).encode()
    noise = random.Random(3).randbytes(4 * 1024 * 1024)
    words = [f"word{i}" for i in range(400)]
    rng = random.Random(5)
    last = "zqlastburstword"
    bursts = ["".join(claude_user(SID.format(12), 1_767_225_600_000 + burst * 10_000 + i,
                                  " ".join(rng.choices(words, k=300))) + "\n" for i in range(300)).encode()
              for burst in range(10)]
    bursts.append((claude_user(SID.format(12), 1_767_225_700_000, f"the {last} closes it") + "\n").encode())
    folder = ws.claude / "projects" / "-tmp-hostile"
    folder.mkdir(parents=True)
    probe = Probe(ws.mcp("probe"), logs.seed_words()[0])
    probe.start()
    try:
        (folder / f"{SID.format(10)}.jsonl").write_bytes(junk)
        (folder / f"{SID.format(11)}.jsonl").write_bytes(noise)
        missed = [] if session.hits(logs.append("claude", "junk")[0]) else ["after the junk"]
        big = folder / f"{SID.format(12)}.jsonl"
        for n, burst in enumerate(bursts):
            with big.open("ab") as fh:
                fh.write(burst)
            time.sleep(0.3)
            if not session.hits(logs.append("claude", f"burst{n}")[0]):
                missed.append(f"after burst {n}")
        _wait(lambda: session.hits(last), 120, "the large transcript's last line to be searchable", interval=0.5)
        _wait(lambda: _quarantined(session) >= 300_000, 120, "the junk lines to be quarantined", interval=1.0)
    finally:
        probe.stop.set()
        probe.join(60)
    probe.assert_quick()
    assert not missed, f"an appended word was not found by the next call: {missed}"
    assert "Traceback" not in ws.daemon_log()
    assert sorted(os.listdir(folder)) == sorted(f"{SID.format(n)}.jsonl" for n in (10, 11, 12))  # untouched
