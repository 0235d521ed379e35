"""State administration: copy a snapshot out, install one (restore, reindex), check and
repair the files (doctor). Everything here works on the files of a state directory and
takes the same writer lock as ingest, so it is safe while other processes use the state.
"""

from __future__ import annotations

import fcntl
import os
import shutil
import time
import zlib
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import msgpack

from moraine.durable import file_crc, fsync_path, replace_atomically, write_file
from moraine.errors import StateError
from moraine.store import verify
from moraine.store.run_files import held
from moraine.store.snapshot import (
    CURRENT,
    SHARED,
    Manifest,
    check_files,
    current_manifest,
    gen_dirname,
    point_at,
    pointer_problem,
)
from moraine.store.validate import screen_frame
from moraine.store.wal import FRAME, HEADER, MAX_FRAME, Wal, WalSet

Progress = Callable[[int, int], None]


def snapshot_files(home: Path, manifest: Manifest) -> list[str]:
    """Every file a snapshot copy needs, relative to the home: CURRENT, the generation with
    its manifest, the segments and content chunks it references, and its (empty) WAL file."""
    return [*sorted(manifest.files), f"{manifest.dirname}/MANIFEST.json", CURRENT, f"wal/{manifest.wal_seq:08d}.log"]


def copy_snapshot(home: Path, manifest: Manifest, out: Path, progress: Progress | None = None) -> dict[str, Any]:
    """Copy the published generation to `out` (call under the writer lock, right after
    publishing, so the copy is the whole state at one instant)."""
    if out.exists() and any(out.iterdir()):
        raise StateError(f"{out} exists and is not empty; choose a new path for the snapshot")
    files = snapshot_files(home, manifest)
    total = sum((home / rel).stat().st_size for rel in files)
    done = 0
    out.mkdir(parents=True, exist_ok=True, mode=0o700)
    for rel in files:
        target = out / rel
        target.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        shutil.copyfile(home / rel, target)
        fsync_path(target)
        done += target.stat().st_size
        if progress:
            progress(done, total)
    for directory in sorted({(out / rel).parent for rel in files}, key=lambda p: -len(p.parts)):
        fsync_path(directory)
    return {"path": str(out), "generation": manifest.generation, "files": len(files), "bytes": total,
            "events": manifest.counts.get("live_events", 0), "sessions": manifest.counts.get("sessions", 0)}


def verify_snapshot(path: Path) -> Manifest:
    """A snapshot directory's manifest, after checking every file against its size and CRC32."""
    if not (path / CURRENT).exists():
        raise StateError(f"{path} is not a Moraine snapshot (no CURRENT file)")
    manifest = current_manifest(path)
    assert manifest is not None
    problems = check_files(path, manifest, deep_prefix="")
    if problems:
        raise StateError(f"snapshot {path} failed verification: {'; '.join(problems[:5])}"
                         + (f" (and {len(problems) - 5} more)" if len(problems) > 5 else ""))
    return manifest


def install_snapshot(home: Path, source: Path, manifest: Manifest, *, move: bool = False) -> Manifest:
    """Make a verified snapshot the state of `home` (call under the writer lock).

    Its segments and chunks (uniquely named) are copied in beside the current ones, its
    generation is renumbered after the current one and pointed at a fresh WAL file, and
    only then does CURRENT flip: a crash before that leaves the old state whole.
    """
    wal = WalSet(home / "wal")
    try:
        current = current_manifest(home)
    except StateError:  # no generation of the old state reads: this one replaces it whole
        current = None
    taken = [int(d.name[4:12]) for d in home.glob("gen-*") if d.name[4:12].isdigit()]  # damaged ones too
    generation = max(current.generation if current else 0, manifest.generation, *taken) + 1
    wal_seq = wal.rotate()
    transfer = shutil.move if move else shutil.copyfile
    files: dict[str, dict[str, int]] = {}
    name = gen_dirname(generation)
    temp = home / f"{name}.tmp"
    shutil.rmtree(temp, ignore_errors=True)
    for rel, info in manifest.files.items():
        first, _, rest = rel.partition("/")
        target_rel = f"{name}/{rest}" if first == manifest.dirname else rel
        target = (temp / rest) if first == manifest.dirname else home / rel
        target.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        if not (target.exists() and target.stat().st_size == info["size"] and file_crc(target) == info["crc32"]):
            transfer(source / rel, target)
            fsync_path(target)
        files[target_rel] = info
    for directory in {home / "segments", home / "content", *(home / shared for shared in SHARED)}:
        if directory.exists():
            for sub in [directory, *[p for p in directory.iterdir() if p.is_dir()]]:
                fsync_path(sub)
    installed = Manifest(generation, wal_seq, manifest.counts, manifest.segments, manifest.content, files,
                         int(time.time() * 1000))
    write_file(temp / "MANIFEST.json", installed.to_json())
    fsync_path(temp)
    os.replace(temp, home / name)
    fsync_path(home)
    replace_atomically(home / CURRENT, f"{name}\n".encode())
    verify.remember(home, files)  # each was verified (restore) or just built (reindex)
    return installed


# -- doctor --------------------------------------------------------------------------------


@dataclass
class WalReport:
    path: str
    frames: int = 0
    valid_end: int = 0
    size: int = 0
    torn_bytes: int = 0  # bytes after the last frame of the newest file that hold no frame
    damaged: bool = False  # a bad region with intact frames after it (or in a closed file)
    salvageable: int = 0  # intact frames found after the damage
    rejected: list[str] = field(default_factory=list)  # rows the store leaves out (quarantined) on replay

    def as_dict(self) -> dict[str, Any]:
        return {**self.__dict__, "rejected": list(self.rejected)}


@dataclass
class DoctorReport:
    home: str
    generation: int | None = None
    snapshot_problems: list[str] = field(default_factory=list)
    wal: list[WalReport] = field(default_factory=list)
    missing_wal: list[str] = field(default_factory=list)
    repaired: list[str] = field(default_factory=list)
    pointer: str | None = None  # CURRENT missing or damaged while a whole generation survives
    leftovers: list[str] = field(default_factory=list)  # what an interrupted command left (not damage)

    @property
    def healthy(self) -> bool:
        return not (self.snapshot_problems or self.missing_wal or self.pointer or any(w.damaged for w in self.wal))

    def as_dict(self) -> dict[str, Any]:
        return {"home": self.home, "healthy": self.healthy, "generation": self.generation,
                "snapshot_problems": self.snapshot_problems, "wal": [w.as_dict() for w in self.wal],
                "missing_wal": self.missing_wal, "pointer": self.pointer, "repaired": self.repaired,
                "leftovers": self.leftovers}


def intact_frames(path: Path) -> list[tuple[int, bytes]]:
    """Every intact frame in a WAL file, found by resynchronising after damage: at each
    offset, a length + CRC32 + msgpack body that all check out is a frame."""
    data = path.read_bytes()
    found: list[tuple[int, bytes]] = []
    offset = len(HEADER)
    while offset + FRAME.size <= len(data):
        length, crc = FRAME.unpack_from(data, offset)
        end = offset + FRAME.size + length
        if 0 < length <= MAX_FRAME and end <= len(data) and zlib.crc32(data[offset + FRAME.size : end]) == crc:
            body = data[offset + FRAME.size : end]
            try:
                msgpack.unpackb(body, raw=False, strict_map_key=False)
            except (ValueError, msgpack.UnpackException):
                offset += 1
                continue
            found.append((offset, body))
            offset = end
        else:
            offset += 1
    return found


def examine_wal(path: Path, newest: bool) -> WalReport:
    try:
        wal = Wal(path, "never")
    except StateError:  # its header is not ours: damaged from the first byte, frames may survive after it
        return WalReport(str(path), size=path.stat().st_size, damaged=True,
                         salvageable=len(intact_frames(path)))
    report = WalReport(str(path), size=wal.size())
    end = len(HEADER)
    for frame in wal.frames():
        report.frames += 1
        end = frame.end
        report.rejected.extend(f"{i.file}:{i.line}: {i.reason}" for i in screen_frame(frame.payload, str(path))[1])
    report.valid_end = end
    if report.size > end:
        if newest and not wal.damaged_after(end):
            report.torn_bytes = report.size - end
        else:
            report.damaged = True
            report.salvageable = sum(1 for offset, _ in intact_frames(path) if offset >= end)
    return report


def doctor(home: Path, repair: bool = False) -> DoctorReport:
    """Check the snapshot against its checksums and every WAL file frame by frame; with
    `repair`, salvage every intact frame of a damaged WAL (the damaged file is kept beside
    it) and make the next ingest re-read the logs, so what the lost frames held comes back."""
    report = DoctorReport(str(home))
    manifest = _check_snapshot(home, report)
    _check_wal(home / "wal", manifest, report)
    _check_rebuild(home, report, repair)
    if repair:
        _repair(home, manifest, report)
    return report


REBUILD_DIR = "reindex.tmp"  # where `moraine reindex` builds the new state, beside the live one


def hold_rebuild(directory: Path) -> int:
    """Mark a rebuild under way in `directory` (a lock on it, released when the process ends, a
    killed one included); the caller closes the returned descriptor when the rebuild is done."""
    fd = os.open(directory, os.O_RDONLY | os.O_DIRECTORY)
    fcntl.flock(fd, fcntl.LOCK_EX)
    return fd


def rebuild_running(directory: Path) -> bool:
    """Whether a live process holds this rebuild's folder (`hold_rebuild`)."""
    return held(directory)


def _check_rebuild(home: Path, report: DoctorReport, repair: bool) -> None:
    """A rebuild's folder no process holds: left by a `moraine reindex` (or the rebuild of a
    `doctor --repair`) that was killed. It only
    takes room (the next reindex starts afresh); `repair` removes it. One being built is left alone."""
    directory = home / REBUILD_DIR
    if not directory.is_dir():
        return
    if rebuild_running(directory):
        report.leftovers.append(f"{directory}: a rebuild is building the new state there now")
        return
    size = sum(p.stat().st_size for p in directory.rglob("*") if p.is_file() and not p.is_symlink())
    if repair:
        shutil.rmtree(directory, ignore_errors=True)
        report.repaired.append(f"{directory}: removed what an interrupted rebuild left ({size:,} bytes)")
    else:
        report.leftovers.append(f"{directory}: left by an interrupted rebuild (`moraine reindex` or "
                                f"`doctor --repair`; {size:,} bytes); `moraine doctor --repair` removes it")


def _check_snapshot(home: Path, report: DoctorReport) -> Manifest | None:
    """The published manifest (None when there is none, or it cannot be read: a problem)."""
    try:
        manifest = current_manifest(home)
    except StateError as exc:
        report.snapshot_problems.append(str(exc))
        return None
    if manifest is not None:
        report.generation = manifest.generation
        report.pointer = pointer_problem(home, manifest)
        report.snapshot_problems.extend(check_files(home, manifest, deep_prefix=""))
    return manifest


def _check_wal(wal_dir: Path, manifest: Manifest | None, report: DoctorReport) -> None:
    """Examine every WAL file from the snapshot's on; the snapshot's own file must exist."""
    seqs = sorted(int(p.name[:-4]) for p in wal_dir.glob("*.log") if p.name[:-4].isdigit()) if wal_dir.is_dir() else []
    if manifest is not None and manifest.wal_seq not in seqs:
        report.missing_wal.append(f"wal/{manifest.wal_seq:08d}.log")
    for seq in seqs:
        if manifest is None or seq >= manifest.wal_seq:
            report.wal.append(examine_wal(wal_dir / f"{seq:08d}.log", newest=seq == seqs[-1]))


def _repair(home: Path, manifest: Manifest | None, report: DoctorReport) -> None:
    """Salvage damaged WAL files and recreate a missing one, each with a rewind frame so the
    next ingest re-reads the logs. A damaged snapshot is only noted: the caller rebuilds the
    state from the logs (the CLI's `doctor --repair` does)."""
    if report.pointer and manifest is not None and not report.snapshot_problems:
        point_at(home, manifest)
        report.repaired.append(f"CURRENT names {manifest.dirname} again")
    for item in report.wal:
        if item.damaged:
            _salvage(Path(item.path))
            report.repaired.append(f"{item.path}: kept {item.frames + item.salvageable} intact frames; "
                                   f"damaged original at {item.path}.damaged; logs will be re-read")
    if report.missing_wal and manifest is not None:
        path = home / "wal" / f"{manifest.wal_seq:08d}.log"
        Wal(path, "batch").append(_REWIND)
        report.repaired.append(f"{path}: recreated; logs will be re-read")
    if report.snapshot_problems:
        report.repaired.append("the snapshot is damaged: rebuilding the state from the logs")


_REWIND = {"events": [], "issues": [], "checkpoints": {}, "rewind": True, "at": 0}


def _salvage(path: Path) -> None:
    frames = intact_frames(path)
    shutil.copyfile(path, path.with_name(path.name + ".damaged"))
    temp = path.with_name(path.name + ".salvage")
    body = bytearray(HEADER)
    for _, frame in frames:
        body += FRAME.pack(len(frame), zlib.crc32(frame)) + frame
    rewind = msgpack.packb({**_REWIND, "at": int(time.time() * 1000)}, use_bin_type=True)
    body += FRAME.pack(len(rewind), zlib.crc32(rewind)) + rewind
    write_file(temp, bytes(body))
    os.replace(temp, path)
    fsync_path(path.parent)
