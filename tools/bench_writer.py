"""What the writer costs a daemon's tool calls: search latency while it ingests, publishes, merges.

    python tools/bench_writer.py --state DIR --corpus DIR [--cycles 6] [--merge] [--json]
    python tools/bench_writer.py --backfill --corpus DIR [--json]

A daemon serves tool calls on connection threads while its ingest thread commits frames,
publishes a snapshot (every `daemon.snapshot_interval_s`, or `store.snapshot_events`) and
merges segments. This opens a built state (`moraine index` of a generated corpus, e.g. by
tools/bench.py) from a scratch copy (hard links for the immutable files, copies of the WAL and
the pointer), then runs two threads as the daemon does:

- a reader calling search_sessions through `ToolRunner` (as MCP calls it) in a loop, with
  queries drawn from indexed text;
- a writer that, `--cycles` times, commits a frame of 2,000 new events and publishes (a
  segment sealed and saved, a content chunk written, the generation written); with `--merge`
  it then merges every segment into one (the end of a backfill).

It prints the calls' latency P50 / P95 / max over the whole run and over the writer's busy
spans, the calls slower than the tool's 750 ms budget, and each publish's and merge's wall
time: how long a tool call can wait behind the writer.

With `--backfill`, the writer is instead a daemon's first pass over the corpus into a fresh
state (`ingest_once`, parse workers and all, ending merged and published), and the reader
starts as soon as the state is open, with fixed queries of words the corpus generator uses:
what an agent gets while Moraine indexes a heavy user's history for the first time.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench import make_queries
from make_corpus import corpus_env
from moraine.config import load_config
from moraine.ingest.pipeline import ingest_once
from moraine.mcp_server.runner import ToolRunner
from moraine.model import EVENT_TYPES, Event, make_uid
from moraine.store.engine import Store

FRAME_EVENTS = 2_000
WORDS = ("migration", "fix", "schema", "retry", "socket", "cache", "deploy", "parser", "window", "index")


def scratch_copy(state: Path, into: Path) -> Path:
    """The state as a new directory: immutable files linked, the appended and replaced ones copied."""
    def link_or_copy(src: str, dst: str) -> None:
        rel = Path(src).relative_to(state)
        if rel.parts[0] in ("wal", "CURRENT", "lock", "verified.json"):
            shutil.copy2(src, dst)
        else:
            os.link(src, dst)

    shutil.copytree(state, into, copy_function=link_or_copy)
    return into


def new_rows(rng: random.Random, cycle: int) -> list[list[Any]]:
    rows = []
    for i in range(FRAME_EVENTS):
        text = " ".join(rng.choice(WORDS) for _ in range(12))
        event = Event(uid=make_uid("bench-publish", cycle, i), session_key=f"codex:bench-{cycle}-{i // 200}",
                      source="codex", type=rng.choice(EVENT_TYPES[:2]), ts_ms=1_770_000_000_000 + i, text=text,
                      starts_turn=i % 10 == 0, file=f"/bench/{cycle}.jsonl", line=i + 1, offset=i * 100)
        rows.append(event.to_wire())
    return rows


class Reader:
    """search_sessions called in a loop on a thread, as a daemon's connection thread serves an
    agent: each call's start and duration, and the error codes met."""

    def __init__(self, runner: ToolRunner, queries: list[str], pause: float) -> None:
        self.runner, self.queries, self.pause = runner, queries, pause
        self.calls: list[tuple[float, float]] = []  # (start, seconds)
        self.errors: dict[str, int] = {}
        self.done = threading.Event()
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _run(self) -> None:
        i = 0
        while not self.done.is_set():
            started = time.monotonic()
            result = self.runner.call("search_sessions", {"query": self.queries[i % len(self.queries)]})
            self.calls.append((started, time.monotonic() - started))
            if "error" in result.structured:
                code = str(result.structured["error"].get("code"))
                self.errors[code] = self.errors.get(code, 0) + 1
            i += 1
            time.sleep(self.pause)

    def stop(self) -> list[tuple[float, float]]:
        self.done.set()
        self.thread.join()
        return self.calls


def summary(samples: list[float]) -> dict[str, float]:
    if not samples:
        return {"n": 0}
    arr = np.array(samples) * 1000
    return {"p50": round(float(np.percentile(arr, 50)), 2), "p95": round(float(np.percentile(arr, 95)), 2),
            "max": round(float(arr.max()), 1), "over_750ms": int(np.count_nonzero(arr > 750)), "n": len(arr)}


def _when(start: float, busy: list[tuple[str, float, float]]) -> str:
    """Where a call started, relative to the writer's nearest span."""
    what, a, b = min(busy, key=lambda span: min(abs(start - span[1]), abs(start - span[2])))
    return f"{start - a:+.2f} s from the start of a {what} of {b - a:.2f} s"


def run(state: Path, corpus: Path, cycles: int, merge: bool) -> dict[str, Any]:
    work = Path(tempfile.mkdtemp(prefix="moraine-bench-writer-"))
    try:
        home = scratch_copy(state, work / "state")
        config = load_config({"home": str(home)}, env=corpus_env(corpus))
        store = Store(config, create=False)
        runner = ToolRunner(lambda: store, serial=False)
        queries = make_queries(store, 200, random.Random(7))
        reader = Reader(runner, queries, pause=0.0)
        busy: list[tuple[str, float, float]] = []  # (what, start, end)
        rng = random.Random(11)
        time.sleep(2.0)
        for cycle in range(cycles):
            rows = new_rows(rng, cycle)
            with store.writer():
                store.commit(rows, [], {})
                started = time.monotonic()
                store.publish()
                busy.append(("publish", started, time.monotonic()))
            time.sleep(1.0)
        if merge:
            with store.writer():
                started = time.monotonic()
                store.merge_all()
                busy.append(("merge_all", started, time.monotonic()))
            time.sleep(1.0)
        calls = reader.stop()
        during = [s for start, s in calls if any(a <= start + s and start <= b for _, a, b in busy)]
        slowest = sorted(calls, key=lambda c: -c[1])[:5]
        return {"calls": summary([s for _, s in calls]), "calls_during_writer": summary(during),
                "errors": reader.errors,
                "slowest_ms": [(round(s * 1000, 1), _when(start, busy)) for start, s in slowest],
                "writer_s": [(what, round(b - a, 2)) for what, a, b in busy],
                "events": store.stats.events, "segments": len(store.index.segments)}
    finally:
        shutil.rmtree(work, ignore_errors=True)


BACKFILL_QUERIES = ["error", "fix the migration", "test failed", "retry socket timeout", "parser window",
                    "cache index", "deploy", "schema change", "stale output", "handler before the"]


def run_backfill(corpus: Path) -> dict[str, Any]:
    work = Path(tempfile.mkdtemp(prefix="moraine-bench-backfill-"))
    try:
        store = Store(load_config({"home": str(work / "state")}, env=corpus_env(corpus)))
        runner = ToolRunner(lambda: store, serial=False)
        reader = Reader(runner, BACKFILL_QUERIES, pause=0.01)  # an agent's calls come one after another
        started = time.monotonic()
        ingest_once(store)
        busy = [("backfill", started, time.monotonic())]
        calls = reader.stop()
        slowest = sorted(calls, key=lambda c: -c[1])[:5]
        return {"calls_during_backfill": summary([s for _, s in calls]), "errors": reader.errors,
                "slowest_ms": [(round(s * 1000, 1), _when(start, busy)) for start, s in slowest],
                "backfill_s": round(busy[0][2] - busy[0][1], 1), "events": store.stats.events}
    finally:
        shutil.rmtree(work, ignore_errors=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--state", type=Path, help="a built state directory (left unchanged)")
    parser.add_argument("--corpus", type=Path, required=True, help="the corpus it was built from")
    parser.add_argument("--cycles", type=int, default=6)
    parser.add_argument("--merge", action="store_true", help="end with a merge of every segment")
    parser.add_argument("--backfill", action="store_true", help="time calls during a first pass instead")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    if args.backfill:
        report = run_backfill(args.corpus)
    elif args.state is None:
        parser.error("--state is required without --backfill")
    else:
        report = run(args.state, args.corpus, args.cycles, args.merge)
    if args.json:
        print(json.dumps(report))
    else:
        for key, value in report.items():
            print(f"{key}: {value}")


if __name__ == "__main__":  # the parse workers import this module
    main()
