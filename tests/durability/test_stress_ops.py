"""A seeded random sequence of log changes and store operations, checked after every step.

Why: each store operation (ingest pass, seal, tiered merge, snapshot publish, restart from
snapshot + WAL, forget) is tested on its own elsewhere, but the bugs that matter live in
their interleavings — a merge after a truncation retired docs in an older segment, a
publish between the two halves of a line, a restart with tombstones still in the WAL, a
forget followed by a snapshot. This test drives one long-lived Store through a few hundred
random operations over a growing corpus of Codex / Claude Code logs (appends, new files,
subagent files, half-written lines, in-place truncations with new content, deletions) and:

* after every operation asserts `Store._check()` (catalog / index / sessions / segments /
  checkpoints invariants) and, on a restart, that the reopened store holds the same state;
* every few operations and at the end ingests, then compares it with a Store rebuilt from
  scratch in a fresh state directory over the same logs: the same live event IDs with the
  same normalized events, the same sessions and turns, the same checkpoint positions, and
  the same ranked results (uid, raw BM25 score) and totals for random queries drawn from
  indexed text — globally and scoped to a session.

A file deleted from disk but not forgotten keeps its events in the long-lived store (the
log may have been rotated away); for the rebuild its consumed bytes are put back at their
path, indexed, and removed again. Only deleted files are ever forgotten, so the rebuild
and the long-lived store describe the same logs. A truncation always cuts below the
consumed offset and the file is not appended to before the next pass, so the tailer sees
the shrink (a truncated file that regrows past the old offset between two passes is not
detectable by inode + size; not what this test is about).

Session metadata folded from events (titles, first prompt, cwd, mode flags, parent,
subagent children) is compared too: retiring events must fold it again from what is left.
"""

from __future__ import annotations

import random
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pytest

_UNIT = str(Path(__file__).resolve().parent.parent / "unit")
if _UNIT not in sys.path:  # the seeded log generator lives next to the unit tests
    sys.path.insert(0, _UNIT)

from _agentlogs import SEARCHABLE, LogFile, LogWriter, populate  # noqa: E402

from moraine.config import Config  # noqa: E402
from moraine.index.tokenize import query_terms  # noqa: E402
from moraine.ingest.pipeline import ingest_once  # noqa: E402
from moraine.store.engine import Store  # noqa: E402

N_OPS = 300
COMPARE_EVERY = 25
N_QUERIES = 30

# relative weights of the operations
WEIGHTS: dict[str, int] = {
    "append": 22, "new_file": 5, "half_line": 6, "truncate": 5, "delete": 3, "forget": 3,
    "ingest": 20, "seal": 6, "merge": 6, "publish": 5, "restart": 5,
}


@dataclass
class World:
    """The logs on disk, what the long-lived store may know of them, and the store itself."""

    seed: int
    root: Path
    writer: LogWriter
    config: Config
    store: Store
    rng: random.Random
    deleted: dict[str, bytes] = field(default_factory=dict)  # deleted, not forgotten: consumed bytes
    truncated: set[str] = field(default_factory=set)  # cut since the last pass: no appends until it ran
    halves: dict[str, bytes] = field(default_factory=dict)  # path → the missing rest of its last line
    history: list[str] = field(default_factory=list)
    compares: int = 0

    def live_logs(self, *, appendable: bool = False) -> list[LogFile]:
        logs = [f for f in self.writer.files if f.path.exists()]
        if appendable:
            logs = [f for f in logs if str(f.path) not in self.truncated]
        return logs

    def where(self) -> str:
        return f"seed {self.seed}, op {len(self.history)}; last ops: {self.history[-10:]}"


# -- state fingerprints -------------------------------------------------------------------


def live_uids(store: Store) -> set[bytes]:
    return set(store.catalog.uid.view[store.catalog.alive.view].tolist())


def events_by_uid(store: Store) -> dict[bytes, list[Any]]:
    """Every live event in wire form (text, type, file, line, offset, …), by uid."""
    c = store.catalog
    return {c.uid.view[d]: c.event(int(d)).to_wire() for d in np.flatnonzero(c.alive.view).tolist()}


def sessions_view(store: Store) -> dict[str, Any]:
    """Sessions with live events: times, ordered event uids and turns (as `open` shows them)."""
    c = store.catalog
    uid = c.uid.view

    def u(doc: int | None) -> bytes | None:
        return None if doc is None else uid[doc]

    out: dict[str, Any] = {}
    for session in c.sessions:
        if not session.docs:
            continue
        turns = [(t.ordinal, t.start, t.end, t.completed, u(t.user_doc), u(t.final_doc), u(t.terminal_doc),
                  t.started_ms, t.updated_ms) for t in c.turns(session)]
        out[session.id] = (session.key, session.started_ms, session.updated_ms, [uid[d] for d in session.docs],
                           turns)
    return out


def listed_sessions(store: Store) -> list[str]:
    """The `list_sessions` order: sessions with live events by (updated_ms, id)."""
    return [s.id for s in store.catalog.by_updated]


def positions(store: Store) -> dict[str, tuple[int, int]]:
    return {path: (cp.offset, cp.line) for path, cp in store.checkpoints.items()}


def session_meta(store: Store) -> dict[str, Any]:
    """Folded session metadata: equal to a rebuild's for listed sessions; a restart must keep it."""
    return {s.id: (s.title, s.cwd, s.mode, s.parent_key, sorted(s.children)) for s in store.catalog.sessions}


def fingerprint(store: Store) -> dict[str, Any]:
    """What must survive a restart unchanged."""
    return {"uids": live_uids(store), "positions": positions(store), "n_docs": store.index.n_docs,
            "total_len": store.index.total_len, "events": store.stats.events,
            "issues": len(store.stats.issues), "sessions": sessions_view(store), "meta": session_meta(store),
            "listed": listed_sessions(store)}


# -- operations ---------------------------------------------------------------------------


def op_append(w: World) -> str:
    logs = w.live_logs(appendable=True)
    if not logs:
        return "append: none"
    log = w.rng.choice(logs)
    rest = w.halves.pop(str(log.path), None)
    if rest is not None:
        with log.path.open("ab") as fh:
            fh.write(rest)
    n = w.rng.randint(1, 15)
    w.writer.extend(log, n)
    return f"append {n} to {log.path.name}" + (" (completing a half line)" if rest else "")


def op_new_file(w: World) -> str:
    roll = w.rng.random()
    parents = [f for f in w.live_logs() if f.harness == "claude-code" and not f.extra.get("sidechain")]
    if roll < 0.45:
        log = w.writer.new_codex()
    elif roll < 0.85 or not parents:
        log = w.writer.new_claude()
    else:
        log = w.writer.new_claude(subagent_of=w.rng.choice(parents))
    w.writer.extend(log, w.rng.randint(1, 25))
    return f"new {log.harness} file {log.path.name}"


def op_half_line(w: World) -> str:
    """Write a record, then take back the tail of its line: a harness caught mid-write."""
    logs = [f for f in w.live_logs(appendable=True) if str(f.path) not in w.halves]
    if not logs:
        return "half_line: none"
    log = w.rng.choice(logs)
    w.writer.extend(log, 1)
    data = log.path.read_bytes()
    start = data.rfind(b"\n", 0, len(data) - 1) + 1
    last = data[start:]
    cut = w.rng.randint(1, len(last) - 1)  # at least one byte written, at least the newline missing
    with log.path.open("r+b") as fh:
        fh.truncate(start + cut)
    w.halves[str(log.path)] = last[cut:]
    return f"half line in {log.path.name} ({cut}/{len(last)} bytes)"


def op_truncate(w: World) -> str:
    """Cut a log back to its first k lines (below what was consumed), maybe write new records."""
    candidates = []
    for log in w.live_logs(appendable=True):
        cp = w.store.checkpoints.get(str(log.path))
        if cp is not None and cp.line >= 2 and cp.inode == log.path.stat().st_ino:
            candidates.append((log, cp))
    if not candidates:
        return "truncate: none"
    log, cp = w.rng.choice(candidates)
    lines = log.path.read_bytes().splitlines(keepends=True)
    keep = w.rng.randint(1, cp.line - 1)
    size = sum(len(x) for x in lines[:keep])
    assert size < cp.offset
    with log.path.open("r+b") as fh:
        fh.truncate(size)
    w.halves.pop(str(log.path), None)
    log.n = keep
    log.calls.clear()
    rewrote = 0
    if w.rng.random() < 0.6:
        rewrote = w.rng.randint(1, 3)
        w.writer.extend(log, rewrote)
        if log.path.stat().st_size >= cp.offset:  # would hide the shrink from the tailer: no rewrite
            with log.path.open("r+b") as fh:
                fh.truncate(size)
            rewrote = 0
    w.truncated.add(str(log.path))
    return f"truncate {log.path.name} to {keep}/{len(lines)} lines, +{rewrote} records"


def op_delete(w: World) -> str:
    candidates = w.live_logs(appendable=True)
    if not candidates:
        return "delete: none"
    log = w.rng.choice(candidates)
    path = str(log.path)
    cp = w.store.checkpoints.get(path)
    consumed = log.path.read_bytes()[: cp.offset] if cp is not None else b""
    log.path.unlink()
    w.writer.files.remove(log)
    w.halves.pop(path, None)
    w.deleted[path] = consumed
    return f"delete {log.path.name} ({len(consumed)} bytes consumed)"


def op_forget(w: World) -> str:
    if not w.deleted:
        return "forget: none"
    path = w.rng.choice(sorted(w.deleted))
    with w.store.writer():
        retired = w.store.forget([path])
    del w.deleted[path]
    assert path not in w.store.checkpoints
    return f"forget {Path(path).name} ({retired} events)"


def op_ingest(w: World) -> str:
    summary = ingest_once(w.store, parallel=False)
    w.truncated.clear()
    assert summary.issues == 0, f"{w.where()}: quarantined lines {w.store.stats.issues[-summary.issues:]}"
    return f"ingest ({summary.events} events from {summary.files_read} files)"


def op_seal(w: World) -> str:
    with w.store.writer():
        segment = w.store.index.seal()
    return f"seal ({'empty' if segment is None else len(segment.doc_ids)})"


def op_merge(w: World) -> str:
    with w.store.writer():
        merges = w.store.index.merge_segments()
    return f"merge ({merges} merges, {len(w.store.index.segments)} segments)"


def op_publish(w: World) -> str:
    with w.store.writer():
        manifest = w.store.publish()
    return f"publish generation {manifest.generation}"


def op_restart(w: World) -> str:
    before = fingerprint(w.store)
    w.store = Store(w.config)
    after = fingerprint(w.store)
    assert after == before, f"{w.where()}: the reopened store differs: " + ", ".join(
        k for k in before if before[k] != after[k])
    return "restart"


OPS: dict[str, Callable[[World], str]] = {
    "append": op_append, "new_file": op_new_file, "half_line": op_half_line, "truncate": op_truncate,
    "delete": op_delete, "forget": op_forget, "ingest": op_ingest, "seal": op_seal, "merge": op_merge,
    "publish": op_publish, "restart": op_restart,
}


# -- the comparison with a rebuilt index ----------------------------------------------------


def rebuild(w: World) -> Store:
    """A fresh state directory indexing the logs as they are now (deleted but not forgotten
    logs put back, for the pass only, with the bytes the long-lived store had consumed)."""
    restored = []
    for path, data in w.deleted.items():
        if data:
            Path(path).parent.mkdir(parents=True, exist_ok=True)
            Path(path).write_bytes(data)
            restored.append(Path(path))
    try:
        w.compares += 1
        fresh = Store(w.writer.config(w.root / f"fresh-{w.compares}"))
        ingest_once(fresh, parallel=False)
    finally:
        for path in restored:
            path.unlink()
    fresh._check()
    return fresh


def random_queries(rng: random.Random, fresh: Store, vocab: list[str]) -> list[str]:
    """Queries of 1–4 tokens, mostly taken from live indexed texts (so they hit), some from
    the vocabulary at large and some that match nothing."""
    c = fresh.catalog
    docs = np.flatnonzero(fresh.index.live.view).tolist()
    queries = []
    for _ in range(N_QUERIES):
        terms: list[str] = []
        for _ in range(rng.randint(1, 4)):
            roll = rng.random()
            if roll < 0.75 and docs:
                tokens = query_terms(c.event(rng.choice(docs)).text, 64)
                if tokens:
                    terms.append(rng.choice(tokens))
            elif roll < 0.95:
                terms.append(rng.choice(vocab))
            else:
                terms.append(f"zzqx{rng.randint(0, 999)}")
        queries.append(" ".join(terms) or "zzqx")
    return queries


def ranked(store: Store, query: str, k: int, types: list[str], scope: np.ndarray | None) -> tuple[Any, ...]:
    hits = store.search(query_terms(query, store.config.bm25.max_query_terms), k, types, scope, None)
    uid = store.catalog.uid.view
    return tuple((uid[int(d)], round(float(r), 9)) for d, r in zip(hits.docs, hits.raw, strict=True)), hits.total


def session_scope(store: Store, key: str | None) -> np.ndarray | None:
    """A session's live docs in this store (doc ids differ between stores; keys do not)."""
    if key is None:
        return None
    return np.asarray(store.catalog.sessions[store.catalog.by_key[key]].docs, dtype=np.int64)


def compare_with_rebuild(w: World) -> None:
    """Ingest, rebuild from scratch, and require the same events, sessions and rankings."""
    op_ingest(w)
    w.history.append("ingest (before comparing)")
    w.store._check()
    fresh = rebuild(w)
    store, where = w.store, w.where()

    assert live_uids(store) == live_uids(fresh), f"{where}: live event IDs differ"
    assert events_by_uid(store) == events_by_uid(fresh), f"{where}: normalized events differ"
    assert store.index.n_docs == fresh.index.n_docs and store.index.total_len == fresh.index.total_len, where
    assert sessions_view(store) == sessions_view(fresh), f"{where}: sessions / turns differ"
    assert listed_sessions(store) == listed_sessions(fresh), f"{where}: session listing differs"
    assert positions(store) == positions(fresh), f"{where}: checkpoint positions differ"
    live_meta = {k: v for k, v in session_meta(store).items() if k in set(listed_sessions(store))}
    fresh_meta = {k: v for k, v in session_meta(fresh).items() if k in set(listed_sessions(fresh))}
    assert live_meta == fresh_meta, f"{where}: session titles / cwd / mode / parent / children differ"

    rng = random.Random(w.seed * 1000 + w.compares)
    sessions = [s.key for s in fresh.catalog.sessions if s.docs]
    with_hits = 0
    for query in random_queries(rng, fresh, w.writer.texts.vocab):
        types = rng.sample(SEARCHABLE, rng.randint(1, len(SEARCHABLE))) if rng.random() < 0.5 else list(SEARCHABLE)
        k = rng.randint(1, 40) if rng.random() < 0.8 else 10**6
        key = rng.choice(sessions) if sessions and rng.random() < 0.25 else None  # scoped to one session
        got = ranked(store, query, k, types, session_scope(store, key))
        want = ranked(fresh, query, k, types, session_scope(fresh, key))
        assert got == want, f"{where}: search {query!r} k={k} types={types} session={key}"
        with_hits += bool(want[1])
    assert with_hits >= N_QUERIES // 3, f"{where}: too few queries hit anything ({with_hits})"


# -- the test -------------------------------------------------------------------------------


@pytest.mark.parametrize("seed", [101, 202, 303])
def test_random_operations_keep_invariants_and_match_a_rebuild(tmp_path: Path, seed: int) -> None:
    """N_OPS seeded operations; `_check()` after each; a rebuilt index agrees periodically."""
    writer = LogWriter(tmp_path / "logs", seed=seed, vocab_size=300)
    populate(writer, n_codex=4, n_claude=4, records_per_file=(10, 40))
    rng = random.Random(seed)
    # auto-publishing inside ingest passes on some seeds, never on others
    snapshot_events = rng.choice((10**8, 180))
    config = writer.config(tmp_path / "state", store={"fsync": "never", "seal_events": 100,
                                                      "snapshot_events": snapshot_events},
                           ingest={"batch_events": 50})
    world = World(seed, tmp_path, writer, config, Store(config), rng)
    op_ingest(world)
    names, weights = list(WEIGHTS), list(WEIGHTS.values())
    counts = dict.fromkeys(names, 0)
    for i in range(1, N_OPS + 1):
        name = rng.choices(names, weights)[0]
        world.history.append(OPS[name](world))
        counts[name] += 1
        try:
            world.store._check()
        except AssertionError as exc:
            raise AssertionError(f"{world.where()}: invariant broken: {exc}") from exc
        if i % COMPARE_EVERY == 0:
            compare_with_rebuild(world)
    compare_with_rebuild(world)

    # the whole sequence exercised what it is meant to
    assert all(counts[n] > 0 for n in names), counts
    store = world.store
    assert store.stats.events > 1000 and store.manifest is not None
    assert int(np.count_nonzero(~store.catalog.alive.view)) > 0, "no event was ever retired"
    assert any(cp.generation > 1 for cp in store.checkpoints.values()), "no truncation was read"
    # a last restart from the published snapshot alone agrees with the rebuild too
    with store.writer():
        store.publish()
    world.store = Store(config)
    world.history.append("publish + restart")
    compare_with_rebuild(world)
