"""The parse workers run ahead of the indexer by a bound in log bytes, and using them changes
nothing: a pass with the worker pool builds the state a pass without it builds.

Real spawned worker processes and real logs; only the bound is made small, so that a few
small logs exercise it.
"""

from __future__ import annotations

import random
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from _agentlogs import LogWriter, populate

from moraine.ingest import pipeline
from moraine.ingest.pipeline import ingest_once
from moraine.model import Checkpoint
from moraine.sources import ADAPTERS
from moraine.store.engine import Store


def _logs(tmp_path: Path, seed: int, files: int) -> LogWriter:
    writer = LogWriter(tmp_path / "logs", seed=seed)
    populate(writer, n_codex=files // 2, n_claude=files // 2, records_per_file=(5, 40))
    return writer


def _tasks(writer: LogWriter) -> tuple[list[pipeline.Task], list[int]]:
    tasks, sizes = [], []
    for log in writer.files:
        adapter = "codex" if log.harness == "codex" else "claude-code"
        key = str(log.path)
        checkpoint = Checkpoint(adapter, 0, 0, 1, 0, 0, ADAPTERS[adapter].initial_state(key))
        tasks.append((key, key, adapter, checkpoint.to_wire(), 5000))
        sizes.append(log.path.stat().st_size)
    return tasks, sizes


def test_workers_run_ahead_by_at_most_the_byte_bound(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    writer = _logs(tmp_path, seed=7, files=60)
    tasks, sizes = _tasks(writer)
    groups = [sum(sizes[i : i + pipeline.GROUP]) for i in range(0, len(tasks), pipeline.GROUP)]
    bound = 3 * max(groups)
    monkeypatch.setattr(pipeline, "AHEAD", 1)
    monkeypatch.setattr(pipeline, "RUN_AHEAD_BYTES", bound)
    submitted: list[int] = []
    real_submit = ProcessPoolExecutor.submit

    def counting_submit(self: ProcessPoolExecutor, fn: Any, /, *args: Any, **kwargs: Any) -> Any:
        submitted.append(len(submitted))
        return real_submit(self, fn, *args, **kwargs)

    monkeypatch.setattr(ProcessPoolExecutor, "submit", counting_submit)
    parts: list[pipeline.Part] = []
    for consumed_files, file_parts in enumerate(pipeline._normalized(tasks, sizes, True, 2), start=1):
        parts.extend(file_parts)
        consumed_groups = consumed_files // pipeline.GROUP
        # Unconsumed groups in flight: their bytes stay within the bound plus the one group
        # that crossed it.
        in_flight = sum(groups[consumed_groups : len(submitted)])
        assert in_flight <= bound + max(groups)
        # And the workers do run ahead: past the two groups a count bound would allow.
        if len(submitted) < len(groups):
            assert len(submitted) - consumed_groups >= 3
    assert len(submitted) == len(groups)
    assert [p[0] for p in parts] == [t[1] for t in tasks]  # in task order
    assert parts == [p for task in tasks for p in pipeline.normalize_file(task)]  # as parsed in-process


def _doc_rows(store: Store) -> list[tuple[str, int, str]]:
    return [(store.event_id(doc), store.event_time(doc), store.event(doc).text)
            for doc in range(len(store.catalog.content))]


def test_a_pass_with_workers_builds_the_state_a_pass_without_them_builds(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    writer = _logs(tmp_path, seed=11, files=40)
    monkeypatch.setattr(pipeline, "AHEAD", 1)
    monkeypatch.setattr(pipeline, "RUN_AHEAD_BYTES", 64 * 1024)
    pooled = Store(writer.config(tmp_path / "pooled", ingest={"batch_events": 50}))
    serial = Store(writer.config(tmp_path / "serial", ingest={"batch_events": 50}))
    assert ingest_once(pooled, parallel=True).events == ingest_once(serial, parallel=False).events > 500
    assert _doc_rows(pooled) == _doc_rows(serial)
    terms = random.Random(3).sample(sorted(serial.index.vocab.terms), 40)
    for term in terms:
        for got, want in zip(pooled.index.postings(term), serial.index.postings(term), strict=True):
            assert np.array_equal(got, want), term
