"""Nothing a user does leaves a state that cannot be opened: random sequences of the user-facing
commands, checked after every step.

A seeded walk over what a person does in their first hours, on the real console script: `index`
before any log exists, the daemon started and stopped, the config changed to add, remove or
break roots (a typo, a file where a folder belongs), logs appearing, growing and vanishing,
`cleanup`, `snapshot --out` and `restore`, `reindex`, `forget --missing`. After every step each
read command answers (exit 0, no traceback), `doctor` finds the state healthy, and at the end an
MCP client finds what the logs hold. The walk's steps are printed on failure, so a failing seed
replays exactly.
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path

import pytest
from cli_harness import SAMPLES, Result, Workspace, make_workspace, mcp_calls

pytestmark = pytest.mark.slow

# Logs a person's agents may write, by the root they land under (relative to the workspace).
POOL: list[tuple[Path, Path]] = sorted(
    [(p, Path("codex") / p.relative_to(SAMPLES / "codex")) for p in (SAMPLES / "codex").rglob("*.jsonl")]
    + [(p, Path("claude") / p.relative_to(SAMPLES / "claude")) for p in (SAMPLES / "claude").rglob("*.jsonl")]
    + [(p, Path("elsewhere/pi") / p.relative_to(SAMPLES / "pi" / "sessions"))
       for p in (SAMPLES / "pi").rglob("*.jsonl")]
)
CONFIGS = {
    "defaults": None,
    "pi-added": '[[sources]]\nname = "codex"\nharness = "codex"\nroot = "{ws}/codex/sessions"\n'
                '[[sources]]\nname = "pi-elsewhere"\nharness = "pi"\nroot = "{ws}/elsewhere/pi"\n',
    "typo-root": '[[sources]]\nname = "codex"\nharness = "codex"\nroot = "{ws}/codx/sessions"\n',
    "file-as-root": '[[sources]]\nname = "claude-code"\nharness = "claude-code"\nroot = "{ws}/a-file"\n',
}


class Walk:
    def __init__(self, ws: Workspace, rng: random.Random) -> None:
        self.ws, self.rng = ws, rng
        self.steps: list[str] = []
        self.snapshots: list[Path] = []
        self.daemon = False

    def run(self, *argv: str, ok: frozenset[int] = frozenset({0})) -> Result:
        result = self.ws.run(*argv, timeout=180)
        assert result.returncode in ok, f"steps {self.steps}: {result!r}"
        return result

    # -- what a person does ----------------------------------------------------------------

    def index(self) -> None:
        self.run("index", ok=frozenset({0, 5}))  # 5: no logs under any root yet (the state stays usable)

    def daemon_start(self) -> None:
        self.run("daemon", ok=frozenset({0, 6}))
        self.daemon = True

    def daemon_stop(self) -> None:
        self.run("stop")
        self.daemon = False

    def config(self) -> None:
        name = self.rng.choice(sorted(CONFIGS))
        self.steps[-1] += f"({name})"
        path = self.ws.state / "config.toml"
        text = CONFIGS[name]
        if text is None:
            path.unlink(missing_ok=True)
        else:
            self.ws.state.mkdir(mode=0o700, exist_ok=True)
            path.write_text(text.format(ws=self.ws.root))

    def log_appears(self) -> None:
        source, rel = self.rng.choice(POOL)
        self.steps[-1] += f"({rel})"
        target = self.ws.root / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        data = source.read_bytes()
        if self.rng.random() < 0.3 and not target.exists():  # half a log now, the rest later
            cut = data.rfind(b"\n", 0, len(data) // 2) + 1
            data = data[:cut]
        target.write_bytes(data)

    def log_vanishes(self) -> None:
        present = [rel for _, rel in POOL if (self.ws.root / rel).exists()]
        if present:
            rel = self.rng.choice(present)
            self.steps[-1] += f"({rel})"
            (self.ws.root / rel).unlink()

    def cleanup(self) -> None:
        self.run("cleanup", "--retention-days", str(self.rng.choice([1, 30, 365])), "--yes")

    def snapshot(self) -> None:
        out = self.ws.root / f"snap-{len(self.snapshots)}"
        self.run("snapshot", "--out", str(out))
        self.snapshots.append(out)

    def restore(self) -> None:
        if self.snapshots:
            # refused (6: a daemon serves it) while a daemon holds the state; otherwise the snapshot becomes the state
            self.run("restore", str(self.rng.choice(self.snapshots)), ok=frozenset({6} if self.daemon else {0}))

    def reindex(self) -> None:
        self.run("reindex", ok=frozenset({0, 5}))  # 5: no log to rebuild from; the state is kept

    def forget_missing(self) -> None:
        self.run("forget", "--missing")

    # -- what must hold after every step ---------------------------------------------------

    def check(self) -> None:
        for argv in (("status", "--json"), ("list", "--since", "2000-01-01", "--json"), ("search", "fix", "--json")):
            self.run(*argv)
        doctor = self.run("doctor", "--json")
        assert json.loads(doctor.stdout)["healthy"], f"steps {self.steps}: {doctor!r}"


def _walk(ws: Workspace, seed: int, steps: int) -> Walk:
    rng = random.Random(seed)
    walk = Walk(ws, rng)
    actions: dict[str, Callable[[], None]] = {
        "index": walk.index, "daemon": walk.daemon_start, "stop": walk.daemon_stop, "config": walk.config,
        "log+": walk.log_appears, "log-": walk.log_vanishes, "cleanup": walk.cleanup, "snapshot": walk.snapshot,
        "restore": walk.restore, "reindex": walk.reindex, "forget": walk.forget_missing,
    }
    weights = {"index": 3, "log+": 4, "log-": 1, "config": 2, "daemon": 1, "stop": 1, "cleanup": 1,
               "snapshot": 1, "restore": 1, "reindex": 1, "forget": 1}
    walk.steps.append("index")  # the first thing a new user does, before any agent wrote a log
    walk.index()
    walk.check()
    try:
        for _ in range(steps):
            name = rng.choices(list(weights), weights=list(weights.values()))[0]
            walk.steps.append(name)
            actions[name]()
            walk.check()
    finally:
        if walk.daemon:
            ws.run("stop", timeout=180)
    return walk


@pytest.mark.parametrize("seed", [1, 2])
def test_no_sequence_of_commands_bricks_the_state(tmp_path: Path, seed: int) -> None:
    ws = make_workspace(tmp_path / "ws", copy_logs=False)
    (ws.root / "a-file").write_text("not a folder\n")
    walk = _walk(ws, seed, steps=18)
    # the end: the default roots again, a log written today, indexed and found over MCP (the
    # samples are months old: a cleanup of the walk may have forgotten them for good)
    (ws.state / "config.toml").unlink(missing_ok=True)
    _todays_log(ws.root / "codex" / "sessions")
    walk.run("index")
    [found] = mcp_calls(ws, ws.env(), [("search_sessions", {"query": "quokka"})])
    assert found["data"]["results"], f"steps {walk.steps}: {found}"


def _todays_log(root: Path) -> None:
    now = datetime.now(UTC)
    sid = "019d9999-0000-7000-8000-0000000000aa"
    ts = now.strftime("%Y-%m-%dT%H:%M:%S.000Z")
    lines = [{"timestamp": ts, "type": "session_meta", "payload": {"id": sid, "cwd": "/w"}},
             {"timestamp": ts, "type": "event_msg", "payload": {"type": "user_message", "message": "feed the quokka"}}]
    day = root / now.strftime("%Y/%m/%d")
    day.mkdir(parents=True, exist_ok=True)
    (day / f"rollout-{now:%Y-%m-%dT%H-%M-%S}-{sid}.jsonl").write_text("\n".join(json.dumps(x) for x in lines) + "\n")
