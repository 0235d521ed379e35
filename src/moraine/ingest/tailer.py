"""Reads the complete new lines of one log file from its checkpoint.

A last line without its newline is not consumed: it waits for the next pass, so a line
the harness is still writing is never parsed half-written and never lost. A new inode or
a shrink means the file was replaced or truncated: a new generation reads from offset 0.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Iterator
from typing import BinaryIO, NamedTuple

from moraine.model import Checkpoint

CHUNK = 4 * 1024 * 1024


class Line(NamedTuple):  # a tuple: made once per log line, it must be cheap
    raw: bytes
    number: int  # one-based line number in this generation
    offset: int  # byte offset of the line's start
    end: int  # byte offset just past its newline


HEAD_BYTES = 4096


def needs_reset(checkpoint: Checkpoint, stat: os.stat_result, path: str | None = None) -> bool:
    """A new inode, a shrink, or different first bytes (a file deleted and recreated can get
    the same inode number back, and grow past the old offset) mean a new generation."""
    if checkpoint.inode not in (0, stat.st_ino) or stat.st_size < checkpoint.offset:
        return True
    return path is not None and checkpoint.head_len > 0 and head_hash(path, checkpoint.head_len) != checkpoint.head_hash


def head_hash(path: str, length: int) -> str:
    try:
        with open(path, "rb") as fh:
            data = fh.read(length)
    except OSError:
        return ""
    return hashlib.blake2b(data, digest_size=16).hexdigest() if len(data) == length else ""


def record_head(path: str, checkpoint: Checkpoint) -> None:
    """Remember a hash of the file's first bytes read so far (up to HEAD_BYTES)."""
    want = min(HEAD_BYTES, checkpoint.offset)
    if checkpoint.head_len < want:
        checkpoint.head_len, checkpoint.head_hash = want, head_hash(path, want)


def complete_lines(path: str, offset: int, line: int, limit: int | None = None,
                   max_line: int | None = None) -> Iterator[Line]:
    """Complete lines after `offset`; stops at the first unterminated tail.

    A line ends at LF (a CR before it stays in the line: JSON reads it as white space), or at a
    CR alone once the log is seen to break its lines so (old Mac style: a CR followed by
    anything but LF, here or before `offset`); the last line of such a log ends at its final CR.
    A UTF-8 byte order mark opening the file is not part of its first line.

    A line longer than `max_line` bytes is yielded with only its head as `raw` (its offsets
    say how long it was): the reader never holds more than about `max_line + CHUNK` bytes,
    and reading stays linear in the line's length however long it is."""
    head_keep = 4096
    with open(path, "rb") as fh:
        cr = _cr_before(fh, offset)
        fh.seek(offset)
        pending = b""
        position = offset
        skipping: bytes | None = None  # the head of an oversized line whose end is not read yet
        bom = offset == 0
        while True:
            chunk = fh.read(CHUNK)
            if not chunk:
                yield from _last_cr_line(pending, line, position, bom, cr and skipping is None)
                return
            cr = cr or _lone_cr(chunk)
            if skipping is not None:
                newline = _next_break(chunk, 0, cr)
                if newline < 0:
                    continue
                line += 1
                end = fh.tell() - len(chunk) + newline + 1
                yield Line(skipping, line, position, end)
                position, skipping = end, None
                chunk = chunk[newline + 1 :]
            data = pending + chunk if pending else chunk
            start = 0
            while True:
                newline = _next_break(data, start, cr)
                if newline < 0:
                    break
                line += 1
                raw = data[start:newline]
                if bom:
                    raw, bom = raw.removeprefix(BOM), False
                yield Line(raw, line, position, position + newline - start + 1)
                position += newline - start + 1
                start = newline + 1
            pending = data[start:]
            if max_line is not None and len(pending) > max_line:
                skipping, pending = pending[:head_keep], b""
            if limit is not None and position - offset >= limit:
                return


BOM = b"\xef\xbb\xbf"


def _last_cr_line(pending: bytes, line: int, position: int, bom: bool, cr: bool) -> Iterator[Line]:
    """The last line of a log that ends its lines with a CR alone (`cr`): complete at its CR."""
    if cr and pending.endswith(b"\r"):
        yield Line(pending[:-1].removeprefix(BOM) if bom else pending[:-1], line + 1, position,
                   position + len(pending))


def _cr_before(fh: BinaryIO, offset: int) -> bool:
    """Whether the line before `offset` ended with a CR alone (then so do this log's lines)."""
    if offset <= 0:
        return False
    fh.seek(offset - 1)
    return fh.read(1) == b"\r"


def _lone_cr(data: bytes) -> bool:
    """A CR followed by a byte other than LF (a CR ending `data` may yet be followed by LF)."""
    if b"\r" not in data:
        return False
    body = data[:-1] if data.endswith(b"\r") else data
    return body.count(b"\r") != body.count(b"\r\n")


def _next_break(data: bytes, start: int, cr: bool) -> int:
    """The index of the byte that ends the next line from `start` (LF; with `cr`, also a CR
    not followed by LF), or -1 (none yet: a CR ending `data` may be the first half of CRLF)."""
    newline = data.find(b"\n", start)
    if not cr:
        return newline
    ret = data.find(b"\r", start, newline if newline >= 0 else len(data))
    if ret < 0:
        return newline
    if ret + 1 == len(data):
        return -1
    return newline if data[ret + 1] == 0x0A else ret
