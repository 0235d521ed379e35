"""The compiled window search (`index/compiled.py`, numba) answers exactly as the numpy path
(`index/windows.py`), the reference: over a thousand seeded queries of every shape (rare,
common, many-term, type-filtered, scoped, every k), on an index with several segments, a
memtable, deletions, terms with and without window bounds, the same documents in the same
order with the same scores (relative 1e-9), and the same answer to "are there more than k?".

Runs with whichever backends are installed: without numba it is skipped (CI installs it)."""

from __future__ import annotations

import random
import time
from collections import Counter
from functools import cache
from pathlib import Path
from types import ModuleType
from typing import Any

import numpy as np
import pytest
from _agentlogs import LogWriter, populate
from test_bm25_reference import Corpus

from moraine.errors import DeadlineExceeded
from moraine.index import compiled, windows
from moraine.ingest.pipeline import ingest_once
from moraine.store.engine import Store
from moraine.store.state import State

pytestmark = pytest.mark.skipif(not compiled.available(), reason="numba is not installed (pip install '.[fast]')")


@pytest.fixture(scope="module")
def kernel(tmp_path_factory: pytest.TempPathFactory) -> ModuleType:
    loaded = compiled.load(tmp_path_factory.mktemp("numba-cache"))
    assert loaded is not None
    compiled.warm(loaded)
    return loaded

QUERIES = 1100


@pytest.fixture(scope="module")
def corpus() -> Corpus:
    """~14k documents over 900 words (Zipf), five seals, deletions, a memtable; terms with 64
    postings in a segment keep window bounds (the default 4,096 would give almost none here)."""
    keep = windows.MIN_TABLED
    windows.MIN_TABLED = 64
    try:
        c = Corpus(seed=20261128)
        c.add_docs(14_000, seals=5, deletes=120)
        c.flush()
    finally:
        windows.MIN_TABLED = keep
    return c


@cache
def _by_frequency(c: Corpus) -> list[str]:
    """The corpus's words, most documents first."""
    counts: Counter[str] = Counter()
    for text in c.indexed_text.values():
        counts.update(set(text.lower().split()))
    return [w for w, _ in counts.most_common() if w.isalpha()]


def _request(c: Corpus, rng: random.Random, shape: str) -> tuple[list[str], int, set[int], np.ndarray | None]:
    terms, k, allowed, scope = c.random_request()
    words = _by_frequency(c)
    if shape == "common":
        terms = list(dict.fromkeys(rng.sample(words[:30], rng.randint(1, 3))))
    elif shape == "many":
        terms = list(dict.fromkeys(terms + rng.sample(words[:300], 6)))
    elif shape == "rare":
        terms = list(dict.fromkeys([rng.choice(words[-300:]), *rng.sample(words[:100], rng.randint(0, 2))]))
    if scope is not None and len(scope) < len(c.type_codes) // 8:
        scope = None  # a small scope is probed, not searched by windows: nothing to compare
    return terms, k, allowed, scope


def _both(c: Corpus, kernel: ModuleType, terms: list[str], k: int, allowed: set[int], scope: np.ndarray | None
          ) -> tuple:
    c.index.kernel = None
    numpy_hits = c.search(terms, k, allowed, scope, exact_total=False)
    c.index.kernel = kernel
    try:
        compiled_hits = c.search(terms, k, allowed, scope, exact_total=False)
    finally:
        c.index.kernel = None
    return numpy_hits, compiled_hits


def test_the_index_has_every_part_the_kernel_reads(corpus: Corpus) -> None:
    index = corpus.index
    assert len(index.segments) >= 5 and len(index.mem) > 0 and index.deletions > 0
    assert sum(len(s.win_terms) for s in index.segments) > 50  # terms read by blocks and bounds


def test_a_thousand_queries_answer_as_the_numpy_path(corpus: Corpus, kernel: ModuleType) -> None:
    rng = random.Random(7)
    shapes = ("random", "common", "many", "rare")
    compared = with_hits = through_kernel = 0
    real = compiled.score_windows
    calls = {"n": 0}

    def counting(*args, **kwargs):
        calls["n"] += 1
        return real(*args, **kwargs)

    compiled.score_windows = counting
    try:
        for i in range(QUERIES):
            terms, k, allowed, scope = _request(corpus, rng, shapes[i % len(shapes)])
            ours, theirs = _both(corpus, kernel, terms, k, allowed, scope)
            context = f"query {i}: {terms} k={k} types={sorted(allowed)} scope={None if scope is None else len(scope)}"
            assert theirs.docs.tolist() == ours.docs.tolist(), context
            np.testing.assert_allclose(theirs.raw, ours.raw, rtol=1e-9, atol=0, err_msg=context)
            assert (theirs.total > k) == (ours.total > k), context
            compared += 1
            with_hits += bool(len(ours.docs))
    finally:
        compiled.score_windows = real
    through_kernel = calls["n"]
    assert compared == QUERIES and with_hits > 800
    assert through_kernel > 700  # the rest: k beyond the matches, too many postings without bounds


def test_a_query_of_common_words_ranks_its_rarest_term_whole_and_answers_alike(
        corpus: Corpus, kernel: ModuleType, monkeypatch: pytest.MonkeyPatch) -> None:
    """A query whose windows cannot be skipped (most still reach the k-th score after the first
    ones read) ranks its rarest term's documents at once (`kernel.whole_term`), then reads only
    the windows where a document lacking that term can still reach the k-th score. The
    thresholds are lowered to this corpus's 28 windows."""
    monkeypatch.setattr(compiled, "SWITCH_AFTER", 2)
    monkeypatch.setattr(windows, "SWITCH_WINDOWS", 2)
    real = compiled._Run._whole
    outcomes: Counter[str] = Counter()

    def counting(self, *args, **kwargs):
        outcomes["whole"] += 1
        outcomes["without a k-th score yet"] += self.theta == 0.0
        return real(self, *args, **kwargs)

    monkeypatch.setattr(compiled._Run, "_whole", counting)
    rng = random.Random(11)
    for i in range(300):
        terms, k, allowed, scope = _request(corpus, rng, ("common", "many", "random")[i % 3])
        before = outcomes["whole"]
        ours, theirs = _both(corpus, kernel, terms, k, allowed, scope)
        outcomes["windows" if outcomes["whole"] == before else "queries ranked whole"] += 1
        context = f"query {i}: {terms} k={k}"
        assert theirs.docs.tolist() == ours.docs.tolist(), context
        np.testing.assert_allclose(theirs.raw, ours.raw, rtol=1e-9, atol=0, err_msg=context)
        assert (theirs.total > k) == (ours.total > k), context
    assert outcomes["queries ranked whole"] > 30 and outcomes["windows"] > 30, outcomes
    assert outcomes["without a k-th score yet"] > 0, outcomes


def test_a_deadline_is_kept_between_batches_of_windows(corpus: Corpus, kernel: ModuleType) -> None:
    """The kernel runs a batch of windows per call and the deadline is checked between calls."""
    type_codes = corpus.columns()[0]
    terms = _by_frequency(corpus)[:2]
    parts = [(1.0, corpus.index.parts(term, 1.2, 0.75)[0]) for term in terms]
    ok = np.ones(len(type_codes), dtype=bool)
    doc_len = corpus.index.doc_len.view
    found = compiled.score_windows(kernel, parts, ok, doc_len, 10, 1.2, 0.75, corpus.index.avgdl(), None)
    assert len(found[0]) >= 10
    with pytest.raises(DeadlineExceeded):
        compiled.score_windows(kernel, parts, ok, doc_len, 10, 1.2, 0.75, corpus.index.avgdl(), time.monotonic() - 1)


def test_the_store_keeps_the_kernel_through_reloads(tmp_path: Path, kernel: ModuleType,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    """`use_kernel` holds for the state loaded again (another process's snapshot), even when it
    was called while that state was loading."""
    writer = LogWriter(tmp_path / "logs", seed=3)
    populate(writer, n_codex=2, n_claude=2, records_per_file=(10, 20))
    store = Store(writer.config(tmp_path / "state"))
    ingest_once(store, snapshot=True)
    load = Store._loaded

    def loading_then_kernel(self: Store, guard: Any) -> State:
        fresh = load(self, guard)
        store.use_kernel(kernel)  # while the fresh state loads aside, the daemon's thread calls
        return fresh

    monkeypatch.setattr(Store, "_loaded", loading_then_kernel)
    with store.writer():
        store._reload_aside()
    assert store.kernel is kernel and store.index.kernel is kernel
    monkeypatch.setattr(Store, "_loaded", load)
    with store.writer():
        store._reload_aside()
    assert store.index.kernel is kernel


def test_a_cache_made_for_another_kernel_is_compiled_again_by_the_child(tmp_path: Path) -> None:
    """A cache left by another version of the kernel (an upgrade) is not loaded as it is: numba
    would then compile in the daemon itself, holding the GIL for a minute. The stamp that the
    compiling child writes last says for which source, numba and Python the cache was made."""
    import os
    import shutil
    import subprocess
    import sys

    shared = Path(os.environ["NUMBA_CACHE_DIR"])  # compiled for this run (tests/conftest.py)
    cache = tmp_path / "cache"
    shutil.copytree(shared, cache)
    stamp = cache / compiled.STAMP_FILE
    current = stamp.read_text()
    stamp.write_text(current.replace("numba", "numba-old"))
    code = ("import sys, time; from pathlib import Path; from moraine.index import compiled; "
            "t = time.monotonic(); compiled.prepare(Path(sys.argv[1])); print(time.monotonic() - t)")
    env = {k: v for k, v in os.environ.items() if k != "NUMBA_CACHE_DIR"}
    subprocess.run([sys.executable, "-c", code, str(cache)], env=env, check=True, capture_output=True, timeout=600)
    assert stamp.read_text() == current  # the child ran and stamped it for this kernel
    stamp.unlink()  # a cache without a stamp (a child killed mid-compile) is compiled again too
    subprocess.run([sys.executable, "-c", code, str(cache)], env=env, check=True, capture_output=True, timeout=600)
    assert stamp.read_text() == current
