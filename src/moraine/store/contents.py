"""Event contents by doc id: packed msgpack rows, persisted in immutable chunk files.

A chunk is `content/<first doc>.bin` (the rows back to back) with `<first doc>.off.npy`
(row offsets, len+1). Chunks are written once, at a snapshot, for the docs added since the
last one, and read through mmap afterwards: a restart maps them instead of loading them,
and the process holds only the rows added since the last snapshot in memory.
"""

from __future__ import annotations

import bisect
import mmap
import secrets
from pathlib import Path
from typing import Any

import msgpack
import numpy as np

from moraine.durable import fsync_path, write_file


def pack_rows(rows: list[list[Any]]) -> list[bytes]:
    """Wire rows as a chunk stores them (a parse worker packs them, or the store on replay)."""
    packb = msgpack.packb
    return [packb(row, use_bin_type=True) for row in rows]


class Contents:
    def __init__(self) -> None:
        self.chunks: list[tuple[int, np.ndarray, mmap.mmap | bytes]] = []  # (first doc, offsets, data)
        self.firsts: list[int] = []
        self.names: list[str] = []  # chunk file stems, as the manifest lists them
        self.base = 0  # docs persisted in chunks
        self.fresh: list[bytes] = []

    def __len__(self) -> int:
        return self.base + len(self.fresh)

    def __getitem__(self, doc: int) -> bytes:
        if doc >= self.base:
            return self.fresh[doc - self.base]
        i = bisect.bisect_right(self.firsts, doc) - 1
        first, offsets, data = self.chunks[i]
        j = doc - first
        return bytes(data[int(offsets[j]) : int(offsets[j + 1])])

    def docs_containing(self, needle: bytes, docs: np.ndarray | None = None) -> np.ndarray:
        """Doc ids whose packed row holds these bytes anywhere (a superset of the docs whose text
        does: a row stores its text as raw UTF-8). One `find` pass over each mapped chunk, at
        memory speed; `docs` (sorted) limits the chunks read."""
        found: list[int] = []
        for first, offsets, data in self.chunks:
            count = len(offsets) - 1
            if docs is not None:
                lo, hi = np.searchsorted(docs, [first, first + count])
                if lo == hi:
                    continue
                start, stop = int(offsets[int(docs[lo]) - first]), int(offsets[int(docs[hi - 1]) - first + 1])
            else:
                start, stop = 0, int(offsets[-1])
            at = data.find(needle, start, stop)
            while at >= 0:
                row = int(np.searchsorted(offsets, at, side="right")) - 1
                found.append(first + row)
                at = data.find(needle, int(offsets[row + 1]), stop)
        found.extend(self.base + i for i, row in enumerate(self.fresh) if needle in row)
        result = np.asarray(found, dtype=np.int64)
        return result if docs is None else result[np.isin(result, docs)]

    def extend(self, rows: list[bytes]) -> None:
        self.fresh.extend(rows)

    def write_chunk(self, directory: Path) -> str | None:
        """Persist the fresh rows as one chunk (durably), then serve them from it."""
        if not self.fresh:
            return None
        directory.mkdir(mode=0o700, exist_ok=True)
        stem = f"{self.base:012d}-{secrets.token_hex(4)}"  # first doc, and unique across states (restore)
        lengths = np.fromiter((len(r) for r in self.fresh), dtype=np.int64, count=len(self.fresh))
        offsets = np.zeros(len(self.fresh) + 1, dtype=np.int64)
        np.cumsum(lengths, out=offsets[1:])
        write_file(directory / f"{stem}.bin", b"".join(self.fresh))
        with open(directory / f"{stem}.off.npy", "wb") as fh:
            np.save(fh, offsets, allow_pickle=False)
        fsync_path(directory / f"{stem}.off.npy")
        fsync_path(directory)
        self.attach(directory, stem)
        return stem

    def attach(self, directory: Path, stem: str) -> None:
        """Serve a persisted chunk (its rows must be the next docs after `base`)."""
        offsets = np.load(directory / f"{stem}.off.npy", mmap_mode="r", allow_pickle=False)
        count = len(offsets) - 1
        path = directory / f"{stem}.bin"
        data: mmap.mmap | bytes
        if path.stat().st_size:
            with open(path, "rb") as fh:
                data = mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_READ)
        else:
            data = b""
        first = int(stem.split("-")[0])
        assert first == self.base, "content chunks must be contiguous"
        self.chunks.append((first, offsets, data))
        self.firsts.append(first)
        self.names.append(stem)
        self.base += count
        del self.fresh[:count]
