"""A quarantined line keeps a fragment redacted before it is cut: a credential that straddles the
cut, or that sits in an oversized or too-deep line, never survives in part."""

from __future__ import annotations

import random
import string

from moraine.model import LineRef
from moraine.sources import ADAPTERS, FRAGMENT_CHARS, MAX_LINE_BYTES, normalize_line

REF = LineRef("/logs/x.jsonl", 1, 1, 0)


def _token(rng: random.Random) -> str:
    return "ghp_" + "".join(rng.choice(string.ascii_letters + string.digits) for _ in range(36))


def _leaks(secret: str, kept: str) -> bool:
    body = secret[4:]
    return any(body[i : i + 10] in kept for i in range(len(body) - 9))


def test_a_credential_across_the_cut_is_never_kept_in_part() -> None:
    rng = random.Random(5)
    for shift in range(-45, 5):  # the token ends before, across and after the fragment's end
        secret = _token(rng)
        line = ("{" + "a" * (FRAGMENT_CHARS + shift - len(secret)) + " " + secret + " tail not json").encode()
        events, issue = normalize_line(ADAPTERS["codex"], line, REF, {})
        assert not events and issue is not None
        assert len(issue.fragment) <= FRAGMENT_CHARS
        assert not _leaks(secret, issue.fragment), (shift, issue.fragment[-60:])


def test_oversized_and_deep_lines_are_redacted_before_they_are_cut() -> None:
    rng = random.Random(6)
    secret = _token(rng)
    head = ("{" + "b" * (FRAGMENT_CHARS - 20) + " " + secret).encode()
    _, issue = normalize_line(ADAPTERS["codex"], head, REF, {}, size=MAX_LINE_BYTES + 1)
    assert issue is not None and issue.reason.startswith("line_too_large") and not _leaks(secret, issue.fragment)
    deep = ("[" * 100_000).encode()[: FRAGMENT_CHARS - 20] + b" " + secret.encode() + b"]" * 10
    _, issue = normalize_line(ADAPTERS["codex"], deep, REF, {})
    assert issue is not None and not _leaks(secret, issue.fragment)
