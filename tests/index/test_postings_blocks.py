"""Doc ids in blocks of gaps (index/postings.py): every way a query reads them (whole, located
at some documents, within windows) gives what the plain array gives, for terms of every
density, at every block and width boundary; merges encode in runs exactly as one pass does;
segments of the older plain layout still load, answer and merge."""

from __future__ import annotations

import random
from pathlib import Path

import numpy as np
import pytest

from moraine.index import postings as postings_module
from moraine.index import segment as segment_module
from moraine.index import segment_files
from moraine.index.postings import BLOCK, Blocks, Plain, PlainList, block_lengths
from moraine.index.segment import Segment

LIMIT = 2**32 - 1


def _term(rng: random.Random) -> list[int]:
    """Increasing doc ids: a length near a block boundary, gaps of one width class or mixed."""
    n = rng.choice([1, 2, BLOCK - 1, BLOCK, BLOCK + 1, 3 * BLOCK, rng.randrange(1, 2_000)])
    top = rng.choice([1, 255, 256, 65_535, 65_536, 10_000_000])
    gaps = [rng.randint(1, top) if rng.random() < 0.9 else rng.randint(1, 300) for _ in range(n)]
    start = rng.choice([0, rng.randrange(1_000_000), LIMIT - sum(gaps) - 1])
    docs, at = [], max(start, 0)
    for gap in gaps:
        at += gap
        docs.append(at)
    return [d for d in docs if d <= LIMIT] or [LIMIT]


def _column(rng: random.Random, terms: int) -> tuple[list[list[int]], Blocks]:
    lists = [_term(rng) for _ in range(terms)]
    offsets = np.concatenate(([0], np.cumsum([len(t) for t in lists]))).astype(np.int64)
    docs = np.array([d for t in lists for d in t], dtype=np.uint32)
    return lists, Blocks.build(offsets, docs)


@pytest.mark.parametrize("seed", range(6))
def test_blocks_read_like_the_plain_array(seed: int) -> None:
    rng = random.Random(seed)
    lists, blocks = _column(rng, 60)
    assert blocks.all().tolist() == [d for t in lists for d in t]
    assert set(np.unique(blocks.widths).tolist()) <= {1, 2, 4}
    for i, want in enumerate(lists):
        plain, view = PlainList(np.array(want, dtype=np.uint32)), blocks.term(i)
        assert len(view) == len(want) and view.full().tolist() == want
        for _ in range(8):
            lo, hi = min(want) - 3, max(want) + 3
            values = np.unique(np.array([rng.choice(want) if rng.random() < 0.5 else rng.randint(max(lo, 0), hi)
                                         for _ in range(rng.choice([1, 3, 40]))], dtype=np.int64))
            fresh = blocks.term(i)  # a fresh view takes the per-block path when few blocks are asked
            for got in (fresh.locate(values), view.locate(values)):
                assert [a.tolist() for a in got] == [a.tolist() for a in plain.locate(values)]
            starts = np.unique(np.array([rng.randint(max(lo, 0), hi) for _ in range(rng.choice([1, 4, 30]))]))
            ends = np.minimum(starts + rng.choice([1, 7, 512, 100_000]), np.append(starts[1:], hi + 10))
            want_at, want_docs = plain.ranges(starts, ends)
            for at, docs in (blocks.term(i).ranges(starts, ends), view.ranges(starts, ends)):
                assert at.tolist() == want_at.tolist() and docs.tolist() == want_docs.tolist()


def test_widths_follow_the_largest_gap_of_each_block() -> None:
    gaps = [1] * BLOCK + [255] * BLOCK + [256] * BLOCK + [65_535] * BLOCK + [65_536] * BLOCK
    docs = np.cumsum(np.array(gaps, dtype=np.int64))  # a block's first gap is never stored: its head is
    blocks = Blocks.build(np.array([0, len(docs)]), docs.astype(np.uint32))
    assert blocks.widths.tolist() == [1, 1, 2, 2, 4]
    assert blocks.all().tolist() == docs.tolist()
    assert [len(blocks.d1), len(blocks.d2), len(blocks.d4)] == [2 * BLOCK, 2 * BLOCK, BLOCK]


def test_doc_ids_at_the_top_of_uint32_decode_exactly() -> None:
    docs = np.array([5, LIMIT - 70_000, LIMIT - 1, LIMIT], dtype=np.uint32)
    blocks = Blocks.build(np.array([0, 1, 4]), docs)
    assert blocks.all().tolist() == docs.tolist()
    assert blocks.term(1).locate(np.array([LIMIT - 1, LIMIT], dtype=np.int64))[1].tolist() == [1, 2]


def test_block_lengths_cut_each_term_apart() -> None:
    assert block_lengths(np.array([1, BLOCK, BLOCK + 1, 0, 2 * BLOCK])).tolist() == \
        [1, BLOCK, BLOCK, 1, BLOCK, BLOCK]


def _segments(rng: random.Random, parts: int) -> list[Segment]:
    segments, first = [], 0
    for _ in range(parts):
        terms = sorted({f"t{rng.randrange(400):03d}".encode() for _ in range(rng.randrange(20, 120))})
        n_docs = rng.randrange(50, 3_000)
        per_term = [sorted(rng.sample(range(first, first + n_docs), rng.randint(1, n_docs))) for _ in terms]
        offsets = np.concatenate(([0], np.cumsum([len(p) for p in per_term]))).astype(np.int64)
        docs = np.array([d for p in per_term for d in p], dtype=np.uint32)
        index = np.repeat(np.arange(len(terms)), np.diff(offsets))
        doc_ids = np.arange(first, first + n_docs, dtype=np.uint32)
        segments.append(Segment._build(np.array(terms), index, docs, np.ones(len(docs), np.uint32), doc_ids,
                                       np.full(n_docs, 10, np.uint32), terms_sorted=True))
        first += n_docs
    return segments


@pytest.mark.parametrize("chunk", [5, 300, 4_000_000])
def test_a_streamed_merge_encodes_as_one_pass_would(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                    chunk: int) -> None:
    monkeypatch.setattr(segment_module, "CHUNK_POSTINGS", chunk)
    rng = random.Random(chunk)
    parts = _segments(rng, 4)
    live = np.ones(sum(len(p.doc_ids) for p in parts), dtype=bool)
    live[rng.sample(range(len(live)), len(live) // 5)] = False
    for i, part in enumerate(parts):
        part.save(tmp_path / f"p{i}")
    mapped = [Segment.load(tmp_path / f"p{i}") for i in range(len(parts))]
    merged = Segment.merge(mapped, live, tmp_path / "merged")
    in_memory = Segment.merge(parts, live)
    once = Blocks.build(np.asarray(merged.offsets), merged.docs.all())
    for name, array in once.arrays().items():
        assert np.asarray(merged.docs.arrays()[name]).tolist() == array.tolist(), name
        assert np.asarray(in_memory.docs.arrays()[name]).tolist() == array.tolist(), name
    for t, raw in enumerate(merged.terms.tolist()):
        want = sorted(d for p in parts for d in p.postings(raw.decode())[0].full().tolist() if live[d])
        assert merged.postings_at(t)[0].full().tolist() == want


def test_a_segment_of_the_plain_layout_loads_answers_and_merges(tmp_path: Path) -> None:
    rng = random.Random(11)
    part = _segments(rng, 1)[0]
    part.save(tmp_path / "old")
    for name in postings_module.ARRAYS:  # as a version before blocks wrote it
        (tmp_path / "old" / f"{name}.npy").unlink()
    np.save(tmp_path / "old" / "docs.npy", part.docs.all())
    old = Segment.load(tmp_path / "old")
    assert isinstance(old.docs, Plain)
    for t, raw in enumerate(part.terms.tolist()):
        a, b = part.postings(raw.decode()), old.postings(raw.decode())
        assert a[0].full().tolist() == b[0].full().tolist() and a[1].tolist() == b[1].tolist()
        values = np.unique(np.array(rng.sample(range(len(part.doc_ids) + 5), 20), dtype=np.int64))
        assert [x.tolist() for x in a[0].locate(values)] == [x.tolist() for x in b[0].locate(values)]
        assert t < len(part.offsets)
    merged = Segment.merge([old], None, tmp_path / "merged")
    assert isinstance(merged.docs, Blocks) and merged.docs.all().tolist() == part.docs.all().tolist()


def test_the_term_dictionary_packs_and_widens_back_exactly(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """On disk the dictionary is its terms joined (no fixed width); loading widens it again, a
    step at a time, to the array `searchsorted` needs; a segment of the older fixed-width
    layout loads as before."""
    monkeypatch.setattr(segment_files, "UNPACK_TERMS", 7)
    rng = random.Random(3)
    part = _segments(rng, 1)[0]
    long_terms = sorted({*part.terms.tolist(), "検索".encode(), b"x" * 64, b"ab"})
    terms = np.array(long_terms)
    joined, ends = segment_files.pack_terms(terms)
    assert len(joined) == sum(map(len, long_terms)) and ends.dtype == np.uint32
    widened = segment_files.unpack_terms(joined, ends)
    assert widened.dtype == terms.dtype and widened.tolist() == long_terms
    part.save(tmp_path / "new")
    assert not (tmp_path / "new" / "terms.npy").exists()
    loaded = Segment.load(tmp_path / "new")
    assert loaded.terms.dtype == part.terms.dtype and loaded.terms.tolist() == part.terms.tolist()
    for name in segment_files.TERM_FILES:  # as a version before packed terms wrote it
        (tmp_path / "new" / f"{name}.npy").unlink()
    np.save(tmp_path / "new" / "terms.npy", part.terms)
    old = Segment.load(tmp_path / "new")
    assert old.terms.tolist() == part.terms.tolist()
    assert old.find(part.terms[3].decode()) == 3
