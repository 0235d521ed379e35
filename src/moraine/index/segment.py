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

import os
import shutil
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from moraine.durable import fsync_path
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
    name: str = ""  # its directory once persisted (immutable from then on)

    @classmethod
    def from_memtable(cls, mem: MemTable) -> Segment:
        vocab_terms, term_ids, docs, tfs, doc_ids, doc_lens = mem.arrays()
        # Postings come sorted by term id: number the distinct ids in one pass.
        first = np.ones(len(term_ids), dtype=bool)
        np.not_equal(term_ids[1:], term_ids[:-1], out=first[1:])
        present = term_ids[first]
        index = np.cumsum(first) - 1
        encoded = [vocab_terms[int(t)].encode("utf-8") for t in present]
        strings = np.array(encoded) if encoded else np.zeros(0, "S1")  # fixed width: the longest term
        return cls._build(strings, index, docs, tfs, doc_ids, doc_lens)

    @classmethod
    def _build(cls, terms: np.ndarray, index: np.ndarray, docs: np.ndarray, tfs: np.ndarray,
               doc_ids: np.ndarray, doc_lens: np.ndarray, *, terms_sorted: bool = False) -> Segment:
        """Postings given as (index into `terms`, UTF-8 as fixed-width bytes; doc; tf) → CSR
        sorted by term.

        Each term's postings must arrive with docs increasing (true of a memtable and of
        segments concatenated in doc order): a stable sort by term alone then finishes the
        job, much cheaper than sorting by (term, doc)."""
        if terms_sorted:
            key = index
        else:
            rank = np.argsort(terms, kind="stable")
            position = np.empty_like(rank)
            position[rank] = np.arange(len(rank))
            terms = terms[rank]
            key = position[index] if len(index) else np.zeros(0, np.int64)
        order = np.argsort(key, kind="stable")
        counts = np.bincount(key, minlength=len(terms)) if len(key) else np.zeros(len(terms), np.int64)
        offsets = np.zeros(len(terms) + 1, dtype=np.int64)
        np.cumsum(counts, out=offsets[1:])
        return cls(terms, offsets, docs[order].astype(np.uint32), tfs[order].astype(np.uint32),
                   np.asarray(doc_ids, dtype=np.uint32), np.asarray(doc_lens, dtype=np.uint32))

    @classmethod
    def merge(cls, parts: list[Segment], live: np.ndarray | None = None) -> Segment:
        """Compact several segments into one (doc ranges are disjoint and increasing); with
        `live`, postings of retired documents are dropped on the way."""
        strings = np.concatenate([p.terms for p in parts]) if parts else np.zeros(0, "S1")
        unique, inverse = np.unique(strings, return_inverse=True)
        index_parts, base = [], 0
        for part in parts:
            counts = np.diff(part.offsets)
            index_parts.append(np.repeat(inverse[base : base + len(part.terms)], counts))
            base += len(part.terms)
        index = np.concatenate(index_parts) if index_parts else np.zeros(0, np.int64)
        docs, tfs = np.concatenate([p.docs for p in parts]), np.concatenate([p.tfs for p in parts])
        doc_ids, doc_lens = np.concatenate([p.doc_ids for p in parts]), np.concatenate([p.doc_lens for p in parts])
        if live is not None:
            keep, keep_docs = live[docs], live[doc_ids]
            index, docs, tfs = index[keep], docs[keep], tfs[keep]
            doc_ids, doc_lens = doc_ids[keep_docs], doc_lens[keep_docs]
            used = np.unique(index)
            unique, index = unique[used], np.searchsorted(used, index)
            if len(unique):  # the widest term may have gone with its documents
                unique = unique.astype(f"S{max(int(np.char.str_len(unique).max()), 1)}")
        return cls._build(unique, index, docs, tfs, doc_ids, doc_lens, terms_sorted=True)

    def postings(self, term: str) -> tuple[np.ndarray, np.ndarray]:
        key = term.encode("utf-8")
        if len(key) > self.terms.dtype.itemsize:
            return self.docs[:0], self.tfs[:0]
        i = int(self.terms.searchsorted(np.array(key, dtype=self.terms.dtype)))
        if i >= len(self.terms) or self.terms[i] != key:
            return self.docs[:0], self.tfs[:0]
        lo, hi = int(self.offsets[i]), int(self.offsets[i + 1])
        return self.docs[lo:hi], self.tfs[lo:hi]

    @property
    def n_postings(self) -> int:
        return len(self.docs)

    def save(self, directory: Path) -> None:
        """Write the arrays durably into a temp directory, then rename it into place."""
        temp = directory.with_name(directory.name + ".tmp")
        temp.mkdir(parents=True, exist_ok=True)
        for name in ARRAYS:
            path = temp / f"{name}.npy"
            with open(path, "wb") as fh:
                np.save(fh, np.asarray(getattr(self, name)), allow_pickle=False)
                fh.flush()
                os.fsync(fh.fileno())
        fsync_path(temp)
        if directory.exists():  # left by a crash before its generation was published
            shutil.rmtree(directory)
        os.replace(temp, directory)
        fsync_path(directory.parent)

    @classmethod
    def load(cls, directory: Path) -> Segment:
        # Plain ndarray views of the maps (they keep the maps alive): a `memmap` slice costs
        # ten times a plain one, and a query slices each term's postings in every segment.
        arrays = (np.load(directory / f"{name}.npy", mmap_mode="r", allow_pickle=False).view(np.ndarray)
                  for name in ARRAYS)
        return cls(*arrays, name=directory.name)
