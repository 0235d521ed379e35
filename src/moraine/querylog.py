"""The opt-in local query log (`[telemetry] query_log = true`), for tuning relevance.

One JSON line per search (query, filters, result count, latency, the hits' event IDs) and per
open (the ID opened), appended to `$MORAINE_HOME/queries.jsonl` (0600). Off by default; never
leaves the machine; the query text and filters are redacted like everything Moraine keeps.
`moraine queries` reads it back: the most frequent, the zero-result and the slowest queries,
and which hits were opened afterwards.
"""

from __future__ import annotations

import json
import os
import time
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

from moraine.redaction.redact import redact

FILE = "queries.jsonl"
OPENED_WITHIN_S = 3600  # an open counts for the latest search that returned its ID, within this


def record(home: Path, tool: str, envelope: dict[str, Any]) -> None:
    """Append one line for a search or an open (best effort: a full disk never fails a call)."""
    request = envelope.get("request") or {}
    line: dict[str, Any] = {"at": round(time.time(), 3), "tool": tool}
    if tool == "search_sessions":
        data = envelope.get("data") or {}
        line.update(query=redact(str(request.get("query", ""))),
                    filters={k: redact(json.dumps(v)) if isinstance(v, str | list) else v
                             for k, v in request.items() if k != "query" and v is not None},
                    results=data.get("result_count", 0), error=(envelope.get("error") or {}).get("code"),
                    ms=(envelope.get("performance") or {}).get("elapsed_ms"),
                    hits=[hit["id"] for hit in data.get("results", [])])
    elif tool == "open":
        line.update(id=request.get("id"), error=(envelope.get("error") or {}).get("code"))
    else:
        return
    try:
        fd = os.open(home / FILE, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
        try:
            os.write(fd, (json.dumps(line, ensure_ascii=False) + "\n").encode("utf-8"))
        finally:
            os.close(fd)
    except OSError:
        pass


def read(home: Path) -> list[dict[str, Any]]:
    try:
        text = (home / FILE).read_text(encoding="utf-8", errors="replace")
    except OSError:
        return []
    lines = []
    for raw in text.splitlines():
        try:
            item = json.loads(raw)
        except ValueError:
            continue
        if isinstance(item, dict):
            lines.append(item)
    return lines


def summarize(lines: list[dict[str, Any]], top: int = 10) -> dict[str, Any]:
    """Top, zero-result and slowest queries, and how often a search led to an open."""
    searches = [x for x in lines if x.get("tool") == "search_sessions" and not x.get("error")]
    opened: dict[int, set[str]] = defaultdict(set)
    latest: dict[str, tuple[int, float]] = {}  # hit id → (search index, when)
    index = -1
    for line in lines:
        if line.get("tool") == "search_sessions" and not line.get("error"):
            index += 1
            for hit in line.get("hits", []):
                latest[hit] = (index, line.get("at", 0))
        elif line.get("tool") == "open" and line.get("id") in latest:
            which, when = latest[line["id"]]
            if line.get("at", 0) - when <= OPENED_WITHIN_S:
                opened[which].add(line["id"])
    counts = Counter(x.get("query", "") for x in searches)
    zero = Counter(x.get("query", "") for x in searches if not x.get("results"))
    slow = sorted(searches, key=lambda x: -(x.get("ms") or 0))[:top]
    return {
        "searches": len(searches),
        "opens": sum(1 for x in lines if x.get("tool") == "open"),
        "searches_followed_by_an_open": len(opened),
        "top": [{"query": q, "count": n} for q, n in counts.most_common(top)],
        "zero_results": [{"query": q, "count": n} for q, n in zero.most_common(top)],
        "slowest": [{"query": x.get("query"), "ms": x.get("ms"), "results": x.get("results")} for x in slow],
        "opened_hits": [{"query": searches[i].get("query"), "opened": sorted(ids)}
                        for i, ids in sorted(opened.items())][-top:],
    }


def render(summary: dict[str, Any]) -> str:
    lines = [f"{summary['searches']} searches, {summary['opens']} opens; {summary['searches_followed_by_an_open']} "
             "searches led to an open of one of their hits"]
    for title, key in (("top queries", "top"), ("zero-result queries", "zero_results")):
        lines.append(f"{title}:")
        lines += [f"  {row['count']:>5}  {row['query']}" for row in summary[key]] or ["  (none)"]
    lines.append("slowest queries:")
    lines += [f"  {row['ms']:>5} ms  {row['query']} ({row['results']} results)" for row in summary["slowest"]] \
        or ["  (none)"]
    return "\n".join(lines)
