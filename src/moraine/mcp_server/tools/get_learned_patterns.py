"""`get_learned_patterns` (a history tool): recurring questions the agent asked and how people answered
(see `store.patterns`). Output is the history tools' schema, with a readable text block beside it."""

from __future__ import annotations

import json
from typing import Any

from moraine.errors import SeedError
from moraine.ingest.state import Freshness
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
INPUT_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "prompt_filter": {"type": "string", "description": "Only prompts containing this text (case-sensitive "
                          "substring; null = all)."},
        "min_occurrences": {"type": "integer", "minimum": 1, "default": 2,
                            "description": "Only patterns seen at least this often (null = 2 for patterns learned "
                            "from the history, 1 for those with a tracked observation; 1 shows every pattern)."},
        "sort_by": {"type": "string", "enum": list(SORTS), "default": "occurrences",
                    "description": "Descending order by this (null = occurrences)."},
        "max_patterns": {"type": "integer", "minimum": 1, "maximum": 500, "default": 50,
                         "description": "Patterns to return; total_patterns counts them all (null = 50)."},
    },
    "additionalProperties": False,
}
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


def _answer(store: Store, args: Any) -> ToolResult:
    args = {} if args is None else args
    if not isinstance(args, dict) or set(args) - set(INPUT_SCHEMA["properties"]):
        raise SeedError("INVALID_REQUEST", "arguments must be an object with the fields of the input schema")
    prompt_filter = args.get("prompt_filter")
    if prompt_filter is not None and not isinstance(prompt_filter, str):
        raise SeedError("INVALID_REQUEST", "prompt_filter must be a string or null")
    values: dict[str, int | None] = {}
    for name, default, high in (("min_occurrences", None, 10**9), ("max_patterns", 50, 500)):
        value = args.get(name)
        if value is None:
            values[name] = default
            continue
        if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= high:
            raise SeedError("INVALID_REQUEST", f"{name} must be an integer between 1 and {high}")
        values[name] = value
    sort_by = args.get("sort_by") or "occurrences"
    if sort_by not in SORTS:
        raise SeedError("INVALID_REQUEST", f"sort_by must be one of {', '.join(SORTS)}")
    data = report(store, prompt_filter, values["min_occurrences"], sort_by)
    budget = int(store.config.mcp.max_reply_chars * 0.4)
    kept: list[dict[str, Any]] = []
    used = 0
    for pattern in data["patterns"][: values["max_patterns"] or 50]:
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


TOOL = Tool(NAME, DESCRIPTION, INPUT_SCHEMA, run, output_schema=OUTPUT_SCHEMA)
