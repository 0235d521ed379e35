"""Which logs hold something new since their checkpoints, and where each is read on from:
an appended log from its checkpoint (a new generation when it was replaced or truncated), a
log read whole when its change token moved. One stat per log; nothing is read here."""

from __future__ import annotations

import copy
import errno
import os
from collections.abc import Iterable
from dataclasses import replace

from moraine.ingest.state import ingest_state
from moraine.ingest.tailer import needs_reset
from moraine.ingest.whole import change_token
from moraine.model import Checkpoint
from moraine.sources import Adapter
from moraine.store.engine import Store


def changed_logs(store: Store, files: Iterable[tuple[str, str, Adapter]], problems: dict[str, str]
             ) -> list[tuple[str, str, Adapter, Checkpoint, int]]:
    """Files with new bytes, each with the checkpoint to resume from (a new generation when
    the file was replaced or truncated). Checkpoints are keyed by the file's key."""
    work = []
    for path, key, adapter in files:
        try:
            stat = os.stat(path)
        except OSError as exc:
            if exc.errno != errno.ENOENT:  # vanished between listing and stat: nothing to say
                problems[key] = f"cannot read: {exc.strerror}"
            continue
        ingest_state(store).mtimes[key] = stat.st_mtime
        if store.forgotten.get(key) in (0, stat.st_ino):  # forgotten on purpose: stays forgotten
            continue
        checkpoint = store.checkpoints.get(key)
        if adapter.whole(path):
            whole = _whole_changed(store, path, key, adapter, checkpoint, stat)
            if whole is not None:
                work.append(whole)
            continue
        resume = _resume_from(path, key, adapter, checkpoint, stat)
        if resume is not None:
            work.append((path, key, adapter, resume, stat.st_size))
    return work


def _resume_from(path: str, key: str, adapter: Adapter, checkpoint: Checkpoint | None, stat: os.stat_result
                 ) -> Checkpoint | None:
    """The checkpoint an appended log is read on from (a copy: the store's stays as it is),
    None when it holds no new bytes (a half-written last line waits without a re-read)."""
    if checkpoint is None:
        resume = Checkpoint(adapter.name, stat.st_ino, 0, 1, 0, 0, adapter.initial_state(key))
    elif needs_reset(checkpoint, stat, path if stat.st_size != checkpoint.size else None):
        resume = Checkpoint(adapter.name, stat.st_ino, 0, checkpoint.generation + 1, 0, 0, adapter.initial_state(key))
    elif stat.st_size == checkpoint.size:
        return None
    elif checkpoint.offset == 0:  # nothing read yet (or rewound by a repair): the adapter's first state
        resume = replace(checkpoint, state=adapter.initial_state(key))
    else:
        resume = copy.deepcopy(checkpoint)
    resume.inode = stat.st_ino
    resume.size = stat.st_size
    return resume


def _whole_changed(store: Store, path: str, key: str, adapter: Adapter, checkpoint: Checkpoint | None,
                   stat: os.stat_result) -> tuple[str, str, Adapter, Checkpoint, int] | None:
    """A log read whole is read again when its change token moved (its size and mtime, and its
    database's write-ahead file's)."""
    token, ingest_state(store).mtimes[key] = change_token(path, stat, adapter.token(path) if adapter.token else None)
    if checkpoint is not None and checkpoint.version == token:
        return None
    if checkpoint is None:
        checkpoint = Checkpoint(adapter.name, stat.st_ino, 0, 1, 0, 0, {})
    else:
        checkpoint = copy.deepcopy(checkpoint)
    checkpoint.inode, checkpoint.size, checkpoint.version = stat.st_ino, stat.st_size, token
    return path, key, adapter, checkpoint, stat.st_size
