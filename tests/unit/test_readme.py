"""The README is for users: at most 300 lines, the quick start's two commands (the second is what
CI runs), a recovery section, and the query syntax as it stands."""

from __future__ import annotations

from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def test_the_readme_is_short_and_says_what_a_newcomer_needs() -> None:
    text = (REPO / "README.md").read_text(encoding="utf-8")
    assert len(text.splitlines()) <= 300
    quick = text.split("## Quick start", 1)[1].split("```sh", 1)[1].split("```", 1)[0]
    commands = [line.split("#")[0].strip() for line in quick.splitlines() if line.strip()]
    assert commands == ["make run", "make test"], commands
    assert "make test" in (REPO / ".ci" / "run").read_text()
    assert "moraine doctor --repair" in text and "moraine reindex" in text  # how to recover
    assert "What a query is" in text
