"""Logs read whole: a JSON document rewritten in place, a database polled by a cursor.

A line log is read from its checkpoint's offset; such a log is read again whole (or, for a
database, the sessions that changed since the cursor) whenever its change token differs from
the checkpoint's. The parts carry what they replace; `delta` (in the indexing process, which
holds the state) turns them into the changes only: events read again unchanged are dropped,
and those the log no longer holds are retired by ID, in the same WAL frame as the checkpoint.

These logs are the files most foreign to Moraine (a database runs queries; a document is
parsed whole), so the pipeline reads them outside the store's writer lock, one pass at a time
per log (`claim`): a slow or hostile one delays only its own pass, never a tool call waiting
for the lock, and a call's catch-up skips a log another pass is reading instead of waiting.
A reader streams its groups (`_document.Read`): each is normalized as it comes, so what is
held is one group's records and the events read, never the raw log.
"""

from __future__ import annotations

import hashlib
import os
import threading
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any
from weakref import WeakKeyDictionary

import numpy as np

from moraine.model import WIRE_TEXT, WIRE_TS, Checkpoint, LineRef
from moraine.sources import ADAPTERS, normalize_record
from moraine.sources._document import Unreadable
from moraine.store.batch import Batch
from moraine.store.validate import storable

if TYPE_CHECKING:
    from moraine.store.engine import Store

# What a part replaces: {"file": True} all the state holds of the log, {"sessions": [...]} those sessions';
# with "read", the IDs of the events parts before it handed over for the same group; {"more": True}: a
# piece of a group whose end comes in a later part (nothing is retired yet).
Replaces = dict[str, Any]
CHUNK_EVENTS = 5_000  # a large group is handed over (packed, committed) in pieces of about this many events,
CHUNK_TEXT = 16 * 1024 * 1024  # or of about this much text
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


class WholeRead:
    """One read of a whole log: `groups()` yields each group of records as (event rows, issue
    rows, what they replace) while the log is read; then `reached` is the checkpoint reached
    and `problem` why the log could not be read (then no group counts, and the checkpoint
    records the token so the log is read again only when it changes)."""

    def __init__(self, path: str, key: str, adapter_name: str, checkpoint: Checkpoint) -> None:
        self.path, self.key, self.adapter_name, self.checkpoint = path, key, adapter_name, checkpoint
        self.reached = Checkpoint(adapter_name, checkpoint.inode, checkpoint.size, checkpoint.generation,
                                  checkpoint.size, 0, dict(checkpoint.adapter_state()), version=checkpoint.version)
        self.problem: str | None = None

    def groups(self) -> Iterator[tuple[list[list[Any]], list[list[Any]], Replaces]]:
        """The groups as they are read, a large one in pieces (CHUNK_EVENTS events, CHUNK_TEXT; all
        but the last marked `more`: what the group no longer holds is retired with the last,
        which names every event read before it). A problem found midway ends the read
        (OSError propagates: the file could not be read at all)."""
        adapter = ADAPTERS[self.adapter_name]
        assert adapter.read is not None
        read = adapter.read(self.path, self.key, self.reached.adapter_state())
        if read.problem is not None:
            self.problem = read.problem
            return
        records = 0
        empty = True
        try:
            for group in read.groups:
                state = adapter.initial_state(self.key)
                events: list[list[Any]] = []
                issues: list[list[Any]] = []
                sessions: set[str] = set()
                earlier: list[str] = []  # IDs of the events of this group already handed over
                number = held = 0
                timed = False  # a row with a time is held (the rows before it take its time: `backfill_times`)
                for number, record in enumerate(group, 1):
                    ref = LineRef(self.key, self.checkpoint.generation, number, 0)
                    new, issue = normalize_record(adapter, record, ref, state)
                    rows = storable(new, issues, ref)
                    events.extend(rows)
                    sessions.update(row[1] for row in rows)
                    held += sum(len(row[WIRE_TEXT]) for row in rows)
                    timed = timed or any(row[WIRE_TS] for row in rows)
                    if issue:
                        issues.append(issue.to_wire())
                    if (len(events) >= CHUNK_EVENTS or held >= CHUNK_TEXT) and timed:
                        earlier.extend(row[0] for row in events)
                        yield events, issues, {"more": True}
                        events, issues, held = [], [], 0
                records += number
                empty = False
                replaces: Replaces = {"file": True} if read.whole_file else {"sessions": sorted(sessions)}
                if earlier:
                    replaces["read"] = earlier
                yield events, issues, replaces
        except Unreadable as exc:
            self.problem = str(exc)
            return
        if read.whole_file and empty:
            yield [], [], {"file": True}  # an empty document: what it held is gone
        if read.cursor is not None:
            self.reached.state = read.cursor
        self.reached.line = records if read.whole_file else 0  # a database: the records of one poll say nothing lasting


# -- one reader per log at a time ----------------------------------------------------------------

_CLAIMS: WeakKeyDictionary[Store, set[str]] = WeakKeyDictionary()
_CLAIMS_LOCK = threading.Lock()


def claim(store: Store, key: str) -> bool:
    """Take the right to read the log `key` for `store` in this pass; False when another pass
    (another thread) is reading it now."""
    with _CLAIMS_LOCK:
        held = _CLAIMS.setdefault(store, set())
        if key in held:
            return False
        held.add(key)
        return True


def release(store: Store, keys: list[str]) -> None:
    with _CLAIMS_LOCK:
        held = _CLAIMS.get(store)
        if held is not None:
            held.difference_update(keys)


def delta(store: Store, key: str, batch: Batch, replaces: Replaces) -> tuple[Batch, list[str]]:
    """The events that differ from the state's copies, and the IDs of the events `replaces`
    covers that were not read again (to retire)."""
    catalog = store.catalog
    keep = []
    for i, doc in enumerate(catalog.by_uid.find_many(batch.uids)):
        if (doc is None or catalog.content[doc] != batch.rows[i]
                or catalog.content.row(doc)[WIRE_TEXT] != batch.texts[i]):
            keep.append(i)
    if replaces.get("more"):
        return batch.take(keep), []
    held = catalog.file_docs(key)
    if "sessions" in replaces:
        wanted = [catalog.by_key[k] for k in replaces["sessions"] if k in catalog.by_key]
        held = held[np.isin(catalog.session_ix.view[held], np.asarray(wanted, dtype=np.int32))]
    read = set(batch.uids)
    read.update(replaces.get("read", ()))
    retire = [uid for uid in (u.decode("ascii") for u in catalog.uid.view[held].tolist()) if uid not in read]
    return batch.take(keep), retire
