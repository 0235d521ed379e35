"""Immutable index segments: CSR postings with a sorted term dictionary, in numpy arrays.

Arrays (one `.npy` each when persisted, opened with `mmap_mode="r"`):
  terms    sorted UTF-8 terms, fixed-width bytes (`np.searchsorted` finds a term)
  offsets  int64, len(terms)+1: postings of term i are [offsets[i], offsets[i+1])
  docs     uint32 global doc ids, increasing within a term
  tfs      uint32 term frequencies
  doc_ids  uint32 the documents this segment covers; doc_lens uint32 their lengths
Scores are never stored: corpus statistics change as events arrive.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np

from moraine.index.memtable import MemTable

ARRAYS = ("terms", "offsets", "docs", "tfs", "doc_ids", "doc_lens")


@dataclass(frozen=True)
class Segment:
    terms: np.ndarray
    offsets: np.ndarray
    docs: np.ndarray
    tfs: np.ndarray
    doc_ids: np.ndarray
    doc_lens: np.ndarray

    @classmethod
    def from_memtable(cls, mem: MemTable) -> Segment:
        ordered = sorted(mem.docs, key=lambda t: t.encode("utf-8"))
        counts = np.fromiter((len(mem.docs[t]) for t in ordered), dtype=np.int64, count=len(ordered))
        offsets = np.zeros(len(ordered) + 1, dtype=np.int64)
        np.cumsum(counts, out=offsets[1:])
        docs = np.fromiter((d for t in ordered for d in mem.docs[t]), dtype=np.uint32, count=int(offsets[-1]))
        tfs = np.fromiter((f for t in ordered for f in mem.tfs[t]), dtype=np.uint32, count=int(offsets[-1]))
        width = max((len(t.encode("utf-8")) for t in ordered), default=1)
        terms = np.array([t.encode("utf-8") for t in ordered], dtype=f"S{width}")
        return cls(terms, offsets, docs, tfs, np.array(mem.doc_ids, dtype=np.uint32),
                   np.array(mem.doc_lens, dtype=np.uint32))

    @classmethod
    def merge(cls, parts: list[Segment]) -> Segment:
        """Compact several segments into one (doc ranges are disjoint and increasing)."""
        mem = MemTable()
        for part in parts:
            for i, raw in enumerate(part.terms):
                term = raw.decode("utf-8")
                lo, hi = int(part.offsets[i]), int(part.offsets[i + 1])
                mem.docs.setdefault(term, []).extend(part.docs[lo:hi].tolist())
                mem.tfs.setdefault(term, []).extend(part.tfs[lo:hi].tolist())
            mem.doc_ids.extend(part.doc_ids.tolist())
            mem.doc_lens.extend(part.doc_lens.tolist())
        return cls.from_memtable(mem)

    def postings(self, term: str) -> tuple[np.ndarray, np.ndarray]:
        key = term.encode("utf-8")
        i = int(np.searchsorted(self.terms, key))
        if i >= len(self.terms) or self.terms[i] != key:
            return self.docs[:0], self.tfs[:0]
        lo, hi = int(self.offsets[i]), int(self.offsets[i + 1])
        return self.docs[lo:hi], self.tfs[lo:hi]

    def save(self, directory: Path) -> None:
        directory.mkdir(parents=True, exist_ok=True)
        for name in ARRAYS:
            np.save(directory / f"{name}.npy", getattr(self, name), allow_pickle=False)

    @classmethod
    def load(cls, directory: Path) -> Segment:
        return cls(*(np.load(directory / f"{name}.npy", mmap_mode="r", allow_pickle=False) for name in ARRAYS))
