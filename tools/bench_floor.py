"""What any pure-Python build and numpy query must pay, beside tantivy in the same run: the
evidence for the two targets this design does not reach (`search_sessions` at or below tantivy;
a build of 25k events/s within 5× tantivy's: docs/benchmarks.md, Targets).

    python tools/bench_floor.py --state ~/.moraine-100k --corpus /tmp/c100k [--queries 300] [--json]

Build. tantivy indexes the default-searchable texts, already extracted; the script times that,
then the steps no Python build of the same logs can skip, each alone on one core: reading
every log and `orjson.loads` of every line, the redaction gate (one RE2 search per text), and
tokenizing (the compound regex alone, and Moraine's tokenizer: a fresh vocabulary, then warm)
of the same searchable texts tantivy got, and of every indexed text. Their sum, spread over
both cores, against 5x tantivy's build ("within 5x tantivy's build time") and against the
25k events/s target.

Search. The engine alone (cold term cache, the 300 queries tools/bench.py draws) is counted in
calls: C functions (numpy's) and Python functions per query. Times the cheapest numpy call on
this machine, so calls x that is what the query's structure costs before any work, against
tantivy's whole query on the same texts. Then the tool without its search: search_sessions
with `Store.search` answering from a record of its own earlier answers, so what is timed is
everything the tool does around the engine (checking the arguments, tokenizing the query,
rendering the hits with their snippets, the envelope and its text). No engine, however fast,
brings the tool under that.
"""

from __future__ import annotations

import gc
import json
import random
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import orjson

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench import make_queries, ok, open_state, state_parser, tantivy_engine, timed
from moraine.collector import YOUNG_THRESHOLD
from moraine.index.tokenize import _COMPOUND, query_terms
from moraine.index.vocab import Vocabulary
from moraine.mcp_server.tools import search_sessions
from moraine.model import DEFAULT_SEARCH_TYPES, TYPE_CODE
from moraine.redaction.redact import any_evidence
from moraine.store.engine import Store


def _cpu(fn: Callable[[], Any]) -> float:
    started = time.process_time()
    fn()
    return time.process_time() - started


def _each(fn: Callable[[Any], Any], items: list[Any]) -> None:
    """`fn` of every item, each result dropped at once as a parse worker drops a record's (a
    list of 300k parsed records kept alive makes the cyclic GC rescan them: 4.2 s against 0.5)."""
    for item in items:
        fn(item)


def _batched(vocab: Vocabulary, texts: list[str]) -> None:
    """Tokenized as the indexing process does, a batch of BATCH texts at a time (one call over
    a million texts holds every word of them at once: 3x slower)."""
    for start in range(0, len(texts), BATCH):
        vocab.encode(texts[start : start + BATCH])


BATCH = 2000  # the events of one WAL frame (config ingest.batch_events)


def _lines(corpus: Path) -> list[bytes]:
    lines: list[bytes] = []
    for path in sorted(corpus.rglob("*.jsonl")):
        lines.extend(line for line in path.read_bytes().split(b"\n") if line)
    return lines


def build_floor(store: Store, corpus: Path, searchable: list[str]) -> tuple[Callable[[str], Any], dict[str, Any]]:
    """The build's floor, and tantivy's query function over the texts it indexed (timed)."""
    catalog = store.catalog
    indexed = [catalog.event(int(d)).text for d in np.flatnonzero(store.index.live.view)]
    gc.freeze()
    engines: list[Callable[[str], Any]] = []
    wall = time.perf_counter()
    cpu = _cpu(lambda: engines.append(tantivy_engine(searchable)))
    tantivy = {"wall_s": time.perf_counter() - wall, "cpu_s": cpu}
    lines: list[bytes] = []
    steps = {"read the logs": _cpu(lambda: lines.extend(_lines(corpus)))}
    steps["orjson.loads every line"] = _cpu(lambda: _each(orjson.loads, lines))
    encoded = [t.encode("utf-8", "surrogatepass") for t in indexed]
    steps["redaction gate, every indexed text"] = _cpu(lambda: _each(any_evidence().search, encoded))
    steps["compound regex, searchable texts"] = _cpu(lambda: _each(_COMPOUND.findall, searchable))
    vocab = Vocabulary()
    steps["tokenizer (fresh), searchable texts"] = _cpu(lambda: _batched(vocab, searchable))
    steps["tokenizer (warm), searchable texts"] = _cpu(lambda: _batched(vocab, searchable))
    steps["tokenizer (fresh), every indexed text"] = _cpu(lambda: _batched(Vocabulary(), indexed))
    floor = sum(steps[s] for s in ("read the logs", "orjson.loads every line", "redaction gate, every indexed text",
                                   "tokenizer (fresh), every indexed text"))
    events = int(catalog.uid.size)
    return engines[0], {"searchable_texts": len(searchable), "searchable_mb": sum(map(len, searchable)) / 1e6,
            "indexed_texts": len(indexed), "events": events, "log_lines": len(lines), "tantivy": tantivy,
            "steps_cpu_s": steps, "floor_cpu_s": floor, "floor_wall_s_on_2_cores": floor / 2,
            "five_x_tantivy_wall_s": 5 * tantivy["wall_s"], "wall_s_at_25k_events_per_s": events / 25_000}


def search_floor(store: Store, queries: list[str], tantivy_query: Callable[[str], Any]) -> dict[str, Any]:
    types = list(DEFAULT_SEARCH_TYPES)

    def cold(q: str) -> Any:
        store.index.clear_term_cache()
        return store.search(query_terms(q, 16), 11, types, None, None, exact_total=False)

    for q in queries:
        cold(q)
    c_calls, py_calls = [], []
    for q in queries:
        counted = [0, 0]

        def count(frame: Any, event: str, arg: Any, counted: list[int] = counted) -> None:
            counted[0] += event == "c_call"
            counted[1] += event == "call"

        sys.setprofile(count)
        cold(q)
        sys.setprofile(None)
        c_calls.append(counted[0])
        py_calls.append(counted[1])
    small = np.arange(64)
    started = time.perf_counter()
    for _ in range(100_000):
        np.add(small, 1)
    cheapest_us = (time.perf_counter() - started) * 10
    tantivy = timed(tantivy_query, queries)
    engine = timed(cold, queries)
    around = around_the_engine(store, queries)
    c50, c95 = float(np.percentile(c_calls, 50)), float(np.percentile(c_calls, 95))
    return {"c_calls_p50": c50, "c_calls_p95": c95, "python_calls_p50": float(np.percentile(py_calls, 50)),
            "python_calls_p95": float(np.percentile(py_calls, 95)), "cheapest_numpy_call_us": cheapest_us,
            "call_overhead_ms_p50": c50 * cheapest_us / 1000, "call_overhead_ms_p95": c95 * cheapest_us / 1000,
            "engine_ms": engine, "tantivy_ms": tantivy, "tool_without_search_ms": around}


def around_the_engine(store: Store, queries: list[str]) -> dict[str, float]:
    """search_sessions' time with its search answered from a record (see the module's docstring)."""
    search = store.search
    recorded: dict[tuple[str, ...], Any] = {}

    def recording(terms: list[str], *args: Any, **kwargs: Any) -> Any:
        recorded[tuple(terms)] = hits = search(terms, *args, **kwargs)
        return hits

    def replaying(terms: list[str], *args: Any, **kwargs: Any) -> Any:
        return recorded[tuple(terms)]

    try:
        store.search = recording  # type: ignore[method-assign]
        for q in queries:
            search_sessions.run(store, {"query": q})
        store.search = replaying  # type: ignore[method-assign]
        return timed(lambda q: search_sessions.run(store, {"query": q}), queries, ok)
    finally:
        del store.search  # the class's method again


def main() -> None:
    parser = state_parser(__doc__)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    store = open_state(args)
    queries = make_queries(store, args.queries, random.Random(args.seed))
    gc.freeze()  # as a pass runs: what the store holds is never rescanned (moraine/collector.py)
    gc.set_threshold(YOUNG_THRESHOLD, *gc.get_threshold()[1:])
    catalog = store.catalog
    default = np.isin(catalog.type_code.view, [TYPE_CODE[t] for t in DEFAULT_SEARCH_TYPES])
    searchable = [catalog.event(int(d)).text for d in np.flatnonzero(default & store.index.live.view)]
    tantivy_query, build = build_floor(store, args.corpus, searchable)
    report = {"build": build, "search": search_floor(store, queries, tantivy_query)}
    if args.json:
        print(json.dumps(report, indent=1))
        return
    b, s = report["build"], report["search"]
    print(f"build: {b['events']:,} events, {b['log_lines']:,} log lines; tantivy indexed the "
          f"{b['searchable_texts']:,} searchable texts ({b['searchable_mb']:.0f} MB) in {b['tantivy']['wall_s']:.2f} s "
          f"wall ({b['tantivy']['cpu_s']:.2f} s CPU)")
    for step, cpu in b["steps_cpu_s"].items():
        print(f"  {step:40s} {cpu:7.2f} s CPU")
    print(f"  floor (read, parse, gate, tokenize every indexed text): {b['floor_cpu_s']:.2f} s CPU = "
          f"{b['floor_wall_s_on_2_cores']:.2f} s on 2 cores; 5x tantivy allows {b['five_x_tantivy_wall_s']:.2f} s, "
          f"25k events/s {b['wall_s_at_25k_events_per_s']:.2f} s")
    e, t = s["engine_ms"], s["tantivy_ms"]
    print(f"search: C calls per query P50 {s['c_calls_p50']:.0f} / P95 {s['c_calls_p95']:.0f}, Python calls "
          f"{s['python_calls_p50']:.0f} / {s['python_calls_p95']:.0f}; the cheapest numpy call "
          f"{s['cheapest_numpy_call_us']:.2f} us, so {s['call_overhead_ms_p50']:.2f} / "
          f"{s['call_overhead_ms_p95']:.2f} ms of calls alone; engine {e['p50']:.2f} / {e['p95']:.2f} ms, "
          f"tantivy {t['p50']:.2f} / {t['p95']:.2f} ms "
          f"(P50 / P95)")
    a = s["tool_without_search_ms"]
    print(f"search_sessions without its search (the hits given): {a['p50']:.2f} / {a['p95']:.2f} ms, "
          f"{a['p50'] / t['p50']:.1f}x / {a['p95'] / t['p95']:.1f}x tantivy's whole query")


if __name__ == "__main__":
    main()
