"""Every place a byte string occurs in a buffer, found by array passes instead of a call per place.

A pattern that matches exactly where its literal is (`word`, `word\\w*`) is answered from the
literal's places alone. A call per place (`find`, or RE2 finding each matching line) costs
0.5-1.4 us of Python, and common words are dense: `remove` is in 70k lines of one 60 MB chunk
of the 1M corpus, 110 ms by RE2. Here the places come from numpy: the literal's rarest byte
pair is compared against the buffer read as 16-bit words (once at even offsets, once at odd),
and the few candidates left are checked byte by byte, rarest byte first (25 ms for `remove`;
12 ms for an absent literal, where RE2 is quicker only when the first byte is rare).

Rarity is measured on a sample of the buffer, so it follows the text (English, code, logs).
"""

from __future__ import annotations

from typing import Any

import numpy as np

_SAMPLE = 1 << 18  # bytes of the windows that rarity is measured on


def literal_places(literal: bytes, data: Any, windows: list[tuple[int, int]]) -> np.ndarray:
    """Sorted start offsets of every occurrence of `literal` (2+ bytes, overlapping ones too)
    lying wholly inside one of the windows data[lo:hi] (sorted, disjoint)."""
    if len(literal) < 2 or not windows or not len(data):
        return np.zeros(0, dtype=np.int64)
    buf = np.frombuffer(data, dtype=np.uint8)
    lit = np.frombuffer(literal, dtype=np.uint8)
    pair, order = _plan(lit, _sample(buf, windows))
    found = [_in_window(buf[lo:hi], lit, pair, order) + lo for lo, hi in windows if hi - lo >= len(lit)]
    return np.concatenate(found) if found else np.zeros(0, dtype=np.int64)


def _sample(buf: np.ndarray, windows: list[tuple[int, int]]) -> np.ndarray:
    """Up to `_SAMPLE` bytes spread over the windows."""
    share = max(4096, _SAMPLE // len(windows))
    step = max(1, len(windows) // max(1, _SAMPLE // share))
    return np.concatenate([buf[lo : min(hi, lo + share)] for lo, hi in windows[::step]])


def _plan(lit: np.ndarray, sample: np.ndarray) -> tuple[int, list[int]]:
    """The offset of the literal's rarest adjacent byte pair in the sample, and the other
    offsets, rarest byte first."""
    counts = [_pair_count(sample, int(lit[k]), int(lit[k + 1])) for k in range(len(lit) - 1)]
    pair = int(np.argmin(counts))
    freq = np.bincount(sample, minlength=256)[lit]
    order = [int(i) for i in np.argsort(freq, kind="stable") if i not in (pair, pair + 1)]
    return pair, order


def _pair_count(sample: np.ndarray, first: int, second: int) -> int:
    return int(np.count_nonzero((sample[:-1] == first) & (sample[1:] == second)))


def _in_window(seg: np.ndarray, lit: np.ndarray, pair: int, order: list[int]) -> np.ndarray:
    """Offsets in seg where the literal starts."""
    word = int(lit[pair]) | int(lit[pair + 1]) << 8  # as '<u2' reads the two bytes
    even = seg[: len(seg) // 2 * 2].view("<u2")  # pairs starting at 0, 2, 4, ...
    odd = seg[1 : 1 + (len(seg) - 1) // 2 * 2].view("<u2")  # pairs starting at 1, 3, 5, ...
    pos = np.concatenate([np.flatnonzero(even == word) * 2, np.flatnonzero(odd == word) * 2 + 1]) - pair
    pos = pos[(pos >= 0) & (pos <= len(seg) - len(lit))]
    for i in order:
        pos = pos[seg[pos + i] == lit[i]]
    pos.sort()
    return pos
