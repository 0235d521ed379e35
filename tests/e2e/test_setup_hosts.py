"""`moraine setup` for every MCP host Moraine reads: the file each host really reads (and the
variable that moves it), the entry's exact shape, foreign keys kept, modes kept, idempotent, and
`--remove` taking out only Moraine's entry. Real `moraine` processes; every path (HOME included)
points into tmp_path, so nothing outside the test is read or written.
"""

from __future__ import annotations

import json
import os
import stat
import subprocess
import tomllib
from pathlib import Path
from typing import Any

import pytest
from cli_harness import MORAINE

from moraine.setup import HOSTS, NOT_HOSTS, hosts
from moraine.sources import ADAPTERS

COMMAND = str(MORAINE)
MCP_HOSTS = ["claude-code", "codex", "gemini-cli", "qwen-code", "kimi-cli", "cursor", "copilot-cli", "opencode"]
KEY = {"codex": "mcp_servers", "opencode": "mcp"}  # else mcpServers
OTHER = {"opencode": {"type": "local", "command": ["other-server"], "enabled": True}}
CODEX_BEFORE = 'model = "gpt-5-codex"\n\n[mcp_servers.other]\ncommand = "other-server"\nargs = []\n'


def entry(name: str, args: list[str] | None = None) -> dict[str, Any]:
    """Moraine's entry as each host expects it."""
    args = ["mcp"] if args is None else args
    return {
        "claude-code": {"type": "stdio", "command": COMMAND, "args": args},
        "codex": {"command": COMMAND, "args": args},
        "gemini-cli": {"command": COMMAND, "args": args},
        "qwen-code": {"command": COMMAND, "args": args},
        "kimi-cli": {"command": COMMAND, "args": args},
        "cursor": {"command": COMMAND, "args": args},
        "copilot-cli": {"type": "local", "command": COMMAND, "args": args, "tools": ["*"]},
        "opencode": {"type": "local", "command": [COMMAND, *args], "enabled": True},
    }[name]


def moved_env(tmp_path: Path) -> dict[str, str]:
    """Every variable a host honours, pointed into tmp_path."""
    return {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(tmp_path / "home"),
            "CLAUDE_CONFIG_DIR": str(tmp_path / "claude"), "CODEX_HOME": str(tmp_path / "codex"),
            "GEMINI_CLI_HOME": str(tmp_path / "gemhome"), "QWEN_HOME": str(tmp_path / "qwen"),
            "KIMI_SHARE_DIR": str(tmp_path / "kimi"), "COPILOT_HOME": str(tmp_path / "copilot"),
            "XDG_CONFIG_HOME": str(tmp_path / "xdg")}


def moved_paths(tmp_path: Path) -> dict[str, Path]:
    return {"claude-code": tmp_path / "claude" / ".claude.json", "codex": tmp_path / "codex" / "config.toml",
            "gemini-cli": tmp_path / "gemhome" / ".gemini" / "settings.json",
            "qwen-code": tmp_path / "qwen" / "settings.json", "kimi-cli": tmp_path / "kimi" / "mcp.json",
            "cursor": tmp_path / "home" / ".cursor" / "mcp.json",  # no variable moves Cursor's
            "copilot-cli": tmp_path / "copilot" / "mcp-config.json",
            "opencode": tmp_path / "xdg" / "opencode" / "opencode.json"}


def default_env(tmp_path: Path) -> dict[str, str]:
    return {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(tmp_path / "home")}


def default_paths(tmp_path: Path) -> dict[str, Path]:
    home = tmp_path / "home"
    return {"claude-code": home / ".claude.json", "codex": home / ".codex" / "config.toml",
            "gemini-cli": home / ".gemini" / "settings.json", "qwen-code": home / ".qwen" / "settings.json",
            "kimi-cli": home / ".kimi" / "mcp.json", "cursor": home / ".cursor" / "mcp.json",
            "copilot-cli": home / ".copilot" / "mcp-config.json",
            "opencode": home / ".config" / "opencode" / "opencode.json"}


def run(env: dict[str, str], *args: str, code: int = 0) -> subprocess.CompletedProcess[str]:
    done = subprocess.run([str(MORAINE), *args], env=env, capture_output=True, text=True, timeout=60, check=False,
                          preexec_fn=lambda: os.umask(0o022))
    assert done.returncode == code and "Traceback" not in done.stderr, done
    return done


def run_json(env: dict[str, str], *args: str) -> dict[str, Any]:
    result: dict[str, Any] = json.loads(run(env, "setup", "--json", *args).stdout)
    return result


def before(name: str) -> dict[str, Any]:
    """A user's file: another server and keys Moraine must keep (a token among them)."""
    other = OTHER.get(name, {"command": "other-server", "args": []})
    return {"theme": "dark", "oauthAccount": {"token": "secret"}, KEY.get(name, "mcpServers"): {"other": other}}


def write_original(name: str, path: Path, mode: int) -> bytes:
    path.parent.mkdir(parents=True, exist_ok=True)
    data = CODEX_BEFORE.encode() if name == "codex" else json.dumps(before(name), indent=4).encode()
    path.write_bytes(data)
    os.chmod(path, mode)
    return data


def parsed(name: str, path: Path) -> dict[str, Any]:
    text = path.read_text()
    result: dict[str, Any] = tomllib.loads(text) if name == "codex" else json.loads(text)
    return result


def original(name: str) -> dict[str, Any]:
    return tomllib.loads(CODEX_BEFORE) if name == "codex" else before(name)


def with_moraine(name: str, data: dict[str, Any], args: list[str] | None = None) -> dict[str, Any]:
    key = KEY.get(name, "mcpServers")
    return {**data, key: {**data.get(key, {}), "moraine": entry(name, args)}}


def mode(path: Path) -> int:
    return stat.S_IMODE(os.lstat(path).st_mode)


def files(root: Path) -> set[Path]:
    return {path for path in root.rglob("*") if path.is_file()}


@pytest.mark.parametrize("name", MCP_HOSTS)
def test_write_again_and_remove_each_host_where_its_variable_points(tmp_path: Path, name: str) -> None:
    env, path = moved_env(tmp_path), moved_paths(tmp_path)[name]
    raw = write_original(name, path, 0o640)
    written = run_json(env, "--write", "--host", name)
    assert written["command"] == COMMAND and written["hosts"][name]["path"] == str(path)
    assert written["hosts"][name]["result"] == "merged"
    assert parsed(name, path) == with_moraine(name, original(name))
    backup = path.with_name(path.name + ".bak")
    assert backup.read_bytes() == raw and mode(backup) == 0o640 and mode(path) == 0o640
    assert files(tmp_path) == {path, backup}  # no other host's file, no temp file

    once = path.read_bytes()
    assert run_json(env, "--write", "--host", name)["hosts"][name]["result"] == "unchanged"
    assert path.read_bytes() == once and backup.read_bytes() == raw

    removed = run_json(env, "--remove", "--host", name)
    assert removed["removed"] == {name: True} and removed["hosts"][name]["path"] == str(path)
    assert parsed(name, path) == original(name) and mode(path) == 0o640
    assert run_json(env, "--remove", "--host", name)["removed"] == {name: False}
    assert parsed(name, path) == original(name) and backup.read_bytes() == raw


@pytest.mark.parametrize("name", MCP_HOSTS)
def test_a_new_file_is_0600_holding_only_the_entry(tmp_path: Path, name: str) -> None:
    path = moved_paths(tmp_path)[name]
    run(moved_env(tmp_path), "setup", "--write", "--host", name)
    assert parsed(name, path) == {KEY.get(name, "mcpServers"): {"moraine": entry(name)}}
    assert mode(path) == 0o600 and mode(path.parent) == 0o700
    assert files(tmp_path) == {path}


def test_default_locations_under_home(tmp_path: Path) -> None:
    """With no variable set, each host's file is where the host looks by default; XDG_CONFIG_HOME
    moves OpenCode's file only (Copilot CLI no longer reads it)."""
    env, paths = default_env(tmp_path), default_paths(tmp_path)
    hosts_args = [arg for name in MCP_HOSTS for arg in ("--host", name)]
    described = run_json(env, *hosts_args)["hosts"]
    assert {name: described[name]["path"] for name in MCP_HOSTS} == {name: str(p) for name, p in paths.items()}
    run(env, "setup", "--write", *hosts_args)
    for name in MCP_HOSTS:
        assert parsed(name, paths[name]) == {KEY.get(name, "mcpServers"): {"moraine": entry(name)}}, name
    assert files(tmp_path) == set(paths.values())

    xdg = {**env, "XDG_CONFIG_HOME": str(tmp_path / "xdg")}
    described = run_json(xdg, *hosts_args)["hosts"]
    assert described["opencode"]["path"] == str(tmp_path / "xdg" / "opencode" / "opencode.json")
    assert described["copilot-cli"]["path"] == str(paths["copilot-cli"])


def test_claude_config_dir_is_where_claude_code_reads_its_json(tmp_path: Path) -> None:
    """Under CLAUDE_CONFIG_DIR Claude Code reads `$CLAUDE_CONFIG_DIR/.claude.json`, not `~/.claude.json`."""
    env = {**default_env(tmp_path), "CLAUDE_CONFIG_DIR": str(tmp_path / "cc")}
    run(env, "setup", "--write", "--host", "claude-code")
    assert parsed("claude-code", tmp_path / "cc" / ".claude.json") == {"mcpServers": {"moraine": entry("claude-code")}}
    assert not (tmp_path / "home" / ".claude.json").exists()
    # Moraine's own override still wins
    env["MORAINE_SETUP_CLAUDE_JSON"] = str(tmp_path / "chosen.json")
    run(env, "setup", "--write", "--host", "claude-code")
    assert parsed("claude-code", tmp_path / "chosen.json") == {"mcpServers": {"moraine": entry("claude-code")}}


def test_opencode_config_names_the_file_and_a_jsonc_alone_is_used(tmp_path: Path) -> None:
    env = default_env(tmp_path)
    folder = tmp_path / "home" / ".config" / "opencode"
    folder.mkdir(parents=True)
    jsonc = folder / "opencode.jsonc"
    jsonc.write_text('{"theme": "opencode"}')
    run(env, "setup", "--write", "--host", "opencode")
    assert parsed("opencode", jsonc) == {"theme": "opencode", "mcp": {"moraine": entry("opencode")}}
    assert not (folder / "opencode.json").exists()

    custom = tmp_path / "custom" / "oc.json"
    run({**env, "OPENCODE_CONFIG": str(custom)}, "setup", "--write", "--host", "opencode")
    assert parsed("opencode", custom) == {"mcp": {"moraine": entry("opencode")}}


def test_a_file_with_comments_is_left_alone_and_every_other_host_is_written(tmp_path: Path) -> None:
    """A JSONC file is refused (not stripped of its comments) and named with the entry to add by
    hand; the other installed hosts are written all the same, and the exit code says not all were."""
    env, paths = moved_env(tmp_path), moved_paths(tmp_path)
    paths["gemini-cli"].parent.mkdir(parents=True)
    paths["gemini-cli"].write_text('{\n  // my comment\n  "theme": "x"\n}\n')
    paths["qwen-code"].parent.mkdir(parents=True)  # another installed host
    done = run(env, "setup", "--write", code=3)
    assert "not valid JSON" in done.stderr and str(paths["gemini-cli"]) in done.stderr
    assert "left unchanged" in done.stderr and f"add this to {paths['gemini-cli']} by hand" in done.stderr
    assert '"mcpServers"' in done.stderr  # the entry to paste
    assert paths["gemini-cli"].read_text() == '{\n  // my comment\n  "theme": "x"\n}\n'
    assert parsed("qwen-code", paths["qwen-code"]) == {"mcpServers": {"moraine": entry("qwen-code")}}
    removed = run(env, "setup", "--remove", code=3)  # and removal too goes on past it
    assert str(paths["gemini-cli"]) in removed.stderr
    assert parsed("qwen-code", paths["qwen-code"]) == {"mcpServers": {}}


def test_by_default_installed_hosts_and_configured_sources_are_written_and_the_rest_said_skipped(
        tmp_path: Path) -> None:
    env, paths = moved_env(tmp_path), moved_paths(tmp_path)
    (tmp_path / "gemhome" / ".gemini").mkdir(parents=True)
    (tmp_path / "kimi").mkdir()
    result = run_json(env, "--write")
    chosen = {name for name, host in result["hosts"].items() if host["chosen"]}
    # Codex and Claude Code are Moraine's default sources; Gemini CLI and Kimi CLI are installed here
    assert chosen == {"codex", "claude-code", "gemini-cli", "kimi-cli"}
    assert result["hosts"]["codex"]["reason"] == "source 'codex' is configured"
    assert result["hosts"]["gemini-cli"]["reason"] == f"{tmp_path / 'gemhome' / '.gemini'} exists"
    assert "--host qwen-code" in result["hosts"]["qwen-code"]["reason"]
    assert result["hosts"]["pi"] == {"mcp_host": False, "chosen": False, "reason": NOT_HOSTS["pi"]}
    assert files(tmp_path) == {paths[name] for name in chosen}

    text = run(env, "setup", "--write").stdout
    assert "# not written:" in text and "Qwen Code" in text and "--host cursor" in text
    assert "pi: Pi is not an MCP host" in text and "already in" in text


def test_a_configured_source_chooses_its_host(tmp_path: Path) -> None:
    """A Moraine config listing only a Cursor source: Cursor is written, Codex (no ~/.codex, no
    source) is skipped."""
    env = default_env(tmp_path)
    moraine_home = tmp_path / "home" / ".moraine"
    moraine_home.mkdir(parents=True)
    (moraine_home / "config.toml").write_text(
        f'[[sources]]\nname = "work-cursor"\nharness = "cursor"\nroot = "{tmp_path / "logs"}"\n')
    result = run_json(env, "--write")
    chosen = {name for name, host in result["hosts"].items() if host["chosen"]}
    assert chosen == {"cursor"}
    assert result["hosts"]["cursor"]["reason"] == "source 'work-cursor' is configured"
    assert parsed("cursor", default_paths(tmp_path)["cursor"]) == {"mcpServers": {"moraine": entry("cursor")}}
    assert not default_paths(tmp_path)["codex"].exists()


def test_pi_is_not_an_mcp_host(tmp_path: Path) -> None:
    env = moved_env(tmp_path)
    done = run(env, "setup", "--write", "--host", "pi")
    assert "Pi is not an MCP host" in done.stdout
    assert files(tmp_path) == set()
    run(env, "setup", "--host", "nonsense", code=2)


def test_a_non_default_home_and_a_symlinked_config(tmp_path: Path) -> None:
    env, paths = moved_env(tmp_path), moved_paths(tmp_path)
    target = tmp_path / "dotfiles" / "opencode.json"
    target.parent.mkdir()
    target.write_text(json.dumps({"theme": "dark"}))
    os.chmod(target, 0o600)
    paths["opencode"].parent.mkdir(parents=True)
    paths["opencode"].symlink_to(target)
    state = str(tmp_path / "state")
    run(env, "--home", state, "setup", "--write", "--host", "opencode", "--host", "copilot-cli")
    args = ["--home", state, "mcp"]
    assert paths["opencode"].is_symlink()
    assert json.loads(target.read_text()) == {"theme": "dark", "mcp": {"moraine": entry("opencode", args)}}
    assert mode(target) == 0o600
    assert parsed("copilot-cli", paths["copilot-cli"]) == {"mcpServers": {"moraine": entry("copilot-cli", args)}}


def test_every_registry_harness_is_a_host_or_named_as_not_one(tmp_path: Path) -> None:
    """The host table and the adapter registry agree: a harness added to the registry without a
    decision here fails this test (and `hosts()`)."""
    assert set(HOSTS).isdisjoint(NOT_HOSTS)
    assert set(HOSTS) | set(NOT_HOSTS) == set(ADAPTERS)
    assert set(HOSTS) == set(MCP_HOSTS)
    assert [choice.name for choice in hosts(every=True)] == list(ADAPTERS)
    printed = run_json(moved_env(tmp_path))["hosts"]
    assert list(printed) == list(ADAPTERS)
    assert {name for name, host in printed.items() if host["mcp_host"]} == set(HOSTS)
    assert {name: host["entry"] for name, host in printed.items() if host["mcp_host"]} == {
        name: entry(name) for name in MCP_HOSTS}
