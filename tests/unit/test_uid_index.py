"""The sorted uid map keys each uid by its first 8 characters and confirms a hit with the
catalog's uid column: uids sharing a key (forced here, as blake2b digests sometimes do), dead
docs, batch and single lookups, and a state whose snapshot stored the uids themselves."""

from __future__ import annotations

import random
from pathlib import Path

import numpy as np

from moraine.index.growable import Column
from moraine.model import make_uid
from moraine.store.uids import UidIndex, uid_keys


def _index(uids: list[str], alive: list[bool]) -> UidIndex:
    uid_column, alive_column = Column("S26"), Column(np.bool_)
    uid_column.extend(np.array([u.encode("ascii") for u in uids], dtype="S26"))
    alive_column.extend(np.array(alive, dtype=np.bool_))
    index = UidIndex(alive_column, uid_column)
    index.restore(*index.compacted())
    return index


def test_uids_sharing_a_key_are_told_apart_by_the_uid_column() -> None:
    rng = random.Random(3)
    uids = [make_uid("x", i) for i in range(2000)]
    for i in range(0, 400, 4):  # groups of uids with the same first 8 characters
        uids[i + 1] = uids[i][:8] + uids[i + 1][8:]
        uids[i + 2] = uids[i][:8] + uids[i + 2][8:]
    alive = [rng.random() > 0.2 for _ in uids]
    index = _index(uids, alive)
    assert len(np.unique(index.keys)) < len(index.keys)  # shared keys are present
    strangers = [u[:8] + make_uid("y", i)[8:] for i, u in enumerate(uids[:300])]  # a known key, another uid
    strangers += [u + "zz" for u in uids[:50]] + [u[:20] for u in uids[50:100]]  # a uid's first 26 / 20 chars
    wanted = uids + strangers + [make_uid("z", i) for i in range(100)]
    expected = [doc if doc < len(uids) and alive[doc] else None for doc in range(len(wanted))]
    assert [index.get(u) for u in wanted] == expected
    assert index.find_many(wanted) == expected
    order = list(range(len(wanted)))
    rng.shuffle(order)
    assert index.find_many([wanted[i] for i in order]) == [expected[i] for i in order]


def test_recent_docs_and_an_empty_sorted_part() -> None:
    uids = [make_uid("r", i) for i in range(10)]
    index = _index([], [])
    assert index.get(uids[0]) is None and index.find_many(uids[:3]) == [None, None, None]
    index.add(uids[0], 0)
    assert index.get(uids[0]) == 0 and index.find_many(uids[:2]) == [0, None]
    assert index.pop(uids[0]) == 0 and index.get(uids[0]) is None


def test_keys_keep_the_order_of_the_uids() -> None:
    uids = np.array(sorted(make_uid("o", i).encode("ascii") for i in range(5000)), dtype="S26")
    keys = uid_keys(uids)
    assert keys.dtype == np.uint64 and np.all(keys[1:] >= keys[:-1])


def test_a_snapshot_of_sorted_uids_still_loads(tmp_path: Path, make_samples_store) -> None:  # type: ignore[no-untyped-def]
    """A state written before the keys (`uid_sorted`: the uids themselves, sorted, and int64
    docs) is restored into a catalog that answers every live uid, and only those."""
    from moraine.store.catalog import Catalog

    store = make_samples_store(tmp_path)
    source = store.catalog
    arrays, meta = source.snapshot_arrays(), source.snapshot_meta()
    live = np.flatnonzero(source.alive.view)
    uids = source.uid.view[live]
    order = np.argsort(uids, kind="stable")
    del arrays["uid_keys"]
    arrays |= {"uid_sorted": uids[order], "uid_docs": live[order].astype(np.int64)}
    catalog = Catalog()
    catalog.restore(arrays, meta)
    for doc in live.tolist():
        assert catalog.by_uid.get(source.uid.view[doc].decode("ascii")) == doc
    dead = np.flatnonzero(~source.alive.view)
    assert all(catalog.by_uid.get(source.uid.view[d].decode("ascii")) is None for d in dead.tolist())


def test_compaction_merges_what_changed_into_what_a_whole_sort_gives() -> None:
    """Seeded rounds of adds (some under an existing key), retirements and compactions: the
    kept-and-merged map equals the one sorting every live doc's key, lookups included."""
    rng = random.Random(11)
    uid_column, alive_column = Column("S26"), Column(np.bool_)
    index = UidIndex(alive_column, uid_column)
    uids: list[str] = []
    for round_ in range(30):
        for _ in range(rng.randrange(0, 300)):
            uid = make_uid("c", round_, len(uids))
            if uids and rng.random() < 0.2:
                uid = rng.choice(uids)[:8] + uid[8:]  # a key already present
            uid_column.extend(np.array([uid.encode("ascii")], dtype="S26"))
            alive_column.extend(np.ones(1, dtype=np.bool_))
            index.add(uid, len(uids))
            uids.append(uid)
        for doc in rng.sample(range(len(uids)), min(len(uids), rng.randrange(0, 40))):
            if alive_column.view[doc]:
                index.pop(uids[doc])
                alive_column[doc] = False
        keys, docs = index.compacted()
        whole_keys, whole_docs = index._sorted_whole()
        assert np.array_equal(keys, whole_keys) and np.array_equal(docs, whole_docs)
        if rng.random() < 0.7:
            index.restore(keys, docs)
        expected = [doc if alive_column.view[doc] else None for doc in range(len(uids))]
        assert index.find_many(uids) == expected
