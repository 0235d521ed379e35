"""BM25 over the memtable and the immutable segments, with array-mask filters.

Global N, df and avgdl are summed over live documents of every segment and the memtable
at query time, so results never depend on how documents happen to be split in segments.
"""

from __future__ import annotations

import time
from collections import OrderedDict
from collections.abc import Callable
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType

import numpy as np

from moraine.errors import DeadlineExceeded
from moraine.index import compiled
from moraine.index.bm25 import idf, max_attainable, term_scores
from moraine.index.growable import Column
from moraine.index.memtable import BatchPostings, MemTable, batch_postings
from moraine.index.postings import DocList, PlainList
from moraine.index.scoring import QueryTerm, TermScores, score_counting, score_terms
from moraine.index.segment import DEFAULT_PARAMS, Segment, merge_run
from moraine.index.vocab import Vocabulary
from moraine.index.windows import Piece, score_windows

CACHE_MIN_POSTINGS = 2_000  # rare terms are cheap to score: cache only the costly ones
SCOPED_FRACTION = 64  # a scope this much smaller than the index is searched by probing its documents
CACHE_MAX_POSTINGS = 20_000_000
UNBOUNDED_POSTINGS = 1 << 18  # postings without window bounds a query scores whole before MaxScore serves better


@dataclass(frozen=True)
class Hits:
    docs: np.ndarray  # ranked doc ids
    raw: np.ndarray  # raw BM25 scores
    scores: np.ndarray  # normalized to [0, 1]
    total: int  # matching documents before the limit


class InvertedIndex:
    """Doc ids are global and increasing; a document is indexed once, tombstoned at most once."""

    def __init__(self, params: tuple[float, float] = DEFAULT_PARAMS) -> None:
        self.params = params  # the (k1, b) sealed and merged segments keep window bounds for
        self.segments: list[Segment] = []
        self.vocab = Vocabulary()
        self.mem = MemTable(self.vocab)
        self.doc_len = Column(np.uint32)  # 0 for events that are not indexed
        self.live = Column(np.bool_)
        self.n_docs = 0  # live documents with at least one token
        self.total_len = 0
        self.version = 0  # bumped by every change: cached term scores are valid for one version
        self._terms: OrderedDict[str, TermScores] = OrderedDict()
        self._cached_postings = 0
        self._masks: dict[tuple[int, bytes], np.ndarray] = {}
        self.deletions = 0  # documents ever deleted: a segment's live document frequencies change only then
        self.purge: list[int] = []  # documents deleted since `purge_segments` last wrote their segments again
        self._clean: tuple[tuple[int, tuple[int, ...]], list[bool]] = ((-1, ()), [])
        self.kernel: ModuleType | None = None  # the compiled window search (`compiled.load`); None: numpy

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
        if len(doc_ids):
            self.add_tokenized(doc_ids, self.tokenize(texts))

    def tokenize(self, texts: list[str]) -> BatchPostings:
        """The postings of a batch of texts, numbered in the batch: most of the cost of indexing
        them, done apart so that a commit does it before taking the readers' lock. It only adds
        terms to the vocabulary (a reader that finds a new term there finds no postings yet)."""
        doc_index, term_ids = self.vocab.encode(texts)
        return batch_postings(doc_index, term_ids, len(texts))

    def add_tokenized(self, doc_ids: np.ndarray, batch: BatchPostings) -> None:
        """Index `tokenize`d texts under `doc_ids` (increasing, one per text)."""
        if not len(doc_ids):
            return
        lengths = self.mem.add_postings(doc_ids, batch)
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
            self.purge.append(doc_id)

    def purge_segments(self, directory_for: Callable[[], Path] | None = None,
                       guard: AbstractContextManager[object] | None = None) -> int:
        """Write again, without their postings, every segment that holds a document deleted since
        the last purge: forgetting removes the words from the term dictionary too, not just the
        documents from answers. Call after `seal` (the memtable's deleted documents are in the
        newest segment then); `guard` as for `merge_segments`. Returns the segments rewritten."""
        if not self.purge:
            return 0
        dead = np.unique(np.asarray(self.purge, dtype=np.int64))
        rewritten = 0
        for i, segment in enumerate(list(self.segments)):
            ids = segment.doc_ids
            if not len(ids) or not len(dead):
                continue
            lo, hi = np.searchsorted(dead, [int(ids[0]), int(ids[-1]) + 1])
            if lo == hi or not np.isin(dead[lo:hi], ids).any():
                continue
            directory = directory_for() if directory_for is not None else None
            self._swap(i, i + 1, Segment.merge([segment], self.live.view, directory, self.params), guard)
            rewritten += 1
        self.purge.clear()
        return rewritten

    def _clean_segments(self) -> list[bool]:
        """For each segment, whether none of its documents was deleted: then a term's live
        document frequency there is its posting count, read without touching the postings.
        Recomputed only after a deletion or a change of segments (merges drop deleted docs)."""
        key = (self.deletions, tuple(id(seg) for seg in self.segments))
        if self._clean[0] != key:
            live = self.live.view
            self._clean = (key, [bool(live[seg.doc_ids].all()) for seg in self.segments])
        return self._clean[1]

    def live_parts(self, term: str) -> tuple[list[tuple[DocList, np.ndarray]], int]:
        """A term's postings per segment and memtable chunk (deleted documents kept), and how
        many live documents hold it (exact: a deleted document never counts)."""
        found, df = self._found(term)
        return [(docs, tfs) for _, _, docs, tfs in found], df

    def pieces(self, term: str, k1: float, b: float) -> tuple[list[Piece], int]:
        """`live_parts`, each with its window bounds (as multiples of the term's weight, at
        today's avgdl) where its segment keeps them for (k1, b)."""
        parts, df = self.parts(term, k1, b)
        return [piece for _, _, piece in parts], df

    def parts(self, term: str, k1: float, b: float) -> tuple[list[tuple[Segment | None, int, Piece]], int]:
        """`pieces`, each with where it lies: its segment (None: the memtable) and the term's index there."""
        found, df = self._found(term)
        avgdl = self.avgdl()
        parts: list[tuple[Segment | None, int, Piece]] = []
        for segment, i, docs, tfs in found:
            held = segment.window_bounds(i, (k1, b)) if segment is not None else None
            if held is None:
                parts.append((segment, i, Piece(docs, tfs)))
            else:
                row, first, a_ref = held
                parts.append((segment, i, Piece(docs, tfs, row * (max(1.0, avgdl / a_ref) / 255.0), first)))
        return parts, df

    def docs_holding(self, term: str, ordered: bool = True) -> np.ndarray:
        """Every document holding the term (retired ones included: callers mask), increasing
        unless `ordered` is false (a mask needs no order: a common term's sort costs ~50 ms at 1M)."""
        found, _ = self._found(term)
        parts = [np.asarray(docs.full(), dtype=np.int64) for _, _, docs, _ in found]
        if len(parts) <= 1:
            return parts[0] if parts else np.zeros(0, np.int64)
        joined = np.concatenate(parts)
        return np.sort(joined) if ordered else joined

    def _found(self, term: str) -> tuple[list[tuple[Segment | None, int, DocList, np.ndarray]], int]:
        """(segment or None for the memtable, term index there, docs, tfs) of each non-empty
        part, and the term's live document frequency."""
        live = self.live.view
        found: list[tuple[Segment | None, int, DocList, np.ndarray]] = []
        df = 0
        for segment, clean in zip(self.segments, self._clean_segments(), strict=True):
            i = segment.find(term)
            if i < 0:
                continue
            docs, tfs = segment.postings_at(i)
            found.append((segment, i, docs, tfs))
            df += len(docs) if clean else int(np.count_nonzero(live[docs.full()]))
        for plain, tfs in self.mem.postings_parts(term):
            if len(plain):
                found.append((None, -1, PlainList(plain), tfs))
                df += int(np.count_nonzero(live[plain]))
        return found, df

    def seal(self, guard: AbstractContextManager[object] | None = None) -> Segment | None:
        """Freeze the memtable into an immutable segment (no-op when empty). The segment is
        built from the memtable, which only the writer changes; with `guard` (the readers'
        lock) that lock is taken only to swap one for the other."""
        if not len(self.mem):
            return None
        segment = Segment.from_memtable(self.mem, self.params)
        with guard or nullcontext():
            self.segments = [*self.segments, segment]
            self.mem = MemTable(self.vocab)
        return segment

    def merge_segments(self, directory_for: Callable[[], Path] | None = None, defer_below: int = 0,
                       guard: AbstractContextManager[object] | None = None) -> int:
        """Tiered merge policy: a run of adjacent segments each at least half the size of the
        one before it is merged into one (dropping retired documents' postings), anywhere in
        the list (a small newest segment does not hold back the equal ones before it). Sizes
        then fall by more than half from the oldest to the newest: O(log n) segments, each
        posting rewritten O(log n) times. With `directory_for`, each merge streams into a new
        directory (see `Segment.merge`) instead of memory. Nothing is merged while there are
        fewer than `defer_below` segments (a pass that builds the index ends merging them all).

        The merge itself reads only immutable segments and `live`, which only the writer
        changes: with `guard` (the lock readers hold for a whole search), it runs outside it
        and the guard is taken only to swap the merged segment in."""
        if len(self.segments) < defer_below:
            return 0
        merges = 0
        while (run := merge_run([seg.n_postings for seg in self.segments])) is not None:
            lo, hi = run
            directory = directory_for() if directory_for is not None else None
            merged = Segment.merge(self.segments[lo:hi], self.live.view, directory, self.params)
            self._swap(lo, hi, merged, guard)
            merges += 1
        return merges

    def merge_all(self, directory_for: Callable[[], Path] | None = None,
                  guard: AbstractContextManager[object] | None = None) -> None:
        """Seal, then merge every segment into one (retired documents' postings dropped);
        `guard` as for `merge_segments`."""
        self.seal(guard)
        if len(self.segments) > 1:
            directory = directory_for() if directory_for is not None else None
            merged = Segment.merge(self.segments, self.live.view, directory, self.params)
            self._swap(0, len(self.segments), merged, guard)

    def _swap(self, lo: int, hi: int, merged: Segment, guard: AbstractContextManager[object] | None) -> None:
        """Segments [lo, hi) become `merged`: a new list, so a reader never sees one half-changed."""
        with guard or nullcontext():
            self.segments = [*self.segments[:lo], merged, *self.segments[hi:]]
            self.version += 1

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
        parts, _ = self.live_parts(term)
        if not parts:
            return np.zeros(0, np.uint32), np.zeros(0, np.uint32)
        docs, tfs = np.concatenate([p[0].full() for p in parts]), np.concatenate([p[1] for p in parts])
        keep = self.live.view[docs]
        return docs[keep], tfs[keep]

    def cached(self, term: str, k1: float, b: float) -> TermScores | None:
        entry = self._terms.get(term)
        if entry is not None and entry.key == (self.version, k1, b):
            self._terms.move_to_end(term)
            return entry
        return None

    def avgdl(self) -> float:
        return max(self.total_len / self.n_docs, 1e-9) if self.n_docs else 1.0

    def scored_entry(self, term: str, docs: np.ndarray, tfs: np.ndarray, term_idf: float, k1: float, b: float
                ) -> TermScores:
        """A term's live postings scored whole (and cached when costly)."""
        contrib = term_scores(tfs, self.doc_len.view[docs], term_idf, self.avgdl(), k1, b) if len(docs) \
            else np.zeros(0)
        entry = TermScores((self.version, k1, b), np.asarray(docs, dtype=np.int64), contrib, term_idf)
        if len(docs) >= CACHE_MIN_POSTINGS:
            self._cache_put(term, entry)
        return entry

    def _ok(self, allowed_types: np.ndarray, type_codes: np.ndarray, scope: np.ndarray | None,
            exclude: np.ndarray | None) -> np.ndarray:
        """Which documents a hit may be: live, of the allowed types, in the scope, not excluded."""
        size = self.doc_len.size
        if scope is not None:
            ok = np.zeros(size, dtype=bool)
            ok[scope] = allowed_types[type_codes[scope]] & self.live.view[scope]
        else:
            ok = self._allowed_live(allowed_types, type_codes)
        if exclude is not None and len(exclude):
            ok = ok.copy()  # the mask above may be a kept one
            ok[exclude[exclude < size]] = False
        return ok

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

    def _cache_put(self, term: str, entry: TermScores) -> None:
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
        exclude: np.ndarray | None = None,
    ) -> Hits:
        """Top-k documents by BM25, then timestamp desc, then uid asc; filters as masks
        (`exclude`: documents no hit may be, as a query's `-word` asks).

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
            if exclude is not None and len(exclude):
                out = np.zeros(size, dtype=bool)
                out[exclude[exclude < size]] = True
                docs = docs[~out[docs]]
            cand, raw, total, idfs = self._score_scope(terms, docs, k1, b, min_match, deadline)
            return self._ranked(cand, raw, total, idfs, k, k1, tiebreak_ts, tiebreak_uid)
        ok = self._ok(allowed_types, type_codes, scope, exclude)
        if not exact_total and min_match <= 1:
            found = self._search_windows(terms, k, k1, b, ok, deadline)
            if found is not None:
                return self._ranked(*found, k, k1, tiebreak_ts, tiebreak_uid)
        plan = [QueryTerm(self, term, k1, b) for term in terms]
        idfs = [entry.idf for entry in plan]
        if deadline is not None and time.monotonic() > deadline:
            raise DeadlineExceeded
        if min_match > 1 and len(plan) > 1:  # opt-in: every posting is counted, no pruning
            cand, raw, total = score_counting([t.scored() for t in plan], ok, min_match, deadline)
        elif len(plan) == 1:  # one term: its filtered postings are the candidates, no score array
            whole = plan[0].scored()
            keep = ok[whole.docs]
            cand, raw = whole.docs[keep], whole.contrib[keep]
            total = len(cand)
        else:
            cand, raw, total = score_terms(plan, ok, k, k1, deadline, exact_total)
        return self._ranked(cand, raw, total, idfs, k, k1, tiebreak_ts, tiebreak_uid)

    def _search_windows(self, terms: list[str], k: int, k1: float, b: float, ok: np.ndarray, deadline: float | None
                        ) -> tuple[np.ndarray, np.ndarray, int, list[float]] | None:
        """Top k by window bounds (see index/windows.py), or None where they do not serve: too
        many postings without bounds (segments written before them, another k1 or b), or a
        count that cannot say whether more than k documents match."""
        n = self.n_docs
        per_term: list[tuple[float, list[tuple[Segment | None, int, Piece]]]] = []
        idfs, unbounded = [], 0
        for term in terms:
            parts, df = self.parts(term, k1, b)
            term_idf = idf(n, df)
            idfs.append(term_idf)
            per_term.append((term_idf, parts))
            unbounded += sum(len(p.docs) for _, _, p in parts if p.bound is None)
        if unbounded > UNBOUNDED_POSTINGS:
            return None
        if self.kernel is not None:
            found = compiled.score_windows(self.kernel, per_term, ok, self.doc_len.view, k, k1, b, self.avgdl(),
                                           deadline)
        else:
            pieces = [(term_idf, [p for _, _, p in parts]) for term_idf, parts in per_term]
            found = score_windows(pieces, ok, self.doc_len.view, k, k1, b, self.avgdl(), deadline)
        cand, raw, seen, exact = found
        if not exact and seen <= k:
            return None
        return cand, raw, seen, idfs

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
                hit, where = part_docs.locate(docs)
                if not len(hit):
                    continue
                tfs = part_tfs[where]
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
            if len(cand) > k:
                cand, raw, rank_key = _newest_of_ties(cand, raw, rank_key, threshold, k, tiebreak_ts)
        order = np.lexsort((tiebreak_uid[cand], -tiebreak_ts[cand], -rank_key))[:k]
        best = max_attainable(idfs, k1)
        ranked_raw = raw[order]
        normalized = np.clip(ranked_raw / best, 0.0, 1.0) if best > 0 else np.zeros(len(order))
        return Hits(cand[order], ranked_raw, normalized, total)


def _newest_of_ties(cand: np.ndarray, raw: np.ndarray, rank_key: np.ndarray, threshold: float, k: int,
                    tiebreak_ts: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Of candidates tied at the k-th score, only the newest can rank: a repeated message
    ("let me check", "failures") ties thousands of documents, and sorting them all by time and
    uid cost ms. Keeps every candidate above the tie and the tied ones at or after the
    timestamp the last places need (equal timestamps stay, for the uid)."""
    tied = rank_key == threshold
    places = k - (len(cand) - int(np.count_nonzero(tied)))
    ts = tiebreak_ts[cand[tied]]
    newest = np.partition(ts, len(ts) - places)[len(ts) - places]
    keep = ~tied
    keep[tied] = ts >= newest
    return cand[keep], raw[keep], rank_key[keep]

