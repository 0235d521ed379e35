"""Held-out corpora through the normal ingest path (`normalize_line` + an adapter), as a black box.

Every kind x rendering of the public-fixture corpus and of the people-written corpus, each in a
place of a Claude Code or a Codex log (taken in turn), and every kind once more in a one-line place
(tool name, call id, model, cwd, branch, title, argument key); every lookalike likewise. What
ingest would store must hold no 10 consecutive characters of any secret, and every lookalike whole.
"""

from __future__ import annotations

import pytest
from _heldout import FLOOR, KNOWN_ALTERED, MIN_RECALL, SEED

from secret_eval import ingest_check
from secret_eval.leaks import recall_rows, table
from secret_eval.places import CORPORA, build_logs, build_placements


@pytest.fixture(scope="module")
def outcome():
    placements = build_placements(SEED, CORPORA, each_rendering=True)
    files = build_logs(placements, SEED)
    strings = ingest_check.normalized_strings(files)
    leaks, altered = ingest_check.check(placements, files)
    return placements, strings, leaks, altered


def _report(placements, leaks, altered) -> str:
    by_pid = {p.pid: p for p in placements}
    lines = [table("corpus", recall_rows(placements, set(leaks), lambda p: p.corpus)),
             table("corpus/family", recall_rows(placements, set(leaks), lambda p: f"{p.corpus}/{p.family}")),
             table("place", recall_rows(placements, set(leaks), lambda p: p.place)),
             f"leaked ({len(leaks)}):"]
    lines += [f"  {by_pid[pid].label}: …{ev[0].excerpt!r}…" for pid, ev in sorted(leaks.items())]
    lines.append(f"lookalikes altered ({len(altered)}):")
    lines += [f"  {by_pid[pid].label}: {by_pid[pid].value!r}" for pid in sorted(altered)]
    return "\n".join(lines)


def test_every_place_reaches_what_ingest_stores(outcome) -> None:
    """The harness is exercised: a canary in each place comes out of ingest (else a place would pass
    by never being read)."""
    placements, strings, _, _ = outcome
    hay = "\0".join(s for _, s in strings)
    missing = [p.label for p in placements if p.corpus == "canary" and p.value not in hay]
    assert not missing, f"places ingest never stores: {missing}"


@pytest.mark.parametrize("corpus", ["public", "people"])
def test_secrets_are_redacted_on_ingest(outcome, corpus: str) -> None:
    placements, _, leaks, altered = outcome
    mine = [p for p in placements if p.corpus == corpus]
    bad = [p for p in mine if p.pid in leaks]
    recall = 1 - len(bad) / len(mine)
    report = _report(placements, leaks, altered)
    print(report)
    print(f"{corpus}: recall {recall:.2%} (target {MIN_RECALL:.0%}, floor {FLOOR[corpus]:.0%})")
    assert recall >= FLOOR[corpus], (f"{corpus} corpus: recall {recall:.2%} < its floor {FLOOR[corpus]:.0%} "
                                     f"({len(bad)} of {len(mine)} placements leaked)\n{report}")


def test_lookalikes_are_kept_on_ingest(outcome) -> None:
    placements, _, leaks, altered = outcome
    report = _report(placements, leaks, altered)
    print(report)
    by_pid = {p.pid: p for p in placements}
    unknown = {by_pid[pid].kind for pid in altered} - KNOWN_ALTERED
    assert not unknown, f"lookalikes altered: {sorted(unknown)}\n{report}"


