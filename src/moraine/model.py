"""The normalized model: session → turn → event, as plain data.

Pydantic is kept for the boundaries (tool arguments, config); a million events at rest are
compact dataclasses and numpy columns, so this module is dependency-free.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

EVENT_TYPES: tuple[str, ...] = (
    "user_input",
    "assistant_response",
    "reasoning",
    "tool_call",
    "tool_response",
    "compaction",
    "system",
    "runtime",
    "unknown",
)
TYPE_CODE: dict[str, int] = {name: i for i, name in enumerate(EVENT_TYPES)}
SEARCHABLE_TYPES: tuple[str, ...] = EVENT_TYPES[:-1]
DEFAULT_SEARCH_TYPES: tuple[str, ...] = ("user_input", "assistant_response", "tool_response")
MODES: tuple[str, ...] = ("web_search", "mcp_internal", "tool_calling", "chat")

# How a record ends a turn: a normal finish points the turn at its final response,
# an abort (interrupt, error, cancellation) is itself the terminal event.
TERMINAL_NONE = 0
TERMINAL_FINISH = 1
TERMINAL_ABORT = 2


@dataclass(slots=True)
class Event:
    """One normalized event, as produced by a source adapter (pure, no wall clock)."""

    uid: str
    session_key: str
    source: str
    type: str
    ts_ms: int
    text: str = ""
    tool_name: str | None = None
    tool_call_id: str | None = None
    arguments: Any = None
    exit_code: int | None = None
    model: str | None = None
    starts_turn: bool = False
    terminal: int = TERMINAL_NONE
    excluded: bool = False
    phase: str | None = None
    file: str = ""
    line: int = 0
    offset: int = 0
    sub: int = 0
    meta: dict[str, Any] = field(default_factory=dict)

    def to_wire(self) -> list[Any]:
        """Compact positional form for the write-ahead log."""
        return [
            self.uid, self.session_key, self.source, self.type, self.ts_ms, self.text,
            self.tool_name, self.tool_call_id, self.arguments, self.exit_code, self.model,
            self.starts_turn, self.terminal, self.excluded, self.phase, self.file, self.line,
            self.offset, self.sub, self.meta,
        ]

    @classmethod
    def from_wire(cls, row: list[Any]) -> Event:
        return cls(*row)


@dataclass(slots=True)
class IngestIssue:
    """A line that could not be used: quarantined with its coordinates, ingest goes on."""

    file: str
    generation: int
    line: int
    offset: int
    reason: str
    fragment: str = ""

    def to_wire(self) -> list[Any]:
        return [self.file, self.generation, self.line, self.offset, self.reason, self.fragment]

    @classmethod
    def from_wire(cls, row: list[Any]) -> IngestIssue:
        return cls(*row)
