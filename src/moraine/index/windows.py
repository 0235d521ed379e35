"""Window bounds: how much a frequent term can add to any document of a stretch of doc ids,
kept when a segment is written, and the global top-k search that skips stretches by them.

Doc ids are cut into windows of WINDOW consecutive ids. For every term with at least
MIN_TABLED postings in a segment, the segment keeps one byte per window it covers:

    q = floor(255 · max over the window's postings of tf / (tf + k1·(1 − b) + k1·b·dl / A_ref)) + 1

(0 where the term is absent), with k1, b and A_ref (the segment's mean document length) in
`win_meta`. A term's BM25 contribution is idf·(k1 + 1)·tf / (tf + k1·(1 − b + b·dl / A)): at
the index's current avgdl A it is at most idf·(k1 + 1)·q/255·max(1, A / A_ref), because
shrinking dl/A by a factor r < 1 grows the fraction by at most 1/r. So the bound holds however
the corpus grows or shrinks after the segment was written, and scores stay exact: nothing here
is a stored score. A query whose k1 or b differ from the segment's ignores its table.

The search (`score_windows`) sums the terms' bounds per window and visits windows best bound
first, a batch at a time; once k documents are ranked, a window whose bound is below the k-th
score is never read. Inside a window, the terms whose bounds together stay below the k-th score
are only probed at the documents the other terms bring (MaxScore, per window): common terms of
a long query are read where they can still matter, and a rare term's documents decide early.
A query whose rarest term is too rare for bounds ranks that term's documents before any window
(`_rare_first`), so the first batch already has a k-th score to skip by.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np

from moraine.errors import DeadlineExceeded
from moraine.index.bm25 import term_scores
from moraine.index.postings import DocList, ranges_in

WINDOW = 512  # doc ids per window
MIN_TABLED = 4096  # postings of a term in a segment before it keeps window bounds
SLACK = 1.0 - 1e-12  # ties with the k-th score (up to summation order) are kept for the tie-break
FIRST_BATCH = 32  # windows scored before the first cut-off exists
GROWTH = 4  # each batch this many times the one before (fewer passes of per-batch work)


@dataclass(frozen=True)
class Piece:
    """One segment's (or memtable chunk's) postings of a query term, with its window bounds
    as multiples of the term's saturation weight when the segment keeps them."""

    docs: DocList
    tfs: np.ndarray
    bound: np.ndarray | None = None  # float per window from `first_window`: ≥ tf-part of any posting
    first_window: int = 0


def table_rows(docs: np.ndarray, tfs: np.ndarray, starts: np.ndarray, ends: np.ndarray, lens: np.ndarray,
               lens_base: int, first_window: int, n_windows: int, params: tuple[float, float, float]
               ) -> np.ndarray:
    """Window bounds (uint8, one row of `n_windows` per term) of the terms whose postings are
    docs/tfs[starts[i]:ends[i]] (exact frequencies); `lens[doc - lens_base]` is a doc's length."""
    k1, b, a_ref = params
    rows = np.zeros((len(starts), n_windows), dtype=np.uint8)
    for i, (lo, hi) in enumerate(zip(starts.tolist(), ends.tolist(), strict=True)):
        d = np.asarray(docs[lo:hi], dtype=np.int64)
        tf = np.asarray(tfs[lo:hi], dtype=np.float64)
        frac = tf / (tf + k1 * (1.0 - b) + (k1 * b / a_ref) * lens[d - lens_base])
        w = d // WINDOW - first_window
        first = np.flatnonzero(np.concatenate(([True], w[1:] != w[:-1])))
        top = np.maximum.reduceat(frac, first)
        rows[i, w[first]] = np.minimum(np.floor(top * 255.0) + 1.0, 255.0).astype(np.uint8)
    return rows


def tabled_terms(offsets: np.ndarray) -> np.ndarray:
    """Indices of the terms frequent enough to keep window bounds."""
    return np.flatnonzero(np.diff(offsets) >= MIN_TABLED)


def window_span(doc_ids: np.ndarray) -> tuple[int, int]:
    """(first window, number of windows) a segment's documents cover."""
    if not len(doc_ids):
        return 0, 0
    first = int(doc_ids.min()) // WINDOW
    return first, int(doc_ids.max()) // WINDOW - first + 1


@dataclass
class _Term:
    weight: float  # idf·(k1 + 1)
    idf: float
    exact: list[tuple[np.ndarray, np.ndarray]]  # (docs int64, contributions) of pieces without bounds
    tabled: list[Piece]


def score_windows(terms: list[tuple[float, list[Piece]]], ok: np.ndarray, doc_len: np.ndarray, k: int,
                  k1: float, b: float, avgdl: float, deadline: float | None
                  ) -> tuple[np.ndarray, np.ndarray, int, bool]:
    """(candidate docs, raw scores, matches seen, exact) of a top-k query over (idf, pieces)
    per term. The candidates hold the exact top k (ties with the k-th included). The count
    is exact when `exact` (no document was skipped: no cut-off ever held); otherwise every
    document counted matches, so a count above k proves more than k matches."""
    n_windows = (len(ok) + WINDOW - 1) // WINDOW
    bounds = np.zeros((len(terms), n_windows))
    prepared = []
    for t, (term_idf, pieces) in enumerate(terms):
        term = _Term(term_idf * (k1 + 1.0), term_idf, [], [])
        for piece in pieces:
            if piece.bound is None:
                d = np.asarray(piece.docs.full(), dtype=np.int64)
                c = term_scores(piece.tfs, doc_len[d], term_idf, avgdl, k1, b)
                term.exact.append((d, c))
                _raise_to(bounds[t], d // WINDOW, c)
            else:
                span = slice(piece.first_window, piece.first_window + len(piece.bound))
                np.maximum(bounds[t, span], piece.bound * term.weight, out=bounds[t, span])
                term.tabled.append(piece)
        prepared.append(term)
    reach = bounds.sum(axis=0)  # what any document of a window can score
    search = _Search(prepared, bounds, ok, doc_len, k, (k1, b, avgdl), deadline)
    search.run(reach, may_switch=all(term.tabled for term in prepared))
    return search.best_docs, search.best_scores, max(search.seen, search.held), search.exact


class _Search:
    """The window loop's state: the best documents so far, the k-th score, what was read."""

    def __init__(self, terms: list[_Term], bounds: np.ndarray, ok: np.ndarray, doc_len: np.ndarray, k: int,
                 params: tuple[float, float, float], deadline: float | None) -> None:
        self.terms, self.bounds, self.ok, self.doc_len, self.k = terms, bounds, ok, doc_len, k
        self.params, self.deadline = params, deadline
        self.best_docs, self.best_scores = np.zeros(0, np.int64), np.zeros(0)
        self.theta, self.seen = 0.0, 0
        self.whole = False  # whether one term's documents were ranked whole (then windows were skipped)
        self.held = 0  # allowed documents of that term looked at: all match
        self.read = np.zeros(bounds.shape[1], dtype=np.bool_)
        self.exact = False

    def run(self, reach: np.ndarray, may_switch: bool) -> None:
        """Read windows best `reach` first, in growing batches, until none can reach the k-th
        score. A query of common terms that finds, after SWITCH_AFTER windows, that it is worth
        it (`worth_whole`), ranks its rarest term's documents whole instead (`_whole_term`), and
        reads on only where a document lacking that term can still reach it. A query whose
        rarest term is too rare to keep window bounds does that first (`_rare_first`)."""
        rare = _rare_first(self.terms, self.k)
        if rare is not None and self._take_whole(rare):
            reach, may_switch = reach - self.bounds[rare], False  # what a document lacking it can reach
        order = _by_reach(reach, self.theta * SLACK)
        pos, batch = 0, FIRST_BATCH
        while pos < len(order) and reach[order[pos]] >= self.theta * SLACK:
            if self.deadline is not None and time.monotonic() > self.deadline:
                raise DeadlineExceeded
            if may_switch and pos >= SWITCH_AFTER:
                may_switch = False
                whole = _rarest(self.terms)
                left = int(np.count_nonzero(reach[order[pos:]] >= self.theta * SLACK))
                if worth_whole(left, len(order), len(self.terms)) and self._take_whole(whole):
                    reach = np.where(self.read, 0.0, reach - self.bounds[whole])  # a document lacking it
                    order, pos = _by_reach(reach, self.theta * SLACK), 0
                    continue
            wins = order[pos : pos + batch]
            wins = np.sort(wins[reach[wins] >= self.theta * SLACK])
            pos, batch = pos + batch, batch * GROWTH
            self._read(wins)
        self.exact = not self.whole and self.theta == 0.0 and pos >= len(order)

    def _read(self, wins: np.ndarray) -> None:
        k1, b, avgdl = self.params
        docs, scores, matched = _score_batch(self.terms, wins, self.bounds[:, wins], self.theta, self.ok,
                                             self.doc_len, k1, b, avgdl)
        self.read[wins] = True
        self.seen += matched
        self._merge(docs, scores)

    def _take_whole(self, t: int) -> bool:
        """Rank every allowed document holding term `t` at once (False: too many to read)."""
        found = _whole_term(self.terms, t, self.bounds, self.theta, self.k, self.ok, self.doc_len, self.params,
                            self.deadline)
        if found is None:
            return False
        docs, scores, self.held = found
        self.whole = True
        self._merge(docs, scores)
        return True

    def _merge(self, docs: np.ndarray, scores: np.ndarray) -> None:
        """Add candidates; keep those at or above the new k-th score."""
        best_docs, best_scores = np.concatenate((self.best_docs, docs)), np.concatenate((self.best_scores, scores))
        if self.whole:  # a document of the term ranked whole may be found again in a window: once is enough
            best_docs, first = np.unique(best_docs, return_index=True)
            best_scores = best_scores[first]
        self.theta = _kth(best_scores, self.k)
        keep = best_scores >= self.theta * SLACK
        self.best_docs, self.best_scores = best_docs[keep], best_scores[keep]


def _by_reach(reach: np.ndarray, floor: float = 0.0) -> np.ndarray:
    """The windows that can reach `floor` (a k-th score already known) and hold a match, best
    reach first (ties in window order). Only those are sorted: with a floor from a rare term,
    most of a common term's 5,000 windows at 1M."""
    live = np.flatnonzero(reach >= floor) if floor > 0.0 else np.flatnonzero(reach > 0.0)
    return live[np.argsort(-reach[live], kind="stable")]


def _kth(scores: np.ndarray, k: int) -> float:
    """The k-th best of `scores` (0 while there are fewer)."""
    return float(np.partition(scores, len(scores) - k)[len(scores) - k]) if len(scores) >= k else 0.0


# A query of common terms only (every term with window bounds) can read nearly every window: the
# sum of each term's best in a window reaches the k-th score in almost all of them, while its top
# k almost always hold every term (at 1M events 'test is' read 5,010 of 5,022 windows, of which
# 17 held a document at or above the k-th score). Its rarest term's documents are then ranked
# whole (`_whole_term`: one pass over that term's postings, the other terms probed only where
# their window bounds still allow the k-th score), and windows are read on only where a document
# lacking that term could still reach it: none of the 5,022 for 'test is', 'the error', 'stale
# error py'.
WHOLE_TERM_LIMIT = 2_000_000  # postings of the rarest term: past this, windows are read as before
SWITCH_AFTER = FIRST_BATCH * (1 + GROWTH)  # windows read (two batches) before a query may switch
SWITCH_WINDOWS = 512  # windows still to read past which the rarest term is ranked whole
SOLE_TERM_SHARE = 4  # a one-term query switches when more than 1/4 of its term's windows are left


def worth_whole(left: int, windows: int, n_terms: int) -> bool:
    """Whether ranking the rarest term whole beats reading the `left` windows that can still
    reach the k-th score. A query of several common terms switches past SWITCH_WINDOWS: each
    window read probes them all. A one-term query reads a window cheaply and gains only when
    the windows left are a large share of its term's (a repeated message tying thousands of
    documents at the top score: 'failures' at 1M, 9.4 -> 2.8 ms); while a batch or two more
    would settle it ('from', 'config'), reading a common term whole costs 3x."""
    return left > SWITCH_WINDOWS and (n_terms > 1 or left * SOLE_TERM_SHARE > windows)


def _rarest(terms: list[_Term]) -> int:
    return max(range(len(terms)), key=lambda t: terms[t].idf)


def _rare_first(terms: list[_Term], k: int) -> int | None:
    """The term to rank whole before reading any window: the rarest of those with at least k
    postings (one with fewer could not set a k-th score), when it keeps no window bounds
    anywhere (fewer than MIN_TABLED postings in each part). Its contributions are already
    computed for its bound row, so ranking its documents costs a filter and probes of the other
    terms at them, and the k-th score it sets rules out most windows before the first batch.
    The 300 bench queries, cold, the same answers (tools/bench_windows_ab.py, 4 rounds): 100k
    P50 1.04-1.20 -> 0.79-0.87 ms, 1M 2.50-3.02 -> 2.15-2.30 ms, P95 within the rounds' spread.
    A term common enough for bounds is not ranked first: at 1M one of 4,096-20,000 postings
    cost 18% more than the windows, past 20,000 80% more (the other terms probed at each of its
    documents)."""
    held = [t for t in range(len(terms)) if sum(len(d) for d, _ in terms[t].exact) >= k or terms[t].tabled]
    if not held:
        return None
    rare = max(held, key=lambda t: terms[t].idf)
    return None if terms[rare].tabled else rare


def _whole_term(terms: list[_Term], t: int, bounds: np.ndarray, theta: float, k: int, ok: np.ndarray,
                doc_len: np.ndarray, params: tuple[float, float, float], deadline: float | None
                ) -> tuple[np.ndarray, np.ndarray, int] | None:
    """Every allowed document holding term `t` that can reach the k-th score (what the other
    terms can add there is at most their bounds in its window), with its exact score, and how
    many allowed documents holding it were looked at (all of them match); None when the term
    has too many postings. `theta` is the k-th score of the windows read so far; with none read
    (0), floors of it rule documents out instead: each document scores at least what the terms
    added so far give it, so the k-th best of those sums is one (the term alone, then after
    each term probed)."""
    k1, b, avgdl = params
    term = terms[t]
    if sum(len(p.docs) for p in term.tabled) + sum(len(d) for d, _ in term.exact) > WHOLE_TERM_LIMIT:
        return None
    pairs = []  # (docs, contributions) per part
    for piece in term.tabled:
        d = piece.docs.full()
        pairs.append((d, term_scores(piece.tfs, doc_len[d], term.idf, avgdl, k1, b)))
    pairs.extend(term.exact)
    floors = theta == 0.0
    if floors:
        theta = _kth(np.concatenate([c[ok[d]] for d, c in pairs]), k)
    others = sorted((i for i in range(len(terms)) if i != t), key=lambda i: -terms[i].weight)
    rest_w = bounds[others].sum(axis=0)  # per window: what the other terms can add at most
    need = theta * SLACK - rest_w  # per window: what the term must give a document there
    found: list[tuple[np.ndarray, np.ndarray, int]] = []  # (docs, scores, allowed postings) per part
    for d, c in pairs:
        allowed = ok[d]
        at = np.flatnonzero(allowed & (c >= need[d // WINDOW]))
        found.append((d[at].astype(np.int64), c[at], int(np.count_nonzero(allowed))))
    matched = sum(n for _, _, n in found)
    docs, scores = np.concatenate([d for d, _, _ in found]), np.concatenate([c for _, c, _ in found])
    if len(docs) > 1 and bool(np.any(docs[1:] < docs[:-1])):  # a term's parts out of doc order
        order = np.argsort(docs)
        docs, scores = docs[order], scores[order]
    windows = docs // WINDOW
    rest = rest_w[windows]
    for i in others:  # heaviest first; after each, what can no longer reach theta goes
        if deadline is not None and time.monotonic() > deadline:
            raise DeadlineExceeded
        scores = scores + _probe(terms[i], docs, doc_len, k1, b, avgdl)
        if floors:
            theta = max(theta, _kth(scores, k))
        rest = rest - bounds[i][windows]
        keep = scores + rest >= theta * SLACK
        docs, scores, rest, windows = docs[keep], scores[keep], rest[keep], windows[keep]
    return docs, scores, matched


def _raise_to(bound: np.ndarray, windows: np.ndarray, values: np.ndarray) -> None:
    """bound[w] = max(bound[w], values in window w), windows non-decreasing."""
    if not len(windows):
        return
    first = np.flatnonzero(np.concatenate(([True], windows[1:] != windows[:-1])))
    top = np.maximum.reduceat(values, first)
    at = windows[first]
    bound[at] = np.maximum(bound[at], top)


def _score_batch(terms: list[_Term], wins: np.ndarray, bounds: np.ndarray, theta: float, ok: np.ndarray,
                 doc_len: np.ndarray, k1: float, b: float, avgdl: float) -> tuple[np.ndarray, np.ndarray, int]:
    """The documents of windows `wins` that can reach `theta`, with exact scores, and how many
    allowed documents of those windows match a term the batch read."""
    # Per window, the weakest terms whose bounds add up to less than theta are not essential:
    # a document holding only those cannot reach it.
    rank = np.argsort(bounds, axis=0, kind="stable")
    below = np.cumsum(np.take_along_axis(bounds, rank, axis=0), axis=0) < theta * SLACK
    optional = np.zeros_like(below)
    np.put_along_axis(optional, rank, below, axis=0)
    rest = (bounds * optional).sum(axis=0)
    lows = wins * WINDOW
    found_docs, found_scores = [], []
    for t, term in enumerate(terms):
        essential = ~optional[t]
        if not essential.any():
            continue
        lo, hi = lows[essential], lows[essential] + WINDOW
        for d, c in term.exact:
            at = ranges_in(d, lo, hi)
            found_docs.append(d[at])
            found_scores.append(c[at])
        for piece in term.tabled:
            at, held = piece.docs.ranges(lo, hi)
            d = held.astype(np.int64)
            found_docs.append(d)
            found_scores.append(term_scores(piece.tfs[at], doc_len[d], term.idf, avgdl, k1, b))
    if not found_docs:
        return np.zeros(0, np.int64), np.zeros(0), 0
    cand, scores, where = _summed(found_docs, found_scores, wins, len(ok))
    allowed = ok[cand]
    cand, scores, where = cand[allowed], scores[allowed], where[allowed]
    matched = len(cand)
    keep = scores + rest[where] >= theta * SLACK
    cand, scores, where = cand[keep], scores[keep], where[keep]
    # The optional terms, heaviest first; after each, the candidates that can no longer reach
    # theta with what the terms still to probe could add are dropped.
    for t in sorted(range(len(terms)), key=lambda i: -terms[i].weight):
        probe = optional[t, where]
        if not probe.any():
            continue
        at = np.flatnonzero(probe)
        scores[at] += _probe(terms[t], cand[at], doc_len, k1, b, avgdl)
        rest = rest - bounds[t] * optional[t]
        keep = scores + rest[where] >= theta * SLACK
        cand, scores, where = cand[keep], scores[keep], where[keep]
    return cand, scores, matched


def _summed(found_docs: list[np.ndarray], found_scores: list[np.ndarray], wins: np.ndarray, n_docs: int
            ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(documents, summed scores, index in `wins` of their window) of the postings found in
    the windows `wins` (sorted). Each window gets WINDOW slots of one dense array: a scatter
    into it is linear, where sorting the postings (np.unique) took 4-7x as long on the large
    batches of common terms. Sums add in the postings' order, as a sort-then-bincount does."""
    if len(found_docs) == 1:  # one term's postings in one part: already distinct and sorted
        docs = found_docs[0]
        return docs, found_scores[0], np.searchsorted(wins, docs // WINDOW)
    place = np.zeros((n_docs + WINDOW - 1) // WINDOW, dtype=np.int64)
    place[wins] = np.arange(len(wins))
    docs = np.concatenate(found_docs)
    slots = place[docs // WINDOW] * WINDOW + docs % WINDOW
    size = len(wins) * WINDOW
    held = np.zeros(size, dtype=np.bool_)
    held[slots] = True
    taken = np.flatnonzero(held)
    where = taken // WINDOW
    scores = np.bincount(slots, weights=np.concatenate(found_scores), minlength=size)[taken]
    return wins[where] * WINDOW + taken % WINDOW, scores, where


def _probe(term: _Term, docs: np.ndarray, doc_len: np.ndarray, k1: float, b: float, avgdl: float) -> np.ndarray:
    """The term's contribution at each of `docs` (sorted): 0 where it does not occur."""
    out = np.zeros(len(docs))
    for d, c in term.exact:
        where = np.minimum(np.searchsorted(d, docs), max(len(d) - 1, 0))
        if len(d):
            hit = d[where] == docs
            out[hit] += c[where[hit]]
    for piece in term.tabled:
        hit, where = piece.docs.locate(docs)
        if len(hit):
            out[hit] += term_scores(piece.tfs[where], doc_len[docs[hit]], term.idf, avgdl, k1, b)
    return out
