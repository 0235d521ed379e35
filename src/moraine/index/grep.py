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

import numpy as np
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
    lines: Any = None  # over UTF-8 bytes, a whole line holding a match: one match per matching line


def compile_pattern(query: str) -> Pattern:
    if len(query) > MAX_PATTERN:
        raise InvalidPattern(f"pattern longer than {MAX_PATTERN} characters")
    try:
        regex = re2.compile("(?m)" + query, _OPTIONS)
    except re2.error as exc:
        detail = exc.args[0] if exc.args else exc
        text = detail.decode("utf-8", "replace") if isinstance(detail, bytes) else str(detail)
        raise InvalidPattern(text.replace("(?m)", "", 1)) from None
    lines = re2.compile(("(?m)^.*(?:" + query + ").*$").encode("utf-8"), _OPTIONS)
    return Pattern(regex, required_literal(query), lines)


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



def matching_lines_in(pattern: Pattern, data: Any, starts: np.ndarray, ends: np.ndarray
                      ) -> tuple[np.ndarray, np.ndarray]:
    """Every matching line in the texts data[starts[i]:ends[i]] (newline-separated UTF-8, read in
    place): (which text, offset of the line in it). One RE2 pass over the whole stretch when the
    texts lie close together, one per text when they are scattered among others."""
    which: list[int] = []
    at: list[int] = []
    finditer = pattern.lines.finditer
    if int(ends[-1] - starts[0]) <= 2 * int((ends - starts).sum()) + 65_536:
        found = np.fromiter((m.start() for m in finditer(data, int(starts[0]), int(ends[-1]))), dtype=np.int64)
        index = np.searchsorted(starts, found, side="right") - 1
        inside = found <= ends[index]  # a match in a text between two of ours is not ours
        return index[inside], found[inside] - starts[index[inside]]
    for i, (start, end) in enumerate(zip(starts.tolist(), ends.tolist(), strict=True)):
        for m in finditer(data, start, end):
            which.append(i)
            at.append(m.start() - start)
    return np.asarray(which, dtype=np.int64), np.asarray(at, dtype=np.int64)
