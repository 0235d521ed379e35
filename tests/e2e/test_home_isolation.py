"""A `$HOME` full of other harnesses' logs changes no result once the roots are given explicitly.

Why: Moraine finds each harness's logs from its own variable (CODEX_HOME, PI_CODING_AGENT_DIR, ...),
else at its default root under `$HOME` (`moraine.config.default_sources`), so a machine with its own
`~/.pi`, `~/.gemini`, `~/.local/share/opencode`, ... adds its sessions to whatever is indexed. The
tests must not depend on that machine: they name every root (as `cli_harness.Workspace.env` does),
and a user who lists `[[sources]]` in the config file gets exactly those (the file's list replaces
the defaults). Both are checked here by running the same index / search / list / status as the
sample tests, once with `$HOME` at an empty folder and once at a folder holding data_samples of
every harness at its default root: the answers must be identical. A third test shows the full
home really is read when nothing overrides it, so the first two cannot pass by accident.
"""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from cli_harness import SAMPLES, SINCE, UNTIL, Workspace, make_workspace

from moraine.harnesses import NAMES

# data_samples/<folder> → where that harness keeps it below $HOME when its variable is unset.
DEFAULT_ROOTS = {"codex": ".codex", "claude": ".claude", "pi": ".pi/agent", "qwen": ".qwen", "kimi": ".kimi",
                 "cursor": ".cursor", "copilot": ".copilot", "gemini/.gemini": ".gemini",
                 "opencode": ".local/share/opencode"}
EVERY_SOURCE = set(NAMES)
# "migration" is the sample tests' query; "test" and "error" also hit the other harnesses' samples.
QUERIES = ("migration", "test", "error")
# Clocks and timings: the only fields two runs over the same logs may differ in.
VOLATILE = {"seconds", "elapsed_ms", "met_sla", "last_ingest_ms", "snapshot_ms", "last_ingest_at", "created_at"}

Answers = dict[str, Any]


def _steady(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _steady(v) for k, v in value.items() if k not in VOLATILE}
    if isinstance(value, list):
        return [_steady(v) for v in value]
    return value


@pytest.fixture(scope="module")
def empty_home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("empty-home")


@pytest.fixture(scope="module")
def full_home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    home = tmp_path_factory.mktemp("full-home")
    for folder, root in DEFAULT_ROOTS.items():
        (home / root).parent.mkdir(parents=True, exist_ok=True)
        shutil.copytree(SAMPLES / folder, home / root)
    return home


@pytest.fixture(scope="module")
def ws(tmp_path_factory: pytest.TempPathFactory) -> Workspace:
    return make_workspace(tmp_path_factory.mktemp("isolation") / "ws")


def _base_env(ws: Workspace, home: Path) -> dict[str, str]:
    """Nothing from outside but PATH: no harness variable, no MORAINE_* setting."""
    return {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(home), "MORAINE_HOME": str(ws.state)}


def _every_root_named(ws: Workspace, home: Path) -> dict[str, str]:
    """The harness's environment (every harness variable set, into the workspace), `HOME` replaced."""
    return ws.env(HOME=str(home), XDG_CONFIG_HOME=str(home / ".config"))


def _sources_in_the_config_file(ws: Workspace, home: Path) -> dict[str, str]:
    """No harness variable at all: the roots come from `[[sources]]` of the file MORAINE_CONFIG names."""
    config = ws.root / "sources.toml"
    config.write_text("".join(f'[[sources]]\nname = "{name}"\nharness = "{name}"\nroot = "{root}"\n\n'
                              for name, root in (("codex", ws.codex / "sessions"),
                                                 ("claude-code", ws.claude / "projects"))))
    return {**_base_env(ws, home), "MORAINE_CONFIG": str(config)}


def _only_codex_and_claude_named(ws: Workspace, home: Path) -> dict[str, str]:
    """What the tests' environments used to name: the other harnesses' roots are left to `HOME`."""
    return {**_base_env(ws, home), "CODEX_HOME": str(ws.codex), "CLAUDE_CONFIG_DIR": str(ws.claude)}


@pytest.fixture(scope="module")
def answers(ws: Workspace) -> Callable[[Callable[[Workspace, Path], dict[str, str]], Path], Answers]:
    """The sample tests' commands over a fresh state, the same state path every time (cached)."""
    cache: dict[tuple[str, Path], Answers] = {}

    def run(make_env: Callable[[Workspace, Path], dict[str, str]], home: Path) -> Answers:
        key = (make_env.__name__, home)
        if key not in cache:
            shutil.rmtree(ws.state, ignore_errors=True)
            env = make_env(ws, home)
            got: Answers = {}
            for name, argv in [("index", ["index", "--json"]),
                               *((f"search {q}", ["search", q, "--json", "--n-hits", "50"]) for q in QUERIES),
                               ("list", ["list", "--since", SINCE, "--until", UNTIL, "--limit", "50", "--json"]),
                               ("status", ["status", "--json"])]:
                result = ws.run(*argv, env=env)
                assert result.returncode == 0, result
                got[name] = _steady(result.json())
            cache[key] = got
        return cache[key]

    return run


def _sources_listed(got: Answers) -> set[str]:
    """The harnesses of the sessions in March 2026 (the Cursor sample lies outside it)."""
    return {s["session"]["source"] if "session" in s else s["source"] for s in got["list"]["data"]["sessions"]}


def _sources_indexed(got: Answers) -> set[str]:
    return set(got["status"]["sources"])


def _sources_hit(got: Answers, query: str) -> set[str]:
    return {hit["session"]["source"] for hit in got[f"search {query}"]["data"]["results"]}


def _same(a: Answers, b: Answers) -> None:
    for name in a:
        assert a[name] == b[name], f"`moraine {name}` differs with the full home"


def test_every_root_named_in_the_environment_ignores_home(answers: Callable[..., Answers], empty_home: Path,
                                                          full_home: Path) -> None:
    empty, full = answers(_every_root_named, empty_home), answers(_every_root_named, full_home)
    assert _sources_indexed(empty) == _sources_listed(empty) == {"codex", "claude-code"}
    _same(empty, full)


def test_sources_of_the_config_file_replace_every_default_root(answers: Callable[..., Answers], empty_home: Path,
                                                               full_home: Path, ws: Workspace) -> None:
    empty, full = answers(_sources_in_the_config_file, empty_home), answers(_sources_in_the_config_file, full_home)
    roots = [(s["name"], s["root"]) for s in full["status"]["index"]["sources"]]
    assert roots == [("codex", str(ws.codex / "sessions")), ("claude-code", str(ws.claude / "projects"))]
    assert _sources_indexed(full) == _sources_listed(full) == {"codex", "claude-code"}
    _same(empty, full)
    # the same sessions and hits as the environment naming every root gives
    named = answers(_every_root_named, empty_home)
    assert full["list"] == named["list"] and all(full[f"search {q}"] == named[f"search {q}"] for q in QUERIES)


def test_a_full_home_is_read_when_nothing_overrides_it(answers: Callable[..., Answers], empty_home: Path,
                                                       full_home: Path) -> None:
    """The trap is real: naming only CODEX_HOME and CLAUDE_CONFIG_DIR leaves the seven other harnesses
    to `$HOME`, whose samples then show up in the list and in the hits of the queries above."""
    empty = answers(_only_codex_and_claude_named, empty_home)
    full = answers(_only_codex_and_claude_named, full_home)
    assert _sources_indexed(empty) == {"codex", "claude-code"}
    assert _sources_indexed(full) == EVERY_SOURCE
    assert _sources_listed(full) == EVERY_SOURCE - {"cursor"}
    assert {s["name"] for s in full["status"]["index"]["sources"]} == EVERY_SOURCE
    assert _sources_hit(full, "test") - {"codex", "claude-code"}
    assert _sources_hit(full, "error") - {"codex", "claude-code"}
    assert empty == answers(_every_root_named, empty_home)  # an empty home: nothing more to find


def test_the_full_home_is_laid_out_as_each_harness_expects(full_home: Path, monkeypatch: pytest.MonkeyPatch
                                                            ) -> None:
    """Each copy sits where `default_sources` looks for it, with the environment giving only HOME
    (every harness's default root is under the environment's `HOME`)."""
    from moraine.config import load_config

    monkeypatch.setenv("HOME", str(full_home))
    config = load_config({"home": str(full_home / "state")}, env={"HOME": str(full_home)})
    assert {s.harness for s in config.sources} == EVERY_SOURCE
    assert all(Path(s.root).is_dir() for s in config.sources), json.dumps([str(s.root) for s in config.sources])


def test_relative_roots_and_state_name_the_same_files_from_anywhere(tmp_path: Path) -> None:
    """`CODEX_HOME=data_samples/codex moraine index`, as the README's sample does, then commands run
    from another directory: the roots and the state were kept relative, so every log looked
    deleted there (and `forget --missing` forgot them all). They are made absolute when read."""
    import subprocess

    from cli_harness import MORAINE

    work = tmp_path / "work"
    shutil.copytree(SAMPLES / "codex", work / "samples" / "codex")
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(tmp_path / "home"),
           "CODEX_HOME": "samples/codex", "CLAUDE_CONFIG_DIR": "samples/none", "MORAINE_HOME": "state"}

    def run(cwd: Path, *argv: str) -> subprocess.CompletedProcess[str]:
        done = subprocess.run([str(MORAINE), *argv], env=env, cwd=cwd, capture_output=True, text=True, timeout=120,
                              check=False)
        assert "Traceback" not in done.stderr, done
        return done

    assert run(work, "index").returncode == 0
    log = sorted((work / "samples" / "codex").rglob("*.jsonl"))[0]
    assert run(work, "open", str(log), "--json").returncode == 0  # the absolute path of a log read by a relative one
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    env["MORAINE_HOME"] = str(work / "state")
    status = json.loads(run(elsewhere, "status", "--json").stdout)
    assert status["files"]["codex"] and all(row["exists"] for row in status["files"]["codex"]), status["files"]
    forgot = run(elsewhere, "forget", "--missing", "--json")
    assert forgot.returncode == 0 and json.loads(forgot.stdout)["forgotten"] == [], forgot
