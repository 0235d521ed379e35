"""The latency targets of search_session_history (P95 ≤ 1 s for any pattern, ≤ 200 ms with a
literal of 3+ characters): patterns over the newest 30 days of an indexed corpus.

    python tools/bench_history.py --corpus /tmp/corpus100k --state /tmp/state100k [--patterns 40]

The state must hold the corpus indexed (`moraine index`). Times the tool function as MCP calls
it (all sessions, events since the newest event minus --days) for patterns with a literal of 3+
characters and without one, and, in the same run, a brute-force scan: every transcript line of
every event in the window, unpacked and tested by RE2 — whose match count must equal the
tool's (the pre-filter never drops a match). Prints P50/P95 per class, the window's size and
the CPU the hypervisor took (steal) during the run. A first query, reported apart, starts the
worker processes and maps the window's chunk files, as a running daemon has long done.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from make_corpus import corpus_env
from moraine.config import load_config
from moraine.index.grep import compile_pattern
from moraine.mcp_server.tools import search_session_history as tool
from moraine.model import format_ts
from moraine.store.engine import Store

DAY_MS = 86_400_000


def steal_ticks() -> int:
    fields = Path("/proc/stat").read_text().splitlines()[0].split()
    return int(fields[8]) if len(fields) > 8 else 0


def patterns(store: Store, docs: np.ndarray, count: int, seed: int) -> dict[str, list[str]]:
    rng = random.Random(seed)
    words: list[str] = []
    for doc in rng.sample(docs.tolist(), min(400, len(docs))):
        words += [w for w in store.catalog.event(doc).text.split() if w.isalpha() and 4 <= len(w) <= 20]
    rng.shuffle(words)
    with_literal = []
    for i in range(count):
        w = words[i % len(words)]
        with_literal.append([w, f"{w} {words[(i + 7) % len(words)]}", f"{w}\\w*", rf"{w}.*\d+"][i % 4])
    without = [r"(?i)" + words[i % len(words)] for i in range(count // 2)]
    without += [r"\bTODO\b|\bFIXME\b", r"[A-Z][a-z]+Error", r"^\s*def \w+\(", r"\d{4}-\d{2}-\d{2}", r"(a+)+$",
                r"[A-Z]{4,}\d", r"^\S+\.py:\d+", r"\w+@\w+\.\w+"][: count - len(without)]
    return {"literal": with_literal, "no_literal": without}


def brute_force(store: Store, docs: np.ndarray, pattern: str) -> int:
    regex = compile_pattern(pattern).regex
    total = 0
    for doc in docs.tolist():
        for line in store.catalog.event(doc).text.split("\n"):
            if regex.search(line) is not None:
                total += 1
    return total


def summary(samples: list[float]) -> dict[str, float]:
    ms = np.array(samples) * 1000
    return {"p50_ms": round(float(np.percentile(ms, 50)), 1), "p95_ms": round(float(np.percentile(ms, 95)), 1),
            "max_ms": round(float(ms.max()), 1), "n": len(samples)}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--corpus", type=Path, required=True)
    parser.add_argument("--state", type=Path, required=True)
    parser.add_argument("--days", type=int, default=30)
    parser.add_argument("--patterns", type=int, default=40)
    parser.add_argument("--brute", type=int, default=8, help="patterns per class also scanned by brute force")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    store = Store(load_config({"home": str(args.state)}, env=corpus_env(args.corpus)), create=False)
    catalog = store.catalog
    alive = np.flatnonzero(catalog.alive.view)
    newest = int(catalog.ts.view[alive].max())
    since = newest - args.days * DAY_MS
    window = alive[(catalog.ts.view[alive] >= since) & (catalog.nlines.view[alive] != 0)]
    chosen = patterns(store, window, args.patterns, args.seed)
    steal0, started = steal_ticks(), time.monotonic()
    report: dict[str, Any] = {"events": len(alive), "window_events": len(window),
                              "window_since": format_ts(since), "classes": {}}
    t0 = time.perf_counter()  # a daemon's steady state: the workers started, the window's chunks mapped
    tool.search(store, {"query": "warm-up", "session_id": None, "context_lines": 3, "max_results": 10,
                        "since_ms": since, "until_ms": None}, deadline=float("inf"))
    report["first_query_ms"] = round((time.perf_counter() - t0) * 1000, 1)
    for name, items in chosen.items():
        times, brute_times, mismatches = [], [], 0
        for i, pattern in enumerate(items):
            request = {"query": pattern, "session_id": None, "context_lines": 3, "max_results": 10,
                       "since_ms": since, "until_ms": None}
            t0 = time.perf_counter()
            data = tool.search(store, request, deadline=float("inf"))
            times.append(time.perf_counter() - t0)
            if i < args.brute:
                t0 = time.perf_counter()
                total = brute_force(store, window, pattern)
                brute_times.append(time.perf_counter() - t0)
                mismatches += total != data["total_matches"]
        report["classes"][name] = {"tool": summary(times), "brute_force": summary(brute_times),
                                   "mismatches": mismatches}
    ticks = steal_ticks() - steal0
    report["steal_core_s"] = round(ticks / 100, 2)
    report["seconds"] = round(time.monotonic() - started, 1)
    if args.json:
        print(json.dumps(report, indent=2))
    else:
        print(f"{report['events']:,} events; newest {args.days} days: {report['window_events']:,} transcript events "
              f"(since {report['window_since']}); steal {report['steal_core_s']} core-s in {report['seconds']} s; "
              f"first query (untimed below: starts the workers, maps the chunks) {report['first_query_ms']} ms")
        for name, row in report["classes"].items():
            t, b = row["tool"], row["brute_force"]
            print(f"  {name:<11} tool P50 {t['p50_ms']:>7} ms  P95 {t['p95_ms']:>7} ms  max {t['max_ms']:>7} ms "
                  f"(n={t['n']})   brute force P50 {b['p50_ms']:>8} ms P95 {b['p95_ms']:>8} ms "
                  f"(n={b['n']}); mismatches {row['mismatches']}")
    return 1 if any(row["mismatches"] for row in report["classes"].values()) else 0


if __name__ == "__main__":
    sys.exit(main())
