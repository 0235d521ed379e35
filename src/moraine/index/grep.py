"""Regular expressions over session transcripts, in linear time (RE2), with a literal for
candidate selection.

Syntax is RE2's (https://github.com/google/re2/wiki/Syntax): Perl-like classes, repetition,
groups, alternation, `(?i)` and the other flags; no backreferences or lookaround (they are
what makes a backtracking engine exponential). A pattern matches within one line: `.`, `\\s`
and negated classes never cross a newline, `^` and `$` anchor at line ends. RE2 runs in time
linear in the text, so `(a+)+$` over a megabyte line returns in milliseconds.

`required_literal` finds a byte string every match must contain (the longest run of plain
characters at the top level of the pattern): only events holding it are read, and a match is
then confirmed by RE2 itself, so the pre-filter can only widen, never narrow, what is found.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

import re2

try:  # Python's own parser gives the pattern's structure; RE2-only syntax simply has no literal
    from re import _parser as sre_parse  # type: ignore[attr-defined]
    from re._constants import LITERAL, SUBPATTERN  # type: ignore[attr-defined]
except ImportError:  # pragma: no cover - Python < 3.11
    import sre_constants
    import sre_parse  # type: ignore[no-redef]

    LITERAL, SUBPATTERN = sre_constants.LITERAL, sre_constants.SUBPATTERN

MIN_LITERAL = 3
MAX_PATTERN = 2000
_OPTIONS = re2.Options()
_OPTIONS.never_nl = True  # a match never spans lines
_OPTIONS.log_errors = False
_OPTIONS.max_mem = 64 << 20


class InvalidPattern(ValueError):
    pass


@dataclass(frozen=True)
class Pattern:
    regex: Any  # the compiled pattern, over str
    literal: bytes | None
    bregex: Any = None  # the same over UTF-8 bytes (texts are scanned where they are stored)


def compile_pattern(query: str) -> Pattern:
    if len(query) > MAX_PATTERN:
        raise InvalidPattern(f"pattern longer than {MAX_PATTERN} characters")
    try:
        regex = re2.compile("(?m)" + query, _OPTIONS)
    except re2.error as exc:
        detail = exc.args[0] if exc.args else exc
        text = detail.decode("utf-8", "replace") if isinstance(detail, bytes) else str(detail)
        raise InvalidPattern(text.replace("(?m)", "", 1)) from None
    return Pattern(regex, required_literal(query), re2.compile(("(?m)" + query).encode("utf-8"), _OPTIONS))


def required_literal(query: str) -> bytes | None:
    """The longest string every match contains, when one of `MIN_LITERAL`+ bytes exists."""
    try:
        parsed = sre_parse.parse(query)
    except (re.error, RecursionError, OverflowError, ValueError):
        return None
    if parsed.state.flags & re.IGNORECASE:
        return None
    best = b""
    for run in _runs(list(parsed)):
        data = run.encode("utf-8")
        if len(data) > len(best):
            best = data
    return best if len(best) >= MIN_LITERAL else None


def _runs(items: list[Any]) -> list[str]:
    """Runs of consecutive literal characters in a mandatory sequence (descending into plain
    groups, which are mandatory too); anything else ends a run."""
    runs, current = [], []
    for op, arg in items:
        if op == LITERAL:
            current.append(chr(arg))
            continue
        if current:
            runs.append("".join(current))
            current = []
        if op == SUBPATTERN and not arg[1] and not arg[2]:  # (?:…) or (…) without flags
            runs.extend(_runs(list(arg[3])))
    if current:
        runs.append("".join(current))
    return runs


def matching_lines(pattern: Pattern, text: str) -> list[tuple[int, str]]:
    """(0-based line index, line) of every line of `text` where the pattern matches."""
    if pattern.regex.search(text) is None:
        return []
    return [(i, line) for i, line in enumerate(text.split("\n")) if pattern.regex.search(line) is not None]


def matching_spans(pattern: Pattern, data: Any, start: int, end: int) -> list[tuple[int, int]]:
    """(start, end) of every line of `data[start:end]` (newline-separated UTF-8, read in place:
    bytes or an mmap) where the pattern matches; RE2 skips from match to match at memory speed."""
    spans = []
    pos = start
    search = pattern.bregex.search
    while pos <= end:
        found = search(data, pos, end)
        if found is None:
            break
        at = found.start()
        line_start = data.rfind(b"\n", start, at) + 1 if at > start else start
        line_end = data.find(b"\n", at, end)
        line_end = end if line_end < 0 else line_end
        if line_start < start:
            line_start = start
        spans.append((line_start, line_end))
        pos = line_end + 1
    return spans
