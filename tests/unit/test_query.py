"""`store.query.find`: the search every face asks (the query's text in, ranked hits with snippets
out). The MCP tool is one face of it; here it is asked directly, over the bundled samples, and
checked against the engine's own ranking of the same terms."""

from __future__ import annotations

from collections import Counter

import pytest

from moraine.errors import ContractError
from moraine.index.tokenize import query_terms
from moraine.model import DEFAULT_SEARCH_TYPES
from moraine.store.engine import Store
from moraine.store.query import Query, find


def test_hits_are_the_engines_ranking_of_the_querys_terms_with_snippets(samples_store: Store) -> None:
    found = find(samples_store, Query("migration idempotent", limit=5))
    assert found.terms == query_terms("migration idempotent", 64)
    ranked = samples_store.search(found.terms, 5, list(DEFAULT_SEARCH_TYPES), None, None, exact_total=False)
    assert [h.doc for h in found.hits] == [int(d) for d in ranked.docs]
    assert found.hits and all(0 < h.score <= 1 for h in found.hits)
    for hit in found.hits:  # each snippet is its event's text, or a window of it, holding a term
        assert any(t in hit.snippet.lower() for t in found.terms), hit.snippet
        whole = " ".join(samples_store.read.event_text(hit.doc).split())  # a snippet is on one line
        assert hit.snippet_cut or hit.snippet == whole


def test_limit_min_score_and_more(samples_store: Store) -> None:
    every = find(samples_store, Query("the", limit=50))
    one = find(samples_store, Query("the", limit=1))
    assert len(one.hits) == 1 and one.more and one.hits[0].doc == every.hits[0].doc
    floor = every.hits[len(every.hits) // 2].score
    kept = find(samples_store, Query("the", limit=50, min_score=floor))
    assert kept.hits and all(h.score >= floor for h in kept.hits)
    assert len(kept.hits) < len(every.hits) and not kept.more


def test_a_query_with_nothing_searchable_is_refused_and_a_long_one_is_cut(samples_store: Store) -> None:
    with pytest.raises(ContractError, match="no searchable terms"):
        find(samples_store, Query("a ! ?"))
    limit = samples_store.config.bm25.max_query_terms
    words = " ".join(f"word{i:03d}" for i in range(limit + 5))
    long = find(samples_store, Query(words))
    assert long.terms_cut == limit and len(long.terms) == limit
    assert find(samples_store, Query("migration")).terms_cut is None


def test_the_tool_names_the_position_of_what_cannot_be_parsed(samples_store: Store) -> None:
    from moraine.mcp_server.tools import search_sessions

    reply = search_sessions.run(samples_store, {"query": 'migration "rollback'}).structured
    assert reply["error"]["code"] == "invalid_request"
    assert reply["error"]["details"] == {"field": "query", "position": 10}
    assert "unterminated quote at position 10" in reply["error"]["message"]


def test_what_is_parsed_but_not_searched_yet_is_said_and_searched_as_before(samples_store: Store) -> None:
    """`migr*` and `source:codex` search the words they did before the language, and say so."""
    from moraine.mcp_server.tools import search_sessions

    prefixed = search_sessions.run(samples_store, {"query": "migration*"}).structured
    plain = search_sessions.run(samples_store, {"query": "migration"}).structured
    assert [h["id"] for h in prefixed["data"]["results"]] == [h["id"] for h in plain["data"]["results"]]
    assert any("migration* was searched as the word migration" in w for w in prefixed["warnings"])
    filtered = search_sessions.run(samples_store, {"query": "source:codex migration"}).structured
    assert any("source:codex searched as words" in w for w in filtered["warnings"])


def test_a_phrase_and_an_exclusion_through_the_tool(samples_store: Store) -> None:
    from moraine.index.tokenize import tokenize, words
    from moraine.mcp_server.tools import search_sessions

    loose = find(samples_store, Query("migration", limit=50))
    assert loose.hits and not loose.more  # every event holding it
    texts = [samples_store.read.event_text(h.doc) for h in loose.hits]
    sequence = words(texts[0])
    at = sequence.index("migration")
    pair = sequence[at - 1 : at + 1] if at else sequence[at : at + 2]
    phrased = search_sessions.run(samples_store, {"query": f'"{" ".join(pair)}"', "n_hits": 50}).structured
    assert phrased["data"]["results"]
    needle = "\x1f" + "\x1f".join(pair) + "\x1f"
    for hit in phrased["data"]["results"]:
        assert needle in "\x1f" + "\x1f".join(words(_text_of(samples_store, hit["id"]))) + "\x1f"
    counts = Counter(t for text in texts for t in set(tokenize(text)))
    unwanted = next(t for t, n in counts.most_common() if 0 < n < len(texts) and t != "migration")
    excluded = search_sessions.run(samples_store, {"query": f"migration -{unwanted}", "n_hits": 50}).structured
    assert len(excluded["data"]["results"]) == len(texts) - counts[unwanted]
    for hit in excluded["data"]["results"]:
        tokens = tokenize(_text_of(samples_store, hit["id"]))
        assert unwanted not in tokens and "migration" in tokens


def _text_of(store: Store, event_id: str) -> str:
    from moraine.mcp_server.contract import parse_id

    doc = store.read.doc_by_uid(parse_id(event_id).key)
    assert doc is not None
    return store.read.event_text(doc)


def test_a_phrase_of_nothing_searchable_is_left_out_and_said(samples_store: Store) -> None:
    from moraine.mcp_server.tools import search_sessions

    with_it = search_sessions.run(samples_store, {"query": '"n p\'" migration'}).structured
    plain = search_sessions.run(samples_store, {"query": "migration"}).structured
    assert [h["id"] for h in with_it["data"]["results"]] == [h["id"] for h in plain["data"]["results"]]
    assert any('the phrase "n p\'" holds no searchable word' in w for w in with_it["warnings"])
    alone = search_sessions.run(samples_store, {"query": '"n p\'"'}).structured
    assert alone["error"]["code"] == "invalid_request" and "no searchable terms" in alone["error"]["message"]
