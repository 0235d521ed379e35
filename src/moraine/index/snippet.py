"""Match-centred snippets: the ~300-character window with the most query-term hits."""

from __future__ import annotations

import re

SNIPPET_CHARS = 300
LEAD_CHARS = 40  # context kept before the first match of the chosen window
SCAN_CHARS = 400_000
MAX_MATCHES_PER_TERM = 64
NEAR_MATCHES = 256  # a frequent term's occurrences located per neighbourhood of rarer terms
MAX_SCANNED = 20_000


def _find_all(haystack: str, term: str, start: int, stop: int, cap: int) -> list[int]:
    found: list[int] = []
    pos = haystack.find(term, start, stop)
    while pos >= 0 and len(found) < cap:
        found.append(pos)
        pos = haystack.find(term, pos + len(term), stop)
    return found


def _positions(text: str, terms: list[str]) -> list[tuple[int, int]]:
    """(start, term index) of term occurrences, sorted; each term has its own budget.

    A frequent term is located only up to its budget, plus wherever it stands next to an
    occurrence of a rarer term, so it can neither flood the list nor hide the rare one.
    Positions come from `str.find` on the lowercased text when lowercasing kept its length
    (it does not for 'İ'); otherwise from a case-insensitive regex on the original.
    """
    head = text[:SCAN_CHARS]
    lowered = head.lower()
    if len(lowered) != len(head):
        return _regex_positions(head, terms)
    per_term = [_find_all(lowered, t, 0, len(lowered), MAX_MATCHES_PER_TERM) for t in terms]
    found = [(p, ix) for ix, ps in enumerate(per_term) for p in ps]
    frequent = [ix for ix, ps in enumerate(per_term) if len(ps) >= MAX_MATCHES_PER_TERM]
    if frequent and len(frequent) < len(terms):
        anchors = sorted(p for ps in per_term if len(ps) < MAX_MATCHES_PER_TERM for p in ps)
        for lo, hi in _neighbourhoods(anchors):
            for ix in frequent:
                found.extend((q, ix) for q in _find_all(lowered, terms[ix], lo, hi, NEAR_MATCHES))
        found = list(set(found))
    found.sort()
    return found


def _neighbourhoods(anchors: list[int]) -> list[tuple[int, int]]:
    """The spans within a snippet's reach of the anchors, overlapping ones merged (sorted input)."""
    spans: list[tuple[int, int]] = []
    for p in anchors:
        lo, hi = max(0, p - SNIPPET_CHARS), p + SNIPPET_CHARS
        if spans and lo <= spans[-1][1]:
            spans[-1] = (spans[-1][0], hi)
        else:
            spans.append((lo, hi))
    return spans


def _regex_positions(head: str, terms: list[str]) -> list[tuple[int, int]]:
    index = {t: i for i, t in enumerate(terms)}
    pattern = re.compile("|".join(re.escape(t) for t in sorted(terms, key=len, reverse=True)), re.IGNORECASE)
    budget = [MAX_MATCHES_PER_TERM] * len(terms)
    found: list[tuple[int, int]] = []
    for match in pattern.finditer(head):
        ix = index.get(match.group().lower())
        if ix is not None and budget[ix] > 0:
            budget[ix] -= 1
            found.append((match.start(), ix))
        if len(found) >= MAX_SCANNED:
            break
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
