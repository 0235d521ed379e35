"""Held-out corpora end to end: the real CLI indexes logs holding them, then every way back is read.

`tools/secret_eval/run_e2e.py` on a seeded slice (one random (harness, place, rendering) per kind
of each corpus, plus a canary per place): `moraine index`, then `moraine mcp --standalone`
(list_sessions, open of every session / turn / event and every content page, search_sessions for
each secret and its first 12 characters, search_session_history with the secret as a literal),
`moraine status --json`, and every file of MORAINE_HOME decoded by tools/state_strings.py.
"""

from __future__ import annotations

import pytest
from _heldout import FLOOR, KNOWN_ALTERED, MIN_RECALL, SEED

from secret_eval import run_e2e

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def report(tmp_path_factory: pytest.TempPathFactory) -> run_e2e.Report:
    return run_e2e.run(SEED, tmp_path_factory.mktemp("secret-eval") / "ws", per_kind=1)


def test_every_place_is_stored_and_the_state_is_decoded(report: run_e2e.Report) -> None:
    """The run exercised every place: each canary is found at rest by the decoder (rows inside
    compressed chunks included) and, except the places Moraine never shows, over MCP."""
    unstored = [k for k, v in report.visible.items() if not v["rest"]]
    assert not unstored, f"canaries not found in the decoded state: {unstored}\n{report.render()}"
    assert report.info["walk"]["events"] > 0 and report.info["walk"]["searches"] > 0
    assert report.info["wal_bytes"] > 16, "the late logs should have reached the write-ahead log"


@pytest.mark.parametrize("corpus", ["public", "people"])
def test_secrets_do_not_come_back(report: run_e2e.Report, corpus: str) -> None:
    text = report.render(max_leaks=400)
    print(text)
    recall = report.recall(corpus)
    print(f"{corpus}: recall {recall:.2%} (target {MIN_RECALL:.0%}, floor {FLOOR[corpus]:.0%})")
    assert recall >= FLOOR[corpus], f"{corpus} corpus: recall {recall:.2%} < its floor {FLOOR[corpus]:.0%}\n{text}"


def test_lookalikes_come_back_unaltered(report: run_e2e.Report) -> None:
    text = report.render(max_leaks=400)
    print(text)
    by_pid = {p.pid: p for p in report.placements}
    unknown = {by_pid[pid].kind for pid in report.altered} - KNOWN_ALTERED
    assert not unknown, f"lookalikes altered: {sorted(unknown)}\n{text}"
