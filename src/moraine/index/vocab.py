"""Vectorized tokenization of whole batches: compound → term-id expansion tables.

Compounds (`snake_case`, `src/db/migrate.py`, …) are found in C; each distinct compound is
split into its terms once (Python) and remembered as a run of term ids, so a batch of
documents becomes two numpy arrays (document index, term id) with one dict lookup per
occurrence and no per-term Python work.

ASCII text (nearly all of it) skips the regex: mapping every byte that cannot be part of a
compound to a space and splitting is about five times faster than `findall`. A split word is
a compound with possibly a leading `_`/separator run and a trailing separator run (the regex
would start at the first letter or digit and end at the last word character); the word
itself is the cache key and is trimmed once, when first seen, so the tokens are exactly
`tokenize()`'s.
"""

from __future__ import annotations

from itertools import chain, repeat

import numpy as np

from moraine.index.growable import Column
from moraine.index.tokenize import _COMPOUND, MAX_TEXT_CHARS, _compound_tokens

COMPOUND_LIMIT = 2_000_000
_SEPARATORS = "./:@+#-"
_IN_COMPOUND = frozenset(b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_" + _SEPARATORS.encode())
_TO_SPACE = bytes(c if c in _IN_COMPOUND else 0x20 for c in range(256))


def compounds(text: str) -> list[str] | list[bytes]:
    """The compounds of one text, as split words (ASCII text) or regex matches (the rest)."""
    text = text[:MAX_TEXT_CHARS]
    if text.isascii():
        return text.encode("ascii").translate(_TO_SPACE).split()
    return _COMPOUND.findall(text)


def _expand(key: str | bytes) -> tuple[str, ...]:
    """A compound's terms; a split word is trimmed to the compound the regex would find."""
    if isinstance(key, bytes):
        key = key.decode("ascii").lstrip(_SEPARATORS + "_").rstrip(_SEPARATORS)
        if not key:
            return ()
    return _compound_tokens(key)


class Vocabulary:
    """Term ids (stable for the process) and the compound expansion cache (bounded)."""

    def __init__(self) -> None:
        self.term_ids: dict[str, int] = {}
        self.terms: list[str] = []
        self._reset_compounds()

    def _reset_compounds(self) -> None:
        self.comp_ids: dict[str | bytes, int] = {}
        self.comp_start = Column(np.int64)
        self.comp_len = Column(np.int64)
        self.comp_terms = Column(np.int32)

    def term_id(self, term: str) -> int:
        tid = self.term_ids.get(term)
        if tid is None:
            tid = self.term_ids[term] = len(self.terms)
            self.terms.append(term)
        return tid

    def _add_compounds(self, compounds: list[str | bytes]) -> None:
        """Register new distinct compounds; the expansion columns grow once per batch."""
        starts, lens, terms = [], [], []
        base = self.comp_terms.size
        comp_ids, term_ids, known = self.comp_ids, self.term_ids, self.terms
        for compound in compounds:
            comp_ids[compound] = len(comp_ids)
            starts.append(base + len(terms))
            parts = _expand(compound)
            lens.append(len(parts))
            for part in parts:  # term_id() inlined: this loop runs once per new token
                tid = term_ids.get(part)
                if tid is None:
                    tid = term_ids[part] = len(known)
                    known.append(part)
                terms.append(tid)
        self.comp_start.extend(np.asarray(starts, dtype=np.int64))
        self.comp_len.extend(np.asarray(lens, dtype=np.int64))
        self.comp_terms.extend(np.asarray(terms, dtype=np.int32))

    def encode(self, texts: list[str]) -> tuple[np.ndarray, np.ndarray]:
        """(document index, term id) for every token occurrence of every text."""
        if len(self.comp_ids) > COMPOUND_LIMIT:
            self._reset_compounds()
        found = list(map(compounds, texts))
        counts = np.fromiter(map(len, found), dtype=np.int64, count=len(found))
        words = list(chain.from_iterable(found))
        get = self.comp_ids.get
        cids = np.fromiter(map(get, words, repeat(-1, len(words))), dtype=np.int64, count=len(words))
        missing = np.flatnonzero(cids < 0)
        if len(missing):
            fresh = list(dict.fromkeys(words[i] for i in missing.tolist()))
            self._add_compounds(fresh)
            cids[missing] = [self.comp_ids[words[i]] for i in missing.tolist()]
        lens = self.comp_len.view[cids]
        starts = self.comp_start.view[cids]
        total = int(lens.sum())
        shift = np.repeat(starts - (np.cumsum(lens) - lens), lens)
        term_ids = self.comp_terms.view[shift + np.arange(total)]
        doc_index = np.repeat(np.repeat(np.arange(len(texts)), counts), lens)
        return doc_index, term_ids
