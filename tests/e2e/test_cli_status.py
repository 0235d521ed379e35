"""`moraine status`: exit 4 before any index; text and JSON reports after, quarantine included."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

from cli_harness import ORACLE, Indexed, Workspace, oracle_event_count, oracle_malformed, oracle_sessions


def test_status_before_index_is_a_state_error(fresh: Workspace) -> None:
    result = fresh.run("status")
    assert result.returncode == 4, result
    assert result.stdout == "", result
    assert "moraine index" in result.stderr, "the message must tell the user to run `moraine index`"
    assert str(fresh.state) in result.stderr
    assert not fresh.state.exists(), "status must not create the state directory"


def test_status_text(indexed: Indexed) -> None:
    ws = indexed.ws
    result = ws.run("status")
    assert result.returncode == 0, result
    out = result.stdout
    assert out.splitlines()[0] == f"Moraine state at {ws.state}"
    assert f"{oracle_event_count()} events in {len(oracle_sessions())} sessions" in out
    harnesses = Counter(f["harness"] for f in ORACLE["files"])
    for source, count in harnesses.items():
        assert f"{source}: {count} files" in out
    assert f"quarantined lines: {len(oracle_malformed())}" in out
    for relative, line, offset in oracle_malformed():
        assert f"{ws.sample_path(relative)}:{line} (offset {offset}): " in out


def test_status_json(indexed: Indexed) -> None:
    ws = indexed.ws
    result = ws.run("status", "--json")
    assert result.returncode == 0, result
    report = result.json()
    assert Path(report["home"]) == ws.state
    assert report["events"] == oracle_event_count()
    assert report["sessions"] == len(oracle_sessions())
    assert report["sources"] == dict(Counter(f["harness"] for f in ORACLE["files"]))
    quarantined = report["quarantined"]
    for issue in quarantined:
        assert {"file", "line", "offset", "reason"} <= set(issue)
        assert isinstance(issue["reason"], str) and issue["reason"]
    got = sorted((issue["file"], issue["line"], issue["offset"]) for issue in quarantined)
    want = sorted((str(ws.sample_path(rel)), line, offset) for rel, line, offset in oracle_malformed())
    assert got == want, "quarantine must list exactly the malformed lines (blank and partial lines are no issue)"
