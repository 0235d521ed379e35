"""Global search, the engine alone, with `index/windows.py` of another commit against the work
tree's, in one process over alternating rounds, on an already indexed state.

    python tools/bench_windows_ab.py --state ~/.moraine-1m --corpus /tmp/c1m --base 2cc89f4 [--rounds 3] [--show 10]

The window search is where global queries spend their time; a change to it is judged here
rather than by two runs of tools/bench.py, which on this shared machine drift by 10–25% from
one hour to the next. Both versions answer the 300 queries tools/bench.py draws (same seed),
each round with a cold term cache per query, and must return the same top 10 and the same
"more than 10 match" flag; the script stops at the first difference. `--show N` then lists the
N queries the change sped up most and the N it slowed most (median of the rounds).
"""

from __future__ import annotations

import importlib.util
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from types import ModuleType

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import moraine.index.searcher as searcher
import moraine.index.windows as current
from bench import make_queries, open_state, state_parser
from moraine.index.tokenize import query_terms
from moraine.model import DEFAULT_SEARCH_TYPES

REPO = Path(__file__).resolve().parent.parent


def _base_module(commit: str) -> ModuleType:
    source = subprocess.run(["git", "-C", str(REPO), "show", f"{commit}:src/moraine/index/windows.py"],
                            check=True, capture_output=True, text=True).stdout
    path = Path(tempfile.mkdtemp(prefix="moraine-ab-")) / "base_windows.py"
    path.write_text(source)
    spec = importlib.util.spec_from_file_location("base_windows", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["base_windows"] = module
    spec.loader.exec_module(module)
    return module


def main() -> None:
    parser = state_parser(__doc__)
    parser.add_argument("--base", required=True, help="the commit whose index/windows.py is compared")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--show", type=int, default=0, help="list the queries that changed most")
    args = parser.parse_args()
    store = open_state(args)
    texts = make_queries(store, args.queries, random.Random(args.seed))
    queries = [query_terms(q, 32) for q in texts]
    base = _base_module(args.base)

    def run(module: ModuleType) -> tuple[list[float], list[tuple[list[int], bool]]]:
        searcher.score_windows = module.score_windows  # type: ignore[attr-defined]
        times, answers = [], []
        for terms in queries:
            store.index.clear_term_cache()
            started = time.perf_counter()
            hits = store.search(terms, 10, list(DEFAULT_SEARCH_TYPES), None, None, exact_total=False)
            times.append((time.perf_counter() - started) * 1000)
            answers.append((hits.docs.tolist(), hits.total > 10))
        return times, answers

    run(current)  # the state's pages in memory for both
    rounds: list[tuple[list[float], list[float]]] = []
    for round_ in range(args.rounds):
        base_times, base_answers = run(base)
        times, answers = run(current)
        if answers != base_answers:
            sys.exit(f"round {round_}: the two versions answer differently")
        rounds.append((base_times, times))
        print(f"round {round_}: base {args.base} P50 {np.percentile(base_times, 50):.2f} "
              f"P95 {np.percentile(base_times, 95):.2f} ms; work tree P50 {np.percentile(times, 50):.2f} "
              f"P95 {np.percentile(times, 95):.2f} ms (same answers)", flush=True)
    searcher.score_windows = current.score_windows
    if args.show:
        _show_changes(texts, rounds, args.show)


def _show_changes(texts: list[str], rounds: list[tuple[list[float], list[float]]], n: int) -> None:
    base = np.median([r[0] for r in rounds], axis=0)
    work = np.median([r[1] for r in rounds], axis=0)
    order = np.argsort(work - base)
    for label, picked in (("sped up most", order[:n]), ("slowed most", order[::-1][:n])):
        print(f"{label} (base ms -> work tree ms):")
        for i in picked.tolist():
            print(f"  {base[i]:7.2f} -> {work[i]:7.2f}  {texts[i]}")


if __name__ == "__main__":
    main()
