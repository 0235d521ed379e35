"""Turns, derived from a session's ordered event columns (never stored: recomputed, vectorized,
whenever the session changed, so late or re-read events never leave stale boundaries)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from moraine.model import TERMINAL_FINISH, TYPE_CODE

USER = TYPE_CODE["user_input"]
ASSISTANT = TYPE_CODE["assistant_response"]


@dataclass(slots=True)
class Turn:
    ordinal: int
    start: int  # position in the session's ordered docs
    end: int  # exclusive
    completed: bool
    terminal_doc: int | None
    user_doc: int | None
    final_doc: int | None
    started_ms: int
    updated_ms: int



def build_turns(docs: np.ndarray, bounds: np.ndarray, types: np.ndarray, marks: np.ndarray,
                comment: np.ndarray, times: np.ndarray, followed: bool = False) -> list[Turn]:
    """Every turn of a session from its ordered columns, in a fixed number of array passes
    (a search hit's first sight of a session builds them all; per-turn array calls made
    that cost grow with the turn count).

    Per turn: the first user prompt; the final answer (the last non-commentary assistant
    response, else the last response); the last terminal marker. A turn is completed when
    it has a marker (its terminal is the final answer when the marker says finished, else
    the marker) or, short of one, when a later turn began after a final answer (`followed`:
    the columns end where a later turn of the session begins).
    """
    n, count = len(docs), len(bounds)
    ends = np.append(bounds[1:], n)
    turn_of = np.repeat(np.arange(count), ends - bounds)

    def last(positions: np.ndarray) -> np.ndarray:
        out = np.full(count, -1, dtype=np.int64)
        np.maximum.at(out, turn_of[positions], positions)
        return out

    def first(positions: np.ndarray) -> np.ndarray:
        out = np.full(count, n, dtype=np.int64)
        np.minimum.at(out, turn_of[positions], positions)
        out[out == n] = -1
        return out

    answers = types == ASSISTANT
    last_final = last(np.flatnonzero(answers & ~comment))
    last_answer = last(np.flatnonzero(answers))
    final = np.where(last_final >= 0, last_final, last_answer)
    user = first(np.flatnonzero(types == USER))
    marker = last(np.flatnonzero(marks))
    started = _starts(np.minimum.reduceat(_known(times), bounds), times, user).tolist()
    updated = np.maximum.reduceat(times, bounds).tolist()
    turns: list[Turn] = []
    doc_list = docs.tolist()
    for i, (lo, hi, u, f, mk) in enumerate(zip(bounds.tolist(), ends.tolist(), user.tolist(), final.tolist(),
                                               marker.tolist(), strict=True)):
        final_pos = terminal = None
        if mk >= 0:
            final_pos = f if f >= 0 else None
            terminal = final_pos if marks[mk] == TERMINAL_FINISH and final_pos is not None else mk
        elif (hi != n or followed) and f >= 0:
            terminal = final_pos = f
        turns.append(Turn(
            ordinal=i + 1, start=lo, end=hi, completed=terminal is not None,
            terminal_doc=doc_list[terminal] if terminal is not None else None,
            user_doc=doc_list[u] if u >= 0 else None,
            final_doc=doc_list[final_pos] if final_pos is not None else None,
            started_ms=started[i], updated_ms=updated[i],
        ))
    return turns


SMALL_TURN = 64  # events in a turn read as Python lists: below this, ten array calls cost more than the loop


def one_turn(docs: np.ndarray, types: np.ndarray, marks: np.ndarray, comment: np.ndarray, times: np.ndarray,
             followed: bool) -> Turn:
    """`build_turns(docs, [0], …, followed)[0]` for columns that hold one turn, in a handful of
    array calls instead of ~25: a search hit needs its own turn only, and ten hits built them
    in ~1 ms per query at 1M events. A turn of a few dozen events is read in one loop instead
    (36 -> ~10 us a turn: a search's ten hits and their sessions' last turns build ~13)."""
    if 0 < len(docs) <= SMALL_TURN:
        return _small_turn(docs.tolist(), types.tolist(), marks.tolist(), comment.tolist(), times.tolist(), followed)
    answers = np.flatnonzero(types == ASSISTANT)
    finals = answers[~comment[answers]]
    f = int(finals[-1]) if len(finals) else int(answers[-1]) if len(answers) else -1
    users = np.flatnonzero(types == USER)
    markers = np.flatnonzero(marks)
    final_pos = terminal = None
    if len(markers):
        mk = int(markers[-1])
        final_pos = f if f >= 0 else None
        terminal = final_pos if marks[mk] == TERMINAL_FINISH and final_pos is not None else mk
    elif followed and f >= 0:
        terminal = final_pos = f
    return Turn(
        ordinal=1, start=0, end=len(docs), completed=terminal is not None,
        terminal_doc=int(docs[terminal]) if terminal is not None else None,
        user_doc=int(docs[users[0]]) if len(users) else None,
        final_doc=int(docs[final_pos]) if final_pos is not None else None,
        started_ms=int(_starts(_known(times).min(keepdims=True), times, users[:1] if len(users) else
                               np.array([-1]))[0]), updated_ms=int(times.max()),
    )


def _small_turn(docs: list[int], types: list[int], marks: list[int], comment: list[bool], times: list[int],
                followed: bool) -> Turn:
    """`one_turn`'s rules over lists, the same in every case (`tests/unit/test_turns.py`)."""
    final = last = user = marker = -1
    for i, kind in enumerate(types):
        if kind == ASSISTANT:
            last = i
            if not comment[i]:
                final = i
        elif kind == USER and user < 0:
            user = i
        if marks[i]:
            marker = i
    f = final if final >= 0 else last
    final_pos = terminal = None
    if marker >= 0:
        final_pos = f if f >= 0 else None
        terminal = final_pos if marks[marker] == TERMINAL_FINISH and final_pos is not None else marker
    elif followed and f >= 0:
        terminal = final_pos = f
    prompt = times[user] if user >= 0 else 0
    known = [t for t in times if t > 0]
    return Turn(
        ordinal=1, start=0, end=len(docs), completed=terminal is not None,
        terminal_doc=docs[terminal] if terminal is not None else None,
        user_doc=docs[user] if user >= 0 else None,
        final_doc=docs[final_pos] if final_pos is not None else None,
        started_ms=prompt if prompt > 0 else min(known) if known else 0, updated_ms=max(times),
    )


_UNKNOWN = np.iinfo(np.int64).max


def _known(times: np.ndarray) -> np.ndarray:
    """Times with the absent ones (0: a record read before any timed one) out of a minimum's way."""
    return np.where(times > 0, times.astype(np.int64), _UNKNOWN)


def _starts(earliest: np.ndarray, times: np.ndarray, user: np.ndarray) -> np.ndarray:
    """Each turn's start: its prompt's time, else its earliest known time, else absent (0)."""
    prompt = np.where(user >= 0, times[np.maximum(user, 0)], 0) if len(times) else np.zeros_like(earliest)
    start = np.where(prompt > 0, prompt, earliest)
    return np.where(start == _UNKNOWN, 0, start)
