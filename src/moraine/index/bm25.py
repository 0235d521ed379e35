"""Okapi BM25 as small vectorized formulas, shared by the searcher and its tests."""

from __future__ import annotations

import numpy as np


def idf(n_docs: int, df: int) -> float:
    """Non-negative BM25 idf: ln(1 + (N − df + 0.5) / (df + 0.5))."""
    n = max(n_docs, df)
    return float(np.log1p((n - df + 0.5) / (df + 0.5)))


def term_scores(
    tfs: np.ndarray, doc_lens: np.ndarray, idf_value: float, avgdl: float, k1: float, b: float
) -> np.ndarray:
    """Per-document contribution of one term, for arrays of tf and document length:
    idf·tf·(k1 + 1) / (tf + k1·(1 − b + b·dl/avgdl)).

    Computed in place in two buffers, operation for operation as the formula reads (each
    step the same IEEE operation, so the scores are the same bit for bit): the ten temporaries
    of the plain expression cost 2-4x as much on a common term's postings (fresh pages for
    each array past malloc's mmap threshold)."""
    tf = tfs.astype(np.float64)
    norm = doc_lens.astype(np.float64)
    norm *= b
    norm /= avgdl
    norm += 1.0 - b
    norm *= k1
    norm += tf
    out = tf * idf_value
    out *= k1 + 1.0
    out /= norm
    return out


def max_attainable(idfs: list[float], k1: float) -> float:
    """The best score a query can reach: every term at its saturation weight idf·(k1+1).

    Dividing by it puts scores in [0, 1] with a meaning: a strong full match is near 1,
    a weak partial match is low (contrast: dividing by the top hit makes it always 1).
    """
    return float(sum(idfs) * (k1 + 1.0))
