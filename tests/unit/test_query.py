"""`store.query.find`: the search every face asks (the query's text in, ranked hits with snippets
out). The MCP tool is one face of it; here it is asked directly, over the bundled samples, and
checked against the engine's own ranking of the same terms."""

from __future__ import annotations

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
