"""Immutable index segments: CSR postings with a sorted term dictionary, in numpy arrays.

Arrays (one `.npy` each when persisted, opened with `mmap_mode="r"`):
  terms    sorted UTF-8 terms, fixed-width bytes (`np.searchsorted` finds a term); on disk packed
           as term_bytes (uint8, the terms joined) and term_ends (uint32, or int64 past 4 GiB),
           widened on load (`terms.npy`, fixed-width, in a segment of an earlier layout)
  offsets  int64, len(terms)+1: postings of term i are [offsets[i], offsets[i+1])
  heads, widths, spos, d1, d2, d4
           global doc ids, increasing within a term, in blocks of gaps (see index/postings.py);
           a segment of an earlier layout has them plain instead: `docs`, uint32
  tfs      uint8 term frequencies, 255 where the frequency is higher (uint32 in a segment of the
           first layout, with no overflow arrays)
  tf_over_at  int64 the positions (into docs/tfs) whose frequency is above 255, increasing
  tf_over     uint32 their frequencies
  doc_ids  uint32 the documents this segment covers; doc_lens uint32 their lengths
  win_terms   int64 the terms (indices into terms) with window bounds, increasing
  win_g       uint8 their bounds, one row of win_meta[2] windows per term, flattened
  win_meta    float64 [WINDOW, first window, windows, k1, b, A_ref] (see index/windows.py)
  (the three win_ arrays are absent from segments of the earlier layouts: no bounds)
A segment of an earlier layout is read as before; none is written any more.
Scores are never stored: corpus statistics change as events arrive. Frequencies are a byte
because 99.98% of them are under 256 (a quarter of the postings' bytes; the exact value of
the rest is patched into a term's slice when it is read, so scores stay exact).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np

from moraine.index import windows as win
from moraine.index.memtable import MemTable
from moraine.index.postings import ARRAYS as BLOCK_ARRAYS
from moraine.index.postings import Blocks, DocColumn, DocList, Plain, PlainList
from moraine.index.segment_files import TERM_FILES, BlockStreams, Output, load_array, read_range, unpack_terms

ARRAYS = ("terms", "offsets", "tfs", "doc_ids", "doc_lens", "tf_over_at", "tf_over", "win_terms", "win_g",
          "win_meta")  # and the doc ids' arrays: BLOCK_ARRAYS, or "docs" in the older layout
# absent from older segments: empty
DEFAULT_PARAMS = (1.2, 0.75)  # BM25 k1, b the window bounds are computed for
TF_CAP = 255


@dataclass(frozen=True)
class Segment:
    terms: np.ndarray
    offsets: np.ndarray
    docs: DocColumn
    tfs: np.ndarray
    doc_ids: np.ndarray
    doc_lens: np.ndarray
    tf_over_at: np.ndarray
    tf_over: np.ndarray
    win_terms: np.ndarray
    win_g: np.ndarray
    win_meta: np.ndarray
    name: str = ""  # its directory once persisted (immutable from then on)

    @classmethod
    def from_memtable(cls, mem: MemTable, params: tuple[float, float] = DEFAULT_PARAMS) -> Segment:
        vocab_terms, term_ids, docs, tfs, doc_ids, doc_lens = mem.arrays()
        # Postings come sorted by term id: number the distinct ids in one pass.
        first = np.ones(len(term_ids), dtype=bool)
        np.not_equal(term_ids[1:], term_ids[:-1], out=first[1:])
        present = term_ids[first]
        index = np.cumsum(first) - 1
        encoded = [vocab_terms[int(t)].encode("utf-8") for t in present]
        strings = np.array(encoded) if encoded else np.zeros(0, "S1")  # fixed width: the longest term
        return cls._build(strings, index, docs, tfs, doc_ids, doc_lens, params)

    @classmethod
    def _build(cls, terms: np.ndarray, index: np.ndarray, docs: np.ndarray, tfs: np.ndarray,
               doc_ids: np.ndarray, doc_lens: np.ndarray, params: tuple[float, float] = DEFAULT_PARAMS, *,
               terms_sorted: bool = False) -> Segment:
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
        exact, docs = tfs[order], docs[order].astype(np.uint32, copy=False)
        doc_ids, doc_lens = np.asarray(doc_ids, dtype=np.uint32), np.asarray(doc_lens, dtype=np.uint32)
        bounds = _Bounds(doc_ids, doc_lens, params)
        bounds.add(offsets, 0, len(terms), docs, exact)
        small, over_at, over = narrow_tfs(exact, 0)
        return cls(terms, offsets, Blocks.build(offsets, docs), small, doc_ids, doc_lens, over_at, over,
                   *bounds.arrays())

    @classmethod
    def merge(cls, parts: list[Segment], live: np.ndarray | None = None, directory: Path | None = None,
              params: tuple[float, float] = DEFAULT_PARAMS) -> Segment:
        """Compact several segments into one (doc ranges are disjoint and increasing); with
        `live`, postings of retired documents are dropped on the way. With `directory`, the
        result is written there (durably, as `save` does) and returned mapped.

        Streaming: the merged term dictionary is built from the parts' dictionaries (small),
        then the merged postings are produced a run of terms (~4M postings) at a time and
        appended to the output; a mapped part is read with file reads, not through its map.
        So a merge holds a few million postings whatever the segments' size, and neither the
        inputs' nor the output's pages stay mapped in the process (they counted toward its
        RSS: +1.1 GB in the last merge of a 1M-event index)."""
        strings = np.concatenate([p.terms for p in parts]) if parts else np.zeros(0, "S1")
        unique = np.unique(strings)
        del strings
        readers = [_Reader(part) for part in parts]
        counts = np.zeros(len(unique), dtype=np.int64)
        spans = []
        for part, reader in zip(parts, readers, strict=True):
            where = np.searchsorted(unique, part.terms)
            kept = reader.kept_counts(live)
            counts[where] += kept
            spans.append((where, kept))
        used = np.flatnonzero(counts)
        terms = unique[used]
        if len(terms):  # the widest term may have gone with its documents
            terms = terms.astype(f"S{max(int(np.char.str_len(terms).max()), 1)}")
        offsets = np.zeros(len(used) + 1, dtype=np.int64)
        np.cumsum(counts[used], out=offsets[1:])
        doc_ids = np.concatenate([_live_part(p.doc_ids, live) for p in parts]) if parts else np.zeros(0, np.uint32)
        doc_lens = np.concatenate([p.doc_lens[live[p.doc_ids]] if live is not None else p.doc_lens for p in parts]) \
            if parts else np.zeros(0, np.uint32)
        windows = _Bounds(doc_ids, doc_lens, params)
        out = Output(directory)
        docs = BlockStreams(out, offsets)
        tfs = out.stream("tfs", np.uint8, int(offsets[-1]))
        over_at: list[np.ndarray] = []
        over: list[np.ndarray] = []
        bounds = np.append(used, len(unique))  # merged term k covers unique terms [used[k], used[k+1])
        for lo, hi in _term_runs(offsets):
            size = int(offsets[hi] - offsets[lo])
            run_docs, run_tfs = np.empty(size, np.uint32), np.empty(size, np.uint32)
            fill = offsets[lo:hi] - offsets[lo]  # next free place of each merged term of the run
            for reader, (where, kept) in zip(readers, spans, strict=True):
                i0, i1 = np.searchsorted(where, [bounds[lo], bounds[hi]])
                if i0 == i1:
                    continue
                part_docs, part_tfs = reader.postings(int(i0), int(i1))
                if live is not None:
                    alive = live[part_docs]
                    part_docs, part_tfs = part_docs[alive], part_tfs[alive]
                run_kept = kept[i0:i1]
                # each part term's merged term in the run (a term no part kept has no postings: any slot)
                slot = np.minimum(np.searchsorted(used, where[i0:i1]) - lo, hi - lo - 1)
                starts = np.repeat(fill[slot] - np.cumsum(run_kept) + run_kept, run_kept)
                dest = starts + np.arange(len(part_docs), dtype=np.int64)
                run_docs[dest], run_tfs[dest] = part_docs, part_tfs
                np.add.at(fill, slot, run_kept)  # slots repeat where a term no part kept shares one
            docs.write(run_docs, offsets[lo : hi + 1])
            windows.add(offsets, lo, hi, run_docs, run_tfs)
            small, run_over_at, run_over = narrow_tfs(run_tfs, int(offsets[lo]))
            tfs.write(small)
            over_at.append(run_over_at)
            over.append(run_over)
        for name, array in (("terms", terms), ("offsets", offsets), ("doc_ids", doc_ids.astype(np.uint32)),
                            ("doc_lens", doc_lens.astype(np.uint32)),
                            ("tf_over_at", np.concatenate([np.zeros(0, np.int64), *over_at])),
                            ("tf_over", np.concatenate([np.zeros(0, np.uint32), *over])),
                            *zip(("win_terms", "win_g", "win_meta"), windows.arrays(), strict=True)):
            out.array(name, array)
        return out.finish(cls)

    def find(self, term: str) -> int:
        """The term's index in the dictionary, or -1."""
        key = term.encode("utf-8")
        if len(key) > self.terms.dtype.itemsize:
            return -1
        i = int(self.terms.searchsorted(np.array(key, dtype=self.terms.dtype)))
        return i if i < len(self.terms) and self.terms[i] == key else -1

    def postings(self, term: str) -> tuple[DocList, np.ndarray]:
        i = self.find(term)
        return self.postings_at(i) if i >= 0 else (PlainList(np.zeros(0, np.uint32)), self.tfs[:0])

    def postings_at(self, i: int) -> tuple[DocList, np.ndarray]:
        lo, hi = int(self.offsets[i]), int(self.offsets[i + 1])
        return self.docs.term(i), self.tf_slice(lo, hi)

    def window_bounds(self, i: int, params: tuple[float, float]) -> tuple[np.ndarray, int, float] | None:
        """Term i's window bounds (bytes), its first window and A_ref, when this segment keeps
        them for the query's (k1, b)."""
        meta = self.win_meta
        if not len(meta) or meta[0] != win.WINDOW or (float(meta[3]), float(meta[4])) != params:
            return None
        j = int(self.win_terms.searchsorted(i))
        if j >= len(self.win_terms) or self.win_terms[j] != i:
            return None
        n = int(meta[2])
        return self.win_g[j * n : (j + 1) * n], int(meta[1]), float(meta[5])

    def tf_slice(self, lo: int, hi: int, tfs: np.ndarray | None = None) -> np.ndarray:
        """The exact frequencies of postings [lo, hi): the byte array's slice (or `tfs`, that slice
        read already), with the frequencies above 255 put back."""
        tfs = self.tfs[lo:hi] if tfs is None else tfs
        at = self.tf_over_at
        if not len(at):
            return tfs
        a, b = at.searchsorted(lo), at.searchsorted(hi)
        if a == b:
            return tfs
        exact = tfs.astype(np.uint32)
        exact[at[a:b] - lo] = self.tf_over[a:b]
        return exact

    @property
    def n_postings(self) -> int:
        return len(self.docs)

    def save(self, directory: Path) -> None:
        """Write the arrays durably into a temp directory, then rename it into place."""
        out = Output(directory)
        arrays = {name: np.asarray(getattr(self, name)) for name in ARRAYS} | self.docs.arrays()
        for name, array in arrays.items():
            out.array(name, array)
        out.close()

    @classmethod
    def load(cls, directory: Path) -> Segment:
        # Plain ndarray views of the maps (they keep the maps alive): a `memmap` slice costs
        # ten times a plain one, and a query slices each term's postings in every segment.
        names = ARRAYS + (BLOCK_ARRAYS if (directory / "heads.npy").exists() else ("docs",))
        if (directory / "term_bytes.npy").exists():
            names = tuple(n for n in names if n != "terms") + TERM_FILES
        return cls.from_arrays({name: load_array(directory, name) for name in names}, directory.name)

    @classmethod
    def from_arrays(cls, arrays: dict[str, np.ndarray], name: str = "") -> Segment:
        offsets = arrays["offsets"]
        docs: DocColumn = Plain(offsets, arrays["docs"]) if "docs" in arrays else \
            Blocks(offsets, *(arrays[name] for name in BLOCK_ARRAYS))
        terms = arrays["terms"] if "terms" in arrays else unpack_terms(arrays["term_bytes"], arrays["term_ends"])
        return cls(terms, offsets, docs, arrays["tfs"], arrays["doc_ids"],
                   arrays["doc_lens"], arrays["tf_over_at"], arrays["tf_over"], arrays["win_terms"], arrays["win_g"],
                   arrays["win_meta"], name)


def narrow_tfs(tfs: np.ndarray, base: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Frequencies as bytes (capped at 255), with the positions (from `base`) and values of
    those above."""
    big = np.flatnonzero(tfs > TF_CAP)
    small = tfs.astype(np.uint8)  # wraps above 255 (set right below): no uint32-wide temporary
    small[big] = TF_CAP
    return small, (big + base).astype(np.int64), np.asarray(tfs[big], dtype=np.uint32)


CHUNK_POSTINGS = 4_000_000  # postings produced per step of a merge


class _Bounds:
    """Window bounds of a segment being written, a run of terms at a time (see index/windows.py)."""

    def __init__(self, doc_ids: np.ndarray, doc_lens: np.ndarray, params: tuple[float, float]) -> None:
        self.first, self.n = win.window_span(doc_ids)
        self.base = int(doc_ids.min()) if len(doc_ids) else 0
        self.lens = np.zeros(int(doc_ids.max()) - self.base + 1 if len(doc_ids) else 0, dtype=np.uint32)
        self.lens[np.asarray(doc_ids, dtype=np.int64) - self.base] = doc_lens
        self.params = (float(params[0]), float(params[1]), float(doc_lens.mean()) if len(doc_lens) else 1.0)
        self.terms: list[np.ndarray] = []
        self.rows: list[np.ndarray] = []

    def add(self, offsets: np.ndarray, lo: int, hi: int, docs: np.ndarray, tfs: np.ndarray) -> None:
        """Bounds of the frequent terms among [lo, hi), whose postings docs/tfs (exact) hold."""
        held = lo + win.tabled_terms(offsets[lo : hi + 1])
        if not len(held):
            return
        base = int(offsets[lo])
        self.terms.append(held.astype(np.int64))
        self.rows.append(win.table_rows(docs, tfs, offsets[held] - base, offsets[held + 1] - base, self.lens,
                                    self.base, self.first, self.n, self.params).ravel())

    def arrays(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        meta = np.array([win.WINDOW, self.first, self.n, *self.params], dtype=np.float64)
        return (np.concatenate([np.zeros(0, np.int64), *self.terms]),
                np.concatenate([np.zeros(0, np.uint8), *self.rows]), meta)


def _live_part(doc_ids: np.ndarray, live: np.ndarray | None) -> np.ndarray:
    return doc_ids[live[doc_ids]] if live is not None else np.asarray(doc_ids)


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


class _Reader:
    """A merge's view of one part: postings of a run of its terms, read from the file behind
    a mapped array (not through the map, so they do not stay mapped in this process) or
    sliced from an array in memory."""

    def __init__(self, part: Segment) -> None:
        self.part = part

    def postings(self, lo: int, hi: int) -> tuple[np.ndarray, np.ndarray]:
        start, end = int(self.part.offsets[lo]), int(self.part.offsets[hi])
        tfs = self.part.tf_slice(start, end, read_range(self.part.tfs, start, end))
        return self.part.docs.run(lo, hi, read_range), tfs

    def kept_counts(self, live: np.ndarray | None) -> np.ndarray:
        """Each term's postings that survive the merge (read a run at a time)."""
        offsets = self.part.offsets
        lengths = np.diff(offsets)
        if live is None:
            return lengths
        kept = np.zeros(len(lengths), dtype=np.int64)
        for lo, hi in _term_runs(offsets):
            base = int(offsets[lo])
            alive = live[self.part.docs.run(lo, hi, read_range)].astype(np.int64)
            kept[lo:hi] = np.add.reduceat(alive, (offsets[lo:hi] - base).astype(np.int64)) if len(alive) else 0
        return kept


def merge_run(sizes: list[int]) -> tuple[int, int] | None:
    """The newest run [lo, hi) of two or more adjacent segments where each is at least half
    the size of the one before it, or None."""
    for j in range(len(sizes) - 2, -1, -1):
        if sizes[j + 1] * 2 >= sizes[j]:
            lo = j
            while lo > 0 and sizes[lo] * 2 >= sizes[lo - 1]:
                lo -= 1
            return lo, j + 2
    return None
