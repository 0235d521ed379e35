"""Turn building: the session-wide array version equals a per-turn reading of the rules."""

from __future__ import annotations

import random
from collections.abc import Callable
from pathlib import Path

import numpy as np

from moraine.model import TERMINAL_ABORT, TERMINAL_FINISH, TYPE_CODE
from moraine.store.engine import Store
from moraine.store.turns import SMALL_TURN, Turn, build_turns, one_turn

USER, ASSISTANT = TYPE_CODE["user_input"], TYPE_CODE["assistant_response"]
OTHER = [TYPE_CODE[t] for t in ("tool_call", "tool_response", "reasoning", "system", "runtime")]


def _oracle(ordinal: int, lo: int, hi: int, is_last: bool, docs: np.ndarray, types: np.ndarray,
            marks: np.ndarray, comment: np.ndarray, times: np.ndarray) -> Turn:
    """The rules one turn at a time (the catalog's earlier implementation)."""
    t, m = types[lo:hi], marks[lo:hi]
    users = np.flatnonzero(t == USER)
    answers = np.flatnonzero(t == ASSISTANT)
    finals = answers[~comment[lo:hi][answers]] if len(answers) else answers
    finals = finals if len(finals) else answers
    markers = np.flatnonzero(m)
    terminal = final = None
    if len(markers):
        last = int(markers[-1])
        final = int(finals[-1]) if len(finals) else None
        terminal = final if m[last] == TERMINAL_FINISH and final is not None else last
    elif not is_last and len(finals):
        terminal = final = int(finals[-1])

    def doc(p: int | None) -> int | None:
        return int(docs[lo + p]) if p is not None else None

    known = [int(t) for t in times[lo:hi] if t > 0]
    prompt = int(times[lo + users[0]]) if len(users) else 0
    started = prompt if prompt > 0 else min(known) if known else 0  # the prompt's time; 0 is no time
    return Turn(ordinal=ordinal, start=lo, end=hi, completed=terminal is not None, terminal_doc=doc(terminal),
                user_doc=doc(int(users[0])) if len(users) else None, final_doc=doc(final),
                started_ms=started, updated_ms=int(times[lo:hi].max()))


def test_build_turns_equals_the_per_turn_rules() -> None:
    rng = random.Random(2)
    for _ in range(3000):
        n = rng.randint(1, 60)
        types = np.array([rng.choice([USER, ASSISTANT, ASSISTANT, *OTHER]) for _ in range(n)], dtype=np.uint8)
        marks = np.array([rng.choice([0] * 8 + [TERMINAL_FINISH, TERMINAL_ABORT]) for _ in range(n)], dtype=np.uint8)
        comment = np.array([rng.random() < 0.3 for _ in range(n)], dtype=bool)
        times = np.array([rng.choice([0, rng.randint(1, 10**6)]) for _ in range(n)], dtype=np.int64)
        docs = np.array(sorted(rng.sample(range(10 * n), n)), dtype=np.int64)
        starts = sorted({0, *(i for i in range(n) if rng.random() < 0.2)})
        bounds = np.array(starts if rng.random() < 0.5 else [0, *starts[1:]], dtype=np.int64)
        ends = [*bounds[1:].tolist(), n]
        expected = [_oracle(i + 1, lo, hi, hi == n, docs, types, marks, comment, times)
                    for i, (lo, hi) in enumerate(zip(bounds.tolist(), ends, strict=True))]
        assert build_turns(docs, bounds, types, marks, comment, times) == expected
        for i, (lo, hi) in enumerate(zip(bounds.tolist(), ends, strict=True)):  # a search hit's turn alone
            alone = one_turn(docs[lo:hi], types[lo:hi], marks[lo:hi], comment[lo:hi], times[lo:hi], followed=hi < n)
            alone.ordinal, alone.start, alone.end = i + 1, lo, hi
            assert alone == expected[i]


def test_one_turn_alone_equals_the_rules_in_turns_of_every_length() -> None:
    """A search hit's turn is built alone: by a loop up to SMALL_TURN events, by array calls past
    it; both give the per-turn rules' turn."""
    rng = random.Random(5)
    for _ in range(2000):
        n = rng.choice([rng.randint(1, SMALL_TURN), rng.randint(SMALL_TURN - 2, 3 * SMALL_TURN)])
        types = np.array([rng.choice([USER, ASSISTANT, ASSISTANT, *OTHER]) for _ in range(n)], dtype=np.uint8)
        marks = np.array([rng.choice([0] * 20 + [TERMINAL_FINISH, TERMINAL_ABORT]) for _ in range(n)], dtype=np.uint8)
        comment = np.array([rng.random() < 0.3 for _ in range(n)], dtype=bool)
        times = np.array([rng.choice([0, 0, rng.randint(1, 10**6)]) for _ in range(n)], dtype=np.int64)
        docs = np.array(sorted(rng.sample(range(10 * n), n)), dtype=np.int64)
        followed = rng.random() < 0.5
        expected = _oracle(1, 0, n, not followed, docs, types, marks, comment, times)
        assert one_turn(docs, types, marks, comment, times, followed) == expected, n


def test_one_turn_of_an_unbuilt_session_equals_the_built_turn(tmp_path: Path,
                                                               make_samples_store: Callable[[Path], Store]) -> None:
    """A search hit builds only its own turn when the session's turns are not built yet; that
    turn (ordinal, bounds, completion, terminal, user and final docs, times) and the hit's
    ordinal in it equal what the whole session's turns say, for every live event of the samples."""
    store = make_samples_store(tmp_path)
    catalog = store.catalog
    compared = 0
    for session in catalog.sessions:
        for doc in list(session.docs):
            catalog._forget_turns(session)  # as a fresh process finds it
            one = catalog.turn_of(doc)
            assert session.turns is None  # the other turns are not built on the way
            assert catalog.turn_of(doc)[1] is one[1]  # this one is kept: a second hit builds nothing
            catalog.turns(session)
            assert catalog.turn_of(doc) == one, (session.key, doc)
            compared += 1
        built = catalog.turns(session)
        catalog._forget_turns(session)
        assert catalog.last_turn(session) == (built[-1] if built else None)
        assert session.turns is None
    assert compared > 300


def test_kept_single_turns_are_forgotten_when_the_session_changes(tmp_path: Path,
                                                                  make_samples_store: Callable[[Path], Store]) -> None:
    """A long session's turns built one by one are dropped with its turns when an event of it
    is retired: the answers after the change equal a whole build of the changed session."""
    store = make_samples_store(tmp_path)
    catalog = store.catalog
    changed = 0
    for session in catalog.sessions:
        if len(session.docs) < 3:
            continue
        for doc in session.docs:
            catalog.turn_of(doc)
        catalog.last_turn(session)
        assert session.some_turns
        catalog._retire(session.docs[-1])
        catalog._retire(session.docs[0])
        assert session.some_turns is None and session.bounds is None
        singles = [catalog.turn_of(doc) for doc in session.docs]
        last = catalog.last_turn(session)
        built = catalog.turns(session)
        assert last == built[-1]
        assert singles == [catalog.turn_of(doc) for doc in session.docs]
        changed += 1
    assert changed > 5


def test_a_hit_in_a_built_session_reads_its_built_turns(tmp_path: Path,
                                                        make_samples_store: Callable[[Path], Store]) -> None:
    """Once a session's turns are built (open, a turn scope), a hit reads them: nothing is built again."""
    store = make_samples_store(tmp_path)
    catalog = store.catalog
    for session in catalog.sessions:
        if not session.docs:
            continue
        built = catalog.turns(session)
        doc = session.docs[-1]
        assert catalog.turn_of(doc)[1] is built[-1] and catalog.last_turn(session) is built[-1]
        assert session.some_turns is None
