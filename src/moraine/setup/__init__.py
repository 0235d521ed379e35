"""`moraine setup`: Moraine's MCP server entry for every MCP host it reads, printed, merged in or
taken out.

Every harness of the adapter registry (`moraine.harnesses`) is either an MCP host below
(`HOSTS`: the file it reads, the key its servers live under, the entry's shape) or named in
`NOT_HOSTS` with the reason; `hosts()` walks the registry, so a new harness without a decision
here is an error, not a silent omission. Each entry launches `moraine mcp` (a stdio server that
bridges to the daemon), with `--home` when the state served is not the default one.

Which hosts: `--host NAME` (repeatable) names them; by default, a host whose directory (or
config file) exists here, or whose harness is a configured, enabled source (Codex and Claude
Code always are, as Moraine's default sources). The output says which were skipped and why.
`--remove` without `--host` looks in every host's file.

`--write` merges the entry (keeping everything else) and is idempotent: a file that already holds
the same entry is not rewritten. Every chosen file is read and checked before any is written, so
a file that cannot be read (invalid JSON: a JSONC file with comments is refused rather than
stripped of them) stops the run with nothing written. Before the first change to a file it keeps
a `.bak` copy of the original, written once and never replaced (a rerun would otherwise back up
its own output). Every file written keeps the original's permission bits (the `.bak` included:
`~/.claude.json` is 0600 and holds tokens); a file that did not exist is 0600; a symlinked config
is rewritten at its target.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from moraine.config import SourceConfig
from moraine.errors import ConfigError
from moraine.setup.files import Change, plan_all, plan_merge, plan_remove
from moraine.setup.hosts import (
    HOSTS,
    NOT_HOSTS,
    SERVER,
    Choice,
    Host,
    claude_config_path,
    claude_entry,
    codex_block,
    codex_config_path,
    hosts,
    mcp_args,
    moraine_command,
    plain_entry,
    toml_block,
)

__all__ = ["HOSTS", "NOT_HOSTS", "hosts", "run_setup"]


def _refused(errors: dict[str, str], choices: list[Choice], command: str, args: list[str] | None) -> None:
    """Each unreadable host's file named on stderr with what to add by hand; exit 3 once the
    other hosts are written."""
    if not errors:
        return
    hosts_by_name = {choice.name: choice.host for choice in choices}
    lines = []
    for name, message in errors.items():
        host = hosts_by_name[name]
        lines.append(f"{name}: {message}; left unchanged")
        if args is not None and host is not None:
            lines.append(f"add this to {host.path()} by hand:\n{_snippet(host, command, args)}")
    raise ConfigError("\n".join(lines))


# --- the command ------------------------------------------------------------------------------------


def _snippet(host: Host, command: str, args: list[str]) -> str:
    if host.toml:
        return toml_block(command, args)
    entry = json.dumps(host.entry(command, args), ensure_ascii=False)
    return f'{{\n  "{host.key}": {{\n    "{SERVER}": {entry}\n  }}\n}}\n'


def _described(choice: Choice, command: str, args: list[str]) -> dict[str, Any]:
    if choice.host is None:
        return {"mcp_host": False, "chosen": False, "reason": choice.reason}
    host = choice.host
    described: dict[str, Any] = {"mcp_host": True, "label": host.label, "path": str(host.path()), "key": host.key,
                                 "entry": plain_entry(command, args) if host.toml else host.entry(command, args),
                                 "chosen": choice.chosen, "reason": choice.reason}
    if host.honours:
        described["honours"] = host.honours
    if host.toml:
        described["toml"] = _snippet(host, command, args)
    return described


def run_setup(write: bool, as_json: bool, home: Path | None = None, remove: bool = False,
              requested: Sequence[str] | None = None, sources: Iterable[SourceConfig] = ()) -> int:
    """`home`: the state to serve when it is not the default one (`--home` / MORAINE_HOME);
    `requested`: the harnesses named by `--host`; `sources`: the configured log sources."""
    command, args = moraine_command(), mcp_args(home)
    choices = hosts(requested, sources, every=remove)
    if remove:
        return _remove(choices, as_json)
    changes, errors = plan_all(lambda host: plan_merge(host, command, args), choices) if write else ({}, {})
    for change in changes.values():
        change.apply()
    if as_json:
        described = {choice.name: _described(choice, command, args) for choice in choices}
        for name, change in changes.items():
            described[name]["result"] = "merged" if change.new is not None else "unchanged"
        print(json.dumps({"command": command, "args": args, "written": write, "hosts": described,
                          # the two keys of earlier versions, as they were
                          "claude_code": {"path": str(claude_config_path()),
                                          "mcpServers": {SERVER: claude_entry(command, home)}},
                          "codex": {"path": str(codex_config_path()), "toml": codex_block(command, home)}},
                         indent=2))
        _refused(errors, choices, command, args)
        return 0
    _print_entries(choices, changes, write, command, args)
    _refused(errors, choices, command, args)
    return 0


def _print_entries(choices: list[Choice], changes: dict[str, Change], write: bool, command: str,
                   args: list[str]) -> None:
    skipped = []
    for choice in choices:
        host = choice.host
        if host is None:
            skipped.append(f"#   {choice.name}: {choice.reason}")
            continue
        if write and not choice.chosen:
            skipped.append(f"#   {host.label} ({host.path()}): {choice.reason}")
            continue
        if write and choice.name not in changes:  # its file could not be read: said on stderr
            continue
        if write:
            head = f"{'merged into' if changes[choice.name].new is not None else 'already in'} {host.path()}"
        else:
            head = f"for {host.path()}" + ("" if choice.chosen else f" (`--write` skips it: {choice.reason})")
        print(f"# {host.label} — {head}:")
        print(_snippet(host, command, args))
    if skipped:
        print("# not written:" if write else "# not an MCP host:")
        print("\n".join(skipped))
    if not write:
        chosen = [choice.name for choice in choices if choice.chosen]
        print(f"\n# `moraine setup --write` merges the entry into the files of: {', '.join(chosen) or 'none'} "
              "(a .bak copy of each file is kept); `--host NAME` (repeatable) chooses others.")


def _remove(choices: list[Choice], as_json: bool) -> int:
    changes, errors = plan_all(plan_remove, choices)
    for change in changes.values():
        change.apply()
    removed = {name: change.new is not None for name, change in changes.items()}
    if as_json:
        print(json.dumps({"removed": removed, "hosts": {name: {"path": str(change.path)}
                                                        for name, change in changes.items()}}, indent=2))
        _refused(errors, choices, "", None)
        return 0
    for name, change in changes.items():
        print(f"{'removed the moraine entry from' if removed[name] else 'no moraine entry in'} {change.path}")
    for choice in choices:
        if choice.host is None:
            print(f"# {choice.name}: {choice.reason}")
    _refused(errors, choices, "", None)
    return 0
