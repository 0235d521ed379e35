"""The daemon's background work: the reconcile scan finds logs no file event announced, and
snapshots are published on their cadence while it runs.

Why: watchdog can miss events (a root created after start is not watched, inotify queues
overflow); the periodic reconcile scan is what guarantees such lines are indexed. And a
daemon that runs for days must publish snapshots without being stopped, or a restart would
replay a long WAL.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

MORAINE = str(Path(sys.executable).parent / "moraine")
SID = "5b0c7c1e-1111-4222-8333-444455556666"


def _claude_line(i: int, word: str) -> str:
    return json.dumps({"type": "user", "sessionId": SID, "uuid": f"u-{i}", "cwd": "/w",
                       "timestamp": f"2026-03-01T10:00:{i:02d}.000Z",
                       "message": {"role": "user", "content": f"look at the {word} module"}}) + "\n"


def _generation(home: Path) -> int:
    current = home / "CURRENT"
    return int(current.read_text().strip().split("-")[1]) if current.exists() else 0


def _search(env: dict[str, str], word: str) -> int:
    out = subprocess.run([MORAINE, "search", word, "--json"], env=env, capture_output=True, text=True, timeout=60)
    return json.loads(out.stdout)["data"]["result_count"] if out.returncode == 0 else -1


def test_reconcile_finds_unannounced_logs_and_snapshots_follow_their_cadence(tmp_path: Path) -> None:
    codex = tmp_path / "codex" / "sessions"
    codex.mkdir(parents=True)  # one root exists; the Claude root appears only after the daemon started
    claude = tmp_path / "claude"
    home = tmp_path / "s"
    env = {**os.environ, "MORAINE_HOME": str(home), "CODEX_HOME": str(tmp_path / "codex"),
           "CLAUDE_CONFIG_DIR": str(claude), "MORAINE_INGEST_RECONCILE_INTERVAL_S": "1",
           "MORAINE_DAEMON_SNAPSHOT_INTERVAL_S": "1", "MORAINE_DAEMON_CATCH_UP_ON_CALL": "false",
           "MORAINE_DAEMON_IDLE_EXIT_S": "60"}
    subprocess.run([MORAINE, "daemon"], env=env, check=True, capture_output=True, timeout=120)
    try:
        log = claude / "projects" / "-w" / f"{SID}.jsonl"
        log.parent.mkdir(parents=True)  # not watched: the root did not exist when the daemon started
        log.write_text(_claude_line(1, "quokka"))
        deadline = time.monotonic() + 20
        while not _daemon_has("quokka", env) and time.monotonic() < deadline:
            time.sleep(0.3)
        assert _daemon_has("quokka", env), "the reconcile scan did not index the log"
        first = _generation(home)
        assert first >= 1, "a snapshot is published on its cadence while the daemon runs"
        with log.open("a") as fh:
            fh.write(_claude_line(2, "wombat"))
        deadline = time.monotonic() + 20
        while _generation(home) <= first and time.monotonic() < deadline:
            time.sleep(0.3)
        assert _generation(home) > first, "new events lead to a new snapshot without stopping the daemon"
    finally:
        subprocess.run([MORAINE, "stop"], env=env, capture_output=True, timeout=120, check=False)
    assert _search(env, "wombat") == 1 and _search(env, "quokka") == 1


def _daemon_has(word: str, env: dict[str, str]) -> bool:
    """Ask the daemon itself (through the bridge), not a CLI catch-up that would read the log."""
    request = [
        {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "0"}}},
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": 2, "method": "tools/call",
         "params": {"name": "search_sessions", "arguments": {"query": word}}},
    ]
    proc = subprocess.Popen([MORAINE, "mcp"], env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    assert proc.stdin is not None and proc.stdout is not None
    for message in request:
        proc.stdin.write(json.dumps(message) + "\n")
        proc.stdin.flush()
    answer = None
    for line in proc.stdout:
        reply = json.loads(line)
        if reply.get("id") == 2:
            answer = reply
            break
    proc.stdin.close()
    proc.wait(timeout=30)
    proc.stdout.close()
    assert answer is not None and "result" in answer, answer
    return answer["result"]["structuredContent"]["data"]["result_count"] == 1
