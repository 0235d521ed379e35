"""The MCP server: the SDK's low-level `Server` with Moraine's eight tools (the two that change
data only with `[mcp] allow_write_tools`), over any streams.

Tool calls run in a worker thread behind one lock: the Store has a single writer and the
catch-up ingest that precedes each answer must not interleave with a query.
"""

from __future__ import annotations

from typing import Any

import anyio
import mcp_types as types
from mcp.server.lowlevel import Server

from moraine import __version__
from moraine.mcp_server.runner import TOOLS, ToolRunner
from moraine.mcp_server.schemas import output_schema
from moraine.mcp_server.views import for_terminal

INSTRUCTIONS = (
    "Moraine searches your past AI coding-agent sessions. Start with search_sessions (content) or "
    "list_sessions (time window), then open the returned event, turn or session IDs to walk the history."
)


def tool_definitions(allow_write: bool = False) -> list[types.Tool]:
    """The tools a host sees: those that change data only with `[mcp] allow_write_tools`."""
    return [
        types.Tool(
            name=tool.name,
            title=tool.name.replace("_", " "),
            description=tool.description,
            input_schema=tool.input_schema,
            output_schema=tool.output_schema or output_schema(tool.name),
            annotations=types.ToolAnnotations(read_only_hint=not tool.writes, destructive_hint=tool.destructive,
                                              idempotent_hint=not tool.writes, open_world_hint=False),
        )
        for tool in TOOLS.values() if allow_write or not tool.writes
    ]


def build_server(runner: ToolRunner) -> Server[Any]:
    async def list_tools(ctx: Any, params: Any) -> types.ListToolsResult:
        return types.ListToolsResult(tools=tool_definitions(runner.allow_write))

    async def call_tool(ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
        if params.name not in TOOLS or (TOOLS[params.name].writes and not runner.allow_write):
            return types.CallToolResult(
                content=[types.TextContent(type="text", text=f"unknown tool: {params.name}")], is_error=True)
        result = await anyio.to_thread.run_sync(runner.call, params.name, params.arguments)
        # The text is for reading (a host may print it to a terminal): what a log holds is shown in
        # it, not obeyed; the structured content keeps every value exact.
        return types.CallToolResult(content=[types.TextContent(type="text", text=for_terminal(result.text))],
                                    structured_content=result.structured, is_error=False)

    return Server("moraine", version=__version__, instructions=INSTRUCTIONS,
                  on_list_tools=list_tools, on_call_tool=call_tool)


async def serve_stdio(runner: ToolRunner) -> None:
    from mcp.server.stdio import stdio_server

    server = build_server(runner)
    async with stdio_server() as (read_stream, write_stream):
        await server.run(read_stream, write_stream, server.create_initialization_options())
