"""BM25 scoring of a multi-term query over whole posting lists, MaxScore-style.

The searcher (`searcher.InvertedIndex`) owns the postings, the statistics and the term-score
cache; this module decides which postings a query reads and how: rarest terms scored whole,
the common ones only probed at the documents that can still make the top k.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from moraine.errors import DeadlineExceeded
from moraine.index.bm25 import idf, term_scores
from moraine.index.postings import DocList

if TYPE_CHECKING:
    from moraine.index.searcher import InvertedIndex


@dataclass(frozen=True)
class TermScores:
    key: tuple[int, float, float]  # (index version, k1, b) the scores were computed for
    docs: np.ndarray  # live doc ids, increasing
    contrib: np.ndarray  # BM25 contribution of the term to each doc
    idf: float


class QueryTerm:
    """A term of a query: its idf at once (from posting counts), its postings scored whole only
    when the query needs them all; a term the pruning reaches late is probed at the leading
    documents instead (a binary search per leader and posting run)."""

    def __init__(self, index: InvertedIndex, term: str, k1: float, b: float) -> None:
        self.index, self.term, self.k1, self.b = index, term, k1, b
        self.whole = index.cached(term, k1, b)
        self.parts: list[tuple[DocList, np.ndarray]] = []
        if self.whole is not None:
            self.idf = self.whole.idf
        else:
            self.parts, df = index.live_parts(term)
            self.idf = idf(index.n_docs, df)

    def postings(self) -> int:
        return len(self.whole.docs) if self.whole is not None else sum(len(p[0]) for p in self.parts)

    def scored(self) -> TermScores:
        if self.whole is None:
            live = self.index.live.view
            docs = np.concatenate([p[0].full() for p in self.parts]) if self.parts else np.zeros(0, np.uint32)
            tfs = np.concatenate([p[1] for p in self.parts]) if self.parts else np.zeros(0, np.uint32)
            keep = live[docs]
            self.whole = self.index.scored_entry(self.term, docs[keep], tfs[keep], self.idf, self.k1, self.b)
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
            hit, where = part_docs.locate(docs)
            if len(hit):
                tfs = part_tfs[where]
                hits.append(hit)
                contribs.append(term_scores(tfs, self.index.doc_len.view[docs[hit]], self.idf, self.index.avgdl(),
                                            self.k1, self.b))
        if not hits:
            return np.zeros(0, np.int64), np.zeros(0)
        return np.concatenate(hits), np.concatenate(contribs)

    def live_docs(self) -> np.ndarray:
        return self.scored().docs if self.whole is not None or not self.parts else \
            np.concatenate([d[self.index.live.view[d]] for d in (p[0].full() for p in self.parts)]).astype(np.int64)


def score_terms(plan: list[QueryTerm], ok: np.ndarray, k: int, k1: float, deadline: float | None,
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
    late: list[QueryTerm] = []  # terms only probed: their matches counted for an exact total
    for step, entry in enumerate(plan):
        if deadline is not None and time.monotonic() > deadline:
            raise DeadlineExceeded
        if leaders is None:
            touched.append(_add_whole(entry, ok, scores))
        else:
            late.append(entry)
            _add_at(entry, leaders, scores)
            leaders = _still_leading(leaders, scores, k, remaining[step + 1])
        # Worth looking for a cut-off only once what was scored can outweigh what is left.
        if leaders is None and step + 1 < len(plan) and sum(upper[: step + 1]) > remaining[step + 1]:
            cand = _seen(touched, scores)
            leaders = _cut_off(cand, scores, k, remaining[step + 1])
            if leaders is not None:
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


def _add_whole(entry: QueryTerm, ok: np.ndarray, scores: np.ndarray) -> np.ndarray:
    """Add a term's contribution at every allowed document holding it; returns those documents."""
    whole = entry.scored()
    keep = ok[whole.docs]
    docs = whole.docs[keep]
    scores[docs] += whole.contrib[keep]
    return docs


def _add_at(entry: QueryTerm, leaders: np.ndarray, scores: np.ndarray) -> None:
    """Add a late term's contribution at the leaders (only their scores are read from here on)."""
    if len(leaders) * 16 >= entry.postings():  # many leaders: one scatter beats a probe each
        whole = entry.scored()
        scores[whole.docs] += whole.contrib
    else:
        hit, contrib = entry.probe(leaders)
        scores[leaders[hit]] += contrib


def _cut_off(cand: np.ndarray, scores: np.ndarray, k: int, remaining: float) -> np.ndarray | None:
    """The leaders once unseen documents can no longer reach the k-th score (nor seen ones whose
    score plus everything left stays below it), else None."""
    if len(cand) < k:
        return None
    kth = np.partition(scores[cand], len(cand) - k)[len(cand) - k]
    if remaining >= kth:
        return None
    return cand[scores[cand] + remaining >= kth]


def _seen(touched: list[np.ndarray], scores: np.ndarray) -> np.ndarray:
    """The documents scored so far (sorted): from the terms' own postings while they are few,
    else by one pass over the score array."""
    if sum(len(t) for t in touched) * 64 < len(scores):
        return np.unique(np.concatenate(touched)) if touched else np.zeros(0, np.int64)
    return np.flatnonzero(scores > 0)


def score_counting(plan: list[TermScores], ok: np.ndarray, min_match: int, deadline: float | None
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
