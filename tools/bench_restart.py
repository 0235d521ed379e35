"""Restart benchmark: how long from a process start to the first answered search, on a
state that a snapshot made durable (mmap'd segments and contents, no re-read of the logs).

    python tools/bench_restart.py --corpus /tmp/corpus1m [--state DIR] [--runs 7] [--json]

Indexes the corpus with `moraine index` when the state has no snapshot yet (timed, with the
index process's peak RSS), reports the state's size against the raw logs, then restarts N
times each way and quotes median and P95:
  * `open+search`: a new Python process opens the state and answers search_sessions;
  * `moraine mcp`: the daemon stopped, the SDK's ClientSession spawns `moraine mcp` over stdio
    (which starts the daemon) and times spawn → handshake → first search_sessions answer; then the
    same with the compiled search's cache removed;
  * the reference: a new process opens an SQLite FTS5 file of the same searchable texts
    (built once beside the state) and answers the same query's top 10.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import sqlite3
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

BIN = Path(sys.executable).parent
QUERY = "migration retry timeout"
CHILD = """
import json, resource, sys, time
t0 = time.perf_counter()
from moraine.config import load_config
from moraine.mcp_server.tools import search_sessions
from moraine.store.engine import Store
t1 = time.perf_counter()
store = Store(load_config(), create=False)
t2 = time.perf_counter()
result = search_sessions.run(store, {"query": sys.argv[1]})
t3 = time.perf_counter()
assert "data" in result.structured, result.structured
print(json.dumps({"import_s": t1 - t0, "open_s": t2 - t1, "search_s": t3 - t2,
                  "hits": result.structured["data"]["result_count"],
                  "rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))
"""


FTS_CHILD = """
import json, sqlite3, sys, time
t0 = time.perf_counter()
db = sqlite3.connect(sys.argv[1])
match = " OR ".join('"' + w + '"' for w in sys.argv[2].split())
rows = db.execute("SELECT rowid FROM docs WHERE docs MATCH ? ORDER BY bm25(docs) LIMIT 10", (match,)).fetchall()
print(json.dumps({"query_s": time.perf_counter() - t0, "hits": len(rows)}))
"""


def build_fts(state: Path, path: Path) -> float:
    """The reference: SQLite FTS5 over the same searchable texts, in a file on disk."""
    from moraine.config import load_config
    from moraine.model import DEFAULT_SEARCH_TYPES, TYPE_CODE
    from moraine.store.engine import Store

    started = time.perf_counter()
    store = Store(load_config({"home": str(state)}), create=False)
    codes = np.array([TYPE_CODE[t] for t in DEFAULT_SEARCH_TYPES])
    docs = np.flatnonzero(np.isin(store.catalog.type_code.view, codes) & store.index.live.view)
    db = sqlite3.connect(path)
    db.execute("CREATE VIRTUAL TABLE docs USING fts5(body)")
    db.executemany("INSERT INTO docs(body) VALUES (?)", ((store.catalog.event(int(d)).text,) for d in docs))
    db.commit()
    db.close()
    return time.perf_counter() - started


def fts_restart(db: Path) -> float:
    started = time.perf_counter()
    subprocess.run([sys.executable, "-c", FTS_CHILD, str(db), QUERY], check=True, capture_output=True, text=True)
    return time.perf_counter() - started


def tree_bytes(path: Path) -> int:
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file())


def stats(samples: list[float]) -> dict[str, float]:
    arr = np.array(samples)
    return {"median_s": float(np.median(arr)), "p95_s": float(np.percentile(arr, 95)), "n": len(samples)}


def index(env: dict[str, str]) -> dict[str, Any]:
    started = time.perf_counter()
    out = subprocess.run([str(BIN / "moraine"), "index", "--json"], env=env, check=True, capture_output=True,
                         text=True)
    summary = json.loads(out.stdout)
    return {"index_s": time.perf_counter() - started, "events": summary["total_events"],
            "index_peak_rss_mb": resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024}


def open_and_search(env: dict[str, str]) -> dict[str, Any]:
    started = time.perf_counter()
    out = subprocess.run([sys.executable, "-c", CHILD, QUERY], env=env, check=True, capture_output=True, text=True)
    return {"wall_s": time.perf_counter() - started, **json.loads(out.stdout)}


def _stop_daemon(env: dict[str, str]) -> None:
    subprocess.run([str(BIN / "moraine"), "stop"], env=env, check=True, capture_output=True)


def _daemon_start(env: dict[str, str], state: Path, keep_cache: bool) -> tuple[float, float]:
    """A host's first session of the day: no daemon runs, `moraine mcp` starts one (the compiled
    search's cache under the state kept, or removed as after an upgrade)."""
    _stop_daemon(env)
    if not keep_cache:
        shutil.rmtree(state / "cache", ignore_errors=True)
    time.sleep(1.0)  # the stopped daemon's last writes settle
    return anyio.run(mcp_first_search, env)


async def mcp_first_search(env: dict[str, str]) -> tuple[float, float]:
    server = StdioServerParameters(command=str(BIN / "moraine"), args=["mcp"], env=env)
    started = time.perf_counter()
    async with stdio_client(server) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        handshake = time.perf_counter() - started
        result = await session.call_tool("search_sessions", {"query": QUERY}, read_timeout_seconds=600)
        assert result.structured_content["schema_version"] == "moraine.mcp.search_sessions.v1", result
        return handshake, time.perf_counter() - started


def run(corpus: Path, state: Path, runs: int) -> dict[str, Any]:
    # every harness folder the corpus may have (one it lacks is no source); QWEN_RUNTIME_DIR would
    # win over the corpus's QWEN_HOME
    env = {**{k: v for k, v in os.environ.items() if k != "QWEN_RUNTIME_DIR"}, "MORAINE_HOME": str(state),
           **corpus_env(corpus)}
    report: dict[str, Any] = {"corpus": str(corpus), "state": str(state)}
    if not (state / "CURRENT").exists():
        report.update(index(env))
    report["raw_log_bytes"] = tree_bytes(corpus)
    report["state_bytes"] = tree_bytes(state)
    report["state_to_logs"] = report["state_bytes"] / report["raw_log_bytes"]
    manifest = json.loads((state / (state / "CURRENT").read_text().strip() / "MANIFEST.json").read_text())
    report["counts"] = manifest["counts"]
    children = [open_and_search(env) for _ in range(runs)]
    report["open_search"] = stats([c["wall_s"] for c in children])
    for key in ("import_s", "open_s", "search_s"):
        report[f"open_search_{key}"] = stats([c[key] for c in children])
    report["open_search_rss_mb"] = max(c["rss_mb"] for c in children)
    mcp = [_daemon_start(env, state, keep_cache=True) for _ in range(runs)]
    report["mcp_handshake"] = stats([m[0] for m in mcp])
    report["mcp_first_search"] = stats([m[1] for m in mcp])
    cold = [_daemon_start(env, state, keep_cache=False) for _ in range(runs)]  # last: a compile may run after
    report["mcp_first_search_no_kernel_cache"] = stats([m[1] for m in cold])
    _stop_daemon(env)
    fts = state.parent / f"{state.name}.fts5.db"
    if not fts.exists():
        report["fts5_build_s"] = build_fts(state, fts)
    report["fts5_bytes"] = fts.stat().st_size
    report["fts5_restart"] = stats([fts_restart(fts) for _ in range(runs)])
    return report


def table(r: dict[str, Any]) -> str:
    c = r["counts"]
    lines = [f"state: {c['live_events']:,} events ({c['searchable']:,} searchable), {c['sessions']:,} sessions, "
             f"{c['segments']} segments; {r['state_bytes'] / 1e6:,.0f} MB = {r['state_to_logs']:.2f}× the raw logs "
             f"({r['raw_log_bytes'] / 1e6:,.0f} MB)"]
    if "index_s" in r:
        lines.append(f"moraine index: {r['index_s']:.1f} s ({r['events'] / r['index_s']:,.0f} events/s), "
                     f"peak RSS {r['index_peak_rss_mb']:,.0f} MB")
    lines += ["", "| restart → first answered search | median s | P95 s |", "|---|---:|---:|"]
    for key, label in (("open_search", "new process: open state + search_sessions"),
                       ("open_search_open_s", "  of which: open the state"),
                       ("open_search_search_s", "  of which: first search"),
                       ("mcp_handshake", "`moraine mcp`: spawn → handshake"),
                       ("mcp_first_search", "`moraine mcp`: spawn → first search_sessions answer"),
                       ("mcp_first_search_no_kernel_cache", "  the same, no compiled-search cache"),
                       ("fts5_restart", "reference: new process, SQLite FTS5 file, first top-10 query")):
        lines.append(f"| {label} | {r[key]['median_s']:.2f} | {r[key]['p95_s']:.2f} |")
    lines.append(f"\npeak RSS of the restarted process: {r['open_search_rss_mb']:,.0f} MB")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--corpus", type=Path, required=True, help="a directory made by make_corpus.py")
    parser.add_argument("--state", type=Path, help="state directory to (re)use (default: a new temp dir)")
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    state = args.state or Path(tempfile.mkdtemp(prefix="moraine-restart-")) / "state"
    report = run(args.corpus, state, args.runs)
    print(json.dumps(report, indent=2) if args.json else table(report))


if __name__ == "__main__":
    main()
