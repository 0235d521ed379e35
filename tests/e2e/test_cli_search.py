"""`moraine search`: text and JSON renderings, filters, in-band errors, and the oracle's probes."""

from __future__ import annotations

import re
from typing import Any

import pytest
from cli_harness import ORACLE, Indexed, oracle_file

SCHEMA = "moraine.mcp.search_sessions.v1"
DEFAULT_TYPES = ["user_input", "assistant_response", "tool_response"]
OPEN_LINE = re.compile(r"^\s+open: (event:\S+) \(turn (turn:\S+), session (session:\S+)\)$")


def _results(envelope: dict[str, Any]) -> list[dict[str, Any]]:
    assert envelope["schema_version"] == SCHEMA, envelope
    assert envelope["tool"] == "search_sessions"
    assert "error" not in envelope, envelope
    data = envelope["data"]
    assert data["result_count"] == len(data["results"])
    return data["results"]


def test_search_text_lists_hits_with_open_ids(indexed: Indexed, migration_search: dict[str, Any]) -> None:
    result = indexed.ws.run("search", "migration")
    assert result.returncode == 0, result
    lines = result.stdout.splitlines()
    header = re.match(r'^Found (\d+) hit\(s\) for "migration"\.$', lines[0])
    assert header, lines[0]
    n = int(header[1])
    assert n > 0
    opens = [OPEN_LINE.match(line) for line in lines if "open:" in line]
    assert len(opens) == n and all(opens), result.stdout
    hits = [re.match(r"^(\d+)\. \[(\w+)\] score=", line) for line in lines[1:] if not line.startswith(" ")]
    assert [int(h[1]) for h in hits if h] == list(range(1, n + 1)), result.stdout
    # The text lists the same events, in the same order, as the JSON of the same query.
    assert [m[1] for m in opens if m] == [r["open"]["event_id"] for r in _results(migration_search)]


def test_search_json_envelope(migration_search: dict[str, Any]) -> None:
    env = migration_search
    assert env["request"]["query"] == "migration"
    assert env["request"]["event_types"] == DEFAULT_TYPES
    assert env["request"]["n_hits"] == 10
    results = _results(env)
    assert results
    for rank, hit in enumerate(results, 1):
        assert hit["rank"] == rank
        assert 0 <= hit["score"] <= 1
        assert hit["event"]["type"] in DEFAULT_TYPES
        assert hit["id"] == hit["event"]["id"] == hit["open"]["event_id"]
        assert hit["open"]["event_id"].startswith("event:")
        assert hit["open"]["turn_id"] == hit["turn"]["id"] and hit["turn"]["id"].startswith("turn:")
        assert hit["open"]["session_id"] == hit["session"]["id"] and hit["session"]["id"].startswith("session:")
        assert "migration" in hit["snippet"]["text"].lower()
    scores = [h["score"] for h in results]
    assert scores == sorted(scores, reverse=True)
    assert env["performance"]["elapsed_ms"] >= 0


def test_search_type_filter(indexed: Indexed) -> None:
    probe = next(p for p in ORACLE["search_probes"] if p["query"] == "idempotent")
    result = indexed.ws.run("search", "idempotent", "--type", "tool_call", "--json")
    assert result.returncode == 0, result
    env = result.json()
    assert env["request"]["event_types"] == ["tool_call"]
    results = _results(env)
    assert {r["event"]["type"] for r in results} == {"tool_call"}
    assert _identities(results) == _expected_identities(probe)


def test_search_n_hits_limits_and_marks_truncated(indexed: Indexed, migration_search: dict[str, Any]) -> None:
    full = _results(migration_search)
    assert len(full) > 3, "the probe needs more than 3 matches"
    result = indexed.ws.run("search", "migration", "-n", "3", "--json")
    assert result.returncode == 0, result
    env = result.json()
    assert env["request"]["n_hits"] == 3
    results = _results(env)
    assert len(results) == 3
    assert env["data"]["limit"] == 3
    assert env["data"]["truncated"] is True
    assert [r["id"] for r in results] == [r["id"] for r in full[:3]], "ordering must be deterministic"


def test_search_within_session(indexed: Indexed, migration_search: dict[str, Any]) -> None:
    full = _results(migration_search)
    sessions = {r["session"]["id"] for r in full}
    assert len(sessions) > 1, "the probe needs matches in several sessions"
    target = full[-1]["session"]["id"]
    result = indexed.ws.run("search", "migration", "--within", target, "--json")
    assert result.returncode == 0, result
    env = result.json()
    assert env["request"]["within_id"] == target
    results = _results(env)
    assert results
    assert {r["session"]["id"] for r in results} == {target}
    assert {r["id"] for r in results} == {r["id"] for r in full if r["session"]["id"] == target}


def test_search_invalid_n_hits_is_an_in_band_error(indexed: Indexed) -> None:
    as_json = indexed.ws.run("search", "migration", "-n", "0", "--json")
    assert as_json.returncode == 2, as_json  # a bad argument, as argparse's own errors
    env = as_json.json()
    assert env["schema_version"] == "moraine.mcp.error.v1"
    assert env["tool"] == "search_sessions"
    assert env["error"]["code"] == "invalid_request"
    assert "data" not in env


def test_search_unsupported_event_type(indexed: Indexed) -> None:
    text = indexed.ws.run("search", "migration", "--type", "debug_trace")
    assert text.returncode == 2, text
    assert "unsupported_event_type" in text.stderr and not text.stdout  # an error is said on stderr
    assert "debug_trace" in text.stderr


# --- the oracle's search probes -----------------------------------------------------------------------

def _session_of(key: str) -> dict[str, Any]:
    return oracle_file(key)["session"]


def _expected_identities(probe: dict[str, Any]) -> set[tuple[str, str, str, str]]:
    """An oracle hit as (session source, session started_at, event type, event timestamp)."""
    out = set()
    for hit in probe["expect"]:
        f = oracle_file(hit["file"])
        line = next(ln for ln in f["lines"] if ln["line"] == hit["line"])
        source = f["session"]["harness"]
        out.add((source, f["session"]["started_at"], hit["type"], line["ts"]))
    return out


def _identities(results: list[dict[str, Any]]) -> set[tuple[str, str, str, str]]:
    return {(r["session"]["source"], r["session"]["started_at"], r["event"]["type"], r["event"]["timestamp"])
            for r in results}


PROBES = ["quokka_overflow_sentinel", "naïves", "OrderedDict", "evt_9pW3xL0cJ4"]


@pytest.fixture(scope="module")
def probe_results(indexed: Indexed) -> dict[str, Any]:
    probes = [p for p in ORACLE["search_probes"] if p["query"] in PROBES]
    argvs = []
    for p in probes:
        argv = ["search", p["query"], "--json", "-n", "50"]
        for t in p["event_types"] or []:
            argv += ["--type", t]
        argvs.append(argv)
    return {p["query"]: r for p, r in zip(probes, indexed.ws.run_many(argvs), strict=True)}


@pytest.mark.parametrize("query", PROBES)
def test_search_probe(probe_results: dict[str, Any], query: str) -> None:
    probe = next(p for p in ORACLE["search_probes"] if p["query"] == query)
    result = probe_results[query]
    assert result.returncode == 0, result
    results = _results(result.json())
    got, want = _identities(results), _expected_identities(probe)
    if probe["match"] == "exact":
        assert got == want, f"{probe['why']}: got {got}"
        assert len(results) == len(want), "mirrors must collapse into one hit"
    else:
        assert want <= got, f"{probe['why']}: missing {want - got}"


def test_words_given_apart_are_one_query(indexed: Indexed) -> None:
    """`moraine search fix migration` searches both words, as a search box does (it was refused:
    'unrecognized arguments'); `moraine history` joins its words the same way."""
    apart = indexed.ws.run("search", "migration", "guard", "--json")
    together = indexed.ws.run("search", "migration guard", "--json")
    assert apart.returncode == 0 and together.returncode == 0, (apart, together)
    assert apart.json()["request"] == together.json()["request"]  # one query: "migration guard"
    assert _results(apart.json()) == _results(together.json())
    assert _results(apart.json())  # the words are found, not refused
    after = indexed.ws.run("search", "migration", "-n", "10", "guard", "--json")  # words after a flag too
    assert after.returncode == 0 and after.json()["request"]["query"] == "migration guard", after
    assert indexed.ws.run("search", "migration", "--bogus").returncode == 2  # an unknown flag stays a usage error
    history = indexed.ws.run("history", "DuplicateColumn", "migration", "--json")
    assert history.returncode == 0, history
