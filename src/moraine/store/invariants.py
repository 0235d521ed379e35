"""The invariants tying catalog, index, sessions and checkpoints together: asserted by the
stress and crash tests after every operation (O(n); never on a production path)."""

from __future__ import annotations

import itertools
from pathlib import Path

import numpy as np

from moraine.store import columns
from moraine.store.state import GROWING, State


def check_invariants(state: State, home: Path) -> None:
    c, ix = state.catalog, state.index
    n = len(c.content)
    assert all(getattr(c, name).size == n for name in c.COLUMNS), "catalog columns out of step"
    assert ix.doc_len.size == ix.live.size == n, "index columns out of step with the catalog"
    alive, live, lens = c.alive.view, ix.live.view, ix.doc_len.view
    assert not np.any(live & ~alive), "a retired event is still searchable"
    assert np.array_equal(live, alive & (lens > 0)), "live postings disagree with alive, indexed docs"
    assert ix.n_docs == int(np.count_nonzero(live))
    assert ix.total_len == int(lens[live].sum(dtype=np.int64))
    uids = c.uid.view[alive]
    assert len(np.unique(uids)) == len(uids), "two live events share a uid"
    for doc in np.flatnonzero(alive)[:: max(1, n // 2000)].tolist():
        assert c.by_uid.get(c.uid.view[doc].decode("ascii")) == doc, "uid index disagrees"
    in_sessions = sorted(d for s in c.sessions for d in s.docs)
    assert in_sessions == np.flatnonzero(alive).tolist(), "sessions do not hold exactly the live events"
    for sx, session in enumerate(c.sessions):
        assert all(int(c.session_ix.view[d]) == sx for d in session.docs)
        keys = c.ordered(session)
        assert len(keys) == len(session.docs) and keys == sorted(keys), f"session {sx} out of order"
        assert (session in c.by_updated) == bool(session.docs)
    previous = -1
    for segment in ix.segments:
        assert np.all(np.diff(segment.offsets) >= 0) and int(segment.offsets[-1]) == segment.n_postings
        assert np.all(segment.terms[1:] > segment.terms[:-1]), "segment terms not sorted"
        if len(segment.doc_ids):
            assert int(segment.doc_ids[0]) > previous, "segments overlap"
            previous = int(segment.doc_ids[-1])
    for path, cp in state.checkpoints.items():
        assert 0 <= cp.offset <= max(cp.size, cp.offset) and cp.generation >= 1, path
    _check_column_parts(state, home)


def _check_column_parts(state: State, home: Path) -> None:
    """The published parts of the growing columns still hold what memory holds: a row changed
    in place after it was published would be lost at the next open."""
    parts = state.column_parts
    assert not parts or parts[0].first == 0, "column parts do not start at row 0"
    assert all(a.end == b.first for a, b in itertools.pairwise(parts)), "column parts leave a gap"
    memory = {"idx.doc_len": state.index.doc_len.view} | \
        {f"cat.{name}": getattr(state.catalog, name).view for name in state.catalog.GROWING}
    for name, pieces in columns.read(home, parts, GROWING).items():
        for part, piece in zip(parts, pieces, strict=True):
            if piece is None:
                continue  # a column newer than the part: the generation holds it, or it reads -1
            held = memory[name][part.first:part.end]
            if name == "cat.nlines":  # -1 published: counted in memory since (a state older than it)
                held = np.where(piece == -1, -1, held)
            assert np.array_equal(piece, held), \
                f"{name} rows {part.first}-{part.end} changed after they were published"
