"""A batch of normalized events, column by column: what a parse worker emits, what a WAL frame
holds under "batch", and what the store applies.

Why columns: the indexing process is the one that bounds a bulk pass. Given event rows it
built an `Event` object per event and then each catalog column from those objects, and the
rows crossed from the workers twice (as lists and again packed). Given columns it extends its
own with one call each, looks a session up once per session and interns a file, tool or model
once per distinct name; what stays per event is what must (the uid index, the order of a
session's events, the session's metadata, the postings).

Fields, for n events in the order they were read:

    rows      n × bytes  each event's wire row (`Event.to_wire`) packed with msgpack, its text
                         left out: the record the content store keeps, the one `open` reads
    texts     n × str    the texts, beside the rows
    uids      n × str    26 characters of lower-case base32
    ts        int64[n]   epoch milliseconds
    codes     uint8[n]   the event type, an index into `model.EVENT_TYPES`
    flags     uint8[n]   STARTS_TURN | EXCLUDED | COMMENTARY | terminal << TERMINAL_SHIFT
    line, sub int64[n]   where the event was read: its session's event order (≤ INT32_MAX)
    offset    int64[n]   the line's byte offset (for quarantine coordinates)
    nlines    int32[n]   the event's lines in its session's transcript (`transcript_lines`)
    keys      distinct session keys, each with `sources` (the harness of its first event); key_ix uint32[n]
    files     distinct log paths; file_ix uint32[n]
    names     distinct tool and model names, "" first (none); tool_ix, model_ix uint32[n]
    metas     {position: metadata} of the events that carry any

Wire form (`to_wire`, a msgpack map inside the frame): the same names; arrays as little-endian
bytes; uids joined into one ASCII string; metas as [position, map] pairs. `from_wire` checks
every type, length and index before it builds anything (`BatchError` refuses the batch whole)
and every value's range (`problems` names the events to leave out), so a frame written by a bug
is refused or cut to its applicable events, never half applied.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from moraine.model import EVENT_TYPES, INT32_MAX, META_TEXT, TS_MAX_MS, TYPE_CODE, wire_places
from moraine.store.contents import pack_rows

STARTS_TURN, EXCLUDED, COMMENTARY = 1, 2, 4
TERMINAL_SHIFT = 3
# The wire rows' columns a batch keeps, by name (`model.WIRE_FIELDS`): taken from the transposed rows.
_COLUMNS = wire_places("uid", "session_key", "source", "type", "ts_ms", "text", "tool_name", "model", "starts_turn",
                       "terminal", "excluded", "phase", "file", "line", "offset", "sub", "meta")
UID_LEN = 26
_UIDS = re.compile(r"[a-z2-7]*")
_ARRAYS: dict[str, type] = {"ts": np.int64, "codes": np.uint8, "flags": np.uint8, "line": np.int64,
                            "sub": np.int64, "offset": np.int64, "nlines": np.int32, "key_ix": np.uint32,
                            "file_ix": np.uint32, "tool_ix": np.uint32, "model_ix": np.uint32}
_TABLES = ("keys", "sources", "files", "names")
UNKNOWN = TYPE_CODE["unknown"]


class BatchError(ValueError):
    """A batch's wire form that cannot be applied at all (a wrong type or length)."""


def _empty(dtype: type) -> np.ndarray:
    return np.zeros(0, dtype=dtype)


@dataclass(slots=True, eq=False)
class Batch:
    rows: list[bytes] = field(default_factory=list)
    texts: list[str] = field(default_factory=list)
    uids: list[str] = field(default_factory=list)
    ts: np.ndarray = field(default_factory=lambda: _empty(np.int64))
    codes: np.ndarray = field(default_factory=lambda: _empty(np.uint8))
    flags: np.ndarray = field(default_factory=lambda: _empty(np.uint8))
    line: np.ndarray = field(default_factory=lambda: _empty(np.int64))
    sub: np.ndarray = field(default_factory=lambda: _empty(np.int64))
    offset: np.ndarray = field(default_factory=lambda: _empty(np.int64))
    nlines: np.ndarray = field(default_factory=lambda: _empty(np.int32))
    keys: list[str] = field(default_factory=list)
    sources: list[str] = field(default_factory=list)
    key_ix: np.ndarray = field(default_factory=lambda: _empty(np.uint32))
    files: list[str] = field(default_factory=list)
    file_ix: np.ndarray = field(default_factory=lambda: _empty(np.uint32))
    names: list[str] = field(default_factory=lambda: [""])
    tool_ix: np.ndarray = field(default_factory=lambda: _empty(np.uint32))
    model_ix: np.ndarray = field(default_factory=lambda: _empty(np.uint32))
    metas: dict[int, dict[str, Any]] = field(default_factory=dict)

    def __len__(self) -> int:
        return len(self.rows)

    def __eq__(self, other: object) -> bool:
        """Same events, same columns (arrays compared by value)."""
        return isinstance(other, Batch) and self.to_wire() == other.to_wire()

    __hash__ = None  # type: ignore[assignment]  # mutable

    # -- building ------------------------------------------------------------------------------

    @classmethod
    def from_rows(cls, rows: Sequence[list[Any]]) -> Batch:
        """Columns of screened wire rows (`validate.event_row_problem` found nothing), each row
        packed as the content store keeps it. The rows are transposed once (in C); each column
        is then one conversion, and each name table one dict of the column's distinct values."""
        packed = pack_rows(rows)
        if not rows:
            return cls(rows=packed)
        (uids, keys, sources, types, ts, texts, tool_names, model_names, starts, terminal, excluded, phases,
         files, line, offset, sub, metas) = _COLUMNS(tuple(zip(*rows, strict=True)))
        first_source: dict[str, str] = {}
        for key, source in zip(keys, sources, strict=True):
            first_source.setdefault(key, source)
        tools = [t or "" for t in tool_names]
        models = [m or "" for m in model_names]
        names = _table(("", *tools, *models))
        codes = np.array([TYPE_CODE.get(t, UNKNOWN) for t in types], dtype=np.uint8)
        no_text = np.array([not t for t in texts], dtype=np.bool_)
        excluded_flags = np.array(excluded, dtype=np.uint8)
        commentary = _table(phases)
        commentary_flag = np.array([bool(p) and p.lower() == "commentary" for p in commentary], dtype=np.uint8)
        flags = (np.array(starts, dtype=np.uint8) | excluded_flags << 1
                 | commentary_flag[[commentary[p] for p in phases]] << 2
                 | np.array(terminal, dtype=np.uint8) << TERMINAL_SHIFT)
        nlines = np.array([t.count("\n") for t in texts], dtype=np.int32) + 1
        nlines[no_text | (excluded_flags != 0) | (codes == UNKNOWN)] = 0
        key_ix, file_ix = _table(keys), _table(files)
        return cls(
            rows=packed, texts=list(texts), uids=list(uids), ts=np.array(ts, dtype=np.int64), codes=codes,
            flags=flags.astype(np.uint8), line=np.array(line, dtype=np.int64), sub=np.array(sub, dtype=np.int64),
            offset=np.array(offset, dtype=np.int64), nlines=nlines,
            keys=list(key_ix), sources=list(first_source.values()),
            key_ix=np.array([key_ix[k] for k in keys], dtype=np.uint32),
            files=list(file_ix), file_ix=np.array([file_ix[f] for f in files], dtype=np.uint32),
            names=list(names),
            tool_ix=np.array([names[t] for t in tools], dtype=np.uint32),
            model_ix=np.array([names[m] for m in models], dtype=np.uint32),
            metas={i: meta for i, meta in enumerate(metas) if meta},
        )

    @classmethod
    def concat(cls, batches: Sequence[Batch]) -> Batch:
        """One batch of several, in order (the name tables merged, their indexes remapped)."""
        batches = [b for b in batches if len(b)]
        if len(batches) == 1:
            return batches[0]
        out = cls()
        if not batches:
            return out
        keys: dict[str, int] = {}
        files: dict[str, int] = {}
        names: dict[str, int] = {"": 0}
        key_ix, file_ix, tool_ix, model_ix = [], [], [], []
        base = 0
        for b in batches:
            for key, source in zip(b.keys, b.sources, strict=True):
                if key not in keys:
                    keys[key] = len(keys)
                    out.sources.append(source)
            key_ix.append(_remap(b.key_ix, b.keys, keys))
            file_ix.append(_remap(b.file_ix, b.files, files))
            tool_ix.append(_remap(b.tool_ix, b.names, names))
            model_ix.append(_remap(b.model_ix, b.names, names))
            out.rows.extend(b.rows)
            out.texts.extend(b.texts)
            out.uids.extend(b.uids)
            out.metas.update((base + i, meta) for i, meta in b.metas.items())
            base += len(b)
        for name in ("ts", "codes", "flags", "line", "sub", "offset", "nlines"):
            setattr(out, name, np.concatenate([getattr(b, name) for b in batches]))
        out.keys, out.files, out.names = list(keys), list(files), list(names)
        out.key_ix, out.file_ix = np.concatenate(key_ix), np.concatenate(file_ix)
        out.tool_ix, out.model_ix = np.concatenate(tool_ix), np.concatenate(model_ix)
        return out

    def take(self, positions: Sequence[int] | np.ndarray) -> Batch:
        """The events at these positions, in this order (the name tables kept whole)."""
        at = np.asarray(positions, dtype=np.int64)
        if len(at) == len(self) and np.array_equal(at, np.arange(len(self))):
            return self
        where = {int(old): new for new, old in enumerate(at.tolist())}
        listed = at.tolist()
        return Batch(
            rows=[self.rows[i] for i in listed], texts=[self.texts[i] for i in listed],
            uids=[self.uids[i] for i in listed], ts=self.ts[at], codes=self.codes[at], flags=self.flags[at],
            line=self.line[at], sub=self.sub[at], offset=self.offset[at], nlines=self.nlines[at],
            keys=self.keys, sources=self.sources, key_ix=self.key_ix[at], files=self.files,
            file_ix=self.file_ix[at], names=self.names, tool_ix=self.tool_ix[at], model_ix=self.model_ix[at],
            metas={where[i]: meta for i, meta in self.metas.items() if i in where},
        )

    # -- reading -------------------------------------------------------------------------------

    def indexable(self) -> np.ndarray:
        """Positions of the events the inverted index holds: typed, not Moraine's own, with text."""
        has_text = np.fromiter(map(bool, self.texts), np.bool_, len(self))
        return np.flatnonzero((self.codes != UNKNOWN) & (self.flags & EXCLUDED == 0) & has_text)

    def first_of_each_key(self) -> list[int]:
        """The position of each session's first event, in order of those positions."""
        _, first = np.unique(self.key_ix, return_index=True)
        return sorted(first.tolist())

    # -- the WAL ------------------------------------------------------------------------------

    def to_wire(self) -> dict[str, Any]:
        wire: dict[str, Any] = {"rows": self.rows, "texts": self.texts, "uids": "".join(self.uids)}
        for name, dtype in _ARRAYS.items():
            wire[name] = np.ascontiguousarray(getattr(self, name), dtype=np.dtype(dtype).newbyteorder("<")).tobytes()
        for name in _TABLES:
            wire[name] = getattr(self, name)
        wire["metas"] = [[i, meta] for i, meta in self.metas.items()]
        return wire

    @classmethod
    def from_wire(cls, wire: Any) -> Batch:
        """The batch a frame holds; `BatchError` when its shape is wrong (any type or length,
        an index past its table). Values are not checked here: see `problems`."""
        if not isinstance(wire, dict):
            raise BatchError("batch is not a map")
        rows, texts, uids = wire.get("rows"), wire.get("texts"), wire.get("uids")
        if not (isinstance(rows, list) and isinstance(texts, list) and isinstance(uids, str)):
            raise BatchError("batch rows, texts or ids malformed")
        n = len(rows)
        if len(texts) != n or len(uids) != n * UID_LEN or not uids.isascii():
            raise BatchError("batch columns differ in length")
        if not (all(type(r) is bytes for r in rows) and all(type(t) is str for t in texts)):
            raise BatchError("batch rows or texts malformed")
        arrays = {name: _array(wire.get(name), dtype, n) for name, dtype in _ARRAYS.items()}
        tables = _tables(wire, arrays)
        batch = cls(rows=rows, texts=texts, uids=[uids[i : i + UID_LEN] for i in range(0, n * UID_LEN, UID_LEN)],
                    metas=_metas(wire.get("metas"), n))
        for name, value in (*arrays.items(), *tables.items()):
            setattr(batch, name, value)
        return batch

    def problems(self) -> dict[int, str]:
        """Why an event cannot be applied, by position (values out of range): the screen of a
        batch read back from the WAL, as `validate.event_row_problem` is of a row."""
        found: dict[int, str] = {}
        bad_uid = [] if _UIDS.fullmatch("".join(self.uids)) else [i for i, u in enumerate(self.uids)
                                                                   if not _UIDS.fullmatch(u)]
        for reason, where in (
            ("event id is malformed", bad_uid),
            ("unknown event type", np.flatnonzero(self.codes >= len(EVENT_TYPES))),
            ("timestamp out of range", np.flatnonzero((self.ts < 0) | (self.ts > TS_MAX_MS))),
            ("turn flags malformed", np.flatnonzero(self.flags >> TERMINAL_SHIFT > 2)),
            ("log coordinates malformed", np.flatnonzero((self.line < 0) | (self.line > INT32_MAX) | (self.sub < 0)
                                                         | (self.sub > INT32_MAX) | (self.offset < 0))),
            ("transcript lines malformed", np.flatnonzero(self.nlines < 0)),
        ):
            for i in np.asarray(where, dtype=np.int64).tolist():
                found.setdefault(i, reason)
        if any(not key for key in self.keys):
            for i in np.flatnonzero(np.isin(self.key_ix, [k for k, key in enumerate(self.keys) if not key])).tolist():
                found.setdefault(i, "session key is empty")
        for i, meta in self.metas.items():
            if any(type(name) is not str or (name in META_TEXT and value is not None and type(value) is not str)
                   for name, value in meta.items()):
                found.setdefault(i, "metadata malformed")
        return found


def _table(values: Sequence[Any]) -> dict[Any, int]:
    """Each distinct value's index, in order of first appearance."""
    return {value: i for i, value in enumerate(dict.fromkeys(values))}


def _remap(ix: np.ndarray, table: list[str], into: dict[str, int]) -> np.ndarray:
    """`ix` into `table`, as indexes into `into` (names missing from it are added)."""
    mapped = np.array([into.setdefault(name, len(into)) for name in table], dtype=np.uint32)
    return mapped[ix] if len(ix) else ix


def _tables(wire: dict[str, Any], arrays: dict[str, np.ndarray]) -> dict[str, list[str]]:
    """The name tables of a batch's wire form, each index array checked against its table."""
    tables: dict[str, list[str]] = {}
    for name in _TABLES:
        table = wire.get(name)
        if not (isinstance(table, list) and all(type(s) is str for s in table)):
            raise BatchError(f"batch {name} malformed")
        tables[name] = table
    if len(tables["sources"]) != len(tables["keys"]) or not tables["names"] or tables["names"][0] != "":
        raise BatchError("batch name tables malformed")
    for name, table_name in (("key_ix", "keys"), ("file_ix", "files"), ("tool_ix", "names"), ("model_ix", "names")):
        if len(arrays[name]) and int(arrays[name].max()) >= len(tables[table_name]):
            raise BatchError(f"batch {name} past its table")
    return tables


def _array(raw: Any, dtype: type, n: int) -> np.ndarray:
    little = np.dtype(dtype).newbyteorder("<")
    if type(raw) is not bytes or len(raw) != n * little.itemsize:
        raise BatchError("batch column malformed")
    return np.frombuffer(raw, dtype=little).astype(dtype)


def _metas(raw: Any, n: int) -> dict[int, dict[str, Any]]:
    if not isinstance(raw, list):
        raise BatchError("batch metadata malformed")
    metas: dict[int, dict[str, Any]] = {}
    for pair in raw:
        if not (isinstance(pair, list) and len(pair) == 2 and type(pair[0]) is int and 0 <= pair[0] < n
                and isinstance(pair[1], dict)):
            raise BatchError("batch metadata malformed")
        metas[pair[0]] = pair[1]
    return metas
