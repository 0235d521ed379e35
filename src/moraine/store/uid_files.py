"""The uid map published as a base shared by generations plus the entries added since.

    uids/<tag>/keys.npy, docs.npy   the sorted map (`store.uids`) when the base was written: each
                                    live event's uid key (uint64, sorted) and its doc (uint32)
    gen-…/cat.uid_new_keys.npy …    the entries of the docs appended since (doc ≥ the base's
                                    rows), sorted the same way; meta "uid_base": [the base's
                                    directory, its rows]

The map was written whole at every publish: 31 MB at a million events, though a daemon's
publish adds a few thousand entries. Docs are appended in increasing order and an event that
is retired never comes back, so the live docs below the base's rows are exactly the base's
entries that are still alive, and the others are the entries of docs the base never saw. A
state opening merges the two (its live docs only, O(n) array passes); the base is written again
once the entries added since outnumber a quarter of it.

Like the column parts the base is uniquely named, listed with its checksums in the manifest,
and removed by garbage collection once unreferenced.
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from moraine.index.segment_files import Output

DIRECTORY = "uids"
REWRITE_SHARE = 0.25  # entries added since the base beyond this share of it: write a new base


@dataclass(frozen=True)
class Base:
    rel: str | None = None  # the base's directory, relative to the home
    rows: int = 0  # the catalog's rows when it was written: its entries are the docs below
    entries: int = 0


def load(home: Path, meta: dict[str, Any], arrays: dict[str, np.ndarray], alive: np.ndarray
         ) -> tuple[np.ndarray, np.ndarray, Base] | None:
    """The whole sorted map (live docs only) and its base, for a generation that stores it as a
    base and the entries since; None for one that stores it whole (`cat.uid_keys`)."""
    if "uid_base" not in meta:
        return None
    rel, rows = meta["uid_base"]
    directory = home / rel
    base_keys = np.load(directory / "keys.npy", mmap_mode="r", allow_pickle=False)
    base_docs = np.load(directory / "docs.npy", mmap_mode="r", allow_pickle=False)
    keep = alive[base_docs]
    keys, docs = np.asarray(base_keys)[keep], np.asarray(base_docs)[keep]
    new_keys, new_docs = np.asarray(arrays["cat.uid_new_keys"]), np.asarray(arrays["cat.uid_new_docs"])
    live = alive[new_docs]
    new_keys, new_docs = new_keys[live], new_docs[live]
    at = np.searchsorted(keys, new_keys, side="right")  # newer docs after equal keys, as `compacted` orders them
    return np.insert(keys, at, new_keys), np.insert(docs, at, new_docs), Base(rel, int(rows), len(base_keys))


def publish(home: Path, keys: np.ndarray, docs: np.ndarray, rows: int, base: Base
            ) -> tuple[dict[str, np.ndarray], dict[str, Any], Base, list[Path]]:
    """What a generation stores of the map (`keys`/`docs`: whole, sorted, live; `rows`: the
    catalog's rows): its arrays, its meta, the base it refers to, and the base files written now."""
    if base.rel is not None:
        new = docs >= base.rows
        count = int(np.count_nonzero(new))
        if count <= REWRITE_SHARE * max(base.entries, 1):
            return {"cat.uid_new_keys": keys[new], "cat.uid_new_docs": docs[new]}, \
                {"uid_base": [base.rel, base.rows]}, base, []
    rel = f"{DIRECTORY}/{secrets.token_hex(8)}"
    out = Output(home / rel)
    out.array("keys", np.ascontiguousarray(keys))
    out.array("docs", np.ascontiguousarray(docs))
    out.close()
    empty_keys, empty_docs = np.zeros(0, dtype=keys.dtype), np.zeros(0, dtype=docs.dtype)
    written = Base(rel, rows, len(keys))
    return {"cat.uid_new_keys": empty_keys, "cat.uid_new_docs": empty_docs}, {"uid_base": [rel, rows]}, written, \
        sorted((home / rel).iterdir())
