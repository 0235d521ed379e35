"""`moraine` command line: the same tool functions as MCP, readable text or `--json`.

Exit codes: 0 ok, 1 error, 2 bad arguments, 3 configuration, 4 state, 5 no logs.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from typing import Any

from moraine import __version__
from moraine.config import Config, load_config
from moraine.errors import MoraineError, NoLogsError
from moraine.ingest.pipeline import IngestSummary, catch_up, ingest_once, terminal_progress
from moraine.mcp_server.contract import ToolResult
from moraine.store.engine import Store


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="moraine", description="Local search over AI coding-agent history.")
    parser.add_argument("--version", action="version", version=f"moraine {__version__}")
    parser.add_argument("--home", help="state directory (default $MORAINE_HOME or ~/.moraine)")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    p = sub.add_parser("index", help="ingest every configured log into the state directory, then exit")
    p.add_argument("--json", action="store_true", help="print a JSON summary")
    sub.add_parser("mcp", help="serve MCP on stdio (what an agent host launches)")
    p = sub.add_parser("search", help="search_sessions from the shell")
    p.add_argument("query")
    p.add_argument("--within", dest="within_id")
    p.add_argument("--type", dest="event_types", action="append", help="event type (repeatable)")
    p.add_argument("-n", "--n-hits", dest="n_hits", type=int)
    p.add_argument("--json", action="store_true")
    p = sub.add_parser("open", help="open a session, turn or event ID")
    p.add_argument("id")
    p.add_argument("--json", action="store_true")
    p = sub.add_parser("list", help="list sessions overlapping a datetime window")
    p.add_argument("--since", required=True, help="start, RFC 3339 with offset or Z")
    p.add_argument("--until", required=True, help="end (exclusive), RFC 3339 with offset or Z")
    p.add_argument("--limit", type=int)
    p.add_argument("--cursor")
    p.add_argument("--mode")
    p.add_argument("--sort")
    p.add_argument("--json", action="store_true")
    p = sub.add_parser("status", help="what is indexed, from which files, and what was quarantined")
    p.add_argument("--json", action="store_true")
    return parser


def _print_result(result: ToolResult, as_json: bool) -> int:
    if as_json:
        print(json.dumps(result.structured, ensure_ascii=False, indent=2))
    else:
        print(result.text)
    return 1 if "error" in result.structured else 0


def _index(config: Config, as_json: bool) -> int:
    store = Store(config)
    summary = ingest_once(store, terminal_progress("indexing"), snapshot=True)
    _require_logs(store, summary)
    if as_json:
        print(json.dumps({**summary.as_dict(), "total_events": store.stats.events,
                          "sessions": len(store.catalog.sessions), "home": str(config.home)}))
    else:
        rate = summary.events / summary.seconds if summary.seconds else 0.0
        print(f"indexed {summary.events} new events from {summary.files_read} of {summary.files_seen} files "
              f"in {summary.seconds:.1f}s ({rate:,.0f} events/s); {summary.issues} line(s) quarantined; "
              f"{len(store.catalog.sessions)} sessions, {store.stats.events} events in {config.home}")
        for root in summary.roots_missing:
            print(f"note: source root not found: {root}")
    return 0


def _require_logs(store: Store, summary: IngestSummary) -> None:
    if summary.files_seen == 0 and not store.catalog.sessions:
        roots = ", ".join(str(s.root) for s in store.config.sources if s.enabled)
        raise NoLogsError(f"no agent logs found under {roots}; set CODEX_HOME / CLAUDE_CONFIG_DIR or add "
                          f"sources to {store.config.home / 'config.toml'}")


def _caught_up_store(config: Config) -> Store:
    store = Store(config)
    _require_logs(store, ingest_once(store))
    return store


def _status(config: Config, as_json: bool) -> int:
    store = Store(config, create=False)
    files: dict[str, list[dict[str, Any]]] = {}
    for path, cp in sorted(store.checkpoints.items()):
        files.setdefault(cp.source, []).append(
            {"path": path, "generation": cp.generation, "offset": cp.offset, "lines": cp.line})
    issues = [{"file": i.file, "generation": i.generation, "line": i.line, "offset": i.offset,
               "reason": i.reason} for i in store.stats.issues]
    report = {
        "home": str(config.home), "events": store.stats.events, "sessions": len(store.catalog.sessions),
        "searchable_documents": store.index.n_docs, "wal_bytes": store.wal_set.size(),
        "segments": len(store.index.segments), "last_ingest_ms": store.stats.last_ingest_ms,
        "pending_bytes": store.pending_bytes(), "sources": {k: len(v) for k, v in files.items()},
        "files": files, "quarantined": issues,
    }
    if as_json:
        print(json.dumps(report, indent=2))
        return 0
    print(f"Moraine state at {config.home}")
    print(f"  {report['events']} events in {report['sessions']} sessions; "
          f"{report['searchable_documents']} searchable documents; WAL {report['wal_bytes']:,} bytes")
    for source, count in report["sources"].items():
        print(f"  {source}: {count} files")
    print(f"  bytes not indexed yet: {report['pending_bytes']} (half-written last lines wait for their newline)")
    print(f"  quarantined lines: {len(issues)}")
    for issue in issues[:20]:
        print(f"    {issue['file']}:{issue['line']} (offset {issue['offset']}): {issue['reason']}")
    return 0


def _mcp(config: Config) -> int:
    import anyio

    from moraine.mcp_server.app import ToolRunner, serve_stdio

    runner = ToolRunner(lambda: Store(config), catch_up=catch_up)
    anyio.run(serve_stdio, runner)
    return 0


def run(argv: Sequence[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    config = load_config({"home": args.home})
    if args.command == "index":
        return _index(config, args.json)
    if args.command == "mcp":
        return _mcp(config)
    if args.command == "status":
        return _status(config, args.json)
    from moraine.mcp_server.tools import list_sessions, search_sessions
    from moraine.mcp_server.tools import open as open_tool

    store = _caught_up_store(config)
    if args.command == "search":
        request = {"query": args.query, "within_id": args.within_id, "event_types": args.event_types,
                   "n_hits": args.n_hits}
        return _print_result(search_sessions.run(store, request), args.json)
    if args.command == "open":
        return _print_result(open_tool.run(store, {"id": args.id}), args.json)
    request = {"start_datetime": args.since, "end_datetime": args.until, "limit": args.limit,
               "cursor": args.cursor, "mode": args.mode, "sort": args.sort}
    return _print_result(list_sessions.run(store, request), args.json)


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
    sys.exit(code)


if __name__ == "__main__":
    main()
