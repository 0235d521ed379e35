"""One event-row schema, versioned: a field added to every event (the harness's version) travels
from the adapters to `open`, while the rows an earlier version wrote (WAL frames, content
chunks) read as before, and a frame of a newer row format is refused by name, not misread."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import msgpack
import pytest
from _agentlogs import LogWriter, populate

from moraine.errors import StateError
from moraine.ingest.pipeline import ingest_once
from moraine.model import ROW_FORMAT, ROW_LENGTHS, WIRE_FIELDS, Event, LineRef, make_uid
from moraine.sources import claude_code, codex, qwen_code
from moraine.store.batch import Batch
from moraine.store.contents import blank_row
from moraine.store.engine import Store

SAMPLES = Path(__file__).resolve().parents[2] / "data_samples"
OLD = ROW_LENGTHS[1]  # the rows of format 1: every field up to `meta`


def _event(n: int) -> Event:
    return Event(uid=make_uid("old", n), session_key="codex:old-session", source="codex", type="user_input",
                 ts_ms=1_767_225_600_000 + n, text=f"written by an earlier moraine number {n}", model="gpt-old",
                 file="/logs/old.jsonl", line=n, offset=100 * n, meta={"cwd": "/repo"} if n == 1 else {},
                 harness_version="9.9.9")


def _append(store: Store, payload: dict[str, Any]) -> None:
    """A frame as another version of Moraine appended it."""
    with store.writer():
        store.wal_set.open(store.position[0]).append(payload)


def test_the_row_format_is_declared_once_and_a_later_one_only_appends() -> None:
    assert ROW_LENGTHS[ROW_FORMAT] == len(WIRE_FIELDS)
    assert WIRE_FIELDS[OLD:] == ("harness_version",)
    assert Event.from_wire(_event(1).to_wire()[:OLD]).harness_version is None


def test_rows_of_an_earlier_format_stay_readable(tmp_path: Path) -> None:
    config = LogWriter(tmp_path / "logs", seed=1).config(tmp_path / "state")
    store = Store(config)
    old_rows = [_event(n).to_wire()[:OLD] for n in (1, 2, 3)]
    # format 1 wrote no "row_format": rows as a list (the oldest frames) and as a batch
    _append(store, {"events": old_rows[:1], "issues": [], "checkpoints": {}, "at": 1})
    _append(store, {"batch": Batch.from_rows(old_rows[1:]).to_wire(), "issues": [], "checkpoints": {}, "at": 2})
    for reopened in range(2):  # from the WAL, then from the published content chunks
        store = Store(config)
        assert store.read.live_event_count() == 3 and not store.stats.issues
        for n in (1, 2, 3):
            doc = store.read.doc_by_uid(make_uid("old", n))
            assert doc is not None
            event = store.read.event(doc)
            assert (event.text, event.model, event.line, event.meta, event.harness_version) == \
                (_event(n).text, "gpt-old", n, _event(n).meta, None)
        store._check()
        if not reopened:
            with store.writer():
                store.publish()


def test_a_retired_row_of_an_earlier_format_keeps_its_length() -> None:
    old = _event(1).to_wire()[:OLD]
    blank = msgpack.unpackb(blank_row(msgpack.packb(old, use_bin_type=True)), raw=False)
    assert len(blank) == OLD
    event = Event.from_wire(blank)
    assert (event.uid, event.text, event.model, event.meta, event.line) == (old[0], "", None, {}, 1)
    current = msgpack.unpackb(blank_row(msgpack.packb(_event(2).to_wire(), use_bin_type=True)), raw=False)
    assert len(current) == len(WIRE_FIELDS) and current[-1] is None  # the version goes with the rest


@pytest.mark.parametrize(("row_format", "said"), [
    (ROW_FORMAT + 1, f"row format {ROW_FORMAT + 1} is newer than this Moraine reads"),
    ("2", "row format '2' is not one Moraine writes"),
    (-1, "row format '-1' is not one Moraine writes"),
    (0, "row format '0' is not one Moraine writes"),
])
def test_a_frame_of_an_unknown_row_format_loses_nothing_the_logs_hold(tmp_path: Path, row_format: Any,
                                                                      said: str) -> None:
    """Its events are left out and so are its checkpoints: the logs they came from are read again
    (a downgrade after a newer Moraine wrote the WAL loses nothing). What the person asked applies."""
    writer = LogWriter(tmp_path / "logs", seed=2)
    populate(writer, n_codex=1, n_claude=1, records_per_file=(10, 12))
    config = writer.config(tmp_path / "state")
    reference = Store(LogWriter(tmp_path / "logs", seed=2).config(tmp_path / "reference"))
    ingest_once(reference)
    store = Store(config)
    newer = [*_event(1).to_wire(), "a field from the future"]
    checkpoints = {path: cp.to_wire() for path, cp in reference.checkpoints.items()}
    _append(store, {"row_format": row_format, "events": [newer], "issues": [], "checkpoints": checkpoints,
                    "at": 3, "file_issues": {"/logs/elsewhere.jsonl": "permission denied"}})
    store = Store(config)
    assert store.read.live_event_count() == 0 and store.checkpoints == {}
    assert store.file_issues == {"/logs/elsewhere.jsonl": "permission denied"}
    reasons = [issue.reason for issue in store.stats.issues]
    assert len(reasons) == 1 and said in reasons[0] and "read again" in reasons[0], reasons
    ingest_once(store)
    assert store.read.live_event_count() == reference.read.live_event_count() > 0
    store._check()


def test_a_frame_this_version_writes_names_its_format(tmp_path: Path) -> None:
    config = LogWriter(tmp_path / "logs", seed=3).config(tmp_path / "state")
    store = Store(config)
    with store.writer():
        store.commit([_event(1).to_wire()], [], {})
    frames = list(store.wal_set.open(store.position[0]).frames())
    assert frames[-1].payload["row_format"] == ROW_FORMAT
    assert store.read.event(store.read.doc_by_uid(make_uid("old", 1)) or 0).harness_version == "9.9.9"


def _parsed(module: Any, path: Path) -> list[Event]:
    state = module.initial_state(str(path))
    events: list[Event] = []
    offset = 0
    for line_no, line in enumerate(path.read_bytes().splitlines(keepends=True), 1):
        try:
            record = json.loads(line)
        except ValueError:  # the samples hold malformed lines on purpose (ingest quarantines them)
            record = None
        if isinstance(record, dict):
            events += module.parse(record, LineRef(str(path), 1, line_no, offset), state)
        offset += len(line)
    return events


@pytest.mark.parametrize(("module", "pattern", "version"), [
    (claude_code, "claude/projects/-home-dev-webapp/8913b891-d960-41db-821f-22cd6e66f0d2.jsonl", "2.1.76"),
    (codex, "codex/sessions/2026/03/11/*.jsonl", "0.111.0"),
    (qwen_code, "qwen/projects/*/chats/*.jsonl", "0.19.11"),
])
def test_the_adapters_stamp_the_harness_version_their_logs_carry(module: Any, pattern: str, version: str) -> None:
    path = next(iter(sorted(SAMPLES.glob(pattern))))
    events = _parsed(module, path)
    assert events and {e.harness_version for e in events} <= {version, None}
    assert version in {e.harness_version for e in events}
    assert sum(e.harness_version == version for e in events) >= len(events) // 2


@pytest.mark.parametrize("value", ["1" * 41, "2.0\n; curl x | sh", {"major": 2}, 2.1, "", " 1.0", "1.0\u202e"])
def test_a_version_that_does_not_look_like_one_is_not_kept(value: Any) -> None:
    record = {"type": "user", "sessionId": "s1", "timestamp": "2026-03-01T10:00:00Z", "version": value,
              "message": {"role": "user", "content": "hello"}}
    events = claude_code.parse(record, LineRef("/logs/s1.jsonl", 1, 1, 0), claude_code.initial_state("/x/s1.jsonl"))
    assert events and all(e.harness_version is None for e in events)


def test_a_record_without_a_version_of_its_own_shows_none() -> None:
    """A version is the record's: one without (or with something else) does not inherit the one before."""
    state = claude_code.initial_state("/x/s1.jsonl")
    shown = []
    for n, value in enumerate(["2.1.76", None, 42, "2.1.77", {"v": 1}, "1.0\r\nrm", "2.1.78"]):
        record = {"type": "user", "sessionId": "s1", "timestamp": f"2026-03-01T10:00:{n:02d}Z",
                  "message": {"role": "user", "content": f"prompt {n}"}}
        if value is not None:
            record["version"] = value
        events = claude_code.parse(record, LineRef("/logs/s1.jsonl", 1, n + 1, 100 * n), state)
        shown.append({e.harness_version for e in events})
    assert shown == [{"2.1.76"}, {None}, {None}, {"2.1.77"}, {None}, {None}, {"2.1.78"}]


@pytest.mark.parametrize("damage", ["cut short", "a version that is a map", "not a list"])
def test_a_row_a_bug_wrote_is_named_with_its_remedy(tmp_path: Path, damage: str) -> None:
    """A frame whose checksum holds but whose packed rows are not events (a writer's bug): the
    state opens, the other events read, and the damaged one says what to run."""
    config = LogWriter(tmp_path / "logs", seed=5).config(tmp_path / "state")
    store = Store(config)
    rows = [_event(n).to_wire() for n in (1, 2)]
    wire = Batch.from_rows(rows).to_wire()
    bad = {"cut short": rows[0][:5], "a version that is a map": [*rows[0][:-1], {"v": "\x1b]52;c;ghp_x\x07"}],
           "not a list": {"uid": rows[0][0]}}[damage]
    wire["rows"] = [msgpack.packb(bad, use_bin_type=True), *wire["rows"][1:]]
    _append(store, {"row_format": ROW_FORMAT, "batch": wire, "issues": [], "checkpoints": {}, "at": 4})
    for reopened in range(2):  # from the WAL, then from a published chunk
        store = Store(config)
        good = store.read.doc_by_uid(make_uid("old", 2))
        assert good is not None and store.read.event(good).text == _event(2).text
        damaged = store.read.doc_by_uid(make_uid("old", 1))
        assert damaged is not None
        with pytest.raises(StateError, match=r"is stored damaged \(.+\); run `moraine reindex`"):
            store.read.event(damaged)
        if not reopened:
            with store.writer():
                store.publish()
