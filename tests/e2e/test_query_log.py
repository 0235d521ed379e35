"""The opt-in query log: off by default; when on, every search and open —
from the CLI and through MCP — is one local line (query redacted), and `moraine queries`
summarises the top, zero-result and slowest queries and which hits were opened afterwards."""

from __future__ import annotations

import stat

from cli_harness import Workspace, mcp_calls

SECRET = "ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"


def test_off_by_default(fresh: Workspace) -> None:
    assert fresh.run("search", "migration").returncode == 0
    assert not (fresh.state / "queries.jsonl").exists()
    result = fresh.run("queries")
    assert result.returncode == 0 and "the query log is off" in result.stdout


def test_queries_are_logged_and_summarised(fresh: Workspace) -> None:
    env = fresh.env(MORAINE_TELEMETRY_QUERY_LOG="true")
    found = fresh.run("search", "migration", "--json", env=env).json()
    for _ in range(2):
        assert fresh.run("search", "migration", env=env).returncode == 0
    assert fresh.run("search", "zzzqqqnothing", env=env).returncode == 0
    assert fresh.run("search", f"token {SECRET}", env=env).returncode == 0
    first = found["data"]["results"][0]["id"]
    assert fresh.run("open", first, env=env).returncode == 0
    replies = mcp_calls(fresh, env, [("search_sessions", {"query": "zzzqqqnothing"}),
                                      ("open", {"id": found["data"]["results"][1]["id"]})])
    assert len(replies) == 2 and replies[0]["data"]["result_count"] == 0
    log = fresh.state / "queries.jsonl"
    assert stat.S_IMODE(log.stat().st_mode) == 0o600
    assert SECRET not in log.read_text()
    summary = fresh.run("queries", "--json", env=env).json()
    assert summary["query_log_enabled"] is True
    assert summary["searches"] == 6 and summary["opens"] == 2
    assert summary["top"][0] == {"query": "migration", "count": 3}
    assert {"query": "zzzqqqnothing", "count": 2} in summary["zero_results"]
    assert summary["searches_followed_by_an_open"] >= 1
    assert any(first in row["opened"] for row in summary["opened_hits"])
    assert len(summary["slowest"]) == 6 and all(row["ms"] is not None for row in summary["slowest"])
    text = fresh.run("queries", env=env).stdout
    assert "top queries:" in text and "zero-result queries:" in text and "slowest queries:" in text
