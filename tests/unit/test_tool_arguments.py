"""Each tool's arguments are one pydantic model (`mcp_server.arguments`): the input schema a host
is shown is generated from it and every request is checked against the same declaration, so the
two cannot disagree. Shown here from the published schema's side: every value the schema rules
out is refused naming its field, every value it allows (and null for an optional field) passes,
and the published schemas change only when this file's golden copy is updated on purpose."""

from __future__ import annotations

import base64
import json
from pathlib import Path
from typing import Any

import orjson
import pytest
from _agentlogs import LogWriter, populate

from moraine.errors import ContractError
from moraine.mcp_server.arguments import check
from moraine.mcp_server.runner import TOOLS, ToolRunner
from moraine.store.engine import Store
from moraine.wire import ARGUMENTS_NOT_AN_OBJECT

GOLDEN = Path(__file__).with_name("tool_input_schemas.json")


def test_the_published_schemas_change_only_on_purpose() -> None:
    """A changed schema is a changed interface: hosts build forms and checks from it. Update the
    golden copy in the same commit as the change that means it."""
    assert {name: tool.input_schema for name, tool in TOOLS.items()} == json.loads(GOLDEN.read_text())


def _good(prop: dict[str, Any]) -> Any:
    kind = prop["type"]
    if "enum" in prop:
        return prop["enum"][-1]
    if kind == "array":
        return [_good(prop["items"])]
    return {"string": "x", "integer": prop.get("maximum", prop.get("minimum", 1)), "number": 0.5,
            "boolean": True}[kind]


def _bad(prop: dict[str, Any]) -> list[Any]:
    """Values the schema rules out: the wrong JSON type, then each bound just crossed."""
    kind = prop["type"]
    wrong = {"string": [5, ["x"], True], "integer": ["5", True, 1.5, {}], "number": ["0.5", True, []],
             "boolean": ["true", 1, 0], "array": ["x", {}]}[kind]
    crossed: list[Any] = []
    if "minimum" in prop:
        crossed.append(prop["minimum"] - 1)
    if "maximum" in prop:
        crossed.append(prop["maximum"] + 1)
    if prop.get("minLength"):
        crossed.append("")
    if "maxLength" in prop:
        crossed.append("x" * (prop["maxLength"] + 1))
    if "enum" in prop:
        crossed.append("no-such-value")
    if prop.get("minItems"):
        crossed.append([])
    if kind == "array":
        crossed.append([5])
        if "enum" in prop["items"]:
            crossed.append(["no-such-value"])
    return wrong + crossed


def _base(schema: dict[str, Any]) -> dict[str, Any]:
    return {name: _good(schema["properties"][name]) for name in schema.get("required", [])}


CASES = [(tool, field) for tool in TOOLS for field in TOOLS[tool].input_schema["properties"]]


@pytest.mark.parametrize(("tool", "field"), CASES, ids=[f"{t}.{f}" for t, f in CASES])
def test_a_value_the_schema_rules_out_is_refused_naming_its_field(tool: str, field: str) -> None:
    schema = TOOLS[tool].input_schema
    prop = schema["properties"][field]
    for value in _bad(prop):
        with pytest.raises(ContractError) as refused:
            check(TOOLS[tool].arguments, {**_base(schema), field: value})
        error = refused.value
        assert error.details["field"] == field, (value, error.message)
        if error.code == "unsupported_event_type":  # the contract's own code for an unknown event type
            assert field == "event_types" and error.details["supported"] == prop["items"]["enum"]
            assert isinstance(value, list) and all(isinstance(v, str) for v in value), value
        elif error.code == "invalid_id":  # a within_id that is no string is a malformed ID
            assert (tool, field) == ("search_sessions", "within_id"), error.message
        else:
            assert error.code == "invalid_request" and error.message.startswith(f"{field} must be "), error.message


@pytest.mark.parametrize(("tool", "field"), CASES, ids=[f"{t}.{f}" for t, f in CASES])
def test_a_value_the_schema_allows_passes_and_null_means_omitted(tool: str, field: str) -> None:
    schema = TOOLS[tool].input_schema
    prop = schema["properties"][field]
    parsed = check(TOOLS[tool].arguments, {**_base(schema), field: _good(prop)})
    assert getattr(parsed, field) == _good(prop)
    if field not in schema.get("required", []):
        model = TOOLS[tool].arguments
        nulled = check(model, {**_base(schema), field: None})
        assert nulled == check(model, _base(schema))  # null is omitted: the field's default
        assert getattr(nulled, field) == prop.get("default")  # ... and the default is the one published
        assert "null" in prop["description"]  # what null means is said where a host reads it
    else:
        with pytest.raises(ContractError):
            check(TOOLS[tool].arguments, {**_base(schema), field: None})


@pytest.mark.parametrize("tool", list(TOOLS))
def test_unknown_fields_and_non_objects_are_refused(tool: str) -> None:
    schema = TOOLS[tool].input_schema
    with pytest.raises(ContractError) as refused:
        check(TOOLS[tool].arguments, {**_base(schema), "n_hitz": 3, "zz": 1})
    assert refused.value.message == "unknown field: n_hitz"
    assert refused.value.details["allowed"] == list(schema["properties"])
    for value in ([], "x", 3):
        with pytest.raises(ContractError, match="arguments must be an object"):
            check(TOOLS[tool].arguments, value)


def test_messages_say_what_the_field_holds() -> None:
    cases = [("search_sessions", {"query": "  "}, "query must be a non-empty string"),
             ("search_sessions", {"query": "x", "n_hits": 51}, "n_hits must be an integer between 1 and 50"),
             ("search_sessions", {"query": "x", "min_score": True}, "min_score must be a number between 0 and 1"),
             ("open", {"id": "x", "offset": -1}, "offset must be an integer ≥ 0"),
             ("list_sessions", {"start_datetime": "a", "end_datetime": "b", "sort": "up"},
              "sort must be one of desc, asc"),
             ("track_input_event", {"session_id": "s", "prompt_text": "p", "input_text": "i", "success": "yes"},
              "success must be true or false")]
    for tool, args, message in cases:
        with pytest.raises(ContractError) as refused:
            check(TOOLS[tool].arguments, args)
        assert refused.value.message == message


def test_every_tool_answers_a_refusal_in_its_own_form(tmp_path: Path) -> None:
    """The v1 tools in the error envelope, the history tools as `{"error", "code"}`: one check,
    one mapping per form."""
    writer = LogWriter(tmp_path / "logs", seed=3)
    populate(writer, n_codex=1, n_claude=0, records_per_file=(4, 5))
    store = Store(writer.config(tmp_path / "state"))
    v1 = TOOLS["list_sessions"].run(store, {"start_datetime": "2026-01-01", "end_datetime": "2026-02-01",
                                            "limit": 0}, None, None).structured
    assert v1["error"] == {"code": "invalid_request", "message": "limit must be an integer between 1 and 50",
                           "details": {"field": "limit"}}
    for tool, args, message in [
            ("get_learned_patterns", {"max_patterns": 0}, "max_patterns must be an integer between 1 and 500"),
            ("search_session_history", {"query": "x", "context_lines": 11},
             "context_lines must be an integer between 0 and 10"),
            ("cleanup_old_sessions", {"dry_run": "no"}, "dry_run must be true or false"),
            ("track_input_event", {"session_id": "s", "prompt_text": "", "input_text": "", "success": True},
             "prompt_text must be a non-empty string")]:
        assert TOOLS[tool].run(store, args, None, None).structured == {"error": message, "code": "INVALID_REQUEST"}


# -- what an outside attack on the arguments found, each shown failing before its mend ------------


def _runner(store: Store) -> ToolRunner:
    return ToolRunner(lambda: store, allow_write=True)


def test_no_argument_outgrows_its_reply(samples_store: Store) -> None:
    """A long cwd was echoed whole (a 261,406-character reply), an unknown field's name quoted
    whole in the refusal; free-text fields now publish a maxLength and a quoted name is cut."""
    runner = _runner(samples_store)
    long_cwd = runner.call("search_sessions", {"query": "migration", "cwd": "/" + "a" * 261_000})
    assert long_cwd.structured["error"]["details"]["field"] == "cwd" and len(long_cwd.text) < 2_000
    assert len(orjson.dumps(long_cwd.structured)) < 2_000
    long_key = runner.call("search_sessions", {"query": "migration", "k" * 261_000: 1})
    assert long_key.structured["error"]["message"].startswith("unknown field: kkk")
    assert len(orjson.dumps(long_key.structured)) < 2_000
    for tool in TOOLS:
        for name, prop in TOOLS[tool].input_schema["properties"].items():
            if prop["type"] == "string" and "enum" not in prop:
                assert prop.get("maxLength", 10**9) <= 65_536, (tool, name)


def test_arguments_that_are_no_object_are_refused_in_each_tools_form(samples_store: Store) -> None:
    """The history tools answered non-object arguments in the v1 envelope, against their own
    output schema."""
    runner = _runner(samples_store)
    for tool in TOOLS:
        answer = runner.call(tool, {ARGUMENTS_NOT_AN_OBJECT: "list"}).structured
        if TOOLS[tool].output_schema is None:
            assert answer["error"]["code"] == "invalid_request" and answer["request"] == {}
            assert answer["error"]["details"] == {"field": "arguments"}
        else:
            assert answer == {"error": "arguments must be an object, not list", "code": "INVALID_REQUEST"}, tool


def test_integers_may_be_written_as_json_schema_allows(samples_store: Store) -> None:
    """`1.0` and `1e2` are integers to JSON Schema, which the schemas publish; `1.5` is not."""
    runner = _runner(samples_store)
    ok = runner.call("search_sessions", {"query": "migration", "n_hits": 2.0}).structured
    assert ok["request"]["n_hits"] == 2 and ok["data"]["limit"] == 2
    assert runner.call("list_sessions", {"start_datetime": "2026-01-01", "end_datetime": "2027-01-01",
                                         "limit": 1e1}).structured["request"]["limit"] == 10
    refused = runner.call("search_sessions", {"query": "migration", "n_hits": 1.5}).structured
    assert refused["error"]["details"] == {"field": "n_hits"}


def test_history_refuses_an_empty_window_as_the_other_tools_do(samples_store: Store) -> None:
    runner = _runner(samples_store)
    for since, until in (("2026-03-02", "2026-03-01"), ("2026-03-01", "2026-03-01")):
        answer = runner.call("search_session_history", {"query": "migration", "since": since, "until": until})
        assert answer.structured == {"error": "until must be later than since", "code": "INVALID_REQUEST"}


def test_a_cursor_points_inside_what_it_pages(samples_store: Store) -> None:
    """A forged or tampered cursor (plain base64 JSON) paged past the end, or from a huge
    ordinal; it must name a page a previous answer could have handed out."""
    runner = _runner(samples_store)
    sessions = runner.call("list_sessions", {"start_datetime": "2000-01-01", "end_datetime": "2100-01-01",
                                             "limit": 50}).structured["data"]["sessions"]
    biggest = max(sessions, key=lambda s: s["session"]["turn_count"])
    sid, turns = biggest["id"], biggest["session"]["turn_count"]
    assert turns >= 2

    def cursor(payload: dict[str, Any]) -> str:
        return base64.urlsafe_b64encode(json.dumps(payload).encode()).decode().rstrip("=")

    assert runner.call("open", {"id": sid, "cursor": cursor({"o": sid, "n": 1})}).structured["data"]["turns"]
    for forged in ({"o": sid, "n": 10**30}, {"o": sid, "n": turns}, {"o": sid, "n": 0}, {"o": sid, "n": -1},
                   {"o": sid, "n": 1, "x": 1}, {"o": "session:other", "n": 1}):
        answer = runner.call("open", {"id": sid, "cursor": cursor(forged)}).structured
        assert answer["error"]["code"] == "invalid_request" and answer["error"]["details"]["field"] == "cursor", forged


def test_refusals_say_what_was_wrong(samples_store: Store) -> None:
    runner = _runner(samples_store)
    blank = runner.call("search_sessions", {"query": " \t "}).structured["error"]
    assert blank["message"] == "query must be a non-empty string"
    long = runner.call("search_sessions", {"query": "a" * 65}).structured["error"]
    assert "longer than 64 bytes" in long["message"]
    missing = runner.call("search_sessions", {"query": "x", "within_id": "session:" + "0" * 26}).structured["error"]
    assert missing["code"] in ("not_found", "invalid_id") and missing["details"]["field"] == "within_id"


def test_an_empty_session_id_is_refused_as_empty(samples_store: Store) -> None:
    """It was looked up, and answered "Session  not found"."""
    runner = _runner(samples_store)
    answer = runner.call("search_session_history", {"query": "migration", "session_id": ""}).structured
    assert answer == {"error": "session_id must be a non-empty string", "code": "INVALID_REQUEST"}
