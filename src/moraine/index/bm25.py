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
    """Per-document contribution of one term, for arrays of tf and document length."""
    tf = tfs.astype(np.float64)
    norm = k1 * (1.0 - b + b * doc_lens.astype(np.float64) / avgdl)
    return idf_value * tf * (k1 + 1.0) / (tf + norm)


def max_attainable(idfs: list[float], k1: float) -> float:
    """The best score a query can reach: every term at its saturation weight idf·(k1+1).

    Dividing by it puts scores in [0, 1] with a meaning: a strong full match is near 1,
    a weak partial match is low (contrast: dividing by the top hit makes it always 1).
    """
    return float(sum(idfs) * (k1 + 1.0))
