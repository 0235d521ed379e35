"""A cap on connections: idle clients past `[daemon] max_connections` are told why in JSON-RPC and
closed, the daemon's memory stays bounded, and once idle clients go a host is served again."""

from __future__ import annotations

import json
import socket
from pathlib import Path

from test_daemon_lifecycle import (  # noqa: F401 - `ws` is the workspace fixture
    LiveLogs,
    Workspace,
    _wait,
    wait_backfilled,
    ws,
)

CAP = 16


def _rss_kb(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    raise AssertionError("no VmRSS")


def test_connections_past_the_cap_are_refused_with_a_reason(ws: Workspace) -> None:  # noqa: F811
    logs = LiveLogs(ws, claude=False)
    session = ws.mcp(MORAINE_DAEMON_MAX_CONNECTIONS=str(CAP))
    wait_backfilled(session, logs.seed_words())
    status = _wait(lambda: ws.status(), 30, "daemon.json")
    pid = int(status["pid"])
    idle: list[socket.socket] = []
    try:
        for _ in range(CAP - 1):  # the bridge above holds one
            conn = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            conn.connect(str(ws.socket))
            idle.append(conn)
        _wait(lambda: (ws.status() or {}).get("connections") == CAP, 30, "every idle connection counted")
        rss = _rss_kb(pid)
        refused = []
        for _ in range(200):  # far past the cap: each is answered and closed, none is kept
            conn = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            conn.settimeout(30)
            conn.connect(str(ws.socket))
            data = b""
            while chunk := conn.recv(4096):
                data += chunk
            conn.close()
            refused.append(json.loads(data))
        assert all(r["error"]["code"] == -32000 and "max_connections" in r["error"]["message"] for r in refused)
        assert (ws.status() or {}).get("connections") == CAP
        assert _rss_kb(pid) < rss + 20_000, (rss, _rss_kb(pid))  # 200 refusals hold nothing
        assert session.call("search_sessions", {"query": logs.seed_words()[0]})["data"]["results"]
    finally:
        for conn in idle:
            conn.close()
    _wait(lambda: (ws.status() or {}).get("connections") == 1, 30, "the idle connections to close")
    second = ws.mcp("b", MORAINE_DAEMON_MAX_CONNECTIONS=str(CAP))
    assert second.call("search_sessions", {"query": logs.seed_words()[0]})["data"]["results"]
