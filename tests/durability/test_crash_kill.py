"""Crash safety of `moraine index` under SIGKILL, against a clean index of the same logs.

Why: the store promises that a crash at any instant (mid WAL append, mid in-memory seal or
merge, mid snapshot publish, mid garbage collection) loses nothing that reached the WAL,
never applies a frame twice, and that the next run picks up exactly where the surviving
checkpoints say. Unit tests drive those paths in-process; only a real process killed with
SIGKILL shows that the files on disk are always a consistent prefix of the history.

The test runs the real console script over a seeded corpus of Codex and Claude Code logs
that grows between runs (appended lines, new sessions, a subagent file, and lines written
in two halves so a half-written last line exists while processes are killed). Thresholds
are tiny (seal every 100 indexed docs, a snapshot every 150-400 events, 20-60 events per
WAL frame), so a run seals, merges and publishes many times. Kills are placed by progress, not
by time: the test watches the state directory while the run works and kills it after a random
number of observed changes (a WAL frame, a segment, a generation), or as soon as a publish is
seen under way, so the kills land in every phase on a fast machine and a slow one alike. A kill
inside a frame's `write()` is too brief to hit this way, so some kills are followed by appending
what it would leave: a torn frame. Each killed run is restarted by the next round; some rounds
run to completion. Rounds go on until enough kills of each kind have landed (a count, bounded
by MAX_ROUNDS), never for a time. Every few rounds the state
is opened in-process: its invariants hold, no event was applied twice and none it ever
held was lost. At the end the crashed state must equal a clean index of the same logs
built in one go with default thresholds: same live event IDs, none duplicated, identical
normalized events, sessions, checkpoints, quarantined lines and index statistics.
"""

from __future__ import annotations

import contextlib
import gc
import json
import os
import random
import signal
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pytest

_UNIT = str(Path(__file__).resolve().parent.parent / "unit")
if _UNIT not in sys.path:  # the seeded log generator lives next to the unit tests
    sys.path.insert(0, _UNIT)

from _agentlogs import LogFile, LogWriter, populate  # noqa: E402

from moraine.config import load_config  # noqa: E402
from moraine.index.tokenize import query_terms  # noqa: E402
from moraine.store.engine import Store  # noqa: E402
from moraine.store.snapshot import current_manifest  # noqa: E402
from moraine.store.wal import HEADER, Wal  # noqa: E402

MORAINE = Path(sys.executable).parent / "moraine"
SEED = 20_260_311
MIN_MID_RUN_KILLS = 30
MIN_PUBLISH_KILLS = 3
MIN_TORN_APPENDS = 3
MAX_ROUNDS = 150
PUBLISH_KILL_EVERY = 5  # every 5th killed run dies as soon as a publish is seen under way
POLL_S = 0.002  # how often a run's state directory is looked at
CHECK_EVERY = 4  # open the state in-process after every 4th round
FINISH_EVERY = 9  # every 9th run is not killed


@dataclass
class HalfLine:
    """A record whose first half is in the log; the rest (and its newline) comes later."""

    log: LogFile
    rest: str
    due_round: int


@dataclass
class Tally:
    mid_run_kills: int = 0
    finished_runs: int = 0
    kills_after_progress: int = 0  # the killed run had already committed or published something
    publish_kills: int = 0  # debris of an unfinished publish (temp generation, rotated WAL, garbage)
    torn_appends: int = 0  # a kill cut a frame's write (simulated: see _tear_wal_tail)
    kills_with_half_line: int = 0
    checks: int = 0


class Corpus:
    """The growing logs of both harnesses (seeded; one half-written line at a time)."""

    def __init__(self, base: Path, rng: random.Random) -> None:
        self.rng = rng
        self.writer = LogWriter(base, seed=rng.getrandbits(32))
        populate(self.writer, n_codex=6, n_claude=6, records_per_file=(120, 280))
        self.half: HalfLine | None = None

    def lines(self) -> int:
        return sum(log.n for log in self.writer.files)

    def grow(self, round_no: int, records: int) -> None:
        """Spread about `records` new records over existing files and, sometimes, new ones."""
        rng, writer = self.rng, self.writer
        if rng.random() < 0.35:
            roll = rng.random()
            if roll < 0.45:
                writer.new_codex()
            elif roll < 0.85:
                writer.new_claude()
            else:
                parents = [f for f in writer.files if f.harness == "claude-code" and not f.extra.get("sidechain")]
                writer.new_claude(subagent_of=rng.choice(parents))
        open_files = [f for f in writer.files if self.half is None or f is not self.half.log]
        targets = rng.sample(open_files, min(len(open_files), rng.randint(1, 6)))
        for log in targets:
            writer.extend(log, max(1, records // len(targets)))
        if self.half is None and rng.random() < 0.2:
            self.start_half_line(rng.choice(open_files), round_no + rng.randint(1, 3))

    def start_half_line(self, log: LogFile, due_round: int) -> None:
        """Write a record's first half (no newline): the indexer must leave it alone."""
        writer = self.writer
        record = writer._codex_record(log) if log.harness == "codex" else writer._claude_record(log)
        line = json.dumps(record[0], ensure_ascii=False)
        cut = self.rng.randint(1, len(line) - 1)
        with log.path.open("a", encoding="utf-8") as fh:
            fh.write(line[:cut])
        self.half = HalfLine(log, line[cut:] + "\n", due_round)

    def finish_half_line(self, round_no: int, force: bool = False) -> None:
        half = self.half
        if half is not None and (force or round_no >= half.due_round):
            with half.log.path.open("a", encoding="utf-8") as fh:
                fh.write(half.rest)
            half.log.n += 1
            self.half = None


def _run_env(corpus: Corpus, home: Path, settings: dict[str, str]) -> dict[str, str]:
    env = {**corpus.writer.env(), "MORAINE_HOME": str(home), "HOME": str(corpus.writer.codex_home.parent / "home"),
           **settings}
    for key in ("PATH", "LANG", "LC_ALL"):
        if key in os.environ:
            env[key] = os.environ[key]
    return env


def _crashy_settings(rng: random.Random) -> dict[str, str]:
    return {
        "MORAINE_STORE_SEAL_EVENTS": str(rng.choice((100, 100, 150, 250))),
        "MORAINE_STORE_SNAPSHOT_EVENTS": str(rng.randint(150, 400)),
        "MORAINE_INGEST_BATCH_EVENTS": str(rng.randint(20, 60)),
        "MORAINE_INGEST_WORKERS": rng.choice(("1", "1", "2")),
        "MORAINE_STORE_FSYNC": rng.choice(("never", "never", "batch")),
    }


@dataclass
class Run:
    returncode: int
    stdout: str
    stderr: str
    wall: float
    steps: int = 0  # changes of the state directory seen while it ran (when watched)

    def check(self) -> None:
        assert "Traceback" not in self.stderr, self.stderr[-3000:]
        assert self.returncode in (0, -signal.SIGKILL), (self.returncode, self.stderr[-3000:])


@dataclass(frozen=True)
class Footprint:
    """What a run has changed in a state directory so far, as far as a look at it shows."""

    current: str | None
    wal: tuple[tuple[str, int], ...]  # (file, size)
    entries: tuple[str, ...]  # the state directory's names: generations (and their .tmp), CURRENT.tmp, ...
    segments: int
    content: int

    def publishing(self) -> bool:
        """A generation being written, or CURRENT about to flip."""
        return any(name.endswith(".tmp") for name in self.entries)


def _footprint(home: Path) -> Footprint | None:
    """None when a file went away while it was looked at (the next look sees it settled)."""
    try:
        pointer = home / "CURRENT"
        wal = home / "wal"
        return Footprint(
            pointer.read_text() if pointer.exists() else None,
            tuple(sorted((p.name, p.stat().st_size) for p in wal.iterdir())) if wal.is_dir() else (),
            tuple(sorted(os.listdir(home))) if home.is_dir() else (),
            len(os.listdir(home / "segments")) if (home / "segments").is_dir() else 0,
            len(os.listdir(home / "content")) if (home / "content").is_dir() else 0,
        )
    except OSError:
        return None


@dataclass(frozen=True)
class KillAt:
    """Where a run is killed: after `steps` observed changes of its state, or (publish) at the first
    look that shows a publish under way."""

    steps: int = 0
    publish: bool = False


def _run(env: dict[str, str], kill_at: KillAt | None = None) -> Run:
    """`moraine index` in its own process group; with `kill_at`, SIGKILL the group once the state
    directory (MORAINE_HOME) has changed that often, or shows a publish under way. A run that ends
    first finished. The directory is looked at every POLL_S: a slow machine only gets more looks."""
    home = Path(env["MORAINE_HOME"])
    began = time.monotonic()
    proc = subprocess.Popen([str(MORAINE), "index", "--json"], env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, start_new_session=True)
    steps = 0
    if kill_at is not None:
        last = _footprint(home)
        while proc.poll() is None and time.monotonic() - began < 120:  # 120 s: a hung run, not a slow one
            now = _footprint(home)
            if now is not None and now != last:
                steps, last = steps + 1, now
            if (kill_at.publish and now is not None and now.publishing()) or \
                    (not kill_at.publish and steps >= kill_at.steps):
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(proc.pid, signal.SIGKILL)  # the whole group: parse workers (if any) die with it
                break
            time.sleep(POLL_S)
    with contextlib.suppress(subprocess.TimeoutExpired):
        proc.wait(timeout=120)
    with contextlib.suppress(ProcessLookupError):
        os.killpg(proc.pid, signal.SIGKILL)  # still running after 120 s: hung (check() reports it)
    stdout, stderr = proc.communicate(timeout=60)
    run = Run(proc.returncode, stdout, stderr, time.monotonic() - began, steps)
    run.check()
    return run


def _run_to_end(env: dict[str, str]) -> Run:
    run = _run(env)
    assert run.returncode == 0, run.stderr[-3000:]
    return run


def _kill_plan(rng: random.Random, kills: int, steps_of_a_run: int) -> KillAt:
    """A kill after 1 to `steps_of_a_run` changes (the most a run showed lately), or at a publish."""
    if kills % PUBLISH_KILL_EVERY == PUBLISH_KILL_EVERY - 1:
        return KillAt(publish=True)
    return KillAt(steps=rng.randint(1, max(1, steps_of_a_run)))


@dataclass(frozen=True)
class DiskState:
    current: str | None
    wal_seqs: tuple[int, ...]
    wal_bytes: int


def _disk_state(home: Path) -> DiskState:
    pointer = home / "CURRENT"
    current = pointer.read_text().strip() if pointer.exists() else None
    wal = sorted((home / "wal").glob("*.log")) if (home / "wal").is_dir() else []
    return DiskState(current, tuple(int(p.name[:-4]) for p in wal), sum(p.stat().st_size for p in wal))


def _publish_debris(home: Path, before: DiskState, after: DiskState) -> bool:
    """Evidence that the kill interrupted a snapshot publish (before its garbage collection ended).

    A finished publish leaves one generation, only referenced segments and chunks, and WAL
    files from the manifest's on; a writer that starts removes anything else. So debris
    seen right after a kill was left by the killed run mid-publish.
    """
    if any(home.glob("gen-*.tmp")) or (home / "CURRENT.tmp").exists():
        return True
    manifest = current_manifest(home)
    if manifest is None:
        return bool(any(home.glob("gen-*")) or any((home / "segments").glob("*")) or any((home / "content").glob("*")))
    if any(p.name != manifest.dirname for p in home.glob("gen-*")):
        return True
    if any(p.name not in manifest.segments for p in (home / "segments").glob("*")):
        return True
    if any(p.name.split(".")[0] not in manifest.content for p in (home / "content").glob("*")):
        return True
    if any(seq < manifest.wal_seq for seq in after.wal_seqs):
        return True
    # rotated to a new WAL file, CURRENT not flipped yet
    return bool(after.wal_seqs and after.wal_seqs[-1] > manifest.wal_seq and after.wal_seqs[-1] not in before.wal_seqs)


def _tear_wal_tail(home: Path, rng: random.Random) -> bool:
    """Leave what a kill inside a multi-page `write()` of a frame leaves: a prefix of the frame.

    SIGKILL can cut a regular-file write between pages, but a frame's write takes microseconds,
    so random kills almost never land in it; this puts a prefix of a copy of the last whole
    frame (were it applied, its events would be duplicates) after the end of the WAL.
    """
    wal = sorted((home / "wal").glob("*.log"))
    if not wal or wal[-1].stat().st_size <= len(HEADER):
        return False
    last = Wal(wal[-1], "never")  # an existing, non-empty file: only its header is read
    frames = list(last.frames())
    if not frames or frames[-1].end != last.size():
        return False
    data = wal[-1].read_bytes()[frames[-1].offset : frames[-1].end]
    with wal[-1].open("ab") as fh:
        fh.write(data[: rng.randint(1, len(data) - 1)])
    return True


def _open(home: Path, corpus: Corpus) -> Store:
    """Open a state in this process (a restart as any reader does it: replay, cut, collect garbage)."""
    umask = os.umask(0o022)
    try:
        store = Store(load_config({"home": str(home), "store": {"fsync": "never"}}, env=corpus.writer.env()),
                      create=False)
    finally:
        os.umask(umask)  # Store makes the process umask private; leave the test process as it was
    gc.unfreeze()  # Store freezes the GC for its lifetime; let this one be collected after the check
    return store


def _live_uids(store: Store) -> list[bytes]:
    catalog = store.catalog
    return catalog.uid.view[catalog.alive.view].tolist()


def _sessions(store: Store) -> dict[str, tuple[Any, ...]]:
    catalog = store.catalog
    uids = catalog.uid.view
    out = {}
    for session in catalog.sessions:
        if not session.docs:
            continue
        turns = catalog.turns(session)
        out[session.key] = (
            session.sid, session.source, [uids[d] for d in session.docs], session.cwd, session.parent_key,
            sorted(session.children), session.title, session.mode, session.started_ms, session.updated_ms,
            [(t.ordinal, t.end - t.start, t.completed) for t in turns],
        )
    return out


def _assert_same_index(crashed: Store, clean: Store) -> None:
    crashed._check()
    clean._check()
    crashed_uids, clean_uids = _live_uids(crashed), _live_uids(clean)
    assert len(set(crashed_uids)) == len(crashed_uids), "duplicate live event IDs after the crashes"
    assert len(set(clean_uids)) == len(clean_uids), "duplicate live event IDs in the clean index"
    lost = set(clean_uids) - set(crashed_uids)
    extra = set(crashed_uids) - set(clean_uids)
    assert not lost and not extra, f"{len(lost)} events lost (e.g. {sorted(lost)[:3]}), " \
                                   f"{len(extra)} extra (e.g. {sorted(extra)[:3]})"
    assert len(crashed_uids) == len(clean_uids)
    # Logs were only appended to, so no event may ever have been replaced: a retired doc would
    # be a frame applied twice (the later copy winning would hide it from the uid comparison).
    assert len(crashed.catalog.content) == len(crashed_uids), "an event was applied twice"
    assert len(clean.catalog.content) == len(clean_uids)
    assert crashed.stats.events == clean.stats.events

    a, b = crashed.catalog, clean.catalog
    a_docs = {a.uid.view[d]: d for d in np.flatnonzero(a.alive.view).tolist()}
    b_docs = {b.uid.view[d]: d for d in np.flatnonzero(b.alive.view).tolist()}
    for uid, doc in a_docs.items():
        assert a.event(doc).to_wire() == b.event(b_docs[uid]).to_wire(), f"event {uid!r} differs"
        assert int(crashed.index.doc_len.view[doc]) == int(clean.index.doc_len.view[b_docs[uid]]), uid
    assert crashed.index.n_docs == clean.index.n_docs
    assert crashed.index.total_len == clean.index.total_len
    assert _sessions(crashed) == _sessions(clean)
    assert {p: cp.to_wire() for p, cp in crashed.checkpoints.items()} == \
           {p: cp.to_wire() for p, cp in clean.checkpoints.items()}
    assert sorted(i.to_wire() for i in crashed.stats.issues) == sorted(i.to_wire() for i in clean.stats.issues)
    for query in ("snake_case_name", "os.path.join 東京都", "kalo mi", "README.md config.toml"):
        types = ["user_input", "assistant_response", "reasoning", "tool_call", "tool_response"]
        ha = crashed.search(query_terms(query, 16), 20, types, None, None)
        hb = clean.search(query_terms(query, 16), 20, types, None, None)
        assert ha.total == hb.total, query
        assert [a.uid.view[d] for d in ha.docs.tolist()] == [b.uid.view[d] for d in hb.docs.tolist()], query
        assert np.allclose(ha.raw, hb.raw, rtol=1e-9, atol=0), query


@pytest.mark.slow
@pytest.mark.timeout(900)  # ~2 min on an idle 2-core machine; a loaded one stretches every run
def test_sigkilled_index_runs_converge_to_a_clean_index(tmp_path: Path) -> None:
    rng = random.Random(SEED)
    corpus = Corpus(tmp_path / "logs", rng)
    home = tmp_path / "crashed"
    tally = Tally()
    seen: set[bytes] = set()  # every live event ID an in-process check has seen: never lost later
    began = time.monotonic()
    kill_rng = random.Random(SEED + 1)  # where kills land; the corpus keeps its own sequence
    steps_of_a_run = 8  # the most changes a run showed lately (a finished run shows them all)

    def enough() -> bool:
        return (tally.mid_run_kills >= MIN_MID_RUN_KILLS and tally.publish_kills >= MIN_PUBLISH_KILLS
                and tally.torn_appends >= MIN_TORN_APPENDS and tally.kills_with_half_line >= 1)

    round_no = 0
    while not enough():
        round_no += 1
        assert round_no <= MAX_ROUNDS, f"not enough kills of each kind in {MAX_ROUNDS} rounds: {tally}"
        corpus.finish_half_line(round_no)
        corpus.grow(round_no, rng.randint(200, 700))
        env = _run_env(corpus, home, _crashy_settings(rng))
        before = _disk_state(home)
        if round_no % FINISH_EVERY == 0:
            run = _run(env, KillAt(steps=10**9))  # watched to the end: how many changes a whole run shows
            assert run.returncode == 0, run.stderr[-3000:]
        else:
            run = _run(env, _kill_plan(kill_rng, tally.mid_run_kills, steps_of_a_run))
        if run.returncode == 0:
            tally.finished_runs += 1
            steps_of_a_run = max(1, run.steps)
        else:
            steps_of_a_run = max(steps_of_a_run, run.steps)
            tally.mid_run_kills += 1
            tally.kills_with_half_line += corpus.half is not None
            after = _disk_state(home)
            tally.kills_after_progress += after != before
            tally.publish_kills += _publish_debris(home, before, after)
            if rng.random() < 0.2 or tally.torn_appends < tally.mid_run_kills // 10:
                tally.torn_appends += _tear_wal_tail(home, rng)
        if round_no % CHECK_EVERY == 0:
            store = _open(home, corpus)
            store._check()
            live = _live_uids(store)
            assert len(set(live)) == len(live), f"round {round_no}: duplicate live event IDs"
            assert len(store.catalog.content) == len(live), f"round {round_no}: an event was applied twice"
            missing = seen - set(live)
            assert not missing, f"round {round_no}: {len(missing)} events lost, e.g. {sorted(missing)[:3]}"
            seen.update(live)
            tally.checks += 1
            del store
            gc.collect()

    # the last run finishes; a half-written line may stay (both indexes must leave it alone)
    if rng.random() < 0.5:
        corpus.finish_half_line(round_no, force=True)
    _run_to_end(_run_env(corpus, home, _crashy_settings(rng)))
    clean_home = tmp_path / "clean"
    _run_to_end(_run_env(corpus, clean_home, {"MORAINE_STORE_FSYNC": "never"}))  # one go, default thresholds

    crashed, clean = _open(home, corpus), _open(clean_home, corpus)
    _assert_same_index(crashed, clean)
    assert seen <= set(_live_uids(crashed))
    assert len(seen) > corpus.lines() // 2  # the in-between checks saw a real share of the corpus

    print(f"\n{round_no} rounds in {time.monotonic() - began:.1f} s: {tally}, "
          f"{len(_live_uids(clean))} live events from {corpus.lines()} lines")
    assert tally.kills_after_progress >= MIN_MID_RUN_KILLS // 2, tally
