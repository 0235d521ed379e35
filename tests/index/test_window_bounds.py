"""Window bounds (index/windows.py): every posting stays under its window's bound whatever the
corpus's avgdl becomes, and the global search that skips windows by them ranks exactly as the
naive BM25 reference, through seals, deletions, merges (streaming and in memory) and a
save/load; with other k1/b the bounds are ignored, not misused.

Windows and the frequency threshold are shrunk so a corpus of a few thousand documents has
many windows and many terms with bounds (the defaults give none at this size).
"""

from __future__ import annotations

import random
from pathlib import Path

import numpy as np
import pytest
from _agentlogs import SEARCHABLE
from _bm25_reference import assert_hits_match, index_add, ref_doc, reference_search
from test_bm25_reference import K1, B, Corpus, _assert_same_segment

from moraine.index import searcher, windows
from moraine.index import segment as segment_module
from moraine.index.bm25 import term_scores
from moraine.index.segment import Segment
from moraine.model import TYPE_CODE

SHAPES = [(16, 8), (64, 40), (512, 4096)]


def _corpus(monkeypatch: pytest.MonkeyPatch, window: int, min_tabled: int, seed: int) -> Corpus:
    monkeypatch.setattr(windows, "WINDOW", window)
    monkeypatch.setattr(windows, "MIN_TABLED", min_tabled)
    c = Corpus(seed=seed)
    c.add_docs(2200, seals=5, deletes=40)
    return c


def _bounded_terms(segment: Segment) -> list[int]:
    return [int(i) for i in segment.win_terms]


@pytest.mark.parametrize(("window", "min_tabled"), SHAPES[:2])
def test_every_posting_stays_under_its_window_bound(monkeypatch: pytest.MonkeyPatch, tmp_path: Path,
                                                    window: int, min_tabled: int) -> None:
    c = _corpus(monkeypatch, window, min_tabled, seed=11)
    c.flush()
    c.index.seal()
    live = c.index.live.view
    merged = Segment.merge(c.index.segments[:3], live)
    merged.save(tmp_path / "m")
    checked = 0
    for seg in [*c.index.segments, merged, Segment.load(tmp_path / "m")]:
        meta = seg.win_meta
        assert meta[0] == window and (meta[3], meta[4]) == (K1, B)
        a_ref = float(meta[5])
        lens = dict(zip(seg.doc_ids.tolist(), seg.doc_lens.tolist(), strict=True))
        for i in _bounded_terms(seg):
            row, first, _ = seg.window_bounds(i, (K1, B))
            held, tfs = seg.postings_at(i)
            docs = held.full()
            assert len(docs) >= min_tabled
            dl = np.array([lens[d] for d in docs.tolist()], dtype=np.float64)
            for avgdl in (a_ref / 3, a_ref, a_ref * 2.5):
                weight = 2.2  # idf·(k1 + 1) with idf = 1
                contrib = term_scores(tfs, dl, 1.0, avgdl, K1, B)
                bound = row[docs // window - first] * (max(1.0, avgdl / a_ref) / 255.0) * weight
                assert np.all(contrib <= bound), (i, avgdl)
            # windows the term does not reach have no bound
            assert np.count_nonzero(row) == len(np.unique(docs // window))
            checked += 1
        assert seg.window_bounds(0, (2.0, 0.3)) is None  # other parameters: not these bounds
    assert checked > 20


@pytest.mark.parametrize(("window", "min_tabled"), SHAPES)
def test_window_search_matches_the_reference(monkeypatch: pytest.MonkeyPatch, window: int, min_tabled: int) -> None:
    c = _corpus(monkeypatch, window, min_tabled, seed=window)
    calls = {"windows": 0}
    real = windows.score_windows

    def counting(*args, **kwargs):
        calls["windows"] += 1
        return real(*args, **kwargs)

    monkeypatch.setattr(searcher, "score_windows", counting)
    assert c.check(250, exact_total=False) > 150
    assert calls["windows"] > 120  # the rest: small scopes, searched by probing
    _common_queries_match(c, window)


@pytest.mark.parametrize(("window", "min_tabled"), SHAPES[:2])
@pytest.mark.parametrize("limit", [windows.WHOLE_TERM_LIMIT, 50])
def test_ranking_the_rarest_terms_documents_whole_matches_the_reference(
        monkeypatch: pytest.MonkeyPatch, window: int, min_tabled: int, limit: int) -> None:
    """A query of common terms may rank its rarest term's documents whole, then read only the
    windows where a document lacking that term could still reach the k-th score: forced here
    for every such query (and, with a small limit, refused for many), the ranking is exact."""
    c = _corpus(monkeypatch, window, min_tabled, seed=window + 1)
    monkeypatch.setattr(windows, "SWITCH_AFTER", 0)
    monkeypatch.setattr(windows, "SWITCH_WINDOWS", 0)
    monkeypatch.setattr(windows, "WHOLE_TERM_LIMIT", limit)
    taken = {"whole": 0, "refused": 0}
    real = windows._whole_term

    def counting(*args, **kwargs):
        found = real(*args, **kwargs)
        taken["refused" if found is None else "whole"] += 1
        return found

    monkeypatch.setattr(windows, "_whole_term", counting)
    assert c.check(250, exact_total=False) > 150
    _common_queries_match(c, window)
    if limit == 50:  # terms this common are refused: the windows are read as before
        assert taken["refused"] > 20
    else:
        assert taken["whole"] > 20 and taken["refused"] == 0


@pytest.mark.parametrize(("window", "min_tabled"), SHAPES[:2])
def test_a_rarest_term_without_bounds_is_ranked_whole_before_any_window(
        monkeypatch: pytest.MonkeyPatch, window: int, min_tabled: int) -> None:
    """A query whose rarest term keeps no window bounds ranks that term's documents first, then
    reads only the windows where a document lacking it could still reach the k-th score. The
    later switch is kept from happening, so every term ranked whole here is this path's; with a
    term the index does not hold (the rarest of all, with nothing to rank) as well. A term of
    fewer than k postings (deleted documents' counted) is passed over: ranking it could not set
    a k-th score."""
    c = _corpus(monkeypatch, window, min_tabled, seed=window + 7)
    monkeypatch.setattr(windows, "SWITCH_WINDOWS", 10**9)
    taken: list[tuple[int, bool]] = []  # (the term ranked whole, before any window was read)
    read = {"windows": 0}
    real_whole, real_batch = windows._whole_term, windows._score_batch

    def counting(terms, t, *args, **kwargs):
        taken.append((t, read["windows"] == 0))
        return real_whole(terms, t, *args, **kwargs)

    def batch(terms, wins, *args, **kwargs):
        read["windows"] += len(wins)
        return real_batch(terms, wins, *args, **kwargs)

    monkeypatch.setattr(windows, "_whole_term", counting)
    monkeypatch.setattr(windows, "_score_batch", batch)
    assert c.check(150, exact_total=False) > 90
    c.flush()
    by_df = sorted(c.index.vocab.terms, key=lambda t: -len(c.index.postings(t)[0]))
    count = {t: sum(len(d) for d, _ in c.index.live_parts(t)[0]) for t in by_df}  # deleted documents' too
    rng = random.Random(window)
    everything = set(range(len(SEARCHABLE)))
    for i in range(80):
        taken.clear()
        read["windows"] = 0
        enough = i % 4 != 3
        k = rng.choice([v for v in (1, 3, 5, 10, 30) if v < min_tabled] if enough else [3, 5, 10, 50])
        rare = [t for t in by_df if (k <= count[t] if enough else 0 < count[t] < k) and count[t] < min_tabled]
        terms = [rng.choice(rare), *rng.sample(by_df[:40], rng.randint(1, 5))]
        if i % 3 == 0:
            terms.append("qqqzzzabsent")
        hits = c.search(terms, k, everything, None, exact_total=False)
        assert_hits_match(hits, c.reference(terms, k, everything, None), f"(query {i}: {terms} k={k})",
                          exact_total=False)
        if enough:  # the query's terms are in this order for the search: the first is the rare one
            assert taken == [(0, True)], (i, terms, k, taken)
        else:
            assert all(t != 0 for t, _ in taken), (i, terms, k, taken)


def _common_queries_match(c: Corpus, window: int) -> None:
    """Long queries of common terms: the case the per-window essential terms are for."""
    by_df = sorted(c.index.vocab.terms, key=lambda t: -len(c.index.postings(t)[0]))
    rng = random.Random(window)
    for i in range(40):
        terms = rng.sample(by_df[:50], rng.randint(2, 12)) + rng.sample(by_df[50:], rng.randint(0, 2))
        k = rng.choice((1, 5, 10, 50))
        allowed = {TYPE_CODE[t] for t in SEARCHABLE[:3]} if i % 2 else set(range(len(SEARCHABLE)))
        hits = c.search(terms, k, allowed, None, exact_total=False)
        assert_hits_match(hits, c.reference(terms, k, allowed, None), f"(query {i}: {terms} k={k})",
                          exact_total=False)


def test_window_search_skips_windows(monkeypatch: pytest.MonkeyPatch) -> None:
    """With bounds, a top-10 query of a rare and a common term reads a fraction of the windows."""
    c = _corpus(monkeypatch, 16, 8, seed=3)
    c.flush()
    c.index.seal()
    read: list[int] = []
    real_batch = windows._score_batch

    def batch(terms, wins, *args, **kwargs):
        read.append(len(wins))
        return real_batch(terms, wins, *args, **kwargs)

    monkeypatch.setattr(windows, "_score_batch", batch)
    by_df = sorted(c.index.vocab.terms, key=lambda t: -len(c.index.postings(t)[0]))
    n_windows = -(-len(c.type_codes) // 16)
    fractions = []
    for common in by_df[:10]:
        read.clear()
        hits = c.search([common, by_df[200]], 10, set(range(len(SEARCHABLE))), None, exact_total=False)
        assert len(hits.docs) == 10
        fractions.append(sum(read) / n_windows)
    assert np.median(fractions) < 0.5, fractions


def test_other_parameters_and_old_segments_answer_exactly(monkeypatch: pytest.MonkeyPatch) -> None:
    """k1/b other than the bounds were kept for, and segments without bounds (written before
    them), fall back to exact scoring."""
    c = _corpus(monkeypatch, 16, 8, seed=21)
    assert c.check(80, k1=2.0, b=0.3, exact_total=False) > 40
    for seg in c.index.segments:
        object.__setattr__(seg, "win_meta", np.zeros(0))
    assert c.check(80, exact_total=False) > 40


@pytest.mark.parametrize("chunk", [7, 4_000_000])
def test_streaming_merge_keeps_the_bounds_of_a_merge_in_memory(monkeypatch: pytest.MonkeyPatch, tmp_path: Path,
                                                                chunk: int) -> None:
    monkeypatch.setattr(segment_module, "CHUNK_POSTINGS", chunk)
    c = _corpus(monkeypatch, 16, 8, seed=5)
    c.flush()
    c.index.seal()
    live = c.index.live.view
    streamed = Segment.merge(c.index.segments, live, tmp_path / "merged")
    in_memory = Segment.merge(c.index.segments, live)
    assert len(streamed.win_terms) > 20
    _assert_same_segment(streamed, in_memory)


def test_a_segment_saved_before_window_bounds_loads_without_them(monkeypatch: pytest.MonkeyPatch,
                                                                 tmp_path: Path) -> None:
    """A segment directory without the win_ files (written by an earlier version) loads with no
    bounds, and the index built on it still answers exactly."""
    c = _corpus(monkeypatch, 16, 8, seed=9)
    c.flush()
    c.index.seal()
    loaded = []
    for i, seg in enumerate(c.index.segments):
        seg.save(tmp_path / f"s{i}")
        for name in ("win_terms", "win_g", "win_meta"):
            (tmp_path / f"s{i}" / f"{name}.npy").unlink()
        loaded.append(Segment.load(tmp_path / f"s{i}"))
    assert all(len(seg.win_meta) == 0 and seg.window_bounds(0, (K1, B)) is None for seg in loaded)
    c.index.segments = loaded
    assert c.check(60, exact_total=False) > 30


@pytest.mark.parametrize("window", [16, 512])
def test_postings_found_in_a_batch_are_summed_per_document_as_a_sort_would(
        monkeypatch: pytest.MonkeyPatch, window: int) -> None:
    """`_summed` (a dense slot per document of the batch's windows) gives the documents, their
    sums, bit for bit, and their windows' places that np.unique then bincount gives."""
    monkeypatch.setattr(windows, "WINDOW", window)
    rng = np.random.default_rng(window)
    n_docs = 300 * window
    for _ in range(200):
        wins = np.sort(rng.choice(300, int(rng.integers(1, 40)), replace=False))
        parts = int(rng.integers(1, 5))
        found_docs, found_scores = [], []
        for _ in range(parts):
            count = int(rng.integers(0, 60))
            picked = wins[rng.integers(0, len(wins), count)] * window + rng.integers(0, window, count)
            docs = np.unique(picked).astype(np.int64)
            found_docs.append(docs)
            found_scores.append(rng.random(len(docs)) * 10)
        cand, scores, where = windows._summed(found_docs, found_scores, wins, n_docs)
        want, inverse = np.unique(np.concatenate(found_docs), return_inverse=True)
        want_scores = np.bincount(inverse, weights=np.concatenate(found_scores), minlength=len(want))
        assert np.array_equal(cand, want)
        assert np.array_equal(scores, want_scores)  # the same additions in the same order
        assert np.array_equal(where, np.searchsorted(wins, want // window))


@pytest.mark.parametrize("k", [1, 10, 37])
@pytest.mark.parametrize("switch", [True, False])
def test_thousands_of_tied_documents_rank_the_newest(monkeypatch: pytest.MonkeyPatch, k: int, switch: bool) -> None:
    """A repeated message ties thousands of documents at the top score: a one-term query ranks
    its term whole (forced here, or windows read), and only the newest of the tied reach the
    time-then-uid order. Timestamps repeat too, so the uid decides inside them; the ranking
    equals the reference's."""
    monkeypatch.setattr(windows, "WINDOW", 16)
    monkeypatch.setattr(windows, "MIN_TABLED", 8)
    if switch:
        monkeypatch.setattr(windows, "SWITCH_WINDOWS", 0)
        monkeypatch.setattr(windows, "SOLE_TERM_SHARE", 10**9)
    taken = {"whole": 0}
    real = windows._whole_term

    def counting(*args, **kwargs):
        found = real(*args, **kwargs)
        taken["whole"] += found is not None
        return found

    monkeypatch.setattr(windows, "_whole_term", counting)
    rng = random.Random(k)
    idx = searcher.InvertedIndex()
    texts, ts, uids = [], [], []
    for i in range(3000):
        text = "failures" if rng.random() < 0.7 else f"failures seen in run{i % 50} of the suite"
        doc = idx.reserve_doc()
        index_add(idx, doc, text)
        texts.append(text)
        ts.append(1_760_000_000_000 + rng.randint(0, 40) * 1000)
        uids.append("".join(rng.choice("abcdefghijklmnopqrstuvwxyz234567") for _ in range(26)).encode())
        if i in (900, 2100):
            idx.seal()
    codes = np.zeros(len(texts), np.uint8)
    mask = np.ones(len(TYPE_CODE), dtype=bool)
    for terms in (["failures"], ["failures", "suite"], ["run7"]):
        hits = idx.search(terms, k, k1=K1, b=B, type_codes=codes, allowed_types=mask, tiebreak_ts=np.array(ts),
                          tiebreak_uid=np.array(uids, "S26"), exact_total=False)
        live = [ref_doc(i, t, 0, ts[i], uids[i]) for i, t in enumerate(texts)]
        ref = reference_search([d for d in live if d], terms, k, k1=K1, b=B, allowed_codes={0}, scope=None)
        assert_hits_match(hits, ref, str(terms), exact_total=False)
    assert (taken["whole"] >= 2) == switch  # the two common queries; none without the switch
