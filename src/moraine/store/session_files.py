"""The sessions, and the names of the logs their events come from, published as a base shared
by generations plus what changed since.

    sessions/<tag>/records.npy       every session's record (`Catalog.snapshot_meta`'s row)
                                     packed on its own (msgpack), concatenated (uint8), when
                                     the base was written; record_offsets.npy where each starts
    sessions/<tag>/offsets.npy, docs.npy
                                     every session's docs, in its order, flattened (int64
                                     offsets, int32 docs)
    sessions/<tag>/file_names.npy    the catalog's file names (msgpack list, as uint8)
    gen-…/cat.sessions_changed.npy   the sessions changed since the base, and the new ones
                                     (int64 indexes, increasing); their docs in
                                     cat.sessions_changed_offsets.npy / _docs.npy; meta
                                     "sessions_base": [the base's directory, its sessions],
                                     "sessions_changed": their records, packed,
                                     "file_names_since": the names interned since

The sessions' records and doc lists were written whole at every publish: 19 MB at a million
events, though a daemon's publish follows the few sessions an agent is writing. Sessions are
never removed and keep their index, so a generation is the base with some sessions replaced
and new ones after it. A session changed when its packed record differs from the base's or its
docs do (compared in one pass over the flattened arrays). The base is written again once the
changed sessions' docs and records outweigh a quarter of it. File names are only ever appended
(`Catalog._intern`): a generation stores those after the base's (2 MB of a 1M-event state's
meta, written at every publish before).

Like the other shared files, the base is uniquely named, listed with its checksums in the
manifest, and removed by garbage collection once unreferenced.
"""

from __future__ import annotations

import itertools
import secrets
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import msgpack
import numpy as np

from moraine.errors import StateError
from moraine.index.postings import runs
from moraine.index.segment_files import Output

DIRECTORY = "sessions"
REWRITE_SHARE = 0.25  # changed sessions past this share of the base's bytes: write a new base
_DOC_BYTES = 4  # a doc in the flattened lists (int32)


@dataclass
class Base:
    """The published base: its directory (relative to the home), each session's packed record,
    and how many docs its lists hold. The lists themselves are mapped only while a publish
    compares against them (`doc_lists`): kept mapped, their pages stayed in a daemon's RSS."""

    rel: str | None = None
    packed: list[bytes] = field(default_factory=list)
    n_docs: int = 0
    names: list[str] = field(default_factory=list)  # the file names it holds (the catalog's strings)

    @property
    def size(self) -> int:
        return sum(map(len, self.packed)) + _DOC_BYTES * self.n_docs + sum(map(len, self.names))

    def doc_lists(self, home: Path) -> tuple[np.ndarray, np.ndarray]:
        """(offsets, docs) of the base's flattened doc lists, mapped."""
        directory = home / str(self.rel)
        return np.load(directory / "offsets.npy", mmap_mode="r", allow_pickle=False), \
            np.load(directory / "docs.npy", mmap_mode="r", allow_pickle=False)


def pack(records: list[list[Any]]) -> list[bytes]:
    return [msgpack.packb(record, use_bin_type=True) for record in records]


@dataclass
class Loaded:
    """What a generation holds of the sessions: every record, their docs flattened, the file
    names (None: the generation's catalog meta holds them whole), and the base."""

    records: list[list[Any]]
    offsets: np.ndarray
    docs: np.ndarray
    names: list[str] | None
    base: Base


def load(home: Path, meta: dict[str, Any], arrays: dict[str, np.ndarray]) -> Loaded | None:
    """The sessions of a generation that stores a base and what changed since; None for one that
    stores them whole."""
    if "sessions_base" not in meta:
        return None
    rel, count = meta["sessions_base"]
    directory = home / rel
    blob = np.load(directory / "records.npy", allow_pickle=False).tobytes()
    bounds = np.load(directory / "record_offsets.npy", allow_pickle=False).tolist()
    packed = [blob[a:b] for a, b in itertools.pairwise(bounds)]
    base = Base(rel, packed)
    names = None  # a base written before it held the file names: the catalog meta has them whole
    if "file_names_since" in meta:
        base.names = msgpack.unpackb(np.load(directory / "file_names.npy", allow_pickle=False).tobytes(), raw=False)
        names = base.names + meta["file_names_since"]
    base_offsets, base_docs = base.doc_lists(home)
    base.n_docs = len(base_docs)
    if len(packed) != count or len(base_offsets) != count + 1:
        raise StateError(f"{directory}: the sessions' base holds {len(packed)} records for {count} sessions; "
                         "run `moraine doctor --repair`")
    records = [msgpack.unpackb(row, raw=False, strict_map_key=False) for row in packed]
    changed = np.asarray(arrays["cat.sessions_changed"], dtype=np.int64)
    changed_records = meta["sessions_changed"]
    for ix, row in zip(changed.tolist(), changed_records, strict=True):
        record = msgpack.unpackb(row, raw=False, strict_map_key=False)
        if ix < len(records):
            records[ix] = record
        elif ix == len(records):
            records.append(record)
        else:
            raise StateError(f"session {ix} follows {len(records)} sessions; run `moraine doctor --repair`")
    offsets, docs = _overlaid(np.asarray(base_offsets), base_docs, changed,
                              np.asarray(arrays["cat.sessions_changed_offsets"]),
                              np.asarray(arrays["cat.sessions_changed_docs"]), len(records))
    return Loaded(records, offsets, docs, names, base)


def publish(home: Path, records: list[list[Any]], offsets: np.ndarray, docs: np.ndarray, names: list[str],
            base: Base, whole: bool = False) -> tuple[dict[str, np.ndarray], dict[str, Any], Base, list[Path]]:
    """What a generation stores of the sessions (`records`, their docs flattened as
    `offsets`/`docs`, the file names): its arrays, its meta, the base it then refers to, and the
    base files written now. `whole`: write a new base even when the changes are small (after a
    forget, the old base still holds the forgotten sessions' titles and first prompts)."""
    packed = pack(records)
    known = len(base.names)
    if not whole and base.rel is not None and names[:known] == base.names:  # the base's names: the same strings
        changed = _changed(base, packed, offsets, docs, *base.doc_lists(home))
        lengths = np.diff(offsets)[changed]
        since = names[known:]
        size = sum(len(packed[ix]) for ix in changed.tolist()) + _DOC_BYTES * int(lengths.sum()) + \
            sum(map(len, since))
        if size <= REWRITE_SHARE * base.size:
            starts = offsets[changed]
            return {"cat.sessions_changed": changed,
                    "cat.sessions_changed_offsets": np.concatenate(([0], np.cumsum(lengths))).astype(np.int64),
                    "cat.sessions_changed_docs": docs[runs(starts, lengths)]}, \
                {"sessions_base": [base.rel, len(base.packed)],
                 "sessions_changed": [packed[ix] for ix in changed.tolist()], "file_names_since": since}, base, []
    rel = f"{DIRECTORY}/{secrets.token_hex(8)}"
    out = Output(home / rel)
    out.array("offsets", np.ascontiguousarray(offsets, dtype=np.int64))
    out.array("docs", np.ascontiguousarray(docs, dtype=np.int32))
    out.array("records", np.frombuffer(b"".join(packed), dtype=np.uint8))
    out.array("record_offsets", np.concatenate(([0], np.cumsum([len(row) for row in packed]))).astype(np.int64))
    out.array("file_names", np.frombuffer(msgpack.packb(names, use_bin_type=True), dtype=np.uint8))
    out.close()
    written = Base(rel, packed, len(docs), list(names))
    return {"cat.sessions_changed": np.zeros(0, np.int64), "cat.sessions_changed_offsets": np.zeros(1, np.int64),
            "cat.sessions_changed_docs": np.zeros(0, np.int32)}, \
        {"sessions_base": [rel, len(packed)], "sessions_changed": [], "file_names_since": []}, written, \
        sorted((home / rel).iterdir())


def _changed(base: Base, packed: list[bytes], offsets: np.ndarray, docs: np.ndarray, base_offsets: np.ndarray,
             base_docs: np.ndarray) -> np.ndarray:
    """Indexes of the sessions whose record or docs differ from the base's, and of the new ones."""
    n_base = len(base.packed)
    if len(packed) < n_base:
        raise StateError(f"{len(packed)} sessions, fewer than the {n_base} of the published base")
    differs = np.zeros(len(packed), dtype=np.bool_)
    differs[n_base:] = True
    differs[:n_base] = [a != b for a, b in zip(packed, base.packed, strict=False)]
    lengths = np.diff(offsets)[:n_base]
    base_offsets = np.asarray(base_offsets)
    base_lengths = np.diff(base_offsets)
    differs[:n_base] |= lengths != base_lengths
    same = np.flatnonzero(~differs[:n_base])  # same record and length: compare the docs themselves
    at = runs(offsets[same], lengths[same])
    moved = np.repeat(base_offsets[same] - offsets[same], lengths[same])
    mismatch = docs[at] != np.asarray(base_docs)[at + moved]
    if mismatch.any():
        owner = np.repeat(same, lengths[same])
        differs[owner[mismatch]] = True
    return np.flatnonzero(differs)


def _overlaid(base_offsets: np.ndarray, base_docs: np.ndarray, changed: np.ndarray, changed_offsets: np.ndarray,
              changed_docs: np.ndarray, count: int) -> tuple[np.ndarray, np.ndarray]:
    """The flattened docs of `count` sessions: the base's, with the changed sessions' replaced."""
    lengths = np.zeros(count, dtype=np.int64)
    lengths[: len(base_offsets) - 1] = np.diff(base_offsets)
    changed_lengths = np.diff(changed_offsets)
    lengths[changed] = changed_lengths
    offsets = np.concatenate(([0], np.cumsum(lengths))).astype(np.int64)
    docs = np.empty(int(offsets[-1]), dtype=np.int32)
    unchanged = np.ones(count, dtype=np.bool_)
    unchanged[changed] = False
    kept = np.flatnonzero(unchanged)
    docs[runs(offsets[kept], lengths[kept])] = np.asarray(base_docs)[runs(base_offsets[kept], lengths[kept])]
    docs[runs(offsets[changed], changed_lengths)] = changed_docs
    return offsets, docs
