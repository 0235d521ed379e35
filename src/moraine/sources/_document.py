"""Logs read whole instead of line by line: a JSON document rewritten in place, a database.

A reader returns what such a log holds now as groups of records. Each group is parsed from a
fresh adapter state, in order, and its records are numbered from 1 (the number stands where a
line log has its line: it orders the events and names a quarantined record). The pipeline
then replaces what the state held of the log by what was read: an event read again with the
same bytes is left alone (it keeps its ID and costs nothing), a changed one replaces its copy,
and one no longer read is retired — within the whole file, or within the sessions read when
the reader returns only what changed (a database polled by a cursor).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

MAX_DOCUMENT_BYTES = 256 * 1024 * 1024


@dataclass
class Read:
    groups: list[list[Any]] = field(default_factory=list)  # records: dicts (anything else is quarantined)
    whole_file: bool = True  # the groups are all the log holds (else: whole sessions, the ones that changed)
    cursor: dict[str, Any] | None = None  # kept in the checkpoint and handed back on the next read
    problem: str | None = None  # why the log cannot be read now (it is read again when it changes)
