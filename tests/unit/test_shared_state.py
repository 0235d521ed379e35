"""Two processes share one state dir: a writer that died mid-append leaves a torn frame, and
the next writer must cut it before appending, so the state stays openable and complete."""

from __future__ import annotations

import json
from pathlib import Path

from moraine.config import load_config
from moraine.ingest.pipeline import ingest_once
from moraine.store.engine import Store


def _line(i: int, word: str) -> str:
    return json.dumps({"type": "user", "sessionId": "11111111-2222-4333-8444-555555555555", "uuid": f"u{i}",
                       "timestamp": f"2026-03-01T10:00:{i:02d}.000Z", "cwd": "/w",
                       "message": {"role": "user", "content": f"please look at the {word} module"}}) + "\n"


def test_a_torn_frame_is_cut_before_the_next_append(tmp_path: Path) -> None:
    log = tmp_path / "claude" / "projects" / "p" / "11111111-2222-4333-8444-555555555555.jsonl"
    log.parent.mkdir(parents=True)
    log.write_text(_line(1, "zebra"))
    env = {"CODEX_HOME": str(tmp_path / "codex"), "CLAUDE_CONFIG_DIR": str(tmp_path / "claude")}
    config = load_config({"home": str(tmp_path / "state")}, env=env)
    first, second = Store(config), Store(config)
    ingest_once(first)
    with (tmp_path / "state" / "wal" / "00000001.log").open("ab") as wal:  # `second` died half-way through a frame
        wal.write(b"\x40\x00\x00\x00\x00\x00\x00\x00partial")
    with log.open("a") as fh:
        fh.write(_line(2, "yak"))
    ingest_once(first)
    reopened = Store(config)  # must not see damage: the torn bytes were cut under the lock
    for store in (first, reopened):
        for word in ("zebra", "yak"):
            assert store.search([word], 10, ["user_input"], None, None).total == 1, word
    ingest_once(second)  # the other process catches up from the log, duplicating nothing
    assert second.search(["yak"], 10, ["user_input"], None, None).total == 1
    assert len(second.catalog.by_uid) == len(reopened.catalog.by_uid) == 2
