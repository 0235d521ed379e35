"""BM25 over the memtable and the immutable segments, with array-mask filters.

Global N, df and avgdl are summed over live documents of every segment and the memtable
at query time, so results never depend on how documents happen to be split in segments.
"""

from __future__ import annotations

import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from moraine.index.bm25 import idf, max_attainable, term_scores
from moraine.index.growable import Column
from moraine.index.memtable import MemTable
from moraine.index.segment import Segment
from moraine.index.vocab import Vocabulary

CACHE_MIN_POSTINGS = 2_000  # rare terms are cheap to score: cache only the costly ones
SCOPED_FRACTION = 64  # a scope this much smaller than the index is searched by probing its documents
CACHE_MAX_POSTINGS = 20_000_000


@dataclass(frozen=True)
class _TermScores:
    key: tuple[int, float, float]  # (index version, k1, b) the scores were computed for
    docs: np.ndarray  # live doc ids, increasing
    contrib: np.ndarray  # BM25 contribution of the term to each doc
    idf: float


class DeadlineExceeded(Exception):
    """The query ran past its deadline; the caller answers `deadline_exceeded`."""


@dataclass(frozen=True)
class Hits:
    docs: np.ndarray  # ranked doc ids
    raw: np.ndarray  # raw BM25 scores
    scores: np.ndarray  # normalized to [0, 1]
    total: int  # matching documents before the limit


class InvertedIndex:
    """Doc ids are global and increasing; a document is indexed once, tombstoned at most once."""

    def __init__(self) -> None:
        self.segments: list[Segment] = []
        self.vocab = Vocabulary()
        self.mem = MemTable(self.vocab)
        self.doc_len = Column(np.uint32)  # 0 for events that are not indexed
        self.live = Column(np.bool_)
        self.n_docs = 0  # live documents with at least one token
        self.total_len = 0
        self.version = 0  # bumped by every change: cached term scores are valid for one version
        self._terms: OrderedDict[str, _TermScores] = OrderedDict()
        self._cached_postings = 0
        self._masks: dict[tuple[int, bytes], np.ndarray] = {}
        self.deletions = 0  # documents ever deleted: a segment's live document frequencies change only then
        self._clean: tuple[tuple[int, tuple[int, ...]], list[bool]] = ((-1, ()), [])

    def reserve_doc(self) -> int:
        """Every event gets a doc id (so ids equal catalog rows); only some get postings."""
        return self.reserve_docs(1)

    def reserve_docs(self, count: int) -> int:
        """Reserve `count` consecutive doc ids; returns the first."""
        first = self.doc_len.size
        self.doc_len.extend(np.zeros(count, dtype=np.uint32))
        self.live.extend(np.zeros(count, dtype=np.bool_))
        self.version += 1
        return first

    def add(self, doc_id: int, term_tfs: dict[str, int], length: int) -> None:
        if not length:
            return
        self.mem.add(doc_id, term_tfs, length)
        self.doc_len[doc_id] = length
        self.live[doc_id] = True
        self.n_docs += 1
        self.total_len += length
        self.version += 1

    def add_texts(self, doc_ids: np.ndarray, texts: list[str]) -> None:
        """Index a batch of documents (doc ids increasing); empty texts index nothing."""
        if not len(doc_ids):
            return
        doc_index, term_ids = self.vocab.encode(texts)
        lengths = self.mem.add_batch(doc_ids, doc_index, term_ids)
        indexed = lengths > 0
        self.doc_len.view[doc_ids[indexed]] = lengths[indexed]
        self.live.view[doc_ids[indexed]] = True
        self.n_docs += int(indexed.sum())
        self.total_len += int(lengths.sum())
        self.version += 1

    def delete(self, doc_id: int) -> None:
        if self.live.view[doc_id]:
            self.live[doc_id] = False
            self.n_docs -= 1
            self.total_len -= int(self.doc_len.view[doc_id])
            self.version += 1
            self.deletions += 1

    def _clean_segments(self) -> list[bool]:
        """For each segment, whether none of its documents was deleted: then a term's live
        document frequency there is its posting count, read without touching the postings.
        Recomputed only after a deletion or a change of segments (merges drop deleted docs)."""
        key = (self.deletions, tuple(id(seg) for seg in self.segments))
        if self._clean[0] != key:
            live = self.live.view
            self._clean = (key, [bool(live[seg.doc_ids].all()) for seg in self.segments])
        return self._clean[1]

    def live_parts(self, term: str) -> tuple[list[tuple[np.ndarray, np.ndarray]], int]:
        """A term's postings per segment and memtable chunk (deleted documents kept), and how
        many live documents hold it (exact: a deleted document never counts)."""
        live = self.live.view
        parts, df = [], 0
        for segment, clean in zip(self.segments, self._clean_segments(), strict=True):
            docs, tfs = segment.postings(term)
            if len(docs):
                parts.append((docs, tfs))
                df += len(docs) if clean else int(np.count_nonzero(live[docs]))
        for docs, tfs in self.mem.postings_parts(term):
            if len(docs):
                parts.append((docs, tfs))
                df += int(np.count_nonzero(live[docs]))
        return parts, df

    def seal(self) -> Segment | None:
        """Freeze the memtable into an immutable segment (no-op when empty)."""
        if not len(self.mem):
            return None
        segment = Segment.from_memtable(self.mem)
        self.segments.append(segment)
        self.mem = MemTable(self.vocab)
        return segment

    def merge_segments(self, directory_for: Callable[[], Path] | None = None) -> int:
        """Tiered merge policy: a run of adjacent segments each at least half the size of the
        one before it is merged into one (dropping retired documents' postings), anywhere in
        the list (a small newest segment does not hold back the equal ones before it). Sizes
        then fall by more than half from the oldest to the newest: O(log n) segments, each
        posting rewritten O(log n) times. With `directory_for`, each merge streams into a new
        directory (see `Segment.merge`) instead of memory."""
        merges = 0
        while (run := _merge_run([seg.n_postings for seg in self.segments])) is not None:
            lo, hi = run
            directory = directory_for() if directory_for is not None else None
            merged = Segment.merge(self.segments[lo:hi], self.live.view, directory)
            self.segments[lo:hi] = [merged]
            merges += 1
        if merges:
            self.version += 1
        return merges

    def snapshot_arrays(self) -> dict[str, np.ndarray]:
        return {"doc_len": self.doc_len.view, "live": self.live.view}

    def restore(self, arrays: dict[str, np.ndarray], segments: list[Segment]) -> None:
        self.doc_len.size = self.live.size = 0
        self.doc_len.extend(np.asarray(arrays["doc_len"]))
        self.live.extend(np.asarray(arrays["live"]))
        self.segments = segments
        live = self.live.view
        self.n_docs = int(np.count_nonzero(live & (self.doc_len.view > 0)))
        self.total_len = int(self.doc_len.view[live].sum(dtype=np.int64))
        self.version += 1

    def postings(self, term: str) -> tuple[np.ndarray, np.ndarray]:
        """Live postings of a term across every segment and the memtable."""
        parts = [seg.postings(term) for seg in self.segments]
        parts.append(self.mem.postings(term))
        parts = [p for p in parts if len(p[0])]
        if not parts:
            return np.zeros(0, np.uint32), np.zeros(0, np.uint32)
        docs = np.concatenate([p[0] for p in parts]) if len(parts) > 1 else np.asarray(parts[0][0])
        tfs = np.concatenate([p[1] for p in parts]) if len(parts) > 1 else np.asarray(parts[0][1])
        keep = self.live.view[docs]
        return docs[keep], tfs[keep]

    def postings_parts(self, term: str) -> list[tuple[np.ndarray, np.ndarray]]:
        """A term's postings per segment / memtable chunk, each sorted by doc, tombstones kept."""
        parts = [seg.postings(term) for seg in self.segments]
        parts.extend(self.mem.postings_parts(term))
        return [p for p in parts if len(p[0])]

    def term_scores(self, term: str, k1: float, b: float) -> _TermScores:
        """A term's live postings (sorted by doc), df and per-document BM25 contributions.

        Contributions depend on N and avgdl, so they are cached per index version only: the
        cache is exact, and a warm daemon answers repeated common terms without rescoring.
        """
        entry = self.cached(term, k1, b)
        if entry is not None:
            return entry
        docs, tfs = self.postings(term)
        return self._scored(term, docs, tfs, idf(self.n_docs, len(docs)), k1, b)

    def cached(self, term: str, k1: float, b: float) -> _TermScores | None:
        entry = self._terms.get(term)
        if entry is not None and entry.key == (self.version, k1, b):
            self._terms.move_to_end(term)
            return entry
        return None

    def avgdl(self) -> float:
        return max(self.total_len / self.n_docs, 1e-9) if self.n_docs else 1.0

    def _scored(self, term: str, docs: np.ndarray, tfs: np.ndarray, term_idf: float, k1: float, b: float
                ) -> _TermScores:
        """A term's live postings scored whole (and cached when costly)."""
        contrib = term_scores(tfs, self.doc_len.view[docs], term_idf, self.avgdl(), k1, b) if len(docs) \
            else np.zeros(0)
        entry = _TermScores((self.version, k1, b), np.asarray(docs, dtype=np.int64), contrib, term_idf)
        if len(docs) >= CACHE_MIN_POSTINGS:
            self._cache_put(term, entry)
        return entry

    def _allowed_live(self, allowed_types: np.ndarray, type_codes: np.ndarray) -> np.ndarray:
        """Live documents of the allowed types; the same filter recurs, so keep the last few."""
        key = (self.version, allowed_types.tobytes())
        mask = self._masks.get(key)
        if mask is None:
            mask = allowed_types[type_codes[: self.doc_len.size]] & self.live.view
            if len(self._masks) >= 4:
                self._masks.pop(next(iter(self._masks)))
            self._masks[key] = mask
        return mask

    def clear_term_cache(self) -> None:
        """Forget every cached term score (benchmarks measure the cold path with it)."""
        self._terms.clear()
        self._cached_postings = 0

    def _cache_put(self, term: str, entry: _TermScores) -> None:
        old = self._terms.pop(term, None)
        if old is not None:
            self._cached_postings -= len(old.docs)
        self._terms[term] = entry
        self._cached_postings += len(entry.docs)
        while self._cached_postings > CACHE_MAX_POSTINGS and self._terms:
            _, evicted = self._terms.popitem(last=False)
            self._cached_postings -= len(evicted.docs)

    def search(
        self,
        terms: list[str],
        k: int,
        *,
        k1: float,
        b: float,
        type_codes: np.ndarray,
        allowed_types: np.ndarray,
        tiebreak_ts: np.ndarray,
        tiebreak_uid: np.ndarray,
        scope: np.ndarray | None = None,
        deadline: float | None = None,
        exact_total: bool = True,
        min_match: int = 1,
    ) -> Hits:
        """Top-k documents by BM25, then timestamp desc, then uid asc; filters as masks.

        With `exact_total=False`, `total` is exact only up to k + 1: enough to say whether
        more matches exist (the contract's `truncated`) without visiting every posting of the
        common terms the pruning skipped.
        """
        empty = Hits(np.zeros(0, np.int64), np.zeros(0), np.zeros(0), 0)
        if self.n_docs == 0 or not terms:
            return empty
        size = self.doc_len.size
        live = self.live.view
        if scope is not None and len(scope) * SCOPED_FRACTION < size:
            docs = np.unique(np.asarray(scope, dtype=np.int64))
            docs = docs[allowed_types[type_codes[docs]] & live[docs]]
            cand, raw, total, idfs = self._score_scope(terms, docs, k1, b, min_match, deadline)
            return self._ranked(cand, raw, total, idfs, k, k1, tiebreak_ts, tiebreak_uid)
        if scope is not None:
            ok = np.zeros(size, dtype=bool)
            ok[scope] = allowed_types[type_codes[scope]] & live[scope]
        else:
            ok = self._allowed_live(allowed_types, type_codes)
        plan = [_QueryTerm(self, term, k1, b) for term in terms]
        idfs = [entry.idf for entry in plan]
        if deadline is not None and time.monotonic() > deadline:
            raise DeadlineExceeded
        if min_match > 1 and len(plan) > 1:  # opt-in: every posting is counted, no pruning
            cand, raw, total = _score_counting([t.scored() for t in plan], ok, min_match, deadline)
        elif len(plan) == 1:  # one term: its filtered postings are the candidates, no score array
            whole = plan[0].scored()
            keep = ok[whole.docs]
            cand, raw = whole.docs[keep], whole.contrib[keep]
            total = len(cand)
        else:
            cand, raw, total = _score_terms(plan, ok, k, k1, deadline, exact_total)
        return self._ranked(cand, raw, total, idfs, k, k1, tiebreak_ts, tiebreak_uid)

    def _score_scope(self, terms: list[str], docs: np.ndarray, k1: float, b: float, min_match: int,
                     deadline: float | None) -> tuple[np.ndarray, np.ndarray, int, list[float]]:
        """A search within a few documents (a session, a turn): each term's postings are probed
        at those documents only (a binary search per document and posting run), never read
        whole; the statistics (live df, N, avgdl) are the whole index's, so scores equal the
        global path's."""
        scores = np.zeros(len(docs), dtype=np.float64)
        counts = np.zeros(len(docs), dtype=np.uint16)
        n = self.n_docs
        avgdl = max(self.total_len / n, 1e-9) if n else 1.0
        idfs = []
        for term in terms:
            if deadline is not None and time.monotonic() > deadline:
                raise DeadlineExceeded
            parts, df = self.live_parts(term)
            term_idf = idf(n, df)
            idfs.append(term_idf)
            for part_docs, part_tfs in parts:
                where = np.searchsorted(part_docs, docs)
                inside = where < len(part_docs)
                hit = np.flatnonzero(inside)[part_docs[where[inside]] == docs[inside]]
                if not len(hit):
                    continue
                tfs = part_tfs[where[hit]]
                scores[hit] += term_scores(tfs, self.doc_len.view[docs[hit]], term_idf, avgdl, k1, b)
                counts[hit] += 1
        matched = counts >= max(1, min_match if len(terms) > 1 else 1)
        cand = docs[matched]
        return cand, scores[matched], len(cand), idfs

    def _ranked(self, cand: np.ndarray, raw: np.ndarray, total: int, idfs: list[float], k: int, k1: float,
                tiebreak_ts: np.ndarray, tiebreak_uid: np.ndarray) -> Hits:
        if not len(cand):
            return Hits(np.zeros(0, np.int64), np.zeros(0), np.zeros(0), 0)
        # Equal scores summed in another order differ in the last bits: rank on 12 significant
        # digits so true ties fall through to timestamp, then id, as the contract orders them.
        rank_key = np.round(raw, 12 - int(np.ceil(np.log10(max(float(raw.max()), 1e-300)))))
        if len(cand) > k:
            threshold = np.partition(rank_key, len(cand) - k)[len(cand) - k]
            keep = rank_key >= threshold
            cand, raw, rank_key = cand[keep], raw[keep], rank_key[keep]
        order = np.lexsort((tiebreak_uid[cand], -tiebreak_ts[cand], -rank_key))[:k]
        best = max_attainable(idfs, k1)
        ranked_raw = raw[order]
        normalized = np.clip(ranked_raw / best, 0.0, 1.0) if best > 0 else np.zeros(len(order))
        return Hits(cand[order], ranked_raw, normalized, total)


class _QueryTerm:
    """A term of a query: its idf at once (from posting counts), its postings scored whole only
    when the query needs them all; a term the pruning reaches late is probed at the leading
    documents instead (a binary search per leader and posting run)."""

    def __init__(self, index: InvertedIndex, term: str, k1: float, b: float) -> None:
        self.index, self.term, self.k1, self.b = index, term, k1, b
        self.whole = index.cached(term, k1, b)
        if self.whole is not None:
            self.idf, self.parts = self.whole.idf, []
        else:
            self.parts, df = index.live_parts(term)
            self.idf = idf(index.n_docs, df)

    def postings(self) -> int:
        return len(self.whole.docs) if self.whole is not None else sum(len(p[0]) for p in self.parts)

    def scored(self) -> _TermScores:
        if self.whole is None:
            live = self.index.live.view
            docs = np.concatenate([p[0] for p in self.parts]) if self.parts else np.zeros(0, np.uint32)
            tfs = np.concatenate([p[1] for p in self.parts]) if self.parts else np.zeros(0, np.uint32)
            keep = live[docs]
            self.whole = self.index._scored(self.term, docs[keep], tfs[keep], self.idf, self.k1, self.b)
        return self.whole

    def probe(self, docs: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Where among `docs` (sorted, live) the term occurs, and its contribution there."""
        if self.whole is not None:
            held = self.whole.docs
            if not len(held):
                return np.zeros(0, np.int64), np.zeros(0)
            where = np.minimum(np.searchsorted(held, docs), len(held) - 1)
            hit = np.flatnonzero(held[where] == docs)
            return hit, self.whole.contrib[where[hit]]
        hits, contribs = [], []
        for part_docs, part_tfs in self.parts:
            where = np.searchsorted(part_docs, docs)
            inside = where < len(part_docs)
            hit = np.flatnonzero(inside)[part_docs[where[inside]] == docs[inside]]
            if len(hit):
                tfs = part_tfs[where[hit]]
                hits.append(hit)
                contribs.append(term_scores(tfs, self.index.doc_len.view[docs[hit]], self.idf, self.index.avgdl(),
                                            self.k1, self.b))
        if not hits:
            return np.zeros(0, np.int64), np.zeros(0)
        return np.concatenate(hits), np.concatenate(contribs)

    def live_docs(self) -> np.ndarray:
        return self.scored().docs if self.whole is not None or not self.parts else \
            np.concatenate([p[0][self.index.live.view[p[0]]] for p in self.parts]).astype(np.int64)


def _score_terms(plan: list[_QueryTerm], ok: np.ndarray, k: int, k1: float, deadline: float | None,
                 exact_total: bool) -> tuple[np.ndarray, np.ndarray, int]:
    """(candidate docs, their raw scores, match count) of a multi-term query, MaxScore-style.

    Terms are scored rarest first. Once k candidates lead by more than every remaining term
    could add to a new document (its upper bound idf·(k1+1)), the remaining — common — terms
    are only probed at the leaders, which tighten term by term. The ranking is exact.
    """
    plan = sorted(plan, key=lambda entry: -entry.idf)
    upper = [entry.idf * (k1 + 1.0) for entry in plan]
    remaining = [*np.cumsum(upper[::-1])[::-1].tolist(), 0.0]
    scores = np.zeros(len(ok), dtype=np.float64)
    leaders: np.ndarray | None = None
    touched: list[np.ndarray] = []  # the documents each fully scored term reached
    matched_so_far = np.zeros(0, dtype=np.int64)  # every match seen when the pruning began
    late: list[_QueryTerm] = []  # terms only probed: their matches counted for an exact total
    for step, entry in enumerate(plan):
        if deadline is not None and time.monotonic() > deadline:
            raise DeadlineExceeded
        if leaders is None:
            whole = entry.scored()
            keep = ok[whole.docs]
            docs = whole.docs[keep]
            scores[docs] += whole.contrib[keep]
            touched.append(docs)
        else:
            late.append(entry)
            if len(leaders) * 16 >= entry.postings():  # many leaders: one scatter beats a probe each
                whole = entry.scored()  # (only leaders' scores are read from here on)
                scores[whole.docs] += whole.contrib
            else:
                hit, contrib = entry.probe(leaders)
                scores[leaders[hit]] += contrib
            leaders = _still_leading(leaders, scores, k, remaining[step + 1])
        # Worth looking for a cut-off only once what was scored can outweigh what is left.
        if leaders is None and step + 1 < len(plan) and sum(upper[: step + 1]) > remaining[step + 1]:
            cand = _seen(touched, scores)
            if len(cand) >= k:
                kth = np.partition(scores[cand], len(cand) - k)[len(cand) - k]
                if remaining[step + 1] < kth:
                    # Unseen documents cannot reach the k-th score any more; nor can seen
                    # ones whose score plus everything left stays below it.
                    leaders = cand[scores[cand] + remaining[step + 1] >= kth]
                    matched_so_far = cand
    if leaders is None:
        cand = _seen(touched, scores)
        return cand, scores[cand], len(cand)
    if not exact_total and len(matched_so_far) > k:
        return leaders, scores[leaders], len(matched_so_far)
    matched = np.zeros(len(ok), dtype=bool)
    matched[matched_so_far] = True
    for entry in late:
        matched[entry.live_docs()] = True
    return leaders, scores[leaders], int(np.count_nonzero(matched & ok))


def _seen(touched: list[np.ndarray], scores: np.ndarray) -> np.ndarray:
    """The documents scored so far (sorted): from the terms' own postings while they are few,
    else by one pass over the score array."""
    if sum(len(t) for t in touched) * 64 < len(scores):
        return np.unique(np.concatenate(touched)) if touched else np.zeros(0, np.int64)
    return np.flatnonzero(scores > 0)


def _score_counting(plan: list[_TermScores], ok: np.ndarray, min_match: int, deadline: float | None
                    ) -> tuple[np.ndarray, np.ndarray, int]:
    """Every document holding at least `min_match` of the terms, with its full score."""
    scores = np.zeros(len(ok), dtype=np.float64)
    counts = np.zeros(len(ok), dtype=np.uint16)
    for entry in plan:
        if deadline is not None and time.monotonic() > deadline:
            raise DeadlineExceeded
        keep = ok[entry.docs]
        docs = entry.docs[keep]
        scores[docs] += entry.contrib[keep]
        counts[docs] += 1
    cand = np.flatnonzero(counts >= min_match)
    return cand, scores[cand], len(cand)


def _still_leading(leaders: np.ndarray, scores: np.ndarray, k: int, remaining: float) -> np.ndarray:
    """The leaders that can still reach the k-th best score: the k-th leader's score only
    grows and what is left to add only shrinks, so the set tightens with every term. A hair
    of slack keeps documents that tie with the k-th up to summation order."""
    if len(leaders) <= k:
        return leaders
    current = scores[leaders]
    kth = np.partition(current, len(leaders) - k)[len(leaders) - k]
    return leaders[current + remaining >= kth * (1.0 - 1e-12)]


def _merge_run(sizes: list[int]) -> tuple[int, int] | None:
    """The newest run [lo, hi) of two or more adjacent segments where each is at least half
    the size of the one before it, or None."""
    for j in range(len(sizes) - 2, -1, -1):
        if sizes[j + 1] * 2 >= sizes[j]:
            lo = j
            while lo > 0 and sizes[lo] * 2 >= sizes[lo - 1]:
                lo -= 1
            return lo, j + 2
    return None
