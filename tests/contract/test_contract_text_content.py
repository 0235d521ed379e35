"""Every tool result carries a non-empty human-readable TextContent beside structuredContent
(errors too), naming what was found and the IDs to open next."""

from __future__ import annotations

from typing import Any

import pytest
from contract_harness import DAY_END, DAY_START, UNKNOWN_EVENT, McpServer, check_wrapper


def text_of(result: Any) -> str:
    check_wrapper(result)
    return "\n".join(c.text for c in result.content if getattr(c, "type", None) == "text")


def test_search_text_names_every_hit(server: McpServer) -> None:
    result = server.raw("search_sessions", {"query": "narwhal"})
    text = text_of(result)
    hits = result.structured_content["data"]["results"]
    assert hits
    for hit in hits:
        assert hit["open"]["event_id"] in text


def test_empty_search_has_text(server: McpServer) -> None:
    result = server.raw("search_sessions", {"query": "zeppelinwhisk"})
    assert result.structured_content["data"]["results"] == []
    assert text_of(result)


def test_list_text_names_every_session_and_the_cursor(server: McpServer) -> None:
    result = server.raw("list_sessions", {"start_datetime": DAY_START, "end_datetime": DAY_END, "limit": 2})
    text = text_of(result)
    data = result.structured_content["data"]
    for item in data["sessions"]:
        assert item["open"]["session_id"] in text
    assert data["next_cursor"] and data["next_cursor"] in text


def test_open_texts_name_their_ids(server: McpServer, sids: dict[str, str]) -> None:
    result = server.raw("open", {"id": sids["S2"]})
    text = text_of(result)
    session = result.structured_content["data"]
    assert sids["S2"] in text
    for turn in session["turns"]:
        assert turn["id"] in text
    result = server.raw("open", {"id": session["turns"][0]["id"]})
    text = text_of(result)
    for row in result.structured_content["data"]["events"]:
        assert row["id"] in text
    event_id = result.structured_content["data"]["events"][0]["id"]
    result = server.raw("open", {"id": event_id})
    text = text_of(result)
    assert event_id in text
    assert result.structured_content["data"]["content"]["text"] in text


@pytest.mark.parametrize(
    "tool,args,code",
    [
        ("search_sessions", {"query": ""}, "invalid_request"),
        ("search_sessions", {"query": "x y", "event_types": ["debug_trace"]}, "unsupported_event_type"),
        ("search_sessions", {"query": "pelican", "within_id": "session:ses_" + "c" * 26}, "not_found"),
        ("open", {"id": "nope"}, "invalid_id"),
        ("open", {"id": UNKNOWN_EVENT}, "not_found"),
        ("open", {}, "invalid_request"),
        ("list_sessions", {"start_datetime": "2026-03-10T00:00:00"}, "invalid_request"),
    ],
)
def test_error_results_have_text(server: McpServer, tool: str, args: dict[str, Any], code: str) -> None:
    result = server.raw(tool, args)
    text = text_of(result)
    assert result.structured_content["error"]["code"] == code
    assert code in text
