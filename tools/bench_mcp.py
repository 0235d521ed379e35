"""End-to-end MCP round trip: the SDK's ClientSession over stdio against `moraine mcp`.

    python tools/bench_mcp.py --corpus /tmp/corpus100k [--calls 100] [--state DIR] [--touch N]

Starts `moraine mcp` (the bridge, which starts a daemon) on a fresh state over a corpus made
by make_corpus.py, reports when the handshake answered, how long the first call waited for
the state to open and index, then P50/P95 of search_sessions round trips (catch-up + search +
envelope + JSON-RPC + socket + stdio); with --touch N, again right after N logs were touched
(their mtime set to now, as a sync does); then the same searches as in-process tool calls on
the same state, for the difference the daemon, socket and catch-up add. With --state, the
daemon serves a copy of an already indexed state instead of indexing the corpus.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import anyio
import numpy as np
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client

sys.path.insert(0, str(Path(__file__).resolve().parent))
from make_corpus import corpus_env

QUERIES = ["migration", "retry timeout", "src/db", "flaky test", "error handling", "cache", "parser",
           "websocket reconnect", "rate limit", "panic"]


def _touch(corpus: Path, count: int) -> int:
    """Set the mtime of `count` logs of the corpus to now (as a sync or a restore of logs does):
    every one of them counts as live for a catch-up that stats recent logs."""
    now = time.time()
    logs = [p for p in sorted(corpus.rglob("*")) if p.suffix in (".jsonl", ".json", ".db") and p.is_file()]
    for path in logs[:count]:
        os.utime(path, (now, now))
    return min(count, len(logs))


def _in_process(state: Path, env: dict[str, str], calls: int) -> np.ndarray:
    """The same searches as tool function calls in this process, on the same state."""
    from moraine.config import load_config
    from moraine.mcp_server.tools import search_sessions
    from moraine.store.engine import Store

    store = Store(load_config({"home": str(state)}, env=env), create=False)
    for query in QUERIES:
        search_sessions.run(store, {"query": query})
    samples = []
    for i in range(calls):
        t = time.perf_counter()
        search_sessions.run(store, {"query": QUERIES[i % len(QUERIES)]})
        samples.append(time.perf_counter() - t)
    return np.array(samples) * 1000


async def _round_trips(session: ClientSession, calls: int) -> tuple[np.ndarray, np.ndarray]:
    """Round trips, and the part of each the client spent checking the reply against the tool's
    output schema (the Python SDK's jsonschema pass: client-side work a host pays in its own
    SDK, not the server's)."""
    samples, checks = [], []
    validate = session.validate_tool_result
    spent = [0.0]

    async def timed_validate(name: str, result: Any) -> None:
        t0 = time.perf_counter()
        await validate(name, result)
        spent[0] += time.perf_counter() - t0

    session.validate_tool_result = timed_validate  # type: ignore[method-assign]
    try:
        for i in range(calls):
            spent[0] = 0.0
            t = time.perf_counter()
            result = await session.call_tool("search_sessions", {"query": QUERIES[i % len(QUERIES)]})
            samples.append(time.perf_counter() - t)
            checks.append(spent[0])
            assert result.structured_content["schema_version"] == "moraine.mcp.search_sessions.v1"
    finally:
        session.validate_tool_result = validate  # type: ignore[method-assign]
    return np.array(samples) * 1000, np.array(checks) * 1000


def _trip_lines(label: str, trips: tuple[np.ndarray, np.ndarray]) -> str:
    total, check = trips
    return (f"{_line(label, total)}; of which the client's output-schema check P50 {np.percentile(check, 50):.1f} ms"
            f" ({_line('without it', total - check)})")


def _line(label: str, ms: np.ndarray) -> str:
    return f"{label}: P50 {np.percentile(ms, 50):.1f} ms, P95 {np.percentile(ms, 95):.1f} ms"


async def run(corpus: Path, calls: int, state: Path | None = None, touch: int = 0) -> None:
    home = Path(tempfile.mkdtemp(prefix="moraine-bench-mcp-"))
    if state is not None:  # an indexed state of this corpus, copied: the daemon serves it as it is
        started = time.perf_counter()
        # not `run/`: a daemon serving the original may still hold its socket and lock there
        shutil.copytree(state, home / "state", symlinks=True, ignore=shutil.ignore_patterns("run"))
        print(f"state copied in {time.perf_counter() - started:.1f} s")
    # every harness folder the corpus may have (one it lacks is no source)
    env = {"MORAINE_HOME": str(home / "state"), **corpus_env(corpus), "PATH": os.environ.get("PATH", ""),
           "HOME": os.environ.get("HOME", str(home))}
    server = StdioServerParameters(command=str(Path(sys.executable).parent / "moraine"), args=["mcp"], env=env)
    started = time.perf_counter()
    try:
        async with stdio_client(server) as (read, write), ClientSession(read, write) as session:
            await session.initialize()
            print(f"handshake answered after {time.perf_counter() - started:.2f} s")
            t = time.perf_counter()
            await session.call_tool("search_sessions", {"query": "migration"}, read_timeout_seconds=3600)
            print(f"first call (state opened and indexed meanwhile) {time.perf_counter() - t:.1f} s")
            print(_trip_lines("search_sessions round trip", await _round_trips(session, calls)))
            if touch:
                touched = _touch(corpus, touch)
                await anyio.sleep(1.0)  # the watcher's events arrive and the ingest loop settles
                print(_trip_lines(f"round trip after {touched} logs were touched", await _round_trips(session, calls)))
        subprocess.run([str(Path(sys.executable).parent / "moraine"), "--home", str(home / "state"), "stop"],
                       capture_output=True, check=False)
        print(_line("in-process tool call (same state, same queries)", _in_process(home / "state", env, calls)))
    finally:  # `moraine mcp` started a daemon for this state: stop it before removing the state
        subprocess.run([str(Path(sys.executable).parent / "moraine"), "--home", str(home / "state"), "stop"],
                       capture_output=True, check=False)
        shutil.rmtree(home, ignore_errors=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--corpus", type=Path, required=True, help="a directory made by make_corpus.py")
    parser.add_argument("--calls", type=int, default=100)
    parser.add_argument("--state", type=Path, help="an indexed state of the corpus to serve (copied), not a fresh one")
    parser.add_argument("--touch", type=int, default=0, help="then touch this many logs and measure again")
    args = parser.parse_args()
    anyio.run(run, args.corpus, args.calls, args.state, args.touch)


if __name__ == "__main__":
    main()
