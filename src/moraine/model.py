"""The normalized model: session → turn → event, as plain data.

Pydantic is kept for the boundaries (tool arguments, config); a million events at rest are
compact dataclasses and numpy columns, so this module is dependency-free.
"""

from __future__ import annotations

import hashlib
import operator
import re
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, NamedTuple

import msgpack

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

# What a stored event may hold: exit codes and log coordinates fit 32 bits; these metadata
# keys hold text (or nothing). The adapters' gate makes events so, the store checks it again.
INT32_MIN, INT32_MAX = -(2**31), 2**31 - 1
META_TEXT = frozenset({"cwd", "parent", "title_custom", "title_ai", "title_summary", "status", "subtype",
                       "record_type", "event_type", "item_type", "block_type", "originator", "git_branch"})

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
    harness_version: str | None = None  # the harness's own version, where its logs carry one

    def to_wire(self) -> list[Any]:
        """Compact positional form for the write-ahead log: the fields in `WIRE_FIELDS` order."""
        return _wire_values(self)

    @classmethod
    def from_wire(cls, row: list[Any]) -> Event:
        return cls(*row)


# The wire row's places: the dataclass's field order, declared once there. Everything positional
# (the row check, the batch's columns, the content store's text slot) is derived from this.
WIRE_FIELDS: tuple[str, ...] = tuple(Event.__dataclass_fields__)
# The row format, written in every WAL frame that holds events ("row_format"). A later format
# only appends fields, each with a default: a row of an earlier format (a frame, a content chunk
# written before an upgrade) reads as this one with the defaults filled in (`current_row`).
# Format 1: the 20 fields up to `meta`; 2: `harness_version` added.
ROW_FORMAT = 2
ROW_LENGTHS: dict[int, int] = {1: 20, 2: len(WIRE_FIELDS)}
_WIRE_DEFAULTS: tuple[Any, ...] = tuple(
    f.default for f in Event.__dataclass_fields__.values())  # MISSING for the first, required fields
WIRE_TS = WIRE_FIELDS.index("ts_ms")
WIRE_TEXT = WIRE_FIELDS.index("text")
_wire_attrs = operator.attrgetter(*WIRE_FIELDS)


def current_row(row: list[Any], row_format: int) -> list[Any] | None:
    """A wire row of `row_format` in the current format (the fields added since at their
    defaults); None when it is not a row of that format (a wrong length, a format this version
    of Moraine does not know: written by a newer one)."""
    length = ROW_LENGTHS.get(row_format)
    if length is None or len(row) != length:
        return None
    return row if length == len(WIRE_FIELDS) else [*row, *_WIRE_DEFAULTS[length:]]


def _wire_values(event: Event) -> list[Any]:
    return list(_wire_attrs(event))


def wire_places(*names: str) -> Callable[[Sequence[Any]], tuple[Any, ...]]:
    """A getter of the named places of a wire row, in the order named: one C call per row
    (`operator.itemgetter`) for code that reads many places of many rows."""
    return operator.itemgetter(*(WIRE_FIELDS.index(name) for name in names))


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


# -- where events come from and how far a log was read (shared by sources, ingest and store) --

UID_RE = re.compile(r"^[a-z2-7]{26}$")  # what make_uid produces
TS_MAX_MS = 253_402_300_799_999  # 9999-12-31T23:59:59.999Z: the contract's format has four year digits


def shown_ts(ms: int) -> str | None:
    """A time as the tools show it: absent (None) where the log gave none (0: an event read before
    any timed record of a log that holds none yet), never 1970."""
    return format_ts(ms) if ms > 0 else None


def format_ts(ms: int) -> str:
    """Epoch milliseconds → `2026-04-29T18:42:31.125Z`, the contract's only time format."""
    t = time.gmtime(ms // 1000)
    return (f"{t.tm_year:04d}-{t.tm_mon:02d}-{t.tm_mday:02d}T{t.tm_hour:02d}:{t.tm_min:02d}:"
            f"{t.tm_sec:02d}.{ms % 1000:03d}Z")


# The contract's IDs, written and read here only (the store orders sessions by theirs, the MCP
# layer parses them with ID_RE): `session:ses_<sid>`, `turn:trn_<sid>_<ordinal>`, `event:evt_<uid>`,
# where a sid or uid is 26 characters of lower-case base32.
ID_RE = re.compile(r"^(session):ses_([a-z2-7]{26})$|^(turn):trn_([a-z2-7]{26})_([1-9][0-9]{0,8})$"
                   r"|^(event):evt_([a-z2-7]{26})$")


def session_ref(sid: str) -> str:
    return f"session:ses_{sid}"


def turn_ref(sid: str, ordinal: int) -> str:
    return f"turn:trn_{sid}_{ordinal}"


def event_ref(uid: str) -> str:
    return f"event:evt_{uid}"


class LineRef(NamedTuple):  # a tuple: made once per log line, it must be cheap
    """Where a record came from: enough to quarantine it or to derive its identity."""

    file: str
    generation: int
    line: int
    offset: int


_B32 = "abcdefghijklmnopqrstuvwxyz234567"
_B32_PAIRS = [_B32[i >> 5] + _B32[i & 31] for i in range(1024)]


def make_uid(*parts: object) -> str:
    """A 128-bit hash of the parts as 26 lowercase base32 characters (opaque, stable).

    Same text as `base64.b32encode(digest).rstrip("=").lower()`, ten bits at a time and
    unrolled: the standard library's base32 is pure Python, and this runs once per event.
    """
    digest = hashlib.blake2b("\x1f".join(map(str, parts)).encode("utf-8"), digest_size=16).digest()
    n = int.from_bytes(digest, "big") << 2
    p = _B32_PAIRS
    return "".join((p[n >> 120], p[n >> 110 & 1023], p[n >> 100 & 1023], p[n >> 90 & 1023], p[n >> 80 & 1023],
                    p[n >> 70 & 1023], p[n >> 60 & 1023], p[n >> 50 & 1023], p[n >> 40 & 1023],
                    p[n >> 30 & 1023], p[n >> 20 & 1023], p[n >> 10 & 1023], p[n & 1023]))


@dataclass(slots=True)
class Checkpoint:
    """Per-file progress. A checkpoint only ever travels inside the WAL frame holding the
    events it covers, so after a crash the log and the checkpoints can never disagree."""

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
        """Wire form with the state packed (what a snapshot stores). The packed state is kept
        (and unpacked again on first use): every publish stores every checkpoint, ~30k at a
        heavy user's size, and most have not changed since the one before."""
        if not isinstance(self.state, bytes):
            self.state = msgpack.packb(self.state, use_bin_type=True)
        return [self.source, self.inode, self.size, self.generation, self.offset, self.line, self.state,
                self.missing, self.head_len, self.head_hash, *self._tail()]

    def _tail(self) -> list[int]:
        """Fields added later travel only when set, so a line log's checkpoint keeps its old form."""
        return [self.version] if self.version else []
