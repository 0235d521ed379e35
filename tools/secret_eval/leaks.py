"""The leak criterion, and the report tables.

A secret placement *leaked* when any `window` consecutive characters of its value (10), or of
one of its encoded forms (the window scaled to the encoding), appear in what Moraine returned
or stored. A window shared by two placements' values is ambiguous and not used (every value is
random, so each keeps nearly all of its windows), and neither is a window that is part of the
kind's fixed text (a vendor prefix, a URL, a key header: found in two of a few fresh values of
the same kind), so that a redaction which keeps `sk-ant-api03-` or `https://hooks.slack.com/`
and replaces the rest is not counted as a leak, and a stray prefix elsewhere is not blamed on
a placement. At rest, where the index keeps lowercased
terms, the search is also made on lowercased text against lowercased windows.

A lookalike placement is *altered* when its value does not appear whole where its place is
shown (or, for a place Moraine shows nowhere, stored).
"""

from __future__ import annotations

import random
import zlib
from collections import defaultdict
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field

import numpy as np

from secret_eval.kinds import WINDOW, one_line, rendered
from secret_eval.places import Placement, kinds_of

SECRET_CORPORA = ("public", "people", "outsider", "outsider2", "outsider3", "outsider4", "outsider5")


def needles(p: Placement) -> list[tuple[str, int]]:
    out = [(p.value, WINDOW)] if p.value else []
    out.extend(p.forms)
    return out


def _windows(items: Iterable[tuple[str, int]], lower: bool) -> Iterator[tuple[int, str]]:
    for needle, width in items:
        text = needle.lower() if lower else needle
        width = min(width, len(text))
        if width < 6:
            continue
        for i in range(len(text) - width + 1):
            yield width, text[i : i + width]


def fixed_windows(placements: Iterable[Placement], lower: bool = False, samples: int = 8) -> set[tuple[int, str]]:
    """The windows that are a kind's fixed text: present in two or more of `samples` fresh values
    (and encoded forms) of the same kind and rendering."""
    placements = list(placements)
    present = {p.corpus for p in placements}
    kinds = {(c, k.name): k for c in SECRET_CORPORA if c in present for k in kinds_of(c)}
    fixed: set[tuple[int, str]] = set()
    combos = {(p.corpus, p.kind, p.render) for p in placements if (p.corpus, p.kind) in kinds}
    for corpus, name, render in sorted(combos):
        k = kinds[(corpus, name)]
        rng = random.Random(zlib.crc32(f"{corpus}/{name}/{render}".encode()))
        counts: dict[tuple[int, str], int] = defaultdict(int)
        for _ in range(samples):
            value = k.make(rng)
            if render >= 0:
                forms = rendered(k.renders[render](rng, value))[1]
            else:
                forms = (one_line(k, rng, value) or ("", []))[1]
            for window in set(_windows([(value, WINDOW), *forms], lower)):
                counts[window] += 1
        fixed.update(w for w, n in counts.items() if n >= 2)
    return fixed


_BASE = 1_000_003
_MASK = (1 << 64) - 1
_CHUNK = 4_000_000  # characters hashed at once


def _hash(window: str) -> int:
    h = 0
    for ch in window:
        h = (h * _BASE + ord(ch)) & _MASK
    return h


def _rolling(codes: np.ndarray, width: int) -> np.ndarray:
    """The hash of every `width`-character window of `codes` (uint64, wrapping like `_hash`)."""
    n = len(codes) - width + 1
    if n <= 0:
        return np.zeros(0, dtype=np.uint64)
    h = np.zeros(n, dtype=np.uint64)
    base = np.uint64(_BASE)
    for j in range(width):
        h *= base
        h += codes[j : j + n]
    return h


class Matcher:
    """Finds which placements have a window in a text. Windows are found by rolling hashes over
    the text (numpy), every candidate checked against the window itself."""

    def __init__(self, placements: Iterable[Placement], lower: bool = False) -> None:
        self.lower = lower
        placements = list(placements)
        fixed = fixed_windows(placements, lower)
        owners: dict[int, dict[str, set[int]]] = defaultdict(lambda: defaultdict(set))
        for p in placements:
            for width, window in _windows(needles(p), lower):
                if (width, window) not in fixed:
                    owners[width][window].add(p.pid)
        self.windows: dict[int, dict[str, int]] = {
            width: {w: next(iter(pids)) for w, pids in table.items() if len(pids) == 1}
            for width, table in owners.items()}
        self.hashes: dict[int, tuple[np.ndarray, np.ndarray]] = {}  # width -> (sorted hashes, their pids)
        for width, table in self.windows.items():
            pairs = sorted({(_hash(w), pid) for w, pid in table.items()})
            self.hashes[width] = (np.array([h for h, _ in pairs], dtype=np.uint64),
                                  np.array([pid for _, pid in pairs], dtype=np.int64))
        self.blind = [p.pid for p in placements
                      if not any(w in self.windows.get(width, {}) for width, w in _windows(needles(p), lower))]

    def find_many(self, texts: Sequence[str]) -> list[tuple[int, int, int]]:
        """(pid, index of the text, position) for the first window of each placement in each text."""
        out: list[tuple[int, int, int]] = []
        seen: set[tuple[int, int]] = set()
        batch: list[str] = []
        first = 0
        size = 0
        for i, text in enumerate([*texts, None]):
            if text is not None and (size + len(text) < _CHUNK or not batch):
                batch.append(text)
                size += len(text) + 1
                continue
            self._scan(batch, first, out, seen)
            if text is not None:
                batch, first, size = [text], i, len(text) + 1
        return out

    def _scan(self, batch: list[str], first: int, out: list[tuple[int, int, int]], seen: set[tuple[int, int]]) -> None:
        if not batch:
            return
        joined = "\0".join(batch)
        if self.lower:
            joined = joined.lower()
        codes = np.frombuffer(joined.encode("utf-32-le", "surrogatepass"), dtype=np.uint32).astype(np.uint64)
        starts = np.cumsum([0] + [len(t) + 1 for t in batch[:-1]])
        for width, (hashes, pids) in self.hashes.items():
            if not len(hashes):
                continue
            rolled = _rolling(codes, width)
            slot = np.minimum(np.searchsorted(hashes, rolled), len(hashes) - 1)
            positions = np.flatnonzero(hashes[slot] == rolled)
            if not len(positions):
                continue
            owner = pids[slot[positions]]
            text_ix = np.searchsorted(starts, positions, side="right") - 1
            # the first hit of each (placement, text): positions are increasing
            _, keep = np.unique(owner * (len(batch) + 1) + text_ix, return_index=True)
            for k in keep.tolist():
                pos, pid, ix = int(positions[k]), int(owner[k]), int(text_ix[k])
                if self.windows[width].get(joined[pos : pos + width]) != pid:
                    continue  # a hash collision
                key = (pid, first + ix)
                if key not in seen:
                    seen.add(key)
                    out.append((pid, first + ix, pos - int(starts[ix])))

    def find(self, text: str) -> dict[int, int]:
        """{pid: position of its first window} in one text."""
        found: dict[int, int] = {}
        for pid, _, pos in self.find_many([text]):
            found.setdefault(pid, pos)
        return found


@dataclass
class Evidence:
    channel: str
    where: str
    excerpt: str


@dataclass
class Findings:
    leaks: dict[int, list[Evidence]] = field(default_factory=lambda: defaultdict(list))

    def scan(self, matcher: Matcher, channel: str, items: Sequence[tuple[str, str]]) -> None:
        """Scans (where, text) items."""
        texts = [text for _, text in items]
        for pid, ix, pos in matcher.find_many(texts):
            if sum(e.channel == channel for e in self.leaks[pid]) < 2:  # two excerpts per channel
                text = texts[ix]
                self.leaks[pid].append(Evidence(channel, items[ix][0], text[max(0, pos - 40) : pos + 60]))


def recall_rows(placements: Sequence[Placement], leaked: set[int], key) -> list[tuple[str, int, int, float]]:
    totals: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    for p in placements:
        if p.corpus not in SECRET_CORPORA:
            continue
        row = totals[key(p)]
        row[0] += 1
        row[1] += p.pid in leaked
    return [(name, n, bad, 1 - bad / n if n else 1.0) for name, (n, bad) in sorted(totals.items())]


def table(title: str, rows: Sequence[tuple[str, int, int, float]], head: str = "leaked") -> str:
    width = max([len(r[0]) for r in rows] + [len(title), 8])
    lines = [f"{title:<{width}}  {'placed':>7}  {head:>7}  {'recall' if head == 'leaked' else 'kept':>8}"]
    for name, n, bad, rate in rows:
        lines.append(f"{name:<{width}}  {n:>7}  {bad:>7}  {rate:>8.2%}")
    return "\n".join(lines)
