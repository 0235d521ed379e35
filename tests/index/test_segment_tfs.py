"""Term frequencies are stored as bytes with the few above 255 kept apart: every path that reads
postings (a term's postings, a merge from mapped parts, a merge with deletions, a segment of
the older uint32 layout) gives the exact frequencies."""

from __future__ import annotations

import random
from pathlib import Path

import numpy as np
import pytest

from moraine.index import segment as segment_module
from moraine.index.memtable import MemTable
from moraine.index.segment import Segment
from moraine.index.vocab import Vocabulary

TFS = [1, 2, 254, 255, 256, 3_000, 70_000, 2**31]


def _segment(vocab: Vocabulary, first: int, count: int, rng: random.Random) -> tuple[Segment, dict]:
    mem = MemTable(vocab)
    truth: dict[tuple[str, int], int] = {}
    for doc in range(first, first + count):
        tfs = {f"t{rng.randrange(12)}": rng.choice(TFS) for _ in range(rng.randrange(1, 6))}
        mem.add(doc, tfs, sum(tfs.values()) % 2**31)
        truth.update({(term, doc): tf for term, tf in tfs.items()})
    return Segment.from_memtable(mem), truth


def _postings(seg: Segment) -> dict[tuple[str, int], int]:
    found = {}
    for raw in seg.terms.tolist():
        docs, tfs = seg.postings(raw.decode())
        found.update({(raw.decode(), d): t for d, t in zip(docs.full().tolist(), tfs.tolist(), strict=True)})
    return found


def _old_layout(seg: Segment, directory: Path, truth: dict) -> None:
    """The segment as versions before byte frequencies wrote it: uint32 tfs, no overflow files."""
    seg.save(directory)
    exact = np.array([truth[(seg.terms[np.searchsorted(seg.offsets, i, side="right") - 1].decode(), int(d))]
                      for i, d in enumerate(seg.docs.all().tolist())], dtype=np.uint32)
    np.save(directory / "tfs.npy", exact)
    (directory / "tf_over_at.npy").unlink()
    (directory / "tf_over.npy").unlink()


@pytest.mark.parametrize("chunk", [3, 50, 4_000_000])
def test_frequencies_stay_exact_through_seal_save_and_merge(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                            chunk: int) -> None:
    monkeypatch.setattr(segment_module, "CHUNK_POSTINGS", chunk)
    rng = random.Random(chunk)
    vocab = Vocabulary()
    parts, truth = [], {}
    for i, first in enumerate((0, 300, 700)):
        seg, seg_truth = _segment(vocab, first, 300 if i < 2 else 100, rng)
        truth.update(seg_truth)
        assert seg.tfs.dtype == np.uint8 and len(seg.tf_over_at) > 0
        assert _postings(seg) == seg_truth
        if i == 1:
            _old_layout(seg, tmp_path / f"p{i}", seg_truth)
            loaded = Segment.load(tmp_path / f"p{i}")
            assert loaded.tfs.dtype == np.uint32 and not len(loaded.tf_over_at)
        else:
            seg.save(tmp_path / f"p{i}")
            loaded = Segment.load(tmp_path / f"p{i}")
        assert _postings(loaded) == seg_truth
        parts.append(loaded)
    live = np.ones(800, dtype=bool)
    live[rng.sample(range(800), 200)] = False
    kept = {key: tf for key, tf in truth.items() if live[key[1]]}
    for merged, want in ((Segment.merge(parts, live, tmp_path / "merged"), kept), (Segment.merge(parts, live), kept),
                         (Segment.merge(parts), truth)):
        assert merged.tfs.dtype == np.uint8
        assert _postings(merged) == want
    assert _postings(Segment.load(tmp_path / "merged")) == kept
