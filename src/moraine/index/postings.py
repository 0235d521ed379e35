"""A segment's doc ids, compressed in blocks and decoded with numpy a block at a time.

Each term's postings are cut into blocks of BLOCK (the last one shorter). A block keeps its
first doc id in `heads` and the gaps between its doc ids (the first gap 0) in the narrowest
of three streams that holds them: `d1` (uint8), `d2` (uint16) or `d4` (uint32); `widths` says
which (1, 2 or 4) and `spos` where its gaps start in that stream. A term's blocks of one width
are consecutive in their stream, so a term (or a run of terms) reads at most three slices.

    heads   uint32 per block         widths  uint8 per block (1, 2, 4)
    spos    uint32 per block (int64 where a stream passes 4 Gi values)
    d1 / d2 / d4                     the gaps

Why gaps in blocks: 86% of the gaps of a 1M-event index are under 256 and 99% under 65,536,
so the doc ids take ~1.6 bytes a posting instead of 4 (351 → 145 MB at 1M). Why blocks and not
a whole term: a query probes common terms at a few documents (MaxScore, window bounds) and a
scoped search at a session's documents; `heads` finds the blocks those documents fall in and
only those are decoded (a prefix sum of ≤128 gaps), never the whole list.

Segments written before blocks keep a plain `docs` uint32 array (`Plain`); both give the same
`DocList` view of a term's postings, as the memtable's plain arrays do.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import cached_property
from typing import Protocol

import numpy as np

BLOCK = 128
WIDTHS = (1, 2, 4)
STREAMS = {1: "d1", 2: "d2", 4: "d4"}
DTYPES = {1: np.uint8, 2: np.uint16, 4: np.uint32}
ARRAYS = ("heads", "widths", "spos", "d1", "d2", "d4")
SELECT_FRACTION = 4  # a request touching more than 1/4 of a term's blocks decodes the term whole
ROWS_WHOLE = 64  # a term of up to this many blocks is decoded whole as rows (see `decode_rows`)

Read = Callable[[np.ndarray, int, int], np.ndarray]  # (array, start, end) → its values there


def _slice(array: np.ndarray, start: int, end: int) -> np.ndarray:
    return array[start:end]


class DocList(Protocol):
    """One term's doc ids in one segment (or memtable chunk), increasing."""

    def __len__(self) -> int: ...

    def full(self) -> np.ndarray:
        """Every doc id (uint32)."""
        ...

    def locate(self, values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(indices into sorted `values` that occur here, their positions here)."""
        ...

    def ranges(self, lows: np.ndarray, highs: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(positions, doc ids) of the docs in [lows[i], highs[i]) for each i (disjoint, increasing)."""
        ...


class PlainList:
    """A plain array of doc ids (a memtable chunk, a segment of the older layout)."""

    def __init__(self, docs: np.ndarray) -> None:
        self.docs = docs

    def __len__(self) -> int:
        return len(self.docs)

    def full(self) -> np.ndarray:
        return self.docs

    def locate(self, values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        return locate_in(self.docs, values)

    def ranges(self, lows: np.ndarray, highs: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        at = ranges_in(self.docs, lows, highs)
        return at, self.docs[at]


def locate_in(docs: np.ndarray, values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    where = np.searchsorted(docs, values)
    inside = np.flatnonzero(where < len(docs))
    hit = inside[docs[where[inside]] == values[inside]]
    return hit, where[hit]


def ranges_in(docs: np.ndarray, lows: np.ndarray, highs: np.ndarray) -> np.ndarray:
    """Positions in sorted `docs` of the values in [lows[i], highs[i]) for every i, in order."""
    a, z = np.searchsorted(docs, lows), np.searchsorted(docs, highs)
    return runs(a, z - a)


def runs(starts: np.ndarray, counts: np.ndarray) -> np.ndarray:
    """starts[i], starts[i]+1, …, starts[i]+counts[i]-1 for every i, concatenated."""
    total = int(counts.sum())
    if not total:
        return np.zeros(0, np.int64)
    return np.repeat(np.asarray(starts, np.int64) - np.cumsum(counts) + counts, counts) + np.arange(total)


def block_lengths(counts: np.ndarray) -> np.ndarray:
    """The blocks' lengths of terms with `counts` postings each, in order."""
    counts = np.asarray(counts, dtype=np.int64)
    per_term = (counts + BLOCK - 1) // BLOCK
    lengths = np.full(int(per_term.sum()), BLOCK, dtype=np.int64)
    ends = np.cumsum(per_term)[per_term > 0] - 1
    lengths[ends] = counts[per_term > 0] - BLOCK * (per_term[per_term > 0] - 1)
    return lengths


@dataclass(frozen=True)
class Encoded:
    """A run of terms' postings as blocks (positions into the streams start at `base`)."""

    heads: np.ndarray
    widths: np.ndarray
    spos: np.ndarray
    streams: dict[int, np.ndarray]


def encode(docs: np.ndarray, counts: np.ndarray, base: dict[int, int] | None = None) -> Encoded:
    """Blocks of the postings `docs` (uint32) of consecutive terms holding `counts` each, doc
    ids increasing within a term; `base` is how many values each stream holds already."""
    docs = np.asarray(docs, dtype=np.uint32)
    lengths = block_lengths(counts)
    starts = np.cumsum(lengths) - lengths
    gaps = np.zeros(len(docs), dtype=np.uint32)
    np.subtract(docs[1:], docs[:-1], out=gaps[1:])
    gaps[starts] = 0
    heads = docs[starts]
    top = np.maximum.reduceat(gaps, starts) if len(starts) else np.zeros(0, np.uint32)
    widths = np.where(top < 256, 1, np.where(top < 65536, 2, 4)).astype(np.uint8)
    per_posting = np.repeat(widths, lengths)
    spos = np.zeros(len(widths), dtype=np.int64)
    streams = {}
    for width in WIDTHS:
        chosen = widths == width
        held = lengths[chosen]
        spos[chosen] = (base or {}).get(width, 0) + np.cumsum(held) - held
        streams[width] = gaps[per_posting == width].astype(DTYPES[width])
    return Encoded(heads, widths, spos, streams)


def spos_dtype(postings: int) -> type:
    """Stream positions are uint32 while a segment holds under 4 Gi postings (half the bytes)."""
    return np.uint32 if postings < 2**32 else np.int64


@dataclass(frozen=True)
class Blocks:
    """A segment's doc ids in blocks; `offsets` are the segment's term offsets."""

    offsets: np.ndarray
    heads: np.ndarray
    widths: np.ndarray
    spos: np.ndarray
    d1: np.ndarray
    d2: np.ndarray
    d4: np.ndarray

    @classmethod
    def build(cls, offsets: np.ndarray, docs: np.ndarray) -> Blocks:
        enc = encode(docs, np.diff(offsets))
        return cls(offsets, enc.heads, enc.widths, enc.spos.astype(spos_dtype(len(docs))),
                   *(enc.streams[w] for w in WIDTHS))

    @cached_property
    def term_blocks(self) -> np.ndarray:
        """Term i's blocks are [term_blocks[i], term_blocks[i + 1])."""
        per_term = (np.diff(np.asarray(self.offsets, dtype=np.int64)) + BLOCK - 1) // BLOCK
        return np.concatenate(([0], np.cumsum(per_term)))

    def __len__(self) -> int:
        return int(self.offsets[-1]) if len(self.offsets) else 0

    def arrays(self) -> dict[str, np.ndarray]:
        return {name: getattr(self, name) for name in ARRAYS}

    def stream(self, width: int) -> np.ndarray:
        return {1: self.d1, 2: self.d2, 4: self.d4}[width]

    def term(self, i: int) -> BlockList:
        return BlockList(self, int(self.term_blocks[i]), int(self.offsets[i + 1] - self.offsets[i]))

    def run(self, lo: int, hi: int, read: Read = _slice) -> np.ndarray:
        """Doc ids of terms [lo, hi), read with `read` (a merge reads files, not the maps)."""
        b0, b1 = int(self.term_blocks[lo]), int(self.term_blocks[hi])
        lengths = block_lengths(np.diff(np.asarray(self.offsets[lo : hi + 1], dtype=np.int64)))
        return self.decode_range(b0, b1, lengths, read)

    def all(self) -> np.ndarray:
        return self.run(0, len(self.offsets) - 1)

    def decode_range(self, b0: int, b1: int, lengths: np.ndarray, read: Read = _slice) -> np.ndarray:
        """Doc ids of the consecutive blocks [b0, b1) of `lengths`: each width's stream is read
        as one slice."""
        widths = read(self.widths, b0, b1)
        spos = read(self.spos, b0, b1)
        gaps = np.empty(int(lengths.sum()), dtype=np.uint32)
        per_posting: np.ndarray | None = None
        for width in WIDTHS:
            chosen = np.flatnonzero(widths == width)
            if not len(chosen):
                continue
            lo = int(spos[chosen[0]])
            values = read(self.stream(width), lo, lo + int(lengths[chosen].sum()))
            if len(chosen) == len(widths):
                gaps[:] = values
            else:
                per_posting = np.repeat(widths, lengths) if per_posting is None else per_posting
                gaps[per_posting == width] = values
        return _sum_gaps(gaps, read(self.heads, b0, b1), lengths)

    def decode_rows(self, blocks: np.ndarray) -> np.ndarray:
        """Doc ids of the blocks `blocks`, one row of BLOCK each. Past a short block's end the
        row holds garbage (its caller knows the length): every block is read as if full, so
        the gather and the prefix sum are single 2-D operations."""
        widths, spos = self.widths[blocks], self.spos[blocks]
        at = spos.astype(np.int64)[:, None] + _COLUMNS
        rows = np.empty(at.shape, dtype=np.uint32)
        first = int(widths[0]) if len(widths) else 1
        if (widths == first).all():
            stream = self.stream(first)
            rows[:] = stream[np.minimum(at, len(stream) - 1)]
        else:
            for width in WIDTHS:
                chosen = widths == width
                if chosen.any():
                    stream = self.stream(width)
                    rows[chosen] = stream[np.minimum(at[chosen], len(stream) - 1)]
        np.cumsum(rows, axis=1, dtype=np.uint32, out=rows)
        rows += self.heads[blocks][:, None]
        return rows


_COLUMNS = np.arange(BLOCK, dtype=np.int64)


def _sum_gaps(gaps: np.ndarray, heads: np.ndarray, lengths: np.ndarray) -> np.ndarray:
    """Doc ids from each block's gaps (first gap 0) and first doc id (uint32 arithmetic wraps,
    the results do not)."""
    if not len(gaps):
        return gaps
    np.cumsum(gaps, dtype=np.uint32, out=gaps)
    starts = np.cumsum(lengths) - lengths
    gaps += np.repeat(np.asarray(heads, dtype=np.uint32) - gaps[starts], lengths)
    return gaps


class BlockList:
    """A term's doc ids in a `Blocks`: decoded whole when most are wanted, else by block."""

    def __init__(self, blocks: Blocks, first_block: int, n: int) -> None:
        self.blocks, self.b0, self.n = blocks, first_block, n
        self.n_blocks = (n + BLOCK - 1) // BLOCK
        self._full: np.ndarray | None = None

    def __len__(self) -> int:
        return self.n

    def full(self) -> np.ndarray:
        if self._full is None:
            if self.n_blocks <= ROWS_WHOLE:  # fewer numpy calls than slicing each width's stream
                self._full = self._decoded(np.arange(self.n_blocks))[0]
            else:
                lengths = block_lengths(np.array([self.n]))
                self._full = self.blocks.decode_range(self.b0, self.b0 + self.n_blocks, lengths)
        return self._full

    def _wide(self, wanted: int) -> bool:
        return self._full is not None or wanted * SELECT_FRACTION > self.n_blocks

    def _decoded(self, ks: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Blocks `ks` (term-relative, increasing) decoded: (doc ids, their positions in the
        term), the garbage past the term's last block cut off."""
        docs = self.blocks.decode_rows(self.b0 + ks).ravel()
        positions = (ks[:, None] * BLOCK + _COLUMNS).ravel()
        if len(ks) and int(ks[-1]) == self.n_blocks - 1:
            cut = len(docs) - (self.n_blocks * BLOCK - self.n)
            docs, positions = docs[:cut], positions[:cut]
        return docs, positions

    def _heads(self) -> np.ndarray:
        return self.blocks.heads[self.b0 : self.b0 + self.n_blocks]

    def locate(self, values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        if not len(values) or not self.n:
            return np.zeros(0, np.int64), np.zeros(0, np.int64)
        ks = _distinct(np.maximum(np.searchsorted(self._heads(), values, side="right") - 1, 0))
        if self._wide(len(ks)):
            return locate_in(self.full(), values)
        docs, positions = self._decoded(ks)
        hit, where = locate_in(docs, values)
        return hit, positions[where]

    def ranges(self, lows: np.ndarray, highs: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        if not len(lows) or not self.n:
            return np.zeros(0, np.int64), np.zeros(0, np.uint32)
        heads = self._heads()
        first = np.maximum(np.searchsorted(heads, lows, side="right") - 1, 0)
        last = np.searchsorted(heads, highs, side="left") - 1  # the block holding highs - 1
        # windows are disjoint and increasing: so are their blocks, but for one shared at a border
        ks = _distinct(runs(first, np.maximum(last - first + 1, 0)))
        if self._wide(len(ks)):
            full = self.full()
            at = ranges_in(full, lows, highs)
            return at, full[at]
        docs, positions = self._decoded(ks)
        w = np.searchsorted(lows, docs, side="right") - 1
        inside = (w >= 0) & (docs < highs[w])
        return positions[inside], docs[inside]


def _distinct(ks: np.ndarray) -> np.ndarray:
    """The distinct values of a non-decreasing array (no sort)."""
    if len(ks) < 2:
        return ks
    keep = np.empty(len(ks), dtype=bool)
    keep[0] = True
    np.not_equal(ks[1:], ks[:-1], out=keep[1:])
    return ks[keep]


@dataclass(frozen=True)
class Plain:
    """Doc ids of a segment of the older layout: one uint32 array."""

    offsets: np.ndarray
    docs: np.ndarray

    def __len__(self) -> int:
        return len(self.docs)

    def arrays(self) -> dict[str, np.ndarray]:
        return {"docs": self.docs}

    def term(self, i: int) -> PlainList:
        return PlainList(self.docs[int(self.offsets[i]) : int(self.offsets[i + 1])])

    def run(self, lo: int, hi: int, read: Read = _slice) -> np.ndarray:
        return read(self.docs, int(self.offsets[lo]), int(self.offsets[hi]))

    def all(self) -> np.ndarray:
        return np.asarray(self.docs)


DocColumn = Blocks | Plain
