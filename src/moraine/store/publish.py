"""Publishing a generation: the state's memtable sealed, its segments merged and saved, its
fresh contents written as a chunk, its columns and bases written where they changed, and a
new `CURRENT` (`store.snapshot`); then the WAL files and the files no generation uses go.

Only the writer changes the state, and the Store calls this inside `writer()`: so it reads the
state without the readers' lock (`guard`), which readers hold for a whole tool call, and takes
that lock only to swap in what it built (the sealed memtable, a merged or saved segment, a
written content chunk, the compacted uid map). A search never waits for a merge, a
compression or a write to disk (tools/bench_writer.py measures it).
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from moraine.durable import file_crc
from moraine.index.segment import Segment
from moraine.store import checkpoint_files, columns, session_files, uid_files
from moraine.store.snapshot import Manifest, collect_garbage, write_generation
from moraine.store.state import GROWING, State
from moraine.store.wal import HEADER, WalSet


@dataclass
class _Shared:
    """What a publish wrote of the parts generations share: for the meta, the shared files to
    keep, and the new bases."""

    meta: dict[str, Any]
    keep: set[str]
    parts: list[columns.Part]
    checkpoints: checkpoint_files.Base
    uids: uid_files.Base
    sessions: session_files.Base


@dataclass
class Publisher:
    """The publish job over one state: where it lives (`home`, its WAL) and the readers' lock."""

    state: State
    home: Path
    wal_set: WalSet
    guard: threading.RLock

    def new_segment_dir(self) -> Path:
        return self.state.new_segment_dir(self.home)

    def publish(self, defer_merges: int) -> Manifest:
        """Seal, merge (not below `defer_merges` segments), rotate the WAL and publish."""
        state, guard = self.state, self.guard
        state.index.seal(guard=guard)
        # merges stream to disk: no merged copy in memory
        state.index.merge_segments(self.new_segment_dir, defer_merges, guard=guard)
        state.index.purge_segments(self.new_segment_dir, guard=guard)  # retired words leave the dictionary
        wal_seq = self.wal_set.rotate()
        state.position = (wal_seq, len(HEADER))
        names = self._segments()
        self._content()
        arrays = {f"cat.{k}": v for k, v in state.catalog.snapshot_arrays().items()}
        arrays.update({f"idx.{k}": v for k, v in state.index.snapshot_arrays().items()})
        keys, docs = arrays.pop("cat.uid_keys"), arrays.pop("cat.uid_docs")
        catalog_meta = state.catalog.snapshot_meta()
        shared = self._shared(arrays, keys, docs, catalog_meta.pop("sessions"), catalog_meta.pop("file_names"))
        meta = {"catalog": catalog_meta, **shared.meta, **state.meta()}
        keep = {f"segments/{n}/" for n in names} | shared.keep
        content = list(state.catalog.content.names)
        sums = {rel: info for rel, info in state.shared_sums.items()
                if any(rel.startswith(k) for k in keep) or rel.split("/", 1)[-1].split(".")[0] in content}
        generation = (state.manifest.generation + 1) if state.manifest else 1
        manifest = write_generation(self.home, generation, wal_seq, arrays, meta, state.counts(), names, content,
                                    sums)
        with guard:
            state.manifest = manifest
            state.catalog.compact(keys, docs)
        state.shared_sums = sums
        state.column_parts, state.checkpoint_base, state.uid_base = shared.parts, shared.checkpoints, shared.uids
        state.session_base = shared.sessions
        state.events_since_snapshot = state.frames_since_snapshot = 0
        state.forgot_since_publish = False
        collect_garbage(self.home, manifest)
        self.wal_set.remove_before(manifest.wal_seq)
        return manifest

    def _remember_sums(self, home_rel: str, paths: list[Path]) -> None:
        """Checksums of shared files just written (`home_rel`: their directory in the home)."""
        for path in paths:
            self.state.shared_sums[f"{home_rel}/{path.name}"] = {"size": path.stat().st_size, "crc32": file_crc(path)}

    def _segments(self) -> list[str]:
        """Every segment saved (a fresh one written now); their names."""
        index, names = self.state.index, []
        for i, segment in enumerate(list(index.segments)):
            if not segment.name:
                directory = self.new_segment_dir()
                segment.save(directory)
                saved = Segment.load(directory)
                with self.guard:
                    index.segments = [*index.segments[:i], saved, *index.segments[i + 1:]]
            name = index.segments[i].name
            directory = self.home / "segments" / name
            self._remember_sums(f"segments/{name}", [p for p in directory.iterdir()
                                                     if f"segments/{name}/{p.name}" not in self.state.shared_sums])
            names.append(name)
        return names

    def _content(self) -> None:
        """The fresh event contents written as a chunk, and read from it from now on; chunks that
        hold retired events' contents written again without them (forgetting is real: the old
        files go with the generation that used them)."""
        directory = self.home / "content"
        content = self.state.catalog.content
        stem = content.persist_fresh(directory)
        if stem is not None:
            with self.guard:
                content.attach(directory, stem)
            self._remember_sums("content", sorted(directory.glob(f"{stem}.*")))
        written = content.rewrite(directory)
        if written:
            with self.guard:
                content.replace(directory, written)
            for _, new in written:
                self._remember_sums("content", sorted(directory.glob(f"{new}.*")))

    def _shared(self, arrays: dict[str, np.ndarray], keys: np.ndarray, docs: np.ndarray,
                sessions: list[list[Any]], file_names: list[str]) -> _Shared:
        """What generations share, written where it changed: the growing columns' parts (taken out
        of `arrays`), the checkpoints', the uid map's and the sessions' bases (their changes added
        to `arrays` and the meta). Each writes only what was added since, or is written again
        whole once that outweighs the part already published."""
        state, home = self.state, self.home
        growing = {name: arrays.pop(name) for name in GROWING}
        rows = {len(array) for array in growing.values()}
        assert len(rows) == 1, f"growing columns out of step: {rows}"
        published = state.column_parts if columns.complete(state.column_parts, state.shared_sums, GROWING) else []
        parts, part = columns.extend(published, rows.pop())
        if part is not None:
            self._remember_sums(f"{columns.DIRECTORY}/{part.dirname}", columns.write(home, part, growing))
        stored, checkpoints, written = checkpoint_files.publish(home, state.checkpoints, state.checkpoint_base)
        if written is not None:
            self._remember_sums(checkpoint_files.DIRECTORY, [written])
        uid_arrays, uid_meta, uids, uid_written = uid_files.publish(home, keys, docs, state.catalog.uid.size,
                                                                    state.uid_base)
        self._remember_sums(str(uids.rel), uid_written)
        arrays.update(uid_arrays)
        session_arrays, session_meta, session_base, session_written = session_files.publish(
            home, sessions, arrays.pop("cat.session_offsets"), arrays.pop("cat.session_docs"), file_names,
            state.session_base, whole=state.forgot_since_publish)  # a forgotten title leaves the old base
        self._remember_sums(str(session_base.rel), session_written)
        arrays.update(session_arrays)
        keep = {f"{columns.DIRECTORY}/{p.dirname}/" for p in parts} | \
            {str(checkpoints.rel), f"{uids.rel}/", f"{session_base.rel}/"}
        return _Shared({**stored, **uid_meta, **session_meta}, keep, parts, checkpoints, uids, session_base)
