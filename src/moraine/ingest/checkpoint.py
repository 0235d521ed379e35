"""Per-file progress. A checkpoint only ever travels inside the WAL frame holding the
events it covers, so after a crash the log and the checkpoints can never disagree."""

from __future__ import annotations

import os
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

import msgpack


@dataclass(slots=True)
class Checkpoint:
    source: str
    inode: int = 0
    size: int = 0
    generation: int = 1
    offset: int = 0
    line: int = 0
    state: dict[str, Any] | bytes = field(default_factory=dict)  # bytes: packed, unpacked when read again
    missing: bool = False
    head_len: int = 0  # bytes at the start of the file that `head_hash` covers
    head_hash: str = ""  # tells a recreated file from the old one when the inode number is reused
    version: int = 0  # a log read whole (a JSON document, a database): its change token when read (0: never)

    def to_wire(self) -> list[Any]:
        return [self.source, self.inode, self.size, self.generation, self.offset, self.line, self.state,
                self.missing, self.head_len, self.head_hash, *self._tail()]

    @classmethod
    def from_wire(cls, row: list[Any]) -> Checkpoint:
        return cls(*row)

    def adapter_state(self) -> dict[str, Any]:
        """The adapter's state, unpacked on first use: a restart loads thousands of
        checkpoints but reads on from only the few logs that grew."""
        if isinstance(self.state, bytes):
            unpacked: dict[str, Any] = msgpack.unpackb(self.state, raw=False, strict_map_key=False)
            self.state = unpacked
            return unpacked
        return self.state

    def packed(self) -> list[Any]:
        """Wire form with the state packed (what a snapshot stores)."""
        state = self.state if isinstance(self.state, bytes) else msgpack.packb(self.state, use_bin_type=True)
        return [self.source, self.inode, self.size, self.generation, self.offset, self.line, state, self.missing,
                self.head_len, self.head_hash, *self._tail()]

    def _tail(self) -> list[int]:
        """Fields added later travel only when set, so a line log's checkpoint keeps its old form."""
        return [self.version] if self.version else []


def pending_bytes(checkpoints: dict[str, Checkpoint], paths: Iterable[str] | None = None) -> int:
    """Bytes the logs (every checkpointed one, or `paths`) hold beyond their checkpoints: what
    is known but not yet indexed. A log that shrank counts whole (it is read again); a log
    without a checkpoint counts whole too."""
    behind = 0
    for path in checkpoints if paths is None else paths:
        checkpoint = checkpoints.get(path)
        offset = checkpoint.offset if checkpoint is not None else 0
        try:
            size = os.stat(path).st_size
        except OSError:
            continue
        behind += size - offset if size >= offset else size
    return behind
