"""`grep.matching_lines_in` against a line-by-line RE2 check, seeded: texts in and out of
scope side by side (gaps read through), empty lines, non-ASCII text, anchors, flags, and the
literal-only patterns' array scan over windows of every width. Also the patterns RE2 and
Python's parser read differently, and the ones refused."""

from __future__ import annotations

import random

import numpy as np
import pytest

from moraine.index import grep
from moraine.index.grep import InvalidPattern, compile_pattern, matching_lines_in

_PIECES = ["ab", "abc", "x", " ", "", "é", "abcd", "\t", "A", "1", "foo", "zz", "abcd{,}", "{,2}"]
_PATTERNS = ["abc", "abc\\w*", "^abc", "abc$", "^$", "^", "$", "x*", "\\bab", "ab\\b", "(?i)ABC", "a.c", "[^a]*$",
             "é", "\\Aabc", "abc\\z", "(?-m)^x$", "abc|foo", "(?:abc)+", ".*abc.*", "\\s", "^\\s*$", "\\w+$",
             "(?U)a+", "c\\W*", "abcd{,}", "abc{,2}", "\\Qabc", "\\Qa.c\\E\\w*", "(?i-m:^ABC)", "[]a]bc"]


def _text(rng: random.Random) -> str:
    return "\n".join("".join(rng.choice(_PIECES) for _ in range(rng.randint(0, 4))) for _ in range(rng.randint(1, 4)))


def test_matching_lines_equal_a_line_by_line_check(monkeypatch: pytest.MonkeyPatch) -> None:
    rng = random.Random(1)
    compared = 0
    for _ in range(2500):
        data, starts, ends, lines = b"", [], [], []
        for _ in range(rng.randint(1, 8)):
            text, in_scope = _text(rng), rng.random() < 0.6
            encoded = text.encode() + b"\n"
            if in_scope:
                starts.append(len(data))
                ends.append(len(data) + len(encoded) - 1)
                offset = 0
                for line in text.split("\n"):
                    lines.append((len(starts) - 1, offset, line))
                    offset += len(line.encode()) + 1
            data += encoded
            if rng.random() < 0.2:  # a text out of scope past the gap that is read through
                data += b"y" * rng.randint(0, 300) + b"\n"
        if not starts:
            continue
        pattern = compile_pattern(rng.choice(_PATTERNS))
        monkeypatch.setattr(grep, "_WINDOW_GAP", rng.choice([0, 256, 1 << 40]))
        hits = matching_lines_in(pattern, data, np.array(starts), np.array(ends))
        got = list(zip(hits.which.tolist(), hits.offsets.tolist(), strict=True))
        assert got == [(w, o) for w, o, line in lines if pattern.regex.search(line)], pattern
        compared += 1
    assert compared > 2000


def test_patterns_read_differently_by_python_are_not_literal_only() -> None:
    """Python reads `x{,n}` as a repetition, RE2 as text: the literal `abc` alone is no match of
    `abcd{,}`, so its places must not count as matching lines."""
    assert compile_pattern("abcd{,}").literal == b"abc"
    for query in ("abcd{,}", "abcd{,2}", "x?abcd{,3}"):
        assert not compile_pattern(query).literal_only, query
    assert compile_pattern("abc\\w*").literal_only and compile_pattern("abc").literal_only


def test_any_byte_is_refused_and_an_open_quote_is_closed() -> None:
    with pytest.raises(InvalidPattern, match="C"):
        compile_pattern("a\\Cb")
    pattern = compile_pattern("\\Qa.c")  # quoted to the end of the query
    data = b"a.c\nabc\n"
    hits = matching_lines_in(pattern, data, np.array([0]), np.array([len(data) - 1]))
    assert hits.offsets.tolist() == [0]
