"""Logs read whole: a JSON document rewritten in place, a database polled by a cursor.

A line log is read from its checkpoint's offset; such a log is read again whole (or, for a
database, the sessions that changed since the cursor) whenever its change token differs from
the checkpoint's. The parts carry what they replace; `delta` (in the indexing process, which
holds the state) turns them into the changes only: events read again unchanged are dropped,
and those the log no longer holds are retired by ID, in the same WAL frame as the checkpoint.
"""

from __future__ import annotations

import hashlib
import os
from typing import TYPE_CHECKING, Any

import numpy as np

from moraine.batch import Batch
from moraine.model import Checkpoint, LineRef
from moraine.sources import ADAPTERS, normalize_record
from moraine.store.contents import TEXT
from moraine.store.validate import storable

if TYPE_CHECKING:
    from moraine.store.engine import Store

# What a part replaces: {"file": True} all the state holds of the log, {"sessions": [...]} those sessions'.
Replaces = dict[str, Any]
SIDE_FILES = ("-wal",)  # a SQLite database in WAL mode changes there first


def change_token(path: str, stat: os.stat_result, extra: list[int] | None = None) -> tuple[int, float]:
    """A number that changes whenever the log does: size and mtime of the file and of the
    database's write-ahead file beside it, and `extra` (what else the adapter says the log is
    made of); never 0, which means never read. And the latest mtime."""
    parts = [stat.st_size, stat.st_mtime_ns, stat.st_ino, *(extra or [])]
    latest = stat.st_mtime
    for suffix in SIDE_FILES:
        try:
            side = os.stat(path + suffix)
        except OSError:
            continue
        parts += [side.st_size, side.st_mtime_ns, side.st_ino]
        latest = max(latest, side.st_mtime)
    digest = hashlib.blake2b(repr(parts).encode(), digest_size=8).digest()
    return (int.from_bytes(digest, "big") >> 1) or 1, latest


def read_whole(path: str, key: str, adapter_name: str, checkpoint: Checkpoint
               ) -> tuple[list[tuple[list[list[Any]], list[list[Any]], Replaces]], Checkpoint, str | None]:
    """Read a whole log; each group of records becomes (event rows, issue rows, what they replace).
    Returns the groups, the checkpoint reached, and why the log could not be read (then no
    group, and the checkpoint records the token so the log is read again only when it changes)."""
    adapter = ADAPTERS[adapter_name]
    assert adapter.read is not None
    reached = Checkpoint(adapter_name, checkpoint.inode, checkpoint.size, checkpoint.generation, checkpoint.size,
                         0, dict(checkpoint.adapter_state()), version=checkpoint.version)
    read = adapter.read(path, key, reached.adapter_state())
    if read.problem is not None:
        return [], reached, read.problem
    groups = []
    records = 0
    for group in read.groups:
        state = adapter.initial_state(key)
        events: list[list[Any]] = []
        issues: list[list[Any]] = []
        sessions: set[str] = set()
        for number, record in enumerate(group, 1):
            ref = LineRef(key, checkpoint.generation, number, 0)
            new, issue = normalize_record(adapter, record, ref, state)
            rows = storable(new, issues, ref)
            events.extend(rows)
            sessions.update(row[1] for row in rows)
            if issue:
                issues.append(issue.to_wire())
        records += len(group)
        groups.append((events, issues, {"file": True} if read.whole_file else {"sessions": sorted(sessions)}))
    if read.whole_file and not groups:
        groups.append(([], [], {"file": True}))  # an empty document: what it held is gone
    if read.cursor is not None:
        reached.state = read.cursor
    reached.line = records if read.whole_file else 0  # a database: the records of one poll say nothing lasting
    return groups, reached, None


def delta(store: Store, key: str, batch: Batch, replaces: Replaces) -> tuple[Batch, list[str]]:
    """The events that differ from the state's copies, and the IDs of the events `replaces`
    covers that were not read again (to retire)."""
    catalog = store.catalog
    keep = []
    for i, doc in enumerate(catalog.by_uid.find_many(batch.uids)):
        if (doc is None or catalog.content[doc] != batch.rows[i]
                or catalog.content.row(doc)[TEXT] != batch.texts[i]):
            keep.append(i)
    held = catalog.file_docs(key)
    if "sessions" in replaces:
        wanted = [catalog.by_key[k] for k in replaces["sessions"] if k in catalog.by_key]
        held = held[np.isin(catalog.session_ix.view[held], np.asarray(wanted, dtype=np.int32))]
    read = set(batch.uids)
    retire = [uid for uid in (u.decode("ascii") for u in catalog.uid.view[held].tolist()) if uid not in read]
    return batch.take(keep), retire
