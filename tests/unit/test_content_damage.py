"""A content chunk damaged after it was verified (bit rot: same size, same time) is named with
its fix when a row of it is read, not reported as a decompressor's internal error."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from _agentlogs import LogWriter, populate

from moraine.errors import StateError
from moraine.ingest.pipeline import ingest_once
from moraine.store.engine import Store


def test_a_damaged_chunk_names_itself_and_the_repair(tmp_path: Path) -> None:
    writer = LogWriter(tmp_path / "logs", seed=4)
    populate(writer, n_codex=2, n_claude=2, records_per_file=(30, 40))
    config = writer.config(tmp_path / "state")
    store = Store(config)
    ingest_once(store, snapshot=True)
    chunks = sorted((tmp_path / "state" / "content").glob("*.zst"))
    assert chunks
    chunk = chunks[0]
    stat = chunk.stat()
    data = bytearray(chunk.read_bytes())
    for i in range(0, len(data)):  # every byte: each frame's header and body
        data[i] ^= 0x5A
    chunk.write_bytes(bytes(data))
    os.utime(chunk, ns=(stat.st_atime_ns, stat.st_mtime_ns))
    reopened = Store(config)
    with pytest.raises(StateError, match=r"is damaged: its frame \d+ does not decompress") as caught:
        for doc in range(reopened.read.live_event_count()):
            reopened.read.event(doc)
    assert str(chunk) in str(caught.value) and "moraine doctor --repair" in str(caught.value)
