"""Checksums of the published files, checked whenever a state is opened — without reading a
gigabyte on every start.

Segments and content chunks are immutable once published, so a file whose CRC32 matched its
manifest once stays good as long as its size and modification time do not change. The first
check of each file (at publish, restore or after a change) reads it; later opens only stat it.
The record of what was checked is `verified.json` in the state directory; a file that fails
its checksum is refused with the remedy named (`moraine doctor --repair` rebuilds the state
from the logs). A change that keeps size and mtime is not seen on open: `moraine doctor`
always reads every file.
"""

from __future__ import annotations

import contextlib
import json
import os
from pathlib import Path
from typing import Any

from moraine.durable import file_crc, replace_atomically
from moraine.errors import StateError

FILE = "verified.json"
REMEDY = "run `moraine doctor --repair` (it rebuilds the state from the logs)"


def _load(home: Path) -> dict[str, list[int]]:
    try:
        data = json.loads((home / FILE).read_text())
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def _stamp(path: Path) -> list[int]:
    st = path.stat()
    return [st.st_size, st.st_mtime_ns, st.st_ino]


def _save(home: Path, record: dict[str, list[int]]) -> None:
    with contextlib.suppress(OSError):  # a read-only state is checked again next time
        replace_atomically(home / FILE, json.dumps(record, sort_keys=True).encode())


def remember(home: Path, files: dict[str, Any]) -> None:
    """Files just written (or verified) with the checksums the manifest lists."""
    record = {rel: stamp for rel, stamp in _load(home).items() if rel in files}
    for rel in files:
        try:
            record[rel] = _stamp(home / rel)
        except OSError:
            continue
    _save(home, record)


def verify(home: Path, files: dict[str, dict[str, int]], dirname: str) -> None:
    """Refuse the state when a file it publishes is missing, resized, or fails its CRC32."""
    record = _load(home)
    problems = []
    changed = False
    for rel, info in sorted(files.items()):
        path = home / rel
        try:
            stamp = _stamp(path)
        except OSError:
            problems.append(f"{rel}: missing")
            continue
        if stamp[0] != info["size"]:
            problems.append(f"{rel}: {stamp[0]} bytes, the manifest says {info['size']}")
        elif record.get(rel) != stamp:
            if file_crc(path) != info["crc32"]:
                problems.append(f"{rel}: checksum mismatch (changed after it was written)")
            else:
                record[rel] = stamp
                changed = True
    if problems:
        raise StateError(f"snapshot {dirname} is damaged ({'; '.join(problems[:3])}"
                         + (f"; and {len(problems) - 3} more" if len(problems) > 3 else "") + f"): {REMEDY}")
    if changed and os.access(home, os.W_OK):
        _save(home, {rel: record[rel] for rel in files if rel in record})
