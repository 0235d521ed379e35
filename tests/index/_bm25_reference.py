"""A naive, independent Okapi BM25 reference: plain Python loops over every document.

It shares only the tokenizer with Moraine (documents and queries must be split the same
way); corpus statistics, scores, normalization, filters, ranking and `total` are computed
here from the definitions, never through `moraine.index.bm25` or the searcher.
"""

from __future__ import annotations

import inspect
import math
from collections import Counter
from dataclasses import dataclass

import numpy as np

from moraine.index.tokenize import query_terms, tokenize


@dataclass
class RefDoc:
    doc_id: int
    tf: dict[str, int]
    length: int
    type_code: int
    ts: int
    uid: bytes


@dataclass
class RefResult:
    docs: list[int]
    raw: list[float]
    normalized: list[float]
    total: int
    ranking: list[tuple[float, int]]  # (raw, doc) of every match, ranked, before the limit
    tiebreak: dict[int, tuple[int, bytes]]  # doc → (timestamp, uid) of every match


def ref_doc(doc_id: int, text: str, type_code: int, ts: int, uid: bytes) -> RefDoc | None:
    """A live document, or None when the text has no token (not a document at all)."""
    tokens = tokenize(text)
    if not tokens:
        return None
    return RefDoc(doc_id, dict(Counter(tokens)), len(tokens), type_code, ts, uid)


def reference_search(
    docs: list[RefDoc],
    terms: list[str],
    k: int,
    *,
    k1: float,
    b: float,
    allowed_codes: set[int],
    scope: set[int] | None,
) -> RefResult:
    """BM25 over `docs` (the live documents of every type) for distinct query `terms`."""
    assert len(set(terms)) == len(terms), "the reference expects distinct query terms"
    n = len(docs)
    if n == 0 or not terms:
        return RefResult([], [], [], 0, [], {})
    total_len = 0
    for doc in docs:
        total_len += doc.length
    avgdl = total_len / n
    # one pass over every live document: which query terms it contains (gives df)
    df = dict.fromkeys(terms, 0)
    matching: list[tuple[RefDoc, list[str]]] = []
    for doc in docs:
        tf = doc.tf
        present = [term for term in terms if term in tf]
        if present:
            matching.append((doc, present))
            for term in present:
                df[term] += 1
    idf: dict[str, float] = {}
    for term in terms:
        idf[term] = math.log1p((n - df[term] + 0.5) / (df[term] + 0.5))  # ln(1 + x)
    scored: list[tuple[float, RefDoc]] = []
    for doc, present in matching:
        score = 0.0
        for term in present:  # summed in query-term order
            tf = doc.tf[term]
            score += idf[term] * tf * (k1 + 1.0) / (tf + k1 * (1.0 - b + b * doc.length / avgdl))
        if score > 0 and doc.type_code in allowed_codes and (scope is None or doc.doc_id in scope):
            scored.append((score, doc))
    # raw score desc, then timestamp desc, then uid asc
    scored.sort(key=lambda pair: (pair[1].uid))
    scored.sort(key=lambda pair: (-pair[0], -pair[1].ts))
    best = 0.0
    for term in terms:
        best += idf[term] * (k1 + 1.0)
    top = scored[:k]
    return RefResult(
        docs=[d.doc_id for _, d in top],
        raw=[s for s, _ in top],
        normalized=[min(1.0, max(0.0, s / best)) for s, _ in top],
        total=len(scored),
        ranking=[(sc, d.doc_id) for sc, d in scored],
        tiebreak={d.doc_id: (d.ts, d.uid) for _, d in scored},
    )


TIE_EPS = 1e-9  # relative: scores this close count as equal (float summation order, rounding)


def _near(a: float, b: float) -> bool:
    return abs(a - b) <= TIE_EPS * max(1.0, abs(a), abs(b))


def assert_hits_match(hits, ref: RefResult, context: str = "", *, exact_total: bool = True) -> None:
    """Same documents in the same order, raw and normalized scores within 1e-9, same total.

    Scores that are mathematically equal can differ in the last bits depending on the order
    of floating-point operations (and an implementation may round them to rank near-ties by
    timestamp); inside such a run of near-equal scores (relative 1e-9, the score tolerance)
    the two rankings may differ, also in which members of the run make the top k. Exactly
    equal scores, e.g. of identical documents, must be ordered by timestamp desc, uid asc.
    """
    got = [int(d) for d in hits.docs]
    if exact_total:
        assert hits.total == ref.total, f"total {hits.total} != reference {ref.total} {context}"
    else:  # exact up to k + 1: enough to tell whether more matches exist than were returned
        bound = len(ref.docs) + 1
        assert min(hits.total, bound) == min(ref.total, bound), f"total {hits.total} vs {ref.total} {context}"
    assert len(got) == len(ref.docs), f"{len(got)} hits != reference {len(ref.docs)} {context}"
    raw = np.asarray(hits.raw, dtype=np.float64)
    norm = np.asarray(hits.scores, dtype=np.float64)
    assert raw.shape == (len(ref.raw),) and norm.shape == (len(ref.raw),)
    if not got:
        return
    assert np.max(np.abs(raw - np.array(ref.raw))) <= 1e-9, f"raw scores differ {context}"
    assert np.max(np.abs(norm - np.array(ref.normalized))) <= 1e-9, f"normalized scores differ {context}"
    assert np.all((norm >= 0) & (norm <= 1))
    # the hits are ranked by their own raw scores desc, then timestamp desc, then uid asc
    for i in range(len(got) - 1):
        a, b = got[i], got[i + 1]
        assert raw[i] >= raw[i + 1] or _near(raw[i], raw[i + 1]), f"raw scores not descending at {i} {context}"
        if raw[i] == raw[i + 1]:
            (ts_a, uid_a), (ts_b, uid_b) = ref.tiebreak[a], ref.tiebreak[b]
            assert (-ts_a, uid_a) < (-ts_b, uid_b), f"tie at {i} not broken by ts desc, uid asc {context}"
    if got == ref.docs:
        return
    # runs of near-equal reference scores over the whole ranking (not only the top k)
    run_of: dict[int, int] = {}
    members: list[set[int]] = []
    previous = None
    for score, doc in ref.ranking:
        if previous is None or not _near(score, previous):
            members.append(set())
        members[-1].add(doc)
        run_of[doc] = len(members) - 1
        previous = score
    position = 0
    while position < len(ref.docs):
        run = run_of[ref.docs[position]]
        end = position
        while end < len(ref.docs) and run_of[ref.docs[end]] == run:
            end += 1
        block = got[position:end]
        ok = all(run_of.get(d) == run for d in block) and len(set(block)) == len(block)
        if end < len(ref.docs) or len(members[run]) == end - position:
            ok = ok and set(block) == set(ref.docs[position:end])
        if not ok:
            raise AssertionError(
                f"ranking differs at positions {position}..{end - 1} {context}: got {block[:6]} "
                f"raw {list(raw[position:position + 6])}, reference {ref.docs[position:end][:6]} "
                f"raw {ref.raw[position:position + 6]}"
            )
        position = end


def distinct_terms(query: str, max_terms: int = 32) -> list[str]:
    return query_terms(query, max_terms)


def index_add(index, doc_id: int, text: str) -> None:
    """Feed one document's text to `InvertedIndex.add`, whichever of its two signatures
    (`add(doc, tokens)` or `add(doc, term_tfs, length)`) this version of the index has."""
    params = inspect.signature(index.add).parameters
    if "length" in params:
        from moraine.index.tokenize import term_frequencies

        index.add(doc_id, *term_frequencies(text))
    else:
        index.add(doc_id, tokenize(text))
