"""Per-file progress. A checkpoint only ever travels inside the WAL frame holding the
events it covers, so after a crash the log and the checkpoints can never disagree."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass(slots=True)
class Checkpoint:
    source: str
    inode: int = 0
    size: int = 0
    generation: int = 1
    offset: int = 0
    line: int = 0
    state: dict[str, Any] = field(default_factory=dict)
    missing: bool = False

    def to_wire(self) -> list[Any]:
        return [self.source, self.inode, self.size, self.generation, self.offset, self.line, self.state,
                self.missing]

    @classmethod
    def from_wire(cls, row: list[Any]) -> Checkpoint:
        return cls(*row)
