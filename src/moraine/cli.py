"""`moraine` command line: the same tool functions as MCP, readable text or `--json`, and
the state commands (snapshot, restore, doctor, reindex, forget, status).

Exit codes: 0 ok, 1 error, 2 bad arguments, 3 configuration, 4 state, 5 no logs.
"""

from __future__ import annotations

import argparse
import errno
import fcntl
import json
import os
import shutil
import signal
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import msgpack

from moraine import __version__, cli_query, cli_status
from moraine.config import Config, default_home, load_config
from moraine.errors import ConfigError, DaemonRunningError, MoraineError, NoLogsError, StateError, UsageError
from moraine.harnesses import NAMES
from moraine.ingest.pipeline import IngestSummary, Progress, catch_up, ingest_once, on_disk, terminal_progress
from moraine.ingest.state import ingest_state
from moraine.mcp_server.tools import index_status
from moraine.redaction.structured import path_key
from moraine.store.admin import copy_snapshot, doctor, install_snapshot, verify_snapshot
from moraine.store.engine import Store
from moraine.store.run_files import daemon_holding


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="moraine", description="Local search over AI coding-agent history.")
    parser.add_argument("--version", action="version", version=f"moraine {__version__}")
    parser.add_argument("--home", help="state directory (default $MORAINE_HOME or ~/.moraine)")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    p = sub.add_parser("index", help="ingest every configured log into the state directory, then exit")
    p.add_argument("--json", action="store_true", help="print a JSON summary")
    p = sub.add_parser("mcp", help="MCP on stdio for an agent host: a bridge to the daemon (started when none runs)")
    p.add_argument("--standalone", action="store_true", help="serve from this process instead of the daemon")
    p = sub.add_parser("daemon", help="run the long-lived daemon: live watching, MCP on a Unix socket")
    p.add_argument("--foreground", action="store_true", help="stay in the foreground (for service managers)")
    p.add_argument("--for-host", action="store_true", help=argparse.SUPPRESS)  # started by `moraine mcp`
    sub.add_parser("stop", help="stop the running daemon (final snapshot, socket removed)")
    p = sub.add_parser("setup", help="print (or --write) the MCP server entry for every MCP host Moraine reads")
    p.add_argument("--write", action="store_true",
                   help="merge the entry into the config file of each host installed here (or named by --host)")
    p.add_argument("--remove", action="store_true", help="take Moraine's entry out of the hosts' files (nothing else)")
    p.add_argument("--host", action="append", metavar="NAME", choices=list(NAMES),
                   help=f"only this host (repeatable): {', '.join(NAMES)}")
    p.add_argument("--json", action="store_true")
    cli_query.add_parsers(sub)
    p = sub.add_parser("status", help="what is indexed, from which files, and what was quarantined")
    p.add_argument("--json", action="store_true")
    p = sub.add_parser("snapshot", help="publish a snapshot of the state now; with --out, also copy it there")
    p.add_argument("--out", type=Path, help="directory to copy a consistent snapshot into (new or empty)")
    p.add_argument("--json", action="store_true")
    p = sub.add_parser("restore", help="replace the state by a snapshot made with `snapshot --out`")
    p.add_argument("path", type=Path)
    p.add_argument("--json", action="store_true")
    p = sub.add_parser("doctor", help="check the state files (snapshot checksums, WAL frames)")
    p.add_argument("--repair", action="store_true", help="salvage every intact WAL frame of a damaged WAL")
    p.add_argument("--json", action="store_true")
    p = sub.add_parser("reindex", help="rebuild the state from the logs (IDs stay the same)")
    p.add_argument("--json", action="store_true")
    p = sub.add_parser("forget", help="drop the events of logs (e.g. deleted ones) from the state")
    p.add_argument("paths", nargs="*", type=Path, help="log files to forget")
    p.add_argument("--missing", action="store_true", help="forget every log that no longer exists")
    p.add_argument("--json", action="store_true")
    return parser


def _index(config: Config, as_json: bool) -> int:
    store = Store(config)
    summary = ingest_once(store, terminal_progress("indexing"), snapshot=True)
    _require_logs(store, summary)
    if as_json:
        print(json.dumps({**summary.as_dict(), "total_events": store.live_event_count(),
                          "sessions": store.session_count(), "home": str(config.home)}))
    else:
        rate = summary.events / summary.seconds if summary.seconds else 0.0
        print(f"indexed {summary.events} new events from {summary.files_read} of {summary.files_seen} files "
              f"in {summary.seconds:.1f}s ({rate:,.0f} events/s); {summary.issues} line(s) quarantined; "
              f"{store.session_count()} sessions, {store.live_event_count()} events "
              f"in {config.home}")
        for root in summary.roots_missing:
            print(f"note: source root not found: {root}")
    return 0


def _require_logs(store: Store, summary: IngestSummary, home: Path | None = None) -> None:
    """`home`: the state a person knows (a rebuild reads into a temporary one beside it)."""
    home = home or store.config.home
    if summary.files_seen == 0 and not store.session_total():
        roots = ", ".join(str(s.root) for s in store.config.sources if s.enabled and not s.optional)
        raise NoLogsError(f"no agent logs found under {roots}. The state at {home} is ready: "
                          "`moraine index` (or the daemon) reads the logs once an agent writes them. If your logs "
                          "live elsewhere, set the harness's variable (CODEX_HOME, CLAUDE_CONFIG_DIR, …) or add "
                          f"[[sources]] to {home / 'config.toml'}")


def _caught_up_store(config: Config) -> Store:
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
    print(json.dumps(data, indent=2) if as_json else text)


def _snapshot(config: Config, out: Path | None, as_json: bool) -> int:
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


def _restore(config: Config, path: Path, as_json: bool) -> int:
    if daemon_holding(config.home):
        raise StateError(f"a Moraine daemon holds {config.home}; stop it (`moraine stop`) before restoring")
    manifest = verify_snapshot(path)
    store = Store(config)
    with store.writer():
        installed = install_snapshot(config.home, path, manifest)
        store._reset()
        store._load()
    data = {"home": str(config.home), "from": str(path), "generation": installed.generation,
            "events": installed.counts.get("live_events", 0), "sessions": installed.counts.get("sessions", 0)}
    _emit(data, as_json, f"restored {path} into {config.home}: {data['events']} events in {data['sessions']} "
          f"sessions (generation {data['generation']}); the next ingest reads what the logs gained since")
    return 0


def _reindex(config: Config, as_json: bool) -> int:
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
    temp = config.home / "reindex.tmp"
    shutil.rmtree(temp, ignore_errors=True)
    kept = _state_only(config)
    fresh = Store(config.model_copy(update={"home": temp}))
    if any(kept.values()):  # what the logs cannot give back: forgotten sessions and logs, observations
        with fresh.writer():
            fresh.commit([], [], {}, kept)
    summary = ingest_once(fresh, terminal_progress(label), snapshot=True)
    if require_logs:  # a reindex that finds no log would replace history by nothing
        _require_logs(fresh, summary, config.home)
    assert fresh.manifest is not None
    fd = os.open(config.home / "lock", os.O_RDWR | os.O_CREAT, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        installed = install_snapshot(config.home, temp, fresh.manifest, move=True)
    finally:
        os.close(fd)
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


def _doctor(config: Config, repair: bool, as_json: bool) -> int:
    if not config.home.exists():
        raise StateError(f"no Moraine state at {config.home}")
    fd = os.open(config.home / "lock", os.O_RDWR | os.O_CREAT, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        report = doctor(config.home, repair)
    finally:
        os.close(fd)
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
    if not report.healthy and not repair:
        remedy = "rebuild the state from the logs" if report.snapshot_problems else \
            "recreate the missing write-ahead log and re-read the logs" if report.missing_wal and \
            not any(w.damaged for w in report.wal) else "salvage every intact frame"
        lines.append(f"  run `moraine doctor --repair` to {remedy}")
    _emit(data, as_json, "\n".join(lines))
    return 0 if healthy else StateError.exit_code


def _daemon(config: Config, foreground: bool, for_host: bool = False) -> int:
    if foreground:
        from moraine.daemon.service import Daemon

        return Daemon(config, for_host=for_host).run()
    from moraine.daemon.bridge import connect
    from moraine.errors import DaemonUnavailable

    if daemon_holding(config.home):
        raise DaemonRunningError(f"a Moraine daemon already serves {config.home}")
    try:
        connect(config, for_host=False).close()
    except DaemonUnavailable as exc:
        error = MoraineError(str(exc))
        error.exit_code = exc.exit_code  # the daemon's own reason: 4 state, 5 no logs, …
        raise error from exc
    from moraine.store.run_files import read_status

    status = read_status(config.home) or {}
    print(f"moraine daemon running (pid {status.get('pid', '?')}) on {config.socket_path}; "
          f"log: {config.home / 'run' / 'daemon.log'}")
    return 0


def _stop(config: Config) -> int:
    from moraine.store.run_files import read_status

    status = read_status(config.home)
    if not daemon_holding(config.home) or status is None:
        print(f"no Moraine daemon runs on {config.home}")
        return 0
    os.kill(int(status["pid"]), signal.SIGTERM)
    deadline = time.monotonic() + 120
    while daemon_holding(config.home):
        if time.monotonic() > deadline:
            raise StateError(f"the daemon (pid {status['pid']}) did not stop within 120 s")
        time.sleep(0.05)
    print(f"stopped the Moraine daemon (pid {status['pid']})")
    return 0


def _mcp(config: Config) -> int:
    import anyio

    from moraine.mcp_server.app import ToolRunner, serve_stdio

    runner = ToolRunner(lambda: Store(config), catch_up=catch_up, allow_write=config.mcp.allow_write_tools)
    anyio.run(serve_stdio, runner)
    return 0


def run(argv: Sequence[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    if args.command == "mcp" and not args.standalone:
        return _bridge(args)
    config = load_config({"home": args.home})
    if not config.redaction.enabled:  # loud on every command, and in status and index_status
        print(f"moraine: warning: {index_status.REDACTION_OFF}", file=sys.stderr)
    command = _COMMANDS.get(args.command)
    if command is not None:
        return command(config, args)
    store = _caught_up_store(config)  # search, open, list, …: the tool functions MCP serves
    return cli_query.print_result(cli_query.run(store, args), args.json)


def _bridge(args: argparse.Namespace) -> int:
    """What an agent host launches: the state directory is checked before its config is read (a
    state of another user's is refused unread), and whatever stops the bridge from starting is
    answered to the host request by request, not only on stderr."""
    from moraine.daemon.bridge import check_private_dir, refuse, serve

    try:
        home = Path(args.home).expanduser() if args.home else default_home(dict(os.environ))
        if home.exists():
            check_private_dir(home, "the Moraine state directory")
        config = load_config({"home": args.home})
    except MoraineError as exc:
        return refuse(exc)
    return serve(config)


def _serve_mcp(config: Config, args: argparse.Namespace) -> int:
    if args.standalone:
        return _mcp(config)
    from moraine.daemon.bridge import serve

    return serve(config)


def _setup(config: Config, args: argparse.Namespace) -> int:
    from moraine.setup import run_setup

    home = config.home if config.home != Path.home() / ".moraine" else None  # --home / MORAINE_HOME
    if args.write and args.remove:
        raise UsageError("setup takes --write or --remove, not both")
    return run_setup(args.write, args.json, home, args.remove, args.host, config.sources)


def _forget_command(config: Config, args: argparse.Namespace) -> int:
    if not args.paths and not args.missing:
        raise UsageError("name the logs to forget, or pass --missing")
    return _forget(config, args.paths, args.missing, args.json)


# The commands that do not answer from a caught-up state, by name.
_COMMANDS: dict[str, Callable[[Config, argparse.Namespace], int]] = {
    "index": lambda config, args: _index(config, args.json),
    "mcp": _serve_mcp,
    "daemon": lambda config, args: _daemon(config, args.foreground, args.for_host),
    "stop": lambda config, args: _stop(config),
    "setup": _setup,
    "status": lambda config, args: cli_status.status(config, args.json),
    "snapshot": lambda config, args: _snapshot(config, args.out, args.json),
    "restore": lambda config, args: _restore(config, args.path, args.json),
    "doctor": lambda config, args: _doctor(config, args.repair, args.json),
    "reindex": lambda config, args: _reindex(config, args.json),
    "forget": _forget_command,
    "queries": lambda config, args: cli_query.queries(config.home, config.telemetry.query_log, args.top, args.json),
}


def main(argv: Sequence[str] | None = None) -> None:
    try:
        code = run(argv)
    except MoraineError as exc:
        print(f"moraine: {exc}", file=sys.stderr)
        code = exc.exit_code
    except KeyboardInterrupt:
        code = 130
    except BrokenPipeError:  # `moraine search … | head`: the reader left, nothing to report
        code = 0
    except OSError as exc:  # the disk, not Moraine: say which file and what to do
        print(f"moraine: {os_error_message(exc)}", file=sys.stderr)
        code = StateError.exit_code
    sys.exit(code)


def os_error_message(exc: OSError) -> str:
    """A full disk, a denied permission or an I/O error, in words a person can act on."""
    where = f" ({exc.filename})" if exc.filename else ""
    if exc.errno in (errno.ENOSPC, errno.EDQUOT):
        return (f"no space left on the device{where}. Nothing written was lost: the state stays readable "
                "as of its last whole write; free some space and run the command again.")
    if exc.errno in (errno.EACCES, errno.EPERM, errno.EROFS):
        return f"permission denied{where}: {exc.strerror}. Check the owner and mode of the state directory."
    return f"I/O error{where}: {exc.strerror or exc}. The state stays readable as of its last whole write."


if __name__ == "__main__":
    main()
