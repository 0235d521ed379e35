"""Placements, and the Claude Code and Codex logs that carry them.

A *placement* is one value written into one place of one harness's log. Places are every spot a
string can stand in a log (see PLACES); record shapes follow data_samples/claude and
data_samples/codex and docs/harnesses/.

    text places  (a rendering, possibly multi-line, is written whole):
        user_prompt, assistant_text, reasoning, tool_args_value, tool_output, summary, quarantined
    line places  (a one-line writing of the value):
        tool_args_key, tool_name, tool_call_id, model, cwd, git_branch, title

`build_placements` draws the values (seeded), `build_logs` lays them out into sessions and
returns the log files as lines, ready to be written under a CODEX_HOME / CLAUDE_CONFIG_DIR or fed
line by line to an adapter.
"""

from __future__ import annotations

import json
import random
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

from secret_eval.kinds import LALNUM, Form, Kind, one_line, rendered, rs, uuid4

TEXT_PLACES = ("user_prompt", "assistant_text", "reasoning", "tool_args_value", "tool_output", "summary", "quarantined")
LINE_PLACES = ("tool_args_key", "tool_name", "tool_call_id", "model", "cwd", "git_branch", "title")
PLACES = TEXT_PLACES + LINE_PLACES
SESSION_PLACES = ("cwd", "git_branch", "title")  # one session each
HARNESSES = ("claude", "codex")
CORPORA = ("public", "people", "lookalike")  # what runs by default
# Run only when asked for (`--corpus outsider --corpus outsider-lookalike`): the outsider corpora
# (outsider_kinds.py, outsider_lookalikes.py), written without reading the rules or the corpora above.
# A second outsider's corpora (outsider2_kinds.py, outsider2_lookalikes.py), likewise only when named:
# `--corpus outsider2 --corpus outsider2-lookalike`.
# A third outsider's (outsider3_kinds.py, outsider3_lookalikes.py): `--corpus outsider3 --corpus outsider3-lookalike`.
# A fourth outsider's (outsider4_kinds.py, outsider4_lookalikes.py): `--corpus outsider4 --corpus outsider4-lookalike`.
# A fifth outsider's (outsider5_kinds.py, outsider5_lookalikes.py): `--corpus outsider5 --corpus outsider5-lookalike`.
EXTRA_CORPORA = ("outsider", "outsider-lookalike", "outsider2", "outsider2-lookalike",
                 "outsider3", "outsider3-lookalike", "outsider4", "outsider4-lookalike",
                 "outsider5", "outsider5-lookalike")
ALL_CORPORA = CORPORA + EXTRA_CORPORA
# values that must come back whole
LOOKALIKE_CORPORA = ("lookalike", "outsider-lookalike", "outsider2-lookalike", "outsider3-lookalike",
                     "outsider4-lookalike", "outsider5-lookalike")

EPOCH = datetime(2026, 2, 1, tzinfo=UTC)
WINDOW_START = "2026-01-31T00:00:00Z"
WINDOW_END = "2026-04-01T00:00:00Z"
PER_SESSION = 24  # packed placements per session


@dataclass
class Placement:
    pid: int
    corpus: str  # public | people | lookalike | outsider[2345] | outsider[2345]-lookalike | canary
    kind: str
    family: str
    render: int  # index of the rendering; -1: the one-line writing
    harness: str
    place: str
    value: str
    text: str  # what was written into the place
    forms: list[Form] = field(default_factory=list)
    session: str = ""  # native session id
    log: str = ""  # relative path of its log

    @property
    def label(self) -> str:
        return f"#{self.pid} {self.corpus}/{self.kind}[{self.render}] {self.harness}.{self.place}"


def kinds_of(corpus: str) -> list[Kind]:
    if corpus == "public":
        from secret_eval.public_kinds import PUBLIC_KINDS
        return PUBLIC_KINDS
    if corpus == "people":
        from secret_eval.people_kinds import PEOPLE_KINDS
        return PEOPLE_KINDS
    if corpus == "outsider":
        from secret_eval.outsider_kinds import OUTSIDER_KINDS
        return OUTSIDER_KINDS
    if corpus == "outsider-lookalike":
        from secret_eval.outsider_lookalikes import OUTSIDER_LOOKALIKES
        return OUTSIDER_LOOKALIKES
    if corpus == "outsider2":
        from secret_eval.outsider2_kinds import OUTSIDER2_KINDS
        return OUTSIDER2_KINDS
    if corpus == "outsider2-lookalike":
        from secret_eval.outsider2_lookalikes import OUTSIDER2_LOOKALIKES
        return OUTSIDER2_LOOKALIKES
    if corpus == "outsider3":
        from secret_eval.outsider3_kinds import OUTSIDER3_KINDS
        return OUTSIDER3_KINDS
    if corpus == "outsider3-lookalike":
        from secret_eval.outsider3_lookalikes import OUTSIDER3_LOOKALIKES
        return OUTSIDER3_LOOKALIKES
    if corpus == "outsider4":
        from secret_eval.outsider4_kinds import OUTSIDER4_KINDS
        return OUTSIDER4_KINDS
    if corpus == "outsider4-lookalike":
        from secret_eval.outsider4_lookalikes import OUTSIDER4_LOOKALIKES
        return OUTSIDER4_LOOKALIKES
    if corpus == "outsider5":
        from secret_eval.outsider5_kinds import OUTSIDER5_KINDS
        return OUTSIDER5_KINDS
    if corpus == "outsider5-lookalike":
        from secret_eval.outsider5_lookalikes import OUTSIDER5_LOOKALIKES
        return OUTSIDER5_LOOKALIKES
    from secret_eval.lookalikes import LOOKALIKES
    return LOOKALIKES


def _line_text(place: str, text: str) -> str:
    """The one-line writing as the place holds it: a branch has no spaces, a cwd is a path."""
    if place == "git_branch":
        return "fix/" + re.sub(r"\s+", "-", text)
    if place == "cwd":
        return "/home/dev/" + text
    if place == "tool_name":
        return re.sub(r"\s+", "_", text)
    if place == "tool_call_id":
        return re.sub(r"\s+", "_", text)
    return text


def _fits(place: str, text: str) -> bool:
    if place == "cwd":  # the Claude project folder is named after it: a file name of <= 255 bytes
        return len(text.encode()) <= 200
    return True


def build_placements(seed: int, corpora: Sequence[str] = CORPORA, harnesses: Sequence[str] = HARNESSES,
                     places: Sequence[str] = PLACES, per_kind: int | None = None,
                     kinds_filter: Iterable[str] | None = None, each_rendering: bool = False) -> list[Placement]:
    """Every (kind, rendering) in every text place and every kind in every line place, for each
    harness; or, with `per_kind`, that many (harness, place, rendering) drawn at random per kind;
    or, with `each_rendering`, every rendering of every kind once and every kind once more in a
    line place, the (harness, place) taken in turn. One canary per harness and place tells
    whether the place is stored and shown at all."""
    rng = random.Random(seed)
    wanted = set(kinds_filter) if kinds_filter else None
    out: list[Placement] = []
    used_values: set[str] = set()
    turn = [0]

    def add(corpus: str, k: Kind, render: int, harness: str, place: str) -> None:
        for _ in range(20):
            value = k.make(rng)
            if value not in used_values:
                break
        used_values.add(value)
        if render >= 0:
            text, forms = rendered(k.renders[render](random.Random(rng.random()), value))
        else:
            line = one_line(k, rng, value)
            if line is None:
                return
            text, forms = line
            written = _line_text(place, text)
            if value not in written:  # a branch, tool name or call id holds no whitespace: nor does its value
                value = _line_text(place, value).removeprefix("fix/").removeprefix("/home/dev/")
            text = written
            if not _fits(place, text):
                return
        out.append(Placement(len(out), corpus, k.name, k.family, render, harness, place, value, text, forms))

    for corpus in corpora:
        for k in kinds_of(corpus):
            if wanted is not None and k.name not in wanted:
                continue
            combos = [(h, p, r) for h in harnesses for p in places
                      for r in (range(len(k.renders)) if p in TEXT_PLACES else [-1])]
            if each_rendering:
                text_slots = [(h, p) for h in harnesses for p in places if p in TEXT_PLACES]
                line_slots = [(h, p) for h in harnesses for p in places if p in LINE_PLACES]
                combos = [(*text_slots[(turn[0] + r) % len(text_slots)], r) for r in range(len(k.renders))]
                if line_slots:
                    combos.append((*line_slots[turn[0] % len(line_slots)], -1))
                turn[0] += 1
            elif per_kind is not None:
                combos = rng.sample(combos, min(per_kind, len(combos)))
            for harness, place, render in combos:
                add(corpus, k, render, harness, place)
    for harness in harnesses:
        for place in places:
            value = "zqcanary" + rs(rng, LALNUM, 20)
            text = value if place in LINE_PLACES else f"canary line {value} end"
            out.append(Placement(len(out), "canary", "canary", "canary", -1, harness, place, value,
                                 _line_text(place, text)))
    return out


# --------------------------------------------------------------------------------------------
# log files
# --------------------------------------------------------------------------------------------


@dataclass
class LogFile:
    harness: str
    relpath: str  # below the harness root (CLAUDE_CONFIG_DIR or CODEX_HOME)
    lines: list[str]
    session: str


def _dump(record: dict[str, Any]) -> str:
    return json.dumps(record, ensure_ascii=False, separators=(",", ":"))


def _ts(t: datetime) -> str:
    return t.strftime("%Y-%m-%dT%H:%M:%S.") + f"{t.microsecond // 1000:03d}Z"


NEUTRAL = ("Continue with the next step of the refactor.", "Run the tests again and tell me what fails.",
           "Look at the deploy script and check the config.", "Summarise what changed in this step.")


class _Clock:
    def __init__(self, start: datetime) -> None:
        self.t = start

    def tick(self, seconds: float = 2.0) -> str:
        self.t += timedelta(seconds=seconds)
        return _ts(self.t)


class ClaudeSession:
    def __init__(self, rng: random.Random, start: datetime, cwd: str = "/home/dev/webapp",
                 branch: str = "main") -> None:
        self.rng, self.sid, self.cwd, self.branch = rng, uuid4(rng), cwd, branch
        self.clock = _Clock(start)
        self.parent: str | None = None
        self.lines: list[str] = []

    def _base(self, kind: str) -> dict[str, Any]:
        uuid = uuid4(self.rng)
        record = {"parentUuid": self.parent, "isSidechain": False, "userType": "external", "cwd": self.cwd,
                  "sessionId": self.sid, "version": "2.1.76", "gitBranch": self.branch, "type": kind,
                  "uuid": uuid, "timestamp": self.clock.tick()}
        self.parent = uuid
        return record

    def _emit(self, record: dict[str, Any]) -> None:
        self.lines.append(_dump(record))

    def user(self, text: str) -> None:
        record = self._base("user")
        record["message"] = {"role": "user", "content": text}
        self._emit(record)

    def assistant(self, blocks: list[dict[str, Any]], stop: str | None = "end_turn",
                  model: str = "claude-opus-4-6") -> None:
        record = self._base("assistant")
        record["requestId"] = "req_011C" + rs(self.rng, LALNUM, 18)
        record["message"] = {"model": model, "id": "msg_01" + rs(self.rng, LALNUM, 22), "type": "message",
                             "role": "assistant", "content": blocks, "stop_reason": stop, "stop_sequence": None,
                             "usage": {"input_tokens": 6, "output_tokens": 40}}
        self._emit(record)

    def tool_result(self, tool_use_id: str, text: str) -> None:
        record = self._base("user")
        record["message"] = {"role": "user", "content": [{"tool_use_id": tool_use_id, "type": "tool_result",
                                                           "content": text, "is_error": False}]}
        record["toolUseResult"] = {"stdout": text, "stderr": "", "interrupted": False, "isImage": False}
        self._emit(record)

    def tool_turn(self, name: str, call_id: str, args: dict[str, Any], output: str) -> None:
        self.user(self.rng.choice(NEUTRAL))
        self.assistant([{"type": "tool_use", "id": call_id, "name": name, "input": args}], stop="tool_use")
        self.tool_result(call_id, output)
        self.assistant([{"type": "text", "text": "Done."}])

    def meta(self, record: dict[str, Any]) -> None:
        self._emit({**record, "sessionId": self.sid})

    def broken(self, text: str) -> None:
        """A line cut short mid-record: not JSON, quarantined by Moraine."""
        record = self._base("user")
        head = _dump({k: v for k, v in record.items()})[:-1]
        self.lines.append(head + ',"message":{"role":"user","content":' + json.dumps(text, ensure_ascii=False)
                          + ',"attachments":[{"name":')

    def place(self, p: Placement) -> None:
        t, tid = p.text, "toolu_01" + rs(self.rng, LALNUM, 22)
        if p.place == "user_prompt":
            self.user(t)
            self.assistant([{"type": "text", "text": "Noted."}])
        elif p.place == "assistant_text":
            self.user(self.rng.choice(NEUTRAL))
            self.assistant([{"type": "text", "text": t}])
        elif p.place == "reasoning":
            self.user(self.rng.choice(NEUTRAL))
            signature = "Eq" + rs(self.rng, LALNUM, 80)
            self.assistant([{"type": "thinking", "thinking": t, "signature": signature}], stop=None)
            self.assistant([{"type": "text", "text": "Done."}])
        elif p.place == "tool_args_value":
            self.tool_turn("Bash", tid, {"command": t, "description": "Run the step"}, "ok")
        elif p.place == "tool_args_key":
            self.tool_turn("Bash", tid, {t: "1", "command": "env | sort"}, "ok")
        elif p.place == "tool_output":
            self.tool_turn("Bash", tid, {"command": "cat config/settings.txt", "description": "Read it"}, t)
        elif p.place == "tool_name":
            self.tool_turn(t, tid, {"query": "status"}, "ok")
        elif p.place == "tool_call_id":
            self.tool_turn("Read", t, {"file_path": "/home/dev/webapp/README.md"}, "# webapp")
        elif p.place == "model":
            self.user(self.rng.choice(NEUTRAL))
            self.assistant([{"type": "text", "text": "Done with this step."}], model=t)
        elif p.place == "summary":
            self.meta({"type": "summary", "summary": t, "leafUuid": self.parent})
        elif p.place == "quarantined":
            self.broken(t)
        elif p.place == "title":
            self.meta({"type": "custom-title", "customTitle": t})
        else:  # cwd and branch are the session's; a turn shows them
            self.user(self.rng.choice(NEUTRAL))
            self.assistant([{"type": "text", "text": "Done."}])

    def file(self) -> LogFile:
        folder = re.sub(r"[^A-Za-z0-9]", "-", self.cwd)
        return LogFile("claude", f"projects/{folder}/{self.sid}.jsonl", self.lines, self.sid)


def _uuid7(rng: random.Random, t: datetime) -> str:
    ms = int(t.timestamp() * 1000)
    h = f"{ms:012x}" + rs(rng, "0123456789abcdef", 20)
    return f"{h[:8]}-{h[8:12]}-7{h[13:16]}-{rng.choice('89ab')}{h[17:20]}-{h[20:32]}"


class CodexSession:
    def __init__(self, rng: random.Random, start: datetime, cwd: str = "/home/dev/webapp",
                 branch: str = "main") -> None:
        self.rng, self.start, self.cwd, self.branch = rng, start, cwd, branch
        self.sid = _uuid7(rng, start)
        self.clock = _Clock(start)
        self.lines: list[str] = []
        self.model = "gpt-5.3-codex"
        self.open_turn = False
        self._header()

    def _rec(self, kind: str, payload: dict[str, Any]) -> None:
        self.lines.append(_dump({"timestamp": self.clock.tick(0.5), "type": kind, "payload": payload}))

    def _header(self) -> None:
        self._rec("session_meta", {"id": self.sid, "timestamp": _ts(self.start), "cwd": self.cwd,
                                   "originator": "codex_cli_rs", "cli_version": "0.111.0", "instructions": None,
                                   "source": "cli", "model_provider": "openai",
                                   "git": {"commit_hash": rs(self.rng, "0123456789abcdef", 40),
                                           "branch": self.branch, "repository_url": "git@github.com:acme/webapp.git"}})
        self._rec("response_item", {"type": "message", "role": "user", "content": [{"type": "input_text", "text":
                  f"<environment_context>\n  <cwd>{self.cwd}</cwd>\n  <approval_policy>on-request</approval_policy>\n"
                  "  <sandbox_mode>workspace-write</sandbox_mode>\n</environment_context>"}]})

    def turn(self, text: str, model: str | None = None) -> None:
        self.end()
        turn_id = _uuid7(self.rng, self.clock.t)
        self._rec("event_msg", {"type": "task_started", "turn_id": turn_id, "model_context_window": 258400})
        self._rec("turn_context", {"turn_id": turn_id, "cwd": self.cwd, "approval_policy": "on-request",
                                   "model": model or self.model, "effort": "medium", "summary": "auto"})
        self._rec("response_item", {"type": "message", "role": "user",
                                    "content": [{"type": "input_text", "text": text}]})
        self._rec("event_msg", {"type": "user_message", "message": text, "images": []})
        self.open_turn = True

    def assistant(self, text: str) -> None:
        self._rec("event_msg", {"type": "agent_message", "message": text, "phase": "final_answer"})
        self._rec("response_item", {"type": "message", "role": "assistant",
                                    "content": [{"type": "output_text", "text": text}]})

    def reasoning(self, text: str) -> None:
        self._rec("response_item", {"type": "reasoning", "summary": [{"type": "summary_text", "text": text}],
                                    "content": None, "encrypted_content": "gAAAAA" + rs(self.rng, LALNUM, 120)})
        self._rec("event_msg", {"type": "agent_reasoning", "text": text})

    def call(self, name: str, call_id: str, args: Any, output: str) -> None:
        self._rec("response_item", {"type": "function_call", "name": name, "arguments": json.dumps(args),
                                    "call_id": call_id})
        self._rec("response_item", {"type": "function_call_output", "call_id": call_id,
                                    "output": f"Exit code: 0\nWall time: 0.2 seconds\nOutput:\n{output}"})

    def end(self, last: str | None = "Done.") -> None:
        if self.open_turn:
            self._rec("event_msg", {"type": "task_complete", "last_agent_message": last})
            self.open_turn = False

    def broken(self, text: str) -> None:
        self.lines.append(_dump({"timestamp": self.clock.tick(), "type": "response_item"})[:-1]
                          + ',"payload":{"type":"message","role":"user","content":[{"type":"input_text","text":'
                          + json.dumps(text, ensure_ascii=False) + '}')

    def place(self, p: Placement) -> None:
        t, cid = p.text, "call_" + rs(self.rng, LALNUM, 24)
        neutral = self.rng.choice(NEUTRAL)
        if p.place in ("user_prompt", "title"):
            self.turn(t)
            self.assistant("Noted.")
        elif p.place == "assistant_text":
            self.turn(neutral)
            self.assistant(t)
        elif p.place == "reasoning":
            self.turn(neutral)
            self.reasoning(t)
            self.assistant("Done.")
        elif p.place == "tool_args_value":
            self.turn(neutral)
            self.call("shell", cid, {"command": ["bash", "-lc", t], "workdir": self.cwd}, "ok")
            self.assistant("Done.")
        elif p.place == "tool_args_key":
            self.turn(neutral)
            self.call("shell", cid, {t: "1", "command": ["env"]}, "ok")
            self.assistant("Done.")
        elif p.place == "tool_output":
            self.turn(neutral)
            self.call("shell", cid, {"command": ["bash", "-lc", "cat config/settings.txt"]}, t)
            self.assistant("Done.")
        elif p.place == "tool_name":
            self.turn(neutral)
            self.call(t, cid, {"query": "status"}, "ok")
            self.assistant("Done.")
        elif p.place == "tool_call_id":
            self.turn(neutral)
            self.call("shell", t, {"command": ["bash", "-lc", "ls"]}, "README.md")
            self.assistant("Done.")
        elif p.place == "model":
            self.turn(neutral, model=t)
            self.assistant("Done with this step.")
        elif p.place == "summary":
            self.end()
            self._rec("compacted", {"message": t, "replacement_history": []})
            self._rec("event_msg", {"type": "context_compacted"})
        elif p.place == "quarantined":
            self.broken(t)
        else:  # cwd, git_branch: the session's
            self.turn(neutral)
            self.assistant("Done.")

    def file(self) -> LogFile:
        self.end()
        t = self.start
        return LogFile("codex", f"sessions/{t:%Y/%m/%d}/rollout-{t:%Y-%m-%dT%H-%M-%S}-{self.sid}.jsonl",
                       self.lines, self.sid)


def build_logs(placements: Sequence[Placement], seed: int) -> list[LogFile]:
    """Sessions for the placements: packed ones (PER_SESSION placements each, per harness) and
    one session per session-level placement (cwd, branch, title). Sets each placement's session
    and log."""
    rng = random.Random(seed * 7919 + 1)
    files: list[LogFile] = []
    counter = [0]

    def start() -> datetime:
        counter[0] += 1
        return EPOCH + timedelta(minutes=7 * counter[0])

    for harness in HARNESSES:
        mine = [p for p in placements if p.harness == harness]
        alone = [p for p in mine if p.place in SESSION_PLACES]
        packed = [p for p in mine if p.place not in SESSION_PLACES]
        rng.shuffle(packed)
        session_cls = ClaudeSession if harness == "claude" else CodexSession
        for p in alone:
            kwargs: dict[str, Any] = {}
            if p.place == "cwd":
                kwargs["cwd"] = p.text
            elif p.place == "git_branch":
                kwargs["branch"] = p.text
            s = session_cls(rng, start(), **kwargs)
            if p.place == "title" and harness == "codex":
                s.place(p)  # the title is the first prompt's first line
            else:
                s.place(p)
                s.place(Placement(-1, "", "", "", -1, harness, "user_prompt", "", rng.choice(NEUTRAL)))
            f = s.file()
            p.session, p.log = f.session, f.relpath
            files.append(f)
        for i in range(0, len(packed), PER_SESSION):
            s = session_cls(rng, start())
            if harness == "codex":
                s.turn("Let's start: " + rng.choice(NEUTRAL))
                s.assistant("Starting.")
            else:
                s.user("Let's start: " + rng.choice(NEUTRAL))
                s.assistant([{"type": "text", "text": "Starting."}])
            chunk = packed[i : i + PER_SESSION]
            for p in chunk:
                s.place(p)
            f = s.file()
            for p in chunk:
                p.session, p.log = f.session, f.relpath
            files.append(f)
    return files
