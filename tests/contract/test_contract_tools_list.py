"""tools/list: exactly the three v1 tools, each with input/output schemas and read-only annotations."""

from __future__ import annotations

from contract_harness import McpServer

EXPECTED = {"search_sessions", "open", "list_sessions"}
REQUIRED_INPUTS = {"search_sessions": ["query"], "open": ["id"], "list_sessions": ["start_datetime", "end_datetime"]}


def test_exactly_the_three_tools(server: McpServer) -> None:
    tools = server.list_tools().tools
    names = [tool.name for tool in tools]
    assert sorted(names) == sorted(EXPECTED)
    assert len(names) == len(set(names)) == 3


def test_each_tool_publishes_schemas_and_read_only_annotation(server: McpServer) -> None:
    for tool in server.list_tools().tools:
        assert isinstance(tool.description, str) and tool.description.strip(), tool.name
        schema = tool.input_schema
        assert isinstance(schema, dict) and schema.get("type") == "object", tool.name
        assert isinstance(schema.get("properties"), dict) and schema["properties"], tool.name
        assert sorted(schema.get("required", [])) == sorted(REQUIRED_INPUTS[tool.name]), tool.name
        assert isinstance(tool.output_schema, dict) and tool.output_schema, tool.name
        assert tool.annotations is not None, tool.name
        assert tool.annotations.read_only_hint is True, tool.name


def test_input_schemas_name_the_contract_fields(server: McpServer) -> None:
    props = {tool.name: set(tool.input_schema["properties"]) for tool in server.list_tools().tools}
    assert props["search_sessions"] >= {"query", "within_id", "event_types", "n_hits"}
    assert props["open"] >= {"id"}
    assert props["list_sessions"] >= {"start_datetime", "end_datetime", "limit", "cursor", "mode", "sort"}
