"""tools/make_corpus.py with Pi sessions in the mix: Moraine indexes exactly the searchable
events the generator counted for each harness, with no quarantined line; and `pi_share = 0`
draws nothing more from the generator's RNG, so a corpus is the same as without the option (and,
checked by hand against the generator before Pi was added, as before it: benchmarks stay
comparable)."""

from __future__ import annotations

import hashlib
import importlib.util
import sys
from pathlib import Path

import numpy as np

from moraine.config import load_config
from moraine.ingest.pipeline import ingest_once
from moraine.store.engine import Store

TOOL = Path(__file__).resolve().parents[2] / "tools" / "make_corpus.py"
COUNTED = ("user_input", "assistant_response", "tool_response")


def _generator():  # type: ignore[no-untyped-def]
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
    counted: dict[str, int] = {}
    for doc in np.flatnonzero(store.catalog.alive.view).tolist():
        event = store.catalog.event(doc)
        if event.type in COUNTED and not event.excluded:
            counted[event.source] = counted.get(event.source, 0) + 1
    assert counted == {"codex": by_harness["codex"]["searchable_events"],
                       "claude-code": by_harness["claude"]["searchable_events"],
                       "pi": by_harness["pi"]["searchable_events"]}


def test_without_pi_share_the_corpus_does_not_change(tmp_path: Path) -> None:
    gen = _generator()
    gen.generate(tmp_path / "a", 1500, seed=4, jobs=1)
    gen.generate(tmp_path / "b", 1500, seed=4, jobs=1, pi_share=0.0)
    assert _digest(tmp_path / "a") == _digest(tmp_path / "b")
    assert not (tmp_path / "a" / "pi").exists()
