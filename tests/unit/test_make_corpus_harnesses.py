"""tools/make_corpus.py with other harnesses in the mix: Moraine indexes exactly the searchable
events the generator counted for each harness (Gemini CLI's JSONL chats and legacy documents
add up under one source; OpenCode's sessions are rows of one SQLite database), with no
quarantined record and no unreadable file, and `moraine status` / `index_status` list every
source; OpenCode's database is the same whatever the number of worker processes; and the
options draw nothing more from the generator's RNG unless used, so a default corpus is byte for
byte the one generated before they existed (pinned digests): benchmarks stay comparable."""

from __future__ import annotations

import hashlib
import importlib.util
import json
import sqlite3
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


def _by_source(gen: ModuleType, by_harness: dict[str, dict[str, int]], field: str) -> dict[str, int]:
    """A summary field added up per Moraine source (gemini-cli: its two forms)."""
    sources = {h.key: h.source for h in gen.HARNESSES}
    out: dict[str, int] = {}
    for key, h in by_harness.items():
        out[sources[key]] = out.get(sources[key], 0) + h[field]
    return out


def _opencode_rows(db: Path) -> list[tuple[object, ...]]:
    con = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    try:
        return [(table, *row) for table in ("project", "session", "message", "part")
                for row in con.execute(f"SELECT * FROM {table} ORDER BY rowid")]
    finally:
        con.close()


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
    assert {"gemini-cli-json", "opencode"} <= set(by_harness)
    expected = _by_source(gen, by_harness, "searchable_events")
    assert sum(expected.values()) == summary["searchable_events"] >= 4000
    assert (corpus / "kimi" / "kimi.json").is_file() and list(corpus.glob("gemini/.gemini/tmp/*/.project_root"))
    legacy = list(corpus.glob("gemini/.gemini/tmp/*/chats/session-*.json"))
    assert len(legacy) == by_harness["gemini-cli-json"]["files"] == by_harness["gemini-cli-json"]["sessions"]
    document = json.loads(legacy[0].read_text(encoding="utf-8"))
    assert {"sessionId", "projectHash", "startTime", "lastUpdated", "messages"} <= set(document)

    # OpenCode: one database in WAL mode, OpenCode's tables, one session row per session
    db = corpus / "opencode" / "opencode.db"
    assert sorted(p.name for p in db.parent.iterdir()) == ["opencode.db"]
    assert by_harness["opencode"]["files"] == 1
    con = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    try:
        assert con.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        rows = dict(con.execute("SELECT 'session', count(*) FROM session UNION ALL SELECT 'message', count(*) "
                                "FROM message UNION ALL SELECT 'part', count(*) FROM part"))
        assert rows["session"] == by_harness["opencode"]["sessions"] and rows["part"] > rows["message"] > 0
        ids = con.execute("SELECT (SELECT min(id) FROM session), (SELECT min(id) FROM message), "
                          "(SELECT min(id) FROM part)").fetchone()
        assert [i.split("_")[0] for i in ids] == ["ses", "msg", "prt"]
        directories = {row[0] for row in con.execute("SELECT DISTINCT directory FROM session")}
        assert directories <= {row[0] for row in con.execute("SELECT worktree FROM project")}
    finally:
        con.close()

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
    files, sessions = _by_source(gen, by_harness, "files"), _by_source(gen, by_harness, "sessions")
    assert listed == {source: (files[source], sessions[source]) for source in expected}
    assert listed["opencode"] == (1, by_harness["opencode"]["sessions"])

    store = Store(load_config({"home": str(state)}, env=gen.corpus_env(corpus)), create=False)
    assert _counted(store) == expected
    assert store.stats.issues == [] and store.file_issues == {}
    data = index_status.run(store, {}).structured["data"]
    assert {row["harness"] for row in data["sources"] if row["sessions"]} == set(expected)
    assert "opencode" in set(expected) and "gemini-cli" in set(expected)
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
    assert gen.parse_harness_mix("all") == {h.key: 1.0 for h in gen.HARNESSES}
    assert {"gemini-cli-json", "opencode"} <= set(gen.parse_harness_mix("all"))
    assert gen.parse_harness_mix(" codex=0.3, claude=0.7") == {"codex": 0.3, "claude": 0.7}
    summary = gen.generate(tmp_path / "a", 300, seed=1, jobs=1, harness_mix={"kimi-cli": 3, "cursor": 1})
    assert summary["harness_mix"] == {"kimi-cli": 0.75, "cursor": 0.25}
    assert list(summary["by_harness"]) == ["codex", "claude", "pi", "kimi-cli", "cursor"]
    assert summary["by_harness"]["codex"]["sessions"] == summary["by_harness"]["claude"]["sessions"] == 0
    for bad in ("codex", "codex=x", "nosuch=1", "codex=-1", "codex=0,pi=0"):
        with pytest.raises(ValueError):
            gen.generate(tmp_path / "bad", 100, jobs=1, harness_mix=bad)
    with pytest.raises(ValueError):
        gen.generate(tmp_path / "bad", 100, jobs=1, harness_mix="all", pi_share=0.2)
    assert gen.main(["--out", str(tmp_path / "cli"), "--events", "100", "--harness-mix", "all",
                     "--codex-share", "0.5"]) == 2
    with pytest.raises(FileExistsError):  # every harness's tree is protected, not only Codex's and Claude's
        gen.generate(tmp_path / "a", 300, seed=1, jobs=1, harness_mix={"kimi-cli": 3, "cursor": 1})


def test_opencode_database_does_not_depend_on_jobs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Workers hand OpenCode rows back and the parent writes them in session order: with worker
    processes the database holds the same rows (and the other files are the same bytes)."""
    gen = _generator()
    monkeypatch.syspath_prepend(str(TOOL.parent))  # spawned workers import make_corpus by name
    mix = "opencode=3,gemini-cli-json=1,codex=1"
    one = gen.generate(tmp_path / "one", 3000, seed=5, harness_mix=mix, jobs=1)
    two = gen.generate(tmp_path / "two", 3000, seed=5, harness_mix=mix, jobs=2)
    assert one["by_harness"] == two["by_harness"] and one["by_harness"]["opencode"]["sessions"] > 1
    db = Path("opencode") / "opencode.db"
    assert _opencode_rows(tmp_path / "one" / db) == _opencode_rows(tmp_path / "two" / db)
    for corpus in ("one", "two"):
        (tmp_path / corpus / db).unlink()
    assert _digest(tmp_path / "one") == _digest(tmp_path / "two")
