"""Logs read whole instead of line by line: a JSON document rewritten in place, a database.

A reader returns what such a log holds now as groups of records. Each group is parsed from a
fresh adapter state, in order, and its records are numbered from 1 (the number stands where a
line log has its line: it orders the events and names a quarantined record). The pipeline
then replaces what the state held of the log by what was read: an event read again with the
same bytes is left alone (it keeps its ID and costs nothing), a changed one replaces its copy,
and one no longer read is retired — within the whole file, or within the sessions read when
the reader returns only what changed (a database polled by a cursor).

Groups and their records may be produced lazily (a generator): a large document is streamed
message by message, a database session by session, so what is held at once is one group's
records, not the log. A lazy reader that finds it cannot go on raises `Unreadable`: nothing
of that read is kept, and the log is reported with the reason.
"""

from __future__ import annotations

import errno
import os
import stat
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any, BinaryIO

MAX_DOCUMENT_BYTES = 256 * 1024 * 1024


@dataclass
class Read:
    groups: Iterable[Iterable[Any]] = field(default_factory=list)  # records: dicts (anything else is quarantined)
    whole_file: bool = True  # the groups are all the log holds (else: whole sessions, the ones that changed)
    cursor: dict[str, Any] | None = None  # kept in the checkpoint and handed back on the next read
    problem: str | None = None  # why the log cannot be read now (it is read again when it changes)


class Unreadable(Exception):
    """Raised while a lazy read is consumed: the log cannot be read now; the message says why."""


def open_regular(path: str) -> BinaryIO:
    """A log opened for reading, only if it is a regular file: opening never blocks (a FIFO or
    a device put where a log was is refused, not waited on). OSError otherwise."""
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise OSError(errno.EINVAL, "not a regular file")
        os.set_blocking(fd, True)
        return os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise


def read_regular(path: str, limit: int) -> bytes | None:
    """Up to `limit` bytes of a regular file; None when it holds more."""
    with open_regular(path) as fh:
        raw = fh.read(limit + 1)
    return None if len(raw) > limit else raw
