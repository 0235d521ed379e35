"""Match-centred snippets: the ~300-character window with the most query-term hits."""

from __future__ import annotations

import re

SNIPPET_CHARS = 300
LEAD_CHARS = 40  # context kept before the first match of the chosen window
SCAN_CHARS = 400_000
MAX_MATCHES_PER_TERM = 300
MAX_SCANNED = 20_000


def _raw_positions(text: str, terms: list[str]) -> list[tuple[int, int]]:
    """Every (start, term index) in the scanned head, sorted by position.

    `str.find` on the lowercased text is fast; positions from it are valid only when
    lowercasing kept the length (it does not for 'İ'), else a case-insensitive regex runs
    on the original text.
    """
    head = text[:SCAN_CHARS]
    lowered = head.lower()
    found: list[tuple[int, int]] = []
    if len(lowered) == len(head):
        for ix, term in enumerate(terms):
            pos = lowered.find(term)
            while pos >= 0 and len(found) < MAX_SCANNED:
                found.append((pos, ix))
                pos = lowered.find(term, pos + len(term))
        found.sort()
        return found
    index = {t: i for i, t in enumerate(terms)}
    pattern = re.compile("|".join(re.escape(t) for t in sorted(terms, key=len, reverse=True)), re.IGNORECASE)
    for match in pattern.finditer(head):
        ix = index.get(match.group().lower())
        if ix is not None:
            found.append((match.start(), ix))
        if len(found) >= MAX_SCANNED:
            break
    return found


def _positions(text: str, terms: list[str]) -> list[tuple[int, int]]:
    """(start, term index) of term occurrences, in order, each term with its own budget.

    Past its budget a frequent term is kept only next to another term's match, so it cannot
    flood the list (or hide a rarer term), yet windows mixing several terms stay whole.
    """
    budget = [MAX_MATCHES_PER_TERM] * len(terms)
    far = -SNIPPET_CHARS - 1
    newest, newest_term, runner_up = far, -1, far  # latest kept match, and latest of another term
    found: list[tuple[int, int]] = []
    for start, ix in _raw_positions(text, terms):
        if budget[ix] <= 0:
            other = newest if newest_term != ix else runner_up
            if start - other > SNIPPET_CHARS:
                continue
        budget[ix] -= 1
        found.append((start, ix))
        if ix != newest_term:
            runner_up = newest
        newest, newest_term = start, ix
    return found


def _best_window(found: list[tuple[int, int]], span: int) -> int:
    """Start of the span covering the most distinct terms, then the most matches."""
    best_start, best_key = found[0][0], (0, 0)
    j = 0
    counts: dict[int, int] = {}
    for i, (start, ix) in enumerate(found):
        counts[ix] = counts.get(ix, 0) + 1
        while found[j][0] <= start - span:
            counts[found[j][1]] -= 1
            if not counts[found[j][1]]:
                del counts[found[j][1]]
            j += 1
        key = (len(counts), i - j + 1)
        if key > best_key:
            best_key, best_start = key, found[j][0]
    return best_start


def snippet(text: str, terms: list[str], width: int = SNIPPET_CHARS) -> tuple[str, bool]:
    """A compact excerpt around the densest matches; `…` marks cut ends.

    Returns (excerpt, truncated) where truncated means the event text is longer than it.
    """
    if len(text) <= width:
        return " ".join(text.split()), False
    found = _positions(text, terms) if terms else []
    span = width - LEAD_CHARS - 20  # matches counted for a window all fit in the excerpt
    anchor = _best_window(found, span) if found else 0
    start = max(0, anchor - LEAD_CHARS)
    end = min(len(text), start + width)
    start = max(0, end - width)  # near the end of the text: keep the full width, reach back
    if start > 0:
        space = text.find(" ", start, max(start, min(anchor, start + 20)))
        start = space + 1 if space >= 0 else start
    if end < len(text):
        space = text.rfind(" ", max(start, end - 20), end)
        end = space if space > anchor else end
    body = " ".join(text[start:end].split())
    return ("…" if start > 0 else "") + body + ("…" if end < len(text) else ""), True
