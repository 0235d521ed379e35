"""The window search of `windows.py` compiled by numba: the same answer, one function call a
batch of windows instead of hundreds of numpy calls a query.

Imported only by `compiled.py`, and only when numba imports. Everything here works on one
group of documents at a time (one segment's postings, or the parts without window bounds),
since a document's postings all sit in one segment: a group's scores are exact on their own,
and the groups share the candidates and the k-th score (`theta`).

Per query term t of the group, `meta[t]` = (mode, first block, blocks, postings, first
posting, first exact, end exact):

    mode 0  the term is absent from the group
    mode 1  block-coded doc ids (`postings.py`) and byte frequencies (`segment.py`: a byte of
            255 is looked up in `over_at`/`over`), scored here; `bounds[t]` from the segment
    mode 2  (doc, contribution) pairs prepared by the caller: `ex_docs/ex_contrib[start:end]`

A term's contribution is computed operation for operation as `bm25.term_scores` computes it,
so a document's terms add the same numbers; only the order of the additions can differ (the
ranking rounds scores to 12 digits for that reason).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from moraine.index.compiled import BLOCKS, EXACT
from moraine.index.postings import BLOCK
from moraine.index.segment import TF_CAP
from moraine.index.windows import SLACK, WINDOW

DENSE_MIN = 16  # documents of a window past which an optional term's postings there are read, not probed


@njit(cache=True, nogil=True)
def contribution(tf: float, dl: float, idf: float, k1: float, b: float, avgdl: float) -> float:
    """idf·tf·(k1 + 1) / (tf + k1·(1 − b + b·dl/avgdl)), in `term_scores`' order of operations."""
    norm = dl * b
    norm /= avgdl
    norm += 1.0 - b
    norm *= k1
    norm += tf
    out = tf * idf
    out *= k1 + 1.0
    return out / norm


@njit(cache=True, nogil=True)
def _block_of(heads: np.ndarray, b0: int, nb: int, doc: int) -> int:
    """The block of the term (nb blocks from b0) that would hold `doc`: the last whose first id ≤ doc."""
    lo, hi = 0, nb
    while lo < hi:
        mid = (lo + hi) // 2
        if heads[b0 + mid] <= doc:
            lo = mid + 1
        else:
            hi = mid
    return max(lo - 1, 0)


@njit(cache=True, nogil=True)
def _gap(width: int, d1: np.ndarray, d2: np.ndarray, d4: np.ndarray, at: int) -> int:
    if width == 1:
        return int(d1[at])
    return int(d2[at]) if width == 2 else int(d4[at])


@njit(cache=True, nogil=True)
def _first_at_least(docs: np.ndarray, lo: int, hi: int, doc: int) -> int:
    """The first index in docs[lo:hi] (increasing) holding a value ≥ doc."""
    while lo < hi:
        mid = (lo + hi) // 2
        if docs[mid] < doc:
            lo = mid + 1
        else:
            hi = mid
    return lo


@njit(cache=True, nogil=True)
def _capped(freq: tuple, pos: int, tf: float) -> float:
    """The exact frequency of the posting at `pos` whose byte is capped (TF_CAP): the value kept
    apart. Callers read the byte themselves, with `tfs = freq[0]` taken before their loop, and
    call this only when it is capped: a call passing arrays, or an array taken from a tuple
    inside the loop, costs reference counts, 20 ns a posting (17 of 19 ms over the 800k
    postings of a common term)."""
    over_at, over = freq[1], freq[2]
    i = _first_at_least(over_at, 0, len(over_at), pos)
    return float(over[i]) if i < len(over_at) and over_at[i] == pos else tf


@njit(cache=True, nogil=True)
def _probe_blocks(row: np.ndarray, doc: int, blocks: tuple, freq: tuple) -> float:
    """The frequency of a block-coded term at `doc` (0 where absent): one block decoded up to it."""
    heads, widths, spos, d1, d2, d4 = blocks
    tfs = freq[0]
    b0, nb, n, lo = row[1], row[2], row[3], row[4]
    blk = _block_of(heads, b0, nb, doc)
    cur, s, wd = np.int64(heads[b0 + blk]), np.int64(spos[b0 + blk]), int(widths[b0 + blk])
    for j in range(min(BLOCK, n - blk * BLOCK)):
        if j:
            cur += _gap(wd, d1, d2, d4, int(s + j))
        if cur >= doc:
            if cur > doc:
                return 0.0
            pos = int(lo + blk * BLOCK + j)
            tf = float(tfs[pos])
            return tf if tf < TF_CAP else _capped(freq, pos, tf)
    return 0.0


@njit(cache=True, nogil=True)
def probe(t: int, doc: int, meta: np.ndarray, exact: tuple, blocks: tuple, freq: tuple, scoring: tuple) -> float:
    """Term t's contribution at `doc` (0 where it does not occur)."""
    row = meta[t]
    if row[0] == EXACT:
        ex_docs, ex_contrib = exact
        i = _first_at_least(ex_docs, row[5], row[6], doc)
        return ex_contrib[i] if i < row[6] and ex_docs[i] == doc else 0.0
    if row[0] != BLOCKS:
        return 0.0
    tf = _probe_blocks(row, doc, blocks, freq)
    if tf == 0.0:
        return 0.0
    doc_len, idfs, k1, b, avgdl = scoring
    return contribution(tf, float(doc_len[doc]), idfs[t], k1, b, avgdl)


@njit(cache=True, nogil=True)
def _read_blocks(t: int, first: int, meta: np.ndarray, blocks: tuple, freq: tuple, scoring: tuple,
                 ok: np.ndarray, acc: np.ndarray, hit: np.ndarray) -> None:
    """Add a block-coded term's contributions to the allowed documents of [first, first + WINDOW)."""
    heads, widths, spos, d1, d2, d4 = blocks
    tfs = freq[0]
    doc_len, idfs, k1, b, avgdl = scoring
    row = meta[t]
    b0, nb, n, lo = row[1], row[2], row[3], row[4]
    end = first + WINDOW
    blk = _block_of(heads, b0, nb, first)
    while blk < nb and heads[b0 + blk] < end:
        doc, s, wd = np.int64(heads[b0 + blk]), np.int64(spos[b0 + blk]), int(widths[b0 + blk])
        for j in range(min(BLOCK, n - blk * BLOCK)):
            if j:
                doc += _gap(wd, d1, d2, d4, int(s + j))
            if doc >= end:
                break
            if doc >= first and ok[doc]:
                pos = int(lo + blk * BLOCK + j)
                tf = float(tfs[pos])
                if tf >= TF_CAP:
                    tf = _capped(freq, pos, tf)
                acc[doc - first] += contribution(tf, float(doc_len[doc]), idfs[t], k1, b, avgdl)
                hit[doc - first] = True
        blk += 1


@njit(cache=True, nogil=True)
def _read_exact(row: np.ndarray, first: int, exact: tuple, ok: np.ndarray, acc: np.ndarray, hit: np.ndarray) -> None:
    """Add a term's prepared contributions to the allowed documents of [first, first + WINDOW)."""
    ex_docs, ex_contrib = exact
    i = _first_at_least(ex_docs, row[5], row[6], first)
    while i < row[6] and ex_docs[i] < first + WINDOW:
        doc = ex_docs[i]
        if ok[doc]:
            acc[doc - first] += ex_contrib[i]
            hit[doc - first] = True
        i += 1


@njit(cache=True, nogil=True)
def _essential(bounds: np.ndarray, w: int, cut: float, rank: np.ndarray, essential: np.ndarray) -> float:
    """Order the terms by their bound in window w (weakest first, into `rank`); mark those the
    window must read, and return the sum of the others' bounds (what probing can still add)."""
    nt = len(rank)
    for i in range(nt):
        rank[i] = i
    for i in range(1, nt):
        x, j = rank[i], i - 1
        while j >= 0 and bounds[rank[j], w] > bounds[x, w]:
            rank[j + 1] = rank[j]
            j -= 1
        rank[j + 1] = x
    rest = 0.0
    for i in range(nt):
        t = rank[i]
        if rest + bounds[t, w] < cut:
            rest += bounds[t, w]
            essential[t] = False
        else:
            essential[t] = bounds[t, w] > 0.0
    return rest


@njit(cache=True, nogil=True)
def kth(scores: np.ndarray, k: int) -> float:
    """The k-th best of `scores` (0 while there are fewer)."""
    n = len(scores)
    return float(np.partition(scores, n - k)[n - k]) if n >= k else 0.0


@njit(cache=True, nogil=True)
def _compact(cand_d: np.ndarray, cand_s: np.ndarray, size: int, theta: float) -> int:
    """Keep the candidates at or above the k-th score (ties included); returns how many."""
    kept = 0
    for i in range(size):
        if cand_s[i] >= theta * SLACK:
            cand_d[kept], cand_s[kept] = cand_d[i], cand_s[i]
            kept += 1
    return kept


@njit(cache=True, nogil=True)
def _gather(acc: np.ndarray, hit: np.ndarray, at: np.ndarray, scores: np.ndarray) -> int:
    """The window's documents the essential terms found (positions in the window, partial
    scores) into at/scores, the work arrays cleared; returns how many."""
    n = 0
    for i in range(WINDOW):
        if hit[i]:
            at[n], scores[n] = i, acc[i]
            acc[i], hit[i] = 0.0, False
            n += 1
    return n


@njit(cache=True, nogil=True)
def _prune(at: np.ndarray, scores: np.ndarray, n: int, left: float, cut: float) -> int:
    """Keep the documents that can still reach `cut` with `left` more; returns how many."""
    kept = 0
    for i in range(n):
        if scores[i] + left >= cut:
            at[kept], scores[kept] = at[i], scores[i]
            kept += 1
    return kept


@njit(cache=True, nogil=True)
def _add_term(t: int, first: int, at: np.ndarray, scores: np.ndarray, n: int, meta: np.ndarray, data: tuple,
              ok: np.ndarray, acc: np.ndarray, hit: np.ndarray) -> None:
    """Add optional term t to the n documents: probed one by one when they are few, else its
    postings in the window read once (a common term's: cheaper than a block decode per document)."""
    exact, blocks, freq, scoring = data
    if n < DENSE_MIN:
        for i in range(n):
            scores[i] += probe(t, first + at[i], meta, exact, blocks, freq, scoring)
        return
    if meta[t, 0] == BLOCKS:
        _read_blocks(t, first, meta, blocks, freq, scoring, ok, acc, hit)
    else:
        _read_exact(meta[t], first, exact, ok, acc, hit)
    for i in range(n):
        scores[i] += acc[at[i]]
    acc[:] = 0.0
    hit[:] = False


@njit(cache=True, nogil=True)
def _finish_window(w: int, rest: float, cut: float, bounds: np.ndarray, meta: np.ndarray, data: tuple,
                   ok: np.ndarray, work: tuple) -> int:
    """The window's documents that reach `cut` once its optional terms are probed, heaviest
    first (into work's at/scores); returns how many. Starts from what `_read_window` gathered."""
    acc, hit, rank, essential, at, scores = work
    n = _gather(acc, hit, at, scores)
    left = rest
    for r in range(len(rank) - 1, -1, -1):
        t = rank[r]
        if essential[t] or bounds[t, w] <= 0.0:
            continue
        n = _prune(at, scores, n, left, cut)
        if n == 0:
            return 0
        _add_term(t, w * WINDOW, at, scores, n, meta, data, ok, acc, hit)
        left -= bounds[t, w]
    return _prune(at, scores, n, left, cut)


@njit(cache=True, nogil=True)
def _read_window(w: int, cut: float, bounds: np.ndarray, meta: np.ndarray, data: tuple, ok: np.ndarray,
                 work: tuple) -> float:
    """Read window w's essential terms into the work arrays; returns what the others can add."""
    exact, blocks, freq, scoring = data
    acc, hit, rank, essential = work[0], work[1], work[2], work[3]
    rest = _essential(bounds, w, cut, rank, essential)
    for t in range(len(rank)):
        if essential[t]:
            if meta[t, 0] == BLOCKS:
                _read_blocks(t, w * WINDOW, meta, blocks, freq, scoring, ok, acc, hit)
            elif meta[t, 0] == EXACT:
                _read_exact(meta[t], w * WINDOW, exact, ok, acc, hit)
    return rest


@njit(cache=True, nogil=True)
def search_group(order: np.ndarray, pos: int, stop: int, reach: np.ndarray, bounds: np.ndarray,
                 meta: np.ndarray, data: tuple, ok: np.ndarray, k: int, cand_d: np.ndarray, cand_s: np.ndarray,
                 size: int, theta: float) -> tuple:
    """Windows order[pos:stop] of one group, best
    reach first, each skipped once it cannot reach the k-th score. Returns (next position,
    candidates held, k-th score, allowed documents matched, candidate arrays, stopped:
    no window left could reach the k-th score)."""
    nt = len(meta)
    work = (np.zeros(WINDOW), np.zeros(WINDOW, dtype=np.bool_), np.zeros(nt, dtype=np.int64),
            np.zeros(nt, dtype=np.bool_), np.zeros(WINDOW, dtype=np.int64), np.zeros(WINDOW))
    hit, at, scores = work[1], work[4], work[5]
    seen = 0
    settled = 0  # candidates held when the k-th score was last taken
    while pos < stop:
        w = order[pos]
        cut = theta * SLACK
        if reach[w] < cut:
            return pos, size, theta, seen, cand_d, cand_s, True
        pos += 1
        rest = _read_window(w, cut, bounds, meta, data, ok, work)
        seen += int(np.count_nonzero(hit))
        n = _finish_window(w, rest, cut, bounds, meta, data, ok, work)
        while size + n > len(cand_d):
            cand_d, cand_s = np.concatenate((cand_d, cand_d)), np.concatenate((cand_s, cand_s))
        for i in range(n):
            cand_d[size], cand_s[size] = w * WINDOW + at[i], scores[i]
            size += 1
        if size >= k and size - settled >= max(k, settled // 4):  # amortized: ties can hold thousands
            theta = max(theta, kth(cand_s[:size], k))
            if size > 4 * k + 256:
                size = _compact(cand_d, cand_s, size, theta)
            settled = size
    return pos, size, theta, seen, cand_d, cand_s, False


@njit(cache=True, nogil=True)
def _decode_block(row: np.ndarray, blk: int, blocks: tuple, out: np.ndarray) -> int:
    """The doc ids of block `blk` of a block-coded term into `out`; returns how many."""
    heads, widths, spos, d1, d2, d4 = blocks
    b0, n = row[1], row[3]
    cur, s, wd = np.int64(heads[b0 + blk]), np.int64(spos[b0 + blk]), int(widths[b0 + blk])
    m = min(BLOCK, n - blk * BLOCK)
    for j in range(m):
        if j:
            cur += _gap(wd, d1, d2, d4, int(s + j))
        out[j] = cur
    return m


@njit(cache=True, nogil=True)
def _add_sorted(t: int, docs: np.ndarray, m: int, scores: np.ndarray, meta: np.ndarray, data: tuple,
                buf: np.ndarray) -> None:
    """Add term t's contribution at each of docs[:m] (increasing), walking its blocks forward
    beside them: a block is decoded once for all the documents that fall in it, not searched
    and decoded once per document as `probe` does."""
    exact, blocks, freq, scoring = data
    row = meta[t]
    if row[0] != BLOCKS:
        for j in range(m):
            scores[j] += probe(t, docs[j], meta, exact, blocks, freq, scoring)
        return
    doc_len, idfs, k1, b, avgdl = scoring
    heads, tfs, b0, nb, lo = blocks[0], freq[0], row[1], row[2], row[4]
    held, count, at, blk = -1, 0, 0, 0
    for j in range(m):
        doc = docs[j]
        while blk + 1 < nb and heads[b0 + blk + 1] <= doc:  # forward only: at most once over the blocks
            blk += 1
        if blk != held:
            held, count, at = blk, _decode_block(row, blk, blocks, buf), 0
        while at < count and buf[at] < doc:
            at += 1
        if at < count and buf[at] == doc:
            pos = int(lo + blk * BLOCK + at)
            tf = float(tfs[pos])
            if tf >= TF_CAP:
                tf = _capped(freq, pos, tf)
            scores[j] += contribution(tf, float(doc_len[doc]), idfs[t], k1, b, avgdl)


@njit(cache=True, nogil=True)
def _keep(docs: np.ndarray, scores: np.ndarray, rest: np.ndarray, m: int, cut: float) -> int:
    """Keep the documents whose score plus what can still come reaches `cut`; returns how many."""
    kept = 0
    for j in range(m):
        if scores[j] + rest[j] >= cut:
            docs[kept], scores[kept], rest[kept] = docs[j], scores[j], rest[j]
            kept += 1
    return kept


@njit(cache=True, nogil=True)
def _term_docs(t: int, rest_w: np.ndarray, cut: float, read: np.ndarray, meta: np.ndarray, data: tuple,
               ok: np.ndarray, found: tuple) -> tuple:
    """Term t's allowed documents outside the windows `read`, each taken out of `ok`; into
    `found` (docs, its contribution, what the other terms can add in its window) those that can
    reach `cut`. Returns (how many kept, how many looked at)."""
    _, blocks, freq, scoring = data
    doc_len, idfs, k1, b, avgdl = scoring
    docs, scores, rest = found
    row, tfs = meta[t], freq[0]
    buf = np.empty(BLOCK, np.int64)
    m = seen = 0
    for blk in range(row[2]):
        count = _decode_block(row, blk, blocks, buf)
        for j in range(count):
            doc = buf[j]
            w = doc // WINDOW
            if read[w] or not ok[doc]:
                continue
            ok[doc] = False
            seen += 1
            pos = int(row[4] + blk * BLOCK + j)
            tf = float(tfs[pos])
            if tf >= TF_CAP:
                tf = _capped(freq, pos, tf)
            c = contribution(tf, float(doc_len[doc]), idfs[t], k1, b, avgdl)
            if c + rest_w[w] >= cut:
                docs[m], scores[m], rest[m] = doc, c, rest_w[w]
                m += 1
    return m, seen


@njit(cache=True, nogil=True)
def whole_term(t: int, others: np.ndarray, theta: float, k: int, bounds: np.ndarray, read: np.ndarray,
               meta: np.ndarray, data: tuple, ok: np.ndarray, cand_d: np.ndarray, cand_s: np.ndarray,
               size: int) -> tuple:
    """Rank every allowed document of block-coded term t outside the windows already `read`,
    at once (`windows._whole_term`, compiled): its contribution, then the `others` (heaviest
    first) added where their window bounds still let a document reach the k-th score. Each
    such document is taken out of `ok` (a copy the caller owns), so a window read later does
    not find it again. With no k-th score yet (0), the k-th best of the partial sums is a floor
    of it. Returns (candidates held, k-th score, its documents looked at, candidate arrays)."""
    rest_w = np.zeros(bounds.shape[1])
    for i in others:
        rest_w += bounds[i]
    n = meta[t, 3]
    docs, scores, rest = np.empty(n, np.int64), np.empty(n), np.empty(n)
    floors = theta == 0.0
    m, seen = _term_docs(t, rest_w, -np.inf if floors else theta * SLACK, read, meta, data, ok,
                         (docs, scores, rest))
    if floors:
        theta = kth(scores[:m].copy(), k)
        m = _keep(docs, scores, rest, m, theta * SLACK)
    buf = np.empty(BLOCK, np.int64)
    for i in others:
        _add_sorted(i, docs, m, scores, meta, data, buf)
        for j in range(m):
            rest[j] -= bounds[i, docs[j] // WINDOW]
        if floors:
            theta = max(theta, kth(scores[:m].copy(), k))
        m = _keep(docs, scores, rest, m, theta * SLACK)
    while size + m > len(cand_d):
        cand_d, cand_s = np.concatenate((cand_d, cand_d)), np.concatenate((cand_s, cand_s))
    cand_d[size:size + m], cand_s[size:size + m] = docs[:m], scores[:m]
    size += m
    if size >= k:
        theta = max(theta, kth(cand_s[:size].copy(), k))
    return size, theta, seen, cand_d, cand_s
