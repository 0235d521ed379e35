"""The query language's parser (`index/syntax.py`): each form of the language, the positions of
what cannot be parsed, and a query without the new syntax parsing to exactly the terms a bag of
words had (the v1 ranking holds for it)."""

from __future__ import annotations

import random

import pytest

from moraine.index.syntax import Parsed, Phrase, SyntaxProblem, parse
from moraine.index.tokenize import query_terms, words


def test_bare_words_rank_as_before() -> None:
    assert parse("fix the migration") == Parsed(terms=["fix", "the", "migration"])


def test_or_is_a_keyword_only_in_capitals() -> None:
    assert parse("docker OR podman").terms == ["docker", "podman"]
    assert parse("docker or podman").terms == ["docker", "or", "podman"]


def test_a_phrase_must_occur_and_its_words_rank() -> None:
    parsed = parse('"fix the migration" rollback')
    assert parsed.phrases == [Phrase("fix the migration", ("fix", "the", "migration"), ("fix", "the", "migration"))]
    assert parsed.terms == ["fix", "the", "migration", "rollback"]


def test_a_phrase_keeps_the_words_the_index_drops() -> None:
    """Single letters are not indexed, but a phrase holds them in place: "fix a bug" does not
    match "fix the bug"."""
    phrase = parse('"fix a bug"').phrases[0]
    assert phrase.words == ("fix", "a", "bug") and phrase.tokens == ("fix", "bug")


def test_one_word_in_quotes_is_that_word() -> None:
    assert parse('"migration"') == Parsed(terms=["migration"])
    assert parse('deploy -"staging"') == Parsed(terms=["deploy"], excluded_terms=["staging"])


def test_a_code_phrase_and_a_cjk_phrase() -> None:
    assert parse('"fix_migration"').phrases[0].words == ("fix", "migration")
    cjk = parse('"日本語のテキスト"').phrases[0]
    assert cjk.words == ("日", "本", "語", "の", "テ", "キ", "ス", "ト")
    assert "日本" in cjk.tokens


def test_prefixes() -> None:
    assert parse("refact*").prefixes == ["refact"]
    assert parse("Refact* refact**").prefixes == ["refact"]
    assert parse("src/migr*") == Parsed(terms=["src"], prefixes=["migr"])


def test_exclusions() -> None:
    assert parse("docker -macvlan") == Parsed(terms=["docker"], excluded_terms=["macvlan"])
    assert parse("docker NOT macvlan") == Parsed(terms=["docker"], excluded_terms=["macvlan"])
    assert parse('docker -"host network"') == Parsed(
        terms=["docker"], excluded_phrases=[Phrase("host network", ("host", "network"), ("host", "network"))])


def test_an_excluded_compound_is_its_words_together() -> None:
    assert parse("deploy -fix_migration").excluded_phrases == [
        Phrase("fix_migration", ("fix", "migration"), ("fix_migration", "fix", "migration"))]


def test_a_dash_excludes_only_before_a_letter_digit_or_quote() -> None:
    assert parse("git push --force").terms == ["git", "push", "force"]
    assert parse("offset -1 error").terms == ["offset", "error"]  # -1: the digit alone is no token
    assert parse("offset -12 error").excluded_terms == ["12"]
    assert parse("a - b error").terms == ["error"]


def test_a_flag_is_searched_in_quotes() -> None:
    """`rm -rf` excludes `rf`, as in every search box; in quotes it is the command."""
    assert parse("rm -rf") == Parsed(terms=["rm"], excluded_terms=["rf"])
    assert parse('"rm -rf"').phrases == [Phrase("rm -rf", ("rm", "rf"), ("rm", "rf"))]


def test_pasted_text_is_searched_not_refused() -> None:
    """Text copied from a log (a patch header, a quoted fragment) parses to its words: `***` is
    no prefix, and a phrase of nothing searchable is left out (the reply says so), not refused."""
    parsed = parse("*** Update File: crates/ledger-core/src/cache_test.rs @@")
    assert parsed.prefixes == [] and {"update", "file", "crates/ledger-core/src/cache_test.rs"} <= set(parsed.terms)
    parsed = parse('"n p\'" "so it" ""')
    assert parsed.left_out == ["n p'", ""] and parsed.phrases[0].words == ("so", "it")


def test_filters() -> None:
    parsed = parse('bug source:codex type:tool_call tool:Bash cwd:"~/my app" after:2026-01-01 before:2026-02-01')
    assert parsed.terms == ["bug"]
    assert parsed.filters == {"source": ["codex"], "type": ["tool_call"], "tool": ["Bash"], "cwd": ["~/my app"],
                              "after": ["2026-01-01"], "before": ["2026-02-01"]}
    assert parse("bug project:~/src/app").filters == {"cwd": ["~/src/app"]}
    assert parse("bug SOURCE:codex").filters == {"source": ["codex"]}


def test_only_known_field_names_are_filters() -> None:
    parsed = parse("std::vector http://example.com/x note:this")
    assert parsed.filters == {}
    assert {"std::vector", "vector", "http", "note", "this"} <= set(parsed.terms)


@pytest.mark.parametrize(("query", "message", "position"), [
    ('fix "the migration', "unterminated quote", 4),
    ("fix NOT", "NOT without a word after it", 4),
    ("-docker", "a query of exclusions alone", 0),
    ('-"host network"', "a query of exclusions alone", 0),
    ("fix a*", "a prefix needs at least 2 characters", 4),
    ("fix cwd:", "cwd: needs a value", 4),
    ('fix cwd:"', "unterminated quote", 8),
    ("fix -source:codex", "cannot be excluded", 4),
])
def test_what_cannot_be_parsed_names_its_position(query: str, message: str, position: int) -> None:
    with pytest.raises(SyntaxProblem) as raised:
        parse(query)
    assert message in str(raised.value) and raised.value.position == position


def test_a_query_without_the_syntax_parses_to_the_bag_of_words() -> None:
    """Seeded queries of words, identifiers, paths and CJK with none of the language's marks: the
    terms are exactly `query_terms`' (the ranking of every such query stays the v1 one)."""
    rng = random.Random(31)
    vocabulary = ["fix", "migration", "the", "a", "Error", "fixMigration", "fix_migration", "src/db/0042_add.sql",
                  "HTTPServer", "v2", "日本語", "テキスト", "naïve", "İstanbul", "x-y", "a.b.c", "user@host", "C++",
                  "#123", "rm", "42", "OR/NOT", "e.g.", "ok?", "(paren)", "[x]"]
    for _ in range(2000):
        query = " ".join(rng.choice(vocabulary) for _ in range(rng.randint(1, 6)))
        parsed = parse(query)
        assert parsed.terms == query_terms(query, 10_000), query
        assert not (parsed.phrases or parsed.prefixes or parsed.excluded_terms or parsed.filters), query


def test_words_are_the_same_across_spellings() -> None:
    assert words("fix_migration") == words("fixMigration") == words("fix migration") == ["fix", "migration"]
    assert words("Fix the migration") == ["fix", "the", "migration"]
