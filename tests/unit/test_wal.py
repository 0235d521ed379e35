"""The write-ahead log: frames round-trip, and a torn tail at any byte is cut off on open."""

from __future__ import annotations

import json
import shutil
import struct
import tempfile
import zlib
from collections.abc import Iterator
from pathlib import Path

import msgpack
import pytest

from moraine.config import load_config
from moraine.errors import StateError
from moraine.index.tokenize import query_terms, tokenize
from moraine.ingest.pipeline import ingest_once
from moraine.store.batch import Batch
from moraine.store.engine import Store
from moraine.store.wal import FRAME, HEADER, Wal

SID = "019c5f6a-49bd-7920-ac67-1dd8e33b0e95"


# -- frames ----------------------------------------------------------------------------------


PAYLOADS = [
    {"events": [], "issues": [], "checkpoints": {}, "at": 0},
    {"events": [["uid", "codex:x", "codex", "user_input", 1_767_225_600_000, "héllo 検索 ✓", None, None,
                 {"cmd": ["ls", "-la"], "n": 3, "f": 1.5, "ok": True}, None, None, True, 0, False, None,
                 "/logs/a.jsonl", 1, 0, 0, {"cwd": "/repo"}]],
     "issues": [["/logs/a.jsonl", 1, 2, 10, "json_parse_error: x", "{broken"]],
     "checkpoints": {"/logs/a.jsonl": ["codex", 42, 100, 1, 100, 2, {"sid": "x", "calls": {"c1": ["shell", False]}},
                                       False]},
     "at": 1_767_225_600_123},
    {"events": [], "issues": [], "checkpoints": {}, "at": 5, "blob": "x" * 70_000},  # a large frame
    {"events": [["u" * 26, "k", "claude-code", "tool_response", -1, "", None, None, None, -2, None, False, 2, True,
                 None, "", 0, 0, 3, {}]], "issues": [], "checkpoints": {}, "at": 2**40},
]


def test_new_wal_has_only_the_header(tmp_path: Path) -> None:
    wal = Wal(tmp_path / "wal.log", "never")
    assert (tmp_path / "wal.log").read_bytes() == HEADER
    assert len(HEADER) == 16 and HEADER.startswith(b"MORAINEW")
    assert list(wal.frames()) == []
    assert wal.valid_end() == 16


def test_frames_round_trip(tmp_path: Path) -> None:
    path = tmp_path / "wal.log"
    wal = Wal(path, "never")
    ends = [wal.append(p) for p in PAYLOADS]
    assert ends[-1] == path.stat().st_size == wal.size()
    frames = list(wal.frames())
    assert [f.payload for f in frames] == PAYLOADS
    assert frames[0].offset == 16
    assert [f.end for f in frames] == ends
    assert [f.offset for f in frames[1:]] == ends[:-1]
    # each frame is: uint32 length, uint32 crc32, msgpack body
    data = path.read_bytes()
    for frame in frames:
        length, crc = FRAME.unpack(data[frame.offset : frame.offset + 8])
        body = data[frame.offset + 8 : frame.end]
        assert len(body) == length and zlib.crc32(body) == crc
        assert msgpack.unpackb(body, raw=False, strict_map_key=False) == frame.payload
    # reading from a frame's offset yields that frame and the rest; a reopened Wal reads the same
    assert [f.payload for f in wal.frames(ends[1])] == PAYLOADS[2:]
    assert [f.payload for f in Wal(path, "never").frames()] == PAYLOADS
    assert wal.valid_end() == ends[-1]
    assert wal.cut_tail(ends[-1]) == 0 and path.stat().st_size == ends[-1]


@pytest.mark.parametrize("fsync", ["always", "batch", "never"])
def test_append_under_every_fsync_policy(tmp_path: Path, fsync: str) -> None:
    wal = Wal(tmp_path / "wal.log", fsync)
    wal.append(PAYLOADS[1])
    assert [f.payload for f in wal.frames()] == [PAYLOADS[1]]


def test_bad_magic_and_unknown_version_refuse_to_open(tmp_path: Path) -> None:
    path = tmp_path / "wal.log"
    path.write_bytes(b"NOTAWAL!" + b"\0" * 8)
    with pytest.raises(StateError, match="magic"):
        Wal(path)
    path.write_bytes(b"MORAINEW" + struct.pack("<H", 99) + b"\0" * 6)
    with pytest.raises(StateError, match="99"):
        Wal(path)
    path.write_bytes(b"")  # an empty file (crash right after create) gets a fresh header
    Wal(path, "never")
    assert path.read_bytes() == HEADER


def test_bad_crc_or_garbage_in_the_last_frame_ends_the_frames(tmp_path: Path) -> None:
    path = tmp_path / "wal.log"
    wal = Wal(path, "never")
    ends = [wal.append(p) for p in PAYLOADS[:2]]
    data = bytearray(path.read_bytes())
    data[ends[0] + 12] ^= 0xFF  # inside the last frame's body
    path.write_bytes(bytes(data))
    assert [f.payload for f in wal.frames()] == PAYLOADS[:1]
    assert wal.valid_end() == ends[0]
    # a huge length field (garbage) is not a frame either
    path.write_bytes(bytes(data[: ends[0]]) + struct.pack("<II", 0xFFFFFFFF, 0) + b"junk")
    assert [f.payload for f in wal.frames()] == PAYLOADS[:1]
    # a CRC-valid frame whose body is not msgpack is not a frame
    body = b"\xc1\xc1\xc1"
    path.write_bytes(bytes(data[: ends[0]]) + FRAME.pack(len(body), zlib.crc32(body)) + body)
    assert [f.payload for f in wal.frames()] == PAYLOADS[:1]


# -- torn tails through the Store --------------------------------------------------------------


def _line(ts: int, kind: str, payload: dict) -> str:
    return json.dumps({"timestamp": f"2026-02-15T03:50:{ts:02d}.000Z", "type": kind, "payload": payload})


def _small_log(n: int, start: int = 0) -> list[str]:
    """Short records that keep the parser state small (no mirror window): small frames."""
    lines = []
    for i in range(start, start + n):
        if i % 3 == 0:
            lines.append(_line(i % 60, "compacted", {"message": f"summary {i} walrus"}))
        elif i % 3 == 1:
            lines.append(_line(i % 60, "response_item", {"type": "function_call", "name": "shell", "call_id": f"c{i}",
                                                         "arguments": json.dumps({"cmd": f"ls {i} walrus"})}))
        else:
            lines.append(_line(i % 60, "response_item", {"type": "mystery_item"}))  # an unknown event
    return lines


@pytest.fixture(scope="module")
def wal_state() -> Iterator[dict]:
    """A state directory whose WAL has several small frames (one event each). A short base
    path keeps frames small (each event and checkpoint carries the log's path)."""
    base = Path(tempfile.mkdtemp(prefix="mw"))
    try:
        yield _build_wal_state(base)
    finally:
        shutil.rmtree(base, ignore_errors=True)


def _build_wal_state(base: Path) -> dict:
    logs = base / "c" / "sessions"
    logs.mkdir(parents=True)
    log = logs / "r.jsonl"  # the session id comes from session_meta
    header = _line(0, "session_meta", {"id": SID, "cwd": "/r"})
    log.write_text("\n".join([header, *_small_log(4)]) + "\n")
    env = {"CODEX_HOME": str(base / "c"), "CLAUDE_CONFIG_DIR": str(base / "cl")}
    config = load_config(overrides={"home": str(base / "state"), "store": {"fsync": "never"},
                                    "ingest": {"batch_events": 1}}, env=env)
    store = Store(config)
    ingest_once(store)
    with log.open("a") as fh:
        fh.write("\n".join(_small_log(2, start=4)) + "\n")
    ingest_once(store)
    wal_bytes = (base / "state" / "wal" / "00000001.log").read_bytes()
    frames = list(Wal(base / "state" / "wal" / "00000001.log", "never").frames())
    assert len(frames) >= 6 and frames[-1].end == len(wal_bytes)
    return {"config": config, "wal": wal_bytes, "frames": frames, "log": log,
            "uids": store.catalog.uid.view.tolist(), "events": store.stats.events}


def _wal_file(home: Path) -> Path:
    (home / "wal").mkdir(parents=True, exist_ok=True)
    return home / "wal" / "00000001.log"


def _expected_at(frames: list, cut: int) -> tuple[list, int, dict]:
    whole = [f for f in frames if f.end <= cut]
    uids = [uid.encode("ascii") for f in whole for uid in _batch(f.payload).uids]
    end = whole[-1].end if whole else 16
    checkpoints: dict = {}
    for f in whole:
        checkpoints.update(f.payload["checkpoints"])
    return uids, end, {"frames": len(whole), "checkpoints": checkpoints, "payloads": [f.payload for f in whole]}


def _batch(payload: dict) -> Batch:
    """The events a frame holds (a frame without events has no batch)."""
    return Batch.from_wire(payload["batch"]) if "batch" in payload else Batch()


def _indexable(payloads: list) -> int:
    n = 0
    for payload in payloads:
        batch = _batch(payload)
        for i in batch.indexable().tolist():
            n += bool(tokenize(batch.texts[i]))
    return n


def test_truncation_at_every_byte_of_the_last_two_frames_recovers_the_whole_frames(
        wal_state: dict, tmp_path: Path) -> None:
    config, data, frames = wal_state["config"], wal_state["wal"], wal_state["frames"]
    home = tmp_path / "state"
    home.mkdir()
    config = config.model_copy(update={"home": home})
    start = frames[-2].offset
    assert len(data) - start < 4000, "keep the test fast: small frames"
    for cut in range(start, len(data) + 1):
        _wal_file(home).write_bytes(data[:cut])
        store = Store(config)
        uids, end, expect = _expected_at(frames, cut)
        assert store.catalog.uid.view.tolist() == uids, cut
        assert store.stats.frames == expect["frames"]
        assert store.stats.events == len(uids)
        assert store.stats.torn_bytes == cut - end
        assert (store.stats.torn_bytes > 0) == (cut not in {f.end for f in frames})
        assert (home / "wal" / "00000001.log").stat().st_size == end, "the torn tail is cut off"
        assert {p: cp.to_wire() for p, cp in store.checkpoints.items()} == expect["checkpoints"]
        assert store.index.n_docs == _indexable(expect["payloads"])


def test_after_a_torn_tail_the_next_ingest_restores_every_event(wal_state: dict, tmp_path: Path) -> None:
    config, data, frames = wal_state["config"], wal_state["wal"], wal_state["frames"]
    home = tmp_path / "state"
    config = config.model_copy(update={"home": home})
    cuts = sorted({frames[-2].offset + 3, frames[-2].end - 1, frames[-1].offset + 9, len(data) - 1,
                   frames[-3].end + 1, frames[1].end + 5})
    for cut in cuts:
        shutil.rmtree(home, ignore_errors=True)
        home.mkdir()
        _wal_file(home).write_bytes(data[:cut])
        store = Store(config)
        assert store.stats.torn_bytes > 0
        ingest_once(store)  # the checkpoints of the whole frames say where to read again
        assert store.catalog.uid.view.tolist() == wal_state["uids"], cut
        assert all(store.catalog.alive.view), "re-read lines must not duplicate or replace events"
        hits = store.search(query_terms("walrus", 16), 50, ["compaction", "tool_call"], None, None)
        assert hits.total == sum(1 for line in wal_state["log"].read_text().splitlines() if "walrus" in line)
        # and the repaired log replays to the same state
        again = Store(config)
        assert again.catalog.uid.view.tolist() == wal_state["uids"] and again.stats.torn_bytes == 0


def test_a_bad_frame_before_valid_ones_is_reported_not_truncated(wal_state: dict, tmp_path: Path) -> None:
    config, data, frames = wal_state["config"], wal_state["wal"], wal_state["frames"]
    home = tmp_path / "state"
    home.mkdir()
    damaged = bytearray(data)
    damaged[frames[1].offset + 10] ^= 0xFF  # inside the body of the second of several frames
    _wal_file(home).write_bytes(bytes(damaged))
    with pytest.raises(StateError):
        Store(config.model_copy(update={"home": home}))
    assert (home / "wal" / "00000001.log").read_bytes() == bytes(damaged)
