"""Checkpoints as a snapshot stores them."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import msgpack
import pytest

from moraine.config import load_config
from moraine.ingest.pipeline import ingest_once
from moraine.model import Checkpoint
from moraine.store.engine import Store
from moraine.store.snapshot import current_manifest


def test_a_checkpoint_packed_for_a_snapshot_keeps_its_packed_state() -> None:
    """Every publish stores every checkpoint: the packed state is kept, unpacked again (equal)
    on first use, and packed again only after that."""
    state = {"sid": "x", "calls": {"c1": ["shell", False]}, "n": 3}
    checkpoint = Checkpoint("codex", 5, 100, 2, 90, 7, dict(state))
    first = checkpoint.packed()
    assert isinstance(checkpoint.state, bytes) and checkpoint.packed() == first
    assert Checkpoint.from_wire(first).adapter_state() == state
    assert checkpoint.adapter_state() == state and isinstance(checkpoint.state, dict)
    checkpoint.adapter_state()["n"] = 4
    assert Checkpoint.from_wire(checkpoint.packed()).adapter_state() == {**state, "n": 4}


# -- published as a shared base plus each generation's changes (store/checkpoint_files.py) ----


def _codex_line(i: int) -> str:
    payload = {"type": "function_call", "name": "shell", "call_id": f"call_{i}", "arguments": "{\"cmd\": \"ls\"}"}
    return json.dumps({"timestamp": f"2026-03-01T10:00:{i % 60:02d}.000Z", "type": "response_item",
                       "payload": payload}) + "\n"


def _logs(tmp_path: Path, n: int) -> tuple[Path, list[Path]]:
    root = tmp_path / "codex" / "sessions" / "2026" / "03" / "01"
    root.mkdir(parents=True)
    paths = []
    for f in range(n):
        path = root / f"rollout-2026-03-01T10-00-00-0195a1b2-0000-7000-8000-{f:012d}.jsonl"
        path.write_text("".join(_codex_line(i) for i in range(3)))
        paths.append(path)
    return tmp_path / "codex", paths


def _store(tmp_path: Path) -> Store:
    env = {"CODEX_HOME": str(tmp_path / "codex"), "CLAUDE_CONFIG_DIR": str(tmp_path / "claude")}
    return Store(load_config({"home": str(tmp_path / "state"), "store": {"fsync": "never"}}, env=env))


def _meta(store: Store) -> dict:
    manifest = current_manifest(store.home)
    assert manifest is not None
    return msgpack.unpackb((store.home / manifest.dirname / "meta.msgpack").read_bytes(), raw=False,
                           strict_map_key=False)


def _wire(checkpoints: dict[str, Checkpoint]) -> dict[str, list]:
    """Each checkpoint's fields with its state unpacked (equal however it is held)."""
    rows = {path: Checkpoint.from_wire(cp.packed()) for path, cp in checkpoints.items()}
    return {path: [*cp.to_wire()[:6], cp.adapter_state()] for path, cp in rows.items()}


def test_a_publish_stores_the_checkpoints_changed_since_the_base(tmp_path: Path) -> None:
    """A publish after a few logs grew stores only their checkpoints; a new base is written once the
    changes outweigh a quarter of it; a reopened state holds every checkpoint as it was."""
    _root, paths = _logs(tmp_path, 40)
    store = _store(tmp_path)
    ingest_once(store, snapshot=True)
    meta = _meta(store)
    base = meta["checkpoints_base"]
    assert (store.home / base).is_file() and meta["checkpoints"] == {} and meta["checkpoints_gone"] == []
    for round_, path in enumerate(paths[:3]):  # one log grows per publish
        with path.open("a") as fh:
            fh.write(_codex_line(10 + round_))
        ingest_once(store)
        with store.writer():
            store.publish()
        meta = _meta(store)
        assert meta["checkpoints_base"] == base
        assert sorted(meta["checkpoints"]) == sorted(str(p) for p in paths[: round_ + 1])
        assert _wire(_store(tmp_path).checkpoints) == _wire(store.checkpoints)
    paths[0].unlink()  # a forgotten log (`moraine forget`): named gone, not stored
    with store.writer():
        store.forget([str(paths[0])])
        store.publish()
    meta = _meta(store)
    assert meta["checkpoints_gone"] == [str(paths[0])] and str(paths[0]) not in meta["checkpoints"]
    assert _wire(_store(tmp_path).checkpoints) == _wire(store.checkpoints)
    for path in paths[1:]:  # every log grows: the changes outweigh the base
        with path.open("a") as fh:
            fh.write(_codex_line(30))
    ingest_once(store)
    with store.writer():
        store.publish()
    meta = _meta(store)
    assert meta["checkpoints_base"] != base and meta["checkpoints"] == {}
    assert sorted(p.name for p in (store.home / "checkpoints").iterdir()) == [meta["checkpoints_base"].split("/")[1]]
    assert _wire(_store(tmp_path).checkpoints) == _wire(store.checkpoints)


def test_reading_a_log_further_leaves_its_stored_checkpoint_alone(tmp_path: Path,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    """Why: the parse of a pass must not change the checkpoint the state holds (the adapter's state
    of what was read before): until its frame commits, that checkpoint is what a publish stores
    and where an aborted pass starts again; and the publish tells a changed checkpoint by its being
    a new object (store/checkpoint_files.py). Read in this process (no worker pool), the parse and the
    state live side by side."""
    _root, paths = _logs(tmp_path, 1)
    store = _store(tmp_path)
    ingest_once(store, parallel=False)
    key = str(paths[0])
    before = copy.deepcopy(store.checkpoints[key].adapter_state())
    at_commit = []
    commit = store.commit

    def spy(*args: object, **kwargs: object) -> object:
        at_commit.append(copy.deepcopy(store.checkpoints[key].adapter_state()))
        return commit(*args, **kwargs)

    monkeypatch.setattr(store, "commit", spy)
    with paths[0].open("a") as fh:
        fh.write(_codex_line(50))
    ingest_once(store, parallel=False)
    assert at_commit and at_commit[0] == before
    assert "call_50" in json.dumps(store.checkpoints[key].adapter_state())  # and the commit moved it on
