"""A WAL frame the store cannot apply never makes the state unusable.

Two layers: `screen_frame` leaves out (and quarantines) rows of the wrong shape before a
frame applies; and a frame that fails midway although screened (a bug) is skipped on a
reload from the snapshot, reported, and the state's invariants hold, live and after restart.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from moraine.config import load_config
from moraine.index.tokenize import query_terms
from moraine.model import Event
from moraine.store import catalog as catalog_module
from moraine.store.batch import Batch
from moraine.store.engine import Store
from moraine.store.validate import event_row_problem, screen_frame


def _row(uid_: str, text_: str, **over: Any) -> list[Any]:
    uid, text = uid_, text_
    event = Event(uid=uid, session_key="codex:s1", source="codex", type="user_input", ts_ms=1_773_480_000_000,
                  text=text, starts_turn=True, file="/logs/a.jsonl", line=int(over.pop("line", 1)), offset=10)
    row = event.to_wire()
    names = ["uid", "session_key", "source", "type", "ts_ms", "text", "tool_name", "tool_call_id", "arguments",
             "exit_code", "model", "starts_turn", "terminal", "excluded", "phase", "file", "line", "offset", "sub",
             "meta"]
    for key, value in over.items():
        row[names.index(key)] = value
    return row


@pytest.mark.parametrize(("field", "value"), [
    ("ts_ms", 10**19), ("ts_ms", -1), ("ts_ms", 1.5), ("model", ["x"]), ("phase", 1), ("tool_name", {"a": 1}),
    ("exit_code", 2**40), ("type", "nonsense"), ("type", {"a": 1}), ("type", ["x"]), ("uid", "UPPER"),
    ("meta", {"cwd": ["a"]}), ("meta", []),
    ("text", None), ("starts_turn", 1), ("terminal", 9), ("line", -3), ("session_key", ""),
])
def test_each_malformed_field_is_left_out_with_its_coordinates(field: str, value: Any) -> None:
    bad = _row("a" * 26, "bad", **{field: value}, line=7) if field != "line" else _row("a" * 26, "bad", line=-3)
    good = _row("b" * 26, "good", line=8)
    assert event_row_problem(bad) is not None and event_row_problem(good) is None
    payload, issues = screen_frame({"events": [bad, good], "issues": [], "checkpoints": {}}, "wal@1")
    assert payload["batch"] == Batch.from_rows([good])
    assert len(issues) == 1 and issues[0].reason.startswith("rejected_event")


def test_malformed_frame_parts_are_dropped_not_fatal() -> None:
    payload, issues = screen_frame({"events": "x", "issues": [["f"]], "checkpoints": {"p": [1]}, "forget": [3],
                                    "file_issues": [1]}, "wal@9")
    assert len(payload["batch"]) == 0 and payload["issues"] == [] and payload["checkpoints"] == {}
    assert payload["forget"] == [] and payload["file_issues"] == {}
    assert any("checkpoints" in i.reason for i in issues)
    assert screen_frame(["not", "a", "map"], "wal@9")[0] == {}


def test_a_frame_failing_midway_is_skipped_and_the_state_stays_whole(tmp_path: Path,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MORAINE_HOME", str(tmp_path / "state"))
    config = load_config()
    store = Store(config)
    with store.writer():
        store.commit([_row("a" * 26, "first words", line=1)], [], {})
    real = catalog_module.Catalog.append_batch

    def failing(self: Any, first: int, batch: Batch, sessions: dict[int, Any]) -> None:
        real(self, first, batch, sessions)
        if "explode here" in batch.texts:
            raise RuntimeError("a bug after half the frame applied")

    monkeypatch.setattr(catalog_module.Catalog, "append_batch", failing)
    with store.writer():
        store.commit([_row("c" * 26, "explode here", line=2)], [], {})
    store._check()
    assert len(store.bad_frames) == 1
    assert store.search(query_terms("explode", 16), 10, ["user_input"], None, None).total == 0
    with store.writer():
        store.commit([_row("d" * 26, "after words", line=3)], [], {})
    store._check()
    assert store.search(query_terms("after", 16), 10, ["user_input"], None, None).total == 1

    reopened = Store(config)  # a restart meets the same frame, skips it the same way
    reopened._check()
    assert reopened.counts()["live_events"] == 2
    assert any(i.reason.startswith("wal_frame_skipped") for i in reopened.stats.issues)
    monkeypatch.setattr(catalog_module.Catalog, "append_batch", real)


def test_a_row_msgpack_refuses_is_quarantined_and_the_others_kept(tmp_path: Path,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    """The net under the cleaning rules: an integer past 64 bits in a row (cleaning turns them
    into text, so only a missing rule gets here) cannot be packed; that row is quarantined with
    its coordinates, by the parse workers' path and by a commit of rows alike."""
    from moraine.store.validate import packed_batch

    good, bad = _row("a" * 26, "kept words", line=1), _row("b" * 26, "lost", line=2, arguments={"n": 2**70})
    assert event_row_problem(bad) is None  # its shape is right: only msgpack refuses it
    batch, rejected = packed_batch([good, bad])
    assert batch.uids == ["a" * 26] and len(rejected) == 1
    assert rejected[0][2] == 2 and rejected[0][4].startswith("rejected_event: cannot be stored")
    monkeypatch.setenv("MORAINE_HOME", str(tmp_path / "state"))
    store = Store(load_config())
    with store.writer():
        store.commit([good, bad], [], {})
    store._check()
    assert store.counts()["live_events"] == 1
    assert any(i.line == 2 and "cannot be stored" in i.reason for i in store.stats.issues)
