"""Each tool is one typed record (`mcp_server.tools.Tool`), and the registry holds every tool
module's record: a tool module left out of it, or a flag spelled as a module attribute the
server never reads, fails here."""

from __future__ import annotations

import importlib
import pkgutil
from pathlib import Path

from _agentlogs import LogWriter, populate

from moraine.ingest.pipeline import ingest_once
from moraine.ingest.state import Freshness
from moraine.mcp_server import tools
from moraine.mcp_server.app import tool_definitions
from moraine.mcp_server.runner import TOOLS
from moraine.mcp_server.tools import Tool
from moraine.store.engine import Store


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


def test_the_tools_are_handed_freshness_and_read_no_ingest_state(tmp_path: Path) -> None:
    """What the caller knows of the index's lag reaches a tool as a value (`Freshness`); no tool
    module reads ingest's run state itself."""
    folder = Path(tools.__path__[0])
    for path in [*(folder / f"{name}.py" for name in TOOLS), folder.parent / "contract.py"]:
        assert "ingest_state" not in path.read_text(), path
    writer = LogWriter(tmp_path / "logs", seed=9)
    populate(writer, n_codex=1, n_claude=1, records_per_file=(5, 8))
    store = Store(writer.config(tmp_path / "state"))
    ingest_once(store)
    quiet = TOOLS["search_sessions"].run(store, {"query": "the"}, None, None).structured
    assert not any("behind" in w for w in quiet["warnings"])
    behind = TOOLS["search_sessions"].run(store, {"query": "the"}, None, Freshness(lag_bytes=123)).structured
    assert "index is behind the logs by 123 bytes not yet ingested; results may be incomplete" in behind["warnings"]
    status = TOOLS["index_status"].run(store, {}, None, Freshness(backfilling=True)).structured
    assert status["data"]["backfilling"] is True and any("first backfill" in w for w in status["warnings"])
    failed = TOOLS["search_sessions"].run(store, {"query": "the"}, None, Freshness(catch_up_error="disk full"))
    assert any("could not be read before this answer (disk full)" in w for w in failed.structured["warnings"])
    history = TOOLS["search_session_history"].run(store, {"query": "the"}, None, Freshness(lag_bytes=7)).structured
    assert any("behind the logs by 7 bytes" in w for w in history["warnings"]), history
