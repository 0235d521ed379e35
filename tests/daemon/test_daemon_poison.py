"""Poison appended to live logs while the daemon serves: before the fix one such line
made every later call fail ("doc ids and catalog rows must stay aligned") and, after a restart,
every call `internal_error`. Now each good line around the poison is found once through a
real `moraine mcp` session, live and after the daemon restarts, and the state equals a clean
index of the same logs."""

from __future__ import annotations

from test_daemon_lifecycle import (  # noqa: F401 - `ws` is the workspace fixture
    LiveLogs,
    Workspace,
    _stop_all,
    append,
    assert_equals_clean_index,
    check_found_once,
    wait_backfilled,
    ws,
)
from test_hostile_input import CLAUDE_POISON, CODEX_POISON


def test_poison_in_live_logs_never_stops_the_daemon(ws: Workspace) -> None:  # noqa: F811
    logs = LiveLogs(ws)
    session = ws.mcp()
    wait_backfilled(session, logs.seed_words())
    good: list[tuple[str, str]] = []
    for harness, cases in (("codex", CODEX_POISON), ("claude", CLAUDE_POISON)):
        for _, raw, _ in cases:
            append(logs.paths[harness], (raw or '{"type":"user","message":"\\ud800 x"}') + "\n")
            word, _ = logs.append(harness, "after")
            good.append((harness, word))
            check_found_once(session, word, logs.paths[harness])
    for word in logs.seed_words():
        assert len(session.hits(word)) == 1
    session.close()
    _stop_all(ws, ws.home)

    again = ws.mcp("b")  # a restarted daemon replays and serves the same state
    for harness, word in good:
        check_found_once(again, word, logs.paths[harness])
    again.close()
    _stop_all(ws, ws.home)
    assert_equals_clean_index(ws)
