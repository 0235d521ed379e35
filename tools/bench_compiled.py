"""What compiled inner loops would give the search target (`search_sessions` at or below
tantivy, docs/benchmarks.md): the window search of `index/windows.py` written as one numba
function over Moraine's own segment arrays, beside the engine and tantivy in the same process.

    pip install numba   # not a dependency of Moraine: see below
    python tools/bench_compiled.py --state S --corpus C [--queries 300] [--json]

This is evidence for the design the issue's note names, not part of Moraine. numba (an LLVM JIT)
compiles Python functions to machine code; the project's fixed shape is pure Python with numpy
posting lists, so whether to take it (208 MB with llvmlite, ~2 s to compile the kernel on a
first start unless its cache is kept) is the user's decision. The script says so and exits
when numba is missing.

The kernel reads the state as it is stored: a segment's block-coded doc ids (`index/postings.py`),
its byte frequencies with those above 255 put back, and the window bounds. It visits windows
best bound first and stops at the k-th score, as the engine does; in a window, the terms whose
bounds add up to less than the k-th score are probed at the other terms' documents only
(MaxScore per window). It does not switch to ranking a common term whole, nor break ties by
timestamp: the check is that each query's ten best scores equal the engine's (relative 1e-9).
The query's terms, their statistics and the bound rows are prepared in Python, as the engine
prepares them. A state `moraine index` published has one segment and an empty memtable; the
script reads only such a state.
"""

from __future__ import annotations

import json
import random
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench import make_queries, open_state, state_parser, tantivy_engine, timed
from moraine.index.bm25 import idf, term_scores
from moraine.index.postings import BLOCK
from moraine.index.tokenize import query_terms
from moraine.index.windows import WINDOW, _raise_to
from moraine.model import DEFAULT_SEARCH_TYPES, EVENT_TYPES, TYPE_CODE
from moraine.store.engine import Store

try:
    from numba import njit
except ImportError:  # the evidence needs it; Moraine does not
    sys.exit("bench_compiled.py needs numba (pip install numba); Moraine itself does not use it")

K = 10
SLACK = 1.0 - 1e-12
TF_CAP = 255


@njit(cache=True, nogil=True)
def _block_of(heads: np.ndarray, b0: int, nb: int, doc: int) -> int:
    """The term's block (of nb from b0) that would hold `doc`: the last whose first doc id ≤ doc."""
    lo, hi = 0, nb
    while lo < hi:
        mid = (lo + hi) // 2
        if heads[b0 + mid] <= doc:
            lo = mid + 1
        else:
            hi = mid
    return max(lo - 1, 0)


@njit(cache=True, nogil=True)
def _uncapped(over_at: np.ndarray, over: np.ndarray, pos: int) -> float:
    """The exact frequency of a posting whose byte is capped at TF_CAP (kept apart)."""
    i = np.searchsorted(over_at, pos)
    return float(over[i]) if i < len(over_at) and over_at[i] == pos else float(TF_CAP)


@njit(cache=True, nogil=True)
def _gap(seg: tuple, width: int, at: int) -> int:
    """The gap at position `at` of the stream of that width."""
    return seg[3][at] if width == 1 else (seg[4][at] if width == 2 else seg[5][at])


@njit(cache=True, nogil=True)
def _tf_at(tfs: tuple, pos: int) -> float:
    """A posting's exact frequency: its byte, or the value kept apart when the byte is capped."""
    tf = float(tfs[0][pos])
    return _uncapped(tfs[1], tfs[2], pos) if tf >= TF_CAP else tf


@njit(cache=True, nogil=True)
def _probe(t: int, doc: int, terms: np.ndarray, seg: tuple, tfs: tuple) -> float:
    """Term t's frequency at `doc` (0 where it does not occur): one block decoded up to it."""
    heads, widths, spos = seg[0], seg[1], seg[2]
    b0, nb, n, lo = terms[t, 0], terms[t, 1], terms[t, 2], terms[t, 3]
    blk = _block_of(heads, b0, nb, doc)
    cur, s, wd = np.int64(heads[b0 + blk]), np.int64(spos[b0 + blk]), widths[b0 + blk]
    for j in range(min(BLOCK, n - blk * BLOCK)):
        cur += _gap(seg, wd, s + j) if j else 0
        if cur >= doc:
            return _tf_at(tfs, lo + blk * BLOCK + j) if cur == doc else 0.0
    return 0.0


@njit(cache=True, nogil=True)
def _essential(bounds: np.ndarray, w: int, cut: float, rank: np.ndarray, essential: np.ndarray) -> float:
    """Order the terms by their bound in window w (weakest first, into `rank`); mark those the
    window must read, and return the sum of the others' bounds (what probing can still add)."""
    nt = len(rank)
    for i in range(nt):
        rank[i] = i
    for i in range(1, nt):
        x, j = rank[i], i - 1
        while j >= 0 and bounds[rank[j], w] > bounds[x, w]:
            rank[j + 1] = rank[j]
            j -= 1
        rank[j + 1] = x
    rest = 0.0
    for i in range(nt):
        t = rank[i]
        if rest + bounds[t, w] < cut:
            rest += bounds[t, w]
            essential[t] = False
        else:
            essential[t] = bounds[t, w] > 0.0
    return rest


@njit(cache=True, nogil=True)
def _read_window(w: int, t: int, terms: np.ndarray, weights: np.ndarray, seg: tuple, tfs: tuple,
                 norm: tuple, acc: np.ndarray, seen: np.ndarray) -> None:
    """Add term t's contributions to the allowed documents of window w."""
    heads, widths, spos = seg[0], seg[1], seg[2]
    doc_len, ok, c1, c2 = norm
    b0, nb, n, lo = terms[t, 0], terms[t, 1], terms[t, 2], terms[t, 3]
    first, end = w * WINDOW, (w + 1) * WINDOW
    blk = _block_of(heads, b0, nb, first)
    while blk < nb and heads[b0 + blk] < end:
        doc, s, wd = np.int64(heads[b0 + blk]), np.int64(spos[b0 + blk]), widths[b0 + blk]
        for j in range(min(BLOCK, n - blk * BLOCK)):
            doc += _gap(seg, wd, s + j) if j else 0
            if doc >= end:
                break
            if doc >= first and ok[doc]:
                tf = _tf_at(tfs, lo + blk * BLOCK + j)
                acc[doc - first] += weights[t] * tf / (tf + c1 + c2 * doc_len[doc])
                seen[doc - first] = True
        blk += 1


@njit(cache=True, nogil=True)
def _offer(doc: int, score: float, top_d: np.ndarray, top_s: np.ndarray, size: int) -> int:
    """Keep the K best (doc, score) pairs; returns how many are held."""
    if size < K:
        top_d[size], top_s[size] = doc, score
        return size + 1
    weakest = np.argmin(top_s)
    if score > top_s[weakest]:
        top_d[weakest], top_s[weakest] = doc, score
    return size


@njit(cache=True, nogil=True)
def _search(order: np.ndarray, reach: np.ndarray, bounds: np.ndarray, terms: np.ndarray, weights: np.ndarray,
            seg: tuple, tfs: tuple, norm: tuple, top_d: np.ndarray, top_s: np.ndarray) -> int:
    """The K best documents of the windows in `order` (best bound first), into top_d/top_s."""
    doc_len, _, c1, c2 = norm
    nt = len(weights)
    acc, seen = np.zeros(WINDOW), np.zeros(WINDOW, dtype=np.bool_)
    rank, essential = np.zeros(nt, dtype=np.int64), np.zeros(nt, dtype=np.bool_)
    size = 0
    for w in order:
        cut = top_s[:size].min() * SLACK if size == K else 0.0
        if reach[w] < cut:
            break
        rest = _essential(bounds, w, cut, rank, essential)
        for t in range(nt):
            if essential[t]:
                _read_window(w, t, terms, weights, seg, tfs, norm, acc, seen)
        for i in range(WINDOW):
            if not seen[i]:
                continue
            doc, score = w * WINDOW + i, acc[i]
            acc[i], seen[i] = 0.0, False
            left = rest
            for r in range(nt - 1, -1, -1):  # the probed terms, heaviest first
                if size == K and score + left < cut:
                    break
                t = rank[r]
                if essential[t] or bounds[t, w] <= 0.0:
                    continue
                tf = _probe(t, doc, terms, seg, tfs)
                if tf > 0.0:
                    score += weights[t] * tf / (tf + c1 + c2 * doc_len[doc])
                left -= bounds[t, w]
            if size < K or score + left >= cut:
                size = _offer(doc, score, top_d, top_s, size)
                if size == K:
                    cut = top_s.min() * SLACK
    return size


class Compiled:
    """The compiled search over one published segment, prepared per query as the engine does."""

    def __init__(self, store: Store) -> None:
        index = store.index
        if len(index.segments) != 1 or len(index.mem):
            sys.exit("bench_compiled.py reads a state with one segment and an empty memtable (as `moraine index` "
                     "publishes it)")
        self.store, self.index, self.segment = store, index, index.segments[0]
        blocks = self.segment.docs
        self.seg = tuple(np.ascontiguousarray(a) for a in (blocks.heads, blocks.widths, blocks.spos,
                                                           blocks.d1, blocks.d2, blocks.d4))
        self.tfs = (np.ascontiguousarray(self.segment.tfs), np.ascontiguousarray(self.segment.tf_over_at),
                    np.ascontiguousarray(self.segment.tf_over))
        self.term_blocks = blocks.term_blocks
        self.k1, self.b = store.config.bm25.k1, store.config.bm25.b
        allowed = np.zeros(len(EVENT_TYPES), dtype=bool)
        allowed[[TYPE_CODE[t] for t in DEFAULT_SEARCH_TYPES]] = True
        self.ok = index._allowed_live(allowed, store.catalog.type_code.view)
        self.doc_len = np.ascontiguousarray(index.doc_len.view)
        self.n_windows = (len(self.ok) + WINDOW - 1) // WINDOW
        self.top_d, self.top_s = np.zeros(K, np.int64), np.zeros(K)

    def __call__(self, query: str) -> tuple[np.ndarray, np.ndarray]:
        prepared = self._prepare(query_terms(query, self.store.config.bm25.max_query_terms))
        if prepared is None:
            return np.zeros(0, np.int64), np.zeros(0)
        bounds, terms, weights = prepared
        reach = bounds.sum(axis=0)
        order = np.argsort(-reach)
        order = order[reach[order] > 0]
        avgdl = self.index.avgdl()
        norm = (self.doc_len, self.ok, self.k1 * (1.0 - self.b), self.k1 * self.b / avgdl)
        size = _search(order, reach, bounds, terms, weights, self.seg, self.tfs, norm, self.top_d, self.top_s)
        best = np.argsort(-self.top_s[:size], kind="stable")
        return self.top_d[:size][best].copy(), self.top_s[:size][best].copy()

    def _prepare(self, words: list[str]) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
        """(bound rows, per term (first block, blocks, postings, first posting), weights): the
        bounds and live document frequency as the engine gets them (`InvertedIndex.pieces`)."""
        seg, index, avgdl, k1, b = self.segment, self.index, self.index.avgdl(), self.k1, self.b
        rows, terms, weights = [], [], []
        for word in words:
            pieces, df = index.pieces(word, k1, b)
            if not pieces:
                continue
            (piece,) = pieces  # one segment, no memtable
            i = seg.find(word)
            lo, hi = int(seg.offsets[i]), int(seg.offsets[i + 1])
            term_idf = idf(index.n_docs, df)
            weight = term_idf * (k1 + 1.0)
            row = np.zeros(self.n_windows)
            if piece.bound is None:  # a rare term: its exact best per window
                docs = piece.docs.full().astype(np.int64)
                _raise_to(row, docs // WINDOW, term_scores(piece.tfs, self.doc_len[docs], term_idf, avgdl, k1, b))
            else:
                row[piece.first_window : piece.first_window + len(piece.bound)] = piece.bound * weight
            rows.append(row)
            terms.append((int(self.term_blocks[i]), (hi - lo + BLOCK - 1) // BLOCK, hi - lo, lo))
            weights.append(weight)
        if not rows:
            return None
        return np.vstack(rows), np.array(terms, dtype=np.int64), np.array(weights)


def compare(store: Store, queries: list[str], rounds: int = 3) -> dict[str, Any]:
    compiled = Compiled(store)
    types = list(DEFAULT_SEARCH_TYPES)

    def engine(q: str) -> Any:
        store.index.clear_term_cache()
        return store.search(query_terms(q, store.config.bm25.max_query_terms), K, types, None, None,
                            exact_total=False)

    started = time.perf_counter()
    for q in queries[:1]:
        compiled(q)
    first_call_s = time.perf_counter() - started  # numba loads (or compiles) the kernel
    equal = 0
    for q in queries:
        _, mine = compiled(q)
        theirs = engine(q).raw
        equal += len(mine) == len(theirs) and bool(np.allclose(mine, np.sort(theirs)[::-1], rtol=1e-9, atol=0))
    catalog = store.catalog
    default = np.isin(catalog.type_code.view, [TYPE_CODE[t] for t in DEFAULT_SEARCH_TYPES])
    tantivy = tantivy_engine(catalog.event(int(d)).text for d in np.flatnonzero(default & store.index.live.view))
    engines: dict[str, Callable[[str], Any]] = {"compiled": compiled, "engine": engine, "tantivy": tantivy}
    for q in queries:
        for fn in engines.values():
            fn(q)
    runs: list[dict[str, dict[str, float]]] = []
    for _ in range(rounds):  # each engine over all the queries in turn, as one serves them; rounds alternate
        runs.append({name: timed(fn, queries) for name, fn in engines.items()})
    return {"queries": len(queries), "ten_scores_equal": equal, "first_call_s": first_call_s, "rounds": runs}


def main() -> None:
    parser = state_parser(__doc__)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    store = open_state(args)
    report = compare(store, make_queries(store, args.queries, random.Random(args.seed)))
    if args.json:
        print(json.dumps(report, indent=1))
        return
    print(f"the ten best scores equal the engine's for {report['ten_scores_equal']} of {report['queries']} queries; "
          f"first call {report['first_call_s']:.2f} s (the kernel loaded or compiled)")
    for i, run in enumerate(report["rounds"], 1):
        print(f"round {i}: " + " | ".join(f"{name} {r['p50']:.2f} / {r['p95']:.2f} ms" for name, r in run.items())
              + " (P50 / P95)")


if __name__ == "__main__":
    main()
