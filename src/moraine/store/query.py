"""A search as every face asks it: the query's text in, ranked hits with their snippets out.

The MCP tool, the CLI and the page call this, not the index: the query is tokenized here once
(`query_terms`, by the documents' own rules), scored by the Store's BM25 over the allowed event
types and scope, hits below the minimum score left out, and each hit given its snippet. A face
adds only its own form (the v1 envelope, a terminal's lines, a page).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from moraine.errors import ContractError
from moraine.index.snippet import snippet
from moraine.index.tokenize import query_terms
from moraine.model import DEFAULT_SEARCH_TYPES
from moraine.store.engine import Store


@dataclass(frozen=True)
class Query:
    text: str
    limit: int = 10
    types: Sequence[str] = DEFAULT_SEARCH_TYPES
    scope: np.ndarray | None = None  # the doc ids a hit may be (None: any)
    min_match: int | None = None  # hits hold at least this many of the terms (None: `[search]`'s)
    min_score: float | None = None  # 0-1 (None: `[search]`'s)
    deadline: float | None = None  # `time.monotonic()` past which scoring gives up


@dataclass(frozen=True)
class Hit:
    doc: int
    score: float  # 0-1
    snippet: str
    snippet_cut: bool  # the snippet is a window of a longer text


@dataclass(frozen=True)
class Found:
    terms: list[str]  # what was searched, in the query's order
    hits: list[Hit]  # best first, at most the query's limit
    more: bool  # more hits than the limit exist
    terms_cut: int | None  # the term limit, when the query had more distinct terms than it


def find(store: Store, query: Query) -> Found:
    """The query's hits; `invalid_request` when it holds nothing searchable."""
    limit = store.config.bm25.max_query_terms
    found = query_terms(query.text, limit + 1)
    terms = found[:limit]
    if not terms:
        raise ContractError("invalid_request", "query has no searchable terms (tokens shorter than 2 "
                            "characters, except CJK, and longer than 64 bytes are excluded)", {"field": "query"})
    wanted = store.config.search.min_should_match if query.min_match is None else query.min_match
    min_score = float(store.config.search.min_score if query.min_score is None else query.min_score)
    ranked = store.search(terms, query.limit + (1 if min_score > 0 else 0), list(query.types), query.scope,
                          query.deadline, exact_total=False, min_match=min(len(terms), wanted))
    passing = [(int(d), float(s)) for d, s in zip(ranked.docs, ranked.scores, strict=True) if s >= min_score]
    more = len(passing) > query.limit if min_score > 0 else ranked.total > len(passing)
    hits = [Hit(doc, score, *snippet(store.read.event_text(doc), terms)) for doc, score in passing[: query.limit]]
    return Found(terms, hits, more, limit if len(found) > limit else None)
