"""`index_status`: what is indexed, from where, and what is not yet — so an agent can tell
"not indexed yet" from "never happened". The same figures as `moraine status` (one function
builds both)."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from moraine.ingest.pipeline import unread_bytes
from moraine.ingest.state import Freshness
from moraine.mcp_server.arguments import Arguments, check
from moraine.mcp_server.contract import (
    Answer,
    Call,
    Timer,
    ToolResult,
    freshness_warnings,
    respond,
)
from moraine.mcp_server.tools import Tool
from moraine.model import format_ts
from moraine.redaction.redact import rules_fingerprint
from moraine.redaction.structured import path_key
from moraine.store.engine import Store

NAME = "index_status"
DESCRIPTION = (
    "How complete Moraine's index is: sessions and events in total and per source (harness, log root, files, "
    "last ingest), log bytes not yet indexed, quarantined lines, unreadable files, snapshot generation and "
    "daemon uptime. Call it when a search finds nothing, to tell 'not indexed yet' from 'never happened'."
)


class StatusArguments(Arguments):
    """None: index_status takes no arguments (and says so of any it is given)."""

SLA = 500


def daemon_report(home: Path) -> dict[str, Any] | None:
    """The running daemon as its status file describes it (None when none holds the state)."""
    from moraine.store.run_files import daemon_holding, read_status

    status = read_status(home)
    if status is None or not daemon_holding(home):
        return None
    return {"pid": status["pid"], "uptime_s": round(time.time() - status["started"], 1),
            "connections": status["connections"], "lag_bytes": status["lag_bytes"], "socket": status["socket"],
            "backfilled": status["backfilled"]}


def source_report(store: Store) -> list[dict[str, Any]]:
    """Per configured source: its root, the files, sessions and events read from under it, and
    its harness's last ingest."""
    sources = [source for source in store.config.sources if source.in_use()]
    roots = [Path(source.root).expanduser() for source in sources]
    keys = [{key for key in (path_key(str(root)), path_key(str(root.resolve()))) if key} for root in roots]
    counts = store.read.counts_under(keys)
    rows = []
    for source, root, (files, sessions, events) in zip(sources, roots, counts, strict=True):
        last = store.stats.last_by_source.get(source.harness)
        rows.append({
            "name": source.name, "harness": source.harness, "root": str(root), "root_exists": root.is_dir(),
            "files": files, "sessions": sessions, "events": events,
            "last_ingest_at": format_ts(last) if last else None,
        })
    return rows


def report(store: Store, fresh: Freshness) -> dict[str, Any]:
    """Every figure of `index_status` (and of `moraine status`)."""
    manifest = store.manifest
    return {
        "sessions": store.read.session_count(),
        "events": store.read.live_event_count(),
        "searchable_documents": store.index.n_docs,
        "sources": source_report(store),
        "pending_bytes": unread_bytes(store),
        "quarantined_lines": len(store.stats.issues),
        "unreadable_files": len(store.file_issues),
        "snapshot": {"generation": manifest.generation if manifest else None,
                     "created_at": format_ts(manifest.created_ms) if manifest else None},
        "last_ingest_at": format_ts(store.stats.last_ingest_ms) if store.stats.last_ingest_ms else None,
        "daemon": daemon_report(store.home),
        "backfilling": fresh.backfilling,
        "redactions": redaction_report(store),
    }


def redaction_report(store: Store) -> dict[str, Any]:
    """Whether credentials are redacted, how many placeholders the state holds per rule, and
    whether every event was read under the rules in force now."""
    counts = store.redaction_counts()
    current = rules_fingerprint()
    return {"enabled": store.config.redaction.enabled, "total": sum(counts.values()), "by_rule": counts,
            "extra_patterns": len(store.config.redaction.extra_patterns),
            "allow_patterns": len(store.config.redaction.allow),
            "rules_changed": any(rules != current for rules in store.redactions.rule_sets)}


def warnings(store: Store, data: dict[str, Any], fresh: Freshness) -> list[str]:
    out = list(freshness_warnings(store, fresh))
    missing = [s["root"] for s in data["sources"] if not s["root_exists"]]
    if missing:
        out.append("log roots not found (nothing to index there): " + ", ".join(missing))
    if data["pending_bytes"]:
        out.append(f"{data['pending_bytes']} bytes of the logs are not indexed yet")
    if store.file_issues:  # a file Moraine cannot read is history it cannot answer from: named
        path, why = min(store.file_issues.items())
        more = f" and {len(store.file_issues) - 1} more (see `moraine status`)" if len(store.file_issues) > 1 else ""
        out.append(f"{len(store.file_issues)} log file(s) cannot be read: {path[:300]}: {why[:200]}{more}")
    out.extend(redaction_warnings(data["redactions"]))
    return out


def redaction_warnings(redactions: dict[str, Any]) -> list[str]:
    out = []
    if not redactions["enabled"]:
        out.append(REDACTION_OFF)
    if redactions["rules_changed"]:
        out.append("some events were redacted under other rules than the current ones (the rules or the "
                   "[redaction] settings changed): run `moraine reindex` to apply the current rules to every event")
    return out


REDACTION_OFF = ("REDACTION IS OFF ([redaction] enabled = false): credentials in your logs are stored and "
                 "searchable in plain text")


def run(store: Store, args: Any, timer: Timer | None = None, fresh: Freshness | None = None) -> ToolResult:
    return respond(Call(NAME, args, timer or Timer(), SLA, fresh or Freshness()),
                   lambda call: _answer(store, call), render)


def _answer(store: Store, call: Call) -> Answer:
    check(StatusArguments, call.args)
    data = report(store, call.fresh)
    return {}, data, warnings(store, data, call.fresh)


def render(envelope: dict[str, Any]) -> str:
    d = envelope["data"]
    lines = [f'{d["events"]} events in {d["sessions"]} sessions ({d["searchable_documents"]} searchable); '
             f'{d["pending_bytes"]} log bytes not indexed yet; {d["quarantined_lines"]} quarantined lines; '
             f'snapshot generation {d["snapshot"]["generation"]}']
    for s in d["sources"]:
        lines.append(f'  {s["name"]} ({s["harness"]}) at {s["root"]}: {s["files"]} files, {s["sessions"]} sessions, '
                     f'{s["events"]} events, last ingest {s["last_ingest_at"] or "never"}'
                     + ("" if s["root_exists"] else " [root not found]"))
    red = d["redactions"]
    by_rule = ", ".join(f"{rule} {n}" for rule, n in red["by_rule"].items())
    lines.append(f'redaction: {"on" if red["enabled"] else "OFF"}, {red["total"]} credentials redacted'
                 + (f" ({by_rule})" if by_rule else ""))
    daemon = d["daemon"]
    lines.append(f'daemon: pid {daemon["pid"]}, up {daemon["uptime_s"]:.0f}s' if daemon else "daemon: not running")
    lines.extend(f"warning: {w}" for w in envelope["warnings"])
    return "\n".join(lines)


TOOL = Tool(NAME, DESCRIPTION, StatusArguments, run)
