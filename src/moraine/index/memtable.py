"""The mutable, in-memory part of the index: new documents land here until sealed.

Batches arrive as numpy chunks (term id, doc id, tf) sorted by term; a term's postings
are found in each chunk with `np.searchsorted`. Nothing here is per-term Python work.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from moraine.index.vocab import Vocabulary

_EMPTY = (np.zeros(0, dtype=np.uint32), np.zeros(0, dtype=np.uint32))


@dataclass(frozen=True)
class Chunk:
    terms: np.ndarray  # int32 term ids, sorted
    docs: np.ndarray  # uint32 doc ids, increasing within a term
    tfs: np.ndarray  # uint32


@dataclass(frozen=True)
class BatchPostings:
    """A batch's postings, sorted by (term, document), its documents numbered 0.. in the batch:
    computed apart from the memtable (a commit does it before taking the readers' lock)."""

    terms: np.ndarray  # int32 term ids
    docs: np.ndarray  # int64 index of the document in the batch
    tfs: np.ndarray  # uint32
    lengths: np.ndarray  # uint32 tokens per document of the batch (0: nothing indexed for it)


def batch_postings(doc_index: np.ndarray, term_ids: np.ndarray, n_docs: int) -> BatchPostings:
    """From one (document in batch, term id) pair per token occurrence."""
    lengths = np.bincount(doc_index, minlength=n_docs).astype(np.uint32)
    # One sort of (term, doc in batch) gives each posting's tf and the chunk's order.
    key = (term_ids.astype(np.int64) << 32) | doc_index.astype(np.int64)
    unique, tfs = np.unique(key, return_counts=True)
    return BatchPostings((unique >> 32).astype(np.int32), unique & 0xFFFFFFFF, tfs.astype(np.uint32), lengths)


class MemTable:
    def __init__(self, vocab: Vocabulary) -> None:
        self.vocab = vocab
        self.chunks: list[Chunk] = []
        self.doc_ids: list[np.ndarray] = []
        self.doc_lens: list[np.ndarray] = []
        self.size = 0

    def __len__(self) -> int:
        return self.size

    def add_batch(self, doc_ids: np.ndarray, doc_index: np.ndarray, term_ids: np.ndarray) -> np.ndarray:
        """Index a batch; returns each document's length (0: nothing indexed for it)."""
        return self.add_postings(doc_ids, batch_postings(doc_index, term_ids, len(doc_ids)))

    def add_postings(self, doc_ids: np.ndarray, batch: BatchPostings) -> np.ndarray:
        """`add_batch` of postings computed already; `doc_ids[i]` is the batch's document i."""
        lengths = batch.lengths
        if len(batch.terms):
            self.chunks.append(Chunk(batch.terms, doc_ids[batch.docs].astype(np.uint32), batch.tfs))
            self._merge_tail()
        indexed = lengths > 0
        self.doc_ids.append(doc_ids[indexed].astype(np.uint32))
        self.doc_lens.append(lengths[indexed])
        self.size += int(indexed.sum())
        return lengths

    def add(self, doc_id: int, term_tfs: dict[str, int], length: int) -> None:
        """One document from precomputed term frequencies (tests, tiny appends)."""
        if not term_tfs:
            return
        ids = np.array([self.vocab.term_id(t) for t in term_tfs], dtype=np.int32)
        tfs = np.array(list(term_tfs.values()), dtype=np.uint32)
        order = np.argsort(ids, kind="stable")
        self.chunks.append(Chunk(ids[order], np.full(len(ids), doc_id, dtype=np.uint32), tfs[order]))
        self.doc_ids.append(np.array([doc_id], dtype=np.uint32))
        self.doc_lens.append(np.array([length], dtype=np.uint32))
        self.size += 1
        self._merge_tail()

    def _merge_tail(self) -> None:
        """Keep chunk sizes geometric (merge the newest two while comparable), so a daemon
        committing tiny frames holds O(log n) chunks and a query O(log n) lookups."""
        while len(self.chunks) > 1 and len(self.chunks[-1].terms) * 2 >= len(self.chunks[-2].terms):
            newer, older = self.chunks.pop(), self.chunks.pop()
            terms = np.concatenate([older.terms, newer.terms])
            # Every doc of `older` precedes every doc of `newer`: a stable sort by term alone
            # keeps docs increasing within each term.
            order = np.argsort(terms, kind="stable")
            docs = np.concatenate([older.docs, newer.docs])[order]
            tfs = np.concatenate([older.tfs, newer.tfs])[order]
            self.chunks.append(Chunk(terms[order], docs, tfs))

    def _compact(self) -> None:
        # A seal calls this with readers running (see InvertedIndex.seal): the chunks are
        # replaced by a new list holding the same postings, never changed in place.
        terms = np.concatenate([c.terms for c in self.chunks])
        docs = np.concatenate([c.docs for c in self.chunks])
        tfs = np.concatenate([c.tfs for c in self.chunks])
        order = np.argsort(terms, kind="stable")  # chunks are in doc order (see _merge_tail)
        self.chunks = [Chunk(terms[order], docs[order], tfs[order])]

    def postings_parts(self, term: str) -> list[tuple[np.ndarray, np.ndarray]]:
        """The term's postings in each chunk (each sorted by doc; chunks in doc order)."""
        tid = self.vocab.term_ids.get(term)
        if tid is None or not self.chunks:
            return []
        parts = []
        bounds = np.array([tid, tid + 1], dtype=np.int32)
        for chunk in self.chunks:
            lo, hi = chunk.terms.searchsorted(bounds).tolist()
            if hi > lo:
                parts.append((chunk.docs[lo:hi], chunk.tfs[lo:hi]))
        return parts

    def postings(self, term: str) -> tuple[np.ndarray, np.ndarray]:
        parts = self.postings_parts(term)
        if not parts:
            return _EMPTY
        if len(parts) == 1:
            return parts[0]
        return np.concatenate([p[0] for p in parts]), np.concatenate([p[1] for p in parts])

    def arrays(self) -> tuple[list[str], np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """(term strings per posting as ids into a list, …) for sealing into a segment."""
        if len(self.chunks) > 1:
            self._compact()
        chunk = self.chunks[0] if self.chunks else Chunk(*(np.zeros(0, np.uint32),) * 3)
        doc_ids = np.concatenate(self.doc_ids) if self.doc_ids else np.zeros(0, np.uint32)
        doc_lens = np.concatenate(self.doc_lens) if self.doc_lens else np.zeros(0, np.uint32)
        return self.vocab.terms, chunk.terms, chunk.docs, chunk.tfs, doc_ids, doc_lens
