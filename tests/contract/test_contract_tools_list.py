"""tools/list: the three v1 tools plus index_status and the read-only history tools,
each with input/output schemas and read-only annotations; input schemas in plain types that
generic clients can drive."""

from __future__ import annotations

from contract_harness import McpServer

EXPECTED = {"search_sessions", "open", "list_sessions", "index_status", "search_session_history",
            "get_learned_patterns"}  # the history write tools only with [mcp] allow_write_tools
REQUIRED_INPUTS = {"search_sessions": ["query"], "open": ["id"], "list_sessions": ["start_datetime", "end_datetime"],
                   "index_status": [], "search_session_history": ["query"], "get_learned_patterns": []}


def test_exactly_the_read_tools(server: McpServer) -> None:
    tools = server.list_tools().tools
    names = [tool.name for tool in tools]
    assert sorted(names) == sorted(EXPECTED)
    assert len(names) == len(set(names)) == 6


def test_input_schemas_use_plain_types(server: McpServer) -> None:
    """Generic clients (the MCP Inspector CLI) coerce `--tool-arg n_hits=2` by the declared type:
    a ["integer", "null"] union left it a string. Null is still accepted and documented."""
    for tool in server.list_tools().tools:
        for name, prop in tool.input_schema["properties"].items():
            assert isinstance(prop.get("type"), str), (tool.name, name, prop)
            if name not in REQUIRED_INPUTS[tool.name]:
                assert "null" in prop.get("description", ""), (tool.name, name)


def test_each_tool_publishes_schemas_and_read_only_annotation(server: McpServer) -> None:
    for tool in server.list_tools().tools:
        assert isinstance(tool.description, str) and tool.description.strip(), tool.name
        schema = tool.input_schema
        assert isinstance(schema, dict) and schema.get("type") == "object", tool.name
        assert isinstance(schema.get("properties"), dict), tool.name
        assert schema["properties"] or tool.name == "index_status", tool.name
        assert sorted(schema.get("required", [])) == sorted(REQUIRED_INPUTS[tool.name]), tool.name
        assert isinstance(tool.output_schema, dict) and tool.output_schema, tool.name
        assert tool.annotations is not None, tool.name
        assert tool.annotations.read_only_hint is True, tool.name


def test_input_schemas_name_the_contract_fields(server: McpServer) -> None:
    props = {tool.name: set(tool.input_schema["properties"]) for tool in server.list_tools().tools}
    assert props["search_sessions"] >= {"query", "within_id", "event_types", "n_hits"}
    assert props["open"] >= {"id"}
    assert props["list_sessions"] >= {"start_datetime", "end_datetime", "limit", "cursor", "mode", "sort"}
