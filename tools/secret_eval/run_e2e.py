"""End-to-end secret evaluation: write logs holding the corpora, run the real CLI, read everything back.

    .venv/bin/python tools/secret_eval/run_e2e.py --seed 1                 # the full run
    .venv/bin/python tools/secret_eval/run_e2e.py --seed 1 --per-kind 1    # a small slice
    .venv/bin/python tools/secret_eval/run_e2e.py --seed 1 --json out.json # the figures as JSON too

Steps (all in a temporary workspace; nothing outside it is read or written):
 1. placements (`places.build_placements`): every kind x rendering of the public and people corpora
    and the lookalikes, in every place of Claude Code and Codex logs, plus a canary per place;
 2. most log files are written, `moraine index` runs (CODEX_HOME, CLAUDE_CONFIG_DIR, MORAINE_HOME,
    HOME and every other harness root pointed into the workspace); the rest are written after, so
    that the MCP server's catch-up puts them in the write-ahead log (the at-rest check then reads
    WAL frames as well as a published snapshot);
 3. `moraine mcp --standalone`: list_sessions (every page), open every session (every turn page),
    every turn (every event page), every event (every content page); search_sessions for every
    secret and for its first 12 characters over every event type; search_session_history with
    the secret as a literal pattern; index_status; then `moraine status --json`;
 4. at rest: `tools/state_strings.py` decodes every file of MORAINE_HOME.
A secret leaked when 10 consecutive characters of it (or of its encoded form) show up anywhere
in 3 or 4 (see leaks.py); a lookalike was altered when it does not come back whole.
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
import time
from collections import Counter, defaultdict
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

if __package__ in (None, ""):  # run as a script: make `secret_eval` and `state_strings` importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from secret_eval.leaks import SECRET_CORPORA, Findings, Matcher, recall_rows, table
from secret_eval.mcp_client import Mcp
from secret_eval.places import (
    ALL_CORPORA,
    CORPORA,
    HARNESSES,
    LOOKALIKE_CORPORA,
    PLACES,
    WINDOW_END,
    WINDOW_START,
    LogFile,
    Placement,
    build_logs,
    build_placements,
)
from state_strings import state_strings

REPO = Path(__file__).resolve().parents[2]
MORAINE = Path(sys.executable).parent / "moraine"
EVENT_TYPES = ["user_input", "assistant_response", "reasoning", "tool_call", "tool_response", "compaction", "system",
               "runtime"]
HARNESS_ROOTS = ("PI_CODING_AGENT_DIR", "QWEN_HOME", "QWEN_RUNTIME_DIR", "KIMI_SHARE_DIR", "CURSOR_HOME",
                 "COPILOT_HOME", "GEMINI_CLI_HOME", "OPENCODE_DB")


@dataclass
class Workspace:
    root: Path

    @property
    def claude(self) -> Path:
        return self.root / "claude"

    @property
    def codex(self) -> Path:
        return self.root / "codex"

    @property
    def state(self) -> Path:
        return self.root / "state"

    def env(self) -> dict[str, str]:
        env = {"CODEX_HOME": str(self.codex), "CLAUDE_CONFIG_DIR": str(self.claude), "MORAINE_HOME": str(self.state),
               "HOME": str(self.root / "home"), "XDG_CONFIG_HOME": str(self.root / "home" / ".config"),
               "XDG_DATA_HOME": str(self.root / "xdg-data")}
        for name in HARNESS_ROOTS:
            env[name] = str(self.root / "none" / name.lower())
        if "PATH" in os.environ:
            env["PATH"] = os.environ["PATH"]
        return env

    def write(self, files: Sequence[LogFile]) -> None:
        for f in files:
            path = (self.claude if f.harness == "claude" else self.codex) / f.relpath
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text("".join(line + "\n" for line in f.lines), encoding="utf-8")

    def run(self, *args: str, timeout: float = 900) -> subprocess.CompletedProcess[str]:
        return subprocess.run([str(MORAINE), *args], env=self.env(), cwd=self.root, capture_output=True, text=True,
                              timeout=timeout, check=False)


@dataclass
class Channels:
    """What came back, by channel: sets of distinct strings (a session object repeats in every reply)."""

    texts: dict[str, set[str]] = field(default_factory=lambda: defaultdict(set))
    contents: dict[str, str] = field(default_factory=dict)  # event id -> its whole content text
    calls: int = 0

    def add(self, channel: str, node: Any) -> None:
        for text in _strings(node):
            if text:
                self.texts[channel].add(text)


def _strings(node: Any) -> Iterator[str]:
    if isinstance(node, str):
        yield node
    elif isinstance(node, dict):
        for key, value in node.items():
            yield key
            yield from _strings(value)
    elif isinstance(node, list):
        for item in node:
            yield from _strings(item)


def re2_literal(text: str) -> str:
    if "\\E" not in text:
        return "\\Q" + text + "\\E"
    return "".join(c if c.isalnum() or not c.isascii() else "\\" + c for c in text)


def _pages(mcp: Mcp, channels: Channels, ident: str, list_key: str) -> list[dict[str, Any]]:
    items: list[dict[str, Any]] = []
    cursor = None
    for _ in range(10_000):
        args: dict[str, Any] = {"id": ident}
        if cursor:
            args["cursor"] = cursor
        data, text = mcp.call("open", args)
        channels.add("mcp_open", data)
        channels.add("mcp_open", text)
        body = data.get("data") or {}
        items.extend(body.get(list_key) or [])
        cursor = body.get("next_cursor")
        if not cursor:
            break
    return items


def walk_mcp(ws: Workspace, placements: Sequence[Placement], log: Path | None) -> tuple[Channels, dict[str, Any]]:
    channels = Channels()
    stats: Counter[str] = Counter()
    with Mcp(MORAINE, ws.env(), ws.root, log) as mcp:
        sessions: list[str] = []
        cursor = None
        while True:
            args: dict[str, Any] = {"start_datetime": WINDOW_START, "end_datetime": WINDOW_END, "limit": 50}
            if cursor:
                args["cursor"] = cursor
            data, text = mcp.call("list_sessions", args)
            channels.add("mcp_list", data)
            channels.add("mcp_list", text)
            body = data.get("data") or {}
            sessions += [s["id"] for s in body.get("sessions") or []]
            cursor = body.get("next_cursor")
            if not cursor:
                break
        stats["sessions"] = len(sessions)
        for sid in sessions:
            for turn in _pages(mcp, channels, sid, "turns"):
                stats["turns"] += 1
                for event in _pages(mcp, channels, turn["id"], "events"):
                    stats["events"] += 1
                    pieces: list[str] = []
                    offset = 0
                    for _ in range(10_000):
                        args = {"id": event["id"]} if offset == 0 else {"id": event["id"], "offset": offset}
                        data, text = mcp.call("open", args)
                        body = data.get("data") or {}
                        content = body.pop("content", None) or {}
                        pieces.append(content.get("text") or "")
                        channels.add("mcp_open", body)
                        channels.add("mcp_open", text.replace(content.get("text") or "\0", ""))
                        offset = content.get("next_offset")
                        if not offset:
                            break
                    channels.contents[event["id"]] = "".join(pieces)
        for p in placements:
            if p.corpus not in SECRET_CORPORA:
                continue
            for query in {p.value[:4000], p.value[:12]}:
                data, text = mcp.call("search_sessions", {"query": query, "event_types": EVENT_TYPES, "n_hits": 10})
                data.pop("request", None)  # the echo of our own query is not Moraine keeping it
                first, _, rest = text.partition("\n")
                if query in first and not first.startswith(("1.", " ")):
                    text = rest
                channels.add("mcp_search", data)
                channels.add("mcp_search", text)
                stats["searches"] += 1
            line = max(p.value.splitlines() or [""], key=len)[:200]
            if len(line) >= 6:
                data, text = mcp.call("search_session_history",
                                      {"query": re2_literal(line), "max_results": 100, "context_lines": 1})
                channels.add("mcp_history", data)
                channels.add("mcp_history", text)
                stats["history"] += 1
        data, text = mcp.call("index_status", {})
        channels.add("mcp_status", data)
        channels.add("mcp_status", text)
        channels.calls = mcp.calls
    status = ws.run("status", "--json")
    channels.add("cli_status", status.stdout)
    channels.add("cli_status", status.stderr)
    stats["mcp_calls"] = channels.calls
    try:
        stats_status = json.loads(status.stdout)
    except ValueError:
        stats_status = {"unparsed": status.stdout[:2000]}
    return channels, {"walk": dict(stats), "status": stats_status}


@dataclass
class Report:
    seed: int
    placements: list[Placement]
    leaks: dict[int, list[Any]]
    altered: dict[int, str]
    visible: dict[str, dict[str, bool]]  # "claude.tool_call_id" -> {"mcp": bool, "rest": bool}
    info: dict[str, Any]

    def leaked_ids(self) -> set[int]:
        return set(self.leaks)

    def secrets(self) -> list[Placement]:
        return [p for p in self.placements if p.corpus in SECRET_CORPORA]

    def recall(self, corpus: str | None = None) -> float:
        mine = [p for p in self.secrets() if corpus is None or p.corpus == corpus]
        bad = sum(p.pid in self.leaks for p in mine)
        return 1 - bad / len(mine) if mine else 1.0

    def secret_corpora(self) -> list[str]:
        """The default secret corpora, and any other that was placed (the outsider corpus)."""
        placed = {p.corpus for p in self.placements}
        return [c for c in SECRET_CORPORA if c in CORPORA or c in placed]

    def lookalikes(self) -> list[Placement]:
        return [p for p in self.placements if p.corpus in LOOKALIKE_CORPORA]

    def render(self, max_leaks: int = 60) -> str:
        secrets, leaked = self.secrets(), self.leaked_ids()
        out = [f"secret evaluation, seed {self.seed}: {len(secrets)} secret placements, "
               f"{len(self.lookalikes())} lookalikes, {len(self.placements) - len(secrets) - len(self.lookalikes())} "
               "canaries"]
        out.append(table("corpus", recall_rows(self.placements, leaked, lambda p: p.corpus)))
        out.append(table("corpus/family", recall_rows(self.placements, leaked, lambda p: f"{p.corpus}/{p.family}")))
        out.append(table("place", recall_rows(self.placements, leaked, lambda p: p.place)))
        out.append(table("harness.place", recall_rows(self.placements, leaked, lambda p: f"{p.harness}.{p.place}")))
        channel_counts: Counter[str] = Counter()
        for evidence in self.leaks.values():
            for channel in {e.channel for e in evidence}:
                channel_counts[channel] += 1
        out.append("leaks found per channel: " + (", ".join(f"{c} {n}" for c, n in channel_counts.most_common())
                                                 or "none"))
        looks = self.lookalikes()
        rows: dict[str, list[int]] = defaultdict(lambda: [0, 0])
        for p in looks:
            family = p.family if p.corpus == "lookalike" else f"{p.corpus}/{p.family}"
            rows[family][0] += 1
            rows[family][1] += p.pid in self.altered
        out.append(table("lookalike family", [(k, n, a, 1 - a / n) for k, (n, a) in sorted(rows.items())],
                         head="altered"))
        hidden = [k for k, v in sorted(self.visible.items()) if not v["mcp"]]
        unstored = [k for k, v in sorted(self.visible.items()) if not v["rest"]]
        shown = ("MCP not walked (--rest-only)" if "rest_only" in self.info
                 else "places Moraine shows over MCP: all but " + (", ".join(hidden) or "none"))
        out.append(shown + "; places not stored at all: " + (", ".join(unstored) or "none"))
        by_pid = {p.pid: p for p in self.placements}
        if leaked:
            out.append(f"leaked ({len(leaked)}; first {min(max_leaks, len(leaked))}):")
            for pid in sorted(leaked)[:max_leaks]:
                p, ev = by_pid[pid], self.leaks[pid]
                channels = ",".join(sorted({e.channel for e in ev}))
                out.append(f"  {p.label} via {channels}: …{ev[0].excerpt!r}…")
        if self.altered:
            out.append(f"lookalikes altered ({len(self.altered)}):")
            for pid, why in sorted(self.altered.items())[:max_leaks]:
                out.append(f"  {by_pid[pid].label}: {why}")
        return "\n".join(out)

    def as_json(self) -> dict[str, Any]:
        leaked = self.leaked_ids()
        by_pid = {p.pid: p for p in self.placements}

        def rows(key) -> dict[str, Any]:
            return {name: {"placed": n, "leaked": bad, "recall": round(rate, 6)}
                    for name, n, bad, rate in recall_rows(self.placements, leaked, key)}

        return {
            "seed": self.seed,
            "counts": dict(Counter(p.corpus for p in self.placements)),
            "recall": {"all": round(self.recall(), 6),
                       **{c: round(self.recall(c), 6) for c in self.secret_corpora()}},
            "by_corpus": rows(lambda p: p.corpus),
            "by_family": rows(lambda p: f"{p.corpus}/{p.family}"),
            "by_place": rows(lambda p: p.place),
            "by_harness_place": rows(lambda p: f"{p.harness}.{p.place}"),
            "by_kind": rows(lambda p: f"{p.corpus}/{p.kind}"),
            "lookalikes": {"placed": len(self.lookalikes()), "altered": len(self.altered)},
            "visible": self.visible,
            "leaks": [{"pid": pid, "corpus": by_pid[pid].corpus, "kind": by_pid[pid].kind,
                       "render": by_pid[pid].render, "harness": by_pid[pid].harness, "place": by_pid[pid].place,
                       "channels": sorted({e.channel for e in ev}),
                       "evidence": [{"channel": e.channel, "where": e.where, "excerpt": e.excerpt} for e in ev]}
                      for pid, ev in sorted(self.leaks.items())],
            "altered": [{"pid": pid, "kind": by_pid[pid].kind, "harness": by_pid[pid].harness,
                         "place": by_pid[pid].place, "why": why} for pid, why in sorted(self.altered.items())],
            "info": self.info,
        }


def _scan_channels(channels: Channels, exact: Matcher, findings: Findings) -> None:
    for channel, texts in channels.texts.items():
        findings.scan(exact, channel, [(channel, t) for t in texts])
    findings.scan(exact, "mcp_open", list(channels.contents.items()))


def _scan_rest(state: Path, exact: Matcher, lower: Matcher, findings: Findings) -> list[str]:
    """Scans the decoded state; returns the texts (for the lookalike and canary checks)."""
    seen: set[tuple[bool, str]] = set()
    texts: list[tuple[str, str]] = []
    terms: list[tuple[str, str]] = []
    for found in state_strings(state):
        key = (found.kind == "term", found.text)
        if key in seen:
            continue
        seen.add(key)
        if found.kind == "term":
            terms.append((f"{found.file} (index term)", found.text))
        else:
            texts.append((f"{found.file} ({found.kind})", found.text))
    findings.scan(exact, "at_rest", texts)
    findings.scan(lower, "at_rest", terms)
    return [t for _, t in texts] + [t for _, t in terms]


def evaluate(placements: list[Placement], channels: Channels, rest_texts: list[str], findings: Findings,
             seed: int, info: dict[str, Any]) -> Report:
    mcp_hay = "\0".join([*channels.contents.values(), *(t for ts in channels.texts.values() for t in ts)])
    rest_hay = "\0".join(rest_texts)
    visible: dict[str, dict[str, bool]] = {}
    for p in placements:
        if p.corpus == "canary":
            visible[f"{p.harness}.{p.place}"] = {"mcp": p.value in mcp_hay, "rest": p.value in rest_hay}
    altered: dict[int, str] = {}
    for p in placements:
        if p.corpus not in LOOKALIKE_CORPORA:
            continue
        seen = visible.get(f"{p.harness}.{p.place}", {"mcp": True, "rest": True})
        if seen["mcp"]:
            if p.value not in mcp_hay:
                altered[p.pid] = "not returned whole over MCP" + ("" if p.value in rest_hay else ", nor stored")
        elif seen["rest"] and p.value not in rest_hay:
            altered[p.pid] = "not stored whole (the place is not shown over MCP)"
    return Report(seed, placements, dict(findings.leaks), altered, visible, info)


def run(seed: int, workdir: Path | None = None, per_kind: int | None = None, corpora: Sequence[str] = CORPORA,
        harnesses: Sequence[str] = HARNESSES, places: Sequence[str] = PLACES, late_fraction: float = 0.25,
        keep: bool = False, progress: bool = False) -> Report:
    t0 = time.monotonic()
    timings: dict[str, float] = {}

    def note(step: str) -> None:
        timings[step] = round(time.monotonic() - t0, 2)
        if progress:
            print(f"[{timings[step]:7.1f}s] {step}", file=sys.stderr, flush=True)

    placements = build_placements(seed, corpora, harnesses, places, per_kind=per_kind)
    files = build_logs(placements, seed)
    note(f"built {len(placements)} placements in {len(files)} logs")
    own = workdir is None
    root = Path(tempfile.mkdtemp(prefix="moraine-secret-eval-")) if own else Path(workdir)
    root.mkdir(parents=True, exist_ok=True)
    ws = Workspace(root)
    try:
        order = list(files)
        random.Random(seed).shuffle(order)
        cut = int(len(order) * (1 - late_fraction))
        ws.write(order[:cut])
        indexed = ws.run("index", "--json")
        note(f"moraine index (exit {indexed.returncode})")
        if indexed.returncode != 0:
            raise RuntimeError(f"moraine index failed ({indexed.returncode}): {indexed.stderr[-2000:]}")
        ws.write(order[cut:])  # read by the MCP server's catch-up: into the WAL, not a snapshot
        channels, info = walk_mcp(ws, placements, root / "mcp-stderr.log")
        note(f"MCP walk ({channels.calls} calls)")
        secrets = [p for p in placements if p.corpus in SECRET_CORPORA]
        exact, lower = Matcher(secrets), Matcher(secrets, lower=True)
        if exact.blind:
            info["blind_placements"] = exact.blind  # no window of their own: cannot be judged
        findings = Findings()
        _scan_channels(channels, exact, findings)
        note("scanned MCP replies")
        rest_texts = _scan_rest(ws.state, exact, lower, findings)
        wal_bytes = sum(p.stat().st_size for p in (ws.state / "wal").glob("*.log"))
        note("scanned the state at rest")
        info.update({"index": indexed.stdout.strip()[:2000], "timings": timings, "wal_bytes": wal_bytes,
                     "workspace": str(root) if keep or not own else None})
        return evaluate(placements, channels, rest_texts, findings, seed, info)
    finally:
        if own and not keep:
            shutil.rmtree(root, ignore_errors=True)


def rest_only(seed: int, workdir: Path, per_kind: int | None = None, corpora: Sequence[str] = CORPORA,
              harnesses: Sequence[str] = HARNESSES, places: Sequence[str] = PLACES) -> Report:
    """Only the at-rest check, on the state of an earlier run's --workdir (same seed and options):
    what every placement left in MORAINE_HOME, without the MCP walk."""
    placements = build_placements(seed, corpora, harnesses, places, per_kind=per_kind)
    build_logs(placements, seed)
    secrets = [p for p in placements if p.corpus in SECRET_CORPORA]
    findings = Findings()
    rest_texts = _scan_rest(Workspace(workdir).state, Matcher(secrets), Matcher(secrets, lower=True), findings)
    channels = Channels()
    return evaluate(placements, channels, rest_texts, findings, seed, {"rest_only": str(workdir)})


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--per-kind", type=int, default=None,
                        help="placements per kind, drawn at random (default: every rendering in every place)")
    parser.add_argument("--corpus", action="append", choices=ALL_CORPORA,
                        help=f"repeatable; default {', '.join(CORPORA)} (the outsider corpora only when named)")
    parser.add_argument("--harness", action="append", choices=HARNESSES, help="repeatable; default both")
    parser.add_argument("--place", action="append", choices=PLACES, help="repeatable; default all")
    parser.add_argument("--workdir", type=Path, help="use (and keep) this directory instead of a temporary one")
    parser.add_argument("--keep", action="store_true", help="keep the temporary workspace")
    parser.add_argument("--json", type=Path, help="also write the figures here as JSON")
    parser.add_argument("--rest-only", action="store_true",
                        help="only the at-rest check of the state an earlier run (same options) left in --workdir")
    parser.add_argument("--min-recall", type=float, help="exit 1 when the recall of any corpus is below this")
    parser.add_argument("--max-altered", type=int, help="exit 1 when more lookalikes than this were altered")
    args = parser.parse_args(argv)
    if args.rest_only:
        if not args.workdir:
            parser.error("--rest-only needs --workdir")
        report = rest_only(args.seed, args.workdir, args.per_kind, args.corpus or CORPORA, args.harness or HARNESSES,
                           args.place or PLACES)
    else:
        report = run(args.seed, args.workdir, args.per_kind, args.corpus or CORPORA, args.harness or HARNESSES,
                     args.place or PLACES, keep=args.keep, progress=True)
    print(report.render())
    if args.json:
        args.json.write_text(json.dumps(report.as_json(), indent=2), encoding="utf-8")
    failed = False
    if args.min_recall is not None:
        failed |= any(report.recall(c) < args.min_recall for c in report.secret_corpora())
    if args.max_altered is not None:
        failed |= len(report.altered) > args.max_altered
    return 1 if failed else 0



if __name__ == "__main__":
    sys.exit(main())
