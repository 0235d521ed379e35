"""Per-file progress. A checkpoint only ever travels inside the WAL frame holding the
events it covers, so after a crash the log and the checkpoints can never disagree."""

from __future__ import annotations

import os
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
            self.state = msgpack.unpackb(self.state, raw=False, strict_map_key=False)
        return self.state

    def packed(self) -> list[Any]:
        """Wire form with the state packed (what a snapshot stores)."""
        state = self.state if isinstance(self.state, bytes) else msgpack.packb(self.state, use_bin_type=True)
        return [self.source, self.inode, self.size, self.generation, self.offset, self.line, state, self.missing,
                self.head_len, self.head_hash, *self._tail()]

    def _tail(self) -> list[int]:
        """Fields added later travel only when set, so a line log's checkpoint keeps its old form."""
        return [self.version] if self.version else []


def pending_bytes(checkpoints: dict[str, Checkpoint]) -> int:
    """Bytes the logs hold beyond their checkpoints (a log that shrank: all of it): what is known
    but not yet indexed, for status and freshness warnings."""
    behind = 0
    for path, cp in checkpoints.items():
        try:
            size = os.stat(path).st_size
        except OSError:
            continue
        behind += max(0, size - cp.offset) if size >= cp.offset else size
    return behind
