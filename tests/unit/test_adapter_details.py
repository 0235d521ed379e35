"""Small adapter rules found by the mixed-harness corpus: exit codes in the header lines of
Codex's unified exec output, and the web tools of Gemini CLI and Kimi CLI marking web mode."""

from __future__ import annotations

from moraine.sources._common import exit_code_from_output, is_web_tool


def test_exit_code_in_unified_exec_header() -> None:
    out = "Chunk ID: 0a1b2c\nWall time: 0.1043 seconds\nProcess exited with code 2\nOriginal token count: 9\nOutput:\nx"
    assert exit_code_from_output(out) == 2
    assert exit_code_from_output("Exit code: 0\nWall time: 1s\nOutput:\nok") == 0
    # a line in the output itself (past the header) is not the command's exit code
    assert exit_code_from_output("Output:\nstep one\nstep two\nstep three\nExit code: 7") is None


def test_web_tools_of_every_harness() -> None:
    for name in ("google_web_search", "web_fetch", "SearchWeb", "FetchURL", "WebSearch", "web_search_call"):
        assert is_web_tool(name), name
    assert not is_web_tool("read_file")
