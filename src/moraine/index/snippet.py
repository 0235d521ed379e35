"""Match-centred snippets: the ~300-character window with the most query-term hits."""

from __future__ import annotations

SNIPPET_CHARS = 300
SCAN_CHARS = 400_000
MAX_MATCHES = 4000


def _positions(lowered: str, terms: list[str]) -> list[tuple[int, int]]:
    """(start, term index) of term occurrences, bounded so a huge output stays cheap."""
    found: list[tuple[int, int]] = []
    for ix, term in enumerate(terms):
        start = lowered.find(term)
        while start >= 0 and len(found) < MAX_MATCHES:
            found.append((start, ix))
            start = lowered.find(term, start + len(term))
    found.sort()
    return found


def _best_window(found: list[tuple[int, int]], width: int) -> int:
    """Start of the window covering the most distinct terms, then the most matches."""
    best_start, best_key = found[0][0], (0, 0)
    j = 0
    counts: dict[int, int] = {}
    for i, (start, ix) in enumerate(found):
        counts[ix] = counts.get(ix, 0) + 1
        while found[j][0] < start - width + 40:
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
    head = text[:SCAN_CHARS]
    found = _positions(head.lower(), terms) if terms else []
    if len(text) <= width:
        return " ".join(text.split()), False
    anchor = _best_window(found, width) if found else 0
    start = max(0, anchor - width // 4)
    end = min(len(text), start + width)
    start = max(0, end - width)
    if start > 0:
        space = text.rfind(" ", start - 20, start + 1)
        start = space + 1 if space > 0 else start
    if end < len(text):
        space = text.find(" ", end - 20, end)
        end = space if space > start else end
    body = " ".join(text[start:end].split())
    return ("…" if start > 0 else "") + body + ("…" if end < len(text) else ""), True
