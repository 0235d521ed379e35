"""The mutable, in-memory part of the index: new documents land here until sealed."""

from __future__ import annotations

import numpy as np

_EMPTY = (np.zeros(0, dtype=np.uint32), np.zeros(0, dtype=np.uint32))


class MemTable:
    """Term → (doc ids, term frequencies) as growing Python lists, doc ids increasing."""

    def __init__(self) -> None:
        self.docs: dict[str, list[int]] = {}
        self.tfs: dict[str, list[int]] = {}
        self.doc_ids: list[int] = []
        self.doc_lens: list[int] = []

    def __len__(self) -> int:
        return len(self.doc_ids)

    def add(self, doc_id: int, term_tfs: dict[str, int], length: int) -> None:
        self.doc_ids.append(doc_id)
        self.doc_lens.append(length)
        docs, tfs = self.docs, self.tfs
        for term, tf in term_tfs.items():
            plist = docs.get(term)
            if plist is None:
                docs[term] = [doc_id]
                tfs[term] = [tf]
            else:
                plist.append(doc_id)
                tfs[term].append(tf)

    def postings(self, term: str) -> tuple[np.ndarray, np.ndarray]:
        plist = self.docs.get(term)
        if plist is None:
            return _EMPTY
        return np.array(plist, dtype=np.uint32), np.array(self.tfs[term], dtype=np.uint32)
