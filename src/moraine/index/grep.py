"""Regular expressions over session transcripts, in linear time (RE2).

Syntax is RE2's (https://github.com/google/re2/wiki/Syntax): Perl-like classes, repetition,
groups, alternation, `(?i)` and the other flags; no backreferences or lookaround (they are
what makes a backtracking engine exponential). A pattern matches within one line: `.`, `\\s`
and negated classes never cross a newline, `^` and `$` anchor at line ends. RE2 runs in time
linear in the text, so `(a+)+$` over a megabyte line returns in milliseconds.

Texts are scanned in place by RE2, one call per matching line: RE2 skips ahead by a pattern's
literal prefix itself (a rare literal is read at ~10-20 GB/s), so a separate literal pre-filter
(`find` over the literal's places, then RE2 on each candidate line) lost everywhere on the 1M
corpus. `required_literal` finds a byte string every match must contain (the longest run of
plain characters at the top level of the pattern); when a line matches exactly where it holds
that literal (`word`, `word\\w*`), the literal's places alone give the matching lines, found by
array passes (`index.literal`) with no call per line.
"""

from __future__ import annotations

import re
import time
from dataclasses import dataclass
from typing import Any

import numpy as np
import re2

from moraine.errors import DeadlineExceeded
from moraine.index.literal import literal_places

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
    line: Any = None  # over UTF-8 bytes, the pattern and the rest of its line: searches texts in place
    literal_only: bool = False  # a line matches exactly when it holds `literal` (`word`, `word\w*`)


def compile_pattern(query: str) -> Pattern:
    if len(query) > MAX_PATTERN:
        raise InvalidPattern(f"pattern longer than {MAX_PATTERN} characters")
    regex = _compile("(?m)" + query)
    # the pattern, then the rest of its line: a call finds a matching line and where the next begins
    line = _compile("(?m)(?:" + line_anchored(query) + ")[^\n]*", binary=True)
    literal = required_literal(query)
    literal_only = literal is not None and _literal_only(query, literal) \
        and line.search(literal) is not None  # RE2 agrees that the literal alone is a match
    return Pattern(regex, literal, line, literal_only)


def _compile(pattern: str, binary: bool = False) -> Any:
    try:
        return re2.compile(pattern.encode("utf-8") if binary else pattern, _OPTIONS)
    except re2.error as exc:
        detail = exc.args[0] if exc.args else exc
        text = detail.decode("utf-8", "replace") if isinstance(detail, bytes) else str(detail)
        raise InvalidPattern(text.replace("(?m)", "", 1)) from None


_FLAGS = re.compile(r"\(\?([imsU]*)(?:-([imsU]*))?([:)])")


def line_anchored(query: str) -> str:
    """The query with its text anchors made line anchors, for a search over many lines at once
    that must match as if each line were searched alone: `\\A` and `\\z` become `(?m:^)` and
    `(?m:$)`, and a flag group no longer turns multi-line mode off (`(?-m)`, `(?i-m:…)`): within
    one line, text and line anchors are the same. Escapes, `\\Q…\\E` and classes are copied (an
    open `\\Q` is closed: the caller's suffix is not text). `\\C`, any byte, is refused: it
    matches a newline even with `never_nl`."""
    out: list[str] = []
    i, n = 0, len(query)
    while i < n:
        if query.startswith("\\Q", i):
            end = query.find("\\E", i + 2)
            out.append(query[i:] + "\\E" if end < 0 else query[i : end + 2])  # an open \Q ends with the query
            i = n if end < 0 else end + 2
        elif query[i] == "\\":
            pair = query[i : i + 2]
            if pair == "\\C":
                raise InvalidPattern("\\C (any byte) is not supported: it matches across lines")
            out.append({"\\A": "(?m:^)", "\\z": "(?m:$)"}.get(pair, pair))
            i += 2
        elif query[i] == "[":
            end = _class_end(query, i)
            out.append(query[i:end])
            i = end
        elif (flags := _FLAGS.match(query, i)) is not None:
            out.append(_without_m_off(flags.group(1), (flags.group(2) or "").replace("m", ""), flags.group(3)))
            i = flags.end()
        else:
            out.append(query[i])
            i += 1
    return "".join(out)


def _without_m_off(on: str, off: str, close: str) -> str:
    """A flag group `(?on-off)` or `(?on-off:` rewritten with `off` (m already removed)."""
    if off:
        return f"(?{on}-{off}{close}"
    if on:
        return f"(?{on}{close}"
    return "(?:)" if close == ")" else "(?:"


def _class_end(query: str, start: int) -> int:
    """Where the character class opening at `start` ends (past its `]`): a `]` first in the
    class is a member, escapes and `[:name:]` are skipped."""
    i = start + 1
    if query.startswith("^", i):
        i += 1
    if query.startswith("]", i):
        i += 1
    while i < len(query):
        if query[i] == "\\":
            i += 2
        elif query.startswith("[:", i) and (close := query.find(":]", i + 2)) >= 0:
            i = close + 2
        elif query[i] == "]":
            return i + 1
        else:
            i += 1
    return len(query)


# What may stand beside the literal of a pattern that matches wherever the literal is: a
# repetition that can match nothing (`\w*`, `.*`, `[0-9]?`) of a plain item.
_SKIPPABLE_ITEMS = frozenset({"ANY", "IN", "LITERAL", "NOT_LITERAL", "CATEGORY"})


def _literal_only(query: str, literal: bytes) -> bool:
    """Whether a line matches exactly when it holds the literal: the pattern is the literal
    with, around it, only repetitions that may match nothing. Then matching lines are counted
    from the literal's places alone, with no regex call per line."""
    if b"\n" in literal or "{," in query:  # Python reads x{,n} as a repetition, RE2 as text
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


def newline_positions(data: Any) -> np.ndarray:
    """Where the newlines of a buffer are (every line's end), as one array pass."""
    return np.flatnonzero(np.frombuffer(data, dtype=np.uint8) == 10)


@dataclass
class LineHits:
    which: np.ndarray  # the text (index into starts) of each matching line
    offsets: np.ndarray  # the line's offset in that text


def matching_lines_in(pattern: Pattern, data: Any, starts: np.ndarray, ends: np.ndarray,
                      newlines: np.ndarray | None = None, deadline: float | None = None) -> LineHits:
    """Every matching line in the texts data[starts[i]:ends[i]] (newline-separated UTF-8, read in
    place). RE2 looks for the leftmost match from a position (skipping ahead by its literal
    prefix where the pattern has one) and the search goes on at the next line: one call per
    matching line. A literal-only pattern needs no call at all: its literal's places are the
    matches (`literal.literal_places`, array passes over wider windows).

    `deadline` (a `time.monotonic()` instant; the clock is the same in every process of the
    machine, so a worker honours its caller's) is checked between pieces of text paced to take
    ~50 ms each (`_Pace`): a costly pattern over a large history raises `DeadlineExceeded` soon
    after the deadline instead of finishing the whole stretch."""
    if pattern.literal_only:
        at = literal_places(pattern.literal or b"", data, _sliced(data, _runs_of(starts, ends, _WINDOW_GAP)))
    else:
        at = np.asarray(_by_regex(pattern, data, _runs_of(starts, ends, _GAP), deadline),
                        dtype=np.int64)
    _check(deadline)
    if not len(at):
        return LineHits(np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64))
    newlines = newline_positions(data) if newlines is None else newlines
    line = np.searchsorted(newlines, at.astype(newlines.dtype))  # the line's end is newlines[line]
    keep = np.ones(len(line), dtype=bool)
    keep[1:] = line[1:] != line[:-1]  # places are sorted: one per line
    line = line[keep]
    line_start = np.where(line > 0, newlines[np.maximum(line - 1, 0)].astype(np.int64) + 1, 0)
    which = np.searchsorted(starts, line_start, side="right") - 1
    inside = (which >= 0) & (line_start <= ends[np.maximum(which, 0)])  # not in a gap's text
    which, line_start = which[inside], line_start[inside]
    return LineHits(which, line_start - starts[which])


def _by_regex(pattern: Pattern, data: Any, runs: list[tuple[int, int]], deadline: float | None = None) -> list[int]:
    """Where a match starts in each matching line, read in pieces paced by `_Pace` (the deadline
    checked between pieces)."""
    match, unanchored = pattern.line._regexp.Match, _UNANCHORED
    found: list[int] = []
    pace = _Pace()
    for start, end in runs:
        pos = start
        while pos <= end:
            _check(deadline)
            stop, began, piece = _line_end(data, pos + pace.step, end), time.monotonic(), pos
            while pos <= stop:
                span = match(unanchored, data, pos, stop)[0]
                if span[0] < 0:
                    break
                found.append(span[0])
                pos = span[1] + 1  # on at the next line (the match ran to this one's end)
            pace.took(stop - piece, time.monotonic() - began)
            pos = stop + 1
    return found


def _line_end(data: Any, at: int, end: int) -> int:
    """The first line end at or past `at` (a match never spans lines: cutting there changes no answer)."""
    if at >= end:
        return end
    cut = data.find(b"\n", at, end)
    return end if cut < 0 else cut


class _Pace:
    """How much text one RE2 call reads before the deadline is checked again. RE2 is linear, but
    a pattern with large bounded repetitions (`.{0,1000}a.{0,1000}b`) overflows its DFA cache on
    varied text and runs as an NFA at 30-120 KB/s, where `(?i)error.*timeout` reads 800 MB/s. The
    first piece is small; each next one is sized from the rate measured so far to take about
    `PIECE_S`, so a scan past its deadline stops within about that (or one line, never cut)."""

    PIECE_S = 0.05
    SMALLEST, LARGEST = 4 << 10, 1 << 20

    def __init__(self) -> None:
        self.step = self.SMALLEST

    def took(self, size: int, seconds: float) -> None:
        rate = size / max(seconds, 1e-6)
        self.step = int(min(self.LARGEST, max(self.SMALLEST, rate * self.PIECE_S)))


_UNANCHORED = re2._re2.RE2.Anchor.UNANCHORED

# The most text one pass of the literal scan reads between two deadline checks (array passes at
# GB/s: a slice costs well under a millisecond).
SLICE = 1 << 18


def _check(deadline: float | None) -> None:
    if deadline is not None and time.monotonic() > deadline:
        raise DeadlineExceeded()


def _sliced(data: Any, runs: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """The runs cut at the first newline past every `SLICE` bytes (a match never spans lines, so
    cutting at a line's end changes no answer)."""
    out: list[tuple[int, int]] = []
    for start, end in runs:
        while end - start > SLICE:
            cut = data.find(b"\n", start + SLICE, end)
            if cut < 0:
                break
            out.append((start, cut))
            start = cut + 1
        out.append((start, end))
    return out


# Texts out of scope of up to this many bytes between two in scope are read through rather than
# skipped: a run costs a few calls, and on the 1M corpus the newest 30 days' texts made 116k runs
# (most gaps are one byte: an event without transcript lines) where 2.1k do; a line found in a
# gap is dropped by its which-text check. Array passes over a window cost ~0.1 ms more than a
# call, so the literal scan reads through gaps of up to `_WINDOW_GAP`.
_GAP = 256
_WINDOW_GAP = 1 << 16


def _runs_of(starts: np.ndarray, ends: np.ndarray, gap: int) -> list[tuple[int, int]]:
    """The texts as runs of neighbours (a text's separator followed by the next text, or by a
    gap of at most `gap` bytes): each run is read in one pass, and the texts between runs
    (other sessions, other days) are skipped."""
    if not len(starts):
        return []
    breaks = np.flatnonzero(starts[1:] - ends[:-1] - 1 > gap) + 1
    firsts = np.concatenate([[0], breaks])
    lasts = np.concatenate([breaks - 1, [len(starts) - 1]])
    return list(zip(starts[firsts].tolist(), ends[lasts].tolist(), strict=True))
