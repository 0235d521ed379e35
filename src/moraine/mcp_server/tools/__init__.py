"""One module per MCP tool; each ends with its `TOOL` record, which the registry (`runner.TOOLS`),
the MCP server's tool list and the CLI read: nothing asks a module what it has."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from moraine.ingest.state import Freshness
    from moraine.mcp_server.arguments import Arguments
    from moraine.mcp_server.contract import Timer, ToolResult
    from moraine.store.engine import Store


@dataclass(frozen=True)
class Tool:
    """A tool as every face calls it: its name, what a host is told of it, and how it runs."""

    name: str
    description: str
    arguments: type[Arguments]  # what it takes: its published input schema and its requests' check
    run: Callable[[Store, Any, Timer | None, Freshness | None], ToolResult]  # the caller hands freshness
    output_schema: dict[str, Any] | None = None  # None: the v1 envelope (`schemas.output_schema`)
    writes: bool = False  # changes the state: offered only with `[mcp] allow_write_tools`, takes the writer lock
    destructive: bool = False  # what it changes cannot be undone (it forgets history)
    locks_itself: bool = False  # takes the readers' lock itself, only while it reads the state

    @property
    def input_schema(self) -> dict[str, Any]:
        return self.arguments.input_schema()
