"""`moraine status`: what the state holds and how far it is behind the logs, as text or as
the `--json` report scripts read (its keys and their order are the interface)."""

from __future__ import annotations

import argparse
import json
import time
from typing import Any, TypedDict

from moraine.config import Config
from moraine.ingest.pipeline import on_disk, unread_bytes
from moraine.ingest.state import ingest_state
from moraine.mcp_server.tools import index_status
from moraine.mcp_server.views import for_terminal, one_line
from moraine.store.engine import Store


class FileRow(TypedDict):
    path: str
    generation: int
    offset: int
    lines: int
    exists: bool


class QuarantinedLine(TypedDict):
    file: str
    generation: int
    line: int
    offset: int
    reason: str


class SkippedFrame(TypedDict):
    wal: int
    offset: int
    reason: str


class StatusReport(TypedDict):
    """`moraine status --json`: its keys and their order are what scripts read."""

    home: str
    events: int
    events_applied: int
    sessions: int
    live_events: int
    searchable_documents: int
    wal_bytes: int
    wal_files: int
    wal_events_since_snapshot: int
    segments: int
    segment_postings: list[int]
    memtable_documents: int
    generation: int | None
    snapshot_ms: int | None
    last_ingest_ms: int
    torn_bytes_cut: int
    pending_bytes: int
    sources: dict[str, int]
    daemon: dict[str, Any] | None
    files: dict[str, list[FileRow]]
    quarantined: list[QuarantinedLine]
    unreadable_files: dict[str, str]
    index: dict[str, Any]
    skipped_wal_frames: list[SkippedFrame]


class _Busy(Exception):
    """Another process is writing the state: status answers now rather than wait for it."""


def status_command(config: Config, args: argparse.Namespace) -> int:
    return status(config, args.json)


def status(config: Config, as_json: bool) -> int:
    try:
        store = Store(config, create=False, busy=_give_up)
    except _Busy:
        return _busy_status(config, as_json)
    report = _status_report(config, store)
    if as_json:
        print(json.dumps(report, indent=2))
    else:
        print(for_terminal("\n".join(_status_lines(config, report))))  # log paths and reasons come from the logs
    return 0


BUSY_WAIT_S = 5.0  # another command's catch-up takes a moment; a daemon's first backfill, minutes


def _give_up(waited: float) -> None:
    if waited >= BUSY_WAIT_S:
        raise _Busy()


def _busy_status(config: Config, as_json: bool) -> int:
    """While an indexing pass holds the state (a daemon's first backfill of thousands of logs
    takes minutes), status says who is writing it and how far the daemon is, at once."""
    daemon = index_status.daemon_report(config.home)
    if as_json:
        print(json.dumps({"home": str(config.home), "busy": True, "daemon": daemon}, indent=2))
        return 0
    print(f"Moraine state at {config.home}")
    if daemon is None:
        print("  another `moraine` process is writing it (an indexing pass); its figures are shown once it ends")
        return 0
    doing = "reading the logs for the first time" if not daemon["backfilled"] else "an indexing pass"
    print(f"  the daemon (pid {daemon['pid']}, up {daemon['uptime_s']:.0f}s) is writing it: {doing}, "
          f"{daemon['lag_bytes']:,} bytes of logs still to read")
    print("  its figures are shown once the pass ends; agents' calls are answered meanwhile (index_status)")
    return 0


def _status_report(config: Config, store: Store) -> StatusReport:
    files: dict[str, list[FileRow]] = {}
    exists = on_disk(store, store.checkpoints)
    for path, cp in sorted(store.checkpoints.items()):
        files.setdefault(cp.source, []).append(
            {"path": path, "generation": cp.generation, "offset": cp.offset, "lines": cp.line,
             "exists": exists[path]})
    issues: list[QuarantinedLine] = [{"file": i.file, "generation": i.generation, "line": i.line,
                                      "offset": i.offset, "reason": i.reason} for i in store.stats.issues]
    return {
        "home": str(config.home), "events": store.read.live_event_count(),
        "events_applied": store.stats.events, "sessions": store.read.session_count(),
        "live_events": store.read.live_event_count(),
        "searchable_documents": store.index.n_docs, "wal_bytes": store.wal_set.size(),
        "wal_files": len(store.wal_set.seqs()), "wal_events_since_snapshot": store.events_since_snapshot,
        "segments": len(store.index.segments),
        "segment_postings": [int(s.n_postings) for s in store.index.segments],
        "memtable_documents": len(store.index.mem),
        "generation": store.manifest.generation if store.manifest else None,
        "snapshot_ms": store.manifest.created_ms if store.manifest else None,
        "last_ingest_ms": store.stats.last_ingest_ms, "torn_bytes_cut": store.stats.torn_bytes,
        "pending_bytes": unread_bytes(store), "sources": {k: len(v) for k, v in files.items()},
        "daemon": index_status.daemon_report(config.home),
        "files": files, "quarantined": issues, "unreadable_files": dict(sorted(store.file_issues.items())),
        # the figures of the index_status tool, from the same function
        "index": index_status.report(store, ingest_state(store).freshness()),
        "skipped_wal_frames": [{"wal": seq, "offset": offset, "reason": reason}
                               for (seq, offset), reason in sorted(store.bad_frames.items())],
    }


def _status_lines(config: Config, report: StatusReport) -> list[str]:
    """The status as a person reads it, one line each."""
    generation = report["generation"]
    return [
        f"Moraine state at {config.home}",
        f"  {report['live_events']} events in {report['sessions']} sessions; "
        f"{report['searchable_documents']} searchable documents",
        "  snapshot: " + (f"generation {generation}, {_when(report['snapshot_ms'])}" if generation else "none yet")
        + f"; {report['segments']} segments + {report['memtable_documents']} documents in memory",
        f"  WAL: {report['wal_files']} file(s), {report['wal_bytes']:,} bytes, "
        f"{report['wal_events_since_snapshot']} events since the snapshot",
        f"  last ingest: {_when(report['last_ingest_ms'])}",
        _daemon_line(report["daemon"]),
        *_source_lines(report),
        f"  bytes not indexed yet: {report['pending_bytes']} (logs not read yet, and half-written last "
        "lines waiting for their newline)",
        *_left_out_lines(report),
        *_redaction_lines(report["index"]["redactions"]),
    ]


def _daemon_line(daemon: dict[str, Any] | None) -> str:
    if daemon:
        return (f"  daemon: pid {daemon['pid']}, up {daemon['uptime_s']:.0f}s, {daemon['connections']} "
                f"connection(s), {daemon['lag_bytes']} bytes behind the logs, socket {daemon['socket']}")
    return "  daemon: not running (`moraine daemon` starts it; `moraine mcp` does too)"


def _source_lines(report: StatusReport) -> list[str]:
    lines = []
    for row in report["index"]["sources"]:
        gone = sum(1 for e in report["files"].get(row["harness"], []) if not e["exists"])
        lines.append(f"  {row['name']}: {row['files']} files, {row['sessions']} sessions, {row['events']} events "
                     f"under {row['root']}, last ingest {row['last_ingest_at'] or 'never'}"
                     + (f" ({gone} no longer on disk, still searchable)" if gone else "")
                     + ("" if row["root_exists"] else " [root not found]"))
    return lines


def _left_out_lines(report: StatusReport) -> list[str]:
    """What ingest could not use: quarantined lines, unreadable files, skipped WAL frames."""
    issues = report["quarantined"]
    lines = [f"  quarantined lines: {len(issues)}"]
    lines += [one_line(f"    {issue['file']}:{issue['line']} (offset {issue['offset']}): {issue['reason']}")
              for issue in issues[:20]]
    unreadable = report["unreadable_files"]
    if unreadable:
        lines.append(f"  files not read (retried on every pass): {len(unreadable)}")
        lines += [one_line(f"    {path}: {reason}") for path, reason in list(unreadable.items())[:20]]
    lines += [f"  WAL frame skipped (wal {frame['wal']}, offset {frame['offset']}): {frame['reason']}"
              for frame in report["skipped_wal_frames"]]
    return lines


def _redaction_lines(red: dict[str, Any]) -> list[str]:
    lines = [f"  redaction: {'on' if red['enabled'] else 'OFF'}; {red['total']} credentials redacted"
             + (f", {red['extra_patterns']} extra pattern(s)" if red["extra_patterns"] else "")
             + (f", {red['allow_patterns']} allow pattern(s)" if red["allow_patterns"] else "")]
    lines += [f"    [REDACTED:{rule}] {count}" for rule, count in red["by_rule"].items()]
    lines += [one_line(f"  warning: {warning}") for warning in index_status.redaction_warnings(red)]
    return lines


def _when(ms: int | None) -> str:
    if not ms:
        return "never"
    return time.strftime("%Y-%m-%d %H:%M:%S %Z", time.localtime(ms / 1000))
