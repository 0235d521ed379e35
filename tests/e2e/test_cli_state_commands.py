"""State commands end to end: snapshot, restore, doctor, reindex, forget and `status --json`.

These commands exist to keep a user's index trustworthy when something goes wrong (a backup is
needed, a disk flips a bit, a crash tears the WAL, a log is deleted). Each test drives the real
console script over a copy of data_samples and judges the state only through what the CLI answers
(search, open, status), plus the on-disk contract a snapshot copy promises (sizes and CRC32s).
"""

from __future__ import annotations

import fcntl
import gc
import json
import os
import shutil
import signal
import struct
import subprocess
import sys
import time
import zlib
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from cli_harness import (
    MORAINE,
    ORACLE,
    Result,
    Workspace,
    make_workspace,
    oracle_event_count,
    oracle_file,
    oracle_malformed,
    oracle_sessions,
)

# A word no sample contains: what a turn appended to a log adds, and nothing else.
WORD = "quixoticallyzebrine"
# Many small WAL frames and no automatic snapshot, so the WAL holds the whole history.
SMALL_FRAMES = {"MORAINE_INGEST_BATCH_EVENTS": "5", "MORAINE_STORE_SNAPSHOT_EVENTS": "100000000"}
WAL_HEADER = 16
FRAME = struct.Struct("<II")

# -- helpers -------------------------------------------------------------------------------------


Job = tuple[Workspace, Sequence[str]]


def run_parallel(jobs: Sequence[Job]) -> list[Result]:
    """Independent invocations at once (a CLI start costs ~1 s; the store's lock serialises writers)."""
    with ThreadPoolExecutor(max_workers=4) as pool:
        return list(pool.map(lambda job: job[0].run(*job[1]), jobs))


def ok(result: Result) -> Any:
    """The JSON of a successful invocation."""
    assert result.returncode == 0, result
    return result.json()


def answer(result: Result) -> dict[str, Any]:
    """A tool envelope without its timing: what must be identical between two equivalent states."""
    data = ok(result)
    data.pop("performance", None)
    return data


def counts(status: dict[str, Any]) -> dict[str, Any]:
    """What `status --json` says about the indexed content (not where it lives or when it was written)."""
    keys = ("events", "live_events", "sessions", "searchable_documents", "sources", "files", "quarantined")
    return {key: status[key] for key in keys}


def hits(result: Result) -> list[tuple[str, str, str]]:
    """What a search found, without scores (BM25 statistics change when other events come or go)."""
    return sorted((h["id"], json.dumps(h["session"], sort_keys=True), h["snippet"]["text"])
                  for h in ok(result)["data"]["results"])


def search_ids(result: Result) -> list[str]:
    return [hit["id"] for hit in ok(result)["data"]["results"]]


def manifest_of(home: Path) -> dict[str, Any]:
    name = (home / "CURRENT").read_text().strip()
    return json.loads((home / name / "MANIFEST.json").read_bytes())


def flip_byte(path: Path, at: int | None = None) -> None:
    """Silent corruption: one byte changes, the size does not."""
    data = bytearray(path.read_bytes())
    index = len(data) // 2 if at is None else at
    data[index] ^= 0xFF
    path.write_bytes(bytes(data))


def wal_frames(path: Path) -> list[tuple[int, int]]:
    """(offset, end) of every whole frame of a WAL file, parsed from the documented format."""
    data = path.read_bytes()
    assert data[:8] == b"MORAINEW", path
    frames, offset = [], WAL_HEADER
    while offset + FRAME.size <= len(data):
        length, crc = FRAME.unpack_from(data, offset)
        end = offset + FRAME.size + length
        if end > len(data) or zlib.crc32(data[offset + FRAME.size : end]) != crc:
            break
        frames.append((offset, end))
        offset = end
    return frames


def newest_wal(home: Path) -> Path:
    return sorted((home / "wal").glob("*.log"))[-1]


def codex_turn(word: str) -> str:
    """One complete Codex turn (prompt, reply, terminal) whose text contains `word`."""
    ts = ["2026-03-14T10:00:00.000Z", "2026-03-14T10:00:00.050Z", "2026-03-14T10:00:05.000Z",
          "2026-03-14T10:00:05.100Z"]
    prompt, reply = f"What is the {word} cache flag?", f"The {word} flag turns the warm cache off."
    records = [
        {"timestamp": ts[0], "type": "event_msg", "payload": {"type": "task_started", "turn_id": "state-turn-3"}},
        {"timestamp": ts[1], "type": "response_item",
         "payload": {"type": "message", "role": "user", "content": [{"type": "input_text", "text": prompt}]}},
        {"timestamp": ts[2], "type": "response_item",
         "payload": {"type": "message", "role": "assistant", "phase": "final_answer",
                     "content": [{"type": "output_text", "text": reply}]}},
        {"timestamp": ts[3], "type": "event_msg",
         "payload": {"type": "task_complete", "turn_id": "state-turn-3", "last_agent_message": reply}},
    ]
    return "".join(json.dumps(r, separators=(",", ":")) + "\n" for r in records)


def append_turn(ws: Workspace) -> None:
    path = ws.sample_path(oracle_file("codex-normal")["path"])
    assert path.read_bytes().endswith(b"\n")
    with path.open("a", encoding="utf-8") as fh:
        fh.write(codex_turn(WORD))


def twin(ws: Workspace, state: Path) -> Workspace:
    """Another state directory over the same logs (a copy, or a clean index to compare with)."""
    return Workspace(root=ws.root, codex=ws.codex, claude=ws.claude, state=state)


@contextmanager
def daemon_lock(home: Path) -> Iterator[None]:
    """Hold `run/daemon.lock` as a running daemon would (flock on our own open file description)."""
    path = home / "run" / "daemon.lock"
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        yield
    finally:
        fcntl.flock(fd, fcntl.LOCK_UN)
        os.close(fd)
        shutil.rmtree(path.parent)


def live_uids(ws: Workspace) -> set[str]:
    """Every live event uid, read through the Python Store (the process umask and GC are put back)."""
    from moraine.config import load_config
    from moraine.store.engine import Store

    mask = os.umask(0o022)
    os.umask(mask)
    try:
        store = Store(load_config(env=ws.env()), create=False)
        catalog = store.catalog
        uids = {uid.decode("ascii") for uid in catalog.uid.view[catalog.alive.view].tolist()}
        del store, catalog
    finally:
        os.umask(mask)
        gc.unfreeze()
    return uids


# -- a shared, indexed workspace with a snapshot copy (read-only tests) ---------------------------


@dataclass
class Snap:
    ws: Workspace
    out: Path
    made: dict[str, Any]
    interrupted_id: str  # the session of codex-interrupted (IDs do not depend on where the logs are)
    migration: Result  # `search migration --json` (answers do not depend on where the logs are either)


@pytest.fixture(scope="module")
def snap(tmp_path_factory: pytest.TempPathFactory) -> Snap:
    """An indexed workspace and a `snapshot --out` copy of its state; tests must leave both as they are."""
    ws = make_workspace(tmp_path_factory.mktemp("snap"))
    assert ws.run("index").returncode == 0
    out = ws.root / "backup"
    made = ok(ws.run("snapshot", "--out", str(out), "--json"))
    forever, migration = run_parallel([(ws, ["search", "forever", "--json"]),
                                       (ws, ["search", "migration", "--json"])])
    found = ok(forever)["data"]["results"]
    assert found[0]["session"]["title"] == oracle_file("codex-interrupted")["session"]["title"]
    assert search_ids(migration), "the probe query must find something"
    return Snap(ws, out, made, found[0]["open"]["session_id"], migration)


# -- a missing state dir, argument errors ---------------------------------------------------------


def test_state_commands_on_a_missing_state_exit_4(fresh: Workspace) -> None:
    """Admin commands must not invent an empty state (a typo in MORAINE_HOME would look like data loss)."""
    argvs = [["status", "--json"], ["snapshot", "--out", str(fresh.root / "out")], ["doctor", "--json"],
             ["forget", "--missing"]]
    for result in run_parallel([(fresh, a) for a in argvs]):
        assert result.returncode == 4, result
        assert result.stdout == "", result
        assert result.stderr.startswith("moraine: ") and "no Moraine state" in result.stderr, result
        assert str(fresh.state) in result.stderr, result
    assert not fresh.state.exists(), "no command may create the state directory it found missing"
    assert not (fresh.root / "out").exists()


def test_forget_without_arguments_is_a_usage_error(fresh: Workspace) -> None:
    """`forget` alone might be read as "forget everything": it must ask instead of guessing."""
    result = fresh.run("forget")
    assert result.returncode == 2, result
    assert result.stdout == "" and "--missing" in result.stderr, result
    assert not fresh.state.exists()


def test_forget_an_unknown_log_is_refused_by_name(snap: Snap) -> None:
    """A mistyped path must be reported, not silently ignored (the user would think it was forgotten)."""
    before = snap.ws.state_bytes()
    result = snap.ws.run("forget", "/not/a/known/log", "--json")
    assert result.returncode == 1, result
    assert result.stdout == ""
    assert "/not/a/known/log" in result.stderr and "not a log Moraine has read" in result.stderr, result
    assert snap.ws.state_bytes() == before, "a refused forget must not touch the state"


# -- status and doctor on a healthy state --------------------------------------------------------


def test_status_json_and_doctor_on_a_healthy_state(snap: Snap) -> None:
    """`status --json` is how a user (or a script) sees what the state holds; doctor must not cry wolf."""
    ws = snap.ws
    status, doctor_json, doctor_text = run_parallel(
        [(ws, ["status", "--json"]), (ws, ["doctor", "--json"]), (ws, ["doctor"])])
    report = ok(status)
    manifest = manifest_of(ws.state)
    wal_files = list((ws.state / "wal").glob("*.log"))
    assert report["generation"] == manifest["generation"] >= 1
    assert report["segments"] == len(manifest["segments"]) >= 1
    assert report["wal_files"] == len(wal_files) >= 1
    assert report["wal_bytes"] == sum(p.stat().st_size for p in wal_files) >= WAL_HEADER
    assert report["live_events"] == report["events"] == oracle_event_count()
    listed = {entry["path"]: entry for entries in report["files"].values() for entry in entries}
    assert set(listed) == {str(ws.sample_path(f["path"])) for f in ORACLE["files"]}
    assert all(entry["exists"] is True for entry in listed.values())
    got = sorted((i["file"], i["line"], i["offset"]) for i in report["quarantined"])
    assert got == sorted((str(ws.sample_path(p)), line, off) for p, line, off in oracle_malformed())
    assert len(got) == 2 and all(i["reason"] for i in report["quarantined"])

    health = ok(doctor_json)
    assert health["healthy"] is True and health["ok"] is True, health
    assert health["snapshot_problems"] == [] and health["missing_wal"] == [] and health["repaired"] == []
    assert health["generation"] == manifest["generation"]
    assert all(not w["damaged"] and w["torn_bytes"] == 0 for w in health["wal"])
    assert doctor_text.returncode == 0, doctor_text
    assert doctor_text.stdout.splitlines()[0] == f"Moraine state at {ws.state}: healthy"


# -- snapshot --out ------------------------------------------------------------------------------


def test_snapshot_copy_matches_its_manifest(snap: Snap) -> None:
    """A backup is only worth keeping if it can be checked: every listed file has its size and CRC32."""
    manifest = manifest_of(snap.out)
    assert snap.made["generation"] == manifest["generation"] == manifest_of(snap.ws.state)["generation"], \
        "nothing changed since `index` published, so no new generation"
    assert snap.made["events"] == oracle_event_count()
    assert snap.made["sessions"] == len(oracle_sessions())
    assert Path(snap.made["path"]) == snap.out
    files = manifest["files"]
    assert any(rel.startswith("segments/") for rel in files) and any(rel.startswith("content/") for rel in files)
    for rel, info in files.items():
        data = (snap.out / rel).read_bytes()
        assert len(data) == info["size"], rel
        assert zlib.crc32(data) == info["crc32"], rel
    wal = snap.out / "wal" / f"{manifest['wal']['seq']:08d}.log"
    assert wal.read_bytes()[:8] == b"MORAINEW" and wal.stat().st_size == WAL_HEADER
    copied = sorted(str(p.relative_to(snap.out)) for p in snap.out.rglob("*") if p.is_file())
    name = (snap.out / "CURRENT").read_text().strip()
    assert copied == sorted([*files, f"{name}/MANIFEST.json", "CURRENT", str(wal.relative_to(snap.out))])
    assert snap.made["files"] == len(copied)
    assert snap.made["bytes"] == sum((snap.out / rel).stat().st_size for rel in copied)


def test_snapshot_copy_answers_like_the_original(snap: Snap, tmp_path: Path) -> None:
    """The copy is a whole state on its own: search, open and status over it answer exactly as the original."""
    copy = tmp_path / "copy"
    shutil.copytree(snap.out, copy)  # commands may write to their state: keep the backup pristine
    other = twin(snap.ws, copy)
    argvs = [["open", snap.interrupted_id, "--json"], ["status", "--json"], ["search", "migration", "--json"]]
    opened, status, *copied = run_parallel([(snap.ws, a) for a in argvs[:2]] + [(other, a) for a in argvs])
    assert answer(copied[0]) == answer(opened)
    assert answer(copied[2]) == answer(snap.migration)
    status_a, status_b = ok(status), ok(copied[1])
    assert Path(status_b.pop("home")) == copy
    status_a.pop("home")
    assert status_a == status_b


def test_snapshot_into_a_non_empty_directory_is_refused(snap: Snap, tmp_path: Path) -> None:
    """Copying over an unrelated directory could mix two states or destroy a user's files."""
    target = tmp_path / "busy"
    target.mkdir()
    (target / "keep.txt").write_text("mine")
    result = snap.ws.run("snapshot", "--out", str(target), "--json")
    assert result.returncode == 4, result
    assert str(target) in result.stderr and "not empty" in result.stderr, result
    assert [p.name for p in target.iterdir()] == ["keep.txt"] and (target / "keep.txt").read_text() == "mine"


# -- restore -------------------------------------------------------------------------------------


def _damaged_copy(src: Path, dst: Path, pick: Callable[[str], bool], damage: Callable[[Path], None]) -> str:
    shutil.copytree(src, dst)
    rel = next(r for r in sorted(manifest_of(dst)["files"]) if pick(r))
    damage(dst / rel)
    return rel


def test_restore_refuses_a_damaged_snapshot_or_a_running_daemon(snap: Snap, tmp_path: Path) -> None:
    """Restore replaces the user's state, so it must verify first and change nothing when it refuses."""
    ws = snap.ws
    cases = {
        "content": _damaged_copy(snap.out, tmp_path / "content",
                                 lambda r: r.startswith("content/") and r.endswith(".zst"), flip_byte),
        "segment": _damaged_copy(snap.out, tmp_path / "segment",
                                 lambda r: r.startswith("segments/") and r.endswith(".npy"),
                                 lambda p: flip_byte(p, p.stat().st_size - 1)),
        "missing": _damaged_copy(snap.out, tmp_path / "missing", lambda r: r.startswith("segments/"), Path.unlink),
    }
    (tmp_path / "empty").mkdir()
    before = ws.state_bytes()
    names = [*cases, "empty"]
    results = dict(zip(names, run_parallel([(ws, ["restore", str(tmp_path / n), "--json"]) for n in names]),
                       strict=True))
    for name, rel in cases.items():
        result = results[name]
        assert result.returncode == 4, result
        assert result.stdout == ""
        assert "failed verification" in result.stderr and rel in result.stderr, result
        assert ("missing" if name == "missing" else "checksum mismatch") in result.stderr, result
    assert results["empty"].returncode == 4 and "not a Moraine snapshot" in results["empty"].stderr, results["empty"]
    with daemon_lock(ws.state):
        held = ws.run("restore", str(snap.out), "--json")
    assert held.returncode == 6, held  # another daemon serves this state
    assert "daemon" in held.stderr and str(ws.state) in held.stderr, held
    assert ws.state_bytes() == before, "a refused restore must leave the state byte for byte as it was"


def test_restore_brings_back_the_snapshot_then_catches_up(fresh: Workspace, snap: Snap) -> None:
    """After a restore the state is the snapshot's; the logs' later growth is read once, never twice."""
    ws, session_id = fresh, snap.interrupted_id
    gone = oracle_file("codex-interrupted")
    interrupted = ws.sample_path(gone["path"])
    assert ws.run("index").returncode == 0
    backup = ws.root / "backup"
    assert ws.run("snapshot", "--out", str(backup)).returncode == 0
    status_then, opened_then = run_parallel([(ws, ["status", "--json"]),
                                             (ws, ["open", session_id, "--json"])])

    # Diverge: a session leaves the state, another log grows.
    parked = ws.root / "parked.jsonl"
    interrupted.rename(parked)
    append_turn(ws)
    assert ws.run("index").returncode == 0
    assert ok(ws.run("forget", "--missing", "--json"))["events_retired"] == gone["session"]["event_count"]
    diverged_generation = manifest_of(ws.state)["generation"]
    parked.rename(interrupted)  # the log is back as it was at the snapshot; the state does not know

    clean = twin(ws, ws.root / "clean")
    restored, clean_index = run_parallel([(ws, ["restore", str(backup), "--json"]), (clean, ["index"])])
    data = ok(restored)
    assert clean_index.returncode == 0, clean_index
    assert data["generation"] > diverged_generation, "a restore publishes a new generation"
    assert data["events"] == oracle_event_count() and data["sessions"] == len(oracle_sessions())
    status = ok(ws.run("status", "--json"))
    assert counts(status) == counts(ok(status_then)), "before any catch-up the state is the snapshot's"
    assert status["generation"] == data["generation"]

    caught_up = ok(ws.run("index", "--json"))
    assert caught_up["files_read"] == 1, "only the log that grew since the snapshot is read again"
    assert caught_up["events"] > 0
    opened, word, final, clean_status = run_parallel(
        [(ws, ["open", session_id, "--json"]), (ws, ["search", WORD, "--json"]),
         (ws, ["status", "--json"]), (clean, ["status", "--json"])])
    assert answer(opened) == answer(opened_then), "the forgotten session is back, exactly as at the snapshot"
    assert len(search_ids(word)) == 2, "the appended prompt and reply, each once"
    final_report, clean_report = ok(final), ok(clean_status)
    assert final_report["live_events"] == clean_report["live_events"], "no event lost or duplicated"
    assert final_report["searchable_documents"] == clean_report["searchable_documents"]
    assert final_report["sessions"] == clean_report["sessions"]
    assert final_report["quarantined"] == clean_report["quarantined"]


# -- doctor: damaged and torn WAL ----------------------------------------------------------------


def wal_only_state(ws: Workspace) -> Path:
    """A state whose whole history is in one WAL file of many frames (no snapshot yet)."""
    result = ws.run("search", "nothingmatchesthis", "--json", env=ws.env(**SMALL_FRAMES))
    assert result.returncode == 0, result
    assert not (ws.state / "CURRENT").exists()
    wal = newest_wal(ws.state)
    assert len(wal_frames(wal)) >= 10, "the test needs many frames"
    return wal


@dataclass
class Repaired:
    ws: Workspace
    refused: list[Result]
    diagnosed: Result
    repair: Result
    damaged_bytes: bytes
    search: Result
    status: Result
    doctor_after: Result


@pytest.fixture(scope="module")
def repaired(tmp_path_factory: pytest.TempPathFactory) -> Repaired:
    """A WAL damaged in the middle (intact frames after a bad one), then `doctor --repair`ed."""
    ws = make_workspace(tmp_path_factory.mktemp("doctor"))
    wal = wal_only_state(ws)
    frames = wal_frames(wal)
    offset, end = frames[len(frames) // 2]
    flip_byte(wal, (offset + FRAME.size + end) // 2)
    damaged = wal.read_bytes()
    refused = run_parallel([(ws, a) for a in (["search", "migration"], ["status", "--json"],
                                                     ["snapshot", "--json"])])
    diagnosed = ws.run("doctor", "--json")
    repair = ws.run("doctor", "--repair", "--json")
    search = ws.run("search", "migration", "--json")
    status, doctor_after = run_parallel([(ws, ["status", "--json"]), (ws, ["doctor", "--json"])])
    return Repaired(ws, refused, diagnosed, repair, damaged, search, status, doctor_after)


def test_doctor_repairs_a_wal_damaged_in_the_middle(repaired: Repaired) -> None:
    """Damage must stop every command with a pointer to the fix, and the fix must lose nothing."""
    for result in repaired.refused:
        assert result.returncode == 4, result
        assert result.stdout == "", result
        assert "moraine doctor --repair" in result.stderr, result
    report = repaired.diagnosed.json()
    assert repaired.diagnosed.returncode == 4, repaired.diagnosed
    assert report["healthy"] is False and report["ok"] is False
    damaged = [w for w in report["wal"] if w["damaged"]]
    assert len(damaged) == 1 and damaged[0]["salvageable"] >= 1, report

    fixed = ok(repaired.repair)
    assert fixed["ok"] is True and fixed["repaired"], fixed
    wal = Path(damaged[0]["path"])
    assert Path(f"{wal}.damaged").read_bytes() == repaired.damaged_bytes, "the damaged original is kept"
    assert search_ids(repaired.search), "search works again after the repair"
    status = ok(repaired.status)
    assert status["live_events"] == oracle_event_count(), "nothing lost, nothing duplicated"
    assert status["sessions"] == len(oracle_sessions())
    assert ok(repaired.doctor_after)["healthy"] is True


def test_doctor_repair_does_not_duplicate_quarantined_lines(repaired: Repaired) -> None:
    """The quarantine is a report of bad lines in the logs: re-reading the logs must not double it."""
    got = sorted((i["file"], i["line"], i["offset"]) for i in ok(repaired.status)["quarantined"])
    assert got == sorted((str(repaired.ws.sample_path(p)), line, off) for p, line, off in oracle_malformed())


def test_a_torn_wal_tail_is_not_damage(fresh: Workspace) -> None:
    """A crash mid-append leaves half a frame: that is normal, commands go on and re-read what it held."""
    wal = wal_only_state(fresh)
    offset, end = wal_frames(wal)[-1]
    cut = offset + (end - offset) // 2
    os.truncate(wal, cut)
    report = ok(fresh.run("doctor", "--json"))
    assert report["healthy"] is True, report
    newest = next(w for w in report["wal"] if Path(w["path"]) == wal)
    assert newest["damaged"] is False and newest["torn_bytes"] == cut - offset, report
    assert search_ids(fresh.run("search", "migration", "--json"))
    status = ok(fresh.run("status", "--json"))
    assert status["live_events"] == oracle_event_count(), "the torn frame's lines are read again"
    assert status["sessions"] == len(oracle_sessions())


# -- reindex -------------------------------------------------------------------------------------


def test_reindex_keeps_every_id_and_count(fresh: Workspace) -> None:
    """A rebuild from the logs must not break saved IDs (agents keep them) nor change what is indexed."""
    ws = fresh
    assert ws.run("index").returncode == 0
    append_turn(ws)
    word = ws.run("search", WORD, "--json")  # caught up into the WAL, not published
    assert len(search_ids(word)) == 2
    session_id = ok(word)["data"]["results"][0]["open"]["session_id"]
    argvs = [["open", session_id, "--json"], ["status", "--json"]]
    opened, status_before = run_parallel([(ws, a) for a in argvs])
    uids_before = live_uids(ws)
    assert len(uids_before) == ok(status_before)["live_events"]
    assert ok(status_before)["wal_events_since_snapshot"] > 0, "part of the state is in the WAL"

    rebuilt = ok(ws.run("reindex", "--json"))
    assert rebuilt["generation"] > ok(status_before)["generation"]
    word_after, opened_after, status_after = run_parallel([(ws, a) for a in [["search", WORD, "--json"], *argvs]])
    assert answer(word_after) == answer(word)
    assert answer(opened_after) == answer(opened)
    assert live_uids(ws) == uids_before
    status = ok(status_after)
    assert status["generation"] == rebuilt["generation"]
    assert counts(status) == counts(ok(status_before))
    assert not (ws.state / "reindex.tmp").exists()


# -- forget --------------------------------------------------------------------------------------


@dataclass
class Forgotten:
    ws: Workspace
    path: Path
    session_id: str
    turn_id: str
    found: Result  # `search forever` at index time
    kept: list[Result]  # open, search forever, status: after the log was deleted and indexed again
    forgot: Result
    after: list[Result]  # open session, open turn, open event, search forever, search migration, status


@pytest.fixture(scope="module")
def forgotten(tmp_path_factory: pytest.TempPathFactory) -> Forgotten:
    """codex-interrupted deleted from disk, indexed again, then `forget --missing`."""
    ws = make_workspace(tmp_path_factory.mktemp("forget"))
    path = ws.sample_path(oracle_file("codex-interrupted")["path"])
    assert ws.run("index").returncode == 0
    found = ws.run("search", "forever", "--json")
    ids = ok(found)["data"]["results"][0]["open"]
    path.unlink()
    assert ws.run("index").returncode == 0
    kept = run_parallel([(ws, a) for a in (["open", ids["session_id"], "--json"],
                                                 ["search", "forever", "--json"], ["status", "--json"])])
    forgot = ws.run("forget", "--missing", "--json")
    after = run_parallel([(ws, a) for a in (
        ["open", ids["session_id"], "--json"], ["open", ids["turn_id"], "--json"], ["open", ids["event_id"], "--json"],
        ["search", "forever", "--json"], ["search", "migration", "--json"], ["status", "--json"])])
    return Forgotten(ws, path, ids["session_id"], ids["turn_id"], found, kept, forgot, after)


def test_forget_missing_drops_a_deleted_log(forgotten: Forgotten, snap: Snap) -> None:
    """A deleted log stays searchable (history is the point) until the user asks to forget it."""
    f = forgotten
    count = oracle_file("codex-interrupted")["session"]["event_count"]
    opened, still, status = f.kept
    assert ok(opened)["data"]["session"]["id"] == f.session_id
    assert search_ids(still) == search_ids(f.found) != []
    entries = {e["path"]: e for es in ok(status)["files"].values() for e in es}
    assert entries[str(f.path)]["exists"] is False
    assert [p for p, e in entries.items() if not e["exists"]] == [str(f.path)]

    assert ok(f.forgot) == {"forgotten": [str(f.path)], "events_retired": count}
    _, _, event, still, other, status = f.after
    assert event.returncode == 1, event
    assert event.json()["error"]["code"] == "not_found"
    assert search_ids(still) == []
    assert hits(other) == hits(snap.migration), "other sessions are unaffected (scores move with the corpus)"
    report = ok(status)
    assert report["live_events"] == oracle_event_count() - count
    assert str(f.path) not in {e["path"] for es in report["files"].values() for e in es}


@pytest.mark.parametrize("which", [0, 1], ids=["session", "turn"])
def test_open_a_forgotten_session_is_not_found(forgotten: Forgotten, which: int) -> None:
    """A forgotten session must look like one never indexed: `not_found`, exit 1."""
    result = forgotten.after[which]
    assert result.returncode == 1, result
    assert result.json()["error"]["code"] == "not_found", result


def test_status_does_not_count_a_forgotten_session(forgotten: Forgotten) -> None:
    """`status` must agree with `list` about how many sessions the state holds."""
    assert ok(forgotten.after[5])["sessions"] == len(oracle_sessions()) - 1


@pytest.mark.parametrize("kind", ["content", "segments"])
def test_a_tampered_published_file_is_refused_and_doctor_rebuilds(fresh: Workspace, kind: str) -> None:
    """A content chunk or segment changed after it was written is refused when the
    state is opened (naming the remedy), and `doctor --repair` performs that remedy: the state
    is rebuilt from the logs, with the same IDs."""
    assert fresh.run("index").returncode == 0
    before = fresh.run("search", "migration", "--json").json()["data"]["results"]
    files = [p for p in (fresh.state / kind).rglob("*") if p.is_file() and (kind == "segments" or p.suffix == ".zst")]
    victim = max(files, key=lambda p: p.stat().st_size)  # a content chunk's rows, or a segment's postings
    data = bytearray(victim.read_bytes())
    data[len(data) // 2] ^= 0xFF
    victim.write_bytes(bytes(data))
    for argv in (["search", "migration"], ["status"], ["open", before[0]["id"]]):
        refused = fresh.run(*argv)
        assert refused.returncode == 4, refused
        assert "checksum mismatch" in refused.stderr and "moraine doctor --repair" in refused.stderr, refused
    doctor = fresh.run("doctor")
    assert doctor.returncode == 4 and "rebuild the state from the logs" in doctor.stdout, doctor
    repaired = fresh.run("doctor", "--repair", "--json")
    assert repaired.returncode == 0 and repaired.json()["ok"], repaired
    assert fresh.run("doctor", "--json").json()["healthy"]
    after = fresh.run("search", "migration", "--json").json()["data"]["results"]
    assert [h["id"] for h in after] == [h["id"] for h in before]


def test_doctor_names_what_a_killed_reindex_left_and_repair_removes_it(tmp_path: Path) -> None:
    """`moraine reindex` builds the new state in reindex.tmp beside the live one. Killed (SIGKILL)
    halfway, it leaves that folder: the state stays healthy, but `doctor` names the leftover and
    its size, `doctor --repair` removes it, and the next reindex works. A rebuild under way is
    neither removed by `doctor --repair` nor started twice."""
    corpus = tmp_path / "corpus"
    subprocess.run([sys.executable, str(Path(__file__).resolve().parents[2] / "tools" / "make_corpus.py"),
                    "--out", str(corpus), "--events", "40000", "--seed", "11"],
                   check=True, capture_output=True, timeout=300)
    ws = make_workspace(tmp_path / "ws", copy_logs=False)
    ws.codex, ws.claude = corpus / "codex", corpus / "claude"
    assert ws.run("index").returncode == 0
    temp = ws.state / "reindex.tmp"
    proc = subprocess.Popen([str(MORAINE), "reindex"], env=ws.env(), cwd=ws.root, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 60
    while not list(temp.glob("wal/*.log")) and proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.005)
    held = ws.run("doctor", "--repair", "--json")  # the rebuild is under way: left alone
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    assert held.returncode == 0 and temp.is_dir(), held
    assert any("is building the new state there now" in item for item in held.json()["leftovers"]), held

    checked = ws.run("doctor", "--json")
    assert checked.returncode == 0, checked
    report = checked.json()
    assert report["healthy"] and [item for item in report["leftovers"] if "interrupted rebuild" in item]
    assert "leftover: " in ws.run("doctor").stdout
    repaired = ws.run("doctor", "--repair", "--json")
    assert repaired.returncode == 0 and not temp.exists(), repaired
    assert any("removed what an interrupted rebuild" in item for item in repaired.json()["repaired"]), repaired
    assert ws.run("reindex").returncode == 0
    assert ws.run("doctor", "--json").json()["leftovers"] == []


def test_restore_replaces_a_state_that_cannot_be_opened(fresh: Workspace) -> None:
    """A backup is most wanted when the live state is damaged: `restore` installs the verified copy
    without opening the state it replaces (it refused with 'run doctor --repair', which rebuilds
    from the logs and loses what only the state held; found by an outside attack)."""
    ws = fresh
    assert ws.run("index").returncode == 0
    session = ok(ws.run("list", "--since", "2000-01-01", "--json"))["data"]["sessions"][0]["session"]["id"]
    assert ws.run("track", "--session", session, "--prompt", "deploy now?", "--input", "yes").returncode == 0
    backup = ws.root / "backup"
    assert ws.run("snapshot", "--out", str(backup)).returncode == 0
    before = counts(ok(ws.run("status", "--json")))
    segment = next(ws.state.glob("segments/*/doc_lens.npy"))
    data = bytearray(segment.read_bytes())
    data[-1] ^= 0xFF
    segment.write_bytes(bytes(data))
    assert ws.run("status").returncode == 4, "the damage is seen"
    restored = ws.run("restore", str(backup), "--json")
    assert restored.returncode == 0, restored
    assert counts(ok(ws.run("status", "--json"))) == before
    assert ws.run("doctor").returncode == 0
    assert ok(ws.run("patterns", "--json"))["total_patterns"] == 1, "what only the state held came back"
