"""`moraine index` shows a progress bar when stderr is a terminal, and nothing otherwise."""

from __future__ import annotations

import io

import pytest

from moraine.ingest import pipeline


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_progress_bar_on_a_terminal(monkeypatch: pytest.MonkeyPatch) -> None:
    screen = _Terminal()
    monkeypatch.setattr(pipeline.sys, "stderr", screen)
    show = pipeline.terminal_progress("indexing")
    assert show is not None
    show(0, 4_000_000)
    show(4_000_000, 4_000_000)
    out = screen.getvalue()
    assert "indexing [" in out and "100.0%" in out and out.endswith("\n")
    assert "4.0/4.0 MB" in out


def test_no_progress_bar_when_not_a_terminal(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(pipeline.sys, "stderr", io.StringIO())
    assert pipeline.terminal_progress("indexing") is None
