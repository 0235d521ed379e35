"""Match-centred snippets: ~300 characters around the densest matches, `…` at cut ends."""

from __future__ import annotations

import random

import pytest

from moraine.index.snippet import SNIPPET_CHARS, snippet

WORDS = ("lorem", "ipsum", "dolor", "sit", "amet", "consectetur", "adipiscing", "elit", "sed", "eiusmod")


def prose(rng: random.Random, chars: int) -> str:
    out: list[str] = []
    size = 0
    while size < chars:
        word = rng.choice(WORDS)
        out.append(word)
        size += len(word) + 1
    return " ".join(out)[:chars]


def body(snip: str) -> str:
    return snip.removeprefix("…").removesuffix("…")


def test_snippet_is_centred_on_matches_near_the_end_of_a_long_text() -> None:
    rng = random.Random(1)
    text = prose(rng, 19_000) + " the flakyRetryHandler broke in retry_loop again " + prose(rng, 900)
    assert len(text) > 19_900
    snip, truncated = snippet(text, ["flakyretryhandler", "retry_loop"])
    assert truncated is True
    assert snip.startswith("…") and snip.endswith("…")
    assert "flakyRetryHandler" in snip and "retry_loop" in snip
    assert len(snip) <= 312
    assert body(snip) in " ".join(text.split())  # an exact (whitespace-collapsed) excerpt


def test_snippet_prefers_the_window_with_the_most_distinct_terms() -> None:
    rng = random.Random(2)
    text = (prose(rng, 500) + " alpha " + prose(rng, 8000) + " alpha beta gamma " + prose(rng, 8000)
            + " alpha " + prose(rng, 500))
    snip, _ = snippet(text, ["alpha", "beta", "gamma"])
    assert "alpha beta gamma" in snip


def test_snippet_prefers_more_matches_when_distinct_terms_tie() -> None:
    rng = random.Random(3)
    text = prose(rng, 3000) + " zeta " + prose(rng, 5000) + " zeta zeta zeta zeta " + prose(rng, 5000)
    snip, _ = snippet(text, ["zeta"])
    assert snip.count("zeta") == 4


def test_snippet_is_case_insensitive() -> None:
    rng = random.Random(4)
    text = prose(rng, 5000) + " ConnectionRefusedError raised " + prose(rng, 5000)
    snip, _ = snippet(text, ["connectionrefusederror"])
    assert "ConnectionRefusedError" in snip


def test_match_at_the_very_end_has_no_trailing_ellipsis() -> None:
    rng = random.Random(5)
    text = prose(rng, 10_000) + " final needle"
    snip, truncated = snippet(text, ["needle"])
    assert truncated and snip.startswith("…") and not snip.endswith("…")
    assert snip.endswith("final needle")


def test_match_at_the_start_has_no_leading_ellipsis() -> None:
    rng = random.Random(6)
    text = "needle first " + prose(rng, 10_000)
    snip, truncated = snippet(text, ["needle"])
    assert truncated and snip.startswith("needle first") and snip.endswith("…")


def test_no_match_gives_the_head_of_the_text() -> None:
    rng = random.Random(7)
    text = prose(rng, 5000)
    snip, truncated = snippet(text, ["absent"])
    assert truncated and not snip.startswith("…") and snip.endswith("…")
    assert text.startswith(body(snip))
    snip2, _ = snippet(text, [])
    assert snip2 == snip


@pytest.mark.parametrize("length", [0, 1, 50, 299, SNIPPET_CHARS])
def test_short_text_is_whole_and_not_truncated(length: int) -> None:
    rng = random.Random(length)
    text = prose(rng, length)
    snip, truncated = snippet(text, ["lorem"])
    assert truncated is False
    assert snip == " ".join(text.split())
    assert "…" not in snip


def test_short_text_whitespace_is_collapsed_not_truncated() -> None:
    snip, truncated = snippet("line one\n\n   line\ttwo  ", ["two"])
    assert (snip, truncated) == ("line one line two", False)


@pytest.mark.parametrize("extra", [1, 2, 20, 300, 5000])
def test_text_longer_than_the_snippet_is_truncated(extra: int) -> None:
    rng = random.Random(extra)
    text = prose(rng, SNIPPET_CHARS + extra)
    assert len(text) == SNIPPET_CHARS + extra
    snip, truncated = snippet(text, ["dolor"])
    assert truncated is True
    assert len(body(snip)) < len(text)
    assert "…" in snip


def test_snippet_length_is_bounded_for_random_texts_and_terms() -> None:
    rng = random.Random(8)
    for _ in range(200):
        text = prose(rng, rng.randint(301, 12_000))
        if rng.random() < 0.3:
            text = text.replace(" ", "\n", rng.randint(0, 50))
        terms = rng.sample(WORDS, rng.randint(0, 3))
        snip, truncated = snippet(text, terms)
        assert truncated is True
        assert len(snip) <= 312, (len(snip), snip)
        assert body(snip) in " ".join(text.split())
        present = [term for term in terms if term in text.lower()]
        if present:
            assert any(term in snip.lower() for term in present)


def test_snippet_of_text_without_spaces_is_exactly_the_width() -> None:
    text = "x" * 10_000 + "needle" + "y" * 10_000
    snip, truncated = snippet(text, ["needle"])
    assert truncated and "needle" in snip
    assert len(body(snip)) == SNIPPET_CHARS and snip.startswith("…") and snip.endswith("…")


def test_snippet_contains_every_term_of_the_densest_window() -> None:
    rng = random.Random(9)
    text = prose(rng, 10_000) + " alphaterm " + "x" * 239 + " betaterm " + prose(rng, 10_000)
    snip, _ = snippet(text, ["alphaterm", "betaterm"])
    assert "alphaterm" in snip and "betaterm" in snip


def test_snippet_positions_survive_case_folding_that_changes_length() -> None:
    text = "İSTANBUL " * 300 + "needle here " + "word " * 300
    snip, _ = snippet(text, ["needle"])
    assert "needle" in snip


def test_a_rare_term_is_located_even_after_a_frequent_one() -> None:
    text = "common " * 4500 + "filler " * 2000 + "rareterm common " + "filler " * 200
    snip, _ = snippet(text, ["common", "rareterm"])
    assert "rareterm" in snip


def test_a_rare_term_after_a_dense_run_is_in_the_snippet() -> None:
    text = "common word " * 3000 + " rareterm " + "common word " * 100
    snip, _ = snippet(text, ["common", "rareterm"])
    assert "rareterm" in snip


def test_snippet_keeps_its_width_when_the_match_is_near_the_end() -> None:
    rng = random.Random(10)
    text = prose(rng, 10_000) + " final needle"
    snip, _ = snippet(text, ["needle"])
    assert snip.endswith("final needle")
    assert len(body(snip)) >= 250
    for _ in range(100):
        text = prose(rng, rng.randint(301, 12_000))
        snip, _ = snippet(text, rng.sample(WORDS, rng.randint(0, 3)))
        assert len(body(snip)) >= 250
