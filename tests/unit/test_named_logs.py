"""The logs a watcher names are looked at without a walk of the roots (`pipeline.named`): each
path is matched to its source the way the walk would (root, suffix, the harness's own file
rule and sub-folders, the exclude globs); a symlink is left to the walk, which judges it."""

from __future__ import annotations

import os
from pathlib import Path

from moraine.config import load_config
from moraine.ingest.pipeline import discover, named
from moraine.store.engine import Store


def test_named_paths_are_the_logs_a_walk_finds(tmp_path: Path) -> None:
    codex, gemini, xdg = tmp_path / "codex", tmp_path / "home", tmp_path / "xdg"
    files = [codex / "sessions/2026/03/01/rollout-a.jsonl", codex / "sessions/2026/03/01/notes.txt",
             codex / "sessions/skip/rollout-b.jsonl",
             gemini / ".gemini/tmp/p/chats/session-1.json", gemini / ".gemini/tmp/p/logs.json",
             xdg / "opencode/opencode.db", xdg / "opencode/snapshot/x/opencode.db",
             xdg / "opencode/storage/session/prj/ses_1.json"]
    for path in files:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("{}\n")
    link = codex / "sessions/2026/03/01/rollout-link.jsonl"
    os.symlink(files[0], link)
    env = {"CODEX_HOME": str(codex), "CLAUDE_CONFIG_DIR": str(tmp_path / "none"), "GEMINI_CLI_HOME": str(gemini),
           "XDG_DATA_HOME": str(xdg), "HOME": str(tmp_path / "none")}
    store = Store(load_config({"home": str(tmp_path / "state"), "ingest": {"exclude": ["*/skip/*"]}}, env=env))
    walked = {(p, a.name) for p, a in discover(store)[0] if not os.path.islink(p)}
    named_ = {(p, a.name) for p, a in named(store, [str(f) for f in files] + [str(link), str(tmp_path / "x.jsonl")])}
    assert named_ == walked == {(str(files[0]), "codex"), (str(files[3]), "gemini-cli"),
                                (str(files[5]), "opencode"), (str(files[7]), "opencode")}
