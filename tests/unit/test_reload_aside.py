"""When another process publishes a snapshot and retires the WAL file this store read, the
store loads the state again: at a million events that takes seconds. It loads into a fresh
object with the readers' lock free and swaps it in, so tool calls keep answering from the old
state meanwhile (an outside attacker saw a daemon's searches wait 7-8 s on a `moraine snapshot`
run from the shell). The load is slowed down here on purpose to make the wait visible."""

from __future__ import annotations

import threading
import time
from pathlib import Path
from typing import Any

import pytest
from _agentlogs import LogWriter, grow, populate

from moraine.ingest.pipeline import ingest_once
from moraine.store.engine import Store
from moraine.store.state import State

SLOW_LOAD_S = 1.5


def test_readers_do_not_wait_for_a_reload(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    writer = LogWriter(tmp_path / "logs", seed=31)
    populate(writer, n_codex=2, n_claude=2, records_per_file=(10, 20))
    config = writer.config(tmp_path / "state")
    daemon = Store(config)
    ingest_once(daemon)
    before = daemon.read.live_event_count()
    facade = daemon.read  # a face holding the read facade (the page) across the swap
    other = Store(config)  # `moraine snapshot` in a shell
    grow(writer, 2, (5, 10))
    ingest_once(other)
    with other.writer():
        other.publish()  # a new generation; the WAL file the daemon read is retired
    assert daemon.position[0] not in daemon.wal_set.seqs()

    load = Store._loaded

    def slow_load(self: Store, *args: Any) -> State:
        time.sleep(SLOW_LOAD_S)
        return load(self, *args)

    monkeypatch.setattr(Store, "_loaded", slow_load)
    waits: list[float] = []
    counts: list[int] = []
    done = threading.Event()

    def reader() -> None:
        while not done.is_set():
            started = time.monotonic()
            with daemon.lock:  # what every tool call takes
                counts.append(daemon.read.live_event_count())
            waits.append(time.monotonic() - started)
            time.sleep(0.01)

    thread = threading.Thread(target=reader)
    thread.start()
    started = time.monotonic()
    with daemon.writer():  # the daemon's next pass notices the retired WAL file
        pass
    took = time.monotonic() - started
    done.set()
    thread.join(30)
    assert took >= SLOW_LOAD_S  # the reload ran, slowly
    assert len(waits) >= 20 and max(waits) < SLOW_LOAD_S / 2, max(waits)
    assert counts[0] == before and daemon.read.live_event_count() == other.read.live_event_count() > before
    assert facade.live_event_count() == daemon.read.live_event_count()  # it reads the new state
    assert ingest_once(daemon).events == 0  # nothing lost, nothing read twice
    daemon._check()
