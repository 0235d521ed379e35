"""The commands that read or change the state as a whole: `index`, `snapshot`, `restore`,
`reindex`, `forget`, `doctor`, and the caught-up state the reading commands answer from.

Each command takes the configuration and its parsed arguments and returns the exit code.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
from pathlib import Path
from typing import Any

import msgpack

from moraine.config import Config
from moraine.errors import (
    ConfigError,
    DaemonRunningError,
    MoraineError,
    NoLogsError,
    StateError,
    UsageError,
    os_error_message,
)
from moraine.ingest.pipeline import IngestSummary, Progress, ingest_once, on_disk, terminal_progress
from moraine.ingest.state import ingest_state
from moraine.mcp_server.views import for_terminal
from moraine.redaction.structured import path_key
from moraine.store.admin import (
    REBUILD_DIR,
    copy_snapshot,
    doctor,
    hold_rebuild,
    install_snapshot,
    rebuild_running,
    verify_snapshot,
)
from moraine.store.engine import Store, writer_lock
from moraine.store.run_files import daemon_holding


def index(config: Config, args: argparse.Namespace) -> int:
    as_json = args.json
    store = Store(config)
    summary = ingest_once(store, terminal_progress("indexing"), snapshot=True)
    _require_logs(store, summary)
    if as_json:
        print(json.dumps({**summary.as_dict(), "total_events": store.read.live_event_count(),
                          "sessions": store.read.session_count(), "home": str(config.home)}))
    else:
        rate = summary.events / summary.seconds if summary.seconds else 0.0
        print(f"indexed {summary.events} new events from {summary.files_read} of {summary.files_seen} files "
              f"in {summary.seconds:.1f}s ({rate:,.0f} events/s); {summary.issues} line(s) quarantined; "
              f"{store.read.session_count()} sessions, {store.read.live_event_count()} events "
              f"in {config.home}")
        for root in summary.roots_missing:
            print(f"note: source root not found: {root}")
    return 0


def _require_logs(store: Store, summary: IngestSummary, home: Path | None = None) -> None:
    """`home`: the state a person knows (a rebuild reads into a temporary one beside it)."""
    home = home or store.config.home
    if summary.files_seen == 0 and not store.read.session_total():
        roots = ", ".join(str(s.root) for s in store.config.sources if s.enabled and not s.optional)
        raise NoLogsError(f"no agent logs found under {roots}. The state at {home} is ready: "
                          "`moraine index` (or the daemon) reads the logs once an agent writes them. If your logs "
                          "live elsewhere, set the harness's variable (CODEX_HOME, CLAUDE_CONFIG_DIR, …) or add "
                          f"[[sources]] to {home / 'config.toml'}")


def caught_up_store(config: Config) -> Store:
    """The state with the logs' new lines read; when they cannot be (a full disk, a
    read-only state), the answer comes from what is indexed, with a warning that says why."""
    store = Store(config, busy=_WaitingNote(config.home))
    if config.search.backend == "numba":  # asked for: loaded now (auto leaves one command to numpy: see compiled.py)
        from moraine.index import compiled

        kernel = compiled.prepare(config.home / "cache" / "numba")
        if kernel is None:
            raise ConfigError("[search] backend = \"numba\", but numba is not installed: pip install 'moraine[fast]'")
        store.use_kernel(kernel)
    try:
        ingest_once(store, _catch_up_note())
    except OSError as exc:
        ingest_state(store).catch_up_error = os_error_message(exc)
    return store  # no log roots at all: empty answers, with the warning that names the roots watched


CATCH_UP_NOTE_BYTES = 16 << 20


def _catch_up_note() -> Progress:
    """A shell command reads the logs' new lines before answering; when that is a large backlog
    (a first index killed half-way, a state never indexed) it says so at once, and shows a
    progress bar on a terminal, instead of seeming to hang."""
    bar = terminal_progress("catching up")
    said = [False]

    def show(done: int, total: int) -> None:
        if not said[0] and total >= CATCH_UP_NOTE_BYTES:
            said[0] = True
            print(f"moraine: reading {total / 1e6:,.0f} MB of logs not indexed yet before answering "
                  "(`moraine index` does it ahead; a running daemon keeps the index current)", file=sys.stderr)
        if bar is not None:
            bar(done, total)

    return show


class _WaitingNote:
    """Said once, after a second of waiting, when another process is writing the state (a first
    index can take minutes)."""

    def __init__(self, home: Path) -> None:
        self.home, self.said = home, False

    def __call__(self, waited: float) -> None:
        if waited < 1.0 or self.said:
            return
        self.said = True
        holder = "the daemon" if daemon_holding(self.home) else "another `moraine` process"
        print(f"moraine: {holder} is writing the state (an indexing pass); waiting for it to finish…",
              file=sys.stderr)


def _emit(data: dict[str, Any], as_json: bool, text: str) -> None:
    print(json.dumps(data, indent=2) if as_json else for_terminal(text))  # paths and reasons come from the logs


def snapshot(config: Config, args: argparse.Namespace) -> int:
    out, as_json = args.out, args.json
    store = Store(config, create=False)
    with store.writer():
        manifest = store.manifest
        if manifest is None or store.frames_since_snapshot:
            manifest = store.publish()
        data: dict[str, Any] = {"generation": manifest.generation, "home": str(config.home),
                                "events": manifest.counts.get("live_events", 0)}
        if out is not None:
            data.update(copy_snapshot(config.home, manifest, out, terminal_progress("copying snapshot")))
    text = f"snapshot generation {data['generation']} of {config.home} ({data['events']} events)"
    if out is not None:
        text += f" copied to {out}: {data['files']} files, {data['bytes']:,} bytes"
    _emit(data, as_json, text)
    return 0


def restore(config: Config, args: argparse.Namespace) -> int:
    path, as_json = args.path, args.json
    if daemon_holding(config.home):
        raise DaemonRunningError(f"a Moraine daemon holds {config.home}; stop it (`moraine stop`) before restoring")
    manifest = verify_snapshot(path)
    # The live state is never opened (a backup is most wanted when it cannot be): the copy is
    # installed under the writer lock, then the installed state opens.
    config.home.mkdir(parents=True, exist_ok=True, mode=0o700)
    with writer_lock(config.home):
        installed = install_snapshot(config.home, path, manifest)
    Store(config)
    data = {"home": str(config.home), "from": str(path), "generation": installed.generation,
            "events": installed.counts.get("live_events", 0), "sessions": installed.counts.get("sessions", 0)}
    _emit(data, as_json, f"restored {path} into {config.home}: {data['events']} events in {data['sessions']} "
          f"sessions (generation {data['generation']}); the next ingest reads what the logs gained since")
    return 0


def reindex(config: Config, args: argparse.Namespace) -> int:
    as_json = args.json
    summary, installed = _rebuild_from_logs(config, "reindexing")  # never opens the old state: mends one that cannot
    data = {**summary.as_dict(), "home": str(config.home), "generation": installed.generation,
            "events": installed.counts.get("live_events", 0), "sessions": installed.counts.get("sessions", 0)}
    _emit(data, as_json, f"rebuilt {config.home} from {summary.files_read} logs in {summary.seconds:.1f}s: "
          f"{data['events']} events in {data['sessions']} sessions (generation {data['generation']})")
    return 0


def _state_only(config: Config) -> dict[str, Any]:
    """Tombstones and tracked observations of the current state (best effort: a damaged state
    is read from its snapshots' metas, every one that still reads: forgetting only adds to
    them). When none reads, the rebuild says that forgotten sessions may come back."""
    try:
        store = Store(config, create=False)
        return {"tombstones": sorted(store.tombstones), "tracked": store.tracked, "forget": sorted(store.forgotten)}
    except Exception:  # a state that cannot be opened: what its snapshots' metas still hold
        pass
    tombstones: set[str] = set()
    forget: set[str] = set()
    tracked: list[Any] = []
    metas = sorted(config.home.glob("gen-*/meta.msgpack"))
    read = 0
    for path in metas:
        try:
            meta = msgpack.unpackb(path.read_bytes(), raw=False, strict_map_key=False)
            tombstones.update(meta.get("tombstones", []))
            forget.update(meta.get("forgotten", {}))
            tracked = list(meta.get("tracked", [])) or tracked  # the newest that has them
            read += 1
        except Exception:  # a damaged meta: the others may still read
            continue
    if metas and not read:
        print("moraine: no snapshot of the old state could be read: sessions and logs forgotten before "
              "may come back (forget them again with `moraine forget` or `moraine cleanup`)", file=sys.stderr)
    return {"tombstones": sorted(tombstones), "tracked": tracked, "forget": sorted(forget)}


def _rebuild_from_logs(config: Config, label: str, require_logs: bool = True) -> tuple[IngestSummary, Any]:
    """A new state built from the logs beside the live one, then installed in its place (IDs
    unchanged). Never opens the old state, so it also replaces a damaged one."""
    temp = config.home / REBUILD_DIR
    if rebuild_running(temp):
        raise StateError(f"another `moraine reindex` is rebuilding {config.home} now ({temp}); let it finish")
    shutil.rmtree(temp, ignore_errors=True)
    kept = _state_only(config)
    fresh = Store(config.model_copy(update={"home": temp}))
    building = hold_rebuild(temp)  # `moraine doctor` tells this rebuild from a killed one's leftover
    try:
        return _build_and_install(config, fresh, kept, label, require_logs)
    finally:
        os.close(building)


def _build_and_install(config: Config, fresh: Store, kept: dict[str, Any], label: str,
                       require_logs: bool) -> tuple[IngestSummary, Any]:
    temp = fresh.home
    if any(kept.values()):  # what the logs cannot give back: forgotten sessions and logs, observations
        with fresh.writer():
            fresh.commit([], [], {}, kept)
    summary = ingest_once(fresh, terminal_progress(label), snapshot=True)
    if require_logs:  # a reindex that finds no log would replace history by nothing
        _require_logs(fresh, summary, config.home)
    assert fresh.manifest is not None
    with writer_lock(config.home):
        installed = install_snapshot(config.home, temp, fresh.manifest, move=True)
    shutil.rmtree(temp, ignore_errors=True)
    Store(config)  # the installed state opens (and the old generation's files are collected)
    return summary, installed


def _forget(config: Config, paths: list[Path], missing: bool, as_json: bool) -> int:
    store = Store(config, create=False)
    with store.writer():
        known = set(store.checkpoints)
        if missing:
            targets = sorted(p for p, present in on_disk(store, known).items() if not present)
        else:
            targets = []
            for path in paths:
                keys = (path_key(str(c)) for c in (path, path.expanduser().resolve()))
                match = next((k for k in keys if k in known), None)
                if match is None:
                    raise MoraineError(f"{path} is not a log Moraine has read (see `moraine status`)")
                targets.append(match)
        retired = store.forget(targets) if targets else 0
        if targets:
            store.publish()
    data = {"forgotten": targets, "events_retired": retired}
    _emit(data, as_json, f"forgot {len(targets)} log(s): {retired} events removed from the index")
    return 0


def doctor_command(config: Config, args: argparse.Namespace) -> int:
    repair, as_json = args.repair, args.json
    if not config.home.exists():
        raise StateError(f"no Moraine state at {config.home}")
    with writer_lock(config.home):
        report = doctor(config.home, repair)
    if report.healthy:  # every file checks out: the state must also open (the test no checksum makes)
        try:
            Store(config, create=False)
        except StateError as exc:
            report.snapshot_problems.append(f"the state does not open: {exc}")
    healthy = report.healthy
    if repair and report.snapshot_problems:  # the remedy it names: rebuild the state from the logs
        summary, installed = _rebuild_from_logs(config, "rebuilding", require_logs=False)
        events = installed.counts.get("live_events", 0)
        report.repaired[:] = [f"rebuilt the state from {summary.files_read} logs: {events} events (generation "
                              f"{installed.generation}); the damaged files are gone"]
        healthy = True
    elif repair and report.repaired:
        Store(config)  # the repaired state opens (the WAL now ends with a rewind frame)
        healthy = True
    data = {**report.as_dict(), "ok": healthy}
    lines = [f"Moraine state at {config.home}: " + ("healthy" if report.healthy else "PROBLEMS FOUND")]
    lines.append(f"  snapshot: generation {report.generation}" if report.generation else "  snapshot: none")
    lines += [f"  snapshot problem: {p}" for p in report.snapshot_problems]
    lines += [f"  {report.pointer}" for _ in [1] if report.pointer]
    for w in report.wal:
        state = "damaged" if w.damaged else (f"{w.torn_bytes} torn bytes at the end" if w.torn_bytes else "ok")
        lines.append(f"  {w.path}: {w.frames} frames, {w.size:,} bytes, {state}"
                     + (f", {w.salvageable} intact frames after the damage" if w.damaged else ""))
        lines += [f"    left out on replay (quarantined, the rest applies): {r}" for r in w.rejected[:20]]
    lines += [f"  missing: {m}" for m in report.missing_wal]
    lines += [f"  repaired: {r}" for r in report.repaired]
    lines += [f"  leftover: {item}" for item in report.leftovers]
    if not report.healthy and not repair:
        remedy = "rebuild the state from the logs" if report.snapshot_problems else \
            "recreate the missing write-ahead log and re-read the logs" if report.missing_wal and \
            not any(w.damaged for w in report.wal) else "salvage every intact frame"
        lines.append(f"  run `moraine doctor --repair` to {remedy}")
    _emit(data, as_json, "\n".join(lines))
    return 0 if healthy else StateError.exit_code


def forget(config: Config, args: argparse.Namespace) -> int:
    if not args.paths and not args.missing:
        raise UsageError("name the logs to forget, or pass --missing")
    return _forget(config, args.paths, args.missing, args.json)
