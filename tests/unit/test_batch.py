"""The columnar `Batch`: what the parse workers emit, the WAL frames and the store applies.

Its columns must say exactly what the rows say (the catalog is built from them), survive the
WAL byte for byte, merge and select without mixing events up, and a wire form of the wrong
shape or with values out of range must be refused or cut, never applied half.
"""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import msgpack
import numpy as np
import pytest

from moraine.config import load_config
from moraine.index.tokenize import query_terms
from moraine.model import EVENT_TYPES, TYPE_CODE, Event, make_uid
from moraine.store.batch import COMMENTARY, EXCLUDED, STARTS_TURN, TERMINAL_SHIFT, Batch, BatchError
from moraine.store.contents import pack_rows
from moraine.store.engine import Store
from moraine.store.session import transcript_lines
from moraine.store.validate import event_row_problem, screen_frame
from moraine.store.wal import Wal


def _rows(rng: random.Random, n: int) -> list[list[Any]]:
    """Seeded, valid wire rows over a few sessions, files, tools and models."""
    rows = []
    for i in range(n):
        k = rng.randrange(4)
        event = Event(
            uid=make_uid("t", rng.random(), i), session_key=f"codex:s{k}", source=("codex", "pi")[k % 2],
            type=rng.choice(EVENT_TYPES), ts_ms=rng.randrange(0, 2**41),
            text=rng.choice(["", "one line", "two\nlines", "a\nb\nc\n", "[REDACTED:aws-key] here"]),
            tool_name=rng.choice([None, "", "shell", "apply_patch"]), model=rng.choice([None, "gpt-5", "o3"]),
            starts_turn=rng.random() < 0.3, terminal=rng.randrange(3), excluded=rng.random() < 0.1,
            phase=rng.choice([None, "Commentary", "final"]), file=f"/logs/{k}-{rng.randrange(2)}.jsonl",
            line=rng.randrange(10**6), offset=rng.randrange(2**40), sub=rng.randrange(5),
            meta=rng.choice([{}, {}, {"cwd": "/repo"}, {"title_ai": "t", "n": 3}]),
        )
        row = event.to_wire()
        assert event_row_problem(row) is None
        rows.append(row)
    return rows


def _events(batch: Batch) -> list[tuple[Any, ...]]:
    """Each event of a batch as one tuple of everything it says, names resolved."""
    return [
        (batch.uids[i], batch.keys[batch.key_ix[i]], batch.sources[batch.key_ix[i]], batch.files[batch.file_ix[i]],
         batch.names[batch.tool_ix[i]], batch.names[batch.model_ix[i]], int(batch.ts[i]), int(batch.codes[i]),
         int(batch.flags[i]), int(batch.line[i]), int(batch.sub[i]), int(batch.offset[i]), int(batch.nlines[i]),
         batch.texts[i], batch.rows[i], batch.metas.get(i))
        for i in range(len(batch))
    ]


def _expected(row: list[Any]) -> tuple[Any, ...]:
    """What a batch must say of one row, derived from the `Event` it is."""
    e = Event.from_wire(row)
    flags = (e.starts_turn * STARTS_TURN | e.excluded * EXCLUDED
             | ((e.phase or "").lower() == "commentary") * COMMENTARY | e.terminal << TERMINAL_SHIFT)
    return (e.uid, e.session_key, e.source, e.file, e.tool_name or "", e.model or "", e.ts_ms, TYPE_CODE[e.type],
            flags, e.line, e.sub, e.offset, transcript_lines(e), e.text, pack_rows([row])[0], e.meta or None)


@pytest.mark.parametrize("seed", range(5))
def test_columns_say_what_the_rows_say_and_survive_the_wal(seed: int) -> None:
    rows = _rows(random.Random(seed), 300)
    batch = Batch.from_rows(rows)
    assert _events(batch) == [_expected(row) for row in rows]
    first: dict[str, str] = {}
    for row in rows:
        first.setdefault(row[1], row[2])
    assert batch.keys == list(first) and batch.sources == list(first.values())
    wire = msgpack.unpackb(msgpack.packb(batch.to_wire(), use_bin_type=True), raw=False, strict_map_key=False)
    again = Batch.from_wire(wire)
    assert again == batch and _events(again) == _events(batch) and again.problems() == {}
    assert again.ts.dtype == np.int64 and again.key_ix.dtype == np.uint32


@pytest.mark.parametrize("seed", range(5))
def test_concat_and_take_keep_each_event_whole(seed: int) -> None:
    rng = random.Random(seed)
    rows = _rows(rng, 200)
    cuts = sorted(rng.sample(range(1, 200), 4))
    parts = [rows[a:b] for a, b in zip([0, *cuts], [*cuts, 200], strict=True)]
    merged = Batch.concat([Batch.from_rows(p) for p in parts] + [Batch()])
    assert _events(merged) == _events(Batch.from_rows(rows))
    picks = rng.sample(range(200), 60)
    assert _events(merged.take(picks)) == [_expected(rows[i]) for i in picks]
    taken = Batch.concat([merged.take(picks[:30]), merged.take(picks[30:])])
    assert _events(taken) == [_expected(rows[i]) for i in picks]
    assert Batch.concat([]) == Batch() and len(Batch.concat([Batch(), Batch()])) == 0


def test_indexable_and_first_of_each_key() -> None:
    rows = _rows(random.Random(9), 400)
    batch = Batch.from_rows(rows)
    events = [Event.from_wire(r) for r in rows]
    assert batch.indexable().tolist() == [i for i, e in enumerate(events)
                                          if e.type != "unknown" and not e.excluded and e.text]
    firsts = {}
    for i, e in enumerate(events):
        firsts.setdefault(e.session_key, i)
    assert batch.first_of_each_key() == sorted(firsts.values())


def _wire() -> dict[str, Any]:
    wire: dict[str, Any] = Batch.from_rows(_rows(random.Random(3), 20)).to_wire()
    return wire


@pytest.mark.parametrize(("name", "value"), [
    ("rows", "x"), ("rows", [b"x"] * 19), ("rows", [b"x"] * 19 + ["x"]), ("texts", [1] * 20), ("uids", "a" * 26),
    ("uids", "é" * 520), ("ts", b"\0" * 8), ("codes", "x"), ("key_ix", None), ("keys", ["a", 1]), ("keys", "a"),
    ("sources", []), ("names", ["x"]), ("names", []), ("file_ix", np.full(20, 99, np.uint32).tobytes()),
    ("tool_ix", np.full(20, 2**31, np.uint32).tobytes()), ("metas", [[99, {}]]), ("metas", [[0, "x"]]),
    ("metas", {}), ("files", [b"x"]),
])
def test_a_wire_form_of_the_wrong_shape_is_refused_whole(name: str, value: Any) -> None:
    wire = _wire()
    wire[name] = value
    with pytest.raises(BatchError):
        Batch.from_wire(wire)
    payload, issues = screen_frame({"batch": wire, "issues": [], "checkpoints": {}}, "wal@5")
    assert len(payload["batch"]) == 0
    assert len(issues) == 1 and issues[0].file == "wal@5" and issues[0].reason.startswith("wal_frame_rejected")


@pytest.mark.parametrize(("column", "value", "reason"), [
    ("ts", -1, "timestamp"), ("ts", 10**18, "timestamp"), ("codes", len(EVENT_TYPES), "type"),
    ("flags", 3 << TERMINAL_SHIFT, "flags"), ("line", -1, "coordinates"), ("line", 2**31, "coordinates"),
    ("sub", -2, "coordinates"), ("offset", -1, "coordinates"), ("nlines", -1, "lines"),
])
def test_values_out_of_range_leave_their_event_out_with_its_coordinates(column: str, value: int,
                                                                         reason: str) -> None:
    batch = Batch.from_rows(_rows(random.Random(4), 10))
    getattr(batch, column)[3] = value
    wire = batch.to_wire()
    payload, issues = screen_frame({"batch": wire, "issues": [], "checkpoints": {}}, "wal@7")
    kept = payload["batch"]
    assert kept.uids == [u for i, u in enumerate(batch.uids) if i != 3]
    assert len(issues) == 1 and reason in issues[0].reason and issues[0].reason.startswith("rejected_event")
    assert issues[0].file == batch.files[batch.file_ix[3]] and issues[0].line == int(batch.line[3])


@pytest.mark.parametrize("change", ["uid", "key", "meta"])
def test_malformed_names_and_metadata_leave_their_event_out(change: str) -> None:
    batch = Batch.from_rows(_rows(random.Random(5), 10))
    if change == "uid":
        batch.uids[2] = "UPPER" + batch.uids[2][5:]
    elif change == "key":
        batch.keys[int(batch.key_ix[2])] = ""
    else:
        batch.metas[2] = {"cwd": ["not", "text"]}
    kept, issues = screen_frame({"batch": batch.to_wire()}, "wal@1")
    assert 2 not in [batch.uids.index(u) for u in kept["batch"].uids] and len(issues) >= 1
    assert all(i.reason.startswith("rejected_event") for i in issues)


def _store(tmp_path: Path, name: str) -> Store:
    return Store(load_config(overrides={"home": str(tmp_path / name), "store": {"fsync": "never"}}, env={}))


def test_frames_of_rows_and_of_batches_build_the_same_state(tmp_path: Path) -> None:
    """Frames written by older versions (rows) replay to what a batch builds, live and after a restart."""
    rows = _rows(random.Random(11), 300)
    by_rows, by_batch = _store(tmp_path, "rows"), _store(tmp_path, "batch")
    with by_rows.writer():
        by_rows.commit(rows[:150], [], {})
        by_rows.commit(rows[150:], [], {})
    with by_batch.writer():
        by_batch.commit(Batch.from_rows(rows[:150]), [], {})
        by_batch.commit(Batch.from_rows(rows[150:]), [], {})
    old = tmp_path / "old"  # a WAL as an older version wrote it: the frames hold rows
    (old / "wal").mkdir(parents=True)
    wal = Wal(old / "wal" / "00000001.log", "never")
    for part in (rows[:150], rows[150:]):
        wal.append({"events": part, "issues": [], "checkpoints": {}, "at": 1})
    stores = [by_rows, by_batch, _store(tmp_path, "batch"), _store(tmp_path, "old")]
    for store in stores:
        store._check()
    catalog = stores[0].catalog
    for store in stores[1:]:
        for column in ("uid", "type_code", "ts", "session_ix", "starts_turn", "terminal", "commentary", "alive",
                       "line", "sub", "nlines"):
            assert np.array_equal(getattr(store.catalog, column).view, getattr(catalog, column).view), column
        assert [store.catalog.event(d) for d in range(len(rows))] == [catalog.event(d) for d in range(len(rows))]
        assert [(s.key, s.source, s.cwd, s.title_ai, s.first_prompt, s.docs) for s in store.catalog.sessions] == \
            [(s.key, s.source, s.cwd, s.title_ai, s.first_prompt, s.docs) for s in catalog.sessions]
        hits = store.search(query_terms("lines", 16), 50, list(EVENT_TYPES[:-1]), None, None)
        assert hits.total == stores[0].search(query_terms("lines", 16), 50, list(EVENT_TYPES[:-1]), None, None).total
        assert store.redaction_counts() == stores[0].redaction_counts()



def test_every_positional_read_of_a_row_follows_the_event_fields() -> None:
    """The wire row's order is `Event`'s field order, declared once: each field, given a value of
    its own, is found at its place by the row, the row check, the batch and the content store."""
    from moraine.model import WIRE_FIELDS, WIRE_TEXT, WIRE_TS
    from moraine.store.contents import TEXT
    from moraine.store.validate import WIRE_LEN, _row_issue

    event = Event(uid=make_uid("k", "f", 1, 0, 0), session_key="codex:k", source="codex", type="tool_call",
                  ts_ms=1_773_000_000_123, text="text here", tool_name="Bash", tool_call_id="call-7",
                  arguments={"cmd": "ls"}, exit_code=3, model="gpt-x", starts_turn=True, terminal=1, excluded=False,
                  phase="commentary", file="/logs/a.jsonl", line=41, offset=4096, sub=2, meta={"cwd": "/w"})
    row = event.to_wire()
    assert len(row) == len(WIRE_FIELDS) == WIRE_LEN
    assert row == [getattr(event, name) for name in WIRE_FIELDS]
    assert Event.from_wire(row) == event
    assert row[WIRE_TS] == event.ts_ms and row[WIRE_TEXT] == row[TEXT] == event.text
    assert event_row_problem(row) is None
    issue = _row_issue(row, "x", "frame")
    assert (issue.file, issue.line, issue.offset) == (event.file, event.line, event.offset)
    batch = Batch.from_rows([row])
    assert (batch.uids, batch.texts, batch.keys, batch.sources, batch.files) == (
        [event.uid], [event.text], [event.session_key], [event.source], [event.file])
    assert (int(batch.ts[0]), int(batch.line[0]), int(batch.offset[0]), int(batch.sub[0])) == (
        event.ts_ms, event.line, event.offset, event.sub)
    assert batch.names[int(batch.tool_ix[0])] == "Bash" and batch.names[int(batch.model_ix[0])] == "gpt-x"
    assert int(batch.codes[0]) == TYPE_CODE["tool_call"] and batch.metas == {0: {"cwd": "/w"}}
    assert int(batch.flags[0]) == STARTS_TURN | COMMENTARY | 1 << TERMINAL_SHIFT
