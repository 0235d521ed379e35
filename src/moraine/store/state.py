"""The in-memory state: what the published generation and the WAL frames after it hold.

One object, so that a load builds a whole new one beside the state readers are using and the
Store swaps it in at once (`Store._reload_aside`): nothing of an old load can outlive a swap
because a field was forgotten. The jobs that work on it live apart: applying a frame
(`store.apply`), publishing a generation (`store.publish`), reading (`store.reading`); the Store
(`store.engine`) owns the WAL, the writer lock and the state object itself.
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import Any

import numpy as np

from moraine.index.searcher import InvertedIndex
from moraine.index.segment import Segment
from moraine.model import Checkpoint, IngestIssue
from moraine.store import checkpoint_files, columns, session_files, uid_files
from moraine.store.catalog import Catalog
from moraine.store.redactions import Redactions
from moraine.store.snapshot import Manifest, read_generation
from moraine.store.wal import Position

# the columns published as parts shared by generations (`store.columns`), by their names there
GROWING = (*(f"cat.{name}" for name in Catalog.GROWING), "idx.doc_len")


@dataclass
class StoreStats:
    frames: int = 0
    events: int = 0
    issues: list[IngestIssue] = field(default_factory=list)
    last_ingest_ms: int = 0
    torn_bytes: int = 0
    last_by_source: dict[str, int] = field(default_factory=dict)  # harness → last frame that read its logs

    def meta(self) -> dict[str, Any]:
        """The counters as a generation's meta holds them (the issues apart, under "issues")."""
        return {"frames": self.frames, "events": self.events, "last_ingest_ms": self.last_ingest_ms,
                "torn_bytes": self.torn_bytes, "last_by_source": self.last_by_source}

    @classmethod
    def from_meta(cls, meta: dict[str, Any]) -> StoreStats:
        st = meta["stats"]
        return cls(st["frames"], st["events"], [IngestIssue.from_wire(r) for r in meta["issues"]],
                   st["last_ingest_ms"], st["torn_bytes"], dict(st.get("last_by_source", {})))


class State:
    """Catalog, index, checkpoints and counters, and where they stand: the WAL position read up
    to, the generation they were loaded from, and the published parts a next publish extends."""

    def __init__(self, bm25: tuple[float, float], kernel: ModuleType | None) -> None:
        self.catalog = Catalog()
        self.index = InvertedIndex(bm25)
        self.index.kernel = kernel
        self.checkpoints: dict[str, Checkpoint] = {}
        self.stats = StoreStats()
        self.manifest: Manifest | None = None
        self.shared_sums: dict[str, dict[str, int]] = {}  # checksums of written segments and chunks
        self.next_segment = 1
        self.events_since_snapshot = 0
        self.frames_since_snapshot = 0
        self.issue_keys: set[tuple[str, int, int, int]] = set()
        self.file_issues: dict[str, str] = {}  # log (key or display name) → why it cannot be read now
        self.tombstones: set[str] = set()  # session keys forgotten by retention: never indexed again
        self.forgotten: dict[str, int] = {}  # logs forgotten on purpose → their inode (0: any): not read again
        self.forgot_since_publish = False  # sessions or logs forgotten since the last publish
        self.tracked: list[list[Any]] = []  # explicit prompt → input observations (track_input_event)
        self.redactions = Redactions()
        self.position: Position = (0, 0)  # the WAL read up to: (file's sequence number, byte offset)
        self.column_parts: list[columns.Part] = []  # where the published growing columns are
        self.checkpoint_base = checkpoint_files.Base()  # the published checkpoints' shared part
        self.uid_base = uid_files.Base()  # the published uid map's shared part
        self.session_base = session_files.Base()  # the published sessions' shared part

    def restore(self, home: Path, manifest: Manifest) -> None:
        """Take in a published generation: its arrays mapped, not re-read."""
        arrays, meta = read_generation(home, manifest)
        parts = columns.published(manifest.files)
        sources: dict[str, columns.Source] = {**arrays, **columns.pieces(home, parts, GROWING)}
        uids = uid_files.load(home, meta, arrays, np.asarray(arrays["cat.alive"]))
        if uids is not None:
            sources["cat.uid_keys"], sources["cat.uid_docs"], self.uid_base = uids
        sessions = session_files.load(home, meta, arrays)
        if sessions is not None:
            meta["catalog"]["sessions"], self.session_base = sessions.records, sessions.base
            sources["cat.session_offsets"], sources["cat.session_docs"] = sessions.offsets, sessions.docs
            if sessions.names is not None:
                meta["catalog"]["file_names"] = sessions.names
        self.catalog.restore({k[4:]: v for k, v in sources.items() if k.startswith("cat.")}, meta["catalog"])
        for stem in manifest.content:
            self.catalog.content.attach(home / "content", stem)
        segments = [Segment.load(home / "segments" / name) for name in manifest.segments]
        rows = columns.row_count(sources["idx.live"])
        self.index.restore({"live": arrays["idx.live"],
                            "doc_len": columns.assembled(sources.get("idx.doc_len"), rows, np.int32)}, segments)
        self.column_parts = parts
        self.checkpoints, self.checkpoint_base = checkpoint_files.load(home, meta)
        self.stats = StoreStats.from_meta(meta)
        self.next_segment = meta["next_segment"]
        self.issue_keys = {(i.file, i.generation, i.line, i.offset) for i in self.stats.issues}
        self.file_issues = dict(meta.get("file_issues", {}))
        self.tombstones = set(meta.get("tombstones", ()))
        self.forgotten = dict(meta.get("forgotten", {}))
        self.tracked = list(meta.get("tracked", ()))
        self.redactions = Redactions.from_meta(meta)
        self.manifest = manifest
        self.shared_sums = {rel: info for rel, info in manifest.files.items() if not rel.startswith("gen-")}

    def meta(self) -> dict[str, Any]:
        """What a generation's meta holds of this state besides the catalog and the shared parts."""
        return {"stats": self.stats.meta(), "issues": [i.to_wire() for i in self.stats.issues],
                "next_segment": self.next_segment, "file_issues": self.file_issues,
                "tombstones": sorted(self.tombstones), "forgotten": self.forgotten, "tracked": self.tracked,
                **self.redactions.meta()}

    def counts(self) -> dict[str, int]:
        """What a generation's manifest records of its size (and `moraine status` shows)."""
        return {"events": self.stats.events, "live_events": int(np.count_nonzero(self.catalog.alive.view)),
                "docs": len(self.catalog.content), "searchable": self.index.n_docs,
                "sessions": len(self.catalog.by_updated), "segments": len(self.index.segments),
                "files": len(self.checkpoints)}

    def new_segment_dir(self, home: Path) -> Path:
        """A fresh segment's directory, named uniquely across states (a restore brings others')."""
        name = f"seg-{self.next_segment:08d}-{secrets.token_hex(4)}"
        self.next_segment += 1
        return home / "segments" / name
