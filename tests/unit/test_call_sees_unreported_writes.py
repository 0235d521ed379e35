"""A call's catch-up reads the logs written last even when the watcher has not reported the
write yet: its note travels through three threads, and under load (CI's first test, 32 clients
while a writer appends) a call can arrive first. The daemon here runs a real watcher that
watches another folder, so the note never comes: the stat of the newest logs must find the
appended lines on its own. Also which logs count as the newest."""

from __future__ import annotations

import threading
import time
from pathlib import Path

import pytest
from _agentlogs import LogWriter, grow, populate

from moraine.daemon.service import Daemon
from moraine.ingest import pipeline, state
from moraine.ingest.pipeline import ingest_once, moved_newest
from moraine.ingest.state import ingest_state
from moraine.mcp_server.contract import freshness_warnings
from moraine.store.engine import Store


def _store(tmp_path: Path) -> tuple[LogWriter, Store]:
    writer = LogWriter(tmp_path / "logs", seed=12)
    populate(writer, n_codex=3, n_claude=3, records_per_file=(10, 20))
    store = Store(writer.config(tmp_path / "state"))
    ingest_once(store)  # a walk: the newest logs noted
    return writer, store


def test_a_call_reads_what_the_watcher_has_not_reported(tmp_path: Path) -> None:
    writer, store = _store(tmp_path)
    daemon = Daemon(store.config)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    daemon.observer = daemon._watch([elsewhere])  # running, and silent about the logs
    daemon.watched = {Path(s.root).expanduser() for s in store.config.sources if s.enabled}
    try:
        assert moved_newest(store) == set()
        before = store.read.live_event_count()
        grow(writer, 0, (5, 10))  # appends to some of the logs
        moved = moved_newest(store)
        assert moved and not daemon.dirty
        daemon._catch_up_for_call(store, time.monotonic())
        assert store.read.live_event_count() > before
        assert moved_newest(store) == set()
        assert ingest_once(store).events == 0  # a full pass finds nothing left: the call read it all
    finally:
        daemon.observer.stop()


def test_the_newest_logs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(pipeline, "NEWEST_LOGS", 2)
    monkeypatch.setattr(state, "NEWEST_LOGS", 2)
    _, store = _store(tmp_path)
    ingest = ingest_state(store)
    by_mtime = sorted(ingest.mtimes, key=lambda key: ingest.mtimes[key], reverse=True)
    assert [key for _, key, _ in ingest.newest.values()] == by_mtime[:2]  # after a walk: newest mtimes
    oldest = by_mtime[-1]
    ingest_once(store, only={oldest})  # a watcher named it: first now
    assert next(iter(ingest.newest)) == oldest and len(ingest.newest) == 2
    adapter = next(iter(ingest.newest.values()))[2]
    ingest.note_written([("a", "a", adapter), ("b", "b", adapter), ("c", "c", adapter)])
    assert list(ingest.newest) == ["a", "b"]


def test_a_call_reads_new_logs_the_watcher_has_not_reported(tmp_path: Path) -> None:
    """New sessions in live folders (a project folder, a new subagent folder inside one, a new
    day folder) are found by stat-ing the live folders, not by a walk and not by the watcher."""
    writer, store = _store(tmp_path)
    daemon = Daemon(store.config)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    daemon.observer = daemon._watch([elsewhere])
    daemon.watched = {Path(s.root).expanduser() for s in store.config.sources if s.enabled}
    try:
        before = store.read.live_event_count()
        parent = next(log for log in writer.files if log.harness == "claude-code")
        new = [writer.new_claude(), writer.new_claude(subagent_of=parent), writer.new_codex()]
        for log in new:
            writer.extend(log, 8)
        daemon._catch_up_for_call(store, time.monotonic())
        assert all(str(log.path) in store.checkpoints for log in new)
        assert store.read.live_event_count() > before
        assert ingest_once(store).events == 0  # a full walk finds nothing left
    finally:
        daemon.observer.stop()


def test_a_call_does_not_wait_while_the_loop_publishes(tmp_path: Path) -> None:
    """A publish holds the writer lock for seconds on a large state: a call arriving meanwhile
    answers from what is indexed at once, instead of waiting up to CALL_WRITER_CAP_S, and the
    next call after it reads the new lines."""
    writer, store = _store(tmp_path)
    daemon = Daemon(store.config)
    held, release = threading.Event(), threading.Event()

    def publishing() -> None:  # the loop, holding the writer lock as its publish does
        with store.writer():
            held.set()
            release.wait(10)

    loop = threading.Thread(target=publishing)
    daemon.loop_thread = loop
    loop.start()
    held.wait(5)
    before = store.read.live_event_count()
    grow(writer, 0, (5, 10))
    try:
        store.publishing = True
        started = time.monotonic()
        daemon._catch_up_for_call(store, time.monotonic())
        assert time.monotonic() - started < 0.3
        assert store.read.live_event_count() == before
    finally:
        store.publishing = False
        release.set()
        loop.join(5)
    daemon._catch_up_for_call(store, time.monotonic())
    assert store.read.live_event_count() > before


@pytest.mark.parametrize("why", ["publishing", "writer busy"])
def test_a_call_that_cannot_catch_up_says_it_is_behind(tmp_path: Path, why: str) -> None:
    """A call that answers without its catch-up (a publish holds the writer, or a long pass did
    a moment ago) reports the lines written before it as not yet indexed, though no watcher has
    named their logs: an answer missing them says it is behind, and the next call that reads
    them says nothing. Each call carries its own figure (calls run side by side)."""
    writer, store = _store(tmp_path)
    daemon = Daemon(store.config)
    daemon.store, daemon.backfilled = store, True
    assert daemon._before_call(store).lag_bytes == 0
    sizes = {str(log.path): log.path.stat().st_size for log in writer.files}
    grow(writer, 0, (5, 10))
    appended = sum(log.path.stat().st_size - sizes[str(log.path)] for log in writer.files)
    before = store.read.live_event_count()
    if why == "publishing":
        store.publishing = True
    else:
        daemon.writer_busy_until = time.monotonic() + 60
    fresh = daemon._before_call(store)
    assert store.read.live_event_count() == before  # answered from what is indexed
    assert fresh.lag_bytes == appended > 0
    assert any("behind the logs" in w for w in freshness_warnings(store, fresh))
    store.publishing, daemon.writer_busy_until = False, 0.0
    fresh = daemon._before_call(store)
    assert store.read.live_event_count() > before and fresh.lag_bytes == 0
    assert freshness_warnings(store, fresh) == []
