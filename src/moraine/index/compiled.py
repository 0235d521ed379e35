"""The compiled backend of the window search: `score_windows`' contract (the exact top k, ties
with the k-th included, how many documents matched, whether that count is exact), answered
by the numba kernel in `kernel.py` over the segments' own arrays.

numba is optional (`pip install 'moraine[fast]'`; `[search] backend`). `load` imports the kernel
(numba compiles it on first use, or loads it from its cache under `$MORAINE_HOME/cache/numba`);
`warm` runs it once on a tiny input so no query pays the compilation. The daemon does both in the
background and answers with numpy meanwhile; a one-shot command uses numpy unless `backend` is
"numba" (importing numba and loading the kernel take longer than one query saves). The numpy
path (`windows.py`) stays the reference: a seeded test compares both over a thousand queries of
every shape.

The work is cut by group: a segment (its postings scored in the kernel where they keep window
bounds, the rest prepared here as (doc, contribution) pairs) or the memtable (all prepared).
A document's postings all lie in one group, so each group's scores are exact on their own;
the groups are read best reach first and share the candidates and the k-th score.
"""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys
import time
import weakref
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import Any

import numpy as np

from moraine.durable import write_file
from moraine.errors import DeadlineExceeded
from moraine.index.bm25 import term_scores
from moraine.index.postings import Blocks
from moraine.index.segment import Segment
from moraine.index.windows import (
    SLACK,
    SWITCH_AFTER,
    WHOLE_TERM_LIMIT,
    WINDOW,
    Piece,
    _by_reach,
    _raise_to,
    worth_whole,
)

COMPILE_NICE = 10  # the compiling child yields the CPU to the daemon and the agents
COMPILE_TIMEOUT_S = 600
STAMP_FILE = "moraine-kernel.stamp"  # written by the compiling child once every function is in the cache
CHUNK = 256  # windows per kernel call: between calls the deadline is checked
FIRST_CAPACITY = 1024  # candidates held before the kernel grows its arrays

ABSENT, BLOCKS, EXACT = 0, 1, 2  # a term's mode in a group: `kernel.py` reads `meta[t, 0]` so
Part = tuple[Segment | None, int, Piece]  # (segment or None for the memtable, term index there, the piece)



def _fixed(array: Any, dtype: type) -> np.ndarray:
    """A read-only plain-ndarray view of `array` as `dtype`: the kernel then sees one type for
    every segment, mapped from disk or sealed in memory (each type would be compiled apart)."""
    view = np.asarray(array, dtype=dtype).view(np.ndarray)
    view.flags.writeable = False
    return view


_BLOCK_TYPES = (np.uint32, np.uint8, np.int64, np.uint8, np.uint16, np.uint32)  # heads widths spos d1 d2 d4
_FREQ_TYPES = (np.uint8, np.int64, np.uint32)  # tfs, tf_over_at, tf_over
_EMPTY_BLOCKS = tuple(_fixed(np.zeros(1), t) for t in _BLOCK_TYPES)
_EMPTY_FREQ = (_fixed(np.zeros(1), np.uint8), _fixed(np.zeros(0), np.int64), _fixed(np.zeros(0), np.uint32))
# Per segment's Blocks (by identity: they hold arrays, so they do not hash), its arrays as the kernel reads them.
_arrays: dict[int, tuple[weakref.ref[Blocks], tuple[np.ndarray, ...]]] = {}


def available() -> bool:
    """Whether numba can be imported (without importing it)."""
    import importlib.util

    return importlib.util.find_spec("numba") is not None


def load(cache_dir: Path | None) -> ModuleType | None:
    """The compiled kernel, or None without numba. Its cache goes to `cache_dir` (honoured
    only if numba was not imported before in this process)."""
    if not available():
        return None
    if cache_dir is not None:
        cache_dir.mkdir(parents=True, exist_ok=True)
        os.environ.setdefault("NUMBA_CACHE_DIR", str(cache_dir))
    from moraine.index import kernel

    return kernel


def prepare(cache_dir: Path, before_load: Callable[[], object] = lambda: None) -> ModuleType | None:
    """The kernel ready to search, None without numba. An empty cache is filled by a child
    process first (`python -m moraine.index.compiled DIR`, at a lower priority): numba's
    compilation holds the GIL for seconds at a time, a minute under load, and a daemon's
    calls would wait on it. Loading from the cache then takes half a second to a few seconds
    of this process's CPU, once `before_load` returns (a daemon's first pass goes first)."""
    if not available():
        return None
    cache_dir.mkdir(parents=True, exist_ok=True)
    used = Path(os.environ.setdefault("NUMBA_CACHE_DIR", str(cache_dir)))  # the first one set stays numba's
    if not _fresh(used):
        child = subprocess.Popen([sys.executable, "-m", "moraine.index.compiled", str(used), str(os.getpid())],
                                 env={**os.environ, "NUMBA_CACHE_DIR": str(used)},
                                 stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        with contextlib.suppress(OSError):
            os.setpriority(os.PRIO_PROCESS, child.pid, COMPILE_NICE)
        _, err = child.communicate(timeout=COMPILE_TIMEOUT_S)
        if child.returncode:
            raise RuntimeError(f"compiling the search kernel failed: {err.decode(errors='replace')[-500:]}")
    before_load()
    kernel = load(used)
    if kernel is not None:
        warm(kernel)
    return kernel


def _stamp() -> str:
    """What numba checks a cached function against (the source file's mtime and size, its own
    version), and the Python it runs in: a cache made for another is compiled again."""
    from importlib.metadata import version

    source = os.stat(Path(__file__).with_name("kernel.py"))
    return f"{source.st_mtime} {source.st_size} numba {version('numba')} {sys.version}"


def _fresh(used: Path) -> bool:
    """Whether the cache holds this kernel, compiled by `prepare`'s child for this source, numba
    and Python. Without this check an upgraded Moraine would find the old entries, load them,
    and numba would compile the new kernel in the daemon itself, holding the GIL for a minute."""
    try:
        return (used / STAMP_FILE).read_text() == _stamp()
    except OSError:
        return False


def warm(kernel: ModuleType) -> None:
    """Compile (or load from the cache) every function a search calls, on a tiny input."""
    docs = np.arange(0, 2 * WINDOW, 7, dtype=np.int64)
    ok = np.ones(2 * WINDOW, dtype=np.bool_)
    doc_len = _fixed(np.full(2 * WINDOW, 10), np.uint32)
    contrib = np.linspace(0.1, 1.0, len(docs))
    exact_only = _Group(None, np.zeros((1, 2)), np.zeros((1, 7), np.int64), [docs], [contrib], _EMPTY_BLOCKS,
                        _EMPTY_FREQ)
    exact_only.meta[0] = (EXACT, 0, 0, 0, 0, 0, len(docs))
    _raise_to(exact_only.bounds[0], docs // WINDOW, contrib)
    run = _Run(kernel, ok, doc_len, 1, (1.2, 0.75, 10.0), None)
    run.group(exact_only)


@dataclass
class _Group:
    """One segment's (or the memtable's) inputs to the kernel for one query."""

    segment: Segment | None
    bounds: np.ndarray  # (terms, windows): what each term can add to a document of a window
    meta: np.ndarray  # per term (mode, first block, blocks, postings, first posting, exact start, exact end)
    ex_docs: list[np.ndarray] = field(default_factory=list)
    ex_contrib: list[np.ndarray] = field(default_factory=list)
    blocks: tuple[np.ndarray, ...] = _EMPTY_BLOCKS
    freq: tuple[np.ndarray, ...] = _EMPTY_FREQ
    held: int = 0  # prepared pairs so far
    pairs: dict[int, list[tuple[np.ndarray, np.ndarray]]] = field(default_factory=dict)  # per term, as added

    def add_exact(self, t: int, docs: np.ndarray, contrib: np.ndarray) -> None:
        if len(docs) > 1 and bool(np.any(docs[1:] < docs[:-1])):
            order = np.argsort(docs, kind="stable")
            docs, contrib = docs[order], contrib[order]
        row = self.meta[t]
        if row[0] != EXACT:
            row[:] = (EXACT, 0, 0, 0, 0, self.held, self.held)
        elif row[6] != self.held:  # a term's pairs are contiguous: its parts arrive together
            raise AssertionError("a term's prepared parts must be added one after another")
        self.ex_docs.append(docs)
        self.ex_contrib.append(contrib)
        self.pairs.setdefault(t, []).append((docs, contrib))
        self.held += len(docs)
        row[6] = self.held
        _raise_to(self.bounds[t], docs // WINDOW, contrib)


def _segment_arrays(segment: Segment) -> tuple[tuple[np.ndarray, ...], tuple[np.ndarray, ...]] | None:
    """The block arrays and frequencies the kernel reads, when the segment has the current layout."""
    docs = segment.docs
    if not isinstance(docs, Blocks) or segment.tfs.dtype != np.uint8:
        return None
    held = _arrays.get(id(docs))
    if held is not None and held[0]() is docs:
        arrays = held[1]
    else:
        arrays = tuple(_fixed(getattr(docs, name), t)
                       for name, t in zip(("heads", "widths", "spos", "d1", "d2", "d4"), _BLOCK_TYPES, strict=True))
        for key in [key for key, (ref, _) in _arrays.items() if ref() is None]:
            del _arrays[key]
        _arrays[id(docs)] = (weakref.ref(docs), arrays)
    freq = tuple(_fixed(getattr(segment, name), t)
                 for name, t in zip(("tfs", "tf_over_at", "tf_over"), _FREQ_TYPES, strict=True))
    return arrays, freq


def groups(terms: list[tuple[float, list[Part]]], doc_len: np.ndarray, n_windows: int,
           params: tuple[float, float, float]) -> list[_Group]:
    """The query's groups, each with its terms' bound rows and the pairs prepared here."""
    k1, b, avgdl = params
    by_key: dict[int, _Group] = {}
    nt = len(terms)
    for t, (term_idf, parts) in enumerate(terms):
        weight = term_idf * (k1 + 1.0)
        for segment, i, piece in parts:
            group = by_key.get(id(segment))
            if group is None:
                group = _Group(segment, np.zeros((nt, n_windows)), np.zeros((nt, 7), np.int64))
                arrays = _segment_arrays(segment) if segment is not None else None
                if arrays is not None:
                    group.blocks, group.freq = arrays
                by_key[id(segment)] = group
            if piece.bound is not None and segment is not None and group.blocks is not _EMPTY_BLOCKS:
                blocks = segment.docs
                assert isinstance(blocks, Blocks)
                lo, hi = int(segment.offsets[i]), int(segment.offsets[i + 1])
                b0 = int(blocks.term_blocks[i])
                group.meta[t] = (BLOCKS, b0, int(blocks.term_blocks[i + 1]) - b0, hi - lo, lo, 0, 0)
                span = slice(piece.first_window, piece.first_window + len(piece.bound))
                np.maximum(group.bounds[t, span], piece.bound * weight, out=group.bounds[t, span])
            else:
                d = np.asarray(piece.docs.full(), dtype=np.int64)
                group.add_exact(t, d, term_scores(piece.tfs, doc_len[d], term_idf, avgdl, k1, b))
    return list(by_key.values())


class _Run:
    """One query's pass over its groups: the shared candidates and k-th score."""

    def __init__(self, kernel: ModuleType, ok: np.ndarray, doc_len: np.ndarray, k: int,
                 params: tuple[float, float, float], deadline: float | None, idfs: np.ndarray | None = None) -> None:
        self.kernel, self.ok, self.doc_len, self.k = kernel, ok, doc_len, k
        self.owns_ok = False  # `ok` is copied before a term ranked whole takes documents out of it
        self.params, self.deadline = params, deadline
        self.idfs = idfs if idfs is not None else np.ones(1)
        self.cand_d, self.cand_s = np.zeros(FIRST_CAPACITY, np.int64), np.zeros(FIRST_CAPACITY)
        self.size, self.theta, self.seen = 0, 0.0, 0

    def group(self, group: _Group) -> None:
        reach = group.bounds.sum(axis=0)
        order = _by_reach(reach, self.theta * SLACK)
        exact = (np.concatenate(group.ex_docs) if group.ex_docs else np.zeros(1, np.int64),
                 np.concatenate(group.ex_contrib) if group.ex_contrib else np.zeros(1))
        k1, b, avgdl = self.params
        data = (exact, group.blocks, group.freq, (self.doc_len, self.idfs, k1, b, avgdl))
        pos, may_switch = 0, True
        while pos < len(order):
            if self.deadline is not None and time.monotonic() > self.deadline:
                raise DeadlineExceeded
            stop = min(pos + (CHUNK if pos else SWITCH_AFTER), len(order))  # first: what is read before a switch
            pos, self.size, self.theta, seen, self.cand_d, self.cand_s, stopped = self.kernel.search_group(
                order, pos, stop, reach, group.bounds, group.meta, data, self.ok, self.k,
                self.cand_d, self.cand_s, self.size, self.theta)
            self.seen += seen
            if stopped:
                break
            if may_switch and pos == SWITCH_AFTER:
                may_switch = False
                t = self._whole_pays(order[pos:], reach, group)
                if t is not None:
                    reach = self._whole(t, order[:pos], group, data)
                    order, pos = _by_reach(reach, self.theta * SLACK), 0

    def _whole_pays(self, left: np.ndarray, reach: np.ndarray, group: _Group) -> int | None:
        """The term to rank whole in this group past its first chunk (`windows.worth_whole`),
        None to read on: every term keeps window bounds here, and so many windows can still
        reach the k-th score that ranking the rarest term's documents at once is cheaper (a
        query of common words; at 1M 'test is' would read 5,010 of 5,022 windows)."""
        if not bool(np.all(group.meta[:, 0] == BLOCKS)):
            return None
        live = int(np.count_nonzero(reach[left] >= self.theta * SLACK))
        if not worth_whole(live, len(left) + SWITCH_AFTER, len(group.meta)):
            return None
        t = int(np.argmax(self.idfs))  # the rarest
        return t if group.meta[t, 3] <= WHOLE_TERM_LIMIT else None

    def _whole(self, t: int, done: np.ndarray, group: _Group, data: tuple) -> np.ndarray:
        """Rank term t's documents whole (`kernel.whole_term`); returns the reach left to the
        windows not read yet: what a document lacking t can score there."""
        read = np.zeros(group.bounds.shape[1], dtype=np.bool_)
        read[done] = True
        if not self.owns_ok:
            self.ok, self.owns_ok = self.ok.copy(), True
        others = np.array(sorted((i for i in range(len(group.meta)) if i != t), key=lambda i: -self.idfs[i]),
                          dtype=np.int64)
        self.size, self.theta, seen, self.cand_d, self.cand_s = self.kernel.whole_term(
            t, others, self.theta, self.k, group.bounds, read, group.meta, data, self.ok,
            self.cand_d, self.cand_s, self.size)
        self.seen += seen
        group.bounds[t] = 0.0  # its documents are ranked: the windows left hold documents lacking it
        return np.where(read, 0.0, group.bounds.sum(axis=0))

    def result(self) -> tuple[np.ndarray, np.ndarray, int, bool]:
        docs, scores = self.cand_d[: self.size], self.cand_s[: self.size]
        if self.size >= self.k:
            self.theta = max(self.theta, self.kernel.kth(scores.copy(), self.k))
        keep = scores >= self.theta * SLACK
        return docs[keep].copy(), scores[keep].copy(), self.seen, self.theta == 0.0


def score_windows(kernel: ModuleType, terms: list[tuple[float, list[Part]]], ok: np.ndarray, doc_len: np.ndarray,
                  k: int, k1: float, b: float, avgdl: float, deadline: float | None
                  ) -> tuple[np.ndarray, np.ndarray, int, bool]:
    """`windows.score_windows` with the kernel: (candidate docs, raw scores, matches seen, exact)."""
    n_windows = (len(ok) + WINDOW - 1) // WINDOW
    params = (k1, b, avgdl)
    todo = groups(terms, doc_len, n_windows, params)
    todo.sort(key=lambda g: -float(g.bounds.sum(axis=0).max(initial=0.0)))
    run = _Run(kernel, np.asarray(ok, np.bool_), _fixed(doc_len, np.uint32), k, params, deadline,
               np.array([idf for idf, _ in terms], dtype=np.float64))
    run.theta = _floor(todo, len(terms), ok, k)
    for group in todo:
        run.group(group)
    return run.result()


def _floor(todo: list[_Group], n_terms: int, ok: np.ndarray, k: int) -> float:
    """A k-th score to start from: k documents holding one term score at least that term's
    k-th best contribution among them, so the k-th best of any term's prepared pairs (a rare
    term's, free here) is a floor under the answer's k-th score; windows below it are never
    read. 0 when no term has k prepared pairs."""
    best = 0.0
    for t in range(n_terms):
        pairs = [pair for g in todo for pair in g.pairs.get(t, ())]
        if sum(len(d) for d, _ in pairs) < k:
            continue
        contrib = np.concatenate([c[ok[d]] for d, c in pairs])
        if len(contrib) >= k:
            best = max(best, float(np.partition(contrib, len(contrib) - k)[len(contrib) - k]))
    return best


if __name__ == "__main__":  # `prepare`'s child: compile every kernel function into the cache named
    from moraine.pool import end_with_parent

    end_with_parent(int(sys.argv[2]))  # a daemon killed with SIGKILL leaves no compiler behind
    target = Path(sys.argv[1])
    compiled_kernel = load(target)
    if compiled_kernel is None:
        sys.exit("numba is not installed")
    warm(compiled_kernel)
    write_file(target / STAMP_FILE, _stamp().encode())
