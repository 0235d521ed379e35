"""InvertedIndex.search against a naive BM25 reference, on a seeded random corpus.

The corpus is fed straight into `InvertedIndex` the way the Store does it (every event
reserves a doc id, only indexable ones get postings), sealed at random points so several
segments and a memtable coexist, with tombstones in both. Every query is checked for the
exact ranking, raw and normalized scores, and `total`.
"""

from __future__ import annotations

import random
import string
from pathlib import Path

import numpy as np
import pytest
from _agentlogs import SEARCHABLE, TextMaker, make_vocabulary
from _bm25_reference import RefDoc, assert_hits_match, distinct_terms, index_add, ref_doc, reference_search

from moraine.index.postings import ARRAYS as BLOCK_ARRAYS
from moraine.index.searcher import InvertedIndex
from moraine.index.segment import ARRAYS, Segment
from moraine.index.segment_files import TERM_FILES
from moraine.index.tokenize import tokenize
from moraine.model import EVENT_TYPES, TYPE_CODE

UNKNOWN = TYPE_CODE["unknown"]
K1, B = 1.2, 0.75
_B32 = string.ascii_lowercase + "234567"


class Corpus:
    """An InvertedIndex plus the per-doc metadata columns and the reference's live docs."""

    def __init__(self, seed: int, batched: bool = False) -> None:
        self.rng = random.Random(seed)
        self.batched = batched  # feed documents through `add_texts` in random-size batches
        self.pending: list[tuple[int, str]] = []
        self.batch_size = 1
        self.batch_rng = random.Random(seed ^ 0x5EED)  # its own stream: same corpus either way
        self.texts = TextMaker(self.rng, make_vocabulary(self.rng, 900))
        self.index = InvertedIndex()
        self.type_codes: list[int] = []
        self.ts: list[int] = []
        self.uids: list[bytes] = []
        self.live: dict[int, RefDoc] = {}
        self.indexed_text: dict[int, str] = {}

    def add_docs(self, n: int, seals: int, deletes: int) -> None:
        rng = self.rng
        start = len(self.type_codes)
        seal_at = set(rng.sample(range(start + 1, start + n), seals))
        delete_at = set(rng.sample(range(start + 1, start + n), deletes))
        for _ in range(n):
            doc = self.index.reserve_doc()
            assert doc == len(self.type_codes)
            type_code = UNKNOWN if rng.random() < 0.08 else TYPE_CODE[rng.choice(SEARCHABLE)]
            text = self.texts.text()
            ts = 1_760_000_000_000 + rng.randint(0, 400 if rng.random() < 0.5 else 8) * 1000  # many ties
            uid = "".join(rng.choice(_B32) for _ in range(26)).encode("ascii")
            self.type_codes.append(type_code)
            self.ts.append(ts)
            self.uids.append(uid)
            if type_code != UNKNOWN:  # the Store never indexes `unknown` events
                if self.batched:
                    self.pending.append((doc, text))
                    if len(self.pending) >= self.batch_size:
                        self.flush()
                else:
                    index_add(self.index, doc, text)
                self.indexed_text[doc] = text
                ref = ref_doc(doc, text, type_code, ts, uid)
                if ref is not None:
                    self.live[doc] = ref
            if doc in seal_at:
                self.flush()
                self.index.seal()
            if doc in delete_at:
                self.delete_random(rng.randint(1, 12))
        self.flush()

    def flush(self) -> None:
        """Index the pending batch with one `add_texts` call (empty texts included)."""
        if self.pending:
            docs = np.array([d for d, _ in self.pending], dtype=np.int64)
            self.index.add_texts(docs, [t for _, t in self.pending])
            self.pending = []
        self.batch_size = self.batch_rng.choice((1, 2, 7, 30, 120, 400))

    def delete_random(self, n: int) -> None:
        """Tombstone some live docs (in segments and memtable) and poke at dead ones."""
        self.flush()
        rng = self.rng
        for doc in rng.sample(sorted(self.live), min(n, len(self.live))):
            self.index.delete(doc)
            del self.live[doc]
            self.index.delete(doc)  # a second delete is a no-op
        dead = [d for d in range(len(self.type_codes)) if d not in self.live]
        for doc in rng.sample(dead, min(3, len(dead))):
            self.index.delete(doc)  # never-indexed or already deleted: no-op

    def columns(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        return (np.array(self.type_codes, dtype=np.uint8), np.array(self.ts, dtype=np.int64),
                np.array(self.uids, dtype="S26"))

    def random_request(self) -> tuple[list[str], int, set[int], np.ndarray | None]:
        rng = self.rng
        query = self.texts.query()
        if rng.random() < 0.1:
            query += " " + "".join(rng.choice("qwxyz") for _ in range(60))  # longer than any stored term
        # mostly 1-6 distinct terms; now and then every term of a longer query (up to 32)
        terms = distinct_terms(query, rng.randint(1, 6) if rng.random() < 0.9 else 32)
        k = rng.choice((1, 3, 10, 25, 50, rng.randint(1, 200), 10**6))
        roll = rng.random()
        if roll < 0.3:
            allowed = set(range(len(SEARCHABLE)))
        elif roll < 0.4:
            allowed = set(range(len(EVENT_TYPES)))  # `unknown` allowed: still never indexed
        else:
            allowed = {TYPE_CODE[t] for t in rng.sample(SEARCHABLE, rng.randint(1, 4))}
        scope = None
        n_docs = len(self.type_codes)
        if rng.random() < 0.45:
            size = rng.choice((1, 5, rng.randint(1, n_docs)))
            scope = np.array(sorted(rng.sample(range(n_docs), size)), dtype=np.int64)
        return terms, k, allowed, scope

    def search(self, terms, k, allowed, scope, *, k1: float = K1, b: float = B, exact_total: bool = True):
        type_codes, ts, uids = self.columns()
        mask = np.zeros(len(EVENT_TYPES), dtype=bool)
        mask[sorted(allowed)] = True
        return self.index.search(terms, k, k1=k1, b=b, type_codes=type_codes, allowed_types=mask,
                                 tiebreak_ts=ts, tiebreak_uid=uids, scope=scope, exact_total=exact_total)

    def reference(self, terms, k, allowed, scope, *, k1: float = K1, b: float = B):
        return reference_search(list(self.live.values()), terms, k, k1=k1, b=b, allowed_codes=allowed,
                                scope=None if scope is None else {int(s) for s in scope})

    def check(self, n_queries: int, *, k1: float = K1, b: float = B, exact_total: bool = True) -> int:
        """Compare `n_queries` random requests; returns how many had at least one hit."""
        self.flush()
        assert self.index.n_docs == len(self.live)
        assert self.index.total_len == sum(d.length for d in self.live.values())
        with_hits = 0
        for i in range(n_queries):
            terms, k, allowed, scope = self.random_request()
            hits = self.search(terms, k, allowed, scope, k1=k1, b=b, exact_total=exact_total)
            ref = self.reference(terms, k, allowed, scope, k1=k1, b=b)
            scoped = None if scope is None else len(scope)
            ctx = f"(query {i}: terms={terms} k={k} types={sorted(allowed)} scope={scoped})"
            assert_hits_match(hits, ref, ctx, exact_total=exact_total)
            with_hits += bool(ref.docs)
        return with_hits


@pytest.fixture(scope="module")
def corpus() -> Corpus:
    c = Corpus(seed=20260101)
    c.add_docs(2500, seals=4, deletes=25)
    return c


def test_corpus_has_segments_memtable_and_tombstones(corpus: Corpus) -> None:
    idx = corpus.index
    assert len(idx.segments) >= 4
    assert len(idx.mem) > 0
    indexed = int(np.count_nonzero(idx.doc_len.view))
    assert indexed > len(corpus.live) > 1800  # some indexed docs are tombstones
    assert UNKNOWN in corpus.type_codes
    assert any(len(v) > 6 and any("\u3040" <= ch <= "\u9fff" for ch in v) for v in corpus.texts.vocab)


def test_search_matches_reference(corpus: Corpus) -> None:
    assert corpus.check(200) > 120


def test_search_matches_reference_other_parameters(corpus: Corpus) -> None:
    assert corpus.check(25, k1=2.0, b=0.3) > 10
    assert corpus.check(10, k1=0.5, b=1.0) > 3
    assert corpus.check(10, k1=1.2, b=0.0) > 3


@pytest.mark.parametrize("batched", [False, True], ids=["add", "add_texts"])
@pytest.mark.parametrize("seal_after", [False, True])
def test_search_matches_reference_after_appending(seal_after: bool, batched: bool) -> None:
    c = Corpus(seed=4242 + seal_after, batched=batched)
    c.add_docs(800, seals=2, deletes=10)
    c.check(25)
    c.add_docs(500, seals=1, deletes=6)
    if seal_after:
        c.index.seal()
        assert len(c.index.mem) == 0
    else:
        assert len(c.index.mem) > 0
    c.check(30)
    c.delete_random(120)
    c.add_docs(200, seals=0 if seal_after else 1, deletes=2)
    c.check(30)


def test_batched_and_single_document_indexing_agree() -> None:
    """`add_texts` (the Store's batch path) and `add` build indexes that answer identically."""
    single, batched = Corpus(seed=555), Corpus(seed=555, batched=True)
    for c in (single, batched):
        c.add_docs(800, seals=3, deletes=8)
    assert single.indexed_text == batched.indexed_text and single.live.keys() == batched.live.keys()
    assert batched.index.n_docs == single.index.n_docs and batched.index.total_len == single.index.total_len
    assert np.array_equal(batched.index.doc_len.view, single.index.doc_len.view)
    requests = [single.random_request() for _ in range(60)]
    assert _snapshot(batched, requests) == _snapshot(single, requests)
    assert batched.check(30) > 10


def test_cjk_and_code_terms_are_found(corpus: Corpus) -> None:
    """Queries for CJK bigrams and code parts hit, and the ranking matches the reference."""
    probes = ["検索", "データ", "搜索", "snake_case_name", "snake", "camelCaseName", "case", "os.path.join",
              "path", "src/db/migrate.py", "migrate", "searcher", "httpserver", "http"]
    for probe in probes:
        terms = distinct_terms(probe)
        allowed = set(range(len(SEARCHABLE)))
        hits = corpus.search(terms, 20, allowed, None)
        ref = corpus.reference(terms, 20, allowed, None)
        assert_hits_match(hits, ref, f"(probe {probe!r})")
        assert ref.total > 0, probe


def test_total_and_ties_with_duplicate_documents() -> None:
    """Identical texts score identically: timestamp desc, then uid asc decide."""
    idx = InvertedIndex()
    texts = ["alpha beta", "alpha beta", "alpha beta", "alpha gamma", "beta", "alpha beta", "zeta"]
    ts = [5, 9, 9, 1, 3, 9, 2]
    uids = [b"d" * 26, b"c" * 26, b"b" * 26, b"e" * 26, b"f" * 26, b"a" * 26, b"g" * 26]
    codes = [0, 1, 0, 0, 0, 8, 0]
    for i, text in enumerate(texts):
        doc = idx.reserve_doc()
        if codes[i] != UNKNOWN:
            index_add(idx, doc, text)
    mask = np.zeros(len(EVENT_TYPES), dtype=bool)
    mask[:8] = True
    hits = idx.search(["alpha", "beta"], 10, k1=K1, b=B, type_codes=np.array(codes, np.uint8),
                      allowed_types=mask, tiebreak_ts=np.array(ts, np.int64), tiebreak_uid=np.array(uids, "S26"))
    # docs 1 and 2 share the timestamp 9: uid b"b…" < b"c…"; doc 0 (ts 5) next; doc 5 is unknown
    assert hits.docs.tolist()[:3] == [2, 1, 0]
    assert hits.raw[0] == hits.raw[1] == hits.raw[2]
    assert hits.total == 5
    live = [ref_doc(i, t, codes[i], ts[i], uids[i]) for i, t in enumerate(texts) if codes[i] != UNKNOWN]
    ref = reference_search([d for d in live if d], ["alpha", "beta"], 10, k1=K1, b=B,
                           allowed_codes=set(range(8)), scope=None)
    assert_hits_match(hits, ref)
    top2 = idx.search(["alpha", "beta"], 2, k1=K1, b=B, type_codes=np.array(codes, np.uint8),
                      allowed_types=mask, tiebreak_ts=np.array(ts, np.int64), tiebreak_uid=np.array(uids, "S26"))
    assert top2.docs.tolist() == [2, 1] and top2.total == 5


def test_empty_index_and_empty_query() -> None:
    idx = InvertedIndex()
    kwargs = dict(k1=K1, b=B, type_codes=np.zeros(0, np.uint8), allowed_types=np.ones(9, bool),
                  tiebreak_ts=np.zeros(0, np.int64), tiebreak_uid=np.zeros(0, "S26"))
    assert idx.search(["x1"], 5, **kwargs).total == 0
    doc = idx.reserve_doc()
    index_add(idx, doc, "hello")
    kwargs.update(type_codes=np.zeros(1, np.uint8), tiebreak_ts=np.zeros(1, np.int64),
                  tiebreak_uid=np.array([b"a" * 26], "S26"))
    assert idx.search([], 5, **kwargs).total == 0
    assert idx.search(["hello"], 5, **kwargs).docs.tolist() == [0]
    idx.seal()
    idx.delete(doc)
    assert idx.n_docs == 0 and idx.total_len == 0
    assert idx.search(["hello"], 5, **kwargs).total == 0


# -- segments -------------------------------------------------------------------------------


def _snapshot(c: Corpus, requests) -> list[tuple]:
    out = []
    for terms, k, allowed, scope in requests:
        h = c.search(terms, k, allowed, scope)
        out.append((h.docs.tolist(), h.raw.tolist(), h.scores.tolist(), h.total))
    return out


def _assert_same_segment(a: Segment, b: Segment) -> None:
    pairs = [(name, getattr(a, name), getattr(b, name)) for name in ARRAYS]
    pairs += [(name, x, b.docs.arrays()[name]) for name, x in a.docs.arrays().items()]
    for name, x, y in pairs:
        assert x.dtype == y.dtype, name
        assert np.array_equal(np.asarray(x), np.asarray(y)), name


def test_segment_merge_changes_no_result() -> None:
    c = Corpus(seed=777)
    c.add_docs(1000, seals=5, deletes=15)
    c.index.seal()
    assert len(c.index.segments) >= 5
    requests = [c.random_request() for _ in range(60)]
    before = _snapshot(c, requests)
    segments = list(c.index.segments)

    # merging a run of segments, then all of them, changes no result at all
    c.index.segments = [Segment.merge(segments[:3]), *segments[3:]]
    assert _snapshot(c, requests) == before
    merged = Segment.merge(segments)
    c.index.segments = [merged]
    assert _snapshot(c, requests) == before
    for terms, k, allowed, scope in requests[:30]:
        assert_hits_match(c.search(terms, k, allowed, scope), c.reference(terms, k, allowed, scope))

    # the merge equals the segment of one memtable holding every document
    _assert_merge_is_single_segment(c, merged)
    assert np.array_equal(merged.doc_ids, np.concatenate([s.doc_ids for s in segments]))
    assert np.all(np.diff(merged.doc_ids.astype(np.int64)) > 0)


def _assert_merge_is_single_segment(c: Corpus, merged: Segment) -> None:
    """The merge equals the one segment of a fresh index fed every document unsealed."""
    fresh = InvertedIndex()
    for doc in range(len(c.type_codes)):
        assert fresh.reserve_doc() == doc
        if doc in c.indexed_text:
            index_add(fresh, doc, c.indexed_text[doc])
    single = fresh.seal()
    assert single is not None
    _assert_same_segment(single, merged)
    # every term is sorted by UTF-8 bytes and every posting list increases
    terms = [t.decode("utf-8") for t in merged.terms]
    assert terms == sorted(terms, key=lambda t: t.encode("utf-8"))
    offsets = merged.offsets.astype(np.int64)
    assert offsets[0] == 0 and offsets[-1] == merged.n_postings and np.all(np.diff(offsets) > 0)
    steps = np.diff(merged.docs.all().astype(np.int64))
    within = np.ones(len(steps), dtype=bool)
    within[offsets[1:-1] - 1] = False  # a step across two terms' lists may go down
    assert np.all(steps[within] > 0)


def test_segment_save_load_mmap_round_trip(tmp_path: Path) -> None:
    c = Corpus(seed=99)
    c.add_docs(1000, seals=3, deletes=10)
    c.index.seal()
    requests = [c.random_request() for _ in range(50)]
    before = _snapshot(c, requests)
    loaded = []
    for i, seg in enumerate(c.index.segments):
        seg.save(tmp_path / f"seg{i}")
        names = (*(n for n in ARRAYS if n != "terms"), *TERM_FILES, *BLOCK_ARRAYS)
        assert sorted(p.name for p in (tmp_path / f"seg{i}").iterdir()) == sorted(f"{n}.npy" for n in names)
        back = Segment.load(tmp_path / f"seg{i}")
        arrays = {name: getattr(back, name) for name in ARRAYS if name != "terms"} | back.docs.arrays()
        for name, array in arrays.items():  # mapped, not read: plain views over the file's map
            assert not array.flags.owndata and isinstance(array.base, np.memmap), name
        _assert_same_segment(seg, back)
        for raw in seg.terms[:: max(1, len(seg.terms) // 50)]:
            term = raw.decode("utf-8")
            d1, f1 = seg.postings(term)
            d2, f2 = back.postings(term)
            assert np.array_equal(d1.full(), d2.full()) and np.array_equal(f1, f2) and len(d1) > 0
        assert len(back.postings("zz-not-a-term-at-all-and-longer-than-most-terms")[0]) == 0
        loaded.append(back)
    c.index.segments = loaded
    assert _snapshot(c, requests) == before
    # mmap'ed segments merge, and the merge saves and loads again
    merged = Segment.merge(loaded)
    merged.save(tmp_path / "merged")
    c.index.segments = [Segment.load(tmp_path / "merged")]
    assert _snapshot(c, requests) == before
    # an index with new documents on top of loaded segments still matches the reference
    c.add_docs(400, seals=1, deletes=3)
    c.check(30)


def test_multibyte_terms_in_segments_round_trip(tmp_path: Path) -> None:
    idx = InvertedIndex()
    texts = ["検索エンジン 日本語", "中文搜索 引擎", "ascii_only words", "Привет мир", "検索 ascii"]
    for text in texts:
        index_add(idx, idx.reserve_doc(), text)
    seg = idx.seal()
    assert seg is not None
    seg.save(tmp_path / "s")
    back = Segment.load(tmp_path / "s")
    for text in texts:
        for term in set(tokenize(text)):
            assert len(back.postings(term)[0]) >= 1, term
    assert back.postings("検索")[0].full().tolist() == [0, 4]
    assert back.postings("搜索")[0].full().tolist() == [1]


def test_mathematically_tied_scores_are_ordered_by_timestamp() -> None:
    idx = InvertedIndex()
    texts = [" ".join(["aa"] * 10 + ["bb", "cc"]), " ".join(["aa", "bb"] + ["cc"] * 10), "zz yy xx ww"]
    texts += [f"filler{i}" for i in range(5)]
    for text in texts:
        index_add(idx, idx.reserve_doc(), text)
    n = len(texts)
    ts = np.array([200, 100] + [0] * (n - 2), np.int64)  # doc 0 is the newer of the two
    uids = np.array([b"b" * 26, b"a" * 26] + [b"z" * 26] * (n - 2), "S26")
    mask = np.ones(len(EVENT_TYPES), dtype=bool)
    hits = idx.search(["aa", "bb", "cc"], 5, k1=K1, b=B, type_codes=np.zeros(n, np.uint8), allowed_types=mask,
                      tiebreak_ts=ts, tiebreak_uid=uids)
    assert abs(hits.raw[0] - hits.raw[1]) < 1e-12
    assert hits.docs.tolist()[:2] == [0, 1]


def test_search_with_bounded_total_matches_reference(corpus: Corpus) -> None:
    """What search_sessions asks for: the ranking exact, the total exact up to k + 1."""
    assert corpus.check(200, exact_total=False) > 120


def test_long_queries_of_common_terms_match_reference(corpus: Corpus) -> None:
    """Many common terms: the pruning keeps a large leader set, scores it densely and
    tightens it term by term; the ranking must still equal the reference."""
    corpus.flush()
    by_df = sorted(corpus.index.vocab.terms, key=lambda t: -len(corpus.index.postings(t)[0]))
    common = by_df[:60]
    rng = random.Random(77)
    for i in range(60):
        terms = rng.sample(common, rng.randint(4, 14)) + rng.sample(by_df[60:], rng.randint(0, 2))
        k = rng.choice((1, 5, 10, 50))
        allowed = set(range(len(SEARCHABLE))) if i % 2 else {TYPE_CODE[t] for t in rng.sample(SEARCHABLE, 3)}
        for exact in (True, False):
            hits = corpus.search(terms, k, allowed, None, exact_total=exact)
            ref = corpus.reference(terms, k, allowed, None)
            assert_hits_match(hits, ref, f"(query {i}: {terms} k={k})", exact_total=exact)


def test_scoped_probing_equals_the_masked_path(corpus: Corpus, monkeypatch: pytest.MonkeyPatch) -> None:
    """A small scope is searched by probing its documents in each term's postings; the same
    request through the whole-index path with a mask gives the same hits, scores and totals
    (segments with and without deletions, the memtable, min_should_match)."""
    from moraine.index import searcher

    type_codes, ts, uids = corpus.columns()
    mask = np.zeros(len(EVENT_TYPES), dtype=bool)
    mask[list(range(len(SEARCHABLE)))] = True
    rng = random.Random(7)
    compared = 0
    for _ in range(300):
        terms = distinct_terms(corpus.texts.query(), rng.randint(1, 6))
        scope = np.array(sorted(rng.sample(range(len(type_codes)), rng.choice((1, 5, 20, 35)))), dtype=np.int64)
        min_match = rng.choice((1, 1, 2, 3))
        runs = []
        for fraction in (64, 10**9):  # probing; then the masked path (a scope never counts as small)
            monkeypatch.setattr(searcher, "SCOPED_FRACTION", fraction)
            runs.append(corpus.index.search(terms, 10, k1=K1, b=B, type_codes=type_codes, allowed_types=mask,
                                            tiebreak_ts=ts, tiebreak_uid=uids, scope=scope, min_match=min_match))
        probed, masked = runs
        assert probed.total == masked.total and probed.docs.tolist() == masked.docs.tolist(), terms
        assert np.allclose(probed.raw, masked.raw, rtol=1e-12) and np.allclose(probed.scores, masked.scores)
        compared += bool(masked.total)
    assert compared > 60


@pytest.mark.parametrize("chunk", [7, 1000, 4_000_000])
def test_streaming_merge_equals_a_plain_merge(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, chunk: int) -> None:
    """Segments with deletions (whole terms among them) merged a run of postings at a time,
    from mapped parts into a directory, equal the postings gathered term by term."""
    from moraine.index import segment as segment_module

    monkeypatch.setattr(segment_module, "CHUNK_POSTINGS", chunk)
    c = Corpus(seed=5)
    c.add_docs(900, seals=4, deletes=120)
    c.index.seal()
    parts = []
    for i, seg in enumerate(c.index.segments):
        seg.save(tmp_path / f"p{i}")
        parts.append(Segment.load(tmp_path / f"p{i}"))
    live = c.index.live.view
    merged = Segment.merge(parts, live, tmp_path / "merged")
    in_memory = Segment.merge(c.index.segments, live)
    _assert_same_segment(merged, in_memory)
    expected: dict[bytes, tuple[list[int], list[int]]] = {}
    for seg in parts:
        for t, raw in enumerate(seg.terms.tolist()):
            lo, hi = int(seg.offsets[t]), int(seg.offsets[t + 1])
            for doc, tf in zip(seg.docs.all()[lo:hi].tolist(), seg.tf_slice(lo, hi).tolist(), strict=True):
                if live[doc]:
                    expected.setdefault(raw, ([], []))[0].append(doc)
                    expected[raw][1].append(tf)
    assert merged.terms.tolist() == sorted(expected)
    for t, raw in enumerate(merged.terms.tolist()):
        lo, hi = int(merged.offsets[t]), int(merged.offsets[t + 1])
        assert (merged.docs.all()[lo:hi].tolist(), merged.tf_slice(lo, hi).tolist()) == expected[raw]
    assert merged.doc_ids.tolist() == [d for p in parts for d in p.doc_ids.tolist() if live[d]]


@pytest.mark.parametrize("seed", range(4))
def test_term_scores_in_place_equal_the_formula_bit_for_bit(seed: int) -> None:
    """`term_scores` computes in place; its scores must be the plain expression's, bit for bit,
    for every dtype the index stores tfs and lengths in and for b at its edges."""
    from moraine.index.bm25 import term_scores

    rng = np.random.default_rng(seed)
    for tf_type, len_type in ((np.uint8, np.uint32), (np.uint16, np.int64), (np.uint32, np.uint32)):
        n = int(rng.integers(1, 5000))
        tfs = rng.integers(1, np.iinfo(tf_type).max, n, endpoint=True).astype(tf_type)
        lens = rng.integers(1, 100_000, n).astype(len_type)
        for b in (0.0, 0.75, 1.0, float(rng.random())):
            idf, avgdl, k1 = float(rng.random() * 9), float(rng.random() * 900 + 1), float(rng.random() * 3)
            tf = tfs.astype(np.float64)
            plain = idf * tf * (k1 + 1.0) / (tf + k1 * (1.0 - b + b * lens.astype(np.float64) / avgdl))
            assert term_scores(tfs, lens, idf, avgdl, k1, b).tobytes() == plain.tobytes()
