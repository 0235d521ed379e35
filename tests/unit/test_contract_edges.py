"""Argument edge cases found in review: each gets its exact contract code, never internal_error."""

from __future__ import annotations

import pytest

from moraine.mcp_server.contract import encode_cursor
from moraine.mcp_server.tools import list_sessions, search_sessions
from moraine.store.engine import Store


@pytest.fixture(scope="module")
def store(samples_store: Store) -> Store:
    return samples_store


@pytest.mark.parametrize("within", [123, "", "   ", ["session:x"]])
def test_malformed_within_id_is_invalid_id(store: Store, within: object) -> None:
    error = search_sessions.run(store, {"query": "migration", "within_id": within}).structured["error"]
    assert error["code"] == "invalid_id"


@pytest.mark.parametrize("types", [[{}], [["user_input"]], [1]])
def test_non_string_event_types_are_invalid_request(store: Store, types: list[object]) -> None:
    error = search_sessions.run(store, {"query": "migration", "event_types": types}).structured["error"]
    assert error["code"] == "invalid_request"


def test_a_cursor_with_wrong_field_types_is_invalid_request(store: Store) -> None:
    args = {"start_datetime": "2026-03-01T00:00:00Z", "end_datetime": "2026-04-01T00:00:00Z", "limit": 1}
    good = list_sessions.run(store, args).structured["data"]["next_cursor"]
    assert good
    from moraine.mcp_server.contract import decode_cursor

    payload = decode_cursor(good)
    for bad in ({**payload, "u": "soon"}, {**payload, "u": True}, {**payload, "i": 7}):
        error = list_sessions.run(store, {**args, "cursor": encode_cursor(bad)}).structured["error"]
        assert error["code"] == "invalid_request"
        assert error["message"] == "cursor is not a valid list_sessions cursor"
