"""Event contents by doc id: packed msgpack rows and their texts, in immutable chunk files.

A chunk holds the docs added between two snapshots, from `<first doc>`:
    <first>-<tag>.bin       the rows, msgpack, back to back (the event's text left out: "")
    <first>-<tag>.off.npy   row offsets (int64, len+1)
    <first>-<tag>.txt       the texts, UTF-8, each followed by a newline
    <first>-<tag>.toff.npy  text offsets (int64, len+1): text i is txt[toff[i] : toff[i+1] - 1]
    <first>-<tag>.nl.npy    where the newlines of .txt are (uint32, or int64 past 4 GiB): every
                            line's end, so a regex search finds the line around a literal without
                            reading the text (a chunk written before it existed has it computed
                            once in memory, on first use)
Chunks are written once, at a snapshot, and read through mmap afterwards: a restart maps them
instead of loading them, and the process holds only the docs added since in memory.

The texts live apart from the rows so that `search_session_history` can run one RE2 pass over
a stretch of texts (newline-joined: a pattern that never crosses a newline matches exactly the
lines a per-line scan would), and find a literal at memory speed, without unpacking a row.
A chunk written before texts were split off has no `.txt`: its texts are inside its rows.
"""

from __future__ import annotations

import bisect
import mmap
import secrets
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import msgpack
import numpy as np

from moraine.durable import fsync_path, write_parts
from moraine.index.grep import newline_positions

TEXT = 5  # the text's place in a wire row (`Event.to_wire`)
SUFFIXES = (".bin", ".off.npy", ".txt", ".toff.npy", ".nl.npy")


def pack_rows(rows: list[list[Any]]) -> list[bytes]:
    """Wire rows as a chunk stores them, text left out (a parse worker packs them, or the store
    on replay); the texts travel beside them."""
    packb = msgpack.packb
    return [packb([*row[:TEXT], "", *row[TEXT + 1 :]], use_bin_type=True) for row in rows]


def encode_text(text: str) -> bytes:
    return text.encode("utf-8", "surrogatepass")


@dataclass(frozen=True)
class _Chunk:
    first: int
    offsets: np.ndarray
    data: mmap.mmap | bytes
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
        return bytes(chunk.data[int(chunk.offsets[j]) : int(chunk.offsets[j + 1])])

    def row(self, doc: int) -> list[Any]:
        """The wire row with its text."""
        row = msgpack.unpackb(self[doc], raw=False)
        if doc >= self.base:
            row[TEXT] = self.fresh_text[doc - self.base]
            return row
        chunk = self._chunk(doc)
        if chunk.text_offsets is not None:
            j = doc - chunk.first
            t = chunk.text_offsets
            row[TEXT] = bytes(chunk.text_data[int(t[j]) : int(t[j + 1]) - 1]).decode("utf-8", "surrogatepass")
        return row

    def size_of(self, doc: int) -> int:
        """Bytes the doc occupies (row and text)."""
        if doc >= self.base:
            return len(self.fresh[doc - self.base]) + len(encode_text(self.fresh_text[doc - self.base]))
        chunk = self._chunk(doc)
        j = doc - chunk.first
        size = int(chunk.offsets[j + 1] - chunk.offsets[j])
        if chunk.text_offsets is not None:
            size += int(chunk.text_offsets[j + 1] - chunk.text_offsets[j])
        return size

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
        if not self.fresh:
            return None
        directory.mkdir(mode=0o700, exist_ok=True)
        stem = f"{self.base:012d}-{secrets.token_hex(4)}"  # first doc, and unique across states (restore)
        texts = (encode_text(t) + b"\n" for t in self.fresh_text)  # streamed: never all encoded at once
        for suffix, parts in ((".bin", self.fresh), (".txt", texts)):
            lengths = write_parts(directory / f"{stem}{suffix}", parts)
            offsets = np.zeros(len(lengths) + 1, dtype=np.int64)
            np.cumsum(lengths, out=offsets[1:])
            _save(directory / (f"{stem}.off.npy" if suffix == ".bin" else f"{stem}.toff.npy"), offsets)
        _save(directory / f"{stem}.nl.npy", newline_index(_map(directory / f"{stem}.txt")))
        fsync_path(directory)
        self.attach(directory, stem)
        return stem

    def attach(self, directory: Path, stem: str) -> None:
        """Serve a persisted chunk (its rows must be the next docs after `base`)."""
        offsets = np.load(directory / f"{stem}.off.npy", mmap_mode="r", allow_pickle=False)
        count = len(offsets) - 1
        data = _map(directory / f"{stem}.bin")
        text_offsets = None
        text_data: mmap.mmap | bytes = b""
        if (directory / f"{stem}.toff.npy").exists():
            text_offsets = np.load(directory / f"{stem}.toff.npy", mmap_mode="r", allow_pickle=False)
            text_data = _map(directory / f"{stem}.txt")
        newlines = None
        if (directory / f"{stem}.nl.npy").exists():
            newlines = np.load(directory / f"{stem}.nl.npy", mmap_mode="r", allow_pickle=False)
        first = int(stem.split("-")[0])
        assert first == self.base, "content chunks must be contiguous"
        text_path = directory / f"{stem}.txt" if text_offsets is not None else None
        self.chunks.append(_Chunk(first, offsets, data, text_offsets, text_data, newlines, text_path))
        self.firsts.append(first)
        self.names.append(stem)
        self.base += count
        del self.fresh[:count]
        del self.fresh_text[:count]


def newline_index(data: Any) -> np.ndarray:
    """Where a buffer's newlines are (uint32 while it is under 4 GiB: 4 bytes a line)."""
    found = newline_positions(data) if len(data) else np.zeros(0, np.int64)
    return found.astype(np.uint32 if len(data) < 2**32 else np.int64)


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
