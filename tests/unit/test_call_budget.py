"""A tool call's catch-up is a bounded slice: it reads at most its byte budget of new log
(the rest is read by the next pass, every line exactly once) and waits only so long for a pass
that holds the writer lock. The daemon's probe test shows the effect on call times
(tests/daemon/test_daemon_hostile_logs.py); this shows the mechanism."""

from __future__ import annotations

import threading
import time
from pathlib import Path

import pytest
from _agentlogs import LogWriter, populate

from moraine.errors import WriterBusy
from moraine.ingest.pipeline import ingest_once
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


def test_a_budget_reads_a_slice_and_the_next_pass_the_rest(tmp_path: Path) -> None:
    store, junk = _store_with_junk(tmp_path)
    budget = 64 * 1024
    first = ingest_once(store, only={str(junk)}, budget=budget)
    assert first.cut and 0 < first.bytes_read <= budget
    assert 0 < first.issues < LINES
    rest = ingest_once(store, only={str(junk)})
    assert not rest.cut
    assert first.bytes_read + rest.bytes_read == junk.stat().st_size
    assert first.issues + rest.issues == LINES  # every junk line quarantined once
    assert ingest_once(store).issues == 0


def test_a_line_longer_than_the_budget_is_still_read(tmp_path: Path) -> None:
    store, junk = _store_with_junk(tmp_path)
    junk.write_text("x" * 10_000 + "\n" + "y\n")
    summary = ingest_once(store, only={str(junk)}, budget=100)
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
            ingest_once(store, budget=1024, wait=0.1)
        assert time.monotonic() - started < 10
    finally:
        release.set()
        thread.join(30)
    assert ingest_once(store, wait=0.1).issues == LINES  # free again: read
