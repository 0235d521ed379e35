"""Checkpoints published as a base shared by generations plus each generation's changes.

    checkpoints/<tag>.msgpack   {path: packed checkpoint} of every log, when the base was written
    gen-…/meta.msgpack          "checkpoints": those that changed since the base (all of them
                                when there is no base), "checkpoints_base": the base's file,
                                "checkpoints_gone": paths the base holds that are forgotten since

A heavy user has ~30k logs, and a publish used to store every checkpoint (27 MB at a million
events, most of it the Codex adapter's remembered tool calls) though a daemon's publish
follows the few logs an agent appended to. The base is written again, whole, once the changes
since it pack to more than a quarter of its size; until then a publish stores only the
changes. A checkpoint is replaced, never changed in place, when a log is read further, so "changed
since the base" is "not the object the base was written from".

The base is uniquely named (installing another state never overwrites it), listed with its
checksum in the manifest, and removed by garbage collection once unreferenced.
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import msgpack

from moraine.durable import fsync_path, write_file
from moraine.model import Checkpoint

DIRECTORY = "checkpoints"
REWRITE_SHARE = 0.25  # the changes pack to more than this share of the base: write a new base


@dataclass
class Base:
    """The published base: its file (relative to the home), the checkpoints it was written
    from (the same objects the store held then), and its packed size."""

    rel: str | None = None
    held: dict[str, Checkpoint] = field(default_factory=dict)
    size: int = 0


def load(home: Path, meta: dict[str, Any]) -> tuple[dict[str, Checkpoint], Base]:
    """The checkpoints a generation's meta describes, and its base."""
    rel = meta.get("checkpoints_base")
    base = Base()
    if rel is not None:
        data = (home / rel).read_bytes()
        rows = msgpack.unpackb(data, raw=False, strict_map_key=False)
        base = Base(rel, {path: Checkpoint.from_wire(row) for path, row in rows.items()}, len(data))
    checkpoints = dict(base.held)
    for path in meta.get("checkpoints_gone", ()):
        checkpoints.pop(path, None)
    checkpoints.update((path, Checkpoint.from_wire(row)) for path, row in meta["checkpoints"].items())
    return checkpoints, base


def publish(home: Path, checkpoints: dict[str, Checkpoint], base: Base) -> tuple[dict[str, Any], Base, Path | None]:
    """What a generation's meta stores of `checkpoints`, the base it then refers to, and the
    base file written now (None when the published one is kept)."""
    changed = {path: cp.packed() for path, cp in checkpoints.items() if base.held.get(path) is not cp}
    gone = [path for path in base.held if path not in checkpoints]
    if base.rel is not None and _packed_size(changed) <= REWRITE_SHARE * base.size:
        return {"checkpoints": changed, "checkpoints_base": base.rel, "checkpoints_gone": gone}, base, None
    rel = f"{DIRECTORY}/{secrets.token_hex(8)}.msgpack"
    data = msgpack.packb({path: cp.packed() for path, cp in checkpoints.items()}, use_bin_type=True)
    path = home / rel
    path.parent.mkdir(mode=0o700, exist_ok=True)
    write_file(path, data)
    fsync_path(path.parent)
    return {"checkpoints": {}, "checkpoints_base": rel, "checkpoints_gone": []}, \
        Base(rel, dict(checkpoints), len(data)), path


def _packed_size(rows: dict[str, list[Any]]) -> int:
    """About what `rows` pack to (within 0.3% for the 1M corpus's 19k checkpoints): their packed
    states and paths, and a few dozen bytes of fields each. Packing them to measure would pack
    every checkpoint twice whenever the base is written again, at every publish of a build."""
    return sum(len(path) + len(row[6]) + 64 for path, row in rows.items())
