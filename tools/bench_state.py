"""Search timings on an already indexed state, in a fresh process, beside tantivy in the same run.

    python tools/bench_state.py --state ~/.moraine-1m --corpus /tmp/c1m [--queries 300] [--no-tantivy]

`tools/bench.py` builds its index in the process it measures; at a million events that takes
minutes and leaves the measuring process with the build's memory and page cache. This opens a
published state as a restarted daemon would (mapped segments and contents) and times
search_sessions as MCP calls it, with the queries bench.py draws (same seed): within a session,
within a turn, then global queries with a cold term cache and warm; then tantivy indexes the same
default-searchable texts in memory and answers the same queries, and both are timed again,
alternating, so the ratio holds on a machine whose speed drifts.
"""

from __future__ import annotations

import random
import sys
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench import make_queries, ok, open_state, state_parser, tantivy_engine, timed
from moraine.mcp_server.tools import search_sessions
from moraine.model import DEFAULT_SEARCH_TYPES, TYPE_CODE


def _line(label: str, r: dict[str, float]) -> str:
    return f"{label:16s} P50 {r['p50']:7.2f}  P95 {r['p95']:7.2f}  P99 {r['p99']:7.2f} ms"


def main() -> None:
    parser = state_parser(__doc__)
    parser.add_argument("--no-tantivy", action="store_true")
    args = parser.parse_args()
    store = open_state(args)
    catalog = store.catalog
    rng = random.Random(args.seed)
    queries = make_queries(store, args.queries, rng)
    sessions = [s for s in catalog.sessions if len(s.docs) > 5]
    picked = [rng.choice(sessions) for _ in range(args.queries)]
    turns = [(s, rng.choice(catalog.turns(s))) for s in picked]
    search = search_sessions.run

    def cold(q: str) -> Any:
        store.index.clear_term_cache()
        return search(store, {"query": q})

    def warm(q: str) -> Any:
        return search(store, {"query": q})

    print(_line("within session", timed(lambda a: search(store, {"query": a[0], "within_id": a[1].id}),
                                        list(zip(queries, picked, strict=True)), ok)))
    print(_line("within turn", timed(
        lambda a: search(store, {"query": a[0], "within_id": catalog.turn_id(a[1][0], a[1][1].ordinal)}),
        list(zip(queries, turns, strict=True)), ok)))
    print(_line("global cold", timed(cold, queries, ok)))
    print(_line("global warm", timed(warm, queries, ok)))
    if args.no_tantivy:
        return
    default = np.array([TYPE_CODE[t] for t in DEFAULT_SEARCH_TYPES])
    docs = np.flatnonzero(np.isin(catalog.type_code.view, default) & store.index.live.view)
    tantivy_query = tantivy_engine(catalog.event(doc).text for doc in docs.tolist())

    for _ in range(2):  # alternating rounds: the ratio holds while the machine's speed drifts
        print(_line("tantivy", timed(tantivy_query, queries)))
        print(_line("moraine cold", timed(cold, queries, ok)))
        print(_line("moraine warm", timed(warm, queries, ok)))


if __name__ == "__main__":
    main()
