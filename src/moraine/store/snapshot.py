"""Snapshot generations: the whole state on disk, published atomically.

    CURRENT            names the published generation ("gen-00000012")
    gen-NNNNNNNN/      MANIFEST.json, meta.msgpack, the columns that change in place as .npy
                       (a column of booleans packed 8 to a byte: <name>.bits.npy, its length in
                       the meta's "bits")
    segments/<name>/   immutable CSR segments (shared by generations)
    content/<first>.*  immutable event-content chunks (shared by generations)
    columns/<rows>/    immutable parts of the columns that only grow (shared: `store.columns`)
    checkpoints/*      the checkpoints' shared base (`store.checkpoint_files`)
    uids/<tag>/        the uid map's shared base (`store.uid_files`)
    sessions/<tag>/    the sessions' shared base (`store.session_files`)
    wal/NNNNNNNN.log   frames after the snapshot (the manifest names the first file)

A generation is written into `gen-….tmp`, every file fsynced, renamed, the directory
fsynced, and only then does CURRENT flip (temp → fsync → rename → fsync). A crash at any
instant leaves CURRENT naming a whole generation and the WAL files it needs; anything
else (temp directories, unreferenced segments and chunks, covered WAL files) is garbage
that the next writer removes.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import shutil
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import msgpack
import numpy as np

from moraine.durable import file_crc, fsync_path, replace_atomically, write_file
from moraine.errors import StateError
from moraine.store import checkpoint_files, columns, session_files, uid_files, verify

# 2: the growing columns are in columns/ (a format 1 generation holds every column itself);
# 3: `nlines` is one of them, booleans are packed
FORMAT = 3
READABLE = (1, 2, 3)
_BITS = ".bits"  # the stem's suffix of a packed column of booleans
# the directories of files shared by generations, each entry named uniquely
SHARED = (columns.DIRECTORY, checkpoint_files.DIRECTORY, uid_files.DIRECTORY, session_files.DIRECTORY)
CURRENT = "CURRENT"


@dataclass
class Manifest:
    generation: int
    wal_seq: int
    counts: dict[str, int]
    segments: list[str]
    content: list[str]
    files: dict[str, dict[str, int]]  # path relative to the home → {"size", "crc32"}
    created_ms: int = 0
    format: int = FORMAT
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def dirname(self) -> str:
        return gen_dirname(self.generation)

    def to_json(self) -> bytes:
        return json.dumps({"format": self.format, "generation": self.generation, "created_ms": self.created_ms,
                           "wal": {"seq": self.wal_seq, "offset": 16}, "counts": self.counts,
                           "segments": self.segments, "content": self.content, "files": self.files},
                          indent=1, sort_keys=True).encode()

    @classmethod
    def from_json(cls, data: bytes, where: Path) -> Manifest:
        try:
            raw = json.loads(data)
            if raw.get("format") not in READABLE:
                raise StateError(f"{where}: snapshot format {raw.get('format')} is not supported (expected one of "
                                 f"{', '.join(map(str, READABLE))})")
            return cls(generation=int(raw["generation"]), wal_seq=int(raw["wal"]["seq"]), counts=raw["counts"],
                       segments=list(raw["segments"]), content=list(raw["content"]), files=raw["files"],
                       created_ms=int(raw.get("created_ms", 0)))
        except (ValueError, KeyError, TypeError) as exc:
            raise StateError(f"{where}: unreadable snapshot manifest ({exc}); run `moraine doctor --repair`") from exc


def gen_dirname(generation: int) -> str:
    return f"gen-{generation:08d}"


_GENERATION = re.compile(r"^gen-\d{8}$")


def current_manifest(home: Path) -> Manifest | None:
    """The published generation: the one CURRENT names, or, when CURRENT is missing or damaged
    (or names a generation whose manifest is gone or unreadable), the newest generation whose
    manifest reads — never nothing while a generation survives, since a state opened as empty
    would collect every generation and read the logs again, forgotten sessions included.
    `pointer_problem` says when the fallback was taken; `moraine doctor --repair` writes CURRENT
    again. None: a state that never published."""
    named = _named(home)
    if named is not None:
        with contextlib.suppress(StateError, OSError):
            return _read_manifest(home / named / "MANIFEST.json")
    for directory in sorted(home.glob("gen-*"), reverse=True):
        if _GENERATION.match(directory.name):
            with contextlib.suppress(StateError, OSError):
                return _read_manifest(directory / "MANIFEST.json")
    if named is None and not (home / CURRENT).exists():
        return None
    raise StateError(f"{home}: no snapshot generation can be read (CURRENT names {named or 'nothing readable'}); "
                     "run `moraine doctor --repair` (it rebuilds the state from the logs)")


def pointer_problem(home: Path, manifest: Manifest | None) -> str | None:
    """What is wrong with CURRENT when `current_manifest` had to fall back, else None."""
    if manifest is None or _named(home) == manifest.dirname:
        return None
    return f"{home / CURRENT} is missing or damaged; the newest whole generation is {manifest.dirname}"


def point_at(home: Path, manifest: Manifest) -> None:
    """Make CURRENT name `manifest`'s generation (durably)."""
    replace_atomically(home / CURRENT, f"{manifest.dirname}\n".encode())


def _named(home: Path) -> str | None:
    """The generation CURRENT names, when it is a generation's name at all."""
    try:
        name = (home / CURRENT).read_text(encoding="ascii").strip()
    except (OSError, UnicodeError):
        return None
    return name if _GENERATION.match(name) else None


def _read_manifest(path: Path) -> Manifest:
    if not path.exists():
        raise StateError(f"{path} is missing: the snapshot is damaged; run `moraine doctor --repair`")
    return Manifest.from_json(path.read_bytes(), path)


def _save_array(path: Path, array: np.ndarray) -> None:
    with open(path, "wb") as fh:
        np.save(fh, np.ascontiguousarray(array), allow_pickle=False)
        fh.flush()
        os.fsync(fh.fileno())


def _sum(home: Path, path: Path) -> tuple[str, dict[str, int]]:
    return str(path.relative_to(home)), {"size": path.stat().st_size, "crc32": file_crc(path)}


def write_generation(home: Path, generation: int, wal_seq: int, arrays: dict[str, np.ndarray],
                     meta: dict[str, Any], counts: dict[str, int], segments: list[str], content: list[str],
                     shared_sums: dict[str, dict[str, int]]) -> Manifest:
    """Write and publish one generation; `shared_sums` are the checksums of the segment and
    content files it references (computed when those were written)."""
    name = gen_dirname(generation)
    temp = home / f"{name}.tmp"
    shutil.rmtree(temp, ignore_errors=True)
    temp.mkdir(mode=0o700)
    files: dict[str, dict[str, int]] = dict(shared_sums)
    bits: dict[str, int] = {}
    for key, array in arrays.items():
        if array.dtype == np.bool_:  # `alive`, `live`: rewritten at every publish, 1/8 the bytes packed
            _save_array(temp / f"{key}{_BITS}.npy", np.packbits(array))
            bits[key] = len(array)
        else:
            _save_array(temp / f"{key}.npy", array)
    write_file(temp / "meta.msgpack", msgpack.packb({**meta, "bits": bits}, use_bin_type=True))
    for path in sorted(temp.iterdir()):
        rel, info = _sum(temp, path)
        files[f"{name}/{rel}"] = info
    manifest = Manifest(generation, wal_seq, counts, segments, content, files, int(time.time() * 1000))
    write_file(temp / "MANIFEST.json", manifest.to_json())
    fsync_path(temp)
    final = home / name
    shutil.rmtree(final, ignore_errors=True)
    os.replace(temp, final)
    fsync_path(home)
    replace_atomically(home / CURRENT, f"{name}\n".encode())
    verify.remember(home, files)  # every checksum was computed from the bytes just written
    return manifest


def read_generation(home: Path, manifest: Manifest) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
    """The generation's arrays (mapped) and meta, after every file it publishes passed its
    CRC32 (once per file: see `store.verify`); a damaged one is refused, naming the remedy."""
    directory = home / manifest.dirname
    verify.verify(home, manifest.files, manifest.dirname)
    arrays = {p.stem: np.load(p, mmap_mode="r", allow_pickle=False) for p in directory.glob("*.npy")}
    meta = msgpack.unpackb((directory / "meta.msgpack").read_bytes(), raw=False, strict_map_key=False)
    for key, count in meta.pop("bits", {}).items():
        packed = arrays.pop(f"{key}{_BITS}")
        if len(packed) != (count + 7) // 8:
            raise StateError(f"{directory}: {key} holds {len(packed)} bytes of bits for {count} rows; "
                             "run `moraine doctor --repair`")
        arrays[key] = np.unpackbits(packed, count=count).view(np.bool_)
    return arrays, meta


def check_files(home: Path, manifest: Manifest, deep_prefix: str | None = None) -> list[str]:
    """Problems with the files the manifest references: missing, wrong size, and (for paths
    under `deep_prefix`, or all when it is "") wrong CRC32. Raises when asked for a deep check
    of the generation itself, so a damaged snapshot is never loaded."""
    problems = []
    for rel, info in sorted(manifest.files.items()):
        path = home / rel
        if not path.exists():
            problems.append(f"{rel}: missing")
        elif path.stat().st_size != info["size"]:
            problems.append(f"{rel}: {path.stat().st_size} bytes, manifest says {info['size']}")
        elif deep_prefix is not None and rel.startswith(deep_prefix) and file_crc(path) != info["crc32"]:
            problems.append(f"{rel}: checksum mismatch")
    if problems and deep_prefix not in (None, ""):
        raise StateError(f"snapshot {manifest.dirname} is damaged ({'; '.join(problems[:3])}); "
                         "run `moraine doctor --repair`")
    return problems


def collect_garbage(home: Path, manifest: Manifest) -> None:
    """Remove what the published generation does not reference (call under the writer lock)."""
    keep_segments, keep_content = set(manifest.segments), set(manifest.content)
    for path in home.glob("gen-*"):
        if path.name != manifest.dirname:
            shutil.rmtree(path, ignore_errors=True)
    segments = home / "segments"
    if segments.is_dir():
        for path in segments.iterdir():
            if path.name not in keep_segments:
                shutil.rmtree(path, ignore_errors=True)
    content = home / "content"
    if content.is_dir():
        for path in content.iterdir():
            if path.name.split(".")[0] not in keep_content:
                path.unlink(missing_ok=True)
    for shared in SHARED:
        _remove_unreferenced(home / shared, manifest.files)


def _remove_unreferenced(root: Path, files: dict[str, Any]) -> None:
    """The entries of a shared directory (a part, a base, a temp directory left by a crash) that
    no file of the published generation is in."""
    if not root.is_dir():
        return
    keep = {rel.split("/")[1] for rel in files if rel.split("/")[0] == root.name}
    for path in root.iterdir():
        if path.name in keep:
            continue
        if path.is_dir():
            shutil.rmtree(path, ignore_errors=True)
        else:
            path.unlink(missing_ok=True)
