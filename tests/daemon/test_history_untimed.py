"""A line whose time is the epoch (`1970-01-01T00:00:00Z`: no time at all) is shown with a null
timestamp, as the contract says of a time a log never gave, and the history tool's declared
output schema allows that null: the MCP SDK's client checks a reply against the schema and
threw the whole answer away (found by an outside attack)."""

from __future__ import annotations

from test_daemon_lifecycle import (  # noqa: F401 - `ws` is the workspace fixture
    LiveLogs,
    Workspace,
    append,
    claude_user,
    wait_backfilled,
    ws,
)


def test_a_match_without_a_time_reaches_the_client(ws: Workspace) -> None:  # noqa: F811
    logs = LiveLogs(ws, codex=False)
    append(logs.paths["claude"], claude_user(LiveLogs.CLAUDE_SID, 0, "epochzeroword on a line of no time"))
    probe = ws.mcp("probe")
    wait_backfilled(probe, logs.seed_words())
    found = probe.call("search_session_history", {"query": "epochzeroword"})
    assert found["matches"], found
    assert all(m["timestamp"] is None or m["timestamp"] > "1970-01-02" for m in found["matches"]), found
    listed = probe.call("search_sessions", {"query": "epochzeroword"})
    assert listed["data"]["results"], listed
