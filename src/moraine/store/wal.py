"""The write-ahead log: every normalized batch, with the checkpoints it covers.

Format (version 1), little-endian:
    header  16 bytes: b"MORAINEW", uint16 format version, 6 zero bytes
    frame   uint32 payload length, uint32 CRC32 of the payload, msgpack payload
A payload is a map {"batch": {...}, "issues": [...], "checkpoints": {...}, "at": ms, ...}: the
events as one columnar `moraine.store.batch.Batch` in its wire form (absent when the frame has none).
Frames written before the batch (2026-11) hold the events as rows, "events": [[...], ...]
(`Event.to_wire`); they are still read, and applied as a batch. A frame is
valid only whole and with a matching CRC: a torn or bad-CRC tail (a crash mid-append)
is cut off on open; a bad frame *before* valid ones is damage, reported, never skipped.
"""

from __future__ import annotations

import os
import struct
import zlib
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, BinaryIO

import msgpack

from moraine.durable import fsync_path
from moraine.errors import StateError

MAGIC = b"MORAINEW"
VERSION = 1
HEADER = MAGIC + struct.pack("<H", VERSION) + b"\0" * 6
FRAME = struct.Struct("<II")
MAX_FRAME = 1 << 31
RESYNC_WINDOW = 1 << 20


@dataclass(frozen=True)
class Frame:
    offset: int
    end: int
    payload: dict[str, Any]


class Wal:
    """Append-only frames in one file; readers follow the tail by offset."""

    def __init__(self, path: Path, fsync: str = "batch") -> None:
        self.path = path
        self.fsync = fsync
        if not path.exists() or path.stat().st_size == 0:
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
            try:
                os.write(fd, HEADER)
                os.fsync(fd)
            finally:
                os.close(fd)
        with path.open("rb") as fh:
            header = fh.read(len(HEADER))
        if header[:8] != MAGIC:
            raise StateError(f"{path}: not a Moraine write-ahead log (bad magic); run `moraine doctor --repair` "
                             "(it keeps every intact frame and re-reads the logs)")
        (version,) = struct.unpack("<H", header[8:10])
        if version != VERSION:
            raise StateError(f"{path}: write-ahead log format {version} is not supported (expected {VERSION})")

    def frames(self, start: int = 0) -> Iterator[Frame]:
        """Whole, valid frames from `start`; stops before a torn or corrupt frame."""
        offset = max(start, len(HEADER))
        with self.path.open("rb") as fh:
            fh.seek(offset)
            while True:
                frame = _read_frame(fh, offset)
                if frame is None:
                    return
                yield frame
                offset = frame.end

    def valid_end(self, start: int = 0) -> int:
        end = max(start, len(HEADER))
        for frame in self.frames(start):
            end = frame.end
        return end

    def damaged_after(self, valid_end: int) -> bool:
        """True when the bytes after the last valid frame are damage, not a torn append:
        a whole bad frame with more bytes behind it, or any valid frame further on."""
        size = self.size()
        if size <= valid_end:
            return False
        with self.path.open("rb") as fh:
            fh.seek(valid_end)
            head = fh.read(FRAME.size)
            if len(head) == FRAME.size and valid_end + FRAME.size + FRAME.unpack(head)[0] < size:
                return True
            fh.seek(valid_end + 1)
            data = fh.read(RESYNC_WINDOW)
        for p in range(max(0, len(data) - FRAME.size)):
            length, crc = FRAME.unpack_from(data, p)
            end = p + FRAME.size + length
            if length > 0 and end <= len(data) and zlib.crc32(data[p + FRAME.size : end]) == crc:
                return True
        return False

    def cut_tail(self, valid_end: int) -> int:
        """Truncate bytes after the last whole frame; returns how many were cut."""
        size = self.path.stat().st_size
        if size > valid_end:
            with self.path.open("r+b") as fh:
                fh.truncate(valid_end)
                os.fsync(fh.fileno())
        return max(0, size - valid_end)

    def append(self, payload: dict[str, Any]) -> int:
        """Write one frame at the end; returns the offset just past it."""
        body = msgpack.packb(payload, use_bin_type=True)
        data = FRAME.pack(len(body), zlib.crc32(body)) + body
        fd = os.open(self.path, os.O_WRONLY | os.O_APPEND)
        try:
            before = os.lseek(fd, 0, os.SEEK_END)
            try:
                view = memoryview(data)
                while view:
                    view = view[os.write(fd, view):]
                if self.fsync == "always":
                    os.fsync(fd)
            except OSError:
                # A full disk mid-frame: take the torn bytes back now, or this process's next
                # frame would land behind them and read as damage (truncating needs no space).
                os.ftruncate(fd, before)
                raise
            return os.lseek(fd, 0, os.SEEK_END)
        finally:
            os.close(fd)

    def size(self) -> int:
        return self.path.stat().st_size

    def sync(self) -> None:
        fsync_path(self.path)


def _read_frame(fh: BinaryIO, offset: int) -> Frame | None:
    head = fh.read(FRAME.size)
    if len(head) < FRAME.size:
        return None
    length, crc = FRAME.unpack(head)
    if length > MAX_FRAME:
        return None
    body = fh.read(length)
    if len(body) < length or zlib.crc32(body) != crc:
        return None
    try:
        payload = msgpack.unpackb(body, raw=False, strict_map_key=False)
    except (ValueError, msgpack.UnpackException):
        return None
    return Frame(offset, offset + FRAME.size + length, payload)


Position = tuple[int, int]  # (WAL file number, byte offset in it)


class WalSet:
    """Numbered WAL files in `wal/`: appends go to the newest. A snapshot rotates to a new
    file first, so every older file is wholly covered by it and can go once it is published."""

    def __init__(self, directory: Path, fsync: str = "batch") -> None:
        self.dir = directory
        self.fsync = fsync
        directory.mkdir(mode=0o700, exist_ok=True)
        legacy = directory.parent / "wal.log"  # the single-file layout of format 1 states
        if legacy.exists() and not self.seqs():
            os.replace(legacy, self.path(1))
        if not self.seqs():
            Wal(self.path(1), fsync)

    def path(self, seq: int) -> Path:
        return self.dir / f"{seq:08d}.log"

    def seqs(self) -> list[int]:
        return sorted(int(p.name[:-4]) for p in self.dir.glob("*.log") if p.name[:-4].isdigit())

    def open(self, seq: int) -> Wal:
        return Wal(self.path(seq), self.fsync)

    def current(self) -> Wal:
        return self.open(self.seqs()[-1])

    def rotate(self) -> int:
        """Start a new, empty WAL file; returns its number."""
        seq = self.seqs()[-1] + 1
        Wal(self.path(seq), self.fsync)
        fsync_path(self.dir)
        return seq

    def remove_before(self, seq: int) -> int:
        removed = 0
        for old in self.seqs():
            if old < seq:
                self.path(old).unlink(missing_ok=True)
                removed += 1
        return removed

    def size(self) -> int:
        return sum(self.path(seq).stat().st_size for seq in self.seqs() if self.path(seq).exists())
