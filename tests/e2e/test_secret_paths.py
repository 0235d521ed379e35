"""A credential in a log's path (a Claude project folder is named after its cwd) never reaches the
state: the file is stored under a redacted key, which status, open and search show, and which
`forget --missing` still tells apart from a deleted log. Names, ids and argument keys are
redacted too."""

from __future__ import annotations

import json
from pathlib import Path

from cli_harness import Workspace, make_workspace

KEY = "sk-ant-api03-" + "Zx9Qw8Er7Ty6Ui5Op4As3Df2Gh1Jk0Lz_x-Yb" * 2
SID = "8913b891-0000-41db-821f-00000000feed"


def _log(ws: Workspace) -> Path:
    folder = ws.claude / "projects" / f"-home-dev-{KEY}"
    folder.mkdir(parents=True)
    path = folder / f"{SID}.jsonl"
    records = [
        {"type": "user", "sessionId": SID, "cwd": f"/home/dev/{KEY}", "gitBranch": f"feature/{KEY}",
         "timestamp": "2026-03-14T10:00:00.000Z", "message": {"role": "user", "content": "pathsecretprompt"}},
        {"type": "assistant", "sessionId": SID, "timestamp": "2026-03-14T10:00:01.000Z",
         "message": {"role": "assistant", "model": f"model-{KEY}", "content": [
             {"type": "tool_use", "id": f"toolu-{KEY}", "name": f"run-{KEY}",
              "input": {KEY: "value", "command": "echo pathsecretcall"}}]}},
    ]
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    return path


def test_a_secret_in_a_path_name_id_or_key_is_never_stored(tmp_path: Path) -> None:
    ws = make_workspace(tmp_path / "ws")
    log = _log(ws)
    assert ws.run("index").returncode == 0
    status = ws.run("status", "--json")
    assert KEY not in status.stdout
    keys = [f["path"] for f in status.json()["files"]["claude-code"] if "REDACTED" in f["path"]]
    assert len(keys) == 1 and keys[0].startswith("redacted-path:")
    types = ["--type", "user_input", "--type", "tool_call"]
    for word in ("pathsecretprompt", "pathsecretcall"):
        found = ws.run("search", word, "--json", *types)
        assert KEY not in found.stdout and found.json()["data"]["results"], found
        for hit in found.json()["data"]["results"]:
            for target in (hit["id"], hit["open"]["session_id"]):
                assert KEY not in ws.run("open", target, "--json").stdout
    for path, data in ws.state_bytes().items():
        assert KEY.encode() not in data, path
    assert ws.run("forget", "--missing", "--json").json()["forgotten"] == []  # still on disk: kept
    log.unlink()
    assert ws.run("forget", "--missing", "--json").json()["forgotten"] == keys


def test_a_secret_path_keeps_its_redacted_key_on_later_passes(tmp_path: Path) -> None:
    """Later passes take a known clean path as its own key without redacting it again; a path
    with a credential is never such a key, so it is redacted on every pass and its new lines
    land under the same redacted key."""
    ws = make_workspace(tmp_path / "ws")
    log = _log(ws)
    clean = ws.claude / "projects" / "-home-dev-plain" / "c0ffee00-0000-41db-821f-000000000001.jsonl"
    clean.parent.mkdir(parents=True)
    clean.write_text(json.dumps({"type": "user", "sessionId": "c0ffee00-0000-41db-821f-000000000001",
                                 "timestamp": "2026-03-14T10:00:00.000Z",
                                 "message": {"role": "user", "content": "plainfirstprompt"}}) + "\n")
    assert ws.run("index").returncode == 0
    with log.open("a") as fh:
        fh.write(json.dumps({"type": "user", "sessionId": SID, "timestamp": "2026-03-14T10:05:00.000Z",
                             "message": {"role": "user", "content": "pathsecretlater"}}) + "\n")
    assert ws.run("index").returncode == 0
    files = ws.run("status", "--json").json()["files"]["claude-code"]
    paths = {f["path"] for f in files}
    assert str(clean) in paths and not any(KEY in p for p in paths)
    assert len([p for p in paths if p.startswith("redacted-path:")]) == 1, paths
    found = ws.run("search", "pathsecretlater", "--json", "--type", "user_input").json()["data"]["results"]
    assert len(found) == 1 and KEY not in json.dumps(found)
    for path, data in ws.state_bytes().items():
        assert KEY.encode() not in data, path
