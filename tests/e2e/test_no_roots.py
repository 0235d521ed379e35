"""No log roots at all: every way in answers the same — empty results and a warning
naming the roots watched — instead of failing (the one-shot `moraine index` still exits 5)."""

from __future__ import annotations

from pathlib import Path

from cli_harness import make_workspace, mcp_calls


def test_every_path_answers_empty_with_the_roots_named(tmp_path: Path) -> None:
    ws = make_workspace(tmp_path / "none", copy_logs=False)
    roots = (str(ws.codex / "sessions"), str(ws.claude / "projects"))
    for argv in (["search", "anything", "--json"], ["list", "--json"]):
        result = ws.run(*argv)
        assert result.returncode == 0, result
        envelope = result.json()
        assert envelope["data"]["result_count"] == 0
        assert any(all(r in w for r in roots) for w in envelope["warnings"]), envelope["warnings"]
    text = ws.run("search", "anything")
    assert text.returncode == 0 and "warning: no agent log roots exist yet" in text.stdout
    replies = mcp_calls(ws, ws.env(), [("search_sessions", {"query": "anything"}), ("index_status", {})])
    assert replies[0]["data"]["result_count"] == 0
    for reply in replies:
        assert any(all(r in w for r in roots) for w in reply["warnings"]), reply
    assert all(not s["root_exists"] for s in replies[1]["data"]["sources"])
