"""The list of harnesses lives in `moraine.harnesses` alone: the adapters, the configuration, the
resume commands, the source filters and the samples all follow it, so adding a harness is a row
there, an adapter and its samples, and this test names whatever was forgotten."""

from __future__ import annotations

from pathlib import Path

import pytest

from moraine.config import default_sources, load_config
from moraine.errors import ConfigError
from moraine.harnesses import HARNESSES, NAMES, VARIABLES
from moraine.mcp_server.filters import ScopeArguments
from moraine.mcp_server.views import resume_command
from moraine.sources import ADAPTERS
from moraine.store.session import Session

SAMPLES = Path(__file__).resolve().parents[2] / "data_samples"


def test_every_harness_has_an_adapter_and_every_adapter_a_harness() -> None:
    assert tuple(ADAPTERS) == NAMES
    assert all(adapter.name == name for name, adapter in ADAPTERS.items())


def test_every_harness_has_samples() -> None:
    folders = {path.name for path in SAMPLES.iterdir() if path.is_dir()}  # claude-code's in claude/, ...
    assert folders == {name.split("-")[0] for name in NAMES}


def test_the_default_configuration_reads_every_root_from_the_table(tmp_path: Path) -> None:
    env = {"HOME": str(tmp_path)}
    sources = default_sources(env)
    assert [s["harness"] for s in sources] == list(NAMES)
    assert [s["name"] for s in sources] == list(NAMES)
    for source in sources:
        harness = HARNESSES[source["harness"]]
        assert Path(source["root"]) == harness.root(env, tmp_path)
        assert Path(source["root"]).is_relative_to(tmp_path)
        assert source.get("optional", False) == harness.optional
    assert [s["harness"] for s in sources if not s.get("optional")] == ["codex", "claude-code"]


@pytest.mark.parametrize("variable", VARIABLES)
def test_each_variable_moves_its_harness_root(tmp_path: Path, variable: str) -> None:
    moved = tmp_path / "elsewhere"
    env = {"HOME": str(tmp_path / "home"), variable: str(moved)}
    roots = {s["harness"]: Path(s["root"]) for s in default_sources(env)}
    owners = [h.name for h in HARNESSES.values() if variable in h.variables]
    assert owners
    for name in owners:
        assert roots[name].is_relative_to(moved), (name, roots[name])
    assert all(not root.is_relative_to(moved) for name, root in roots.items() if name not in owners)


def test_the_configuration_refuses_an_unknown_harness_naming_the_known(tmp_path: Path) -> None:
    (tmp_path / "config.toml").write_text('[[sources]]\nname = "x"\nharness = "aider"\nroot = "/tmp/x"\n')
    with pytest.raises(ConfigError) as caught:
        load_config(env={"HOME": str(tmp_path), "MORAINE_HOME": str(tmp_path)})
    assert "aider" in str(caught.value) and all(name in str(caught.value) for name in NAMES)


def test_the_source_filter_offers_every_harness() -> None:
    assert ScopeArguments.input_schema()["properties"]["source"]["items"]["enum"] == list(NAMES)


@pytest.mark.parametrize("name", NAMES)
def test_every_harness_session_has_a_resume_command(name: str) -> None:
    session = Session(key=f"{name}:abc-123", sid="ses_x", source=name, cwd="/home/u/my project")
    command = resume_command(session)
    assert command is not None and "abc-123" in command
    if HARNESSES[name].resume_in_cwd:
        assert command.startswith("cd '/home/u/my project' && ")
    else:
        assert not command.startswith("cd ")
    child = Session(key=f"{name}:abc-123/agent-1", sid="ses_y", source=name, parent_key=f"{name}:abc-123")
    assert resume_command(child) is None  # a subagent's transcript is not a session of its own to resume


def test_a_redacted_working_directory_leaves_the_cd_out() -> None:
    """A folder whose name held a credential is stored redacted; `cd` into it would fail, so the
    command is given without it (the harness's own id still finds the session from its folder)."""
    session = Session(key="claude-code:abc-123", sid="ses_x", source="claude-code",
                      cwd="/home/dev/[REDACTED:github-token]")
    assert resume_command(session) == "claude --resume abc-123"
