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
    def merge(cls, parts: list[Segment], live: np.ndarray | None = None, directory: Path | None = None
              ) -> Segment:
        """Compact several segments into one (doc ranges are disjoint and increasing); with
        `live`, postings of retired documents are dropped on the way. With `directory`, the
        result is written there (durably, as `save` does) and returned mapped.

        Streaming: the merged term dictionary is built from the parts' dictionaries (small),
        then each part's postings are copied to their place a run of terms at a time, so the
        transient memory is a few million postings whatever the segments' size (building the
        whole merged order in memory took ~24 bytes per posting: 1.5 GB for 60M postings)."""
        strings = np.concatenate([p.terms for p in parts]) if parts else np.zeros(0, "S1")
        unique = np.unique(strings)
        counts = np.zeros(len(unique), dtype=np.int64)
        kept_per_part = []
        for part in parts:
            where = np.searchsorted(unique, part.terms)
            kept = _kept_counts(part, live)
            np.add.at(counts, where, kept)
            kept_per_part.append((where, kept))
        used = np.flatnonzero(counts)
        terms = unique[used]
        if len(terms):  # the widest term may have gone with its documents
            terms = terms.astype(f"S{max(int(np.char.str_len(terms).max()), 1)}")
        offsets = np.zeros(len(used) + 1, dtype=np.int64)
        np.cumsum(counts[used], out=offsets[1:])
        remap = np.full(len(unique), -1, dtype=np.int64)
        remap[used] = np.arange(len(used))
        doc_ids = np.concatenate([_live_part(p.doc_ids, live) for p in parts]) if parts else np.zeros(0, np.uint32)
        doc_lens = np.concatenate([p.doc_lens[live[p.doc_ids]] if live is not None else p.doc_lens for p in parts]) \
            if parts else np.zeros(0, np.uint32)
        out = _Output(directory)
        docs = out.array("docs", np.uint32, int(offsets[-1]))
        tfs = out.array("tfs", np.uint32, int(offsets[-1]))
        filled = offsets[:-1].copy()  # next free place of each merged term
        for part, (where, kept) in zip(parts, kept_per_part, strict=True):
            _copy_postings(part, remap[where], kept, live, filled, docs, tfs)
        for name, array in (("terms", terms), ("offsets", offsets), ("doc_ids", doc_ids.astype(np.uint32)),
                            ("doc_lens", doc_lens.astype(np.uint32))):
            out.array(name, array.dtype, len(array))[:] = array
        return out.finish(cls)

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


CHUNK_POSTINGS = 4_000_000  # postings copied per step of a merge


def _live_part(doc_ids: np.ndarray, live: np.ndarray | None) -> np.ndarray:
    return doc_ids[live[doc_ids]] if live is not None else np.asarray(doc_ids)


def _kept_counts(part: Segment, live: np.ndarray | None) -> np.ndarray:
    """Each term's postings in `part` that survive the merge (read a chunk at a time)."""
    lengths = np.diff(part.offsets)
    if live is None:
        return lengths
    kept = np.zeros(len(lengths), dtype=np.int64)
    for lo, hi in _term_runs(part.offsets):
        base = int(part.offsets[lo])
        alive = live[part.docs[base : int(part.offsets[hi])]]
        starts = (part.offsets[lo:hi] - base).astype(np.int64)
        kept[lo:hi] = np.add.reduceat(alive.astype(np.int64), starts) if len(alive) else 0
    return kept


def _term_runs(offsets: np.ndarray) -> list[tuple[int, int]]:
    """Runs of consecutive terms holding about CHUNK_POSTINGS postings each (a term is never split)."""
    n = len(offsets) - 1
    runs, lo = [], 0
    while lo < n:
        target = int(offsets[lo]) + CHUNK_POSTINGS
        hi = max(lo + 1, min(n, int(np.searchsorted(offsets, target, side="right")) - 1))
        runs.append((lo, hi))
        lo = hi
    return runs


def _copy_postings(part: Segment, target: np.ndarray, kept: np.ndarray, live: np.ndarray | None,
                   filled: np.ndarray, docs: np.ndarray, tfs: np.ndarray) -> None:
    """Append `part`'s surviving postings of each term after those of the earlier parts (doc
    ranges increase part by part, so each merged term stays sorted by doc)."""
    for lo, hi in _term_runs(part.offsets):
        base, end = int(part.offsets[lo]), int(part.offsets[hi])
        run_docs, run_tfs = part.docs[base:end], part.tfs[base:end]
        if live is not None:
            alive = live[run_docs]
            run_docs, run_tfs = run_docs[alive], run_tfs[alive]
        run_kept = kept[lo:hi]
        starts = np.repeat(filled[target[lo:hi]] - np.cumsum(run_kept) + run_kept, run_kept)
        dest = starts + np.arange(len(run_docs), dtype=np.int64)
        docs[dest] = run_docs
        tfs[dest] = run_tfs
        np.add.at(filled, target[lo:hi], run_kept)


class _Output:
    """Where a merge writes: arrays in memory, or `.npy` files filled in place in a temp
    directory that becomes `directory` when finished (fsynced, then renamed)."""

    def __init__(self, directory: Path | None) -> None:
        self.directory = directory
        self.arrays: dict[str, np.ndarray] = {}
        self.temp = directory.with_name(directory.name + ".tmp") if directory is not None else None
        if self.temp is not None:
            if self.temp.exists():
                shutil.rmtree(self.temp)
            self.temp.mkdir(parents=True)

    def array(self, name: str, dtype: np.dtype | type, length: int) -> np.ndarray:
        if self.temp is None:
            array = np.empty(length, dtype=dtype)
        else:
            array = np.lib.format.open_memmap(self.temp / f"{name}.npy", mode="w+", dtype=dtype, shape=(length,))
        self.arrays[name] = array
        return array

    def finish(self, cls: type[Segment]) -> Segment:
        if self.temp is None or self.directory is None:
            return cls(*(self.arrays[name] for name in ARRAYS))
        for name in ARRAYS:
            array = self.arrays.pop(name)
            if isinstance(array, np.memmap):
                array.flush()
            del array
            with open(self.temp / f"{name}.npy", "rb+") as fh:
                os.fsync(fh.fileno())
        fsync_path(self.temp)
        if self.directory.exists():  # left by a crash before its generation was published
            shutil.rmtree(self.directory)
        os.replace(self.temp, self.directory)
        fsync_path(self.directory.parent)
        return cls.load(self.directory)
