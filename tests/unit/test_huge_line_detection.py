"""A slice of the daemon's ingest reads a log in worker processes only when its next line is
huge (`normalize._holds_huge_line`), since starting them costs half a second. A line ends at an
LF or at a lone CR (the tailer's rule): 17 MB of random bytes without an LF is tens of thousands
of short CR-ended lines, not one huge line, and reading it a line per slice took hours while
the daemon held the writer (found by an outside attack: 300 bytes/s)."""

from __future__ import annotations

import json
import random
from pathlib import Path

from moraine.config import load_config
from moraine.ingest.normalize import HUGE_LINE_BYTES, SLICE_POOL_BYTES, _holds_huge_line
from moraine.ingest.pipeline import ingest_once
from moraine.store.engine import Store

SID = "eeee0003-0000-4000-8000-000000000003"


def _garbage(size: int, seed: int = 3) -> bytes:
    """Random bytes without an LF (some hold CRs, as random bytes do)."""
    block = random.Random(seed).randbytes(1000).replace(b"\n", b"x")
    return block * (size // 1000)


def test_random_bytes_holding_crs_are_not_one_huge_line(tmp_path: Path) -> None:
    garbage = tmp_path / "garbage.jsonl"
    garbage.write_bytes(_garbage(SLICE_POOL_BYTES + HUGE_LINE_BYTES) + b"\n")
    assert b"\r" in garbage.read_bytes()[:HUGE_LINE_BYTES]
    assert not _holds_huge_line(str(garbage), 0, garbage.stat().st_size)
    huge = tmp_path / "huge.jsonl"
    huge.write_bytes(b"x" * (SLICE_POOL_BYTES + HUGE_LINE_BYTES) + b"\n")
    assert _holds_huge_line(str(huge), 0, huge.stat().st_size)


def test_a_slice_reads_many_short_garbage_lines(tmp_path: Path) -> None:
    project = tmp_path / "claude" / "projects" / "-g"
    project.mkdir(parents=True)
    first = {"type": "user", "sessionId": SID, "cwd": "/g", "uuid": "u1", "timestamp": "2026-11-22T10:00:00Z",
             "message": {"role": "user", "content": "garbage probe"}}
    (project / f"{SID}.jsonl").write_bytes(json.dumps(first).encode() + b"\n" + _garbage(3_000_000) + b"\n")
    env = {"HOME": str(tmp_path / "home"), "CLAUDE_CONFIG_DIR": str(tmp_path / "claude"),
           "CODEX_HOME": str(tmp_path / "no-codex")}
    store = Store(load_config({"home": str(tmp_path / "state")}, env=env))
    ingest_once(store, slice_s=0.05)  # a daemon slice: from the log's start, read in this process
    (first,) = store.checkpoints.values()
    for _ in range(2):  # two more slices, both starting inside the garbage
        ingest_once(store, slice_s=0.05)
    (later,) = store.checkpoints.values()
    assert later.line - first.line > 100, (first, later)  # one line a slice before
