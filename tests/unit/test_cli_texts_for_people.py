"""The CLI prints a tool's text with the next page named as the command a person types, and an
error's field as the flag (as a word: `cursor` inside `next_cursor` stays)."""

from __future__ import annotations

from moraine.cli_query import _for_people, print_result
from moraine.mcp_server.contract import ToolResult


def test_a_sessions_next_page_is_the_command_to_run() -> None:
    envelope = {"tool": "open", "data": {"kind": "session", "session": {"id": "session:ses_x"}, "next_cursor": "abc"}}
    text = "50 of 80 turns shown; for the next ones call open with id=session:ses_x and cursor=abc"
    assert _for_people(text, envelope).endswith("run: moraine open session:ses_x --cursor abc")


def test_an_errors_field_is_named_as_its_flag_only_as_a_word(capsys) -> None:  # type: ignore[no-untyped-def]
    envelope = {"tool": "open", "error": {"code": "invalid_request", "details": {"field": "cursor"}}}
    code = print_result(ToolResult(envelope, "open error [invalid_request]: cursor is not a next_cursor of this open"),
                        as_json=False)
    assert code == 2  # a bad argument: the usage exit code
    said = capsys.readouterr()
    assert said.err.strip() == "open error [invalid_request]: --cursor is not a next_cursor of this open"
    assert said.out == ""  # an error is said on stderr
