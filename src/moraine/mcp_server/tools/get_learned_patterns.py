"""`get_learned_patterns` (a history tool): recurring questions the agent asked and how people answered
(see `store.patterns`). Output is the history tools' schema, with a readable text block beside it."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from pydantic import Field

from moraine.ingest.state import Freshness
from moraine.mcp_server.arguments import MAX_TEXT, Arguments, check, one_of
from moraine.mcp_server.contract import ToolResult, seed_respond
from moraine.mcp_server.tools import Tool
from moraine.mcp_server.views import short_time
from moraine.store.engine import Store
from moraine.store.patterns import report

NAME = "get_learned_patterns"
DESCRIPTION = (
    "Recurring questions the agent asked at the end of a turn (or with a question tool) and the replies people "
    "gave: occurrences, the most common reply and its success rate (the next turn completed without interruption "
    "or error), last seen. Includes observations recorded with track_input_event."
)
SORTS = ("occurrences", "last_seen", "success_rate")
if TYPE_CHECKING:
    Sort = str
else:
    Sort = one_of(SORTS)


class PatternArguments(Arguments):
    prompt_filter: str | None = Field(None, max_length=MAX_TEXT,
                                      description="Only prompts containing this text (case-sensitive "
                                      "substring; null = all).")
    min_occurrences: int | None = Field(None, ge=1, le=10**9, description="Only patterns seen at least this often "
                                        "(null = 2 for patterns learned from the history, 1 for those with a "
                                        "tracked observation; 1 shows every pattern).")
    sort_by: Sort = Field("occurrences", description="Descending order by this (null = occurrences).")
    max_patterns: int = Field(50, ge=1, le=500, description="Patterns to return; total_patterns counts them all "
                              "(null = 50).")


_RESPONSE = {"type": "object", "properties": {"input_text": {"type": "string"}, "count": {"type": "integer"},
                                              "success_count": {"type": "integer"},
                                              "success_rate": {"type": "number"}}}
OUTPUT_SCHEMA: dict[str, Any] = {
    "type": "object",
    "anyOf": [
        {"type": "object", "required": ["patterns", "total_patterns"], "properties": {
            "patterns": {"type": "array", "items": {"type": "object", "properties": {
                "prompt_text": {"type": "string"}, "total_occurrences": {"type": "integer"},
                "most_common_response": _RESPONSE, "all_responses": {"type": "array", "items": _RESPONSE},
                "last_seen": {"type": ["string", "null"], "format": "date-time"}}}},
            "total_patterns": {"type": "integer"}}},
        {"type": "object", "required": ["error", "code"],
         "properties": {"error": {"type": "string"}, "code": {"type": "string"}}},
    ],
}
MAX_RESPONSES = 20


def run(store: Store, args: Any, timer: Any = None, fresh: Freshness | None = None) -> ToolResult:
    return seed_respond(NAME, lambda: _answer(store, args))


def _answer(store: Store, raw: Any) -> ToolResult:
    args = check(PatternArguments, raw)
    data = report(store, args.prompt_filter, args.min_occurrences, args.sort_by)
    budget = int(store.config.mcp.max_reply_chars * 0.4)
    kept: list[dict[str, Any]] = []
    used = 0
    for pattern in data["patterns"][: args.max_patterns]:
        pattern["all_responses"] = pattern["all_responses"][:MAX_RESPONSES]
        used += len(json.dumps(pattern))
        if kept and used > budget:
            break
        kept.append(pattern)
    data["patterns"] = kept
    data["truncated"] = len(kept) < data["total_patterns"]
    return ToolResult(data, render(data))


def render(data: dict[str, Any]) -> str:
    """Per pattern: the prompt, how often and when it was last seen, and its replies (the three
    most common) with their success rates."""
    lines = [f'{data["total_patterns"]} pattern(s); {len(data["patterns"])} shown.']
    if data.get("below_min_occurrences"):
        lines[0] += (f' {data["below_min_occurrences"]} seen less often were left out '
                     f'(min_occurrences=1 shows them).')
    for p in data["patterns"]:
        lines.append(f'- "{p["prompt_text"][:160]}" ×{p["total_occurrences"]}, last {short_time(p["last_seen"])}, '
                     f'success {p["success_rate"]:.0%}:')
        shown = p["all_responses"][:3]
        for r in shown:
            lines.append(f'    "{r["input_text"][:80]}" ×{r["count"]}, success {r["success_rate"]:.0%}')
        if len(p["all_responses"]) > len(shown):
            lines.append(f'    … {len(p["all_responses"]) - len(shown)} more replies')
    return "\n".join(lines)


TOOL = Tool(NAME, DESCRIPTION, PatternArguments, run, output_schema=OUTPUT_SCHEMA)
