"""The user's side of redaction, through the real CLI: counts per rule in `moraine status`,
`[redaction] extra_patterns` and `allow`, the loud off switch, and new rules applied to the
whole state by `moraine reindex`."""

from __future__ import annotations

import json
import random
import string
from pathlib import Path

from cli_harness import Workspace, make_workspace, mcp_calls

SID = "0199aaaa-bbbb-7ccc-8ddd-000000000042"
_RNG = random.Random(20261124)


def _rand(alphabet: str, n: int) -> str:
    return "".join(_RNG.choice(alphabet) for _ in range(n))


# Assembled at run time: no credential-shaped literal in the repository.
AWS = "AK" + "IA" + _rand(string.ascii_uppercase + "234567", 16)
AWS_ALLOWED = "AK" + "IA" + _rand(string.ascii_uppercase + "234567", 16)
GITHUB = "gh" + "p_" + _rand(string.ascii_letters + string.digits, 36)
PASSWORD = "Vq7!" + _rand(string.ascii_letters + string.digits, 10) + "#2"
ACME = "acme_live_" + _rand(string.ascii_lowercase + string.digits, 24)  # an in-house format no rule knows


def _write_log(ws: Workspace) -> None:
    folder = ws.codex / "sessions" / "2026" / "03" / "14"
    folder.mkdir(parents=True)
    records = [
        {"timestamp": "2026-03-14T10:00:00.000Z", "type": "session_meta",
         "payload": {"id": SID, "cwd": "/work/app", "timestamp": "2026-03-14T10:00:00.000Z"}},
        {"timestamp": "2026-03-14T10:00:01.000Z", "type": "event_msg",
         "payload": {"type": "user_message", "message": f"deploy with {AWS} and {GITHUB} please, zebracolt"}},
        {"timestamp": "2026-03-14T10:00:02.000Z", "type": "event_msg",
         "payload": {"type": "agent_message", "message": f"set DB_PASSWORD={PASSWORD} and the key {AWS}"}},
        {"timestamp": "2026-03-14T10:00:03.000Z", "type": "event_msg",
         "payload": {"type": "agent_message", "message": f"the acme client uses {ACME}; the test key {AWS_ALLOWED}"}},
    ]
    (folder / f"rollout-2026-03-14T10-00-00-{SID}.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records))


def _workspace(tmp_path: Path, config: str = "") -> Workspace:
    ws = make_workspace(tmp_path / "ws", copy_logs=False)
    _write_log(ws)
    ws.state.mkdir(parents=True, mode=0o700)
    if config:
        (ws.state / "config.toml").write_text(config)
    return ws


def _state_has(ws: Workspace, value: str) -> bool:
    return any(value.encode() in data for data in ws.state_bytes().values())


def test_status_counts_placeholders_per_rule(tmp_path: Path) -> None:
    ws = _workspace(tmp_path)
    assert ws.run("index").returncode == 0
    status = ws.run("status", "--json").json()
    red = status["index"]["redactions"]
    assert red["enabled"] is True and red["rules_changed"] is False
    assert red["by_rule"] == {"aws-access-token": 3, "github-token": 1, "secret-assignment": 1}, red
    assert red["total"] == 5
    text = ws.run("status").stdout
    assert "redaction: on; 5 credentials redacted" in text and "[REDACTED:aws-access-token] 3" in text
    # index_status over MCP carries the same figures (one function builds both)
    [reply] = mcp_calls(ws, ws.env(), [("index_status", {})])
    assert reply["data"]["redactions"] == red


def test_extra_patterns_and_allow_apply_on_reindex(tmp_path: Path) -> None:
    ws = _workspace(tmp_path)
    assert ws.run("index").returncode == 0
    assert _state_has(ws, ACME) and not _state_has(ws, AWS_ALLOWED)  # unknown format kept; every AWS key redacted
    (ws.state / "config.toml").write_text(
        '[redaction]\nallow = ["' + AWS_ALLOWED + '"]\n\n'
        '[[redaction.extra_patterns]]\nname = "acme"\npattern = "acme_live_[a-z0-9]{24}"\n')
    status = ws.run("status", "--json").json()["index"]["redactions"]
    assert status["rules_changed"] is True and status["extra_patterns"] == 1 and status["allow_patterns"] == 1
    assert "moraine reindex" in ws.run("status").stdout
    assert ws.run("reindex").returncode == 0
    assert not _state_has(ws, ACME), "the new rule was applied to the events already indexed"
    assert _state_has(ws, AWS_ALLOWED), "an allowed value is kept"
    assert not _state_has(ws, AWS) and not _state_has(ws, GITHUB) and not _state_has(ws, PASSWORD)
    status = ws.run("status", "--json").json()["index"]["redactions"]
    assert status["rules_changed"] is False
    assert status["by_rule"] == {"aws-access-token": 2, "github-token": 1, "secret-assignment": 1, "user-acme": 1}
    found = ws.run("search", "acme client", "--json", "--type", "assistant_response").json()
    [hit] = found["data"]["results"]
    opened = ws.run("open", hit["id"], "--json").json()["data"]["content"]["text"]
    assert "[REDACTED:user-acme]" in opened and AWS_ALLOWED in opened


def test_a_bad_pattern_is_a_config_error(tmp_path: Path) -> None:
    ws = _workspace(tmp_path, '[[redaction.extra_patterns]]\nname = "broken"\npattern = "(unclosed"\n')
    result = ws.run("status")
    assert result.returncode == 3, result
    assert "extra_patterns broken: not a valid RE2 pattern" in result.stderr, result


def test_turning_redaction_off_takes_two_settings_and_is_loud(tmp_path: Path) -> None:
    ws = _workspace(tmp_path, "[redaction]\nenabled = false\n")
    refused = ws.run("index")
    assert refused.returncode == 3 and "store_secrets_in_plain_text" in refused.stderr, refused
    assert not (ws.state / "wal").exists(), "nothing was indexed"
    (ws.state / "config.toml").write_text("[redaction]\nenabled = false\nstore_secrets_in_plain_text = true\n")
    indexed = ws.run("index")
    assert indexed.returncode == 0 and "REDACTION IS OFF" in indexed.stderr, indexed
    assert _state_has(ws, GITHUB), "off means off: the value is stored as logged"
    for argv in (["status"], ["search", "zebracolt"], ["list"]):
        assert "REDACTION IS OFF" in ws.run(*argv).stderr, argv
    status = ws.run("status", "--json").json()["index"]["redactions"]
    assert status["enabled"] is False
    [reply] = mcp_calls(ws, ws.env(), [("index_status", {})])
    assert any("REDACTION IS OFF" in w for w in reply["warnings"])
