"""End-to-end MCP round trip: the SDK's ClientSession over stdio against `moraine mcp`.

    python tools/bench_mcp.py --corpus /tmp/corpus100k [--calls 100]

Starts `moraine mcp` (the bridge, which starts a daemon) on a fresh state over a corpus made
by make_corpus.py, reports when the handshake answered, how long the first call waited for
the state to open and index, then P50/P95 of search_sessions round trips (catch-up + search +
envelope + JSON-RPC + socket + stdio). The daemon is stopped at the end.
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

import anyio
import numpy as np
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client

sys.path.insert(0, str(Path(__file__).resolve().parent))
from make_corpus import corpus_env

QUERIES = ["migration", "retry timeout", "src/db", "flaky test", "error handling", "cache", "parser",
           "websocket reconnect", "rate limit", "panic"]


async def run(corpus: Path, calls: int) -> None:
    home = Path(tempfile.mkdtemp(prefix="moraine-bench-mcp-"))
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
            samples = []
            for i in range(calls):
                t = time.perf_counter()
                result = await session.call_tool("search_sessions", {"query": QUERIES[i % len(QUERIES)]})
                samples.append(time.perf_counter() - t)
                assert result.structured_content["schema_version"] == "moraine.mcp.search_sessions.v1"
            ms = np.array(samples) * 1000
            print(f"search_sessions round trip: P50 {np.percentile(ms, 50):.1f} ms, P95 {np.percentile(ms, 95):.1f} ms")
    finally:  # `moraine mcp` started a daemon for this state: stop it before removing the state
        subprocess.run([str(Path(sys.executable).parent / "moraine"), "--home", str(home / "state"), "stop"],
                       capture_output=True, check=False)
        shutil.rmtree(home, ignore_errors=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--corpus", type=Path, required=True, help="a directory made by make_corpus.py")
    parser.add_argument("--calls", type=int, default=100)
    args = parser.parse_args()
    anyio.run(run, args.corpus, args.calls)


if __name__ == "__main__":
    main()
