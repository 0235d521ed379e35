"""Daemon benchmark: append-to-searchable latency and idle CPU, through the real bridge.

    python tools/bench_daemon.py [--corpus DIR] [--appends 200] [--idle 60] [--json]

Copies the corpus (default: the bundled data_samples) to a temp dir, starts `moraine daemon`
on it (pointed at every harness folder of the copy, as make_corpus.corpus_env names them), adds
one Codex and one Claude session, then appends a prompt with a unique word to
them (alternating, at random 50–250 ms intervals) and times append → first search_sessions
answer that finds the word, through the SDK's ClientSession over `moraine mcp`. Twice: with
the default read-before-answer (`daemon.catch_up_on_call`), and with only the watcher
(watchdog + `ingest.debounce_ms`), polling every 20 ms. Then measures the idle daemon's CPU
time over `--idle` seconds with no log activity, from /proc. With `--flood-mb N`, once more with
the default while a new Claude transcript of N MB is written beside the appends, in 2 MB bursts
every 0.2 s (a large log arriving: the daemon's passes are slices, so an agent's own new line is
found and no call waits for the flood); the slowest call is reported too.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from pathlib import Path
from typing import Any

import anyio
import numpy as np
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client

sys.path.insert(0, str(Path(__file__).resolve().parent))
from make_corpus import corpus_env

ROOT = Path(__file__).resolve().parent.parent
MORAINE = Path(sys.executable).parent / "moraine"


def iso(ms: int) -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(ms / 1000)) + f".{ms % 1000:03d}Z"


class Logs:
    """One new Codex rollout and one new Claude session to append prompts to."""

    def __init__(self, corpus: Path) -> None:
        now = int(time.time() * 1000)
        self.codex_id, self.claude_id = str(uuid.uuid4()), str(uuid.uuid4())
        day = time.strftime("%Y/%m/%d", time.gmtime())
        self.codex = corpus / "codex" / "sessions" / day / f"rollout-bench-{self.codex_id}.jsonl"
        self.claude = corpus / "claude" / "projects" / "-bench" / f"{self.claude_id}.jsonl"
        for path in (self.codex, self.claude):
            path.parent.mkdir(parents=True, exist_ok=True)
        meta = {"timestamp": iso(now), "type": "session_meta",
                "payload": {"id": self.codex_id, "timestamp": iso(now), "cwd": "/bench", "originator": "codex_cli_rs"}}
        self.codex.write_text(json.dumps(meta) + "\n")
        self.claude.write_text("")
        self.n = 0

    def append(self, word: str) -> None:
        self.n += 1
        ms = int(time.time() * 1000)
        text = f"please look at the {word} handler again"
        if self.n % 2:
            line = {"timestamp": iso(ms), "type": "event_msg", "payload": {"type": "user_message", "message": text}}
            path = self.codex
        else:
            line = {"type": "user", "sessionId": self.claude_id, "uuid": str(uuid.uuid4()), "timestamp": iso(ms),
                    "cwd": "/bench", "message": {"role": "user", "content": text}}
            path = self.claude
        with path.open("a") as fh:
            fh.write(json.dumps(line) + "\n")


def flood(path: Path, megabytes: int, done: threading.Event) -> None:
    """Write a Claude transcript of `megabytes` MB in 2 MB bursts every 0.2 s."""
    sid = str(uuid.uuid4())
    rng = random.Random(11)
    words = [f"flood{i}" for i in range(2000)]
    path.parent.mkdir(parents=True, exist_ok=True)
    written = 0
    while written < megabytes << 20 and not done.is_set():
        lines = []
        while sum(map(len, lines)) < 2 << 20:
            ms = int(time.time() * 1000)
            lines.append(json.dumps({"type": "user", "sessionId": sid, "uuid": str(uuid.uuid4()), "timestamp": iso(ms),
                                     "cwd": "/flood", "message": {"role": "user",
                                                                  "content": " ".join(rng.choices(words, k=300))}})
                         + "\n")
        with path.open("a") as fh:
            fh.write("".join(lines))
        written += sum(map(len, lines))
        time.sleep(0.2)


async def latencies(env: dict[str, str], logs: Logs, appends: int, rng: random.Random,
                    calls: list[float] | None = None) -> list[float]:
    server = StdioServerParameters(command=str(MORAINE), args=["mcp"], env=env)
    samples: list[float] = []
    async with stdio_client(server) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        await session.call_tool("search_sessions", {"query": "warmup"}, read_timeout_seconds=600)
        for _ in range(appends):
            await anyio.sleep(rng.uniform(0.05, 0.25))
            word = "w" + uuid.uuid4().hex[:12]
            logs.append(word)
            started = time.perf_counter()
            while True:
                call_started = time.perf_counter()
                result = await session.call_tool("search_sessions", {"query": word})
                if calls is not None:
                    calls.append(time.perf_counter() - call_started)
                if result.structured_content["data"]["result_count"]:
                    break
                if time.perf_counter() - started > 30:
                    raise SystemExit(f"{word} not searchable after 30 s")
                await anyio.sleep(0.02)
            samples.append(time.perf_counter() - started)
    return samples


def daemon_pid(home: Path) -> int:
    return int(json.loads((home / "run" / "daemon.json").read_text())["pid"])


def wait_backfilled(home: Path) -> None:
    deadline = time.monotonic() + 600
    while time.monotonic() < deadline:
        try:
            if json.loads((home / "run" / "daemon.json").read_text()).get("backfilled"):
                return
        except (OSError, ValueError):
            pass
        time.sleep(0.1)
    raise SystemExit("the daemon did not finish its backfill")


def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def summary(samples: list[float]) -> dict[str, float]:
    ms = np.array(samples) * 1000
    return {"p50_ms": float(np.percentile(ms, 50)), "p95_ms": float(np.percentile(ms, 95)),
            "max_ms": float(ms.max()), "n": len(samples)}


def flooded(env: dict[str, str], logs: Logs, appends: int, rng: random.Random, corpus: Path,
            megabytes: int) -> dict[str, Any]:
    """Append → searchable, and every call's time, while a large transcript is being written."""
    done, calls = threading.Event(), []
    writer = threading.Thread(target=flood, args=(corpus / "claude" / "projects" / "-flood" / f"{uuid.uuid4()}.jsonl",
                                                  megabytes, done))
    writer.start()
    try:
        report = summary(anyio.run(latencies, env, logs, appends, rng, calls))
    finally:
        done.set()
        writer.join()
    report["slowest_call_ms"] = max(calls) * 1000
    report["calls"] = len(calls)
    return report


def run(corpus: Path, appends: int, idle: float, seed: int, flood_mb: int = 0) -> dict[str, Any]:
    work = Path(tempfile.mkdtemp(prefix="mbd-"))
    try:
        shutil.copytree(corpus, work / "logs")
        logs = Logs(work / "logs")
        home = work / "s"
        # every harness folder the copy has (one it lacks is no source); QWEN_RUNTIME_DIR would win
        # over the copy's QWEN_HOME
        base = {**{k: v for k, v in os.environ.items() if k != "QWEN_RUNTIME_DIR"}, "MORAINE_HOME": str(home),
                **corpus_env(work / "logs")}
        report: dict[str, Any] = {"corpus": str(corpus), "appends": appends}
        rng = random.Random(seed)
        for mode, extra in (("read_before_answer", {}), ("watcher_only", {"MORAINE_DAEMON_CATCH_UP_ON_CALL": "false"})):
            env = {**base, **extra}
            subprocess.run([str(MORAINE), "daemon"], env=env, check=True, capture_output=True)
            wait_backfilled(home)
            report[mode] = summary(anyio.run(latencies, env, logs, appends, rng))
            if mode == "read_before_answer" and flood_mb:
                report["during_flood"] = flooded(env, logs, appends, rng, work / "logs", flood_mb)
            if mode == "watcher_only":
                pid = daemon_pid(home)
                time.sleep(5)  # let the last pass and status writes settle
                before, started = cpu_seconds(pid), time.monotonic()
                time.sleep(idle)
                used = cpu_seconds(pid) - before
                report["idle"] = {"seconds": time.monotonic() - started, "cpu_s": used,
                                  "cpu_percent_of_one_core": 100 * used / (time.monotonic() - started)}
            subprocess.run([str(MORAINE), "stop"], env=env, check=True, capture_output=True)
        return report
    finally:
        subprocess.run([str(MORAINE), "--home", str(work / "s"), "stop"], capture_output=True, check=False)
        shutil.rmtree(work, ignore_errors=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--corpus", type=Path, default=ROOT / "data_samples",
                        help="a directory with codex/, claude/ and the other harnesses' folders (data_samples "
                             "or a make_corpus.py output)")
    parser.add_argument("--appends", type=int, default=200)
    parser.add_argument("--idle", type=float, default=60.0)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--flood-mb", type=int, default=0, help="also measure while a log of this many MB is written")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    report = run(args.corpus, args.appends, args.idle, args.seed, args.flood_mb)
    if args.json:
        print(json.dumps(report, indent=2))
        return
    for mode in ("read_before_answer", "watcher_only"):
        r = report[mode]
        print(f"append → searchable ({mode}): P50 {r['p50_ms']:.0f} ms, P95 {r['p95_ms']:.0f} ms, "
              f"max {r['max_ms']:.0f} ms over {r['n']} appends")
    if "during_flood" in report:
        r = report["during_flood"]
        print(f"append → searchable while {args.flood_mb} MB are written: P50 {r['p50_ms']:.0f} ms, "
              f"P95 {r['p95_ms']:.0f} ms, max {r['max_ms']:.0f} ms over {r['n']} appends; "
              f"slowest of {r['calls']} calls {r['slowest_call_ms']:.0f} ms")
    i = report["idle"]
    print(f"idle daemon: {i['cpu_s']:.2f} s CPU in {i['seconds']:.0f} s = "
          f"{i['cpu_percent_of_one_core']:.2f}% of one core")


if __name__ == "__main__":
    main()
