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
    from re._constants import LITERAL, SUBPATTERN
except ImportError:  # pragma: no cover - Python < 3.11
    import sre_constants
    import sre_parse

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
    line: Any = None  # over UTF-8 bytes, the pattern itself: confirms one line read in place
    literal_only: bool = False  # a line matches exactly when it holds `literal` (`word`, `word\w*`)


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
    line = re2.compile(("(?m)" + query).encode("utf-8"), _OPTIONS)
    literal = required_literal(query)
    return Pattern(regex, literal, lines, line, literal is not None and _literal_only(query, literal))


# What may stand beside the literal of a pattern that matches wherever the literal is: a
# repetition that can match nothing (`\w*`, `.*`, `[0-9]?`) of a plain item.
_SKIPPABLE_ITEMS = frozenset({"ANY", "IN", "LITERAL", "NOT_LITERAL", "CATEGORY"})


def _literal_only(query: str, literal: bytes) -> bool:
    """Whether a line matches exactly when it holds the literal: the pattern is the literal
    with, around it, only repetitions that may match nothing. Then matching lines are counted
    from the literal's places alone, with no regex call per line."""
    if b"\n" in literal:
        return False
    try:
        items = list(sre_parse.parse(query))
    except (re.error, RecursionError, OverflowError, ValueError):
        return False
    run = "".join(chr(arg) for op, arg in items if op == LITERAL)
    if run.encode("utf-8") != literal:
        return False
    seen_literal = ended = False
    for op, arg in items:
        if op == LITERAL:
            if ended:
                return False  # two literal runs
            seen_literal = True
            continue
        ended = seen_literal
        if str(op) not in ("MAX_REPEAT", "MIN_REPEAT") or arg[0] != 0:
            return False
        if not all(str(sub_op) in _SKIPPABLE_ITEMS for sub_op, _ in arg[2]):
            return False
    return seen_literal


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



def newline_positions(data: Any) -> np.ndarray:
    """Where the newlines of a buffer are (every line's end), as one array pass."""
    return np.flatnonzero(np.frombuffer(data, dtype=np.uint8) == 10)


@dataclass
class LineHits:
    which: np.ndarray  # the text (index into starts) of each matching line
    offsets: np.ndarray  # the line's offset in that text
    holding: np.ndarray | None  # the texts holding the literal (None: every text was read)


def matching_lines_in(pattern: Pattern, data: Any, starts: np.ndarray, ends: np.ndarray,
                      newlines: np.ndarray | None = None) -> LineHits:
    """Every matching line in the texts data[starts[i]:ends[i]] (newline-separated UTF-8, read in
    place). With a literal, its places are found at memory speed and give the candidate lines;
    a literal-only pattern needs nothing more, any other is confirmed line by line by RE2."""
    if pattern.literal is None:
        which, offsets = _regex_lines(pattern, data, starts, ends)
        return LineHits(which, offsets, None)
    places = _places(pattern.literal, data, starts, ends, None if pattern.literal_only else _PLACES_LIMIT)
    if places is None:  # a common literal: RE2 alone is cheaper than a call per place and per line
        which, offsets = _regex_lines(pattern, data, starts, ends)
        return LineHits(which, offsets, None)
    newlines = newline_positions(data) if newlines is None else newlines
    line = np.searchsorted(newlines, places.astype(newlines.dtype))  # the line's end is newlines[line]
    keep = np.ones(len(line), dtype=bool)
    keep[1:] = line[1:] != line[:-1]  # places are sorted: one candidate per line
    line = line[keep]
    line_start = np.where(line > 0, newlines[np.maximum(line - 1, 0)].astype(np.int64) + 1, 0)
    which = np.searchsorted(starts, line_start, side="right") - 1
    inside = (which >= 0) & (line_start <= ends[np.maximum(which, 0)])
    which, line, line_start = which[inside], line[inside], line_start[inside]
    holding = np.unique(which)
    if pattern.literal_only or not len(which):
        return LineHits(which, line_start - starts[which], holding)
    line_end = newlines[np.minimum(line, len(newlines) - 1)].astype(np.int64)
    line_end = np.where(line < len(newlines), line_end, len(data))
    confirmed = _confirm(pattern, data, line_start, line_end)
    which, line_start = which[confirmed], line_start[confirmed]
    return LineHits(which, line_start - starts[which], holding)


# Past this many places of a literal in one chunk, a call per place and per candidate line
# costs more than RE2's one pass over the texts (measured on the 1M corpus: 205k places of
# `error` cost 92 ms + 140 ms of confirmations, the pass 149 ms).
_PLACES_LIMIT = 20_000


def _confirm(pattern: Pattern, data: Any, line_start: np.ndarray, line_end: np.ndarray) -> np.ndarray:
    """Which of these lines (read in place) the pattern matches."""
    match, unanchored = pattern.line._regexp.Match, _UNANCHORED
    return np.asarray([match(unanchored, data, a, b)[0][0] >= 0
                       for a, b in zip(line_start.tolist(), line_end.tolist(), strict=True)], dtype=bool)


_UNANCHORED = re2._re2.RE2.Anchor.UNANCHORED


def _places(literal: bytes, data: Any, starts: np.ndarray, ends: np.ndarray, limit: int | None
            ) -> np.ndarray | None:
    """Sorted offsets of the literal inside the texts, one `find` pass over each run of them;
    None once there are more than `limit`."""
    found: list[int] = []
    find = data.find
    step = len(literal)
    for start, end in _runs_of(starts, ends):
        at = find(literal, start, end)
        while at >= 0:
            found.append(at)
            at = find(literal, at + step, end)
        if limit is not None and len(found) > limit:
            return None
    return np.asarray(found, dtype=np.int64)


def _runs_of(starts: np.ndarray, ends: np.ndarray) -> list[tuple[int, int]]:
    """The texts as runs of neighbours (a text's separator followed by the next text): each run
    is read in one pass, and the texts between runs (other sessions, other days) are skipped."""
    breaks = np.flatnonzero(starts[1:] != ends[:-1] + 1) + 1
    firsts = np.concatenate([[0], breaks])
    lasts = np.concatenate([breaks - 1, [len(starts) - 1]])
    return list(zip(starts[firsts].tolist(), ends[lasts].tolist(), strict=True))


def _regex_lines(pattern: Pattern, data: Any, starts: np.ndarray, ends: np.ndarray
                 ) -> tuple[np.ndarray, np.ndarray]:
    """Every matching line by RE2 alone (a pattern without a literal), one pass over each run
    of texts."""
    match, unanchored = pattern.lines._regexp.Match, _UNANCHORED
    found: list[int] = []
    for start, end in _runs_of(starts, ends):
        pos = start
        while pos <= end:
            span = match(unanchored, data, pos, end)[0]
            if span[0] < 0:
                break
            found.append(span[0])
            pos = span[1] + 1  # past the line's end: one match per line
    at = np.asarray(found, dtype=np.int64)
    which = np.searchsorted(starts, at, side="right") - 1
    inside = (which >= 0) & (at <= ends[np.maximum(which, 0)])
    return which[inside], at[inside] - starts[which[inside]]
