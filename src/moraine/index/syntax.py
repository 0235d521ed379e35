"""The query language of `search_sessions` and `moraine search`: what a search box has taught
people and agents, parsed once into a `Parsed` query the search runs.

    word another        ranked by BM25 over the words that occur (as before the language)
    a OR b              the same: OR only says so (bare words are already alternatives)
    "a phrase"          the words adjacent and in order, by the tokenizer's rules; a hit holds it
    refact*             every indexed term starting with the prefix (at least 2 characters)
    -word  -"a phrase"  exclusion (also `NOT word`; `-fix_migration` is `-"fix migration"`: any spelling);
                        a query of exclusions alone is refused
    field:value         a filter, as the scope arguments: source: type: tool: cwd: (or project:)
                        after: before:; a value with spaces is quoted (cwd:"~/my app")

A word is what lies between spaces; the tokenizer then splits it as it splits documents
(`snake_case`, paths, CJK), so `fix-migration` or `"fix the migration"` mean what they say.
`-` excludes only at the start of a word and before a letter, digit or quote (`--force` and
`-1` are words). `OR`, `NOT` are keywords only in capitals; `field:` only for the names above
(`std::vector`, `http://x` are words). What cannot be parsed is a `SyntaxProblem` naming its
position (0-based, in characters).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from moraine.index.tokenize import tokenize, words

FIELDS = {"source": "source", "type": "type", "tool": "tool", "cwd": "cwd", "project": "cwd", "after": "after",
          "before": "before"}
_WORD, _SPACES = re.compile(r"\S*"), re.compile(r"\s*")
MIN_PREFIX = 2  # characters a prefix keeps (after lower-casing): shorter ones would expand to half the vocabulary


class SyntaxProblem(ValueError):
    """A query that cannot be parsed; `position` is where (0-based characters)."""

    def __init__(self, message: str, position: int) -> None:
        super().__init__(f"{message} at position {position}")
        self.position = position


@dataclass(frozen=True)
class Phrase:
    text: str  # as written, without its quotes
    words: tuple[str, ...]  # `tokenize.words`: a hit's text holds them adjacent and in this order
    tokens: tuple[str, ...]  # its indexed tokens (distinct): every hit holds each of them


@dataclass
class Parsed:
    terms: list[str] = field(default_factory=list)  # ranked, distinct, first seen first
    phrases: list[Phrase] = field(default_factory=list)  # each must occur
    prefixes: list[str] = field(default_factory=list)  # each expands to the terms it starts
    excluded_terms: list[str] = field(default_factory=list)
    excluded_phrases: list[Phrase] = field(default_factory=list)
    filters: dict[str, list[str]] = field(default_factory=dict)  # field → values, as written
    left_out: list[str] = field(default_factory=list)  # phrases as written that hold no searchable word

    def searchable(self) -> bool:
        """Whether anything is asked for (exclusions and filters alone find nothing to rank)."""
        return bool(self.terms or self.phrases or self.prefixes)


@dataclass
class _Cursor:
    text: str
    at: int = 0

    def skip_spaces(self) -> None:
        self._take(_SPACES)

    def word(self) -> str:
        """Up to the next space (a quote inside a word is part of it: `it's`)."""
        return self._take(_WORD)

    def _take(self, run: re.Pattern[str]) -> str:
        """The run of `run` at the cursor (maybe empty), moving past it."""
        match = run.match(self.text, self.at)
        assert match is not None  # a starred run matches anywhere
        self.at = match.end()
        return match.group()

    def quoted(self) -> str:
        """The text between a quote at the cursor and the next one."""
        start = self.at
        end = self.text.find('"', start + 1)
        if end < 0:
            raise SyntaxProblem("unterminated quote", start)
        self.at = end + 1
        return self.text[start + 1 : end]


def parse(text: str) -> Parsed:
    """The query's parts; SyntaxProblem for what cannot be parsed."""
    out = Parsed()
    cursor = _Cursor(text)
    waiting_not: int | None = None  # the position of a NOT waiting for its operand
    while True:
        cursor.skip_spaces()
        if cursor.at >= len(text):
            break
        start = cursor.at
        negated, waiting_not = waiting_not is not None, None
        if text[start] == "-" and start + 1 < len(text) and (text[start + 1].isalnum() or text[start + 1] == '"'):
            negated = True
            cursor.at += 1
        if text[cursor.at] == '"':
            _add_phrase(out, cursor, negated)
            continue
        begins = cursor.at
        word = cursor.word()
        if word in ("OR", "NOT") and not negated:
            waiting_not = start if word == "NOT" else None
            continue
        name, colon, _ = word.partition(":")
        if colon and name.lower() in FIELDS:
            if negated:
                raise SyntaxProblem(f"a filter ({name}:) cannot be excluded", start)
            _add_filter(out, cursor, name, begins)
        else:
            _add_word(out, word, begins, negated)
    if waiting_not is not None:
        raise SyntaxProblem("NOT without a word after it", waiting_not)
    if not out.searchable() and (out.excluded_terms or out.excluded_phrases):
        raise SyntaxProblem("a query of exclusions alone finds nothing to rank; add a word", 0)
    return _distinct(out)


def _add_phrase(out: Parsed, cursor: _Cursor, negated: bool) -> None:
    inner = cursor.quoted()
    tokens = tuple(dict.fromkeys(tokenize(inner)))
    if not tokens:  # `"n p'"` in pasted text: left out and said, the rest is searched
        out.left_out.append(inner)
        return
    phrase = Phrase(inner, tuple(words(inner)), tokens)
    if len(phrase.words) == 1:  # one word in quotes is that word
        _add_terms(out.excluded_terms if negated else out.terms, tokens)
    elif negated:
        out.excluded_phrases.append(phrase)
    else:
        out.phrases.append(phrase)
        _add_terms(out.terms, tokens)  # its words rank the hits that hold it


def _add_filter(out: Parsed, cursor: _Cursor, name: str, begins: int) -> None:
    """`name:value` or `name:"a value"` from `begins`."""
    cursor.at = begins + len(name) + 1
    quoted = cursor.at < len(cursor.text) and cursor.text[cursor.at] == '"'
    value = (cursor.quoted() if quoted else cursor.word()).strip()
    if not value:
        raise SyntaxProblem(f"{name}: needs a value", begins)
    out.filters.setdefault(FIELDS[name.lower()], []).append(value)


def _add_word(out: Parsed, word: str, start: int, negated: bool) -> None:
    if word.endswith("*") and any(c.isalnum() for c in word) and not negated:  # `***` is no prefix
        stem = word.rstrip("*")
        tokens = tokenize(stem)
        if len(tokens) == 1 and tokens[0] == stem.lower():
            if len(tokens[0]) < MIN_PREFIX:
                raise SyntaxProblem(f"a prefix needs at least {MIN_PREFIX} characters", start)
            out.prefixes.append(tokens[0])
            return
        if not tokens:
            raise SyntaxProblem(f"a prefix needs at least {MIN_PREFIX} characters", start)
        # `src/migr*`: the whole words are searched, the last part as the prefix
        *whole, last = tokens
        _add_terms(out.terms, [t for t in whole if t != stem.lower()])
        if len(last) >= MIN_PREFIX:
            out.prefixes.append(last)
        return
    tokens = tokenize(word)
    if not negated:
        _add_terms(out.terms, tokens)
    elif len(parts := tuple(words(word))) > 1 and tokens:  # -fix_migration: the words together, any spelling
        out.excluded_phrases.append(Phrase(word, parts, tuple(dict.fromkeys(tokens))))
    else:
        _add_terms(out.excluded_terms, tokens)


def _add_terms(into: list[str], tokens: list[str] | tuple[str, ...]) -> None:
    into.extend(tokens)  # repeats are dropped once, at the end (`_distinct`): a check per token was quadratic


def _distinct(out: Parsed) -> Parsed:
    for terms in (out.terms, out.prefixes, out.excluded_terms):
        terms[:] = dict.fromkeys(terms)
    return out
