"""Stable IDs: the same logs give the same IDs after a server restart on the same state directory
and after a full reindex into a fresh state directory (spec "ID Format"; IDs are derived from the
source identity)."""

from __future__ import annotations

import dataclasses
from typing import Any

from contract_harness import DAY_END, DAY_START, Corpus, McpServer


def snapshot(server: McpServer) -> dict[str, Any]:
    """Every session, turn and event ID with the data open returns for it (timings excluded)."""
    out: dict[str, Any] = {}
    listed = server.ok("list_sessions", {"start_datetime": DAY_START, "end_datetime": DAY_END, "limit": 50})
    for item in listed["data"]["sessions"]:
        session = server.ok("open", {"id": item["id"]})["data"]
        out[item["id"]] = session
        for turn in session["turns"]:
            turn_data = server.ok("open", {"id": turn["id"]})["data"]
            out[turn["id"]] = turn_data
            for row in turn_data["events"]:
                out[row["id"]] = server.ok("open", {"id": row["id"]})["data"]
    hits = server.ok("search_sessions", {"query": "pelican narwhal albatross", "n_hits": 50})["data"]["results"]
    out["search"] = [(h["id"], h["open"]) for h in hits]
    return out


def test_ids_survive_restart_and_full_reindex(own_corpus: Corpus, tmp_path_factory: Any) -> None:
    corpus = own_corpus  # a private corpus: this test runs its own servers on its own state directories
    first = McpServer(corpus)
    try:
        before = snapshot(first)
    finally:
        first.close()
    assert len(before) > 60

    restarted = McpServer(corpus)
    try:
        assert snapshot(restarted) == before
    finally:
        restarted.close()

    fresh_home = tmp_path_factory.mktemp("fresh-home")
    reindexed = McpServer(dataclasses.replace(corpus, moraine_home=fresh_home))
    try:
        assert snapshot(reindexed) == before
    finally:
        reindexed.close()
