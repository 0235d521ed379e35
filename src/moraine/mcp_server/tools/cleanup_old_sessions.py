"""`cleanup_old_sessions` (a history tool): forget sessions older than the retention (see
`store.retention`). Listed over MCP only with `[mcp] allow_write_tools = true`."""

from __future__ import annotations

from typing import Any

from pydantic import Field

from moraine.ingest.state import Freshness
from moraine.mcp_server.arguments import Arguments, check
from moraine.mcp_server.contract import ToolResult, seed_respond
from moraine.mcp_server.tools import Tool
from moraine.store.engine import Store
from moraine.store.retention import cleanup

NAME = "cleanup_old_sessions"
DESCRIPTION = (
    "Forget sessions whose last activity is older than retention_days (a session exactly that old is kept): "
    "they leave the index for good. dry_run lists them without changing anything. The agents' log files are "
    "deleted only when the user configured [retention] delete_logs = true."
)


class CleanupArguments(Arguments):
    retention_days: int = Field(7, ge=1, le=365, description="Forget sessions older than this many days (null = 7).")
    dry_run: bool = Field(False, description="List what would be forgotten without changing anything (null = false).")


OUTPUT_SCHEMA: dict[str, Any] = {
    "type": "object",
    "anyOf": [
        {"type": "object", "required": ["deleted_sessions", "total_deleted", "bytes_freed", "dry_run"],
         "properties": {"deleted_sessions": {"type": "array", "items": {"type": "string"}},
                        "total_deleted": {"type": "integer"}, "bytes_freed": {"type": "integer"},
                        "dry_run": {"type": "boolean"}}},
        {"type": "object", "required": ["error", "code"],
         "properties": {"error": {"type": "string"}, "code": {"type": "string"}}},
    ],
}


def run(store: Store, args: Any, timer: Any = None, fresh: Freshness | None = None) -> ToolResult:
    return seed_respond(NAME, lambda: _clean(store, args))


def _clean(store: Store, args: Any) -> ToolResult:
    parsed = check(CleanupArguments, args)
    data = cleanup(store, parsed.retention_days, parsed.dry_run, delete_logs=store.config.retention.delete_logs)
    return ToolResult(data, render(data))


def render(data: dict[str, Any]) -> str:
    verb = "would forget" if data["dry_run"] else "forgot"
    lines = [f'{verb} {data["total_deleted"]} session(s) older than {data["retention_days"]} days; '
             f'{data["bytes_freed"]:,} bytes {"would be " if data["dry_run"] else ""}freed']
    lines += [f"  {sid}" for sid in data["deleted_sessions"][:50]]
    if data["log_files"]:
        lines.append(f'{"would delete" if data["dry_run"] else "deleted"} {len(data["log_files"])} log file(s)')
    return "\n".join(lines)


TOOL = Tool(NAME, DESCRIPTION, CleanupArguments, run, output_schema=OUTPUT_SCHEMA, writes=True,
            destructive=True)
