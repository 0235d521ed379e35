"""`moraine setup --write` never makes a file more readable than it was.

Why: `~/.claude.json` is 0600 (it holds OAuth tokens and project history); formerly the
`.bak` copy that `setup --write` kept was created 0644 (world-readable) and the rewritten files
were 0600 whatever they had been. Now every file setup writes — the two configs and their
`.bak` copies — has the original's permission bits, a file that did not exist is created 0600
(whatever the umask), the first `.bak` is never replaced by a later run (a rerun would
otherwise back up its own output), a `.bak` an earlier version left too open is closed down to
the original's mode, and a symlinked config stays a symlink. Real `moraine setup` processes.
"""

from __future__ import annotations

import json
import os
import stat
import subprocess
import tomllib
from pathlib import Path

import pytest
from cli_harness import MORAINE

CLAUDE_BEFORE = {"theme": "dark", "oauthAccount": {"token": "secret"}}
CODEX_BEFORE = 'model = "gpt-5-codex"\n'


def _mode(path: Path) -> int:
    return stat.S_IMODE(os.lstat(path).st_mode)


def _setup(tmp_path: Path, umask: int = 0o022) -> subprocess.CompletedProcess[str]:
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(tmp_path),
           "CODEX_HOME": str(tmp_path / "codex"), "MORAINE_SETUP_CLAUDE_JSON": str(tmp_path / "claude.json")}
    done = subprocess.run([str(MORAINE), "setup", "--write"], env=env, capture_output=True, text=True, timeout=60,
                          check=False, preexec_fn=lambda: os.umask(umask))
    assert done.returncode == 0 and "Traceback" not in done.stderr, done
    return done


def _originals(tmp_path: Path, mode: int) -> tuple[Path, Path]:
    claude, codex = tmp_path / "claude.json", tmp_path / "codex" / "config.toml"
    codex.parent.mkdir()
    claude.write_text(json.dumps(CLAUDE_BEFORE))
    codex.write_text(CODEX_BEFORE)
    for path in (claude, codex):
        os.chmod(path, mode)
    return claude, codex


def _no_temp_files(tmp_path: Path) -> None:
    assert not [p for p in tmp_path.rglob("*") if p.name.endswith(".tmp")]


@pytest.mark.parametrize("mode", [0o600, 0o644, 0o640, 0o400], ids=lambda m: f"{m:04o}")
def test_written_files_and_backups_keep_the_original_mode(tmp_path: Path, mode: int) -> None:
    claude, codex = _originals(tmp_path, mode)
    _setup(tmp_path, umask=0)  # a permissive umask must not leak into any file
    for path, before in ((claude, json.dumps(CLAUDE_BEFORE)), (codex, CODEX_BEFORE)):
        backup = path.with_name(path.name + ".bak")
        assert _mode(path) == mode, (path, oct(_mode(path)))
        assert _mode(backup) == mode, (backup, oct(_mode(backup)))
        assert backup.read_text() == before
    assert json.loads(claude.read_text())["mcpServers"]["moraine"]["args"] == ["mcp"]
    assert tomllib.loads(codex.read_text())["mcp_servers"]["moraine"]["args"] == ["mcp"]
    _no_temp_files(tmp_path)


@pytest.mark.parametrize("umask", [0o000, 0o022, 0o077], ids=lambda m: f"umask{m:03o}")
def test_new_files_are_0600(tmp_path: Path, umask: int) -> None:
    _setup(tmp_path, umask=umask)
    claude, codex = tmp_path / "claude.json", tmp_path / "codex" / "config.toml"
    assert _mode(claude) == 0o600 and _mode(codex) == 0o600
    assert _mode(codex.parent) == 0o700  # created by setup
    assert not list(tmp_path.rglob("*.bak"))
    _no_temp_files(tmp_path)


def test_the_first_backup_is_kept(tmp_path: Path) -> None:
    """Reruns leave the first .bak (the user's original) alone; the configs stay identical."""
    claude, codex = _originals(tmp_path, 0o600)
    _setup(tmp_path)
    once = (claude.read_bytes(), codex.read_bytes())
    _setup(tmp_path)
    _setup(tmp_path)
    assert (claude.read_bytes(), codex.read_bytes()) == once
    assert json.loads(claude.with_name("claude.json.bak").read_text()) == CLAUDE_BEFORE
    assert codex.with_name("config.toml.bak").read_text() == CODEX_BEFORE


def test_a_too_open_backup_is_closed_down(tmp_path: Path) -> None:
    """A world-readable .bak left by an earlier version beside a 0600 file is made 0600 (kept, not rewritten)."""
    claude, _codex = _originals(tmp_path, 0o600)
    backup = claude.with_name("claude.json.bak")
    backup.write_text("old backup")
    os.chmod(backup, 0o644)
    _setup(tmp_path)
    assert _mode(backup) == 0o600 and backup.read_text() == "old backup"


def test_a_symlinked_config_stays_a_symlink(tmp_path: Path) -> None:
    """Dotfile managers link ~/.claude.json elsewhere: the target is rewritten in place, mode kept."""
    target = tmp_path / "dotfiles" / "claude.json"
    target.parent.mkdir()
    target.write_text(json.dumps(CLAUDE_BEFORE))
    os.chmod(target, 0o600)
    (tmp_path / "claude.json").symlink_to(target)
    _setup(tmp_path)
    link = tmp_path / "claude.json"
    assert link.is_symlink() and json.loads(target.read_text())["mcpServers"]["moraine"]["args"] == ["mcp"]
    assert _mode(target) == 0o600 and _mode(tmp_path / "claude.json.bak") == 0o600
