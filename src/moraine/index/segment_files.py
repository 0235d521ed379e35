"""How a segment's arrays reach disk and come back: one `.npy` file each, written into a temp
directory that is fsynced and renamed into place, appended a piece at a time (a merge streams
its output), mapped on load; the term dictionary packed on disk and widened on load.

Split from `index/segment.py`, which keeps what the arrays mean (building, merging, reading a
term's postings); this module knows only files.
"""

from __future__ import annotations

import io
import os
import shutil
from pathlib import Path
from typing import Any

import numpy as np

from moraine.durable import fsync_path
from moraine.index.postings import BLOCK, DTYPES, STREAMS, WIDTHS, encode, spos_dtype

OPTIONAL = {"tf_over_at": np.int64, "tf_over": np.uint32, "win_terms": np.int64, "win_g": np.uint8,
            "win_meta": np.float64}


def load_array(directory: Path, name: str) -> np.ndarray:
    path = directory / f"{name}.npy"
    if name in OPTIONAL and not path.exists():
        return np.zeros(0, OPTIONAL[name])
    return np.load(path, mmap_mode="r", allow_pickle=False).view(np.ndarray)


TERM_FILES = ("term_bytes", "term_ends")
UNPACK_TERMS = 65_536  # terms widened per step on load (bounds the index arrays it builds)


def pack_terms(terms: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The dictionary as a file keeps it: the UTF-8 terms joined, and where each ends. In memory
    a segment's terms are fixed-width (as wide as its longest, so `searchsorted` finds one);
    on disk that width cost 64 bytes a term where they average 16-23."""
    terms = np.ascontiguousarray(terms)
    width = terms.dtype.itemsize
    lengths = np.char.str_len(terms).astype(np.int64) if len(terms) else np.zeros(0, np.int64)
    grid = terms.view(np.uint8).reshape(len(terms), width)
    joined = grid[np.arange(width) < lengths[:, None]]
    ends = np.cumsum(lengths)
    return joined, ends.astype(np.uint32) if len(ends) == 0 or ends[-1] < 2**32 else ends


def unpack_terms(joined: np.ndarray, ends: np.ndarray) -> np.ndarray:
    """The fixed-width terms from their packed form: each row of the grid takes its term's bytes
    through a mask of the places before its length (UNPACK_TERMS rows a step, which bounds the
    mask), 5x faster than computing every byte's place; a restarted daemon loads every segment's
    dictionary before its first answer."""
    ends = np.asarray(ends, dtype=np.int64)
    starts = np.concatenate(([0], ends[:-1])) if len(ends) else ends
    lengths = ends - starts
    width = max(int(lengths.max()), 1) if len(lengths) else 1
    grid = np.zeros((len(ends), width), dtype=np.uint8)
    places = np.arange(width, dtype=np.int64)
    for lo in range(0, len(ends), UNPACK_TERMS):
        hi = min(lo + UNPACK_TERMS, len(ends))
        grid[lo:hi][places < lengths[lo:hi, None]] = joined[int(starts[lo]) : int(ends[hi - 1])]
    return grid.view(f"S{width}").reshape(-1)


def read_range(array: np.ndarray, start: int, end: int) -> np.ndarray:
    mapped = array.base if isinstance(array.base, np.memmap) else None
    if mapped is None or mapped.filename is None:
        return np.asarray(array[start:end])
    return np.fromfile(mapped.filename, dtype=array.dtype, count=end - start,
                       offset=mapped.offset + start * array.dtype.itemsize)


class Stream:
    """One output array: appended a piece at a time (to a `.npy` file, or into memory). Its
    length may be unknown when it starts (None): the file's header is then written again,
    at the same size, once the length is known."""

    def __init__(self, path: Path | None, dtype: np.dtype | type, length: int | None) -> None:
        self.dtype, self.length, self.written = np.dtype(dtype), length, 0
        self.pieces: list[np.ndarray] = []
        self.fh = None
        if path is not None:
            self.fh = open(path, "wb")  # noqa: SIM115 (closed in close())
            self.header = self._header(length or 0)
            self.fh.write(self.header)

    def _header(self, length: int) -> bytes:
        out = io.BytesIO()
        np.lib.format.write_array_header_1_0(out, {"descr": np.lib.format.dtype_to_descr(self.dtype),
                                                   "fortran_order": False, "shape": (length,)})
        return out.getvalue()

    def write(self, piece: np.ndarray) -> None:
        piece = np.ascontiguousarray(piece, dtype=self.dtype)
        self.written += len(piece)
        if self.fh is None:
            self.pieces.append(piece)
        else:
            self.fh.write(piece.tobytes())

    def close(self) -> np.ndarray | None:
        if self.fh is None:
            return np.concatenate(self.pieces) if self.pieces else np.zeros(0, self.dtype)
        if self.length is None:
            header = self._header(self.written)
            if len(header) != len(self.header):  # never at any array size numpy can hold
                raise ValueError(f"npy header grew from {len(self.header)} to {len(header)} bytes")
            self.fh.seek(0)
            self.fh.write(header)
        self.fh.flush()
        os.fsync(self.fh.fileno())
        self.fh.close()
        return None


class BlockStreams:
    """A merge's doc ids, encoded into blocks a run of terms at a time (see index/postings.py)."""

    def __init__(self, out: Output, offsets: np.ndarray) -> None:
        n_blocks = int(((np.diff(offsets) + BLOCK - 1) // BLOCK).sum())
        self.heads = out.stream("heads", np.uint32, n_blocks)
        self.widths = out.stream("widths", np.uint8, n_blocks)
        self.spos = out.stream("spos", spos_dtype(int(offsets[-1])), n_blocks)
        self.gaps = {width: out.stream(STREAMS[width], DTYPES[width], None) for width in WIDTHS}

    def write(self, docs: np.ndarray, offsets: np.ndarray) -> None:
        """The doc ids of a run of terms whose offsets are `offsets`."""
        enc = encode(docs, np.diff(offsets), {width: self.gaps[width].written for width in WIDTHS})
        self.heads.write(enc.heads)
        self.widths.write(enc.widths)
        self.spos.write(enc.spos)
        for width in WIDTHS:
            self.gaps[width].write(enc.streams[width])


class Output:
    """Where a segment is written: arrays in memory, or `.npy` files appended in a temp directory
    that becomes `directory` when finished (fsynced, then renamed)."""

    def __init__(self, directory: Path | None) -> None:
        self.directory = directory
        self.streams: dict[str, Stream] = {}
        self.temp = directory.with_name(directory.name + ".tmp") if directory is not None else None
        if self.temp is not None:
            if self.temp.exists():
                shutil.rmtree(self.temp)
            self.temp.mkdir(parents=True)

    def array(self, name: str, array: np.ndarray) -> None:
        """One whole array; a directory keeps the term dictionary packed (`pack_terms`)."""
        if name == "terms" and self.temp is not None:
            for part_name, part in zip(TERM_FILES, pack_terms(array), strict=True):
                self.stream(part_name, part.dtype, len(part)).write(part)
            return
        self.stream(name, array.dtype, len(array)).write(array)

    def stream(self, name: str, dtype: np.dtype | type, length: int | None) -> Stream:
        path = self.temp / f"{name}.npy" if self.temp is not None else None
        self.streams[name] = Stream(path, dtype, length)
        return self.streams[name]

    def finish(self, cls: Any) -> Any:
        arrays = self.close()
        if self.directory is None:
            return cls.from_arrays({name: array for name, array in arrays.items() if array is not None})
        return cls.load(self.directory)

    def close(self) -> dict[str, np.ndarray | None]:
        """Finish every array; a directory is made durable and renamed into place."""
        arrays = {name: stream.close() for name, stream in self.streams.items()}
        if self.temp is None or self.directory is None:
            return arrays
        fsync_path(self.temp)
        if self.directory.exists():  # left by a crash before its generation was published
            shutil.rmtree(self.directory)
        os.replace(self.temp, self.directory)
        fsync_path(self.directory.parent)
        return arrays
