"""Event contents by doc id: packed msgpack rows and their texts, in immutable chunk files.

A chunk holds the docs added between two snapshots, from `<first doc>`:
    <first>-<tag>.zst       the rows, msgpack (the event's text left out: ""), in zstd frames of
                            ROWS_PER_FRAME rows each, compressed with the chunk's dictionary
    <first>-<tag>.zoff.npy  frame offsets in .zst (frames+1)
    <first>-<tag>.dict      the zstd dictionary, trained on a sample of the chunk's rows (empty:
                            none, a chunk too small to train one)
    <first>-<tag>.off.npy   row offsets in the rows joined uncompressed (len+1): row j is
                            frame j // ROWS_PER_FRAME, at off[j] - off[first row of its frame]
    <first>-<tag>.txt       the texts, UTF-8, each followed by a newline
    <first>-<tag>.toff.npy  text offsets (len+1): text i is txt[toff[i] : toff[i+1] - 1]
                            (the three offset arrays are uint32, or int64 past 4 GiB or in a
                            chunk of an earlier layout, read as before)
    <first>-<tag>.nl.npy    where the newlines of .txt are (uint32, or int64 past 4 GiB): every
                            line's end, so a regex search finds the line around a literal without
                            reading the text (a chunk written before it existed has it computed
                            once in memory, on first use)
Chunks are written once, at a snapshot, and read through mmap afterwards: a restart maps them
instead of loading them, and the process holds only the docs added since in memory.

Why rows are compressed and texts are not: rows repeat the same few values (a session's ID,
its log's path, sources, kinds), so small frames with a trained dictionary keep ~1/5 of their
bytes and cost a few microseconds to open (`open`, a hit's row); texts are what the regex
search scans in place at memory speed, so they stay plain. A chunk of the older layout keeps
its rows plain in `<first>-<tag>.bin` (read as before).

The texts live apart from the rows so that `search_session_history` can run one RE2 pass over
a stretch of texts (newline-joined: a pattern that never crosses a newline matches exactly the
lines a per-line scan would), and find a literal at memory speed, without unpacking a row.
A chunk written before texts were split off has no `.txt`: its texts are inside its rows.
"""

from __future__ import annotations

import bisect
import mmap
import secrets
import threading
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import msgpack
import numpy as np
import zstandard

from moraine.durable import fsync_path, write_file, write_parts
from moraine.errors import StateError
from moraine.index.grep import newline_positions
from moraine.model import WIRE_FIELDS, WIRE_TEXT

TEXT = WIRE_TEXT  # the text's place in a wire row (`Event.to_wire`)
ROWS_PER_FRAME = 16  # 16 rows (~4.5 KB) decompress in ~4 us; bigger frames shrink little more
DICT_BYTES = 64 * 1024
DICT_SAMPLES = 8_000
LEVEL = 6


def pack_rows(rows: Sequence[list[Any]]) -> list[bytes]:
    """Wire rows as a chunk stores them, text left out (`Batch.from_rows`, in a parse worker or
    for a frame of rows read back); the texts travel beside them."""
    packb = msgpack.packb
    return [packb([*row[:TEXT], "", *row[TEXT + 1 :]], use_bin_type=True) for row in rows]


def encode_text(text: str) -> bytes:
    return text.encode("utf-8", "surrogatepass")


@dataclass(frozen=True)
class _Rows:
    """A chunk's compressed rows: its frames, their offsets and the decompressor of its dictionary."""

    frames: mmap.mmap | bytes
    frame_offsets: np.ndarray
    decompressor: zstandard.ZstdDecompressor
    path: Path  # the .zst file, named when a frame of it does not decompress


@dataclass(frozen=True)
class _Chunk:
    first: int
    offsets: np.ndarray
    data: mmap.mmap | bytes | _Rows  # plain rows (.bin, the older layout), or compressed
    text_offsets: np.ndarray | None  # None: a chunk whose texts are inside its rows
    text_data: mmap.mmap | bytes
    newlines: np.ndarray | None = None  # .nl.npy, when the chunk has one
    text_path: Path | None = None  # the .txt file (a regex search in another process maps it)


@dataclass(frozen=True)
class TextStretch:
    """Texts of some docs, each data[starts[i]:ends[i]], newline-separated, read in place."""

    data: mmap.mmap | bytes
    starts: np.ndarray
    ends: np.ndarray
    docs: np.ndarray
    newlines: np.ndarray | None  # where data's newlines are, when known (a mapped chunk)
    path: Path | None  # the file data maps, when it does


class Contents:
    def __init__(self) -> None:
        self.chunks: list[_Chunk] = []
        self.firsts: list[int] = []
        self.names: list[str] = []  # chunk file stems, as the manifest lists them
        self.base = 0  # docs persisted in chunks
        self.fresh: list[bytes] = []
        self.fresh_text: list[str] = []
        self.newline_cache: dict[tuple[str, int], np.ndarray] = {}
        self.purge: set[int] = set()  # retired docs whose chunk still holds their content
        self._frame: tuple[int, int, bytes] = (-1, -1, b"")  # the last frame decompressed: chunk, frame, rows
        self._frame_lock = threading.Lock()  # a decompressor serves one thread at a time

    def __len__(self) -> int:
        return self.base + len(self.fresh)

    def _chunk(self, doc: int) -> _Chunk:
        return self.chunks[bisect.bisect_right(self.firsts, doc) - 1]

    def __getitem__(self, doc: int) -> bytes:
        """The packed row (its text field empty unless the chunk predates split texts)."""
        if doc >= self.base:
            return self.fresh[doc - self.base]
        chunk = self._chunk(doc)
        j = doc - chunk.first
        start, end = int(chunk.offsets[j]), int(chunk.offsets[j + 1])
        if not isinstance(chunk.data, _Rows):
            return bytes(chunk.data[start:end])
        frame = j // ROWS_PER_FRAME
        base = int(chunk.offsets[frame * ROWS_PER_FRAME])
        return self._frame_rows(chunk, frame)[start - base : end - base]

    def _frame_rows(self, chunk: _Chunk, frame: int) -> bytes:
        """The rows of one frame, decompressed (the last frame is kept: a session's rows are
        read in order, many from one frame)."""
        with self._frame_lock:
            first, last, rows = self._frame
            if first == chunk.first and last == frame:
                return rows
            assert isinstance(chunk.data, _Rows)
            offsets = chunk.data.frame_offsets
            raw = chunk.data.frames[int(offsets[frame]) : int(offsets[frame + 1])]
            try:
                rows = chunk.data.decompressor.decompress(raw)
            except zstandard.ZstdError as exc:  # damaged on disk since it was verified (bit rot)
                raise StateError(f"{chunk.data.path} is damaged: its frame {frame} does not decompress ({exc}); "
                                 "run `moraine doctor --repair`") from exc
            self._frame = (chunk.first, frame, rows)
            return rows

    def row(self, doc: int) -> list[Any]:
        """The wire row with its text."""
        row = msgpack.unpackb(self[doc], raw=False)
        if doc >= self.base or self._chunk(doc).text_offsets is not None:  # else the text is inside the row
            row[TEXT] = self.text(doc)
        return row

    def text(self, doc: int) -> str:
        """The doc's text alone, read in place (no row decompressed)."""
        if doc >= self.base:
            return self.fresh_text[doc - self.base]
        chunk = self._chunk(doc)
        if chunk.text_offsets is None:
            text: str = self.row(doc)[TEXT]
            return text
        j = doc - chunk.first
        t = chunk.text_offsets
        return bytes(chunk.text_data[int(t[j]) : int(t[j + 1]) - 1]).decode("utf-8", "surrogatepass")

    def size_of(self, doc: int) -> int:
        """The bytes of what the doc said: its packed row and its text, uncompressed, less what
        a retired doc keeps (`blank_row`). Exact, and what purging the doc removes from what the
        state holds (compression then shrinks the files by about a fifth of the rows' share)."""
        row = self[doc]
        return len(row) - len(blank_row(row)) + len(encode_text(self.text(doc)))

    def text_chunks(self, docs: np.ndarray) -> Iterator[TextStretch]:
        """For `docs` (sorted): their texts, one stretch per chunk, read in place (a chunk of the
        older layout, and the docs not yet in a chunk, are joined into a buffer first)."""
        for index, chunk in enumerate(self.chunks):
            count = len(chunk.offsets) - 1
            lo, hi = np.searchsorted(docs, [chunk.first, chunk.first + count])
            if lo == hi:
                continue
            inside = docs[lo:hi]
            if chunk.text_offsets is None:
                yield _joined(inside, [self.row(d)[TEXT] for d in inside.tolist()])
                continue
            starts = np.asarray(chunk.text_offsets[inside - chunk.first], dtype=np.int64)
            ends = np.asarray(chunk.text_offsets[inside - chunk.first + 1], dtype=np.int64) - 1
            yield TextStretch(chunk.text_data, starts, ends, inside, self._newlines(index, chunk), chunk.text_path)
        fresh = docs[np.searchsorted(docs, self.base):]
        if len(fresh):
            yield _joined(fresh, [self.fresh_text[d - self.base] for d in fresh.tolist()])

    def text_bytes(self) -> int:
        """The bytes of text in chunk files (what a history scan reads in place)."""
        return sum(len(chunk.text_data) for chunk in self.chunks)

    def _newlines(self, index: int, chunk: _Chunk) -> np.ndarray:
        """The newline positions of a chunk's texts: its `.nl.npy`, mapped; for a chunk written
        before that file existed, found by one array pass on first use and kept."""
        if chunk.newlines is not None:
            return chunk.newlines
        key = (self.names[index] if index < len(self.names) else str(index), chunk.first)
        cached = self.newline_cache.get(key)
        if cached is None:
            cached = self.newline_cache[key] = newline_index(chunk.text_data)
        return cached

    def extend(self, rows: list[bytes], texts: list[str]) -> None:
        self.fresh.extend(rows)
        self.fresh_text.extend(texts)

    def write_chunk(self, directory: Path) -> str | None:
        """Persist the fresh docs as one chunk (durably), then serve them from it."""
        stem = self.persist_fresh(directory)
        if stem is not None:
            self.attach(directory, stem)
        return stem

    def persist_fresh(self, directory: Path) -> str | None:
        """Write the fresh docs as one chunk (durably) and name it; they are served from it
        once `attach`ed. Apart so that a publish compresses and writes with the readers' lock
        free: this only reads the fresh docs, which only the writer changes."""
        if not self.fresh:
            return None
        return _write_chunk(directory, self.base, self.fresh, (encode_text(t) for t in self.fresh_text))

    # -- forgetting for real ------------------------------------------------------------------

    def blank(self, doc: int) -> None:
        """A retired doc's content goes: at once when it is not in a chunk yet, else when the
        chunk holding it is written again (`rewrite`, at the next publish)."""
        if doc >= self.base:
            self.fresh[doc - self.base] = blank_row(self.fresh[doc - self.base])
            self.fresh_text[doc - self.base] = ""
        else:
            self.purge.add(doc)

    def rewrite(self, directory: Path) -> list[tuple[int, str]]:
        """Write again every chunk that holds a doc to purge, without that doc's text, arguments
        or metadata (same first doc, a new name). Only reads the chunks: the caller swaps them in
        (`replace`) under the readers' lock; the old files go with the generation that used them."""
        written = []
        for index, chunk in enumerate(self.chunks):
            count = len(chunk.offsets) - 1
            gone = {d for d in self.purge if chunk.first <= d < chunk.first + count}
            if gone:
                rows = [blank_row(self[d]) if d in gone else self[d] for d in range(chunk.first, chunk.first + count)]
                texts = (b"" if d in gone else encode_text(self.text(d))
                         for d in range(chunk.first, chunk.first + count))
                written.append((index, _write_chunk(directory, chunk.first, rows, texts)))
        return written

    def replace(self, directory: Path, written: list[tuple[int, str]]) -> None:
        """Serve the chunks `rewrite` wrote in place of the ones they purge."""
        for index, stem in written:
            self.chunks[index] = _open_chunk(directory, stem)
            self.names[index] = stem
        self.purge.clear()
        self.newline_cache.clear()
        self._frame = (-1, -1, b"")

    def attach(self, directory: Path, stem: str) -> None:
        """Serve a persisted chunk (its rows must be the next docs after `base`)."""
        chunk = _open_chunk(directory, stem)
        assert chunk.first == self.base, "content chunks must be contiguous"
        count = len(chunk.offsets) - 1
        self.chunks.append(chunk)
        self.firsts.append(chunk.first)
        self.names.append(stem)
        self.base += count
        del self.fresh[:count]
        del self.fresh_text[:count]


def _open_chunk(directory: Path, stem: str) -> _Chunk:
    offsets = np.load(directory / f"{stem}.off.npy", mmap_mode="r", allow_pickle=False)
    data: mmap.mmap | bytes | _Rows
    if (directory / f"{stem}.zst").exists():
        raw_dict = (directory / f"{stem}.dict").read_bytes()
        decompressor = zstandard.ZstdDecompressor(dict_data=zstandard.ZstdCompressionDict(raw_dict)) \
            if raw_dict else zstandard.ZstdDecompressor()
        zst = directory / f"{stem}.zst"
        data = _Rows(_map(zst), np.load(directory / f"{stem}.zoff.npy", allow_pickle=False), decompressor, zst)
    else:
        data = _map(directory / f"{stem}.bin")
    text_offsets = None
    text_data: mmap.mmap | bytes = b""
    if (directory / f"{stem}.toff.npy").exists():
        text_offsets = np.load(directory / f"{stem}.toff.npy", mmap_mode="r", allow_pickle=False)
        text_data = _map(directory / f"{stem}.txt")
    newlines = None
    if (directory / f"{stem}.nl.npy").exists():
        newlines = np.load(directory / f"{stem}.nl.npy", mmap_mode="r", allow_pickle=False)
    text_path = directory / f"{stem}.txt" if text_offsets is not None else None
    return _Chunk(int(stem.split("-")[0]), offsets, data, text_offsets, text_data, newlines, text_path)


def _write_chunk(directory: Path, first: int, rows: list[bytes], texts: Iterable[bytes]) -> str:
    """Write rows (packed) and their texts (encoded, streamed: never all held at once) as a chunk
    starting at doc `first`, durably; returns its stem."""
    directory.mkdir(mode=0o700, exist_ok=True)
    stem = f"{first:012d}-{secrets.token_hex(4)}"  # first doc, and unique across states (restore)
    _save(directory / f"{stem}.off.npy", _offsets(np.fromiter(map(len, rows), np.int64, len(rows))))
    dictionary = _train(rows)
    write_file(directory / f"{stem}.dict", dictionary.as_bytes() if dictionary is not None else b"")
    _save(directory / f"{stem}.zoff.npy", _offsets(write_parts(directory / f"{stem}.zst", _frames(rows, dictionary))))
    _save(directory / f"{stem}.toff.npy", _offsets(write_parts(directory / f"{stem}.txt", (t + b"\n" for t in texts))))
    _save(directory / f"{stem}.nl.npy", _file_newlines(directory / f"{stem}.txt"))
    fsync_path(directory)
    return stem


def blank_row(packed: bytes) -> bytes:
    """A retired doc's row as a chunk keeps it: where it was read from and what it was (uid,
    session, source, type, time, line), nothing of what it said (text, tool, arguments, ids,
    model, metadata)."""
    row = msgpack.unpackb(packed, raw=False)
    kept = [value if name in _BLANK_KEEPS else _BLANK.get(name) for name, value in zip(WIRE_FIELDS, row, strict=False)]
    return msgpack.packb(kept, use_bin_type=True)  # as long as it was: a row of an earlier format stays one


_BLANK_KEEPS = frozenset({"uid", "session_key", "source", "type", "ts_ms", "starts_turn", "terminal", "excluded",
                          "file", "line", "offset", "sub"})
_BLANK: dict[str, Any] = {"text": "", "meta": {}}  # the rest blank to None


def newline_index(data: Any) -> np.ndarray:
    """Where a buffer's newlines are (uint32 while it is under 4 GiB: 4 bytes a line)."""
    found = newline_positions(data) if len(data) else np.zeros(0, np.int64)
    return found.astype(np.uint32 if len(data) < 2**32 else np.int64)


def _file_newlines(path: Path, block: int = 8 << 20) -> np.ndarray:
    """`newline_index` of a file, read a block at a time with file reads: neither the file's
    pages (a map read through) nor a byte-per-byte mask of it are held at once (they were
    the peak of a bulk index: ~200 MB for a 90 MB chunk)."""
    wide = path.stat().st_size >= 2**32
    found: list[np.ndarray] = []
    base = 0
    with open(path, "rb") as fh:
        while data := fh.read(block):
            found.append((newline_positions(data) + base).astype(np.int64 if wide else np.uint32))
            base += len(data)
    return np.concatenate(found) if found else np.zeros(0, np.uint32)


def _offsets(lengths: np.ndarray) -> np.ndarray:
    """Offsets from lengths: uint32 while they fit (every chunk so far; half the bytes of the
    int64 that chunks of the earlier layouts hold, read the same)."""
    offsets = np.zeros(len(lengths) + 1, dtype=np.int64)
    np.cumsum(lengths, out=offsets[1:])
    return offsets.astype(np.uint32) if offsets[-1] < 2**32 else offsets


def _train(rows: list[bytes]) -> zstandard.ZstdCompressionDict | None:
    """A dictionary from an even sample of the rows; None when they are too few to train one."""
    step = max(1, len(rows) // DICT_SAMPLES)
    # a list of bytes-likes, as train_dictionary is typed (list is invariant: a list[bytes] is not one)
    sample: list[bytes | bytearray | memoryview[int]] = list(rows[::step])
    if len(sample) < 64:
        return None
    try:
        return zstandard.train_dictionary(DICT_BYTES, sample)
    except zstandard.ZstdError:  # too little material for a dictionary of that size
        return None


def _frames(rows: list[bytes], dictionary: zstandard.ZstdCompressionDict | None) -> Iterator[bytes]:
    compressor = zstandard.ZstdCompressor(level=LEVEL, dict_data=dictionary) if dictionary is not None \
        else zstandard.ZstdCompressor(level=LEVEL)
    for i in range(0, len(rows), ROWS_PER_FRAME):
        yield compressor.compress(b"".join(rows[i : i + ROWS_PER_FRAME]))


def _save(path: Path, array: np.ndarray) -> None:
    with open(path, "wb") as fh:
        np.save(fh, array, allow_pickle=False)
    fsync_path(path)


def _map(path: Path) -> mmap.mmap | bytes:
    if not path.stat().st_size:
        return b""
    with open(path, "rb") as fh:
        return mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_READ)



def _joined(docs: np.ndarray, texts: list[str]) -> TextStretch:
    parts = [encode_text(t) + b"\n" for t in texts]
    ends = np.cumsum([len(p) for p in parts], dtype=np.int64)
    return TextStretch(b"".join(parts), ends - np.array([len(p) for p in parts], dtype=np.int64), ends - 1, docs,
                       None, None)
