"""tools/make_corpus.py with other harnesses in the mix: Moraine indexes exactly the searchable
events the generator counted for each harness, with no quarantined line and no unreadable file,
and `moraine status` / `index_status` list every source; and the options draw nothing more from
the generator's RNG unless used, so a default corpus is byte for byte the one generated before
they existed (pinned digests): benchmarks stay comparable."""

from __future__ import annotations

import hashlib
import importlib.util
import json
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import numpy as np
import pytest

from moraine.cli import run as moraine
from moraine.config import load_config
from moraine.ingest.pipeline import ingest_once
from moraine.mcp_server.tools import index_status
from moraine.store.engine import Store

TOOL = Path(__file__).resolve().parents[2] / "tools" / "make_corpus.py"
COUNTED = ("user_input", "assistant_response", "tool_response")
# sha256 of the files of generate(DIR, 1500, seed=4, jobs=1) [and with pi_share=0.25], as written
# by the generator of commit fa336b7, before --harness-mix: a default corpus must not change.
DEFAULT_DIGEST = "d933f489f85f2b39f060fe91aa04002dfc4ff64e260145f8db24bcaddb95fb28"
PI_DIGEST = "74604f471addf9952589c180b0c3bc941cfc9af0b259c9201ecef32889f12eb6"


def _generator() -> ModuleType:
    spec = importlib.util.spec_from_file_location("make_corpus", TOOL)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["make_corpus"] = module
    spec.loader.exec_module(module)
    return module


def _digest(root: Path) -> str:
    digest = hashlib.sha256()
    for path in sorted(p for p in root.rglob("*") if p.is_file()):
        digest.update(str(path.relative_to(root)).encode() + path.read_bytes())
    return digest.hexdigest()


def _counted(store: Store) -> dict[str, int]:
    """Searchable events per source, as the generator counts them."""
    counted: dict[str, int] = {}
    for doc in np.flatnonzero(store.catalog.alive.view).tolist():
        event = store.catalog.event(doc)
        if event.type in COUNTED and not event.excluded:
            counted[event.source] = counted.get(event.source, 0) + 1
    return counted


def test_pi_sessions_count_as_the_generator_says(tmp_path: Path) -> None:
    summary = _generator().generate(tmp_path / "corpus", 2500, seed=11, pi_share=0.5, jobs=1)
    by_harness = summary["by_harness"]
    assert by_harness["pi"]["sessions"] > 0 and by_harness["codex"]["sessions"] + by_harness["claude"]["sessions"] > 0
    corpus = tmp_path / "corpus"
    env = {"CODEX_HOME": str(corpus / "codex"), "CLAUDE_CONFIG_DIR": str(corpus / "claude"),
           "PI_CODING_AGENT_DIR": str(corpus / "pi")}
    store = Store(load_config({"home": str(tmp_path / "state"), "store": {"fsync": "never"}}, env=env))
    ingest_once(store)
    assert store.stats.issues == []
    assert _counted(store) == {"codex": by_harness["codex"]["searchable_events"],
                               "claude-code": by_harness["claude"]["searchable_events"],
                               "pi": by_harness["pi"]["searchable_events"]}


def test_every_harness_counts_as_the_generator_says(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    gen = _generator()
    corpus, state = tmp_path / "corpus", tmp_path / "state"
    summary = gen.generate(corpus, 4000, seed=2, harness_mix="all", jobs=1)
    harnesses = {h.key: h.source for h in gen.HARNESSES}
    by_harness = summary["by_harness"]
    assert list(by_harness) == list(harnesses) and all(h["sessions"] > 0 for h in by_harness.values())
    expected = {harnesses[key]: h["searchable_events"] for key, h in by_harness.items()}
    assert sum(expected.values()) == summary["searchable_events"] >= 4000
    assert (corpus / "kimi" / "kimi.json").is_file() and list(corpus.glob("gemini/.gemini/tmp/*/.project_root"))

    # `moraine index` and `moraine status`, pointed at the corpus by the harnesses' variables only
    for name in ("MORAINE_HOME", "MORAINE_CONFIG", "QWEN_RUNTIME_DIR"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    for name, value in gen.corpus_env(corpus).items():
        monkeypatch.setenv(name, value)
    assert moraine(["--home", str(state), "index", "--json"]) == 0
    capsys.readouterr()
    assert moraine(["--home", str(state), "status", "--json"]) == 0
    status: dict[str, Any] = json.loads(capsys.readouterr().out)
    assert status["quarantined"] == [] and status["unreadable_files"] == {}
    listed = {row["name"]: (row["files"], row["sessions"]) for row in status["index"]["sources"]}
    assert listed == {harnesses[key]: (h["files"], h["sessions"]) for key, h in by_harness.items()}

    store = Store(load_config({"home": str(state)}, env=gen.corpus_env(corpus)), create=False)
    assert _counted(store) == expected
    assert store.stats.issues == [] and store.file_issues == {}
    data = index_status.run(store, {}).structured["data"]
    assert {row["harness"] for row in data["sources"] if row["sessions"]} == set(expected)
    assert data["quarantined_lines"] == 0 and data["unreadable_files"] == 0


def test_the_default_corpus_does_not_change(tmp_path: Path) -> None:
    gen = _generator()
    gen.generate(tmp_path / "a", 1500, seed=4, jobs=1)
    assert _digest(tmp_path / "a") == DEFAULT_DIGEST
    assert sorted(p.name for p in (tmp_path / "a").iterdir()) == ["claude", "codex"]
    gen.generate(tmp_path / "b", 1500, seed=4, jobs=1, pi_share=0.0)
    assert _digest(tmp_path / "b") == DEFAULT_DIGEST
    gen.generate(tmp_path / "c", 1500, seed=4, jobs=1, pi_share=0.25)
    assert _digest(tmp_path / "c") == PI_DIGEST
    # a mix of Codex and Claude in even shares draws as the default does, whatever the order given
    gen.generate(tmp_path / "d", 1500, seed=4, jobs=1, harness_mix="claude-code=2,codex=2")
    assert _digest(tmp_path / "d") == DEFAULT_DIGEST


def test_harness_mix_option(tmp_path: Path) -> None:
    gen = _generator()
    assert gen.parse_harness_mix("all") == {h.source: 1.0 for h in gen.HARNESSES}
    assert gen.parse_harness_mix(" codex=0.3, claude=0.7") == {"codex": 0.3, "claude": 0.7}
    summary = gen.generate(tmp_path / "a", 300, seed=1, jobs=1, harness_mix={"kimi-cli": 3, "cursor": 1})
    assert summary["harness_mix"] == {"kimi-cli": 0.75, "cursor": 0.25}
    assert list(summary["by_harness"]) == ["codex", "claude", "pi", "kimi-cli", "cursor"]
    assert summary["by_harness"]["codex"]["sessions"] == summary["by_harness"]["claude"]["sessions"] == 0
    for bad in ("codex", "codex=x", "opencode=1", "codex=-1", "codex=0,pi=0"):
        with pytest.raises(ValueError):
            gen.generate(tmp_path / "bad", 100, jobs=1, harness_mix=bad)
    with pytest.raises(ValueError):
        gen.generate(tmp_path / "bad", 100, jobs=1, harness_mix="all", pi_share=0.2)
    assert gen.main(["--out", str(tmp_path / "cli"), "--events", "100", "--harness-mix", "all",
                     "--codex-share", "0.5"]) == 2
    with pytest.raises(FileExistsError):  # every harness's tree is protected, not only Codex's and Claude's
        gen.generate(tmp_path / "a", 300, seed=1, jobs=1, harness_mix={"kimi-cli": 3, "cursor": 1})
