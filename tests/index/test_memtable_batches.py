"""Many small `add_texts` batches (one WAL frame each, as a tailing daemon commits them)
must give the same answers as one big batch, and not make queries slow."""

from __future__ import annotations

import time

import numpy as np

from moraine.index.searcher import InvertedIndex
from moraine.model import EVENT_TYPES

N_DOCS = 2000
TERMS = ["alpha", "common", "word7", "text", "here"]


def _texts() -> list[str]:
    return [f"alpha beta gamma word{i % 500} common text here {'extra ' * (i % 7)}" for i in range(N_DOCS)]


def _build(batch: int) -> InvertedIndex:
    idx = InvertedIndex()
    texts = _texts()
    for lo in range(0, N_DOCS, batch):
        docs = np.array([idx.reserve_doc() for _ in texts[lo : lo + batch]], dtype=np.int64)
        idx.add_texts(docs, texts[lo : lo + batch])
    return idx


def _search(idx: InvertedIndex):
    n = idx.doc_len.size
    return idx.search(TERMS, 10, k1=1.2, b=0.75, type_codes=np.zeros(n, np.uint8),
                      allowed_types=np.ones(len(EVENT_TYPES), bool), tiebreak_ts=np.arange(n, dtype=np.int64),
                      tiebreak_uid=np.zeros(n, "S26"))


def _best_time(idx: InvertedIndex, runs: int = 3) -> float:
    best = float("inf")
    for _ in range(runs):
        start = time.perf_counter()
        _search(idx)
        best = min(best, time.perf_counter() - start)
    return best


def test_small_batches_answer_like_one_batch() -> None:
    one = _build(N_DOCS)
    small = _build(1)
    mid = _build(37)
    a, b, c = _search(one), _search(small), _search(mid)
    assert a.total == b.total == c.total == N_DOCS
    assert a.docs.tolist() == b.docs.tolist() == c.docs.tolist()
    assert a.raw.tolist() == b.raw.tolist() == c.raw.tolist()
    for term in [*TERMS, "beta", "extra", "word499"]:
        pa, pb = one.postings(term), small.postings(term)
        assert np.array_equal(pa[0], pb[0]) and np.array_equal(pa[1], pb[1]), term
    # sealing the fragmented memtable gives the same segment as sealing the single batch
    sa, sb = one.seal(), small.seal()
    assert sa is not None and sb is not None
    for name in ("terms", "offsets", "tfs", "doc_ids", "doc_lens"):
        assert np.array_equal(getattr(sa, name), getattr(sb, name)), name
    for name, array in sa.docs.arrays().items():
        assert np.array_equal(array, sb.docs.arrays()[name]), name


def test_many_small_batches_do_not_slow_queries_down() -> None:
    one, small = _build(N_DOCS), _build(1)
    assert _best_time(small) < 10 * max(_best_time(one), 1e-3)
