"""`moraine mcp` answers the host even when it cannot start: a state directory of another user's
(0700 or 0755, with a config.toml inside that must not even be read) and a config.toml that is not
valid TOML each get a JSON-RPC error reply per request naming the reason, and the exit code
(7 untrusted, 3 config)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

MORAINE = Path(sys.executable).parent / "moraine"
NOBODY = 65534
REQUESTS = [{"jsonrpc": "2.0", "id": 1, "method": "initialize",
             "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                        "clientInfo": {"name": "t", "version": "1"}}},
            {"jsonrpc": "2.0", "method": "notifications/initialized"},
            {"jsonrpc": "2.0", "id": 2, "method": "tools/list"}]


def _bridge(home: Path, tmp_path: Path) -> tuple[int, list[dict], str]:
    env = {"PATH": os.environ["PATH"], "HOME": str(tmp_path / "home"), "MORAINE_HOME": str(home)}
    done = subprocess.run([str(MORAINE), "mcp"], input="".join(json.dumps(r) + "\n" for r in REQUESTS).encode(),
                          env=env, capture_output=True, timeout=60, check=False)
    replies = [json.loads(line) for line in done.stdout.decode().splitlines() if line.strip()]
    return done.returncode, replies, done.stderr.decode()


@pytest.mark.skipif(os.geteuid() != 0, reason="making a folder another user's takes root")
@pytest.mark.parametrize("mode", [0o700, 0o755])
def test_another_users_state_is_refused_unread_with_a_reply(tmp_path: Path, mode: int) -> None:
    home = tmp_path / "theirs"
    home.mkdir()
    (home / "config.toml").write_text("this is [not toml\n")  # parsing it would fail with exit 3, not 7
    os.chown(home / "config.toml", NOBODY, NOBODY)
    os.chmod(home, mode)
    os.chown(home, NOBODY, NOBODY)
    code, replies, stderr = _bridge(home, tmp_path)
    assert code == 7, (code, replies, stderr)
    assert [r["id"] for r in replies] == [1, 2], replies
    assert all("owned by uid" in r["error"]["message"] for r in replies), replies


def test_a_broken_config_is_answered_to_the_host(tmp_path: Path) -> None:
    home = tmp_path / "mine"
    home.mkdir(mode=0o700)
    (home / "config.toml").write_text("this is [not toml\n")
    code, replies, stderr = _bridge(home, tmp_path)
    assert code == 3, (code, replies, stderr)
    assert [r["id"] for r in replies] == [1, 2] and all("not valid TOML" in r["error"]["message"] for r in replies)
