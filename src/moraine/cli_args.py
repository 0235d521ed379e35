"""What every `moraine` command takes: the argument parser alone.

Kept apart from the commands so that parsing imports nothing heavy: an agent host spawns
`moraine mcp` at every session start, and it must reach the daemon without importing the
search engine, the redaction rules or the MCP SDK.
"""

from __future__ import annotations

import argparse
from datetime import date, datetime
from pathlib import Path
from typing import TypeAlias

from moraine import __version__
from moraine.harnesses import NAMES
from moraine.model import MODES, SEARCHABLE_TYPES

LIST_DAYS = 7


def parser() -> argparse.ArgumentParser:
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
    _add_reading(sub)
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


# What `add_subparsers()` returns (typeshed names the class; argparse keeps it private).
Subparsers: TypeAlias = "argparse._SubParsersAction[argparse.ArgumentParser]"


def _add_reading(sub: Subparsers) -> None:
    """The commands that answer from the history, as the MCP tools do."""
    _add_search(sub)
    _add_open(sub)
    _add_list(sub)
    _add_history(sub)
    _add_patterns(sub)
    _add_track(sub)
    _add_cleanup(sub)
    _add_queries(sub)


def _add_search(sub: Subparsers) -> None:
    p = sub.add_parser("search", help="search_sessions from the shell")
    p.add_argument("query", nargs="+", help="the words to find (`moraine search fix migration`: quotes are optional)")
    p.add_argument("--within", dest="within_id", help="a session or turn ID to search inside")
    p.add_argument("--type", dest="event_types", action="append", metavar="TYPE",
                   help=f"event type, repeatable; one of: {', '.join(SEARCHABLE_TYPES)} "
                   "(default: user_input, assistant_response, tool_response)")
    p.add_argument("-n", "--n-hits", dest="n_hits", type=int, help="hits to show, 1-50 (default 10)")
    p.add_argument("--source", action="append", choices=list(NAMES), help="only this harness (repeatable)")
    p.add_argument("--cwd", help="only sessions in this project directory or below")
    p.add_argument("--since", type=when, help="only events at or after this date or time (e.g. 2026-03-01)")
    p.add_argument("--until", type=when, help="only events before this date or time")
    p.add_argument("--json", action="store_true")


def _add_open(sub: Subparsers) -> None:
    p = sub.add_parser("open", help="open a session, turn or event ID (or a harness's session id, or a log path)")
    p.add_argument("id", help="a Moraine ID, a native session id (codex resume / claude --resume), or a log path")
    p.add_argument("--offset", type=int, help="event: first character of the page of content")
    p.add_argument("--max-chars", dest="max_chars", type=int, help="event: characters in the page")
    p.add_argument("--cursor", help="session or turn: next_cursor of the previous page")
    p.add_argument("--json", action="store_true")


def _add_list(sub: Subparsers) -> None:
    p = sub.add_parser("list", help=f"list sessions overlapping a time window (default: the last {LIST_DAYS} days)")
    p.add_argument("--since", type=when, help=f"start: a date (2026-03-01, local midnight) or RFC 3339 time "
                   f"(default: {LIST_DAYS} days ago)")
    p.add_argument("--until", type=when, help="end, exclusive: a date or RFC 3339 time (default: now)")
    p.add_argument("--limit", type=int, help="sessions per page, 1-50 (default 20)")
    p.add_argument("--cursor", help="next_cursor of the previous page")
    p.add_argument("--mode", help=f"only sessions of this mode, one of: {', '.join(MODES)}")
    p.add_argument("--sort", help="by last activity, one of: desc (newest first, the default), asc")
    p.add_argument("--source", action="append", choices=list(NAMES), help="only this harness (repeatable)")
    p.add_argument("--cwd", help="only sessions in this project directory or below")
    p.add_argument("--json", action="store_true")


def _add_history(sub: Subparsers) -> None:
    p = sub.add_parser("history", help="search_session_history: a regular expression over transcripts, line by line")
    p.add_argument("query", nargs="+", help="RE2 regular expression (no backreferences or lookaround); words "
                   "given apart are joined by one space")
    p.add_argument("--session", help="one session: a Moraine ID, a native session id or a log path")
    p.add_argument("-C", "--context", dest="context_lines", type=int, help="context lines, 0-10 (default 3)")
    p.add_argument("-n", "--max-results", dest="max_results", type=int, help="matches to show, 1-100 (default 10)")
    p.add_argument("--since", type=when, help="only events at or after this date or time")
    p.add_argument("--until", type=when, help="only events before this date or time")
    p.add_argument("--json", action="store_true")


def _add_patterns(sub: Subparsers) -> None:
    p = sub.add_parser("patterns", help="get_learned_patterns: questions the agent asked and how you answered")
    p.add_argument("--filter", dest="prompt_filter", help="only prompts containing this text")
    p.add_argument("--min", dest="min_occurrences", type=int, help="only patterns seen at least this often")
    p.add_argument("--sort", dest="sort_by", help="occurrences (default), last_seen or success_rate")
    p.add_argument("--json", action="store_true")


def _add_track(sub: Subparsers) -> None:
    p = sub.add_parser("track", help="track_input_event: record a prompt → input observation")
    p.add_argument("--session", dest="session_id", required=True)
    p.add_argument("--prompt", dest="prompt_text", required=True)
    p.add_argument("--input", dest="input_text", required=True)
    p.add_argument("--failed", action="store_true", help="the input did not lead to a good outcome")
    p.add_argument("--json", action="store_true")


def _add_cleanup(sub: Subparsers) -> None:
    p = sub.add_parser("cleanup", help="cleanup_old_sessions: forget sessions older than the retention")
    p.add_argument("--retention-days", dest="retention_days", type=int, default=7, help="1-365 (default 7)")
    p.add_argument("--dry-run", action="store_true", help="list what would be forgotten, change nothing")
    p.add_argument("--yes", action="store_true", help="do not ask before forgetting (asked on a terminal)")
    p.add_argument("--json", action="store_true")


def _add_queries(sub: Subparsers) -> None:
    p = sub.add_parser("queries", help="summarise the local query log (opt-in: [telemetry] query_log = true)")
    p.add_argument("--top", type=int, default=10, help="rows per table (default 10)")
    p.add_argument("--json", action="store_true")


def when(value: str) -> str:
    """argparse type of --since/--until: a date (local midnight), a naive time (local) or
    RFC 3339 → RFC 3339 with an offset; anything else is a usage error naming the flag."""
    text = value.strip()
    try:
        if len(text) == 10:
            day = date.fromisoformat(text)
            return datetime(day.year, day.month, day.day).astimezone().isoformat()
        parsed = datetime.fromisoformat(text[:-1] + "+00:00" if text[-1:] in "zZ" else text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{value!r} is not a date (2026-03-01) or a time "
                                         "(2026-03-01T09:00:00Z)") from None
    return (parsed if parsed.tzinfo else parsed.astimezone()).isoformat()
