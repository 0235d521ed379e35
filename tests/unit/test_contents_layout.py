"""Content chunks: texts apart from the rows (for in-place scans), and chunks of the older layout
(texts inside the rows) still read the same through every accessor."""

from __future__ import annotations

from pathlib import Path

import msgpack
import numpy as np

from moraine.store.contents import Contents, pack_rows


def _rows(n: int) -> list[list]:
    return [[f"u{i}", "k", "codex", "user_input", i, f"line one {i}\nsecond é {i}" if i % 3 else "", None, None,
             None, None, None, False, 0, False, None, "/f", i, 0, 0, {}] for i in range(n)]


def _write_old_layout(directory: Path, rows: list[list]) -> str:
    """A chunk as versions before split texts wrote it: rows with their text, no .txt."""
    directory.mkdir(exist_ok=True)
    stem = "000000000000-abcd0000"
    packed = [msgpack.packb(r, use_bin_type=True) for r in rows]
    offsets = np.concatenate([[0], np.cumsum([len(p) for p in packed])]).astype(np.int64)
    (directory / f"{stem}.bin").write_bytes(b"".join(packed))
    np.save(directory / f"{stem}.off.npy", offsets)
    return stem


def _check(contents: Contents, rows: list[list]) -> None:
    docs = np.arange(len(rows), dtype=np.int64)
    for doc, row in enumerate(rows):
        assert contents.row(doc) == row
    spans = {doc: bytes(t.data[a:b]).decode() for t in contents.text_chunks(docs)
             for doc, a, b in zip(t.docs.tolist(), t.starts.tolist(), t.ends.tolist(), strict=True)}
    assert spans == {doc: row[5] for doc, row in enumerate(rows)}
    for t in contents.text_chunks(docs):  # a written chunk's .nl.npy, or found on first use
        want = np.flatnonzero(np.frombuffer(t.data, dtype=np.uint8) == 10) if len(t.data) else []
        assert t.newlines is None or np.array_equal(t.newlines, want)


def test_split_texts_fresh_and_written(tmp_path: Path) -> None:
    rows = _rows(40)
    contents = Contents()
    contents.extend(pack_rows(rows), [r[5] for r in rows])
    _check(contents, rows)
    stem = contents.write_chunk(tmp_path)
    assert stem and (tmp_path / f"{stem}.txt").exists() and (tmp_path / f"{stem}.nl.npy").exists()
    assert contents.chunks[0].newlines is not None  # mapped from the file, not found again
    _check(contents, rows)
    (tmp_path / f"{stem}.nl.npy").unlink()  # a chunk written before the file existed
    older = Contents()
    older.attach(tmp_path, stem)
    assert older.chunks[0].newlines is None
    _check(older, rows)
    more = _rows(50)[40:]
    contents.extend(pack_rows(more), [r[5] for r in more])
    _check(contents, rows + more)


def test_a_chunk_of_the_older_layout_reads_the_same(tmp_path: Path) -> None:
    rows = _rows(30)
    contents = Contents()
    contents.attach(tmp_path, _write_old_layout(tmp_path, rows))
    _check(contents, rows)


def test_rows_are_compressed_in_frames_and_read_back_in_any_order(tmp_path: Path) -> None:
    """Rows go to zstd frames of ROWS_PER_FRAME with a dictionary trained on the chunk; any row,
    in any order (a frame boundary, the last partial frame, across two chunks), reads back as it
    was; a chunk too small for a dictionary is compressed without one; the rows take a fraction
    of their plain bytes."""
    import random

    from moraine.store.contents import ROWS_PER_FRAME

    rows = [[f"u{i:08d}", f"codex:019c47be-ef1a-7686-9242-{i // 50:012d}", "codex", "tool_call", 1770730221338 + i,
             f"text {i}", None, "shell", None, None, None, False, 0, False, None,
             f"/home/dev/.codex/sessions/2026/02/10/rollout-{i // 50}.jsonl", i, i * 300, 0, {"cwd": "/home/dev/src"}]
            for i in range(5_000 + ROWS_PER_FRAME // 2)]
    small = _rows(10)
    contents = Contents()
    contents.extend(pack_rows(rows), [r[5] for r in rows])
    first = contents.write_chunk(tmp_path)
    contents.extend(pack_rows(small), [r[5] for r in small])
    second = contents.write_chunk(tmp_path)
    assert first and second
    assert (tmp_path / f"{first}.dict").stat().st_size > 0 and (tmp_path / f"{second}.dict").stat().st_size == 0
    assert not list(tmp_path.glob("*.bin"))
    plain = sum(len(p) for p in pack_rows(rows))
    assert (tmp_path / f"{first}.zst").stat().st_size < plain / 3
    every = rows + small
    order = list(range(len(every)))
    random.Random(5).shuffle(order)
    reopened = Contents()
    reopened.attach(tmp_path, first)
    reopened.attach(tmp_path, second)
    for c in (contents, reopened):
        for doc in [*order[:2_000], ROWS_PER_FRAME - 1, ROWS_PER_FRAME, len(rows) - 1, len(rows)]:
            assert c.row(doc) == every[doc], doc
    _check(reopened, every)
    assert 0 < reopened.size_of(0) < len(pack_rows(rows[:1])[0]) + len(b"text 0\n")


def test_the_newline_index_of_a_file_read_in_blocks(tmp_path: Path) -> None:
    """Read a block at a time (block edges on and beside newlines), the index equals one pass."""
    from moraine.store.contents import _file_newlines, newline_index

    data = b"".join(b"x" * (i % 7) + b"\n" for i in range(5_000)) + b"tail"
    path = tmp_path / "t.txt"
    path.write_bytes(data)
    for block in (1, 3, 7, 8, 4096, 1 << 20):
        got = _file_newlines(path, block)
        assert got.dtype == np.uint32 and np.array_equal(got, newline_index(data)), block
    (tmp_path / "e.txt").write_bytes(b"")
    assert len(_file_newlines(tmp_path / "e.txt")) == 0
