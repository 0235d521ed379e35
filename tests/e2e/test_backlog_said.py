"""A backlog of logs never read (a first index killed half-way, a root added later) is counted by
`status` and `index_status` and announced by a shell command that reads it before answering.
Before, both counted only the logs already read from (0 bytes while most of the history was
unread), and `moraine search` read 150 MB for half a minute without a word."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

MORAINE = Path(sys.executable).parent / "moraine"
MAKE_CORPUS = Path(__file__).resolve().parents[2] / "tools" / "make_corpus.py"


def _size(root: Path) -> int:
    return sum(p.stat().st_size for p in root.rglob("*") if p.is_file())


def test_a_backlog_never_read_is_counted_and_announced(tmp_path: Path) -> None:
    logs = tmp_path / "logs"
    subprocess.run([sys.executable, str(MAKE_CORPUS), "--out", str(logs), "--events", "12000", "--seed", "3"],
                   check=True, capture_output=True, timeout=300)
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(tmp_path / "home"),
           "MORAINE_HOME": str(tmp_path / "state"), "CODEX_HOME": str(logs / "codex"),
           "CLAUDE_CONFIG_DIR": str(tmp_path / "not-yet")}

    def run(*argv: str) -> subprocess.CompletedProcess[str]:
        done = subprocess.run([str(MORAINE), *argv], env=env, capture_output=True, text=True, timeout=300,
                              check=False)
        assert done.returncode == 0 and "Traceback" not in done.stderr, done
        return done

    run("index")  # the Codex logs only
    assert json.loads(run("status", "--json").stdout)["pending_bytes"] == 0
    env["CLAUDE_CONFIG_DIR"] = str(logs / "claude")  # a root whose logs were never read
    backlog = _size(logs / "claude" / "projects")
    assert backlog >= 16 << 20
    assert json.loads(run("status", "--json").stdout)["pending_bytes"] == backlog
    searched = run("search", "error", "--json")
    assert "of logs not indexed yet before answering" in searched.stderr, searched.stderr
    assert json.loads(searched.stdout)["data"]["results"]
    assert json.loads(run("status", "--json").stdout)["pending_bytes"] == 0
