"""The daemon loads the compiled window search (numba) in the background, caches it under the
state, and answers the same way before and after; `backend = "numpy"` never loads it."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import anyio
import pytest
from _processes import all_gone, children
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client

from moraine.index import compiled
from moraine.store.run_files import read_status

MORAINE = str(Path(sys.executable).parent / "moraine")
SID = "5b0c7c1e-1111-4222-8333-444455556677"


def _start(tmp_path: Path, backend: str) -> tuple[dict[str, str], Path]:
    log = tmp_path / "claude" / "projects" / "-w" / f"{SID}.jsonl"
    log.parent.mkdir(parents=True)
    texts = [f"line {i} of the otter log " * (i % 4 + 1) for i in range(40)]
    log.write_text("".join(json.dumps({"type": "user", "sessionId": SID, "uuid": f"u-{i}", "cwd": "/w",
                                       "timestamp": f"2026-03-01T10:00:{i:02d}.000Z",
                                       "message": {"role": "user", "content": text}}) + "\n"
                           for i, text in enumerate(texts)))
    home = tmp_path / "s"
    cold = {k: v for k, v in os.environ.items() if k != "NUMBA_CACHE_DIR"}  # the state's own cache, empty
    env = {**cold, "MORAINE_HOME": str(home), "CODEX_HOME": str(tmp_path / "codex"),
           "CLAUDE_CONFIG_DIR": str(tmp_path / "claude"), "MORAINE_DAEMON_IDLE_EXIT_S": "60",
           "MORAINE_SEARCH_BACKEND": backend}
    subprocess.run([MORAINE, "daemon"], env=env, check=True, capture_output=True, timeout=120)
    return env, home


def _search(env: dict[str, str]) -> list[str]:
    """The hits' ids of a search_sessions call through `moraine mcp` (the daemon answers it)."""

    async def call() -> list[str]:
        params = StdioServerParameters(command=MORAINE, args=["mcp"], env=env)
        async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
            await session.initialize()
            result = await session.call_tool("search_sessions", {"query": "otter log", "n_hits": 25})
            assert result.structured_content is not None and not result.is_error, result
            return [hit["id"] for hit in result.structured_content["data"]["results"]]

    return anyio.run(call)


@pytest.mark.skipif(not compiled.available(), reason="numba is not installed (pip install '.[fast]')")
def test_the_daemon_loads_the_kernel_in_the_background_and_answers_alike(tmp_path: Path) -> None:
    env, home = _start(tmp_path, "auto")
    try:
        before = _search(env)  # answered at once, whether the kernel is ready or not
        daemon_log = home / "run" / "daemon.log"
        # a cold cache compiles in a child at low priority: minutes on a loaded machine
        deadline = time.monotonic() + 300
        while "compiled search ready" not in daemon_log.read_text():
            assert time.monotonic() < deadline, daemon_log.read_text()
            time.sleep(0.2)
        assert any((home / "cache" / "numba").rglob("*.nbi")), "the compiled kernel is cached under the state"
        text = daemon_log.read_text()  # loading takes the daemon's CPU: after the first pass, which calls wait for
        assert text.index("backfill:") < text.index("compiled search ready"), text
        assert _search(env) == before and len(before) >= 10
    finally:
        subprocess.run([MORAINE, "stop"], env=env, capture_output=True, timeout=120, check=False)


def test_backend_numpy_never_loads_it(tmp_path: Path) -> None:
    env, home = _start(tmp_path, "numpy")
    try:
        assert len(_search(env)) >= 10
        time.sleep(1)
        assert "compiled search" not in (home / "run" / "daemon.log").read_text()
        assert not (home / "cache" / "numba").exists()
    finally:
        subprocess.run([MORAINE, "stop"], env=env, capture_output=True, timeout=120, check=False)


@pytest.mark.skipif(not compiled.available(), reason="numba is not installed (pip install '.[fast]')")
def test_the_compiler_ends_with_a_daemon_killed_with_sigkill(tmp_path: Path) -> None:
    """A cold cache is compiled by a child process; a daemon killed meanwhile leaves none behind."""
    _, home = _start(tmp_path, "auto")
    status = read_status(home)
    assert status is not None
    pid = int(status["pid"])
    deadline = time.monotonic() + 60
    while not (compilers := children(pid)):
        assert time.monotonic() < deadline, "no compiler process was started"
        assert "compiled search ready" not in (home / "run" / "daemon.log").read_text()
        time.sleep(0.05)
    os.kill(pid, signal.SIGKILL)
    assert all_gone(compilers, 15), f"the compiler outlived its daemon: {compilers}"
