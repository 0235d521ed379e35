"""`moraine setup` carries the state it serves into the entry, and `--remove` takes out exactly
Moraine's entries. Real `moraine setup` processes on temporary config files."""

from __future__ import annotations

import json
import os
import subprocess
import tomllib
from pathlib import Path

from cli_harness import MORAINE

CLAUDE_BEFORE = {"theme": "dark", "mcpServers": {"other": {"command": "other-server", "args": []}}}
CODEX_BEFORE = 'model = "gpt-5-codex"\n\n[mcp_servers.other]\ncommand = "other-server"\n'


def _run(tmp_path: Path, *args: str, home: str | None = None) -> subprocess.CompletedProcess[str]:
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(tmp_path),
           "CODEX_HOME": str(tmp_path / "codex"), "MORAINE_SETUP_CLAUDE_JSON": str(tmp_path / "claude.json")}
    if home:
        env["MORAINE_HOME"] = home
    done = subprocess.run([str(MORAINE), "setup", *args], env=env, capture_output=True, text=True, timeout=60,
                          check=False)
    assert done.returncode == 0 and "Traceback" not in done.stderr, done
    return done


def _originals(tmp_path: Path) -> tuple[Path, Path]:
    claude, codex = tmp_path / "claude.json", tmp_path / "codex" / "config.toml"
    codex.parent.mkdir()
    claude.write_text(json.dumps(CLAUDE_BEFORE))
    codex.write_text(CODEX_BEFORE)
    return claude, codex


def test_the_default_home_gives_a_plain_entry(tmp_path: Path) -> None:
    claude, codex = _originals(tmp_path)
    _run(tmp_path, "--write")
    assert json.loads(claude.read_text())["mcpServers"]["moraine"]["args"] == ["mcp"]
    assert tomllib.loads(codex.read_text())["mcp_servers"]["moraine"]["args"] == ["mcp"]


def test_home_and_moraine_home_are_carried_into_the_entry(tmp_path: Path) -> None:
    claude, codex = _originals(tmp_path)
    other = str(tmp_path / "elsewhere")
    printed = json.loads(_run(tmp_path, "--json", home=other).stdout)
    assert printed["args"] == ["--home", other, "mcp"]
    _run(tmp_path, "--write", home=other)
    assert json.loads(claude.read_text())["mcpServers"]["moraine"]["args"] == ["--home", other, "mcp"]
    assert tomllib.loads(codex.read_text())["mcp_servers"]["moraine"]["args"] == ["--home", other, "mcp"]
    flag = str(tmp_path / "by-flag")
    env = {"PATH": os.environ["PATH"], "HOME": str(tmp_path), "CODEX_HOME": str(tmp_path / "codex"),
           "MORAINE_SETUP_CLAUDE_JSON": str(claude)}
    subprocess.run([str(MORAINE), "--home", flag, "setup", "--write"], env=env, check=True, capture_output=True)
    assert json.loads(claude.read_text())["mcpServers"]["moraine"]["args"] == ["--home", flag, "mcp"]


def test_a_second_write_keeps_the_first_backup_and_remove_takes_out_only_moraine(tmp_path: Path) -> None:
    claude, codex = _originals(tmp_path)
    _run(tmp_path, "--write")
    _run(tmp_path, "--write", home=str(tmp_path / "x"))
    assert json.loads(claude.with_name("claude.json.bak").read_text()) == CLAUDE_BEFORE
    assert codex.with_name("config.toml.bak").read_text() == CODEX_BEFORE
    removed = json.loads(_run(tmp_path, "--remove", "--json").stdout)
    assert {name for name, done in removed["removed"].items() if done} == {"claude-code", "codex"}
    assert json.loads(claude.read_text()) == CLAUDE_BEFORE
    assert tomllib.loads(codex.read_text()) == tomllib.loads(CODEX_BEFORE)
    again = _run(tmp_path, "--remove")
    assert "no moraine entry in" in again.stdout
    assert json.loads(claude.read_text()) == CLAUDE_BEFORE


def test_a_malformed_claude_json_is_a_config_error_not_a_traceback(tmp_path: Path) -> None:
    claude, _ = _originals(tmp_path)
    claude.write_text("{not json")
    env = {"PATH": os.environ["PATH"], "HOME": str(tmp_path), "CODEX_HOME": str(tmp_path / "codex"),
           "MORAINE_SETUP_CLAUDE_JSON": str(claude)}
    done = subprocess.run([str(MORAINE), "setup", "--write"], env=env, capture_output=True, text=True, check=False)
    assert done.returncode == 3 and "not valid JSON" in done.stderr and "Traceback" not in done.stderr, done
    assert claude.read_text() == "{not json"
