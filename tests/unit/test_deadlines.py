"""The deadline paths answer `deadline_exceeded` in-band (search 5 s, list_sessions 2 s / 3 s)."""

from __future__ import annotations

import pytest

from moraine.mcp_server.tools import list_sessions, search_sessions
from moraine.store.engine import Store


@pytest.fixture(scope="module")
def store(samples_store: Store) -> Store:
    return samples_store


def test_search_past_its_deadline_is_deadline_exceeded(store: Store, monkeypatch: pytest.MonkeyPatch) -> None:
    assert "data" in search_sessions.run(store, {"query": "migration"}).structured
    monkeypatch.setattr(search_sessions, "DEADLINE_S", -1.0)
    envelope = search_sessions.run(store, {"query": "migration"}).structured
    assert envelope["schema_version"] == "moraine.mcp.error.v1"
    assert envelope["error"]["code"] == "deadline_exceeded"
    assert envelope["error"]["details"] == {"deadline_ms": -1000}
    assert envelope["performance"]["sla_target_ms"] == 750


@pytest.mark.parametrize(("window", "field"), [(("2026-03-14T00:00:00Z", "2026-03-15T00:00:00Z"),
                                                "DEADLINE_TYPICAL_S"),
                                               (("2026-01-01T00:00:00Z", "2026-06-01T00:00:00Z"),
                                                "DEADLINE_BROAD_S")])
def test_list_past_its_deadline_is_deadline_exceeded(store: Store, monkeypatch: pytest.MonkeyPatch,
                                                     window: tuple[str, str], field: str) -> None:
    args = {"start_datetime": window[0], "end_datetime": window[1]}
    assert "data" in list_sessions.run(store, args).structured
    monkeypatch.setattr(list_sessions, field, -1.0)
    envelope = list_sessions.run(store, args).structured
    assert envelope["error"]["code"] == "deadline_exceeded"
    assert envelope["error"]["message"] == "list_sessions exceeded its response deadline"
    assert envelope["error"]["details"] == {"deadline_ms": -1000}
