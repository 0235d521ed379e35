"""Seeded random text and Codex / Claude Code JSONL logs for the index and unit tests.

Everything is driven by a `random.Random`, so a seed always writes byte-identical logs.
The record shapes follow the real harness logs (and the adapters in `moraine.sources`):
mirrored Codex prompts, tool calls and outputs, Moraine's own (excluded) tools, records of
unknown type (never indexed), summaries, titles, Claude subagent files, CJK text.
"""

from __future__ import annotations

import itertools
import json
import random
import uuid
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from moraine.config import Config, load_config

SEARCHABLE = (
    "user_input", "assistant_response", "reasoning", "tool_call", "tool_response",
    "compaction", "system", "runtime",
)

_SYLLABLES = ("ka", "lo", "mi", "ne", "ru", "sa", "to", "vi", "pe", "dor", "bel", "qui", "zan", "fex", "gul")
_CJK = (
    "検索エンジン", "日本語のテキスト", "東京都", "データベース", "設定ファイル", "エラーが発生しました",
    "中文搜索", "数据库连接", "错误信息", "配置文件", "用户输入", "测试用例",
)
_FIXED_CODE = (
    "snake_case_name", "parse_ts_ms", "camelCaseName", "getHTTPResponse", "os.path.join",
    "src/db/migrate.py", "src/moraine/index/searcher.py", "tests/unit/test_wal.py", "np.searchsorted",
    "cargo test --locked", "HTTPServer", "user@example.com", "v2.3.1", "config.toml", "README.md",
)


def _word(rng: random.Random) -> str:
    return "".join(rng.choice(_SYLLABLES) for _ in range(rng.randint(1, 3)))


def make_vocabulary(rng: random.Random, size: int = 700) -> list[str]:
    """Plain words, identifiers in every code spelling, paths and CJK strings, distinct."""
    vocab: dict[str, None] = {w: None for w in _FIXED_CODE + _CJK}
    while len(vocab) < size:
        roll = rng.random()
        if roll < 0.55:
            word = _word(rng)
        elif roll < 0.65:
            word = "_".join(_word(rng) for _ in range(rng.randint(2, 3)))
        elif roll < 0.75:
            parts = [_word(rng) for _ in range(rng.randint(2, 3))]
            word = parts[0] + "".join(p.capitalize() for p in parts[1:])
        elif roll < 0.82:
            word = ".".join(_word(rng) for _ in range(rng.randint(2, 3)))
        elif roll < 0.9:
            word = "/".join(_word(rng) for _ in range(rng.randint(2, 4))) + rng.choice(("", ".py", ".rs", ".ts"))
        elif roll < 0.95:
            word = _word(rng).upper() + str(rng.randint(0, 99))
        else:
            word = rng.choice(_CJK) + rng.choice(_CJK)[: rng.randint(1, 3)]
        vocab.setdefault(word, None)
    return list(vocab)


class TextMaker:
    """Zipf-distributed words, with some exact repeats (score ties) and empty texts."""

    def __init__(self, rng: random.Random, vocab: list[str], exponent: float = 1.1) -> None:
        self.rng = rng
        self.vocab = vocab
        self.cum_weights = list(itertools.accumulate(1.0 / (rank + 1) ** exponent for rank in range(len(vocab))))
        self.made: list[str] = []

    def words(self, n: int) -> list[str]:
        return self.rng.choices(self.vocab, cum_weights=self.cum_weights, k=n)

    def text(self) -> str:
        rng = self.rng
        roll = rng.random()
        if roll < 0.04:
            text = ""
        elif roll < 0.07:
            text = "a b c . ; x"  # no searchable token at all
        elif roll < 0.14 and self.made:
            text = rng.choice(self.made)  # an exact repeat: identical scores, tie-breaks decide
        else:
            n = rng.randint(1, 25) if rng.random() < 0.85 else rng.randint(60, 200)
            words = self.words(n)
            seps = [rng.choice((" ", " ", " ", "\n", ", ", ": ")) for _ in words]
            text = "".join(w + s for w, s in zip(words, seps, strict=True)).strip()
        self.made.append(text)
        return text

    def query(self) -> str:
        rng = self.rng
        n = rng.randint(1, 6)
        terms = []
        for _ in range(n):
            roll = rng.random()
            if roll < 0.08:
                terms.append("zzqx" + str(rng.randint(0, 9999)))  # in no document
            elif roll < 0.5:
                terms.append(rng.choice(self.vocab))  # uniform: rarer terms too
            else:
                terms.append(self.words(1)[0])
        return " ".join(terms)


def _iso(ms: int) -> str:
    dt = datetime.fromtimestamp(ms / 1000, tz=UTC)
    return dt.strftime("%Y-%m-%dT%H:%M:%S.") + f"{ms % 1000:03d}Z"


def _uuid(rng: random.Random) -> str:
    return str(uuid.UUID(int=rng.getrandbits(128), version=4))


@dataclass
class LogFile:
    path: Path
    harness: str
    sid: str
    ts: int
    calls: list[tuple[str, str]] = field(default_factory=list)  # (call id, tool name) awaiting output
    n: int = 0
    extra: dict[str, Any] = field(default_factory=dict)


class LogWriter:
    """Writes and extends random Codex / Claude Code sessions below two harness homes."""

    def __init__(self, base: Path, seed: int, vocab_size: int = 500) -> None:
        self.rng = random.Random(seed)
        self.texts = TextMaker(self.rng, make_vocabulary(self.rng, vocab_size))
        self.codex_home = base / "codex-home"
        self.claude_home = base / "claude-home"
        (self.codex_home / "sessions").mkdir(parents=True, exist_ok=True)
        (self.claude_home / "projects").mkdir(parents=True, exist_ok=True)
        self.files: list[LogFile] = []

    def env(self) -> dict[str, str]:
        return {"CODEX_HOME": str(self.codex_home), "CLAUDE_CONFIG_DIR": str(self.claude_home)}

    def config(self, home: Path, **overrides: Any) -> Config:
        merged: dict[str, Any] = {"home": str(home), "store": {"fsync": "never"}}
        merged.update(overrides)
        return load_config(overrides=merged, env=self.env())

    # -- files -----------------------------------------------------------------------------

    def _next_ts(self, log: LogFile) -> int:
        roll = self.rng.random()
        if roll < 0.15:
            return log.ts  # same millisecond as the previous record: timestamp ties
        log.ts += self.rng.randint(1, 90_000)
        return log.ts

    def new_codex(self) -> LogFile:
        rng = self.rng
        sid = _uuid(rng)
        start = 1_767_225_600_000 + rng.randint(0, 30 * 86_400_000)
        day = datetime.fromtimestamp(start / 1000, tz=UTC)
        folder = self.codex_home / "sessions" / day.strftime("%Y/%m/%d")
        folder.mkdir(parents=True, exist_ok=True)
        path = folder / f"rollout-{day.strftime('%Y-%m-%dT%H-%M-%S')}-{sid}.jsonl"
        log = LogFile(path, "codex", sid, start)
        self.files.append(log)
        cwd = rng.choice(("/repo", "/work/app", "/home/dev/project"))
        self._write(log, [
            {"timestamp": _iso(log.ts), "type": "session_meta", "payload": {"id": sid, "cwd": cwd}},
            {"timestamp": _iso(log.ts), "type": "turn_context", "payload": {"model": "gpt-5.3-codex", "cwd": cwd}},
        ])
        return log

    def new_claude(self, subagent_of: LogFile | None = None) -> LogFile:
        rng = self.rng
        if subagent_of is not None:
            sid = subagent_of.sid
            folder = subagent_of.path.parent / sid / "subagents"
            path = folder / f"agent-{rng.getrandbits(32):08x}.jsonl"
            start = subagent_of.ts
        else:
            sid = _uuid(rng)
            folder = self.claude_home / "projects" / rng.choice(("-repo", "-work-app"))
            path = folder / f"{sid}.jsonl"
            start = 1_767_225_600_000 + rng.randint(0, 30 * 86_400_000)
        folder.mkdir(parents=True, exist_ok=True)
        log = LogFile(path, "claude-code", sid, start, extra={"sidechain": subagent_of is not None})
        self.files.append(log)
        return log

    def _write(self, log: LogFile, records: list[dict[str, Any] | str]) -> None:
        with log.path.open("a", encoding="utf-8") as fh:
            for record in records:
                line = record if isinstance(record, str) else json.dumps(record, ensure_ascii=self.rng.random() < 0.3)
                fh.write(line + "\n")
                log.n += 1

    def extend(self, log: LogFile, n_records: int) -> None:
        records = [self._codex_record(log) if log.harness == "codex" else self._claude_record(log)
                   for _ in range(n_records)]
        self._write(log, [r for group in records for r in group])

    # -- Codex -----------------------------------------------------------------------------

    def _codex_record(self, log: LogFile) -> list[dict[str, Any]]:
        rng, t = self.rng, self.texts
        ts = _iso(self._next_ts(log))

        def item(payload: dict[str, Any]) -> dict[str, Any]:
            return {"timestamp": ts, "type": "response_item", "payload": payload}

        def msg(payload: dict[str, Any]) -> dict[str, Any]:
            return {"timestamp": ts, "type": "event_msg", "payload": payload}

        roll = rng.random()
        if log.calls and roll < 0.22:
            call_id, name = log.calls.pop(0)
            text = t.text()
            if name == "apply_patch":
                return [item({"type": "custom_tool_call_output", "call_id": call_id, "output": text})]
            output = (f"Exit code: {rng.randint(0, 2)}\nOutput:\n{text}" if rng.random() < 0.5
                      else json.dumps({"output": text, "metadata": {"exit_code": 0}}))
            return [item({"type": "function_call_output", "call_id": call_id, "output": output})]
        if roll < 0.36:
            text = t.text()
            out = [item({"type": "message", "role": "user", "content": [{"type": "input_text", "text": text}]})]
            if rng.random() < 0.6:
                out.append(msg({"type": "user_message", "message": text}))  # the mirror: one event
            return out
        if roll < 0.5:
            text = t.text()
            phase = rng.choice((None, "commentary", "final_answer"))
            payload: dict[str, Any] = {"type": "message", "role": "assistant",
                                       "content": [{"type": "output_text", "text": text}]}
            if phase:
                payload["phase"] = phase
            out = [item(payload)]
            if rng.random() < 0.4:
                out.insert(0, msg({"type": "agent_message", "message": text}))
            return out
        if roll < 0.58:
            text = t.text()
            if rng.random() < 0.5:
                return [item({"type": "reasoning", "summary": [{"type": "summary_text", "text": text}]})]
            return [msg({"type": "agent_reasoning", "text": text})]
        if roll < 0.7:
            call_id = f"call_{rng.getrandbits(40):x}"
            kind = rng.random()
            if kind < 0.15:
                name, args = "mcp__moraine__search_sessions", json.dumps({"query": t.text()})
            elif kind < 0.3:
                log.calls.append((call_id, "apply_patch"))
                return [item({"type": "custom_tool_call", "call_id": call_id, "name": "apply_patch",
                              "input": "*** Begin Patch\n" + t.text() + "\n*** End Patch\n"})]
            else:
                name = rng.choice(("shell", "exec_command", "Read"))
                args = json.dumps({"command": ["bash", "-lc", t.text()], "workdir": "/repo"})
            log.calls.append((call_id, name))
            return [item({"type": "function_call", "call_id": call_id, "name": name, "arguments": args})]
        if roll < 0.74:
            return [item({"type": "web_search_call", "status": "completed",
                          "action": {"type": "search", "query": t.text()}})]
        if roll < 0.77:
            return [item({"type": "message", "role": "user",
                          "content": [{"type": "input_text", "text": "<environment_context>" + t.text()}]})]
        if roll < 0.8:
            return [{"timestamp": ts, "type": "compacted", "payload": {"message": t.text()}}]
        if roll < 0.84:
            return [msg({"type": rng.choice(("task_complete", "token_count", "task_started"))})]
        if roll < 0.87:
            return [msg({"type": "turn_aborted", "reason": rng.choice(("interrupted", "replaced"))})]
        if roll < 0.9:
            return [msg({"type": "error", "message": t.text()})]
        if roll < 0.95:
            # unknown item with real text: catalogued as `unknown`, never indexed
            return [item({"type": "mystery_item", "content": [{"type": "output_text", "text": t.text()}]})]
        if roll < 0.97:
            return [{"timestamp": ts, "type": "mystery_record", "payload": {"text": t.text()}}]
        record = item({"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": t.text()}]})
        del record["timestamp"]  # inherits the previous timestamp
        return [record]

    # -- Claude Code -----------------------------------------------------------------------

    def _claude_record(self, log: LogFile) -> list[dict[str, Any]]:
        rng, t = self.rng, self.texts
        base: dict[str, Any] = {"sessionId": log.sid, "cwd": "/repo", "timestamp": _iso(self._next_ts(log)),
                                "uuid": _uuid(rng)}
        if log.extra.get("sidechain"):
            base["isSidechain"] = True
        roll = rng.random()
        if log.calls and roll < 0.25:
            call_id, _name = log.calls.pop(0)
            content = [{"type": "tool_result", "tool_use_id": call_id,
                        "content": [{"type": "text", "text": t.text()}], "is_error": rng.random() < 0.1}]
            return [{**base, "type": "user", "message": {"role": "user", "content": content}}]
        if roll < 0.45:
            return [{**base, "type": "user", "message": {"role": "user", "content": t.text()}}]
        if roll < 0.7:
            blocks: list[dict[str, Any]] = []
            if rng.random() < 0.4:
                blocks.append({"type": "thinking", "thinking": t.text()})
            if rng.random() < 0.5:
                call_id = f"toolu_{rng.getrandbits(48):x}"
                name = "mcp__moraine__search_sessions" if rng.random() < 0.15 else rng.choice(("Bash", "Read", "Grep"))
                blocks.append({"type": "tool_use", "id": call_id, "name": name, "input": {"command": t.text()}})
                log.calls.append((call_id, name))
            if rng.random() < 0.7 or not blocks:
                blocks.append({"type": "text", "text": t.text()})
            if rng.random() < 0.05:
                blocks.append({"type": "mystery_block", "text": t.text()})  # unknown, never indexed
            message = {"role": "assistant", "model": "claude-opus-4-5", "content": blocks,
                       "stop_reason": rng.choice(("end_turn", "tool_use", None))}
            return [{**base, "type": "assistant", "message": message}]
        if roll < 0.75:
            return [{**base, "type": "user", "isMeta": True, "message": {"role": "user", "content": t.text()}}]
        if roll < 0.79:
            return [{**base, "type": "summary", "summary": t.text()}]
        if roll < 0.82:
            return [{**base, "type": "custom-title", "customTitle": t.text()}]
        if roll < 0.87:
            return [{**base, "type": "system", "subtype": rng.choice(("informational", "turn_duration")),
                     "content": t.text()}]
        if roll < 0.9:
            return [{**base, "type": "progress", "data": {"type": "hook_progress"}}]
        if roll < 0.94:
            return [{**base, "type": "mystery-record", "content": t.text()}]  # unknown
        if roll < 0.97:
            return [{**base, "type": "queue-operation", "operation": "enqueue", "content": t.text()}]
        return [{**base, "type": "user",
                 "message": {"role": "user", "content": "[Request interrupted by user] " + t.text()}}]


def populate(writer: LogWriter, n_codex: int, n_claude: int, records_per_file: tuple[int, int]) -> None:
    """Create sessions of both harnesses (one Claude session gets a subagent file)."""
    lo, hi = records_per_file
    for _ in range(n_codex):
        writer.extend(writer.new_codex(), writer.rng.randint(lo, hi))
    parents = []
    for _ in range(n_claude):
        log = writer.new_claude()
        writer.extend(log, writer.rng.randint(lo, hi))
        parents.append(log)
    if parents:
        sub = writer.new_claude(subagent_of=parents[0])
        writer.extend(sub, writer.rng.randint(lo, hi))


def grow(writer: LogWriter, n_new_files: int, records: tuple[int, int]) -> None:
    """Append records to some existing files and start a few new ones."""
    lo, hi = records
    for log in list(writer.files):
        if writer.rng.random() < 0.6:
            writer.extend(log, writer.rng.randint(lo, hi))
    for i in range(n_new_files):
        log = writer.new_codex() if i % 2 == 0 else writer.new_claude()
        writer.extend(log, writer.rng.randint(lo, hi))
