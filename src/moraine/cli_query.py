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
from collections.abc import Callable
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

from moraine import querylog
from moraine.cli_args import LIST_DAYS
from moraine.config import Config
from moraine.errors import UsageError
from moraine.ingest.state import ingest_state
from moraine.mcp_server.contract import ToolResult
from moraine.mcp_server.views import for_terminal
from moraine.store.engine import Store
from moraine.store.run_files import daemon_holding

FLAG_OF_FIELD = {"start_datetime": "--since", "end_datetime": "--until", "within_id": "--within",
                 "event_types": "--type", "n_hits": "-n/--n-hits", "limit": "--limit", "cursor": "--cursor",
                 "mode": "--mode", "sort": "--sort", "source": "--source", "cwd": "--cwd", "since": "--since",
                 "until": "--until"}


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


def answer(config: Config, args: argparse.Namespace) -> int:
    """A reading command: the tool's answer from the daemon serving the state when one does (its
    index is warm and caught up, and it never makes the command wait for its writer), else from
    the state with the logs' new lines read. The commands that write (track, cleanup) open the state."""
    if args.command in ASKED and daemon_holding(config.home):
        result = _ask(lambda tool, request: _from_daemon(config, tool, request), args)
        if result is not None:
            return print_result(result, args.json)
    from moraine.cli_state import caught_up_store

    return print_result(run(caught_up_store(config), args), args.json)


def queries_command(config: Config, args: argparse.Namespace) -> int:
    return queries(config.home, config.telemetry.query_log, args.top, args.json)


ASKED = frozenset({"search", "open", "list", "history", "patterns"})  # what a running daemon answers


class _NoAnswer(Exception):
    """The daemon did not answer a call (the command then opens the state)."""


def _from_daemon(config: Config, tool: str, request: dict[str, Any]) -> ToolResult:
    from moraine.daemon.client import call_daemon

    got = call_daemon(config, tool, request)
    if got is None:
        raise _NoAnswer
    return ToolResult(*got)


def _ask(call: Callable[[str, dict[str, Any]], ToolResult], args: argparse.Namespace) -> ToolResult | None:
    try:
        return _run(call, args)
    except _NoAnswer:
        return None


def run(store: Store, args: argparse.Namespace) -> ToolResult:
    """The command's answer from this state (the daemon logs its own calls)."""
    from moraine.mcp_server.runner import TOOLS

    if args.command == "cleanup":
        result = _cleanup(store, args)
    else:
        fresh = ingest_state(store).freshness()  # what the catch-up before this command found
        result = _run(lambda tool, request: TOOLS[tool].run(store, request, None, fresh), args)
    if store.config.telemetry.query_log:
        querylog.record(store.home, result.structured.get("tool", ""), result.structured)
    return result


def _run(call: Callable[[str, dict[str, Any]], ToolResult], args: argparse.Namespace) -> ToolResult:
    """The tool call a command makes, through `call` (this process's state, or the daemon's)."""
    if args.command == "search":
        request: dict[str, Any] = {
            "query": " ".join(args.query), "within_id": args.within_id, "event_types": args.event_types,
            "n_hits": args.n_hits,
            "source": args.source, "cwd": _cwd(args.cwd), "since": args.since, "until": args.until}
        return call("search_sessions", {k: v for k, v in request.items() if v is not None or k == "within_id"})
    if args.command == "history":
        request = {"query": " ".join(args.query), "session_id": args.session,
                   "context_lines": args.context_lines, "max_results": args.max_results, "since": args.since,
                   "until": args.until, "context_in_text": not args.json}  # a person reads the text
        return call("search_session_history", request)
    if args.command == "patterns":
        return call("get_learned_patterns", {"prompt_filter": args.prompt_filter,
                                             "min_occurrences": args.min_occurrences, "sort_by": args.sort_by})
    if args.command == "track":
        return call("track_input_event", {"session_id": args.session_id, "prompt_text": args.prompt_text,
                                          "input_text": args.input_text, "success": not args.failed,
                                          "input_source": "cli"})
    if args.command == "open":
        request = {"id": args.id, "offset": args.offset, "max_chars": args.max_chars,  # refs.resolve: any id
                   "cursor": args.cursor, "content_in_text": None if args.json else True}  # a person reads the text
        return call("open", {k: v for k, v in request.items() if v is not None})
    request = {"start_datetime": args.since or default_list_start(), "end_datetime": args.until or LIST_END,
               "limit": args.limit, "cursor": args.cursor, "mode": args.mode, "sort": args.sort,
               "source": args.source, "cwd": _cwd(args.cwd)}
    result = call("list_sessions", request)
    if args.cursor and not args.since and _cursor_refused(result):  # paging across local midnight
        result = call("list_sessions", {**request, "start_datetime": default_list_start(days_ago=1)})
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
    """A relative directory is the shell's; `~…` and an empty value go to the tool as typed,
    which expands the one and refuses a home of no such user, or nothing, in words."""
    if not value or value.startswith("~"):
        return value
    return str(Path(value).resolve())


# The in-band errors that say the command's arguments were wrong (a flag's value out of range, an
# id that is not one, a pattern RE2 refuses): exit 2, as argparse's own; the others (not found, a
# deadline, an internal error) exit 1.
USAGE_CODES = frozenset({"invalid_request", "invalid_id", "unsupported_event_type", "INVALID_REQUEST",
                         "INVALID_REGEX"})


def print_result(result: ToolResult, as_json: bool) -> int:
    """The tool's text (or JSON); an in-band error names the flag a person typed, not the field,
    and goes to stderr (with `--json` the error envelope is the output, on stdout)."""
    envelope = result.structured
    if "code" in envelope and "error" in envelope:  # the history tools' error form ({error, code})
        if as_json:
            print(json.dumps(envelope, ensure_ascii=False, indent=2))
        else:
            print(for_terminal(result.text), file=sys.stderr)
        return 2 if envelope["code"] in USAGE_CODES else 1
    if as_json:
        print(json.dumps(envelope, ensure_ascii=False, indent=2))
    elif "error" in envelope:
        field = envelope["error"].get("details", {}).get("field")
        print(for_terminal(re.sub(rf"(?<![\w-]){re.escape(field)}(?!\w)", FLAG_OF_FIELD[field], result.text, count=1)
                           if field in FLAG_OF_FIELD else result.text), file=sys.stderr)  # the subject, as a word
    else:
        print(for_terminal(_for_people(result.text, envelope)))
    if "error" not in envelope:
        return 0
    return 2 if envelope["error"].get("code") in USAGE_CODES else 1



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
