"""`moraine index`: JSON and text summaries, idempotence, permissions, and the no-logs exit code."""

from __future__ import annotations

import re
import shutil
import stat
import subprocess
from pathlib import Path

import pytest
from cli_harness import (
    MORAINE,
    ORACLE,
    Indexed,
    Result,
    Workspace,
    make_workspace,
    oracle_event_count,
    oracle_malformed,
    oracle_sessions,
)

N_SESSIONS = len(oracle_sessions())
N_MALFORMED = len(oracle_malformed())
N_EVENTS = oracle_event_count()
N_FILES = len(ORACLE["files"])

TEXT_SUMMARY = re.compile(
    r"^indexed (?P<events>\d+) new events from (?P<read>\d+) of (?P<seen>\d+) files in [\d.]+s "
    r"\([\d,]+ events/s\); (?P<issues>\d+) line\(s\) quarantined; (?P<sessions>\d+) sessions, "
    r"(?P<total>\d+) events in (?P<home>.+)$"
)


def test_index_json_on_samples(indexed: Indexed) -> None:
    """The shared workspace's first `moraine index --json` (run by the `indexed` fixture)."""
    result = indexed.first_index
    assert result.returncode == 0, result
    assert result.stderr == "", result
    data = result.json()
    assert data["events"] > 0
    assert data["events"] == N_EVENTS, "every ok line but mirrors and no-event lines is one event"
    assert data["total_events"] == N_EVENTS
    assert data["sessions"] == N_SESSIONS
    assert data["issues"] == N_MALFORMED
    assert data["files_seen"] == N_FILES
    assert data["files_read"] == N_FILES
    assert data["roots_missing"] == []
    assert Path(data["home"]) == indexed.ws.state


@pytest.fixture(scope="module")
def rerun(indexed: Indexed) -> tuple[Result, int, int]:
    """`moraine index --json` once more over unchanged logs, with the WAL size before and after."""
    before = _state_bytes(indexed.ws.state)
    result = indexed.ws.run("index", "--json")
    return result, before, _state_bytes(indexed.ws.state)


def _state_bytes(state: Path) -> int:
    """WAL bytes plus the published generation's name: a no-op pass changes neither."""
    current = (state / "CURRENT").read_text()
    return sum(p.stat().st_size for p in (state / "wal").glob("*.log")) + int(current.strip().split("-")[1]) * 10**12


def test_index_again_is_idempotent(rerun: tuple[Result, int, int]) -> None:
    result, _, _ = rerun
    assert result.returncode == 0, result
    data = result.json()
    assert data["events"] == 0, "a second index over unchanged logs must add no event"
    assert data["issues"] == 0, "a second index must not quarantine the same lines again"
    assert data["total_events"] == N_EVENTS
    assert data["sessions"] == N_SESSIONS


def test_noop_reindex_writes_nothing(rerun: tuple[Result, int, int]) -> None:
    """Two sample files end with a half-written line: a pass that reads no new line must not append a
    checkpoint-only frame, or every catch-up (each `moraine search`) grows the WAL while a session is live."""
    result, before, after = rerun
    assert result.returncode == 0, result
    assert result.json()["events"] == 0
    assert after == before, f"a no-op re-index appended {after - before} bytes to the WAL"


def test_state_permissions(indexed: Indexed) -> None:
    state = indexed.ws.state
    assert stat.S_IMODE(state.stat().st_mode) == 0o700
    assert stat.S_IMODE((state / "CURRENT").stat().st_mode) == 0o600
    for path in state.rglob("*"):
        mode = stat.S_IMODE(path.stat().st_mode)
        assert mode & 0o077 == 0, f"{path} is readable by others: {oct(mode)}"


def test_index_text_one_line_summary(fresh: Workspace) -> None:
    result = fresh.run("index")
    assert result.returncode == 0, result
    assert result.stderr == "", result
    lines = result.stdout.splitlines()
    assert len(lines) == 1, result
    match = TEXT_SUMMARY.match(lines[0])
    assert match, f"unexpected summary line: {lines[0]!r}"
    assert int(match["events"]) == N_EVENTS
    assert int(match["seen"]) == N_FILES
    assert int(match["issues"]) == N_MALFORMED
    assert int(match["sessions"]) == N_SESSIONS
    assert int(match["total"]) == N_EVENTS
    assert Path(match["home"]) == fresh.state


def test_index_no_logs_empty_roots(tmp_path: Path) -> None:
    ws = make_workspace(tmp_path / "empty", copy_logs=False)
    ws.codex.mkdir()
    ws.claude.mkdir()
    result = ws.run("index")
    assert result.returncode == 5, result
    assert result.stdout == "", result
    assert "no agent logs" in result.stderr
    assert str(ws.codex / "sessions") in result.stderr, "the message must name the Codex root"
    assert str(ws.claude / "projects") in result.stderr, "the message must name the Claude root"
    assert "CODEX_HOME" in result.stderr and "CLAUDE_CONFIG_DIR" in result.stderr


def test_index_no_logs_missing_roots_json(tmp_path: Path) -> None:
    ws = make_workspace(tmp_path / "missing", copy_logs=False)
    result = ws.run("index", "--json")
    assert not ws.codex.exists() and not ws.claude.exists()
    assert result.returncode == 5, result
    assert result.stdout == "", "no JSON summary when there is nothing to index"
    assert str(ws.codex / "sessions") in result.stderr
    assert str(ws.claude / "projects") in result.stderr
    assert result.stderr.startswith("moraine: ")


def test_the_progress_bar_ends_whole_on_its_own_line(fresh: Workspace) -> None:
    """On a terminal, `index` and `reindex` draw a bar that ends at 100 % and ends its line, also when
    some bytes are quarantined (it stopped at 10.5 %, the final message glued to it; found by an
    outside attack). `script` gives the commands a terminal."""
    script = shutil.which("script")
    assert script is not None, "script (bsdutils, essential on Debian) gives the commands a terminal"
    both = f"{MORAINE} index; {MORAINE} reindex"
    out = subprocess.run([script, "-qc", both, "/dev/null"], env=fresh.env(), capture_output=True, timeout=300)
    text = out.stdout.decode(errors="replace").replace("\r\n", "\n")
    for label, then in (("indexing", "indexed "), ("reindexing", "rebuilt ")):
        last_bar = text[: text.index(then)].rsplit("\r", 1)[-1]
        assert last_bar.startswith(f"{label} [") and "100.0%" in last_bar and last_bar.endswith("\n"), text
