"""Benchmark Moraine's tools on a generated corpus, beside reference engines in the same run.

    python tools/bench.py --events 100000 [--queries 300] [--json]

Generates (or reuses) a corpus with tools/make_corpus.py, indexes it into a fresh state
directory as `moraine index` does (ending with a published snapshot, included in the build
time), then times the tool functions exactly as MCP calls them (validation, search,
envelope, text). Reference engines (bm25s, SQLite FTS5) index the same searchable texts
and answer the same queries, so ratios are comparable even on a noisy machine.
"""

from __future__ import annotations

import argparse
import json
import random
import resource
import shutil
import sqlite3
import sys
import tempfile
import time
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from make_corpus import corpus_env, generate
from moraine.config import load_config
from moraine.index.tokenize import query_terms, tokenize
from moraine.ingest.pipeline import ingest_once
from moraine.mcp_server.tools import list_sessions, search_sessions
from moraine.mcp_server.tools import open as open_tool
from moraine.model import DEFAULT_SEARCH_TYPES, TYPE_CODE, format_ts
from moraine.store.engine import Store


def percentiles(samples: list[float]) -> dict[str, float]:
    arr = np.array(samples) * 1000
    return {"p50": float(np.percentile(arr, 50)), "p95": float(np.percentile(arr, 95)),
            "p99": float(np.percentile(arr, 99)), "n": len(samples)}


def timed(fn: Callable[[Any], Any], inputs: list[Any], check: Callable[[Any], None] | None = None) -> dict[str, float]:
    samples = []
    for item in inputs:
        start = time.perf_counter()
        out = fn(item)
        samples.append(time.perf_counter() - start)
        if check:
            check(out)
    return percentiles(samples)


def ok(result: Any) -> None:
    if "error" in result.structured:
        raise SystemExit(f"benchmark call failed: {result.structured['error']}")


def rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def state_parser(doc: str | None) -> argparse.ArgumentParser:
    """The arguments of a benchmark run on an already indexed state: the state, its corpus, and
    how many queries of which seed (the queries this script draws)."""
    parser = argparse.ArgumentParser(description=doc, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--state", type=Path, required=True, help="a state directory `moraine index` published")
    parser.add_argument("--corpus", type=Path, required=True, help="the corpus it indexed (make_corpus.py)")
    parser.add_argument("--queries", type=int, default=300)
    parser.add_argument("--seed", type=int, default=7)
    return parser


def open_state(args: argparse.Namespace) -> Store:
    """The state of `state_parser`'s arguments, opened as a restarted daemon opens it."""
    return Store(load_config({"home": str(args.state)}, env=corpus_env(args.corpus)), create=False)


def make_queries(store: Store, count: int, rng: random.Random) -> list[str]:
    """Queries drawn from real indexed text: 1–4 terms from one searchable event."""
    catalog = store.catalog
    default = np.array([TYPE_CODE[t] for t in DEFAULT_SEARCH_TYPES])
    docs = np.flatnonzero(np.isin(catalog.type_code.view, default) & store.index.live.view)
    queries = []
    while len(queries) < count:
        tokens = [t for t in tokenize(catalog.event(int(rng.choice(docs))).text[:2000]) if t.isascii()]
        if len(tokens) >= 2:
            start = rng.randrange(len(tokens))
            queries.append(" ".join(tokens[start : start + rng.randint(1, 4)]))
    return queries


def reference_engines(store: Store, queries: list[str]) -> tuple[dict[str, dict[str, float]], dict[str, float]]:
    """Latencies of the same queries on reference engines, and how long each took to index
    the same searchable texts (already extracted: no JSON, redaction, WAL or snapshot)."""
    catalog = store.catalog
    default = np.array([TYPE_CODE[t] for t in DEFAULT_SEARCH_TYPES])
    docs = np.flatnonzero(np.isin(catalog.type_code.view, default) & store.index.live.view)
    texts = [catalog.event(int(d)).text for d in docs]
    results: dict[str, dict[str, float]] = {}
    builds: dict[str, float] = {}
    try:
        import bm25s

        started = time.perf_counter()
        retriever = bm25s.BM25()
        retriever.index(bm25s.tokenize(texts, stopwords=None, show_progress=False), show_progress=False)
        builds["bm25s"] = time.perf_counter() - started

        def bm25s_query(q: str) -> Any:
            tokens = bm25s.tokenize([q], stopwords=None, show_progress=False)
            return retriever.retrieve(tokens, k=10, show_progress=False) if tokens.vocab else None

        results["bm25s"] = timed(bm25s_query, queries)
    except ImportError:
        pass
    try:
        started = time.perf_counter()
        tantivy_query = tantivy_engine(texts)
        builds["tantivy"] = time.perf_counter() - started
        results["tantivy"] = timed(tantivy_query, queries)
    except ImportError:
        pass
    started = time.perf_counter()
    db = sqlite3.connect(":memory:")
    db.execute("CREATE VIRTUAL TABLE docs USING fts5(body)")
    db.executemany("INSERT INTO docs(body) VALUES (?)", ((t,) for t in texts))
    builds["sqlite_fts5"] = time.perf_counter() - started

    def fts(q: str) -> Any:
        match = " OR ".join('"' + w.replace('"', "") + '"' for w in q.split())
        return db.execute("SELECT rowid FROM docs WHERE docs MATCH ? ORDER BY bm25(docs) LIMIT 10", (match,)).fetchall()

    results["sqlite_fts5"] = timed(fts, queries)
    return results, builds


def tantivy_engine(texts: Iterable[str]) -> Callable[[str], Any]:
    """tantivy holding `texts` in memory (one text field, its default tokenizer), as a function
    answering a query's top 10; ImportError when tantivy is not installed."""
    import tantivy

    builder = tantivy.SchemaBuilder()
    builder.add_text_field("body", stored=False)
    index = tantivy.Index(builder.build())
    writer = index.writer()
    for text in texts:
        writer.add_document(tantivy.Document(body=text))
    writer.commit()
    index.reload()
    searcher = index.searcher()

    def query(q: str) -> Any:
        words = tantivy_words(q)
        return searcher.search(index.parse_query(words, ["body"]), 10).hits if words else None

    return query


def tantivy_words(q: str) -> str:
    """The query's words for tantivy's parser: no query-syntax characters ('' when none)."""
    return "".join(c if c.isalnum() else " " for c in q).strip()


def cpu_ticks() -> list[int]:
    """Machine-wide CPU time (Linux /proc/stat, 1/100 s): user … steal."""
    try:
        with open("/proc/stat") as fh:
            return [int(v) for v in fh.readline().split()[1:9]]
    except OSError:
        return [0] * 8


def run(events: int, n_queries: int, seed: int, keep: Path | None, pi_share: float = 0.0,
        harness_mix: str | None = None) -> dict[str, Any]:
    rng = random.Random(seed)
    work = Path(tempfile.mkdtemp(prefix="moraine-bench-"))
    corpus = keep or work / "corpus"
    if not (corpus / ".done").exists():
        started = time.perf_counter()
        generated = generate(corpus, events, seed=seed, pi_share=pi_share, harness_mix=harness_mix)
        (corpus / ".done").write_text(json.dumps(generated.get("searchable_events", events)))
        print(f"corpus: {events} searchable events in {time.perf_counter() - started:.1f}s", file=sys.stderr)
    # Every harness folder the corpus may have; one it lacks is no source.
    config = load_config({"home": str(work / "state")}, env=corpus_env(corpus))
    ticks = cpu_ticks()
    started = time.perf_counter()
    store = Store(config)
    summary = ingest_once(store, snapshot=True)  # as `moraine index`: the state ends published
    build_s = time.perf_counter() - started
    spent = [after - before for before, after in zip(ticks, cpu_ticks(), strict=True)]
    report: dict[str, Any] = {
        "events_total": store.stats.events, "searchable_default": 0, "sessions": len(store.catalog.sessions),
        "index_build_s": build_s, "index_events_per_s": store.stats.events / build_s,
        # Core-seconds the hypervisor gave to others (steal) or nobody used (idle) meanwhile.
        "build_cpu_steal_s": spent[7] / 100, "build_cpu_idle_s": spent[3] / 100,
        "bytes_read": summary.bytes_read, "peak_rss_mb_after_index": rss_mb(),
    }
    catalog = store.catalog
    default = np.array([TYPE_CODE[t] for t in DEFAULT_SEARCH_TYPES])
    report["searchable_default"] = int(np.count_nonzero(np.isin(catalog.type_code.view, default)))
    queries = make_queries(store, n_queries, rng)
    sessions = [s for s in catalog.sessions if len(s.docs) > 5]
    picked = [rng.choice(sessions) for _ in range(n_queries)]
    turns = [(s, rng.choice(catalog.turns(s))) for s in picked]
    live = np.flatnonzero(catalog.alive.view)
    event_ids = [catalog.event_id(int(rng.choice(live))) for _ in range(n_queries)]
    lo = min(s.started_ms for s in catalog.sessions)
    hi = max(s.updated_ms for s in catalog.sessions)
    windows = []
    for _ in range(n_queries):
        start = rng.randint(lo, hi)
        windows.append((start, start + rng.choice([1, 3, 7]) * 86_400_000))

    search = search_sessions.run

    def cold(q: str) -> Any:
        store.index.clear_term_cache()  # no cached term scores: as right after an index change
        return search(store, {"query": q})

    # cold: no cached term scores, as right after new events arrive (a live daemon's usual
    # case); global: each query's first run, terms cached across queries; repeat: all warm.
    ticks = cpu_ticks()
    report["search_global_cold"] = timed(cold, queries, ok)
    # The engine alone, as the reference engines are timed (their top 10, no document read): the
    # tool's time above also unpacks each hit's event, turn and session and renders the reply.
    terms = {q: query_terms(q, store.config.bm25.max_query_terms) for q in queries}

    def index_cold(q: str) -> Any:
        store.index.clear_term_cache()
        return store.search(terms[q], 10, list(DEFAULT_SEARCH_TYPES), None, None, exact_total=False)

    report["index_only_cold"] = timed(index_cold, queries)
    compiled_search(store, report, queries, cold, index_cold, ok)
    report["search_global"] = timed(lambda q: search(store, {"query": q}), queries, ok)
    report["search_global_repeat"] = timed(lambda q: search(store, {"query": q}), queries, ok)
    report["search_session"] = timed(
        lambda a: search(store, {"query": a[0], "within_id": a[1].id}), list(zip(queries, picked, strict=True)), ok)
    report["search_turn"] = timed(
        lambda a: search(store, {"query": a[0], "within_id": catalog.turn_id(a[1][0], a[1][1].ordinal)}),
        list(zip(queries, turns, strict=True)), ok)
    report["open_event"] = timed(lambda i: open_tool.run(store, {"id": i}), event_ids, ok)
    report["open_turn"] = timed(lambda st: open_tool.run(store, {"id": catalog.turn_id(st[0], st[1].ordinal)}),
                                turns, ok)
    report["open_session"] = timed(lambda s: open_tool.run(store, {"id": s.id}), picked, ok)
    report["list_sessions"] = timed(
        lambda w: list_sessions.run(store, {"start_datetime": format_ts(w[0]), "end_datetime": format_ts(w[1])}),
        windows, ok)
    report["list_sessions_broad"] = timed(
        lambda w: list_sessions.run(store, {"start_datetime": format_ts(lo), "end_datetime": format_ts(hi + 1),
                                            "limit": 50}), windows[:100], ok)
    report["search_cpu_steal_s"] = (cpu_ticks()[7] - ticks[7]) / 100  # over Moraine's timed calls
    report["reference"], report["reference_index_s"] = reference_engines(store, queries)
    report["peak_rss_mb"] = rss_mb()
    if keep is None:
        shutil.rmtree(work, ignore_errors=True)
    return report


def table(report: dict[str, Any]) -> str:
    rows = ["| operation | P50 ms | P95 ms | P99 ms |", "|---|---:|---:|---:|"]
    keys = ("search_global_cold", "index_only_cold", "search_global_cold_numba", "index_only_cold_numba",
            "search_global", "search_global_repeat", "search_session", "search_turn", "open_event", "open_turn",
            "open_session", "list_sessions", "list_sessions_broad")
    for key in (key for key in keys if key in report):  # the numba rows only where numba is installed
        r = report[key]
        rows.append(f"| {key} | {r['p50']:.2f} | {r['p95']:.2f} | {r['p99']:.2f} |")
    for name, r in report["reference"].items():
        rows.append(f"| reference {name} (global top-10) | {r['p50']:.2f} | {r['p95']:.2f} | {r['p99']:.2f} |")
    rows.append("")
    rows.append(f"events {report['events_total']:,} (default-searchable {report['searchable_default']:,}), "
                f"sessions {report['sessions']:,}; index build {report['index_build_s']:.1f}s = "
                f"{report['index_events_per_s']:,.0f} events/s (CPU steal {report['build_cpu_steal_s']:.1f} "
                f"core-s, idle {report['build_cpu_idle_s']:.1f}); CPU steal while Moraine's calls were timed "
                f"{report['search_cpu_steal_s']:.1f} core-s; peak RSS after the index "
                f"{report['peak_rss_mb_after_index']:.0f} MB, with the reference engines "
                f"{report['peak_rss_mb']:.0f} MB")
    builds = ", ".join(f"{name} {secs:.1f}s" for name, secs in report["reference_index_s"].items())
    rows.append(f"reference engines indexing the {report['searchable_default']:,} extracted texts alone: {builds}")
    return "\n".join(rows)


def compiled_search(store: Store, report: dict[str, Any], queries: list[str], cold: Callable[[str], Any],
                    index_cold: Callable[[str], Any], ok: Callable[[Any], bool]) -> None:
    """The same cold searches with the compiled window search ([search] backend = "numba"), when
    numba is installed: the tool and the engine alone, then back to numpy for the rest."""
    from moraine.index import compiled

    kernel = compiled.load(Path(tempfile.mkdtemp(prefix="moraine-numba-")))
    if kernel is None:
        return
    started = time.perf_counter()
    compiled.warm(kernel)
    report["compiled_warm_s"] = time.perf_counter() - started
    store.use_kernel(kernel)
    try:
        report["search_global_cold_numba"] = timed(cold, queries, ok)
        report["index_only_cold_numba"] = timed(index_cold, queries)
    finally:
        store.use_kernel(None)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--events", type=int, default=100_000, help="searchable events to generate")
    parser.add_argument("--queries", type=int, default=300)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--corpus", type=Path, help="keep/reuse the corpus here")
    parser.add_argument("--pi-share", type=float, default=0.0, help="fraction of sessions written as Pi sessions")
    parser.add_argument("--harness-mix", help="share of each harness, as make_corpus.py takes it ('all', or "
                                              "codex=0.3,claude-code=0.3,…); replaces --pi-share")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    report = run(args.events, args.queries, args.seed, args.corpus, args.pi_share, args.harness_mix)
    print(json.dumps(report, indent=2) if args.json else table(report))


if __name__ == "__main__":
    main()
