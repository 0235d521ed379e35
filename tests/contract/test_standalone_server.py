"""`moraine mcp --standalone`: the in-process server (no daemon) answers the same contract.

Why: hosts that cannot keep a background process (sandboxes, one-shot CI jobs) run the
server in-process; it must give the same answers as the daemon behind the bridge, and must
not start a daemon.
"""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path
from typing import Any

import anyio
from contract_harness import wait_backfilled
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client

ROOT = Path(__file__).resolve().parents[2]
MORAINE = str(Path(sys.executable).parent / "moraine")


async def _search(env: dict[str, str], args: list[str]) -> dict[str, Any]:
    params = StdioServerParameters(command=MORAINE, args=args, env=env)
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        if "--standalone" not in args:  # the daemon's first pass, which a standalone call reads itself
            await anyio.to_thread.run_sync(wait_backfilled, Path(env["MORAINE_HOME"]))
        result = await session.call_tool("search_sessions", {"query": "migration", "n_hits": 5})
        assert result.is_error is False
        return result.structured_content


def test_standalone_server_answers_like_the_daemon_and_starts_none(tmp_path: Path) -> None:
    shutil.copytree(ROOT / "data_samples" / "codex", tmp_path / "codex")
    shutil.copytree(ROOT / "data_samples" / "claude", tmp_path / "claude")
    base = {"CODEX_HOME": str(tmp_path / "codex"), "CLAUDE_CONFIG_DIR": str(tmp_path / "claude"),
            "PATH": os.environ.get("PATH", ""), "HOME": str(tmp_path), "MORAINE_DAEMON_IDLE_EXIT_S": "20"}
    standalone_home, daemon_home = tmp_path / "a", tmp_path / "b"
    alone = anyio.run(_search, {**base, "MORAINE_HOME": str(standalone_home)}, ["mcp", "--standalone"])
    assert not (standalone_home / "run" / "daemon.json").exists(), "--standalone must not start a daemon"
    try:
        bridged = anyio.run(_search, {**base, "MORAINE_HOME": str(daemon_home)}, ["mcp"])
    finally:
        import subprocess

        subprocess.run([MORAINE, "--home", str(daemon_home), "stop"], capture_output=True, timeout=120, check=False)
    hits = [(r["id"], r["score"]) for r in alone["data"]["results"]]
    assert hits and hits == [(r["id"], r["score"]) for r in bridged["data"]["results"]]
