"""Seeded fuzzing of every adapter and of the store behind it (no line can break Moraine).

Mutated sample records go through `normalize_line` (never raises; every row it returns is
one the store can apply and msgpack can store), then through real WAL frames into a Store,
whose invariants hold after every frame and again after a restart from the WAL. The budget
is fixed for CI; `tools/fuzz_ingest.py` runs the same generator for as long as asked.
"""

from __future__ import annotations

import random
import time
from pathlib import Path
from typing import Any

import pytest
from _mutate import fuzz_once, sample_lines

from moraine.config import load_config
from moraine.store.engine import Store

BUDGET_S = 12.0


@pytest.mark.parametrize("seed", [1, 2])
def test_mutated_records_never_break_ingest_or_the_store(seed: int, tmp_path: Path,
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MORAINE_HOME", str(tmp_path / "state"))
    config = load_config()
    store = Store(config)
    rng = random.Random(seed)
    lines = sample_lines()
    states: dict[str, dict[str, Any]] = {}
    deadline = time.monotonic() + BUDGET_S / 2
    tried = issues = 0
    while time.monotonic() < deadline:
        frame_rows: list[list[Any]] = []
        frame_issues: list[list[Any]] = []
        for _ in range(50):
            tried += 1
            rows, found = fuzz_once(rng, lines, states, tried)
            frame_rows.extend(rows)
            frame_issues.extend(found)
        issues += len(frame_issues)
        with store.writer():
            store.commit(frame_rows, frame_issues, {})
        store._check()
    assert tried > 500 and issues > 0
    reopened = Store(config)
    reopened._check()
    assert reopened.counts() == store.counts()
    assert not reopened.bad_frames
