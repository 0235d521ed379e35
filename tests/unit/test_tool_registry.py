"""Each tool is one typed record (`mcp_server.tools.Tool`), and the registry holds every tool
module's record: a tool module left out of it, or a flag spelled as a module attribute the
server never reads, fails here."""

from __future__ import annotations

import importlib
import pkgutil

from moraine.mcp_server import tools
from moraine.mcp_server.app import tool_definitions
from moraine.mcp_server.runner import TOOLS
from moraine.mcp_server.tools import Tool


def test_every_tool_module_is_registered_by_its_record() -> None:
    names = [info.name for info in pkgutil.iter_modules(tools.__path__)]
    modules = [importlib.import_module(f"{tools.__name__}.{name}") for name in names]
    assert len(modules) == len(TOOLS) == 8
    for module in modules:
        record = module.TOOL
        assert isinstance(record, Tool) and TOOLS[record.name] is record
        assert record.input_schema["type"] == "object" and record.input_schema["additionalProperties"] is False
        assert not {"WRITES", "DESTRUCTIVE", "LOCKS_ITSELF"} & set(vars(module)), module.__name__


def test_what_a_host_is_offered_follows_the_records() -> None:
    writing = {name for name, tool in TOOLS.items() if tool.writes}
    assert writing == {"track_input_event", "cleanup_old_sessions"}
    assert {t.name for t in tool_definitions(False)} == set(TOOLS) - writing
    offered = {t.name: t for t in tool_definitions(True)}
    assert set(offered) == set(TOOLS)
    cleanup = offered["cleanup_old_sessions"].annotations
    assert cleanup is not None and cleanup.destructive_hint and not cleanup.read_only_hint
    search = offered["search_sessions"].annotations
    assert search is not None and search.read_only_hint and not search.destructive_hint
    assert TOOLS["search_session_history"].locks_itself and not TOOLS["search_sessions"].locks_itself
