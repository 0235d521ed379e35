"""The sessions published as a base plus the sessions changed since (`store.session_files`):
what a generation stores loads back to exactly the sessions, doc lists and file names it was
given, it names exactly the sessions that differ from the base, and the base is written again
once they outweigh a quarter of it."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import msgpack
import numpy as np
import pytest

from moraine.errors import StateError
from moraine.store import session_files

NAMES = ["", "/logs/a.jsonl"]


def _flat(doc_lists: list[list[int]]) -> tuple[np.ndarray, np.ndarray]:
    lengths = [len(d) for d in doc_lists]
    offsets = np.concatenate(([0], np.cumsum(lengths))).astype(np.int64)
    return offsets, np.array([d for docs in doc_lists for d in docs], dtype=np.int32)


def _record(rng: random.Random, ix: int) -> list[Any]:
    return [f"key-{ix}", f"sid-{ix}", rng.choice(["codex", "claude-code"]), {f"/logs/{ix}.jsonl": rng.randint(0, 9)},
            rng.choice([None, "/repo"]), None, [], None, rng.choice([None, "title"]), None, "first prompt", False,
            False, rng.random() < 0.5, rng.randint(0, 10**12), rng.randint(0, 10**12)]


def _as_stored(meta: dict[str, Any], arrays: dict[str, np.ndarray]) -> tuple[dict[str, Any], dict[str, np.ndarray]]:
    """What a generation gives back: its meta through msgpack, its arrays through .npy files."""
    return msgpack.unpackb(msgpack.packb(meta, use_bin_type=True), raw=False, strict_map_key=False), \
        {name: np.array(array) for name, array in arrays.items()}


def _step(rng: random.Random, records: list[list[Any]], doc_lists: list[list[int]], next_doc: list[int],
          names: list[str]) -> None:
    """One publish's worth of changes, of every kind a session sees."""
    for _ in range(rng.choice((0, 1, 1, 2, 5))):
        kind = rng.random()
        if kind < 0.25 or not records:  # a new session, from a new log
            records.append(_record(rng, len(records)))
            doc_lists.append([])
            names.append(f"/logs/{len(names)}.jsonl")
        ix = rng.randrange(len(records))
        if kind < 0.5:  # events appended
            doc_lists[ix].extend(range(next_doc[0], next_doc[0] + rng.randint(1, 30)))
            next_doc[0] += 30
        elif kind < 0.65 and doc_lists[ix]:  # an event placed earlier in its session's order
            doc_lists[ix].insert(rng.randrange(len(doc_lists[ix])), next_doc[0])
            next_doc[0] += 1
        elif kind < 0.8 and doc_lists[ix]:  # as many docs, one different (retired, another added)
            doc_lists[ix][rng.randrange(len(doc_lists[ix]))] = next_doc[0]
            next_doc[0] += 1
        elif kind < 0.9:  # the record alone changes (a title, a flag, a time)
            records[ix][8], records[ix][15] = f"title {rng.random()}", rng.randint(0, 10**12)
        elif doc_lists[ix]:  # a retired event leaves the list
            doc_lists[ix].pop(rng.randrange(len(doc_lists[ix])))


@pytest.mark.parametrize("seed", range(4))
def test_a_generation_loads_back_exactly_and_names_what_changed(tmp_path: Path, seed: int) -> None:
    rng = random.Random(seed)
    records: list[list[Any]] = []
    doc_lists: list[list[int]] = []
    names = [""]
    next_doc = [0]
    base = session_files.Base()
    bases = set()
    base_view: tuple[list[bytes], list[list[int]]] = ([], [])
    for step in range(120):
        _step(rng, records, doc_lists, next_doc, names)
        offsets, docs = _flat(doc_lists)
        arrays, meta, base, written = session_files.publish(tmp_path, records, offsets, docs, names, base)
        if written:
            bases.add(base.rel)
            base_view = (session_files.pack(records), [list(d) for d in doc_lists])
        else:  # exactly the sessions that differ from the base's
            packed = session_files.pack(records)
            expected = [ix for ix in range(len(records)) if ix >= len(base_view[0]) or packed[ix] != base_view[0][ix]
                        or doc_lists[ix] != base_view[1][ix]]
            assert arrays["cat.sessions_changed"].tolist() == expected, step
            assert meta["file_names_since"] == names[len(base.names):]
        stored_meta, stored_arrays = _as_stored(meta, arrays)
        loaded = session_files.load(tmp_path, stored_meta, stored_arrays)
        assert loaded is not None
        assert loaded.records == msgpack.unpackb(msgpack.packb(records), raw=False, strict_map_key=False)
        assert loaded.offsets.tolist() == offsets.tolist() and loaded.docs.tolist() == docs.tolist()
        assert loaded.names == names
        if rng.random() < 0.3:  # as a restarted store would go on: its names are the loaded ones
            base, names = loaded.base, loaded.names
    assert 1 < len(bases) < 120  # written again now and then, not at every publish


def test_the_base_is_kept_while_the_changes_are_small(tmp_path: Path) -> None:
    records = [_record(random.Random(ix), ix) for ix in range(200)]
    doc_lists = [list(range(ix * 50, ix * 50 + 50)) for ix in range(200)]
    arrays, _meta, base, written = session_files.publish(tmp_path, records, *_flat(doc_lists), NAMES,
                                                         session_files.Base())
    assert written and len(arrays["cat.sessions_changed"]) == 0
    doc_lists[7].append(10**6)
    records[9][8] = "renamed"
    arrays, _meta, kept, written = session_files.publish(tmp_path, records, *_flat(doc_lists), NAMES, base)
    assert not written and kept is base
    assert arrays["cat.sessions_changed"].tolist() == [7, 9]
    assert arrays["cat.sessions_changed_docs"].tolist() == doc_lists[7] + doc_lists[9]
    for ix in range(20, 80):  # over a quarter of the base changed: written again
        doc_lists[ix].append(10**6 + ix)
    arrays, _meta, again, written = session_files.publish(tmp_path, records, *_flat(doc_lists), NAMES, kept)
    assert written and again.rel != base.rel and len(arrays["cat.sessions_changed"]) == 0
    meta = session_files.publish(tmp_path, records, *_flat(doc_lists), [*NAMES, "/logs/b.jsonl"], again)[1]
    assert meta["file_names_since"] == ["/logs/b.jsonl"]
    _arrays, _meta, other, written = session_files.publish(tmp_path, records, *_flat(doc_lists), ["", "/x"], again)
    assert written and other.rel != again.rel and other.names == ["", "/x"]  # not the base's names: written again


def test_a_changed_session_past_the_end_is_refused(tmp_path: Path) -> None:
    records = [_record(random.Random(ix), ix) for ix in range(5)]
    arrays, meta, base, _ = session_files.publish(tmp_path, records, *_flat([[1], [2], [3], [4], [5]]), NAMES,
                                                   session_files.Base())
    records.append(_record(random.Random(9), 5))
    arrays, meta, _, _ = session_files.publish(tmp_path, records, *_flat([[1], [2], [3], [4], [5], [6]]), NAMES,
                                               base)
    stored_meta, stored_arrays = _as_stored(meta, arrays)
    stored_arrays["cat.sessions_changed"] = np.array([7], dtype=np.int64)
    with pytest.raises(StateError, match="session 7"):
        session_files.load(tmp_path, stored_meta, stored_arrays)
