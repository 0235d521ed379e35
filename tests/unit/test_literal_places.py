"""`literal.literal_places` against a plain scan, seeded: literals of 2-9 bytes over small
alphabets (so places are dense and overlap), at window edges, repeated bytes (`aaa` in
`aaaaa`), multibyte UTF-8, windows of every width including ones shorter than the literal."""

from __future__ import annotations

import random

import numpy as np

from moraine.index.literal import literal_places


def _plain(literal: bytes, data: bytes, windows: list[tuple[int, int]]) -> list[int]:
    return [at for lo, hi in windows for at in range(lo, hi - len(literal) + 1) if data.startswith(literal, at)]


def _windows(rng: random.Random, size: int) -> list[tuple[int, int]]:
    cuts = sorted(rng.sample(range(size + 1), min(size + 1, 2 * rng.randint(1, 6))))
    return [(lo, hi) for lo, hi in zip(cuts[::2], cuts[1::2], strict=False)]


def test_places_equal_a_plain_scan() -> None:
    rng = random.Random(7)
    checked = 0
    for _ in range(3000):
        alphabet = rng.choice([b"ab", b"abc", b"a\nb ", "aé€".encode(), bytes(range(256))])
        data = bytes(rng.choice(alphabet) for _ in range(rng.randint(0, 400)))
        if data and rng.random() < 0.5:
            start = rng.randrange(len(data))
            literal = data[start : start + rng.randint(2, 9)]  # present at least once, mostly
        else:
            literal = bytes(rng.choice(alphabet) for _ in range(rng.randint(2, 9)))
        if len(literal) < 2:
            continue
        windows = _windows(rng, len(data))
        got = literal_places(literal, data, windows)
        assert got.dtype == np.int64
        assert got.tolist() == _plain(literal, data, windows), (literal, data, windows)
        checked += 1
    assert checked > 2500


def test_overlapping_and_edge_places() -> None:
    data = b"aaaaa\naaa"
    assert literal_places(b"aaa", data, [(0, len(data))]).tolist() == [0, 1, 2, 6]
    assert literal_places(b"aaa", data, [(0, 5), (6, 9)]).tolist() == [0, 1, 2, 6]
    assert literal_places(b"aaa", data, [(1, 4), (7, 9)]).tolist() == [1]  # wholly inside a window only
    assert literal_places(b"aa", b"", [(0, 0)]).tolist() == []
    assert literal_places(b"xy", memoryview(b"..xy..xy"), [(0, 8)]).tolist() == [2, 6]
