"""Durable file operations: data reaches the disk before the name that points at it."""

from __future__ import annotations

import os
import zlib
from collections.abc import Iterable
from pathlib import Path

import numpy as np


def fsync_path(path: Path) -> None:
    """fsync a file or a directory (a directory's fsync makes renames inside it durable)."""
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def write_file(path: Path, data: bytes) -> None:
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    try:
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view):]
        os.fsync(fd)
    finally:
        os.close(fd)


def write_parts(path: Path, parts: Iterable[bytes], batch: int = 4096) -> np.ndarray:
    """Write `parts` back to back (durably), a batch at a time: a chunk of a million rows is
    never joined into one copy in memory. Returns each part's length."""
    lengths: list[int] = []
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    try:
        pending: list[bytes] = []
        for part in parts:
            pending.append(part)
            lengths.append(len(part))
            if len(pending) >= batch:
                _write_all(fd, b"".join(pending))
                pending = []
        if pending:
            _write_all(fd, b"".join(pending))
        os.fsync(fd)
    finally:
        os.close(fd)
    return np.array(lengths, dtype=np.int64)


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view):]


def replace_atomically(path: Path, data: bytes) -> None:
    """temp → fsync → rename → fsync dir: readers see the old bytes or the new, never a mix."""
    temp = path.with_name(path.name + ".tmp")
    write_file(temp, data)
    os.replace(temp, path)
    fsync_path(path.parent)


def file_crc(path: Path) -> int:
    crc = 0
    with open(path, "rb") as fh:
        while chunk := fh.read(1 << 22):
            crc = zlib.crc32(chunk, crc)
    return crc
