"""Usage errors (exit 2) and configuration errors (exit 3)."""

from __future__ import annotations

import pytest
from cli_harness import Indexed, Workspace


@pytest.mark.parametrize(
    ("argv", "needle"),
    [
        (["frobnicate"], "invalid choice: 'frobnicate'"),
        (["search"], "required: query"),
        (["list", "--since", "last tuesday"], "argument --since: 'last tuesday' is not a date"),
    ],
    ids=["unknown-subcommand", "search-no-query", "list-bad-since"],
)
def test_usage_errors_exit_2(fresh: Workspace, argv: list[str], needle: str) -> None:
    result = fresh.run(*argv)
    assert result.returncode == 2, result
    assert result.stdout == "", result
    assert result.stderr.startswith("usage: moraine"), result
    assert needle in result.stderr
    assert not fresh.state.exists(), "a usage error must not touch the state directory"


def _config(ws: Workspace, text: str) -> None:
    ws.state.mkdir(mode=0o700)
    (ws.state / "config.toml").write_text(text, encoding="utf-8")


def test_config_unknown_key(fresh: Workspace) -> None:
    _config(fresh, "[bm25]\nk1 = 1.5\nk_one = 2.0\n")
    result = fresh.run("index")
    assert result.returncode == 3, result
    assert result.stdout == ""
    assert str(fresh.state / "config.toml") in result.stderr, "the message must name the file"
    assert "bm25.k_one" in result.stderr, "the message must name the key"
    assert not (fresh.state / "wal.log").exists(), "nothing is indexed with a bad configuration"


def test_config_two_sources_of_one_name(fresh: Workspace) -> None:
    """Two [[sources]] of one name could not be told apart in `moraine status`: refused, naming both."""
    _config(fresh, f'[[sources]]\nname = "work"\nharness = "claude-code"\nroot = "{fresh.claude}"\n'
                   f'[[sources]]\nname = "work"\nharness = "codex"\nroot = "{fresh.codex}"\n')
    result = fresh.run("index")
    assert result.returncode == 3, result
    assert "two sources are named 'work'" in result.stderr, result
    assert str(fresh.state / "config.toml") in result.stderr


def test_config_two_roots_of_one_harness_that_overlap(fresh: Workspace) -> None:
    """The same folder twice (`/x` and `/x/`), or one inside the other, would read each log twice:
    refused, naming both sources (found by an outside attack: 360 events parsed for 160 stored)."""
    for second in (f"{fresh.claude}/", f"{fresh.claude}/projects"):
        (fresh.state / "config.toml").unlink(missing_ok=True)
        if not fresh.state.exists():
            fresh.state.mkdir(mode=0o700)
        (fresh.state / "config.toml").write_text(
            f'[[sources]]\nname = "a"\nharness = "claude-code"\nroot = "{fresh.claude}"\n'
            f'[[sources]]\nname = "a2"\nharness = "claude-code"\nroot = "{second}"\n', encoding="utf-8")
        result = fresh.run("index")
        assert result.returncode == 3, result
        assert "sources 'a'" in result.stderr and "'a2'" in result.stderr and "same claude-code logs" in result.stderr


def test_config_invalid_toml(fresh: Workspace) -> None:
    _config(fresh, "[bm25\nk1 = \n")
    result = fresh.run("status")
    assert result.returncode == 3, result
    assert result.stdout == ""
    assert str(fresh.state / "config.toml") in result.stderr
    assert "TOML" in result.stderr


def test_env_override_bad_value_exits_3(fresh: Workspace) -> None:
    result = fresh.run("search", "migration", env=fresh.env(MORAINE_BM25_K1="abc"))
    assert result.returncode == 3, result
    assert result.stdout == ""
    assert result.stderr.startswith("moraine: ")
    assert "bm25.k1" in result.stderr


def test_env_override_error_names_the_variable(fresh: Workspace) -> None:
    """config.load_config promises "a bad layer is a ConfigError naming it": the bad value came from the
    environment, so the message must say so (not blame the defaults)."""
    result = fresh.run("index", env=fresh.env(MORAINE_BM25_K1="abc"))
    assert result.returncode == 3, result
    assert "MORAINE_BM25_K1" in result.stderr or "environment" in result.stderr, result.stderr
    assert "(defaults)" not in result.stderr, result.stderr


def test_help_lists_the_valid_values(fresh: Workspace) -> None:
    search = fresh.run("search", "--help").stdout
    assert "user_input, assistant_response, reasoning, tool_call, tool_response" in " ".join(search.split())
    listing = " ".join(fresh.run("list", "--help").stdout.split())
    assert "web_search, mcp_internal, tool_calling, chat" in listing and "desc (newest first, the default), asc" \
        in listing


def test_a_bad_value_names_the_flag(fresh: Workspace) -> None:
    result = fresh.run("list", "--mode", "fast")
    assert result.returncode == 2 and "--mode must be one of" in result.stderr, result


def test_a_cwd_the_tool_refuses_is_refused_in_words(indexed: Indexed) -> None:
    """`--cwd '~nosuchuser/x'` printed a Python traceback (the shell side expanded it), and an
    empty `--cwd ''` was dropped, answering unfiltered; the tool refuses both, as over MCP."""
    for argv in (["search", "migration"], ["list"]):
        for value, said in (("~nosuchuser_moraine/x", "no user on this machine"), ("", "non-empty")):
            result = indexed.ws.run(*argv, "--cwd", value)
            assert result.returncode == 2 and said in result.stderr, result
            assert "Traceback" not in result.stdout + result.stderr, result


def test_a_refusal_names_the_flag_once(indexed: Indexed) -> None:
    """The field became its flag everywhere in the message ("--cursor is not a valid list_sessions
    --cursor"); only the message's subject is the flag."""
    result = indexed.ws.run("list", "--cursor", "bogus")
    assert result.returncode == 2 and "--cursor is not a valid list_sessions cursor" in result.stderr, result
