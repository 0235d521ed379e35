"""What generations share is written where it changed. The columns that only grow are published
as parts (`store.columns`): a publish writes the rows appended since the last one, the parts stay
few, what no generation references is removed. The uid map is a base plus the entries added
since (`store.uid_files`). A state published before all this (every column, the whole uid map
and every checkpoint in its generation directory: format 1) still opens, and moves to the shared
parts at its next publish."""

from __future__ import annotations

import itertools
import json
import math
import random
import shutil
from pathlib import Path
from typing import Any

import msgpack
import numpy as np
import pytest
from _agentlogs import LogWriter, populate

from moraine.durable import file_crc
from moraine.errors import StateError
from moraine.ingest.pipeline import ingest_once
from moraine.store import columns
from moraine.store.engine import Store
from moraine.store.snapshot import current_manifest
from moraine.store.state import GROWING


def test_parts_stay_few_and_each_publish_writes_one(tmp_path: Path) -> None:
    """Seeded: 400 publishes of 1 to 5,000 new rows. The parts always cover every row once, in
    order; only the last part is new; there are O(log n) of them; a row is rewritten O(log n) times."""
    rng = random.Random(7)
    parts: list[columns.Part] = []
    rows = written = 0
    for _ in range(400):
        added = rng.choice((1, 3, 40, 700, 5000))
        rows += added
        before = list(parts)
        parts, new = columns.extend(parts, rows)
        assert new is not None and new == parts[-1]
        assert parts[:-1] == before[: len(parts) - 1], "a part other than the newest changed"
        assert parts[0].first == 0 and parts[-1].end == rows
        assert all(a.end == b.first for a, b in itertools.pairwise(parts))
        assert len(parts) <= 2 * math.log2(rows) + 2, (rows, len(parts))
        written += new.rows
    assert written <= rows * (math.log2(rows) + 2), (written, rows)
    assert columns.extend(parts, rows) == (parts, None)  # nothing new: nothing written


def _state(tmp_path: Path) -> tuple[LogWriter, Store]:
    writer = LogWriter(tmp_path / "logs", seed=11, vocab_size=300)
    populate(writer, n_codex=3, n_claude=3, records_per_file=(30, 60))
    config = writer.config(tmp_path / "state", store={"fsync": "never"})
    store = Store(config)
    ingest_once(store, snapshot=True)
    return writer, store


def _add_a_little(writer: LogWriter) -> None:
    """A new session of two records: a few new events."""
    writer.extend(writer.new_claude(), 2)


def _columns_of(store: Store) -> dict[str, np.ndarray]:
    arrays = {f"cat.{n}": getattr(store.catalog, n).view.copy() for n in store.catalog.COLUMNS}
    return arrays | {"idx.doc_len": store.index.doc_len.view.copy(), "idx.live": store.index.live.view.copy()}


def _same(a: Store, b: Store) -> None:
    left, right = _columns_of(a), _columns_of(b)
    assert left.keys() == right.keys()
    for name in left:
        assert np.array_equal(left[name], right[name]), name
    assert a.catalog.snapshot_meta() == b.catalog.snapshot_meta()  # every session's record
    assert [s.docs for s in a.catalog.sessions] == [s.docs for s in b.catalog.sessions]
    for word in ("the", "migration", "error", "test"):
        hits_a = a.search([word], 20, ["user_input", "assistant_response", "tool_call", "tool_response"], None, None)
        hits_b = b.search([word], 20, ["user_input", "assistant_response", "tool_call", "tool_response"], None, None)
        assert hits_a.total == hits_b.total and list(hits_a.docs) == list(hits_b.docs), word


def test_a_publish_writes_only_the_rows_appended_since(tmp_path: Path) -> None:
    writer, store = _state(tmp_path)
    home = store.home
    manifest = current_manifest(home)
    assert manifest is not None
    gen = home / manifest.dirname
    assert not any((gen / f"{name}.npy").exists() for name in GROWING), "growing columns in the generation"
    first = store.state.column_parts
    assert len(first) == 1 and first[0].rows == len(store.catalog.content) > 300

    _add_a_little(writer)
    ingest_once(store)
    rows_before = first[0].end
    with store.writer():
        store.publish()
    parts = store.state.column_parts
    assert parts[0] == first[0], "the published part was written again"
    new = parts[-1]
    assert new.first == rows_before and 0 < new.rows < 40 < rows_before
    on_disk = sorted(p.name for p in (home / columns.DIRECTORY).iterdir())
    assert on_disk == sorted(p.dirname for p in parts)  # nothing else under columns/
    for name in GROWING:  # each part holds exactly its rows
        piece = np.load(home / columns.DIRECTORY / new.dirname / f"{name}.npy")
        assert len(piece) == new.rows

    _same(store, Store(store.config))


def test_parts_nobody_references_are_removed_on_open(tmp_path: Path) -> None:
    _writer, store = _state(tmp_path)
    root = store.home / columns.DIRECTORY
    stray = root / "0000000000-0000000009-deadbeef"  # a part written by a publish that crashed
    stray.mkdir()
    (stray / "cat.uid.npy").write_bytes(b"x")
    (root / "0000000009-0000000010-0badcafe.tmp").mkdir()
    reopened = Store(store.config)
    assert sorted(p.name for p in root.iterdir()) == [p.dirname for p in reopened.state.column_parts]
    _same(store, reopened)


def _write_manifest(home: Path, gen: Path, raw: dict[str, Any], files: dict[str, Any], fmt: int) -> None:
    """The generation's manifest with `files` and the sums of every file now in `gen`, as format `fmt`."""
    for path in gen.iterdir():
        if path.name != "MANIFEST.json":
            files[f"{gen.name}/{path.name}"] = {"size": path.stat().st_size, "crc32": file_crc(path)}
    raw["files"], raw["format"] = files, fmt
    (gen / "MANIFEST.json").write_text(json.dumps(raw))
    (home / "verified.json").unlink(missing_ok=True)


def _sessions_whole(store: Store, gen: Path, meta: dict[str, Any]) -> None:
    """The sessions as generations before `store.session_files` stored them: every record in the
    meta, every doc list in the generation (writes the meta)."""
    arrays = store.catalog.snapshot_arrays()
    np.save(gen / "cat.session_offsets.npy", arrays["session_offsets"])
    np.save(gen / "cat.session_docs.npy", arrays["session_docs"])
    for name in ("cat.sessions_changed", "cat.sessions_changed_offsets", "cat.sessions_changed_docs"):
        (gen / f"{name}.npy").unlink()
    meta["catalog"]["sessions"] = store.catalog.snapshot_meta()["sessions"]
    meta["catalog"]["file_names"] = store.catalog.file_names
    del meta["sessions_base"], meta["sessions_changed"], meta["file_names_since"]
    (gen / "meta.msgpack").write_bytes(msgpack.packb(meta, use_bin_type=True))


def _as_format_1(store: Store) -> None:
    """Rewrite the published generation as versions before shared parts wrote it: every column,
    the whole uid map and every checkpoint in the generation directory, no columns/, uids/ or
    checkpoints/, manifest format 1."""
    home = store.home
    manifest = current_manifest(home)
    assert manifest is not None
    gen = home / manifest.dirname
    parts = columns.published(manifest.files)
    whole = {name: np.concatenate([np.asarray(p) for p in pieces])
             for name, pieces in columns.read(home, parts, GROWING).items()}
    whole["cat.uid_keys"], whole["cat.uid_docs"] = store.catalog.by_uid.compacted()
    for name in ("cat.uid_new_keys", "cat.uid_new_docs"):
        (gen / f"{name}.npy").unlink()
    for name, array in whole.items():
        np.save(gen / f"{name}.npy", array)
    meta = msgpack.unpackb((gen / "meta.msgpack").read_bytes(), raw=False, strict_map_key=False)
    for key in ("checkpoints_base", "checkpoints_gone", "uid_base"):
        del meta[key]
    meta["checkpoints"] = {path: cp.packed() for path, cp in store.checkpoints.items()}
    _sessions_whole(store, gen, meta)
    for directory in ("columns", "uids", "checkpoints", "sessions"):
        shutil.rmtree(home / directory)
    raw = json.loads((gen / "MANIFEST.json").read_text())
    files = {rel: info for rel, info in raw["files"].items() if not rel.startswith(("columns/", "uids/",
                                                                                    "checkpoints/", "sessions/",
                                                                                    "gen-"))}
    _write_manifest(home, gen, raw, files, 1)


def test_a_format_1_generation_opens_and_moves_to_parts(tmp_path: Path) -> None:
    writer, store = _state(tmp_path)
    _as_format_1(store)
    old = Store(store.config)
    assert old.state.column_parts == []
    _same(store, old)
    _add_a_little(writer)
    ingest_once(old)
    with old.writer():
        old.publish()  # the first publish writes every row once, as one part
    assert len(old.state.column_parts) == 1 and old.state.column_parts[0].end == len(old.catalog.content)
    manifest = current_manifest(old.home)
    assert manifest is not None
    assert not any((old.home / manifest.dirname / f"{name}.npy").exists() for name in GROWING)
    _same(old, Store(old.config))


def test_the_uid_map_is_a_base_plus_the_entries_since(tmp_path: Path) -> None:
    """A publish stores the uid map's entries of the docs appended since its base; retired docs drop
    out of the map when it opens; a new base is written once the entries since outweigh a quarter."""
    writer, store = _state(tmp_path)
    manifest = current_manifest(store.home)
    assert manifest is not None
    base = store.state.uid_base
    assert base.rel is not None and base.entries == len(store.catalog.by_uid) and base.rows == store.catalog.uid.size
    _add_a_little(writer)
    ingest_once(store)
    with store.writer():
        assert store.forget([next(iter(store.checkpoints))]) > 0  # docs below the base's rows retired
        store.publish()
    assert store.state.uid_base == base
    manifest = current_manifest(store.home)
    assert manifest is not None
    added = np.load(store.home / manifest.dirname / "cat.uid_new_docs.npy")
    assert len(added) and added.min() >= base.rows
    reopened = Store(store.config)
    assert reopened.catalog.by_uid.compacted()[1].tolist() == store.catalog.by_uid.compacted()[1].tolist()
    for doc in range(store.catalog.uid.size):
        uid = store.catalog.uid.view[doc].decode("ascii")
        assert reopened.catalog.by_uid.get(uid) == (doc if store.catalog.alive.view[doc] else None)
    for _ in range(6):  # grow past a quarter of the base: written again
        writer.extend(writer.new_codex(), 30)
    ingest_once(store)
    with store.writer():
        store.publish()
    assert store.state.uid_base != base and store.state.uid_base.rows == store.catalog.uid.size
    assert sorted(p.name for p in (store.home / "uids").iterdir()) == [str(store.state.uid_base.rel).split("/")[1]]
    _same(store, Store(store.config))


def test_booleans_are_packed_and_nlines_is_a_part(tmp_path: Path) -> None:
    """Format 3: `alive` and `live`, rewritten at every publish, are packed 8 to a byte; `nlines`
    grows with the other columns, so a publish no longer writes it whole."""
    _writer, store = _state(tmp_path)
    manifest = current_manifest(store.home)
    assert manifest is not None and manifest.format == 3
    gen = store.home / manifest.dirname
    rows = len(store.catalog.content)
    for name in ("cat.alive", "idx.live"):
        assert not (gen / f"{name}.npy").exists()
        assert len(np.load(gen / f"{name}.bits.npy")) == (rows + 7) // 8
    assert not (gen / "cat.nlines.npy").exists()
    assert "cat.nlines" in GROWING
    _same(store, Store(store.config))


def _as_format_2(store: Store) -> None:
    """Rewrite the published generation as format 2 wrote it: `nlines` whole in the generation
    and in no part, `alive` and `live` unpacked, the sessions whole."""
    home = store.home
    manifest = current_manifest(home)
    assert manifest is not None
    gen = home / manifest.dirname
    raw = json.loads((gen / "MANIFEST.json").read_text())
    for part in columns.published(manifest.files):
        (home / columns.DIRECTORY / part.dirname / "cat.nlines.npy").unlink()
        del raw["files"][f"{columns.DIRECTORY}/{part.dirname}/cat.nlines.npy"]
    np.save(gen / "cat.nlines.npy", store.catalog.nlines.view)
    meta = msgpack.unpackb((gen / "meta.msgpack").read_bytes(), raw=False, strict_map_key=False)
    for name in meta.pop("bits"):
        np.save(gen / f"{name}.npy", np.unpackbits(np.load(gen / f"{name}.bits.npy"),
                                                  count=len(store.catalog.content)).astype(np.bool_))
        (gen / f"{name}.bits.npy").unlink()
        del raw["files"][f"{manifest.dirname}/{name}.bits.npy"]
    _sessions_whole(store, gen, meta)
    shutil.rmtree(home / "sessions")
    raw["files"] = {rel: info for rel, info in raw["files"].items()
                    if not rel.startswith(("sessions/", f"{manifest.dirname}/cat.sessions_changed"))}
    _write_manifest(home, gen, raw, raw["files"], 2)


def test_a_format_2_generation_opens_and_moves_nlines_to_parts(tmp_path: Path) -> None:
    writer, store = _state(tmp_path)
    _as_format_2(store)
    old = Store(store.config)
    _same(store, old)
    old._check()
    _add_a_little(writer)
    ingest_once(old)
    with old.writer():
        old.publish()  # the parts lacked nlines: every row is written again, as one part
    assert len(old.state.column_parts) == 1 and old.state.column_parts[0].end == len(old.catalog.content)
    piece = np.load(old.home / columns.DIRECTORY / old.state.column_parts[0].dirname / "cat.nlines.npy")
    assert np.array_equal(piece, old.catalog.nlines.view) and (piece >= 0).all()
    old._check()
    reopened = Store(old.config)
    _same(old, reopened)
    reopened._check()


def test_packed_booleans_of_the_wrong_length_are_refused(tmp_path: Path) -> None:
    _writer, store = _state(tmp_path)
    manifest = current_manifest(store.home)
    assert manifest is not None
    gen = store.home / manifest.dirname
    np.save(gen / "idx.live.bits.npy", np.zeros(3, dtype=np.uint8))
    raw = json.loads((gen / "MANIFEST.json").read_text())
    path = gen / "idx.live.bits.npy"
    raw["files"][f"{manifest.dirname}/idx.live.bits.npy"] = {"size": path.stat().st_size, "crc32": file_crc(path)}
    (gen / "MANIFEST.json").write_text(json.dumps(raw))
    (store.home / "verified.json").unlink(missing_ok=True)
    with pytest.raises(StateError, match="bits"):
        Store(store.config)


def test_a_publish_stores_only_the_sessions_that_changed(tmp_path: Path) -> None:
    """`store.session_files`: a new session of a few events is all a publish stores of the
    sessions; the others come from the base, and a reopened store holds every one as it was."""
    writer, store = _state(tmp_path)
    base = store.state.session_base
    assert base.rel is not None and len(base.packed) == len(store.catalog.sessions)
    _add_a_little(writer)
    ingest_once(store)
    with store.writer():
        store.publish()
    assert store.state.session_base is base
    manifest = current_manifest(store.home)
    assert manifest is not None
    gen = store.home / manifest.dirname
    assert np.load(gen / "cat.sessions_changed.npy").tolist() == [len(store.catalog.sessions) - 1]
    assert not (gen / "cat.session_docs.npy").exists()
    meta = msgpack.unpackb((gen / "meta.msgpack").read_bytes(), raw=False, strict_map_key=False)
    assert "file_names" not in meta["catalog"] and meta["file_names_since"] == store.catalog.file_names[-1:]
    reopened = Store(store.config)
    _same(store, reopened)
    reopened._check()
