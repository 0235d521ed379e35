"""The daemon's passes are slices: a pass with `slice_s` stops at a line's end once that many
seconds passed (the rest is read by the next pass, every line exactly once, and the logs it
left are named), and waits only so long for a pass that holds the writer lock. A slice of 0 s
reads one line of each log it reaches, whatever the machine's speed. The daemon's probe test
shows the effect on call times (tests/daemon/test_daemon_hostile_logs.py); this shows the
mechanism."""

from __future__ import annotations

import threading
import time
from pathlib import Path

import pytest
from _agentlogs import LogWriter, populate

from moraine.errors import WriterBusy
from moraine.ingest.pipeline import SLICE_FLOOR_BYTES, ingest_once
from moraine.store.engine import Store

LINES = 40_000


def _store_with_junk(tmp_path: Path) -> tuple[Store, Path]:
    writer = LogWriter(tmp_path / "logs", seed=21)
    populate(writer, n_codex=1, n_claude=1, records_per_file=(5, 8))
    store = Store(writer.config(tmp_path / "state"))
    ingest_once(store)
    junk = writer.claude_home / "projects" / "-junk" / "7c666c01-d38e-4658-8650-00000000b001.jsonl"
    junk.parent.mkdir(parents=True)
    junk.write_text("".join(f"not json {i}\n" for i in range(LINES)))
    return store, junk


def test_a_slice_reads_part_and_the_next_pass_the_rest(tmp_path: Path) -> None:
    store, junk = _store_with_junk(tmp_path)
    first = ingest_once(store, only={str(junk)}, slice_s=0.0)
    assert first.cut and first.left == [str(junk)]
    assert first.issues == 1 and first.bytes_read == len("not json 0\n")  # one line: every pass moves on
    rest = ingest_once(store, only={str(junk)})
    assert not rest.cut and rest.left == []
    assert first.bytes_read + rest.bytes_read == junk.stat().st_size
    assert first.issues + rest.issues == LINES  # every junk line quarantined once
    assert ingest_once(store).issues == 0


def test_slices_end_with_every_line_read_once(tmp_path: Path) -> None:
    store, junk = _store_with_junk(tmp_path)
    other = junk.with_name("7c666c01-d38e-4658-8650-00000000b002.jsonl")
    other.write_text("also not json\n" * 3)
    issues, slices, named = 0, 0, {str(junk), str(other)}
    while named:
        summary = ingest_once(store, only=named, slice_s=0.005)
        issues, slices, named = issues + summary.issues, slices + 1, set(summary.left)
        assert slices < LINES
    assert issues == LINES + 3 and slices > 1


def test_a_line_longer_than_a_slice_is_still_read(tmp_path: Path) -> None:
    store, junk = _store_with_junk(tmp_path)
    junk.write_text("x" * 10_000_000 + "\n" + "y\n")
    summary = ingest_once(store, only={str(junk)}, slice_s=0.0)
    assert summary.cut and summary.issues == 1  # one line, however long: every pass moves on


def test_a_call_waits_only_so_long_for_another_pass(tmp_path: Path) -> None:
    store, _ = _store_with_junk(tmp_path)
    other = Store(store.config)  # another pass (the daemon's loop, or `moraine index`) holds the lock
    held, release = threading.Event(), threading.Event()

    def hold() -> None:
        with other.writer():
            held.set()
            release.wait(30)

    thread = threading.Thread(target=hold)
    thread.start()
    try:
        assert held.wait(30)
        started = time.monotonic()
        with pytest.raises(WriterBusy):
            ingest_once(store, slice_s=0.1, wait=0.1)
        assert time.monotonic() - started < 10
    finally:
        release.set()
        thread.join(30)
    assert ingest_once(store, wait=0.1).issues == LINES  # free again: read


def test_a_slice_reads_the_small_appends_first_and_whole(tmp_path: Path) -> None:
    """However little time a slice has, the logs with few new bytes (an agent's own new lines)
    are read whole, before a large log's backlog, up to SLICE_FLOOR_BYTES of them."""
    store, junk = _store_with_junk(tmp_path)
    small = [junk.with_name(f"7c666c01-d38e-4658-8650-00000000c{n:03d}.jsonl") for n in range(20)]
    for n, path in enumerate(small):
        path.write_text(f"small junk {n}\n" * 50)
    first = ingest_once(store, only={str(junk), *map(str, small)}, slice_s=0.0)
    assert first.left == [str(junk)]
    assert first.issues == 20 * 50 + 1  # every small log whole, then one line of the large one
    assert sum(p.stat().st_size for p in small) <= SLICE_FLOOR_BYTES
