"""The commands people use to read their history: `search`, `open`, `list`.

They call the same tool functions as MCP (one output contract; a native session id or a log
path is resolved by the tools themselves, `mcp_server/refs.py`), with what a shell user needs on
top: `open` showing the content page in its text, `list` defaulting to the last 7 days, dates
at local midnight, and errors that name the flag that was wrong.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from datetime import date, datetime, timedelta
from pathlib import Path
from typing import Any, TypeAlias

from moraine import querylog
from moraine.errors import UsageError
from moraine.harnesses import NAMES
from moraine.mcp_server.contract import ToolResult
from moraine.model import MODES, SEARCHABLE_TYPES
from moraine.store.engine import Store

LIST_DAYS = 7
FLAG_OF_FIELD = {"start_datetime": "--since", "end_datetime": "--until", "within_id": "--within",
                 "event_types": "--type", "n_hits": "-n/--n-hits", "limit": "--limit", "cursor": "--cursor",
                 "mode": "--mode", "sort": "--sort", "source": "--source", "cwd": "--cwd", "since": "--since",
                 "until": "--until"}


# What `add_subparsers()` returns (typeshed names the class; argparse keeps it private).
Subparsers: TypeAlias = "argparse._SubParsersAction[argparse.ArgumentParser]"


def add_parsers(sub: Subparsers) -> None:
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

def queries(home: Path, enabled: bool, top: int, as_json: bool) -> int:
    summary = querylog.summarize(querylog.read(home), top)
    summary["query_log_enabled"] = enabled
    if as_json:
        print(json.dumps(summary, ensure_ascii=False, indent=2))
    else:
        if not enabled:
            print("the query log is off: set [telemetry] query_log = true in config.toml to record queries")
        print(querylog.render(summary))
    return 0


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


def run(store: Store, args: argparse.Namespace) -> ToolResult:
    result = _run(store, args)
    if store.config.telemetry.query_log:
        querylog.record(store.home, result.structured.get("tool", ""), result.structured)
    return result


def _run(store: Store, args: argparse.Namespace) -> ToolResult:
    from moraine.mcp_server.tools import (
        get_learned_patterns,
        list_sessions,
        search_session_history,
        search_sessions,
        track_input_event,
    )
    from moraine.mcp_server.tools import open as open_tool

    if args.command == "search":
        request: dict[str, Any] = {
            "query": " ".join(args.query), "within_id": args.within_id, "event_types": args.event_types,
            "n_hits": args.n_hits,
            "source": args.source, "cwd": _cwd(args.cwd), "since": args.since, "until": args.until}
        return search_sessions.run(store, {k: v for k, v in request.items() if v is not None or k == "within_id"})
    if args.command == "history":
        request = {"query": " ".join(args.query), "session_id": args.session,
                   "context_lines": args.context_lines, "max_results": args.max_results, "since": args.since,
                   "until": args.until, "context_in_text": not args.json}  # a person reads the text
        return search_session_history.run(store, request)
    if args.command == "patterns":
        return get_learned_patterns.run(store, {"prompt_filter": args.prompt_filter,
                                                "min_occurrences": args.min_occurrences, "sort_by": args.sort_by})
    if args.command == "track":
        return track_input_event.run(store, {"session_id": args.session_id, "prompt_text": args.prompt_text,
                                             "input_text": args.input_text, "success": not args.failed,
                                             "input_source": "cli"})
    if args.command == "cleanup":
        return _cleanup(store, args)
    if args.command == "open":
        request = {"id": args.id, "offset": args.offset, "max_chars": args.max_chars,  # refs.resolve: any id
                   "cursor": args.cursor, "content_in_text": None if args.json else True}  # a person reads the text
        return open_tool.run(store, {k: v for k, v in request.items() if v is not None})
    request = {"start_datetime": args.since or default_list_start(), "end_datetime": args.until or LIST_END,
               "limit": args.limit, "cursor": args.cursor, "mode": args.mode, "sort": args.sort,
               "source": args.source, "cwd": _cwd(args.cwd)}
    result = list_sessions.run(store, request)
    if args.cursor and not args.since and _cursor_refused(result):  # paging across local midnight
        result = list_sessions.run(store, {**request, "start_datetime": default_list_start(days_ago=1)})
    return result


# `moraine list` alone: from local midnight LIST_DAYS days ago, with no end. Neither bound moves
# while a person pages (a default of "now" did, and the next page's --cursor no longer matched).
LIST_END = "9999-12-31T23:59:59Z"


def default_list_start(days_ago: int = 0) -> str:
    """Local midnight LIST_DAYS days before today (or before `days_ago` days ago: a cursor printed
    before midnight was bound to the window of the day it was printed)."""
    today = datetime.now().astimezone().replace(hour=0, minute=0, second=0, microsecond=0)
    return (today - timedelta(days=LIST_DAYS + days_ago)).isoformat()


def _cursor_refused(result: ToolResult) -> bool:
    error = result.structured.get("error")
    return isinstance(error, dict) and error.get("details", {}).get("field") == "cursor"


def _cleanup(store: Store, args: argparse.Namespace) -> ToolResult:
    """`moraine cleanup`: on a terminal, shows what would go and asks before forgetting it."""
    from moraine.mcp_server.tools import cleanup_old_sessions

    request = {"retention_days": args.retention_days, "dry_run": True}
    if args.dry_run or args.yes:
        return cleanup_old_sessions.run(store, {**request, "dry_run": args.dry_run})
    preview = cleanup_old_sessions.run(store, request)
    if "error" in preview.structured or not preview.structured["total_deleted"]:
        return preview
    if not sys.stdin.isatty():  # nobody to ask: forgetting takes --yes
        raise UsageError(f"{preview.text}\nnothing was forgotten: without a terminal, `moraine cleanup` "
                         "forgets only with --yes (or see the list with --dry-run)")
    print(preview.text)
    try:
        answer = input("forget these sessions for good? [y/N] ")
    except EOFError:  # Ctrl-D: no
        print()
        answer = ""
    if answer.strip().lower() not in ("y", "yes"):
        return ToolResult(preview.structured, "nothing was forgotten.")  # the list was shown just above
    return cleanup_old_sessions.run(store, {**request, "dry_run": False})


def _cwd(value: str | None) -> str | None:
    return str(Path(value).expanduser().resolve()) if value else None


def print_result(result: ToolResult, as_json: bool) -> int:
    """The tool's text (or JSON); an in-band error names the flag a person typed, not the field."""
    envelope = result.structured
    if "code" in envelope and "error" in envelope:  # the history tools' error form ({error, code})
        print(json.dumps(envelope, ensure_ascii=False, indent=2) if as_json else result.text)
        return 1
    if as_json:
        print(json.dumps(envelope, ensure_ascii=False, indent=2))
    elif "error" in envelope:
        field = envelope["error"].get("details", {}).get("field")
        print(re.sub(rf"(?<![\w-]){re.escape(field)}(?!\w)", FLAG_OF_FIELD[field], result.text)
              if field in FLAG_OF_FIELD else result.text)  # the field as a word: not inside next_cursor
    else:
        print(_for_people(result.text, envelope))
    return 1 if "error" in envelope else 0


def _for_people(text: str, envelope: dict[str, Any]) -> str:
    """The tool's text with the next page named as the flag a person types, not the MCP field."""
    data = envelope.get("data")
    cursor = data.get("next_cursor") if isinstance(data, dict) else None
    if not cursor:
        return text
    if envelope.get("tool") == "open" and isinstance(data, dict):  # a session's or turn's next page
        for kind in ("session", "turn"):
            if isinstance(data.get(kind), dict):
                target = data[kind]["id"]
                text = text.replace(f"call open with id={target} and cursor={cursor}",
                                    f"run: moraine open {target} --cursor {cursor}")
        return text
    if envelope.get("tool") != "list_sessions":
        return text
    text = text.replace(f"next_cursor: {cursor}", f"next page: add --cursor {cursor}")
    return text.replace("pass next_cursor", "pass --cursor")
