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


def _sources(ws: Workspace, text: str) -> dict[str, dict]:
    (ws.state / "config.toml").write_text(text, encoding="utf-8")
    result = ws.run("status", "--json")
    assert result.returncode == 0, result
    return {row["name"]: row for row in result.json()["index"]["sources"]}


def test_each_source_counts_what_was_read_from_under_its_own_root(fresh: Workspace, tmp_path: Path) -> None:
    """Two roots of one harness (a work and a personal Claude folder) are two rows with their own
    files, sessions and events; a source whose root is gone counts nothing, not its harness's."""
    ws = fresh
    personal = tmp_path / "personal" / "projects" / "-home-dev-webapp"
    personal.mkdir(parents=True)
    moved = sorted((ws.claude / "projects" / "-home-dev-webapp").glob("*.jsonl"))[:2]
    for path in moved:
        path.rename(personal / path.name)
    ws.state.mkdir(mode=0o700)
    two = (f'[[sources]]\nname = "work"\nharness = "claude-code"\nroot = "{ws.claude}"\n'
           f'[[sources]]\nname = "personal"\nharness = "claude-code"\nroot = "{personal.parent.parent}"\n'
           f'[[sources]]\nname = "codex"\nharness = "codex"\nroot = "{ws.codex}"\n')
    (ws.state / "config.toml").write_text(two, encoding="utf-8")
    assert ws.run("index").returncode == 0
    rows = _sources(ws, two)
    report = ws.run("status", "--json").json()
    assert rows["personal"]["files"] == 2 and rows["personal"]["sessions"] == 2, rows
    assert rows["work"]["files"] > 2, rows
    assert sum(r["events"] for r in rows.values()) == report["events"], (rows, report["events"])
    assert sum(r["files"] for r in rows.values()) == sum(report["sources"].values()), (rows, report["sources"])
    gone = _sources(ws, f'[[sources]]\nname = "x"\nharness = "claude-code"\nroot = "{tmp_path / "nonexistent"}"\n')
    assert (gone["x"]["files"], gone["x"]["sessions"], gone["x"]["events"]) == (0, 0, 0), gone
    assert gone["x"]["root_exists"] is False
