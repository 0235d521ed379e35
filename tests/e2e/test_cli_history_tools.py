"""The history tools from the command line: `moraine history` with a Moraine ID, a
harness's own session id or a log path; `moraine patterns` and `moraine track`; `moraine cleanup`,
which is always there, lists without changing anything on `--dry-run`, and on a terminal asks
before forgetting (a pseudo-terminal answers here: no, then yes). The real console script, real
logs on disk, no daemon."""

from __future__ import annotations

import json
import os
import pty
import selectors
import subprocess
import time
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from contract_harness import MORAINE, Claude, write_jsonl

NOW = datetime.now(UTC)
DAY = timedelta(days=1)
PROMPT = "forget these sessions for good? [y/N] "


def _iso(when: datetime, seconds: int = 0) -> str:
    return (when + timedelta(seconds=seconds)).strftime("%Y-%m-%dT%H:%M:%S.000Z")


@dataclass
class Logs:
    env: dict[str, str]
    paths: dict[str, Path]  # by age: "recent", "old"
    sids: dict[str, str]  # the harness's own session ids


def _session(root: Path, n: int, when: datetime) -> tuple[str, Path]:
    sid = f"5d1e2c03-aaaa-4bbb-8ccc-00000000{n:04d}"
    log = Claude(sid, f"/w/cli{n}")
    log.user(_iso(when), f"please fix widgetnumber{n}q in the parser")
    log.assistant(_iso(when, 1), [{"type": "text", "text": f"Fixed widgetnumber{n}q.\nShall I run the tests?"}],
                  "end_turn", f"m{n}_0")
    log.user(_iso(when, 2), "yes")
    log.assistant(_iso(when, 3), [{"type": "text", "text": "All tests pass."}], "end_turn", f"m{n}_1")
    path = root / "claude" / "projects" / f"-w-cli{n}" / f"{sid}.jsonl"
    write_jsonl(path, log.records)
    return sid, path


@pytest.fixture
def logs(tmp_path: Path) -> Logs:
    (tmp_path / "codex" / "sessions").mkdir(parents=True)
    home = tmp_path / "moraine-home"
    home.mkdir()
    (home / "config.toml").write_text("[retention]\ndelete_logs = false\n")
    recent_sid, recent = _session(tmp_path, 1, NOW - DAY)
    old_sid, old = _session(tmp_path, 2, NOW - 20 * DAY)
    env = {"MORAINE_HOME": str(home), "CODEX_HOME": str(tmp_path / "codex"),
           "CLAUDE_CONFIG_DIR": str(tmp_path / "claude"), "PATH": "/usr/bin:/bin", "HOME": str(tmp_path)}
    found = Logs(env, {"recent": recent, "old": old}, {"recent": recent_sid, "old": old_sid})
    assert _run(found, "index").returncode == 0
    return found


def _run(logs: Logs, *argv: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(MORAINE), *argv], env=logs.env, capture_output=True, text=True, check=False,
                          stdin=subprocess.DEVNULL, timeout=60)


def _json(logs: Logs, *argv: str) -> Any:
    done = _run(logs, *argv, "--json")
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def test_history_takes_moraine_ids_native_ids_and_log_paths(logs: Logs) -> None:
    everywhere = _json(logs, "history", "widgetnumber\\d+q")
    assert everywhere["total_matches"] == 4 and everywhere["searched_sessions_total"] == 2
    moraine_id = next(m["session_id"] for m in everywhere["matches"] if "widgetnumber1q" in m["matched_text"])
    for ref in (moraine_id, logs.sids["recent"], str(logs.paths["recent"])):
        one = _json(logs, "history", "widgetnumber\\d+q", "--session", ref, "-C", "1")
        assert one["searched_sessions"] == [moraine_id] and one["total_matches"] == 2, ref
        assert one["matches"][0]["line_number"] == 1 and one["matches"][0]["context_after"]
        opened = _json(logs, "open", one["matches"][0]["event_id"])  # every match leads somewhere
        assert "widgetnumber1q" in opened["data"]["content"]["text"]
    bad = _run(logs, "history", "(unclosed", "--json")
    assert bad.returncode == 2 and json.loads(bad.stdout)["code"] == "INVALID_REGEX"
    missing = _run(logs, "history", "x", "--session", "no-such-session", "--json")
    assert missing.returncode == 1 and json.loads(missing.stdout)["code"] == "SESSION_NOT_FOUND"


def test_patterns_and_track(logs: Logs) -> None:
    learned = _json(logs, "patterns", "--filter", "run the tests")
    assert learned["patterns"][0]["total_occurrences"] == 2
    assert learned["patterns"][0]["most_common_response"]["input_text"] == "yes"
    unknown = _run(logs, "track", "--session", "s1", "--prompt", "Deploy?", "--input", "no", "--json")
    assert unknown.returncode == 1 and json.loads(unknown.stdout)["code"] == "SESSION_NOT_FOUND"
    tracked = _json(logs, "track", "--session", logs.sids["recent"], "--prompt", "Deploy to prod?", "--input",
                    "not now", "--failed")  # a harness's own session id, as `claude --resume` shows it
    assert tracked["tracked"] is True
    deploy = _json(logs, "patterns", "--filter", "Deploy")["patterns"][0]
    assert deploy["total_occurrences"] == 1 and deploy["most_common_response"]["success_rate"] == 0.0


def test_cleanup_dry_run_then_without_a_terminal(logs: Logs) -> None:
    dry = _json(logs, "cleanup", "--retention-days", "7", "--dry-run")
    assert dry["dry_run"] is True and dry["total_deleted"] == 1
    gone_id = dry["deleted_sessions"][0]
    assert _run(logs, "open", gone_id).returncode == 0  # a dry run changes nothing
    refused = _run(logs, "cleanup", "--retention-days", "7")  # no terminal: nobody to ask, so no forgetting
    assert refused.returncode == 2 and gone_id in refused.stderr and "--yes" in refused.stderr
    assert _run(logs, "open", gone_id).returncode == 0
    done = _json(logs, "cleanup", "--retention-days", "7", "--yes")
    assert done["dry_run"] is False and done["deleted_sessions"] == [gone_id]
    assert _run(logs, "open", gone_id, "--json").returncode == 1
    assert logs.paths["old"].exists()  # delete_logs = false: the agent's own log stays
    bad = _run(logs, "cleanup", "--retention-days", "0", "--json")
    assert bad.returncode == 2 and json.loads(bad.stdout)["code"] == "INVALID_REQUEST"


CTRL_D = "\x04"  # end of input, typed at the start of a line


def _on_terminal(logs: Logs, answer: str, *argv: str) -> tuple[int, str]:
    """Run `moraine argv` with a pseudo-terminal as stdin and stdout; type `answer` at the prompt."""
    main, child = pty.openpty()
    proc = subprocess.Popen([str(MORAINE), *argv], env=logs.env, stdin=child, stdout=child, stderr=child)
    os.close(child)
    seen, answered, deadline = b"", False, time.monotonic() + 60
    # a selector (epoll), not select(): a worker that has opened many files gets a terminal whose
    # descriptor is past select()'s 1024 ("filedescriptor out of range", seen once in CI)
    watch = selectors.DefaultSelector()
    watch.register(main, selectors.EVENT_READ)
    try:
        while time.monotonic() < deadline:
            ready = watch.select(0.2)
            if ready:
                try:
                    chunk = os.read(main, 4096)
                except OSError:  # the child closed the terminal
                    break
                if not chunk:
                    break
                seen += chunk
            if not answered and PROMPT.encode() in seen:
                os.write(main, answer.encode() + (b"" if answer == CTRL_D else b"\n"))
                answered = True
            if proc.poll() is not None and not ready:
                break
        return proc.wait(timeout=30), seen.decode("utf-8", "replace")
    finally:
        watch.close()
        os.close(main)
        if proc.poll() is None:
            proc.kill()


def test_cleanup_asks_on_a_terminal(logs: Logs) -> None:
    gone_id = _json(logs, "cleanup", "--retention-days", "7", "--dry-run")["deleted_sessions"][0]
    code, shown = _on_terminal(logs, "n", "cleanup", "--retention-days", "7")
    assert PROMPT in shown and gone_id in shown  # what would go, before the question
    assert code == 0 and _run(logs, "open", gone_id).returncode == 0  # "no": nothing forgotten
    code, shown = _on_terminal(logs, CTRL_D, "cleanup", "--retention-days", "7")
    assert code == 0 and "Traceback" not in shown and _run(logs, "open", gone_id).returncode == 0  # Ctrl-D: no
    assert "nothing was forgotten" in shown and shown.count(gone_id) == 1  # said once, the list not twice
    code, shown = _on_terminal(logs, "y", "cleanup", "--retention-days", "7")
    assert PROMPT in shown and code == 0
    assert _run(logs, "open", gone_id, "--json").returncode == 1  # "yes": forgotten
    assert _json(logs, "cleanup", "--retention-days", "7", "--dry-run")["total_deleted"] == 0
