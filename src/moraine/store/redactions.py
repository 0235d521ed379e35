"""How many credentials the state holds redacted, per rule, and under which rule sets its
events were read (so `moraine status` can say when `moraine reindex` would redact differently).

Counts are kept per document that holds a placeholder (few do), so a document retired by a
re-read, a forgotten log or retention stops counting without any bookkeeping: only live
documents are summed. Both travel in the snapshot's meta; frames after it rebuild them on replay.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from typing import Any

import numpy as np

from moraine.model import IngestIssue
from moraine.redaction.redact import count_placeholders

MARK = "[REDACTED:"


class Redactions:
    def __init__(self) -> None:
        self.by_doc: dict[int, dict[str, int]] = {}  # doc → placeholders per rule (docs that hold any)
        self.rule_sets: set[str] = set()  # fingerprints of the rules the events were read under

    def add(self, first: int, rows: list[bytes], texts: list[str], rules: Any) -> None:
        """Docs first, first + 1, … were just appended (packed rows, their texts beside them)."""
        mark = MARK.encode()
        for i, (blob, text) in enumerate(zip(rows, texts, strict=True)):
            if mark in blob or MARK in text:
                self.by_doc[first + i] = dict(count_placeholders(text) + count_placeholders(blob))
        if rows and isinstance(rules, str):
            self.rule_sets.add(rules)

    def counts(self, alive: np.ndarray, issues: Iterable[IngestIssue], paths: Iterable[str]) -> dict[str, int]:
        """Placeholders per rule in what the state keeps: live events, quarantined fragments and
        log names."""
        total: Counter[str] = Counter()
        for doc, counts in self.by_doc.items():
            if doc < alive.size and alive[doc]:
                total.update(counts)
        for issue in issues:
            if MARK in issue.fragment or MARK in issue.reason:
                total.update(count_placeholders(issue.fragment + "\n" + issue.reason))
        for path in paths:
            if MARK in path:
                total.update(count_placeholders(path))
        return dict(sorted(total.items()))

    def meta(self) -> dict[str, Any]:
        return {"redacted": sorted(self.by_doc.items()), "rule_sets": sorted(self.rule_sets)}

    @classmethod
    def from_meta(cls, meta: dict[str, Any]) -> Redactions:
        tally = cls()
        tally.by_doc = {int(doc): dict(counts) for doc, counts in meta.get("redacted", ())}
        tally.rule_sets = set(meta.get("rule_sets", ()))
        return tally
