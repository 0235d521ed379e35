"""Vectorized tokenization of whole batches: compound → term-id expansion tables.

Compounds (`snake_case`, `src/db/migrate.py`, …) are found in C; each distinct compound is
split into its terms once (Python) and remembered as a run of term ids, so a batch of
documents becomes two numpy arrays (document index, term id) with one dict lookup per
occurrence and no per-term Python work.

Words are found without the regex: mapping every ASCII byte that cannot be part of a
compound to a space and splitting the UTF-8 bytes is about five times faster than `findall`.
An ASCII word is a compound with possibly a leading `_`/separator run and a trailing
separator run (the regex would start at the first letter or digit and end at the last word
character); a word with non-ASCII text may hold several compounds. The word itself is the
cache key and is split once, when first seen, so the tokens are exactly `tokenize()`'s.
"""

from __future__ import annotations

from itertools import chain, repeat

import numpy as np

from moraine.index.growable import Column
from moraine.index.tokenize import _COMPOUND, MAX_TEXT_CHARS, MAX_TOKEN_BYTES, _compound_tokens

COMPOUND_LIMIT = 2_000_000
# Words are cache keys; a long non-ASCII stretch (CJK prose has no ASCII delimiter) is one
# word, so the cache is bounded by its keys' bytes too.
COMPOUND_BYTES_LIMIT = 256 * 1024 * 1024
_SEPARATORS = "./:@+#-"
_IN_COMPOUND = frozenset(b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_" + _SEPARATORS.encode())
# Bytes of UTF-8 sequences (>= 0x80) are kept: a word holding non-ASCII text is split by
# the regex when it is first seen.
_TO_SPACE = bytes(c if c in _IN_COMPOUND or c >= 0x80 else 0x20 for c in range(256))


def compounds(text: str) -> list[bytes]:
    """The words of one text: runs of bytes that are not an ASCII delimiter. No compound
    spans an ASCII delimiter, so each word holds whole compounds (an ASCII word exactly one,
    maybe with separators around it)."""
    return text[:MAX_TEXT_CHARS].encode("utf-8", "surrogatepass").translate(_TO_SPACE).split()


def _expand(word: bytes) -> tuple[str, ...]:
    """A word's terms, exactly as `tokenize()` gives them for that stretch of text."""
    if word.isalnum() and (word.islower() or word.isdigit()):  # bytes: ASCII-only tests
        return (word.decode("ascii"),) if 2 <= len(word) <= MAX_TOKEN_BYTES else ()
    if word.isascii():
        compound = word.decode("ascii").lstrip(_SEPARATORS + "_").rstrip(_SEPARATORS)
        return _compound_tokens(compound) if compound else ()
    text = word.decode("utf-8", "surrogatepass")
    return tuple(term for compound in _COMPOUND.findall(text) for term in _compound_tokens(compound))


class Vocabulary:
    """Term ids (stable for the process) and the compound expansion cache (bounded)."""

    def __init__(self) -> None:
        self.term_ids: dict[str, int] = {}
        self.terms: list[str] = []
        self._reset_compounds()

    def _reset_compounds(self) -> None:
        self.comp_ids: dict[bytes, int] = {}
        self.comp_bytes = 0
        self.comp_start = Column(np.int64)
        self.comp_len = Column(np.int64)
        self.comp_terms = Column(np.int32)

    def term_id(self, term: str) -> int:
        tid = self.term_ids.get(term)
        if tid is None:
            tid = self.term_ids[term] = len(self.terms)
            self.terms.append(term)
        return tid

    def _add_compounds(self, compounds: list[bytes]) -> None:
        """Register new distinct compounds; the expansion columns grow once per batch."""
        starts: list[int] = []
        lens: list[int] = []
        terms: list[int] = []
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
        self.comp_bytes += sum(map(len, compounds))
        self.comp_start.extend(np.asarray(starts, dtype=np.int64))
        self.comp_len.extend(np.asarray(lens, dtype=np.int64))
        self.comp_terms.extend(np.asarray(terms, dtype=np.int32))

    def encode(self, texts: list[str]) -> tuple[np.ndarray, np.ndarray]:
        """(document index, term id) for every token occurrence of every text."""
        if len(self.comp_ids) > COMPOUND_LIMIT or self.comp_bytes > COMPOUND_BYTES_LIMIT:
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
