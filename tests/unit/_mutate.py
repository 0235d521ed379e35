"""Seeded mutations of real log records, for fuzzing the adapters (tests and tools/fuzz_ingest.py).

Starting from every line of data_samples, a mutation replaces, retypes, deepens or breaks one
value somewhere in the record, or damages the line's bytes. The values are the shapes real
logs have shown or could show: the wrong JSON type, integers past 64 bits, NaN, deep nesting,
huge or odd strings (NUL, lone surrogates, invalid UTF-8), missing fields.
"""

from __future__ import annotations

import json
import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import msgpack

from moraine.model import LineRef
from moraine.sources import ADAPTERS, normalize_line
from moraine.store.validate import event_row_problem

SAMPLES = Path(__file__).resolve().parents[2] / "data_samples"


def sample_lines() -> list[tuple[str, str, bytes]]:
    """(harness, path, line) of every sample log line."""
    lines = []
    for harness, root in (("codex", SAMPLES / "codex"), ("claude-code", SAMPLES / "claude")):
        for path in sorted(root.rglob("*.jsonl")):
            lines.extend((harness, str(path), raw) for raw in path.read_bytes().splitlines() if raw.strip())
    return lines


def _deep(rng: random.Random) -> Any:
    node: Any = rng.choice([[], {}, "x", 1])
    for _ in range(rng.choice([40, 200, 900])):
        node = [node] if rng.random() < 0.5 else {"k": node}
    return node


def odd_value(rng: random.Random) -> Any:
    choices = [
        lambda: None, lambda: True, lambda: 0, lambda: -1, lambda: 2**63, lambda: 10**30, lambda: -(10**25),
        lambda: 1e19, lambda: 1e308, lambda: float("nan"), lambda: float("inf"), lambda: "",
        lambda: "x" * rng.choice([1, 300, 70_000]), lambda: "a\x00b", lambda: "\ud800", lambda: ["x"],
        lambda: {"a": ["b", {"c": 1}]}, lambda: [1, [2, [3]]], lambda: _deep(rng),
        lambda: "Exit code 99999999999999999999999",
        lambda: "2026-03-14T09:12:03.000Z", lambda: "0000-00-00", lambda: "9999-12-31T23:59:59Z", lambda: -5e20,
        lambda: {"type": "text", "text": 5}, lambda: [{"type": "tool_use", "name": 7, "input": 10**40}],
    ]
    return rng.choice(choices)()


def _paths(node: Any, prefix: tuple[Any, ...] = ()) -> Iterator[tuple[Any, ...]]:
    yield prefix
    if len(prefix) > 12:  # a subtree planted by an earlier mutation: do not walk into it
        return
    if isinstance(node, dict):
        for key, value in node.items():
            yield from _paths(value, (*prefix, key))
    elif isinstance(node, list):
        for i, value in enumerate(node[:8]):
            yield from _paths(value, (*prefix, i))


def _set(node: Any, path: tuple[Any, ...], value: Any) -> Any:
    if not path:
        return value
    parent = node
    for step in path[:-1]:
        parent = parent[step]
    parent[path[-1]] = value
    return node


def _dumps(record: Any) -> bytes:
    try:
        return json.dumps(record, ensure_ascii=False, allow_nan=True).encode("utf-8", "surrogatepass")
    except (RecursionError, ValueError):
        return b"[" * 2000


def mutate(raw: bytes, rng: random.Random) -> bytes:
    """One mutated version of a log line."""
    roll = rng.random()
    if roll < 0.1:  # damage the bytes
        data = bytearray(raw)
        for _ in range(rng.randint(1, 4)):
            if data:
                data[rng.randrange(len(data))] = rng.randrange(256)
        return bytes(data).replace(b"\n", b" ")
    if roll < 0.15:
        return raw[: rng.randrange(max(1, len(raw)))]  # a cut line
    try:
        record = json.loads(raw)
    except ValueError:  # the samples hold malformed lines on purpose
        return raw
    for _ in range(rng.randint(1, 3)):
        paths = list(_paths(record))
        path = rng.choice(paths[1:] or paths)
        if rng.random() < 0.15 and path and isinstance(record, dict):
            parent = record
            for step in path[:-1]:
                parent = parent[step]
            if isinstance(parent, dict):
                parent.pop(path[-1], None)
                continue
        record = _set(record, path, odd_value(rng))
    return _dumps(record).replace(b"\n", b" ")


def fuzz_once(rng: random.Random, lines: list[tuple[str, str, bytes]], states: dict[str, dict[str, Any]],
              number: int) -> tuple[list[list[Any]], list[list[Any]]]:
    """Normalize one mutated line; AssertionError (or any exception) is a finding."""
    harness, path, raw = rng.choice(lines)
    adapter = ADAPTERS[harness]
    line = mutate(raw, rng)
    state = states.setdefault(path, adapter.initial_state(path))
    ref = LineRef(path, 1, number, number * 100)
    events, issue = normalize_line(adapter, line, ref, state)
    rows = [e.to_wire() for e in events]
    for row in rows:
        assert event_row_problem(row) is None, (event_row_problem(row), line[:300])
        msgpack.packb(row, use_bin_type=True)
    msgpack.packb(state, use_bin_type=True)  # the adapter state travels in checkpoints
    return rows, [issue.to_wire()] if issue else []
