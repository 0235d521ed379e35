"""A new user's first hour, as the README tells it: a fresh clone, an empty `$HOME`, the quick
start's two commands, an index before any agent wrote a log, then logs of several harnesses
appearing and an agent finding them through `moraine mcp` (the SDK's ClientSession).

The nested `make test` runs the README's test command on the clone with a small selection
(`PYTEST_ADDOPTS`), so the check is that the command works on a fresh machine without running
the suite inside itself.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client

REPO = Path(__file__).resolve().parents[2]
SAMPLES = REPO / "data_samples"
pytestmark = pytest.mark.slow

# data_samples folder → where that harness writes under a person's home by default
DEFAULT_ROOTS = {
    "codex": ".codex",
    "claude": ".claude",
    "pi": ".pi/agent",
    "qwen": ".qwen",
    "gemini": ".",  # data_samples/gemini holds .gemini/
}
SOURCES = ("codex", "claude-code", "pi", "qwen-code", "gemini-cli")


def _sh(argv: list[str], cwd: Path, env: dict[str, str], timeout: float = 1200) -> subprocess.CompletedProcess[str]:
    done = subprocess.run(argv, cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout, check=False)
    assert "Traceback" not in done.stdout + done.stderr, done.stdout[-3000:] + done.stderr[-3000:]
    return done


async def _find_every_source(env: dict[str, str], moraine: Path) -> dict[str, list[dict[str, Any]]]:
    """For each harness: its sessions listed, then a search for its newest session's title, over MCP."""
    params = StdioServerParameters(command=str(moraine), args=["mcp"], env=env)
    found: dict[str, list[dict[str, Any]]] = {}
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        tools = {tool.name for tool in (await session.list_tools()).tools}
        assert {"search_sessions", "open", "list_sessions", "index_status"} <= tools
        for source in SOURCES:
            listed = await session.call_tool("list_sessions", {"start_datetime": "2000-01-01T00:00:00Z",
                                                               "end_datetime": "2100-01-01T00:00:00Z",
                                                               "source": [source]})
            assert not listed.is_error and listed.structured_content is not None
            assert "data" in listed.structured_content, listed.structured_content
            sessions = listed.structured_content["data"]["sessions"]
            assert sessions, f"{source}: no session listed: {listed.structured_content}"
            title = next(s["session"]["title"] for s in sessions if s["session"]["title"])
            hits = await session.call_tool("search_sessions", {"query": title, "source": [source]})
            assert not hits.is_error and hits.structured_content is not None
            found[source] = hits.structured_content["data"]["results"]
    return found


def test_fresh_clone_empty_home_quick_start_then_logs_found_over_mcp(tmp_path: Path) -> None:
    if shutil.which("git") is None or shutil.which("make") is None:
        pytest.skip("git and make are needed to clone and install")
    clone, home = tmp_path / "moraine", tmp_path / "home"
    home.mkdir()
    subprocess.run(["git", "clone", "-q", str(REPO), str(clone)], check=True, timeout=120)
    env = {"PATH": os.environ["PATH"], "HOME": str(home), "PIP_DISABLE_PIP_VERSION_CHECK": "1",
           "LANG": "C.UTF-8"}
    if os.environ.get("PIP_CACHE_DIR"):
        env["PIP_CACHE_DIR"] = os.environ["PIP_CACHE_DIR"]

    # 1. `make run` before any agent wrote a log: it installs, indexes nothing, and says so
    run = _sh(["make", "run"], clone, env)
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]
    assert "no agent logs found" in run.stderr and "is ready" in run.stderr
    moraine = clone / ".venv" / "bin" / "moraine"
    assert (home / ".moraine").is_dir()

    # 2. `make test`, the README's other command, works on the clone (a small selection of it)
    test = _sh(["make", "test"], clone, {**env, "PYTEST_ADDOPTS": "tests/unit/test_tokenize.py -p no:cacheprovider"})
    assert test.returncode == 0, test.stdout[-3000:] + test.stderr[-3000:]
    assert " passed" in test.stdout

    # 3. agents of several harnesses write their logs where they do by default
    for folder, root in DEFAULT_ROOTS.items():
        shutil.copytree(SAMPLES / folder, home / root, dirs_exist_ok=True)
    status = _sh([str(moraine), "status"], clone, env)
    assert status.returncode == 0, status.stderr

    # 4. an agent host launches `moraine mcp`; every harness's sessions are listed and found
    try:
        found = anyio.run(_find_every_source, env, moraine)
    finally:
        _sh([str(moraine), "stop"], clone, env, timeout=180)
    for source, hits in found.items():
        assert hits and all(hit["session"]["source"] == source for hit in hits), (source, hits[:2])
