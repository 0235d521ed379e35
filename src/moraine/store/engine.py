"""The Store facade: one write path (WAL frame → catalog + index), many readers.

Several processes may share a state directory (agent hosts each run `moraine mcp`): the
writer lock serialises appends, and every process first applies the frames others wrote
since it last looked, so all of them see one history and no event is applied twice.
"""

from __future__ import annotations

import fcntl
import os
import secrets
import shutil
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

import numpy as np

from moraine.collector import loading
from moraine.config import Config
from moraine.durable import file_crc
from moraine.errors import MoraineError, StateError, WriterBusy
from moraine.index.searcher import Hits, InvertedIndex
from moraine.index.segment import Segment
from moraine.model import EVENT_TYPES, TYPE_CODE, Checkpoint, IngestIssue
from moraine.redaction.redact import rules_fingerprint
from moraine.store import checkpoint_files, columns, session_files, snapshot, uid_files
from moraine.store.apply import FrameApplier, StoreStats
from moraine.store.batch import Batch
from moraine.store.catalog import Catalog
from moraine.store.invariants import check_invariants
from moraine.store.reading import Reading
from moraine.store.redactions import Redactions
from moraine.store.snapshot import Manifest, collect_garbage, current_manifest, read_generation, write_generation
from moraine.store.validate import packable_frame, screen_frame
from moraine.store.wal import HEADER, Position, Wal, WalSet

# the columns published as parts shared by generations (`store.columns`), by their names there
GROWING = (*(f"cat.{name}" for name in Catalog.GROWING), "idx.doc_len")


def _framed(payload: dict[str, Any], batch: Batch) -> dict[str, Any]:
    """The payload as the WAL frames it: the batch in its wire form, absent when empty."""
    return {**payload, "batch": batch.to_wire()} if len(batch) else payload


class _Reload(Exception):
    """A WAL frame failed to apply midway: the in-memory state is rebuilt without it."""


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


class Store(FrameApplier, Reading):
    """State directory layout: see `store.snapshot` (CURRENT, generations, segments, content,
    columns, wal/) plus `lock`, the writer lock. What tools read of it: `Reading` (sessions, turns,
    events, doc sets), with `search` here.

    It sets nothing for the process: the entry points do (`cli.own_process`: files private to
    the user, the redaction rules of `[redaction]`); the home directory is made private here all
    the same, so a state opened by any other caller stays unreadable to other users."""

    def __init__(self, config: Config, *, create: bool = True, busy: Callable[[float], object] | None = None) -> None:
        """`busy`: called with the seconds waited so far, about every 0.1 s, while another process
        holds the writer lock (a long indexing pass); it may raise to give up waiting."""
        self.config = config
        self.home = config.home
        if not self.home.exists():
            if not create:
                raise StateError(f"no Moraine state at {self.home}: run `moraine index` first")
            try:
                self.home.mkdir(parents=True, mode=0o700)
            except OSError as exc:
                raise StateError(f"cannot create the Moraine state at {self.home}: {exc.strerror}") from exc
        if not os.access(self.home, os.R_OK | os.W_OK | os.X_OK):
            raise StateError(f"the Moraine state at {self.home} is not readable and writable by this user")
        try:
            os.chmod(self.home, 0o700)
        except OSError as exc:
            raise StateError(f"cannot make {self.home} private to this user: {exc.strerror}") from exc
        self.lock_path = self.home / "lock"
        # Guards the in-memory state within a process: a daemon's ingest thread applies frames
        # while its connection threads search; the flock (`writer()`) orders processes.
        self.lock = threading.RLock()
        # WAL frames that failed to apply although screened (position → reason): skipped on
        # the reload that follows, and reported with the quarantine, until a snapshot covers them.
        self.bad_frames: dict[tuple[int, int], str] = {}
        self._writer_thread: int | None = None  # the thread inside `writer()`
        self.defer_merges = 0  # segments below which a publish merges none (set by a pass building the index)
        self.kernel: ModuleType | None = None  # the compiled window search, once loaded (`use_kernel`)
        self._reset()
        with self.writer(busy):
            self._reload()

    def _reload(self) -> None:
        """Load; each frame that fails to apply is marked and the load starts again without it."""
        for _ in range(1000):
            try:
                with loading():
                    self._load()
                return
            except _Reload:
                self._reset()
            except (MoraineError, OSError):
                raise
            except Exception as exc:  # a state this code cannot read: say so, and how to mend it
                raise StateError(f"{self.home}: the state cannot be opened ({type(exc).__name__}: {exc}); "
                                 "run `moraine doctor --repair` (it rebuilds the state from the logs)") from exc
        raise StateError(f"{self.home}: too many write-ahead log frames fail to apply; run `moraine reindex`")

    # What a reload keeps: the store's identity in this process, not its state.
    _IDENTITY = frozenset({"config", "home", "lock_path", "lock", "bad_frames", "_writer_thread", "defer_merges",
                           "kernel"})

    def _reload_aside(self) -> None:
        """Load the state again (another process's snapshot) into a fresh object, with the readers'
        lock free, then swap it in: at a million events a load takes seconds, which no tool call
        may wait for. Runs inside `writer()`, so nothing else changes the state meanwhile."""
        fresh = object.__new__(type(self))
        fresh.__dict__.update({k: v for k, v in self.__dict__.items() if k in self._IDENTITY})
        fresh.lock = threading.RLock()  # its own: readers keep reading the old state meanwhile
        fresh._reset()
        fresh._reload()
        with self.lock:
            self.__dict__.update({k: v for k, v in fresh.__dict__.items() if k not in self._IDENTITY})
            self.index.kernel = self.kernel  # `use_kernel` may have run while the fresh state loaded

    def use_kernel(self, kernel: ModuleType | None) -> None:
        """Search with the compiled window search from now on (None: the numpy path), reloads included."""
        self.kernel = kernel
        self.index.kernel = kernel

    def _reset(self) -> None:
        self.catalog = Catalog()
        self.index = InvertedIndex((self.config.bm25.k1, self.config.bm25.b))
        self.index.kernel = self.kernel
        self.checkpoints: dict[str, Checkpoint] = {}
        self.stats = StoreStats()
        self.manifest: Manifest | None = None
        self.shared_sums: dict[str, dict[str, int]] = {}  # checksums of written segments and chunks
        self.next_segment = 1
        self.events_since_snapshot = 0
        self.frames_since_snapshot = 0
        self.issue_keys: set[tuple[str, int, int, int]] = set()
        self.file_issues: dict[str, str] = {}  # log (key or display name) → why it cannot be read now
        self.publishing = False  # a publish is under way (see `publish`)
        self.tombstones: set[str] = set()  # session keys forgotten by retention: never indexed again
        self.forgotten: dict[str, int] = {}  # logs forgotten on purpose → their inode (0: any): not read again
        self.forgot_since_publish = False  # sessions or logs forgotten since the last publish
        self.tracked: list[list[Any]] = []  # explicit prompt → input observations (track_input_event)
        self.redactions = Redactions()
        self.position: Position = (0, 0)
        self.column_parts: list[columns.Part] = []  # where the published growing columns are
        self.checkpoint_base = checkpoint_files.Base()  # the published checkpoints' shared part
        self.uid_base = uid_files.Base()  # the published uid map's shared part
        self.session_base = session_files.Base()  # the published sessions' shared part

    def _load(self) -> None:
        """The published snapshot (mapped, not re-read), then the WAL frames after it."""
        self.wal_set = WalSet(self.home / "wal", self.config.store.fsync)
        manifest = current_manifest(self.home)
        if manifest is not None:
            self._restore(manifest)
        self._collect_garbage()
        seqs = self.wal_set.seqs()
        first = manifest.wal_seq if manifest else seqs[0]
        if not seqs or seqs[0] > first or first not in seqs:
            raise StateError(f"write-ahead log {self.wal_set.path(first)} is missing: frames after the snapshot "
                             "are lost; run `moraine doctor --repair`")
        self.position = (first, len(HEADER))
        self._catch_up_wal()

    def _restore(self, manifest: Manifest) -> None:
        arrays, meta = read_generation(self.home, manifest)
        parts = columns.published(manifest.files)
        sources: dict[str, columns.Source] = {**arrays, **columns.pieces(self.home, parts, GROWING)}
        uids = uid_files.load(self.home, meta, arrays, np.asarray(arrays["cat.alive"]))
        if uids is not None:
            sources["cat.uid_keys"], sources["cat.uid_docs"], self.uid_base = uids
        sessions = session_files.load(self.home, meta, arrays)
        if sessions is not None:
            meta["catalog"]["sessions"], self.session_base = sessions.records, sessions.base
            sources["cat.session_offsets"], sources["cat.session_docs"] = sessions.offsets, sessions.docs
            if sessions.names is not None:
                meta["catalog"]["file_names"] = sessions.names
        self.catalog.restore({k[4:]: v for k, v in sources.items() if k.startswith("cat.")}, meta["catalog"])
        for stem in manifest.content:
            self.catalog.content.attach(self.home / "content", stem)
        segments = [Segment.load(self.home / "segments" / name) for name in manifest.segments]
        rows = columns.row_count(sources["idx.live"])
        self.index.restore({"live": arrays["idx.live"],
                            "doc_len": columns.assembled(sources.get("idx.doc_len"), rows, np.int32)}, segments)
        self.column_parts = parts
        self.checkpoints, self.checkpoint_base = checkpoint_files.load(self.home, meta)
        st = meta["stats"]
        self.stats = StoreStats(st["frames"], st["events"], [IngestIssue.from_wire(r) for r in meta["issues"]],
                                st["last_ingest_ms"], st["torn_bytes"], dict(st.get("last_by_source", {})))
        self.next_segment = meta["next_segment"]
        self.issue_keys = {(i.file, i.generation, i.line, i.offset) for i in self.stats.issues}
        self.file_issues = dict(meta.get("file_issues", {}))
        self.tombstones = set(meta.get("tombstones", ()))
        self.forgotten = dict(meta.get("forgotten", {}))
        self.tracked = list(meta.get("tracked", ()))
        self.redactions = Redactions.from_meta(meta)
        self.manifest = manifest
        self.shared_sums = {rel: info for rel, info in manifest.files.items() if not rel.startswith("gen-")}

    def _collect_garbage(self) -> None:
        if self.manifest is not None:
            collect_garbage(self.home, self.manifest)
            self.wal_set.remove_before(self.manifest.wal_seq)
        else:
            for name in ("segments", "content", *snapshot.SHARED):
                shutil.rmtree(self.home / name, ignore_errors=True)
            for path in self.home.glob("gen-*"):
                shutil.rmtree(path, ignore_errors=True)

    # -- writing ---------------------------------------------------------------------------

    @contextmanager
    def writer(self, busy: Callable[[float], object] | None = None, wait: float | None = None) -> Iterator[None]:
        """Exclusive writer lock; on entry, catch up with frames other processes appended.
        While another process holds it, `busy` is told how long this one has waited; with
        `wait`, WriterBusy after that many seconds."""
        fd = os.open(self.lock_path, os.O_RDWR | os.O_CREAT, 0o600)
        try:
            _lock(fd, busy, wait)
            self._writer_thread = threading.get_ident()
            if self.position[0] and self.position[0] not in self.wal_set.seqs():
                self._reload_aside()  # another process published and retired the WAL file this one read
            elif self.position[0]:
                with self.lock:
                    try:
                        self._catch_up_wal()
                    except _Reload:
                        self._reset()
                        self._reload()
            start = self.position
            yield
            if self.config.store.fsync == "batch" and self.position != start:
                self.wal_set.open(self.position[0]).sync()  # one fsync per batch of frames
        finally:
            self._writer_thread = None
            fcntl.flock(fd, fcntl.LOCK_UN)
            os.close(fd)

    @property
    def writer_thread(self) -> int | None:
        """The ident of this process's thread inside `writer()`, if one is."""
        return self._writer_thread

    def _assert_writer(self) -> None:
        """What reads the state without `self.lock` relies on this thread being its only writer."""
        if self._writer_thread != threading.get_ident():
            raise RuntimeError("publishing or merging needs the writer lock: call it inside `writer()`")

    def _catch_up_wal(self) -> None:
        """Apply frames appended since `position` (by this process or another), across WAL
        files. The file at `position` exists: `writer()` reloads first when another process's
        snapshot retired it (`_reload_aside`), and a load starts at a file it checked."""
        seqs = self.wal_set.seqs()
        seq, offset = self.position
        for number in [n for n in seqs if n >= seq]:
            wal = self.wal_set.open(number)
            start = offset if number == seq else len(HEADER)
            end = self._replay(wal, start)
            self.position = (number, end)
            if number != seqs[-1] and wal.size() > end:
                raise StateError(f"{wal.path} is damaged at byte {end} (a closed WAL file must end with a whole "
                                 "frame); run `moraine doctor --repair` to salvage every intact frame")
        self._cut_torn_tail()

    def _cut_torn_tail(self) -> None:
        """Bytes after the last whole frame, seen under the lock, are a writer's crash mid-append:
        cut them before appending, or the next frame would land behind garbage."""
        wal = self.wal_set.open(self.position[0])
        end = self.position[1]
        if wal.size() > end:
            if wal.damaged_after(end):
                raise StateError(
                    f"{wal.path} is damaged at byte {end}: intact frames follow a bad one. Refusing to go on "
                    "rather than drop them; run `moraine doctor --repair` to salvage every intact frame."
                )
            self.stats.torn_bytes += wal.cut_tail(end)

    def commit(self, events: Batch | list[list[Any]], issues: list[list[Any]], checkpoints: dict[str, list[Any]],
               extra: dict[str, Any] | None = None) -> None:
        """Append one frame (events + issues + the checkpoints they reach), then apply it.

        Events come as the parse workers emit them (a `Batch`, each event checked there) or as
        wire rows from anywhere else (screened here). Call inside `writer()`.
        """
        payload: dict[str, Any] = {"issues": issues, "checkpoints": checkpoints, "at": int(time.time() * 1000)}
        payload.update(extra or {})
        if isinstance(events, Batch):
            batch = events
        else:
            payload, rejected = screen_frame({**payload, "events": events}, "commit")
            payload["issues"] = [*payload.get("issues", []), *(i.to_wire() for i in rejected)]
            batch = payload.pop("batch")
        if len(batch):
            payload["rules"] = rules_fingerprint()  # what the events were redacted with
        seq, start = self.position
        try:
            end = self.wal_set.open(seq).append(_framed(payload, batch))
        except (OverflowError, ValueError, TypeError):  # unpackable: nothing was written
            payload, batch = packable_frame(payload, batch)
            end = self.wal_set.open(seq).append(_framed(payload, batch))
        framed = {**payload, "batch": batch}
        try:
            prepared = self._prepare(framed)  # tokenizing, most of a frame's cost, before the readers' lock
            with self.lock:
                self._apply(framed, prepared)
                self.position = (seq, end)
        except Exception as exc:  # a bug, not bad input: the frame is skipped from now on
            with self.lock:
                self.bad_frames[(seq, start)] = f"wal_frame_skipped: {type(exc).__name__}: {exc}"[:500]
                self._reset()
                self._reload()
            return
        self._seal_when_full()

    def _seal_when_full(self) -> None:
        """Seal a full memtable; the new segment is built with the readers' lock free."""
        if len(self.index.mem) >= self.config.store.seal_events:
            self.index.seal(guard=self.lock)

    def _replay(self, wal: Wal, start: int) -> int:
        """Apply the frames after `start`. A frame is screened first (rows the store cannot
        apply are quarantined, the rest applies); one that fails all the same is skipped on a
        reload from the snapshot and reported, never allowed to make the state unusable."""
        end = max(start, len(HEADER))
        seq = int(wal.path.name[:-4]) if wal.path.name[:-4].isdigit() else 0
        for frame in wal.frames(start):
            where = f"{wal.path}@{frame.offset}"
            if (seq, frame.offset) in self.bad_frames:
                self._record_issues([IngestIssue(where, 0, seq, frame.offset, self.bad_frames[(seq, frame.offset)],
                                                 "")])
            else:
                payload, issues = screen_frame(frame.payload, where)
                try:
                    self._apply(payload)
                except Exception as exc:  # a bug, not bad input: skip this frame and start over
                    self.bad_frames[(seq, frame.offset)] = f"wal_frame_skipped: {type(exc).__name__}: {exc}"[:500]
                    raise _Reload from exc
                self._record_issues(issues)
                self._seal_when_full()
            end = frame.end
        return end

    def forget(self, paths: list[str]) -> int:
        """Retire every event read from these logs and drop their checkpoints (one frame).
        Call inside `writer()`."""
        before = int(np.count_nonzero(self.catalog.alive.view))
        self.commit([], [], {}, {"forget": sorted(paths)})
        return before - int(np.count_nonzero(self.catalog.alive.view))

    def publish(self) -> Manifest:
        """Seal, merge, rotate the WAL and publish a snapshot generation; then drop what it
        covers. Call inside `writer()`. While it runs `publishing` is true: the daemon's calls
        then answer without waiting for the writer lock (a publish takes seconds on a large state)."""
        return self._publish()

    def _new_segment_dir(self) -> Path:
        name = f"seg-{self.next_segment:08d}-{secrets.token_hex(4)}"  # unique across states (restore)
        self.next_segment += 1
        return self.home / "segments" / name

    def _publish(self) -> Manifest:
        """A generation published, with `publishing` true meanwhile (every path: a pass's, the
        daemon's periodic one, `merge_all`'s)."""
        self.publishing = True
        try:
            return self._publish_generation()
        finally:
            self.publishing = False

    def _publish_generation(self) -> Manifest:
        """Only the writer changes the state, and this runs inside `writer()`: so it reads the
        state without `self.lock`, which readers hold for a whole tool call, and takes that lock
        only to swap in what it built (the sealed memtable, a merged or saved segment, a
        written content chunk, the compacted uid map). A search never waits for a merge, a
        compression or a write to disk (tools/bench_writer.py measures it)."""
        self._assert_writer()
        self.index.seal(guard=self.lock)
        # merges stream to disk: no merged copy in memory
        self.index.merge_segments(self._new_segment_dir, self.defer_merges, guard=self.lock)
        self.index.purge_segments(self._new_segment_dir, guard=self.lock)  # retired words leave the dictionary
        wal_seq = self.wal_set.rotate()
        self.position = (wal_seq, len(HEADER))
        names = self._publish_segments()
        self._publish_content()
        arrays = {f"cat.{k}": v for k, v in self.catalog.snapshot_arrays().items()}
        arrays.update({f"idx.{k}": v for k, v in self.index.snapshot_arrays().items()})
        keys, docs = arrays.pop("cat.uid_keys"), arrays.pop("cat.uid_docs")
        catalog_meta = self.catalog.snapshot_meta()
        shared = self._publish_shared(arrays, keys, docs, catalog_meta.pop("sessions"),
                                      catalog_meta.pop("file_names"))
        st = self.stats
        meta = {"catalog": catalog_meta, **shared.meta,
                "stats": {"frames": st.frames, "events": st.events, "last_ingest_ms": st.last_ingest_ms,
                          "torn_bytes": st.torn_bytes, "last_by_source": st.last_by_source},
                "issues": [i.to_wire() for i in st.issues], "next_segment": self.next_segment,
                "file_issues": self.file_issues, "tombstones": sorted(self.tombstones), "forgotten": self.forgotten,
                "tracked": self.tracked,
                **self.redactions.meta()}
        keep = {f"segments/{n}/" for n in names} | shared.keep
        content = list(self.catalog.content.names)
        sums = {rel: info for rel, info in self.shared_sums.items()
                if any(rel.startswith(k) for k in keep) or rel.split("/", 1)[-1].split(".")[0] in content}
        generation = (self.manifest.generation + 1) if self.manifest else 1
        manifest = write_generation(self.home, generation, wal_seq, arrays, meta, self.counts(), names, content,
                                    sums)
        with self.lock:
            self.manifest = manifest
            self.catalog.compact(keys, docs)
        self.shared_sums = sums
        self.column_parts, self.checkpoint_base, self.uid_base = shared.parts, shared.checkpoints, shared.uids
        self.session_base = shared.sessions
        self.events_since_snapshot = self.frames_since_snapshot = 0
        self.forgot_since_publish = False
        self._collect_garbage()
        return self.manifest

    def _remember_sums(self, home_rel: str, paths: list[Path]) -> None:
        """Checksums of shared files just written (`home_rel`: their directory in the home)."""
        for path in paths:
            self.shared_sums[f"{home_rel}/{path.name}"] = {"size": path.stat().st_size, "crc32": file_crc(path)}

    def _publish_segments(self) -> list[str]:
        """Every segment saved (a fresh one written now); their names."""
        names = []
        for i, segment in enumerate(list(self.index.segments)):
            if not segment.name:
                directory = self._new_segment_dir()
                segment.save(directory)
                saved = Segment.load(directory)
                with self.lock:
                    self.index.segments = [*self.index.segments[:i], saved, *self.index.segments[i + 1:]]
            name = self.index.segments[i].name
            directory = self.home / "segments" / name
            self._remember_sums(f"segments/{name}",
                                [p for p in directory.iterdir() if f"segments/{name}/{p.name}" not in self.shared_sums])
            names.append(name)
        return names

    def _publish_content(self) -> None:
        """The fresh event contents written as a chunk, and read from it from now on; chunks that
        hold retired events' contents written again without them (forgetting is real: the old
        files go with the generation that used them)."""
        directory = self.home / "content"
        content = self.catalog.content
        stem = content.persist_fresh(directory)
        if stem is not None:
            with self.lock:
                content.attach(directory, stem)
            self._remember_sums("content", sorted(directory.glob(f"{stem}.*")))
        written = content.rewrite(directory)
        if written:
            with self.lock:
                content.replace(directory, written)
            for _, new in written:
                self._remember_sums("content", sorted(directory.glob(f"{new}.*")))

    def _publish_shared(self, arrays: dict[str, np.ndarray], keys: np.ndarray, docs: np.ndarray,
                        sessions: list[list[Any]], file_names: list[str]) -> _Shared:
        """What generations share, written where it changed: the growing columns' parts (taken out
        of `arrays`), the checkpoints', the uid map's and the sessions' bases (their changes added
        to `arrays` and the meta). Each writes only what was added since, or is written again
        whole once that outweighs the part already published."""
        growing = {name: arrays.pop(name) for name in GROWING}
        rows = {len(array) for array in growing.values()}
        assert len(rows) == 1, f"growing columns out of step: {rows}"
        published = self.column_parts if columns.complete(self.column_parts, self.shared_sums, GROWING) else []
        parts, part = columns.extend(published, rows.pop())
        if part is not None:
            self._remember_sums(f"{columns.DIRECTORY}/{part.dirname}", columns.write(self.home, part, growing))
        stored, checkpoints, written = checkpoint_files.publish(self.home, self.checkpoints, self.checkpoint_base)
        if written is not None:
            self._remember_sums(checkpoint_files.DIRECTORY, [written])
        uid_arrays, uid_meta, uids, uid_written = uid_files.publish(self.home, keys, docs, self.catalog.uid.size,
                                                                    self.uid_base)
        self._remember_sums(str(uids.rel), uid_written)
        arrays.update(uid_arrays)
        session_arrays, session_meta, session_base, session_written = session_files.publish(
            self.home, sessions, arrays.pop("cat.session_offsets"), arrays.pop("cat.session_docs"), file_names,
            self.session_base, whole=self.forgot_since_publish)  # a forgotten title leaves the old base
        self._remember_sums(str(session_base.rel), session_written)
        arrays.update(session_arrays)
        keep = {f"{columns.DIRECTORY}/{p.dirname}/" for p in parts} | \
            {str(checkpoints.rel), f"{uids.rel}/", f"{session_base.rel}/"}
        return _Shared({**stored, **uid_meta, **session_meta}, keep, parts, checkpoints, uids, session_base)

    def merge_all(self) -> None:
        """Seal and merge every segment into one, streamed to disk, and publish it. A publish
        comes first: the memory it frees (the fresh content) is what the merge needs. Call
        inside `writer()`."""
        self._assert_writer()
        if len(self.index.segments) + (len(self.index.mem) > 0) < 2:
            return
        if self.frames_since_snapshot or self.manifest is None:
            self._publish()
        self.index.merge_all(self._new_segment_dir, guard=self.lock)  # searches go on meanwhile
        self._publish()

    def maybe_publish(self) -> Manifest | None:
        """Publish when enough has accumulated since the last snapshot. Call inside `writer()`."""
        if self.events_since_snapshot >= self.config.store.snapshot_events:
            return self.publish()
        return None

    def counts(self) -> dict[str, int]:
        return {"events": self.stats.events, "live_events": self.live_event_count(),
                "docs": len(self.catalog.content), "searchable": self.index.n_docs,
                "sessions": self.session_count(), "segments": len(self.index.segments),
                "files": len(self.checkpoints)}

    def _check(self) -> None:
        """Assert the state's invariants (the stress tests call it after every operation)."""
        check_invariants(self)

    # -- reading ---------------------------------------------------------------------------

    def search(
        self, terms: list[str], k: int, types: list[str], scope: np.ndarray | None, deadline: float | None,
        *, exact_total: bool = True, min_match: int = 1,
    ) -> Hits:
        """Top k of the query's terms (tokenized once, by the caller: `query_terms`)."""
        if isinstance(terms, str):  # a query string would be read as its characters
            raise TypeError("Store.search takes the query's terms (query_terms), not the query")
        allowed = np.zeros(len(EVENT_TYPES), dtype=bool)
        allowed[[TYPE_CODE[t] for t in types]] = True
        c = self.catalog
        return self.index.search(
            terms, k, k1=self.config.bm25.k1, b=self.config.bm25.b, type_codes=c.type_code.view,
            allowed_types=allowed, tiebreak_ts=c.ts.view, tiebreak_uid=c.uid.view, scope=scope,
            deadline=deadline, exact_total=exact_total, min_match=min_match,
        )

    def redaction_counts(self) -> dict[str, int]:
        return self.redactions.counts(self.catalog.alive.view, self.stats.issues, self.checkpoints)


def _lock(fd: int, busy: Callable[[float], object] | None, wait: float | None = None) -> None:
    """flock(LOCK_EX) on `fd`; with `busy` or `wait`, polled (telling `busy` the seconds
    waited; WriterBusy once `wait` seconds passed)."""
    if busy is None and wait is None:
        fcntl.flock(fd, fcntl.LOCK_EX)
        return
    started = time.monotonic()
    while True:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return
        except BlockingIOError:
            waited = time.monotonic() - started
            if wait is not None and waited >= wait:
                raise WriterBusy(f"another pass has held the writer lock for {waited:.1f} s") from None
            if busy is not None:
                busy(waited)
            time.sleep(0.02 if wait is not None else 0.1)
