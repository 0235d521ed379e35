"""Redaction end to end: no secret of the samples reaches the state directory or the CLI's output."""

from __future__ import annotations

import json
from typing import Any

import pytest
from cli_harness import ORACLE, Indexed, Result, oracle_file

SECRETS: list[tuple[str, str]] = [(s["key"], v) for s in ORACLE["secrets"] for v in s["must_never_appear"]]
SEARCHABLE = ["user_input", "assistant_response", "reasoning", "tool_call", "tool_response", "compaction",
              "system", "runtime"]
# Words around the secrets in codex-secrets (the env var names, the PEM armour, the commands).
SURROUNDING = "AWS_ACCESS_KEY_ID GITHUB_TOKEN OPENAI_API_KEY RSA PRIVATE KEY id_rsa Authorization token"


def _forms(value: str) -> list[bytes]:
    """The secret as raw UTF-8 and as it would look inside a JSON string."""
    return sorted({value.encode(), json.dumps(value)[1:-1].encode()})


def _assert_clean(text: str, where: str) -> None:
    for key, value in SECRETS:
        for form in _forms(value):
            assert form.decode() not in text, f"secret {key} appears in {where}"
    pem = next(s["value"] for s in ORACLE["secrets"] if s["key"] == "pem")
    for body_line in pem.splitlines()[1:-1]:
        assert body_line not in text, f"a PEM body line appears in {where}"


def test_no_secret_in_any_state_file(indexed: Indexed) -> None:
    files = indexed.ws.state_bytes()
    names = {p.relative_to(indexed.ws.state).parts[0] for p in files}
    assert {"wal", "content", "segments", "CURRENT"} <= names, names  # the WAL and the snapshot
    everything = b"".join(files.values())
    # Sanity: the state is searchable plain data, so a byte scan is meaningful.
    assert ORACLE["large_output_needle"].encode() in everything, "expected plain event text in the state"
    for path, data in files.items():
        for key, value in SECRETS:
            for form in _forms(value):
                assert form not in data, f"secret {key} found in {path}"
        for fragment in ORACLE["image_base64_must_never_appear"]:
            assert fragment.encode() not in data, f"image base64 bytes found in {path}"


@pytest.fixture(scope="module")
def surrounding(indexed: Indexed) -> tuple[Result, Result]:
    argv = ["search", SURROUNDING, "-n", "50"]
    for t in SEARCHABLE:
        argv += ["--type", t]
    text, as_json = indexed.ws.run_many([argv, [*argv, "--json"]])
    return text, as_json


def _secrets_session_hits(as_json: Result) -> list[dict[str, Any]]:
    started = oracle_file("codex-secrets")["session"]["started_at"]
    return [r for r in as_json.json()["data"]["results"] if r["session"]["started_at"] == started]


def test_search_around_secrets_shows_no_secret(surrounding: tuple[Result, Result]) -> None:
    text, as_json = surrounding
    assert text.returncode == 0, text
    assert as_json.returncode == 0, as_json
    hits = _secrets_session_hits(as_json)
    # The events that held the secrets are found by their surrounding words...
    assert {"user_input", "tool_call", "tool_response"} <= {h["event"]["type"] for h in hits}, hits
    # ...and show no secret, in the text rendering or the JSON.
    _assert_clean(text.stdout, "search text output")
    _assert_clean(as_json.stdout, "search --json output")


def test_open_events_that_held_secrets(indexed: Indexed, surrounding: tuple[Result, Result]) -> None:
    hits = _secrets_session_hits(surrounding[1])
    ids = sorted({h["open"]["event_id"] for h in hits if h["event"]["type"] in ("user_input", "tool_call",
                                                                              "tool_response")})
    assert len(ids) >= 3
    results = indexed.ws.run_many([["open", i, "--json"] for i in ids])
    for event_id, result in zip(ids, results, strict=True):
        assert result.returncode == 0, result
        _assert_clean(result.stdout, f"open {event_id}")
    contents = " ".join(r.json()["data"]["content"]["text"] for r in results)
    assert "AWS_ACCESS_KEY_ID" in contents and "GITHUB_TOKEN" in contents, "the surrounding text is kept"


def test_searching_a_secret_never_finds_where_it_was(indexed: Indexed) -> None:
    by_key = {s["key"]: s for s in ORACLE["secrets"]}
    values = [f"{by_key['aws']['value']} {by_key['github']['value']}", by_key["openai"]["value"],
              by_key["pem"]["must_never_appear"][0]]
    results = indexed.ws.run_many([["search", v, "--json", "-n", "50", "--type", "user_input", "--type",
                                    "tool_call", "--type", "tool_response"] for v in values])
    for value, result in zip(values, results, strict=True):
        assert result.returncode == 0, result
        # The request echoes the query, of course; the results must not hold the secret.
        _assert_clean(json.dumps(result.json()["data"], ensure_ascii=False), f"search {value[:12]}… results")
        assert _secrets_session_hits(result) == [], f"searching {value[:12]}… finds an event that held it"
