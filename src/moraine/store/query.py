"""A search as every face asks it: the query's text in, ranked hits with their snippets out.

The MCP tool, the CLI and the page call this, not the index: the query is tokenized here once
(`query_terms`, by the documents' own rules), scored by the Store's BM25 over the allowed event
types and scope, hits below the minimum score left out, and each hit given its snippet. A face
adds only its own form (the v1 envelope, a terminal's lines, a page).
"""

from __future__ import annotations

import re
import time
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from moraine.errors import ContractError
from moraine.index.snippet import snippet
from moraine.index.syntax import Parsed, Phrase, SyntaxProblem, parse
from moraine.index.tokenize import tokenize, words
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
    checked_only: int | None = None  # the candidates a phrase was checked on, when it stopped there
    notes: list[str] = field(default_factory=list)  # what the caller should be told of how the query was read


def _read(text: str) -> Parsed:
    """The query in the language of `index/syntax.py`; `invalid_request` naming the position of
    what cannot be parsed."""
    try:
        return parse(text)
    except SyntaxProblem as problem:
        raise ContractError("invalid_request", f"query: {problem}",
                            {"field": "query", "position": problem.position}) from None


def find(store: Store, query: Query) -> Found:
    """The query's hits; `invalid_request` when it holds nothing searchable or cannot be parsed."""
    parsed = _read(query.text)
    notes = _not_yet(parsed)
    limit = store.config.bm25.max_query_terms
    terms = parsed.terms[:limit]
    if not terms:
        raise ContractError("invalid_request", "query has no searchable terms (tokens shorter than 2 "
                            "characters, except CJK, and longer than 64 bytes are excluded)", {"field": "query"})
    wanted = store.config.search.min_should_match if query.min_match is None else query.min_match
    min_score = float(store.config.search.min_score if query.min_score is None else query.min_score)
    search = _Search(store, query, terms, min(len(terms), wanted), min_score, parsed)
    passing, more, checked_cut = search.best()
    hits = [Hit(doc, score, *snippet(store.read.event_text(doc), terms)) for doc, score in passing[: query.limit]]
    return Found(terms, hits, more, limit if len(parsed.terms) > limit else None, checked_cut, notes)


def _not_yet(parsed: Parsed) -> list[str]:
    """What the reply must say of how the query was read: phrases left out for holding no
    searchable word, and prefixes and inline filters are parsed but not searched yet: they are searched as the words
    they were before the language (`migr*` as `migr`, `source:codex` as its words), and the reply
    says so. Changes `parsed`."""
    notes = [f'the phrase "{phrase}" holds no searchable word (single letters and symbols are not indexed) '
             "and was left out" for phrase in parsed.left_out]
    if parsed.prefixes:
        notes.append("prefix search is not supported yet: " + ", ".join(f"{p}* was searched as the word {p}"
                                                                     for p in parsed.prefixes))
        parsed.terms.extend(p for p in parsed.prefixes if p not in parsed.terms)
        parsed.prefixes.clear()
    if parsed.filters:
        written = [f"{name}:{value}" for name, values in parsed.filters.items() for value in values]
        notes.append(f"filters in the query are not supported yet: {', '.join(written)} searched as words; "
                     "use the tool's scope arguments (source, event_types, cwd, since, until)")
        parsed.terms.extend(t for w in written for t in tokenize(w) if t not in parsed.terms)
        parsed.filters.clear()
    return notes


class _Search:
    """One query's ranked search: its exclusions as a mask, its phrases as the documents holding
    their words (then checked in rank order against the stored text: `tokenize.words`)."""

    def __init__(self, store: Store, query: Query, terms: list[str], min_match: int, min_score: float,
                 parsed: Parsed) -> None:
        self.store, self.query, self.terms, self.min_match, self.min_score = store, query, terms, min_match, min_score
        self.parsed = parsed
        self.exclude = _holding_any(store, parsed.excluded_terms)
        self.scope = _holding_all(store, [p.tokens for p in parsed.phrases], query.scope)
        self.checked: dict[int, bool] = {}
        self.wanted = [(p, _loose(p)) for p in parsed.phrases]
        self.unwanted = [(p, _loose(p)) for p in parsed.excluded_phrases]

    def best(self) -> tuple[list[tuple[int, float]], bool, int | None]:
        """(doc, score) best first, up to the limit and one more; whether more exist; the
        candidates checked for phrases when that stopped short of the end (None: it did not)."""
        query, limit = self.query, self.query.limit
        if not (self.parsed.phrases or self.parsed.excluded_phrases):
            ranked = self._ranked(limit + (1 if self.min_score > 0 else 0))
            passing = [(d, s) for d, s in ranked[0] if s >= self.min_score]
            return passing, len(passing) > limit if self.min_score > 0 else ranked[1] > len(passing), None
        fetch = max(4 * (limit + 1), PHRASE_FIRST_FETCH)
        stop = time.monotonic() + PHRASE_CHECK_S
        stop = stop if query.deadline is None else min(stop, query.deadline)
        while True:
            found, total = self._ranked(fetch)
            kept: list[tuple[int, float]] = []
            for at, (doc, score) in enumerate(found):
                if score < self.min_score:
                    return kept, False, None  # best first: none after it passes either
                if at % 64 == 63 and time.monotonic() > stop:
                    return kept, False, at
                if self._holds_phrases(doc):
                    kept.append((doc, score))
                    if len(kept) > limit:
                        return kept, True, None
            if total <= len(found):
                return kept, False, None  # every candidate checked
            if fetch >= PHRASE_CHECK_LIMIT or time.monotonic() > stop:
                return kept, False, len(found)
            fetch = min(fetch * 4, PHRASE_CHECK_LIMIT)

    def _ranked(self, k: int) -> tuple[list[tuple[int, float]], int]:
        q = self.query
        ranked = self.store.search(self.terms, k, list(q.types), self.scope, q.deadline, exact_total=False,
                                   min_match=self.min_match, exclude=self.exclude)
        return [(int(d), float(s)) for d, s in zip(ranked.docs, ranked.scores, strict=True)], ranked.total

    def _holds_phrases(self, doc: int) -> bool:
        """Whether the document holds every phrase and no excluded one (remembered: a later round
        ranks the same candidates first). A phrase's words are first looked for in the raw text by
        a regular expression allowing any separator between them (C speed; most candidates fail
        it); only a text it matches is split into words to confirm."""
        held = self.checked.get(doc)
        if held is None:
            text = self.store.read.event_text(doc)
            lowered = text.lower()  # as `words` lowers: a letter whose lower case is longer stays in step
            joined: list[str] = []  # the text's words, split once when first needed

            def holds(phrase: Phrase, pattern: re.Pattern[str]) -> bool:
                if pattern.search(lowered) is None:
                    return False
                if not joined:
                    joined.append(_joined(words(text)))
                return _joined(phrase.words) in joined[0]

            held = self.checked[doc] = all(holds(p, r) for p, r in self.wanted) and \
                not any(holds(p, r) for p, r in self.unwanted)
        return held


PHRASE_FIRST_FETCH = 64  # candidates ranked before the phrases are checked on them
PHRASE_CHECK_LIMIT = 4_096  # candidates a phrase is checked on at most (the reply says when it stopped): ~1 s at 1M
PHRASE_CHECK_S = 1.0  # and for at most this long: a scoped search of common words pays each round again
_GAP = "\x1f"  # between words: no word holds it


def _loose(phrase: Phrase) -> re.Pattern[str]:
    """The phrase's words with any separators between them, to search the lower-cased text: every
    text holding the phrase matches (and some that do not: `prefix migration` for "fix
    migration"). Without IGNORECASE, `re` scans for the first word's letters at C speed."""
    return re.compile("[\\W_]*".join(map(re.escape, phrase.words)))


def _joined(sequence: Sequence[str]) -> str:
    """Words as one string in which a phrase's joined words occur exactly where they stand adjacent."""
    return _GAP + _GAP.join(sequence) + _GAP


def _holding_any(store: Store, terms: list[str]) -> np.ndarray | None:
    """The documents holding any of the terms, unordered, repeats kept: what a mask needs (None:
    no terms). Thirty common words excluded at 1M took 5 s sorted and made unique."""
    if not terms:
        return None
    return np.concatenate([store.index.docs_holding(t, ordered=False) for t in terms])


def _holding_all(store: Store, phrases: list[tuple[str, ...]], scope: np.ndarray | None) -> np.ndarray | None:
    """The documents of `scope` holding every token of every phrase (None: no phrase, any document)."""
    if not phrases:
        return scope
    held: np.ndarray | None = None if scope is None else np.unique(np.asarray(scope, dtype=np.int64))
    for token in dict.fromkeys(t for tokens in phrases for t in tokens):
        docs = store.index.docs_holding(token)
        held = docs if held is None else np.intersect1d(held, docs, assume_unique=True)
    return held
