"""A state whose every checksum holds but which this code cannot open (what an empty first index
used to leave: `KeyError: 'uid'` from every command while `doctor` said healthy).

Every command then says the state cannot be opened and names the remedy (exit 4, no
traceback); `doctor` reports it; `doctor --repair` rebuilds the state from the logs; everything
answers again. Also: `reindex` mends such a state without needing to open it first.
"""

from __future__ import annotations

import json
import zlib
from pathlib import Path

import msgpack
from cli_harness import Workspace


def _break_meta(state: Path) -> None:
    """Drop a key every load needs from the published meta, and fix its checksum in the manifest."""
    generation = (state / "CURRENT").read_text().strip()
    meta_path = state / generation / "meta.msgpack"
    meta = msgpack.unpackb(meta_path.read_bytes(), raw=False, strict_map_key=False)
    del meta["stats"]
    data = msgpack.packb(meta, use_bin_type=True)
    meta_path.write_bytes(data)
    manifest_path = state / generation / "MANIFEST.json"
    manifest = json.loads(manifest_path.read_bytes())
    manifest["files"][f"{generation}/meta.msgpack"] = {"size": len(data), "crc32": zlib.crc32(data)}
    manifest_path.write_text(json.dumps(manifest, indent=1, sort_keys=True))


def _bricked(fresh: Workspace) -> None:
    assert fresh.run("index").returncode == 0
    _break_meta(fresh.state)
    for argv in (("status",), ("search", "migration"), ("list",), ("index",)):
        result = fresh.run(*argv)
        assert result.returncode == 4, result
        assert "cannot be opened" in result.stderr and "doctor --repair" in result.stderr, result


def test_doctor_finds_and_repairs_a_state_that_does_not_open(fresh: Workspace) -> None:
    _bricked(fresh)
    found = fresh.run("doctor", "--json")
    assert found.returncode == 4, found
    report = found.json()
    assert not report["healthy"] and any("does not open" in p for p in report["snapshot_problems"]), report
    repaired = fresh.run("doctor", "--repair", "--json")
    assert repaired.returncode == 0 and repaired.json()["ok"], repaired
    assert fresh.run("doctor").returncode == 0
    hits = fresh.run("search", "migration", "--json")
    assert hits.returncode == 0 and hits.json()["data"]["results"], hits


def test_reindex_mends_a_state_that_does_not_open(fresh: Workspace) -> None:
    _bricked(fresh)
    assert fresh.run("reindex").returncode == 0
    assert fresh.run("doctor").returncode == 0
    assert fresh.run("search", "migration", "--json").json()["data"]["results"]


def test_an_index_that_finds_nothing_leaves_a_state_the_next_index_fills(tmp_path: Path) -> None:
    from cli_harness import make_workspace

    ws = make_workspace(tmp_path / "ws", copy_logs=False)
    first = ws.run("index")
    assert first.returncode == 5 and "is ready" in first.stderr, first
    for argv in (("status",), ("list",), ("search", "migration"), ("doctor",)):
        assert ws.run(*argv).returncode == 0, argv
    typo = ws.state / "config.toml"
    typo.write_text(f'[[sources]]\nname = "codex"\nharness = "codex"\nroot = "{ws.root}/codx/sessions"\n')
    assert ws.run("index").returncode == 5  # a mistyped root: said, and nothing breaks
    assert ws.run("status").returncode == 0
    typo.unlink()
    make_workspace(tmp_path / "ws")  # the agents' logs arrive
    filled = ws.run("index", "--json")
    assert filled.returncode == 0 and filled.json()["total_events"] > 0, filled
    assert ws.run("search", "migration", "--json").json()["data"]["results"]


def _forget_one(ws: Workspace) -> str:
    """Forget the oldest session; returns its ID (it must stay forgotten through any repair that
    keeps the snapshot's meta)."""
    listed = ws.run("list", "--since", "2000-01-01", "--limit", "50", "--sort", "asc", "--json").json()
    gone = listed["data"]["sessions"][0]["id"]
    path = ws.run("open", gone, "--json").json()["data"]["log_paths"][0]
    assert ws.run("forget", path).returncode == 0
    return gone


def test_a_missing_or_damaged_current_falls_back_to_the_newest_whole_generation(fresh: Workspace) -> None:
    """CURRENT deleted, garbled or naming a path: the state opens from the newest generation whose
    manifest reads (a state opened as empty would collect every generation and read the logs again,
    forgotten sessions included); doctor says so and --repair writes CURRENT again."""
    assert fresh.run("index").returncode == 0
    gone = _forget_one(fresh)
    for damage in ("", "garbage\n", "../../..\n", None):
        current = fresh.state / "CURRENT"
        if damage is None:
            current.unlink()
        else:
            current.write_text(damage)
        assert fresh.run("status").returncode == 0
        assert fresh.run("open", gone).returncode == 1  # still forgotten
        found = fresh.run("doctor", "--json")
        assert found.returncode == 4 and "CURRENT" in (found.json()["pointer"] or ""), found
        assert fresh.run("doctor", "--repair").returncode == 0
        assert fresh.run("doctor").returncode == 0
        assert fresh.run("search", "migration", "--json").json()["data"]["results"]


def test_a_lost_or_garbled_manifest_is_rebuilt_from_the_logs(fresh: Workspace) -> None:
    for damage in ("remove", "garble"):
        assert fresh.run("index").returncode == 0
        generation = (fresh.state / "CURRENT").read_text().strip()
        manifest = fresh.state / generation / "MANIFEST.json"
        if damage == "remove":
            manifest.unlink()
        else:
            manifest.write_text('{"format": 3}')
        result = fresh.run("status")
        assert result.returncode == 4 and "doctor --repair" in result.stderr, result
        assert fresh.run("doctor").returncode == 4
        assert fresh.run("doctor", "--repair").returncode == 0
        assert fresh.run("doctor").returncode == 0
        assert fresh.run("search", "migration", "--json").json()["data"]["results"]


def _forget_one(fresh: Workspace) -> str:
    assert fresh.run("index").returncode == 0
    log = str(sorted(fresh.codex.rglob("*.jsonl"))[0])
    assert fresh.run("forget", log).returncode == 0
    assert fresh.run("snapshot").returncode == 0
    return log


def _indexed_files(fresh: Workspace) -> set[str]:
    status = fresh.run("status", "--json")
    assert status.returncode == 0, status
    return {row["path"] for rows in status.json()["files"].values() for row in rows}


def test_a_rebuild_of_a_state_that_does_not_open_keeps_what_was_forgotten(fresh: Workspace) -> None:
    """The snapshot's meta still reads (only a key every load needs is gone): the logs forgotten
    before stay forgotten after `doctor --repair` rebuilds the state from the logs."""
    log = _forget_one(fresh)
    _break_meta(fresh.state)
    assert fresh.run("doctor", "--repair").returncode == 0
    assert log not in _indexed_files(fresh) and _indexed_files(fresh)


def test_a_rebuild_that_cannot_read_what_was_forgotten_says_so(fresh: Workspace) -> None:
    """Every snapshot's meta garbled: what was forgotten cannot be known, and the rebuild says
    that forgotten sessions may come back (before, they came back silently)."""
    log = _forget_one(fresh)
    for meta in fresh.state.glob("gen-*/meta.msgpack"):
        meta.write_bytes(b"\xc1 not msgpack")
    rebuilt = fresh.run("reindex")
    assert rebuilt.returncode == 0, rebuilt
    assert "forgotten before may come back" in rebuilt.stderr, rebuilt
    assert log in _indexed_files(fresh)  # it did come back: the warning was true
