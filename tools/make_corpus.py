#!/usr/bin/env python3
"""Generate a deterministic synthetic corpus of AI coding-agent logs for Moraine benchmarks.

Why this exists: the ingest, index and search benchmarks need large inputs that look like real
``~/.codex`` and ``~/.claude`` trees (record shapes, size distributions, vocabulary skew,
projects with many sessions) but real logs are private and full of secrets.  This tool writes
such a tree from a seed, so a benchmark run is reproducible byte for byte.

Layout written under ``--out DIR`` (so ``DIR/codex`` works as ``CODEX_HOME`` and ``DIR/claude``
as ``CLAUDE_CONFIG_DIR``)::

    DIR/codex/sessions/YYYY/MM/DD/rollout-YYYY-MM-DDTHH-MM-SS-<uuid7>.jsonl
    DIR/claude/projects/<cwd with / and . replaced by ->/<uuid4>.jsonl

``--events N`` counts *searchable events*: the normalized events of the default search types
``user_input``, ``assistant_response`` and ``tool_response``.  Exactly:

* one per genuine prompt (Codex ``response_item`` user message + its ``event_msg``
  ``user_message`` mirror are ONE event; Claude a ``user`` record with typed text);
* one per assistant reply, commentary or final (Codex ``response_item`` assistant message + its
  ``event_msg`` ``agent_message`` mirror are ONE event; Claude one ``text`` block record);
* one per tool output (Codex ``function_call_output`` / ``custom_tool_call_output``, including
  the ``aborted`` output of an interrupted call; Claude one ``tool_result`` block).

Everything else real logs contain is written too and not counted: ``session_meta``,
``turn_context``, injected ``<environment_context>`` / AGENTS.md / ``<turn_aborted>`` user-role
context, developer messages, ``token_count``, ``reasoning`` + ``agent_reasoning``, tool calls,
``web_search_call``, ``task_started`` / ``task_complete`` / ``turn_aborted``, ``compacted``;
Claude ``file-history-snapshot``, ``thinking`` and ``tool_use`` blocks, ``system``
``turn_duration`` / ``compact_boundary`` records, ``isCompactSummary`` continuations and
``[Request interrupted by user…]`` markers.  Generation stops at the end of the turn during
which the count reaches N, so the summary's ``searchable_events`` is N or slightly more.

Determinism: the shared world (vocabulary, projects, file contents) derives from the seed, and
session *i* from ``(seed, i)`` alone.  So a corpus is a function of its arguments, and a small
corpus is a prefix of a larger one with the same seed and share (every session but the last,
which the smaller run stops early).

Speed: text comes from precomputed Zipf "urns" (flat lists where a uniform pick follows Zipf's
law: one C-level index per word) and precomputed per-project source files; JSON goes through
one reused compact encoder; each session file is written with a single buffered write.
"""

from __future__ import annotations

import argparse
import base64
import json
import math
import random
import shutil
import sys
import time
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, TypeVar

__all__ = ["SEARCHABLE_TYPES", "generate", "main"]

SEARCHABLE_TYPES: tuple[str, ...] = ("user_input", "assistant_response", "tool_response")

_T = TypeVar("_T")
_Json = dict[str, Any]

_START_MS = int(datetime(2026, 1, 5, tzinfo=UTC).timestamp() * 1000)
_SPAN_DAYS = 90
_DAY_MS = 86_400_000
_ALNUM = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
_B32 = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567"
_HEX = "0123456789abcdef"

# --------------------------------------------------------------------------------------------
# Vocabulary.  Lists are roughly in descending real-world frequency; Zipf urns keep that skew.
# --------------------------------------------------------------------------------------------

_NOUNS = """
error test file config session index query token request response value function path module
type result cache handler key field table server client message event output input string
state option test_case parser method class user data connection timeout record line list
schema column row migration pool retry queue worker thread process task job payload header
body status code flag argument parameter variable constant interface struct trait service
endpoint route middleware database transaction lock mutex channel stream buffer batch offset
cursor page limit filter order range window segment snapshot checkpoint generation watcher
tailer pipeline store catalog memtable merge compaction tokenizer score snippet document term
frequency posting dictionary bitmap hash digest id uuid timestamp date duration latency
throughput memory heap stack frame pointer reference lifetime closure iterator generator
coroutine future promise callback hook component prop context reducer selector template view
model controller widget layout style theme asset bundle dependency package version release
tag branch commit diff patch rebase conflict repo workspace crate feature target profile
binary library script command shell environment secret credential permission account role
group policy quota limiter counter metric gauge histogram log trace span alert dashboard
deployment container image pod node cluster volume network socket port address host proxy
certificate handshake protocol format encoding validation serializer fixture mock stub
assertion coverage benchmark regression warning panic exception traceback backtrace signal
child parent owner loop condition case fallback edge boundary character byte number integer
float boolean array map set tuple vector slice registry adapter provider factory builder
manager loader reader writer encoder decoder formatter logger scheduler executor runner
client_id locale timezone invoice order_item customer cart price currency webhook email
""".split()

_VERBS = """
add remove update fix check handle parse load save read write open close create delete rename
move copy return raise throw catch call run execute start stop restart spawn wait poll retry
skip ignore filter sort merge split join flatten normalize serialize deserialize encode decode
validate verify compare match replace refactor extract inline rewrite implement support expose
export import register resolve lookup fetch send receive emit publish subscribe flush sync
commit rollback lock unlock acquire release allocate free clone borrow drop cache invalidate
evict index search rank score tokenize truncate format render log trace measure profile
optimize reduce increase limit cap clamp wrap unwrap map convert cast infer generate build
compile link mock patch bump pin upgrade migrate deploy configure initialize reset clear
drain stream chunk paginate dedupe debounce throttle schedule
""".split()

_ADJS = """
empty stale invalid missing duplicate slow large small new old current previous next first
last default custom optional required async blocking concurrent nested partial full raw
encoded cached pending active idle broken flaky deterministic stable legacy deprecated
internal external public private unused unexpected wrong correct final initial temporary
global local remote unique sorted malformed truncated unicode binary max min
""".split()

_ABBREVS = "id ctx cfg req resp err buf tx rx db fd ts idx len ptr msg args opts env tmp src dst num cnt".split()

_PREPS = "in into from to for with without before after inside through across via against per on".split()

_PAST_IRREGULAR = {
    "run": "ran", "build": "built", "write": "wrote", "read": "read", "find": "found",
    "split": "split", "send": "sent", "catch": "caught", "throw": "threw", "set": "set",
    "drop": "dropped", "stop": "stopped", "skip": "skipped", "map": "mapped", "wrap": "wrapped",
    "pin": "pinned", "commit": "committed", "log": "logged", "cap": "capped", "spawn": "spawned",
    "unwrap": "unwrapped", "bump": "bumped", "chunk": "chunked", "emit": "emitted",
}

_LIBS: dict[str, list[str]] = {
    "python": "pytest pydantic fastapi sqlalchemy numpy httpx requests click typer alembic "
    "asyncio aiohttp celery redis uvicorn structlog orjson msgpack watchdog".split(),
    "rust": "tokio serde anyhow thiserror clap reqwest axum hyper tracing sqlx rayon "
    "crossbeam notify regex chrono uuid bytes futures".split(),
    "ts": "react next vite vitest jest zod prisma express tailwind axios redux "
    "tanstack-query eslint typescript playwright".split(),
    "go": "cobra viper gin chi zap sqlc pgx testify grpc protobuf errgroup "
    "logrus gorm".split(),
}

_PROJECT_NAMES = (
    "moraine ledger-api atlas-web pipeline-etl quill-editor harbor-cli nimbus-sync "
    "orbit-dashboard ferrite-db kestrel-auth sable-ml tundra-infra lumen-docs vector-search "
    "relay-gateway cinder-engine aurora-billing marble-mobile"
).split()

_HOME_ROOTS = ("/home/dev/src", "/Users/alex/code", "/home/ubuntu/work", "/workspace", "/Users/mika/dev")

# Sentence patterns: {n} noun, {a} adjective, {v} verb, {v3} verb 3rd person, {vd} past,
# {p} preposition, {c} a code mention (identifier or path in backticks), {k} a small number.
_ASSISTANT_PATTERNS = (
    "I'll {v} the {a} {n} in {c}.",
    "The {n} {v3} {c} {p} the {n}.",
    "{c} {v3} the {n} but never {v3} the {a} {n}.",
    "It looks like the {n} is {a} because {c} {v3} the {n} {p} the {n}.",
    "We need to {v} {c} before the {n} {v3} the {n}.",
    "This {v3} the {n} {p} each {n}.",
    "After that, the {a} {n} {v3} {c}.",
    "If the {n} is {a}, {c} should {v} the {n}.",
    "The root cause is that {c} does not {v} the {a} {n}.",
    "Now {c} {v3} the {n} {p} {c}.",
    "I also {vd} the {n} {p} {c} so the {n} stays {a}.",
    "The {a} {n} comes from {c}.",
    "That means the {n} is {a} {p} {c}.",
    "Next I'll {v} the {n} and {v} the {a} {n}.",
    "There are {k} places that {v} the {n} {p} {c}.",
    "{c} is only called {p} the {a} {n}, so it is safe to {v} it.",
)
_USER_PATTERNS = (
    "Make sure {c} still {v3} the {n}.",
    "Don't {v} the {n}; just {v} {c}.",
    "It should {v} the {a} {n} {p} {c}.",
    "Also {v} the {n} {p} {c}.",
    "Keep the {n} {a} and {v} the {n}.",
    "I think {c} {v3} the {n} twice.",
    "The {n} is {a} after we {v} the {n}.",
    "Please {v} the {a} {n} {p} {c}.",
)
_REASONING_TITLES = (
    "Inspecting {n} handling", "Planning {n} refactor", "Investigating {a} {n}",
    "Reviewing test failures", "Checking {c} usage", "Evaluating {n} options",
    "Preparing final summary", "Updating {n} logic", "Tracing {n} flow", "Verifying the fix",
)

_PROMPTS = (
    "Fix the failing test {test}. It fails with `{error}`.",
    "Can you look at {path} and figure out why {ident} returns None when the {n} is {a}?",
    "Refactor {ident} in {path} so it no longer holds the lock while doing I/O.",
    "Why does `{cmd}` fail on CI but pass locally?",
    "Run the test suite and fix whatever is broken.",
    "Implement {ident} for {Type}: it should {v} the {a} {n}.",
    "The {ident} endpoint is slow (p95 around {ms}ms). Profile it and propose a fix.",
    "Write unit tests for {ident} covering the empty input and unicode cases.",
    "Rename {ident} to {ident2} everywhere, including the docs.",
    "What does {ident} do? Explain the flow from {path} to {path2}.",
    "Migrate {path} from {lib} to {lib2}.",
    "Add a migration that creates an index on {table}({col}).",
    "I'm getting this error when I run `{cmd}`:\n```\n{trace}\n```",
    "Review the current diff and tell me if anything is risky.",
    "Update the README to document {ident} and the new `--{flag}` flag.",
    "Bump {lib} to the latest version and fix the breakage.",
    "The query `{sql}` returns duplicate rows. Fix it.",
    "Add a `--{flag}` option to the CLI that lets us {v} the {n}.",
    "There's a race between {ident} and {ident2}; sometimes the {n} is {a}. Can you find it?",
    "Clean up {path}: remove dead code and the {a} {n} handling.",
    "Add logging around {ident} so we can see why the {n} times out.",
    "{ident} panics on {a} input. Make it return an error instead.",
    "Split {path} into smaller modules; it's over {lines} lines now.",
    "Add type hints / proper types to {path} and make the checker pass.",
    "Implement pagination for {ident} using an opaque cursor.",
)
_FOLLOWUPS = (
    "continue", "yes, go ahead", "looks good, commit it", "try again", "ok now run the tests",
    "that didn't work, same error", "can you also add a test for that?", "perfect, thanks",
    "revert that last change", "use the existing helper instead", "go on", "ship it",
    "hmm, still failing on CI", "make it simpler", "what about the edge case with an empty {n}?",
    "also update {path}", "run `{cmd}` again", "why did you change {ident}?",
)
_COMMENTARY = (
    "I'll start by looking at `{path}`.", "Let me search for where `{ident}` is defined.",
    "Running the tests to see the current failures.", "Now I'll update `{ident}` to handle the {a} case.",
    "The failure comes from `{ident}`; checking `{path}`.", "Let me read the rest of `{path}`.",
    "I'll patch `{path}` and rerun the suite.", "Checking how `{ident}` is called.",
    "Let me verify the build still passes.", "Looking at the recent changes with git.",
)

# Non-English prompts and replies (about 2% of prompts): real logs have them and the tokenizer
# must keep CJK searchable.  The second element is a term that certainly appears, used for the
# sample queries.
_CJK_PROMPTS: tuple[tuple[str, str], ...] = (
    ("{path} のテストが失敗しています。原因を調べて修正してください。", "テスト"),
    ("`{ident}` の処理が遅いので、ボトルネックを特定して改善してください。", "ボトルネック"),
    ("このエラーの原因は何ですか？\n```\n{error}\n```", "エラー"),
    ("{ident} にユニットテストを追加してください。空の入力とエラーケースもカバーしてください。", "ユニットテスト"),
    ("`{cmd}` を実行すると失敗します。ローカルでは動くのに CI だけ落ちます。", "ローカル"),
    ("設定ファイルの読み込み処理をリファクタリングして、{ident} を分離してください。", "リファクタリング"),
    ("请帮我修复 {path} 里的 bug，`{ident}` 返回了错误的结果。", "修复"),
    ("为什么运行 `{cmd}` 会报错？本地是好的，CI 上失败。", "报错"),
    ("把 `{ident}` 重构一下，拆成更小的函数，并补充单元测试。", "重构"),
    ("这个报错是什么意思？\n```\n{error}\n```", "报错"),
    ("给 {path} 加上日志，方便排查 {ident} 的超时问题。", "超时"),
    ("性能太差了，{ident} 处理一万条记录要 {k} 秒，帮我优化。", "性能"),
)
_CJK_REPLIES_JA = (
    "`{path}` を確認しました。原因は `{ident}` で例外が発生していたことです。\n\n"
    "- `{ident2}` に入力チェックを追加しました\n- テストを {k} 件追加しました\n\n`{cmd}` はすべて成功しています。",
    "修正しました。`{ident}` のキャッシュが古いまま使われていたため、無効化の処理を追加しました。"
    "変更点は `{path}` のみです。",
)
_CJK_REPLIES_ZH = (
    "已经修改了 `{path}`：`{ident}` 现在会在超时时重试，并记录详细日志。\n\n"
    "- 新增 {k} 个单元测试\n- 修复了 `{ident2}` 的空指针问题\n\n`{cmd}` 全部通过。",
    "问题出在 `{ident}`：缓存没有及时失效。我在 `{path}` 里加了失效逻辑，测试已经通过。",
)
_CJK_COMMENTARY_JA = ("まず `{path}` を確認します。", "`{ident}` の呼び出し元を調べます。")
_CJK_COMMENTARY_ZH = ("先看一下 `{path}` 的实现。", "我先搜索 `{ident}` 的调用位置。")

_ERRORS: dict[str, tuple[str, ...]] = {
    "python": (
        "KeyError: '{s}'", "AttributeError: '{P}' object has no attribute '{s}'",
        "TypeError: {s}() got an unexpected keyword argument '{s2}'",
        "ModuleNotFoundError: No module named '{s}'",
        "ValueError: invalid literal for int() with base 10: '{q}'",
        "AssertionError: assert {k} == {k2}", "sqlite3.OperationalError: no such table: {s}",
        "json.decoder.JSONDecodeError: Expecting value: line 1 column 1 (char 0)",
        "ConnectionRefusedError: [Errno 111] Connection refused",
        "TimeoutError: timed out after {k}s waiting for {s}",
        "RecursionError: maximum recursion depth exceeded while calling a Python object",
        "UnicodeDecodeError: 'utf-8' codec can't decode byte 0xe3 in position {k}: invalid continuation byte",
        "FileNotFoundError: [Errno 2] No such file or directory: '{p}'",
        "PermissionError: [Errno 13] Permission denied: '{p}'",
        'sqlalchemy.exc.IntegrityError: (psycopg2.errors.UniqueViolation) duplicate key value '
        'violates unique constraint "{s}_pkey"',
        "pydantic_core._pydantic_core.ValidationError: 1 validation error for {P}",
    ),
    "rust": (
        "error[E0308]: mismatched types", "error[E0382]: borrow of moved value: `{s}`",
        "error[E0599]: no method named `{s}` found for struct `{P}` in the current scope",
        "error[E0277]: the trait bound `{P}: Send` is not satisfied",
        "error[E0425]: cannot find value `{s}` in this scope",
        "error[E0502]: cannot borrow `{s}` as mutable because it is also borrowed as immutable",
        "called `Option::unwrap()` on a `None` value",
        "called `Result::unwrap()` on an `Err` value: {P}Error(\"{q}\")",
        "error: could not compile `{crate}` (lib) due to {k} previous errors",
    ),
    "ts": (
        "TypeError: Cannot read properties of undefined (reading '{c}')",
        "error TS2339: Property '{c}' does not exist on type '{P}'.",
        "error TS2345: Argument of type 'string | undefined' is not assignable to parameter of type 'string'.",
        "ReferenceError: {c} is not defined", "Error: Cannot find module './{c}'",
        "SyntaxError: Unexpected token '<', \"<!DOCTYPE \"... is not valid JSON",
        "Error: Hydration failed because the initial UI does not match what was rendered on the server.",
    ),
    "go": (
        "panic: runtime error: invalid memory address or nil pointer dereference",
        "undefined: {c}", "cannot use {c} (variable of type string) as {P} value in argument to {c2}",
        "fatal error: all goroutines are asleep - deadlock!",
        "context deadline exceeded", "pq: duplicate key value violates unique constraint \"{s}_pkey\"",
    ),
}
_SQL_ERRORS = (
    'ERROR:  relation "{s}" does not exist', 'ERROR:  column "{s}" does not exist',
    'ERROR:  duplicate key value violates unique constraint "{s}_pkey"',
    'ERROR:  syntax error at or near "{W}"',
)


def _zipf_urn(items: Sequence[_T], s: float = 1.0, size: int = 1 << 16) -> list[_T]:
    """Expand a ranked list into an urn whose uniform draws follow Zipf's law.

    Why an urn rather than ``random.choices(cum_weights=...)``: a uniform pick from a flat list
    is one C-level index, several times cheaper than the bisect of weighted choices, and the
    generator draws tens of millions of words.  Every item keeps at least one slot.
    """
    weights = [1.0 / (r**s) for r in range(1, len(items) + 1)]
    scale = size / sum(weights)
    urn: list[_T] = []
    for item, w in zip(items, weights):
        urn.extend([item] * max(1, round(w * scale)))
    return urn


def _third(verb: str) -> str:
    """Third-person singular, good enough for the verbs above."""
    if verb.endswith(("s", "sh", "ch", "x", "z")):
        return verb + "es"
    if verb.endswith("y") and verb[-2] not in "aeiou":
        return verb[:-1] + "ies"
    return verb + "s"


def _past(verb: str) -> str:
    """Past tense, with the irregular and consonant-doubling verbs listed explicitly."""
    if verb in _PAST_IRREGULAR:
        return _PAST_IRREGULAR[verb]
    if verb.endswith("e"):
        return verb + "d"
    if verb.endswith("y") and verb[-2] not in "aeiou":
        return verb[:-1] + "ied"
    return verb + "ed"


def _parse_pattern(pattern: str) -> list[tuple[bool, str]]:
    """Split ``"I'll {v} the {n}."`` into literal and slot parts once, at start-up."""
    parts: list[tuple[bool, str]] = []
    rest = pattern
    while "{" in rest:
        head, _, tail = rest.partition("{")
        name, _, rest = tail.partition("}")
        if head:
            parts.append((False, head))
        parts.append((True, name))
    if rest:
        parts.append((False, rest))
    return parts


def _loguniform(rng: random.Random, lo: float, hi: float) -> float:
    return math.exp(rng.uniform(math.log(lo), math.log(hi)))


_DAY_PREFIX: dict[int, str] = {}


def _ts(ms: int) -> str:
    """RFC 3339 UTC with milliseconds, as both harnesses write it; ~10x faster than strftime."""
    day, rem = divmod(ms, _DAY_MS)
    prefix = _DAY_PREFIX.get(day)
    if prefix is None:
        prefix = datetime.fromtimestamp(day * 86_400, tz=UTC).strftime("%Y-%m-%dT")
        _DAY_PREFIX[day] = prefix
    h, rem = divmod(rem, 3_600_000)
    m, rem = divmod(rem, 60_000)
    s, milli = divmod(rem, 1000)
    return f"{prefix}{h:02d}:{m:02d}:{s:02d}.{milli:03d}Z"


def _uuid4(rng: random.Random) -> str:
    h = f"{rng.getrandbits(128):032x}"
    return f"{h[:8]}-{h[8:12]}-4{h[13:16]}-{'89ab'[int(h[16], 16) & 3]}{h[17:20]}-{h[20:]}"


def _uuid7(rng: random.Random, ms: int) -> str:
    """UUIDv7 as Codex uses for session and turn ids: time-ordered, so it sorts with the file."""
    t = f"{ms:012x}"
    h = f"{rng.getrandbits(80):020x}"
    return f"{t[:8]}-{t[8:12]}-7{h[:3]}-{'89ab'[int(h[3], 16) & 3]}{h[4:7]}-{h[8:20]}"


def _rand_str(rng: random.Random, n: int, alphabet: str = _ALNUM) -> str:
    return "".join(rng.choices(alphabet, k=n))


# --------------------------------------------------------------------------------------------
# The world: vocabulary, projects, source files.
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Ident:
    """One identifier in the three spellings code uses, so a concept shows up as
    ``parse_config`` in Python and ``parseConfig`` / ``ParseConfig`` in TypeScript and Go."""

    snake: str
    camel: str
    pascal: str


@dataclass
class _File:
    path: str
    start: int
    lines: int


@dataclass
class _Project:
    """A repository the agents work in: several sessions share it (same cwd), as in real use."""

    name: str
    cwd: str
    lang: str
    branch: str
    repo_url: str
    idents: list[_Ident]
    ident_urn: list[_Ident]
    files: list[_File]
    file_urn: list[_File]
    tests: list[_File]
    pool: list[str] = field(default_factory=list)
    crates: list[str] = field(default_factory=list)


class _World:
    """Everything the sessions of one corpus share.  Built once per seed (well under a second).

    Sessions only read it, drawing with their own RNG, which keeps each session a pure function
    of ``(seed, index)``.
    """

    def __init__(self, seed: int) -> None:
        rng = random.Random(f"moraine-corpus/{seed}/world")
        self.noun_urn = _zipf_urn(_NOUNS, 1.0)
        self.adj_urn = _zipf_urn(_ADJS, 0.9)
        verbs = _zipf_urn(_VERBS, 1.0)
        self.verb_urn = verbs
        self.third = {v: _third(v) for v in _VERBS}
        self.past = {v: _past(v) for v in _VERBS}
        self.idents = self._make_idents(rng, 6000)
        self.ident_urn = _zipf_urn(self.idents, 1.05, 1 << 17)
        self.assistant_patterns = [_parse_pattern(p) for p in _ASSISTANT_PATTERNS]
        self.user_patterns = [_parse_pattern(p) for p in _USER_PATTERNS]
        blob = bytes(rng.getrandbits(8) for _ in range(3 << 15))
        self.b64 = base64.b64encode(blob).decode("ascii")
        self.projects = [self._make_project(rng, name, i) for i, name in enumerate(_PROJECT_NAMES)]
        self.project_urn = _zipf_urn(self.projects, 0.9, 4096)

    # -- construction ----------------------------------------------------------------------

    def _make_idents(self, rng: random.Random, count: int) -> list[_Ident]:
        nouns, verbs, adjs = self.noun_urn, self.verb_urn, self.adj_urn
        seen: set[str] = set()
        out: list[_Ident] = []
        while len(out) < count:
            r = rng.random()
            if r < 0.35:
                parts = [rng.choice(verbs), rng.choice(nouns)]
            elif r < 0.6:
                parts = [rng.choice(nouns), rng.choice(nouns)]
            elif r < 0.75:
                parts = [rng.choice(adjs), rng.choice(nouns)]
            elif r < 0.9:
                parts = [rng.choice(verbs), rng.choice(adjs), rng.choice(nouns)]
            else:
                parts = [rng.choice(nouns), rng.choice(_ABBREVS)]
            words = "_".join(parts).split("_")
            if len(set(words)) < len(words):
                continue
            snake = "_".join(words)
            if snake in seen:
                continue
            seen.add(snake)
            pascal = "".join(w.capitalize() for w in words)
            out.append(_Ident(snake, words[0] + pascal[len(words[0]) :], pascal))
        return out

    def _make_project(self, rng: random.Random, name: str, index: int) -> _Project:
        lang = ("python", "rust", "ts", "go", "python", "ts")[index % 6]
        cwd = f"{rng.choice(_HOME_ROOTS)}/{name}"
        own = [self.ident_urn[rng.randrange(len(self.ident_urn))] for _ in range(300)]
        own += rng.sample(self.idents[1500:], 120)  # identifiers only this project uses
        uniq = list(dict.fromkeys(own))
        rng.shuffle(uniq)
        proj = _Project(
            name=name,
            cwd=cwd,
            lang=lang,
            branch=rng.choice(("main", "main", "master", "develop")),
            repo_url=f"git@github.com:{rng.choice(('acme', 'octo-labs', 'northwind', 'mika'))}/{name}.git",
            idents=uniq,
            ident_urn=_zipf_urn(uniq, 1.0, 1 << 14),
            files=[],
            file_urn=[],
            tests=[],
        )
        pkg = name.replace("-", "_")
        proj.crates = [f"{name.split('-')[0]}-{s}" for s in ("core", "cli", "store", "server")]
        gen = _CodeGen(self, proj)
        proj.pool = [gen.line(rng) for _ in range(6000)]
        paths: list[str] = []
        tests: list[str] = []
        subdirs = ("api", "core", "db", "models", "services", "utils", "cli", "ingest", "index", "store")
        for ident in uniq[:90]:
            sub = rng.choice(subdirs)
            if lang == "python":
                paths.append(f"src/{pkg}/{sub}/{ident.snake}.py")
                tests.append(f"tests/{sub}/test_{ident.snake}.py")
            elif lang == "rust":
                paths.append(f"crates/{rng.choice(proj.crates)}/src/{ident.snake}.rs")
                tests.append(f"crates/{rng.choice(proj.crates)}/tests/{ident.snake}.rs")
            elif lang == "ts":
                if rng.random() < 0.4:
                    paths.append(f"src/components/{ident.pascal}.tsx")
                    tests.append(f"src/components/{ident.pascal}.test.tsx")
                else:
                    paths.append(f"src/lib/{sub}/{ident.camel}.ts")
                    tests.append(f"src/lib/{sub}/{ident.camel}.test.ts")
            else:
                paths.append(f"internal/{sub}/{ident.snake}.go")
                tests.append(f"internal/{sub}/{ident.snake}_test.go")
        extra = {
            "python": ["pyproject.toml", "README.md", "Makefile", f"src/{pkg}/__init__.py"],
            "rust": ["Cargo.toml", "README.md", f"crates/{proj.crates[0]}/src/lib.rs", "src/main.rs"],
            "ts": ["package.json", "tsconfig.json", "README.md", "vite.config.ts"],
            "go": ["go.mod", "README.md", f"cmd/{name}/main.go", "Makefile"],
        }[lang]
        for p in list(dict.fromkeys(paths)) + extra:
            proj.files.append(self._file(rng, p, len(proj.pool)))
        proj.tests = [self._file(rng, p, len(proj.pool)) for p in dict.fromkeys(tests)]
        proj.file_urn = _zipf_urn(proj.files, 1.0, 4096)
        return proj

    @staticmethod
    def _file(rng: random.Random, path: str, pool_len: int) -> _File:
        n = int(_loguniform(rng, 15, 2200))
        return _File(path, rng.randrange(pool_len - n), n)

    # -- text --------------------------------------------------------------------------------

    def fill(self, rng: random.Random, parts: list[tuple[bool, str]], code: Callable[[], str]) -> str:
        """Render a parsed sentence pattern; slot words come from the Zipf urns."""
        out: list[str] = []
        for is_slot, text in parts:
            if not is_slot:
                out.append(text)
            elif text == "n":
                out.append(rng.choice(self.noun_urn))
            elif text == "a":
                out.append(rng.choice(self.adj_urn))
            elif text == "v":
                out.append(rng.choice(self.verb_urn))
            elif text == "v3":
                out.append(self.third[rng.choice(self.verb_urn)])
            elif text == "vd":
                out.append(self.past[rng.choice(self.verb_urn)])
            elif text == "p":
                out.append(rng.choice(_PREPS))
            elif text == "c":
                out.append(code())
            else:
                out.append(str(rng.randint(2, 12)))
        s = "".join(out)
        return s[0].upper() + s[1:]


class _CodeGen:
    """Source lines in the project's language and vocabulary.

    Why per project: reads, greps, diffs and stack traces then quote the same lines again and
    again (agents re-read files constantly), with identifiers a project really owns.
    """

    def __init__(self, world: _World, proj: _Project) -> None:
        self.w = world
        self.p = proj

    def _i(self, rng: random.Random) -> _Ident:
        return rng.choice(self.p.ident_urn)

    def line(self, rng: random.Random) -> str:
        w, lang = self.w, self.p.lang
        i = self._i
        r = rng.random()
        if lang == "python":
            if r < 0.06:
                return f"def {i(rng).snake}({i(rng).snake}: {i(rng).pascal}, {i(rng).snake}: int = {rng.randint(0, 100)}) -> {i(rng).pascal}:"
            if r < 0.30:
                return f"    {i(rng).snake} = {i(rng).snake}.{i(rng).snake}({i(rng).snake}, {i(rng).snake}={i(rng).snake})"
            if r < 0.38:
                return f"    if {i(rng).snake} is None:"
            if r < 0.43:
                return f'        raise {i(rng).pascal}Error(f"{rng.choice(w.adj_urn)} {rng.choice(w.noun_urn)}: {{{i(rng).snake}!r}}")'
            if r < 0.50:
                return f"    return {i(rng).snake}"
            if r < 0.54:
                return f"class {i(rng).pascal}({i(rng).pascal}):"
            if r < 0.60:
                return f"from .{i(rng).snake} import {i(rng).pascal}, {i(rng).snake}"
            if r < 0.67:
                return f"    for {i(rng).snake} in self.{i(rng).snake}():"
            if r < 0.74:
                return f"    # {rng.choice(w.verb_urn)} the {rng.choice(w.adj_urn)} {rng.choice(w.noun_urn)} before {rng.choice(w.verb_urn)}ing"
            if r < 0.79:
                return f'        logger.debug("{rng.choice(w.verb_urn)} {rng.choice(w.noun_urn)} %s", {i(rng).snake})'
            if r < 0.84:
                return f"    assert {i(rng).snake} == {rng.randint(0, 64)}"
            return ""
        if lang == "rust":
            if r < 0.06:
                return f"pub fn {i(rng).snake}(&self, {i(rng).snake}: &{i(rng).pascal}) -> Result<{i(rng).pascal}, {i(rng).pascal}Error> {{"
            if r < 0.30:
                return f"        let {i(rng).snake} = self.{i(rng).snake}.{i(rng).snake}(&{i(rng).snake})?;"
            if r < 0.37:
                return f"        match {i(rng).snake} {{"
            if r < 0.44:
                return f"            {i(rng).pascal}::{i(rng).pascal} => {i(rng).snake},"
            if r < 0.52:
                return "    }"
            if r < 0.57:
                return f"use crate::{i(rng).snake}::{{{i(rng).pascal}, {i(rng).pascal}}};"
            if r < 0.62:
                return f"pub struct {i(rng).pascal} {{"
            if r < 0.68:
                return f"    pub {i(rng).snake}: {rng.choice(('u64', 'usize', 'String', 'Vec<u8>', 'Option<String>', 'Arc<Mutex<State>>'))},"
            if r < 0.74:
                return f"    // {rng.choice(w.verb_urn)} the {rng.choice(w.adj_urn)} {rng.choice(w.noun_urn)} first"
            if r < 0.78:
                return "#[derive(Debug, Clone, Serialize, Deserialize)]"
            if r < 0.83:
                return f'            .map_err(|e| anyhow!("{rng.choice(w.verb_urn)} {rng.choice(w.noun_urn)}: {{e}}"))?;'
            return ""
        if lang == "ts":
            if r < 0.07:
                return f"export async function {i(rng).camel}({i(rng).camel}: {i(rng).pascal}): Promise<{i(rng).pascal}> {{"
            if r < 0.32:
                return f"  const {i(rng).camel} = await {i(rng).camel}.{i(rng).camel}({i(rng).camel});"
            if r < 0.39:
                return f"import {{ {i(rng).pascal}, {i(rng).camel} }} from './{i(rng).camel}';"
            if r < 0.45:
                return f"export interface {i(rng).pascal} {{"
            if r < 0.52:
                return f"  {i(rng).camel}: {rng.choice(('string', 'number', 'boolean', 'string[]', 'Date | null', 'Record<string, unknown>'))};"
            if r < 0.57:
                return f"  if (!{i(rng).camel}) throw new Error(`{rng.choice(w.adj_urn)} {rng.choice(w.noun_urn)}: ${{{i(rng).camel}}}`);"
            if r < 0.62:
                return f"  return <{i(rng).pascal} {i(rng).camel}={{{i(rng).camel}}} />;"
            if r < 0.68:
                return f"  // {rng.choice(w.verb_urn)} the {rng.choice(w.noun_urn)} when the {rng.choice(w.noun_urn)} changes"
            if r < 0.76:
                return "}"
            return ""
        # go
        if r < 0.07:
            return f"func (s *{i(rng).pascal}) {i(rng).pascal}(ctx context.Context, {i(rng).camel} string) (*{i(rng).pascal}, error) {{"
        if r < 0.30:
            return f"\t{i(rng).camel}, err := s.{i(rng).camel}.{i(rng).pascal}(ctx, {i(rng).camel})"
        if r < 0.40:
            return "\tif err != nil {"
        if r < 0.47:
            return f'\t\treturn nil, fmt.Errorf("{rng.choice(w.verb_urn)} {rng.choice(w.noun_urn)}: %w", err)'
        if r < 0.54:
            return "\t}"
        if r < 0.59:
            return f"type {i(rng).pascal} struct {{"
        if r < 0.65:
            return f'\t{i(rng).pascal} string `json:"{i(rng).snake}"`'
        if r < 0.71:
            return f"\t// {rng.choice(w.verb_urn)} the {rng.choice(w.adj_urn)} {rng.choice(w.noun_urn)}"
        return ""


# --------------------------------------------------------------------------------------------
# Harness-neutral turn plan.
# --------------------------------------------------------------------------------------------


@dataclass
class _Call:
    """One tool call and its output, before either harness renders it.

    ``kind`` is read / search / edit / write / shell / plan / web.  ``text`` is the output as
    the tool printed it; harnesses wrap it in their own envelope.
    """

    kind: str
    duration_ms: int
    text: str = ""
    exit_code: int = 0
    file: _File | None = None
    first: int = 0  # 0-based first line for reads/edits
    last: int = 0
    cmd: str = ""
    pattern: str = ""
    old: str = ""
    new: str = ""
    call_id: str = ""
    aborted: bool = False
    pending: bool = False  # incomplete session: the call never got its output


@dataclass
class _Step:
    """One model round: optional reasoning and commentary, then 0..3 parallel calls."""

    reasoning: str
    commentary: str | None
    calls: list[_Call]
    latency_ms: int


@dataclass
class _Turn:
    prompt: str
    steps: list[_Step]
    final: str | None
    outcome: str  # complete | aborted | incomplete
    image: bool
    gap_ms: int
    final_reasoning: str = ""


_N_CALLS = list(range(16))
_N_CALLS_W = [22, 12, 11, 10, 9, 8, 6, 5, 4, 3, 3, 2, 2, 1, 1, 1]


class _Sim:
    """Plans turns for one session: prompt, model rounds, tool calls with realistic outputs."""

    def __init__(self, world: _World, proj: _Project, rng: random.Random, cjk: str | None, stats: _Stats) -> None:
        self.w = world
        self.p = proj
        self.rng = rng
        self.cjk = cjk
        self.stats = stats
        self.gen = _CodeGen(world, proj)

    # -- small pieces ---------------------------------------------------------------------

    def ident(self) -> str:
        i = self.rng.choice(self.p.ident_urn)
        if self.p.lang in ("python", "rust"):
            return i.snake if self.rng.random() < 0.75 else i.pascal
        return i.camel if self.rng.random() < 0.75 else i.pascal

    def path(self) -> str:
        return self.rng.choice(self.p.file_urn).path

    def code(self) -> str:
        return f"`{self.ident()}`" if self.rng.random() < 0.7 else f"`{self.path()}`"

    def sentences(self, k: int, user: bool = False) -> str:
        pats = self.w.user_patterns if user else self.w.assistant_patterns
        rng, fill, code = self.rng, self.w.fill, self.code
        return " ".join(fill(rng, rng.choice(pats), code) for _ in range(k))

    def error(self) -> str:
        rng, p = self.rng, self.p
        i1, i2 = rng.choice(p.ident_urn), rng.choice(p.ident_urn)
        tmpl = rng.choice(_ERRORS[p.lang])
        msg = tmpl.format(
            s=i1.snake, s2=i2.snake, P=i1.pascal, c=i1.camel, c2=i2.camel, q=rng.choice(self.w.noun_urn),
            k=rng.randint(1, 99), k2=rng.randint(1, 99), p=self.path(), crate=rng.choice(p.crates),
        )
        self.stats.note("error", msg.split(":")[0].split("[")[0].strip())
        return msg

    def test_cmd(self) -> str:
        rng, p = self.rng, self.p
        t = rng.choice(p.tests).path
        return {
            "python": rng.choice((f"pytest -q {t}", "pytest -x -q", f"uv run pytest {t} -k {rng.choice(p.idents).snake}", "python -m pytest")),
            "rust": rng.choice((f"cargo test -p {rng.choice(p.crates)}", "cargo test", "cargo test --workspace -- --nocapture")),
            "ts": rng.choice((f"npx vitest run {t}", "npm test", f"pnpm test -- {t}")),
            "go": rng.choice(("go test ./...", f"go test ./{t.rsplit('/', 1)[0]}/ -run Test{rng.choice(p.idents).pascal}")),
        }[p.lang]

    def trace(self) -> str:
        """A stack trace in the project's language, as users paste them and tools print them."""
        rng, p, cwd = self.rng, self.p, self.p.cwd
        frames = rng.randint(3, 12)
        pool = p.pool
        if p.lang == "python":
            out = ["Traceback (most recent call last):"]
            for _ in range(frames):
                f = rng.choice(p.files)
                out.append(f'  File "{cwd}/{f.path}", line {rng.randint(1, f.lines)}, in {rng.choice(p.idents).snake}')
                out.append("    " + pool[rng.randrange(len(pool))].strip())
            out.append(self.error())
        elif p.lang == "rust":
            f = rng.choice(p.files)
            out = [f"thread 'main' panicked at {f.path}:{rng.randint(1, f.lines)}:{rng.randint(5, 40)}:", self.error(), "stack backtrace:"]
            for n in range(frames):
                out.append(f"  {n:>2}: {rng.choice(p.crates).replace('-', '_')}::{rng.choice(p.idents).snake}::{rng.choice(p.idents).snake}")
                out.append(f"             at ./{rng.choice(p.files).path}:{rng.randint(1, 900)}:{rng.randint(5, 40)}")
        elif p.lang == "ts":
            out = [self.error()]
            for _ in range(frames):
                f = rng.choice(p.files)
                out.append(f"    at {rng.choice(p.idents).camel} ({cwd}/{f.path}:{rng.randint(1, f.lines)}:{rng.randint(3, 60)})")
        else:
            out = [self.error(), "", "goroutine 1 [running]:"]
            for _ in range(frames):
                f = rng.choice(p.files)
                out.append(f"{p.name.replace('-', '')}/{f.path.rsplit('/', 1)[0]}.(*{rng.choice(p.idents).pascal}).{rng.choice(p.idents).pascal}(...)")
                out.append(f"\t{cwd}/{f.path}:{rng.randint(1, f.lines)} +0x{rng.randint(16, 900):x}")
        return "\n".join(out)

    def sql(self) -> str:
        rng, i = self.rng, self.p.idents
        t, c1, c2 = rng.choice(i).snake, rng.choice(i).snake, rng.choice(i).snake
        return rng.choice((
            f"SELECT {c1}, {c2}, created_at FROM {t}s WHERE {c1} = $1 ORDER BY created_at DESC LIMIT 50",
            f"SELECT count(*) FROM {t}s t JOIN {c1}s c ON c.id = t.{c1}_id GROUP BY t.{c2}",
            f"UPDATE {t}s SET {c2} = NULL WHERE {c1} < now() - interval '30 days'",
            f"SELECT DISTINCT ON ({c1}) * FROM {t}s WHERE {c2} IS NOT NULL",
        ))

    def fmt(self, tmpl: str) -> str:
        """Fill a prompt/reply template's named slots."""
        rng, p = self.rng, self.p
        i1 = self.ident()
        self.stats.note("ident", i1)
        f1 = self.path()
        self.stats.note("path", f1.rsplit("/", 1)[-1])
        vals = {
            "path": f1, "path2": self.path(), "ident": i1, "ident2": self.ident(),
            "Type": rng.choice(p.idents).pascal, "n": rng.choice(self.w.noun_urn), "a": rng.choice(self.w.adj_urn),
            "v": rng.choice(self.w.verb_urn), "lib": rng.choice(_LIBS[p.lang]), "lib2": rng.choice(_LIBS[p.lang]),
            "table": rng.choice(p.idents).snake + "s", "col": rng.choice(p.idents).snake, "flag": rng.choice(p.idents).snake.replace("_", "-"),
            "ms": rng.choice((180, 450, 900, 1200, 2500, 4000)), "lines": rng.choice((800, 1200, 2000, 3500)),
            "k": rng.randint(2, 30), "test": f"{rng.choice(p.tests).path}::test_{rng.choice(p.idents).snake}",
        }
        if "{error}" in tmpl:
            vals["error"] = self.error()
        if "{cmd}" in tmpl:
            vals["cmd"] = self.test_cmd()
        if "{trace}" in tmpl:
            vals["trace"] = self.trace()
            vals["cmd"] = self.test_cmd()
        if "{sql}" in tmpl:
            vals["sql"] = self.sql()
        return tmpl.format(**vals)

    # -- prompts and replies -----------------------------------------------------------------

    def prompt(self, first: bool) -> str:
        rng = self.rng
        if self.cjk and rng.random() < 0.7:
            tmpl, term = rng.choice(_CJK_PROMPTS)
            self.stats.note("cjk", term)
            return self.fmt(tmpl)
        if not first and rng.random() < 0.25:
            return self.fmt(rng.choice(_FOLLOWUPS))
        text = self.fmt(rng.choice(_PROMPTS))
        r = rng.random()
        if r < 0.35:
            text += " " + self.sentences(rng.randint(1, 3), user=True)
        elif r < 0.42:  # a long spec-style prompt
            text += "\n\n" + "\n".join(f"- {self.sentences(1, user=True)}" for _ in range(rng.randint(3, 12)))
            text += "\n\n" + self.sentences(rng.randint(2, 8), user=True)
        elif r < 0.50:
            text += f"\n\n```\n{self.trace()}\n```"
        return text

    def commentary(self) -> str:
        rng = self.rng
        if self.cjk and rng.random() < 0.6:
            return self.fmt(rng.choice(_CJK_COMMENTARY_JA if self.cjk == "ja" else _CJK_COMMENTARY_ZH))
        text = self.fmt(rng.choice(_COMMENTARY))
        if rng.random() < 0.3:
            text += " " + self.sentences(1)
        return text

    def final(self, calls: int) -> str:
        rng = self.rng
        if self.cjk and rng.random() < 0.7:
            return self.fmt(rng.choice(_CJK_REPLIES_JA if self.cjk == "ja" else _CJK_REPLIES_ZH))
        r = rng.random()
        if calls == 0 or r < 0.3:
            return self.sentences(rng.randint(2, 7))
        parts = [self.sentences(rng.randint(1, 3))]
        if r < 0.8:
            parts.append("\n".join(f"- {self.fmt('`{path}`')}: {self.sentences(1)}" for _ in range(rng.randint(1, 6))))
        if rng.random() < 0.25:
            start = rng.randrange(len(self.p.pool) - 12)
            lang = {"python": "python", "rust": "rust", "ts": "ts", "go": "go"}[self.p.lang]
            parts.append(f"```{lang}\n" + "\n".join(self.p.pool[start : start + rng.randint(3, 12)]) + "\n```")
        if rng.random() < 0.6:
            parts.append(f"Tests: `{self.test_cmd()}` — {rng.randint(3, 400)} passed.")
        if rng.random() < 0.3:
            parts.append(self.sentences(rng.randint(1, 4)))
        return "\n\n".join(parts)

    def reasoning(self) -> str:
        rng = self.rng
        title = self.w.fill(rng, _parse_pattern(rng.choice(_REASONING_TITLES)), self.code)
        return f"**{title}**\n\n{self.sentences(rng.randint(1, 4))}"

    # -- tool calls ----------------------------------------------------------------------------

    def size(self) -> int:
        """Output size target: mostly 100 B–4 KB, some tiny, ~1.5% 20–100 KB."""
        r = self.rng.random()
        if r < 0.015:
            return int(_loguniform(self.rng, 20_000, 100_000))
        if r < 0.10:
            return int(_loguniform(self.rng, 20, 100))
        return int(_loguniform(self.rng, 100, 4000))

    def call(self, pos: float) -> _Call:
        rng = self.rng
        r = rng.random()
        if pos < 0.4:
            kind = "read" if r < 0.45 else "search" if r < 0.80 else "shell" if r < 0.97 else "plan"
        elif pos < 0.75:
            kind = "edit" if r < 0.45 else "read" if r < 0.65 else "search" if r < 0.75 else "shell" if r < 0.98 else "write"
        else:
            kind = "shell" if r < 0.65 else "edit" if r < 0.85 else "read"
        if rng.random() < 0.008:
            kind = "web"
        return getattr(self, f"_call_{kind}")()

    def _call_read(self) -> _Call:
        rng, p = self.rng, self.p
        target = self.size()
        f = rng.choice(p.file_urn)
        if target > 20_000:
            f = max((rng.choice(p.files) for _ in range(6)), key=lambda x: x.lines)
        want = max(8, target // 38)
        if want >= f.lines:
            first, last = 0, f.lines
        else:
            first = rng.randrange(f.lines - want)
            last = first + want
        text = "\n".join(p.pool[f.start + first : f.start + last])
        return _Call("read", rng.randint(20, 400), text=text, file=f, first=first, last=last)

    def _call_search(self) -> _Call:
        rng, p = self.rng, self.p
        target = self.size()
        pat = rng.choice(p.ident_urn)
        pattern = pat.snake if p.lang in ("python", "rust") else pat.camel
        if rng.random() < 0.15:
            return _Call("search", rng.randint(20, 300), text="", exit_code=1, pattern=pattern)
        pool, out, size = p.pool, [], 0
        while size < target:
            f = rng.choice(p.file_urn)
            ln = rng.randrange(f.lines)
            line = f"{f.path}:{ln + 1}:{pool[f.start + ln].strip()}"
            out.append(line)
            size += len(line) + 1
        return _Call("search", rng.randint(20, 600), text="\n".join(out), pattern=pattern)

    def _call_edit(self) -> _Call:
        rng, p = self.rng, self.p
        f = rng.choice(p.file_urn)
        first = rng.randrange(max(1, f.lines - 6))
        n_old = rng.randint(1, 4)
        old = "\n".join(p.pool[f.start + first : f.start + first + n_old])
        new = "\n".join(self.gen.line(rng) for _ in range(rng.randint(1, 8)))
        c = _Call("edit", rng.randint(10, 200), file=f, first=first, last=first + n_old, old=old, new=new)
        c.exit_code = 1 if rng.random() < 0.05 else 0
        return c

    def _call_write(self) -> _Call:
        rng, p = self.rng, self.p
        f = rng.choice(p.tests)
        new = "\n".join(self.gen.line(rng) for _ in range(rng.randint(10, 80)))
        return _Call("write", rng.randint(10, 200), file=f, new=new)

    def _call_plan(self) -> _Call:
        steps = [self.sentences(1).rstrip(".") for _ in range(self.rng.randint(2, 6))]
        return _Call("plan", 5, text="\n".join(steps))

    def _call_web(self) -> _Call:
        rng = self.rng
        q = f"{rng.choice(_LIBS[self.p.lang])} {rng.choice(self.w.noun_urn)} {rng.choice(self.w.verb_urn)} {self.error().split(':')[0]}"
        links = ", ".join(
            f'{{"title":"{rng.choice(self.w.noun_urn).title()} {rng.choice(self.w.noun_urn)} guide","url":"https://docs.example.dev/{rng.choice(self.w.noun_urn)}/{rng.randint(1, 999)}"}}'
            for _ in range(rng.randint(3, 8))
        )
        body = f'Web search results for query: "{q}"\n\nLinks: [{links}]\n\n' + self.sentences(rng.randint(3, 10))
        return _Call("web", rng.randint(800, 6000), text=body, pattern=q)

    def _call_shell(self) -> _Call:
        rng = self.rng
        r = rng.random()
        if r < 0.45:
            cmd, text, code, dur = self._test_output()
        elif r < 0.60:
            cmd, text, code, dur = self._lint_output()
        elif r < 0.78:
            cmd, text, code, dur = self._git_output()
        else:
            cmd, text, code, dur = self._misc_output()
        return _Call("shell", dur, text=text, exit_code=code, cmd=cmd)

    def _fill_lines(self, out: list[str], target: int, make: Callable[[], str]) -> None:
        size = sum(len(x) + 1 for x in out)
        while size < target:
            line = make()
            out.append(line)
            size += len(line) + 1

    def _test_output(self) -> tuple[str, str, int, int]:
        rng, p = self.rng, self.p
        cmd = self.test_cmd()
        target = self.size()
        fail = rng.random() < 0.35
        idents = p.idents
        out: list[str]
        if p.lang == "python":
            out = [
                "============================= test session starts ==============================",
                f"platform linux -- Python 3.11.{rng.randint(4, 9)}, pytest-8.{rng.randint(0, 3)}.{rng.randint(0, 4)}, pluggy-1.5.0",
                f"rootdir: {p.cwd}", "configfile: pyproject.toml", f"collected {rng.randint(5, 900)} items", "",
            ]

            def prog() -> str:
                dots = "".join(rng.choices(".......s.F" if fail else "........s", k=rng.randint(3, 60)))
                return f"{rng.choice(p.tests).path} {dots}  [{rng.randint(1, 100):>3}%]"

            self._fill_lines(out, target, prog)
            if fail:
                name = f"test_{rng.choice(idents).snake}"
                out += ["", "=" * 35 + " FAILURES " + "=" * 35, f"{'_' * 20} {name} {'_' * 20}", ""]
                out += ["    " + p.pool[rng.randrange(len(p.pool))] for _ in range(rng.randint(3, 15))]
                err = self.error()
                out += [f"E       {err}", "", f"{rng.choice(p.tests).path}:{rng.randint(5, 400)}: {err.split(':')[0]}",
                        "=========================== short test summary info ============================",
                        f"FAILED {rng.choice(p.tests).path}::{name} - {err}",
                        f"========================= 1 failed, {rng.randint(3, 500)} passed in {rng.uniform(0.3, 90):.2f}s ========================="]
            else:
                out.append(f"============================== {rng.randint(3, 500)} passed in {rng.uniform(0.3, 90):.2f}s ===============================")
        elif p.lang == "rust":
            crate = rng.choice(p.crates)
            out = [f"   Compiling {crate} v0.{rng.randint(1, 9)}.{rng.randint(0, 20)} ({p.cwd}/crates/{crate})",
                   f"    Finished `test` profile [unoptimized + debuginfo] target(s) in {rng.uniform(0.5, 80):.2f}s",
                   f"     Running unittests src/lib.rs (target/debug/deps/{crate.replace('-', '_')}-{rng.getrandbits(64):016x})", "",
                   f"running {rng.randint(3, 300)} tests"]
            self._fill_lines(out, target, lambda: f"test {rng.choice(idents).snake}::tests::{rng.choice(idents).snake} ... {'FAILED' if fail and rng.random() < 0.05 else 'ok'}")
            if fail:
                name = f"{rng.choice(idents).snake}::tests::{rng.choice(idents).snake}"
                f = rng.choice(p.files)
                out += ["", "failures:", "", f"---- {name} stdout ----", f"thread '{name}' panicked at {f.path}:{rng.randint(1, f.lines)}:{rng.randint(5, 40)}:",
                        "assertion `left == right` failed", f"  left: {rng.randint(0, 99)}", f" right: {rng.randint(0, 99)}",
                        "note: run with `RUST_BACKTRACE=1` environment variable to display a backtrace", "", "failures:", f"    {name}", "",
                        f"test result: FAILED. {rng.randint(3, 300)} passed; 1 failed; 0 ignored; 0 measured; 0 filtered out; finished in {rng.uniform(0.01, 9):.2f}s", "",
                        f"error: test failed, to rerun pass `-p {crate} --lib`"]
            else:
                out.append(f"test result: ok. {rng.randint(3, 300)} passed; 0 failed; {rng.randint(0, 3)} ignored; 0 measured; 0 filtered out; finished in {rng.uniform(0.01, 9):.2f}s")
        elif p.lang == "ts":
            out = [f"> {p.name}@{rng.randint(0, 3)}.{rng.randint(0, 20)}.{rng.randint(0, 9)} test", f"> vitest run", "", f" RUN  v2.{rng.randint(0, 1)}.{rng.randint(0, 9)} {p.cwd}", ""]
            self._fill_lines(out, target, lambda: f" ✓ {rng.choice(p.tests).path} ({rng.randint(1, 40)} tests) {rng.randint(2, 900)}ms")
            if fail:
                t = rng.choice(p.tests).path
                out += [f" ❯ {t} ({rng.randint(2, 20)} tests | 1 failed) {rng.randint(5, 900)}ms",
                        f"   × {rng.choice(idents).camel} › {self.sentences(1).lower().rstrip('.')}",
                        f"     → {self.error()}", "", f" FAIL  {t}", self.trace(), "",
                        f" Test Files  1 failed | {rng.randint(1, 60)} passed", f"      Tests  1 failed | {rng.randint(5, 400)} passed"]
            else:
                out += ["", f" Test Files  {rng.randint(1, 60)} passed", f"      Tests  {rng.randint(5, 400)} passed"]
            out.append(f"   Duration  {rng.uniform(0.5, 40):.2f}s")
        else:
            mod = f"github.com/{p.repo_url.split(':')[1].removesuffix('.git')}"
            out = []
            self._fill_lines(out, target, lambda: f"ok  \t{mod}/internal/{rng.choice(idents).snake.replace('_', '')}\t{rng.uniform(0.005, 3):.3f}s")
            if fail:
                t = rng.choice(p.tests).path
                out += [f"--- FAIL: Test{rng.choice(idents).pascal} ({rng.uniform(0, 2):.2f}s)",
                        f"    {t.rsplit('/', 1)[-1]}:{rng.randint(10, 400)}: {self.error()}", "FAIL",
                        f"FAIL\t{mod}/{t.rsplit('/', 1)[0]}\t{rng.uniform(0.01, 3):.3f}s"]
        code = (1 if p.lang != "rust" else 101) if fail else 0
        return cmd, "\n".join(out), code, rng.randint(800, 90_000)

    def _lint_output(self) -> tuple[str, str, int, int]:
        rng, p = self.rng, self.p
        target = min(self.size(), 12_000)
        clean = rng.random() < 0.45
        out: list[str] = []
        if p.lang == "python":
            cmd = rng.choice(("ruff check .", "mypy src", "ruff check src tests && mypy src"))
            codes = ("F401 [*] `os` imported but unused", "E501 Line too long (104 > 100)",
                     "F841 Local variable `{v}` is assigned to but never used", "B008 Do not perform function call in argument defaults")
            if not clean:
                self._fill_lines(out, target, lambda: f"{rng.choice(p.files).path}:{rng.randint(1, 500)}:{rng.randint(1, 80)}: "
                                 + rng.choice(codes).format(v=rng.choice(p.idents).snake))
                out.append(f"Found {len(out)} errors.")
            else:
                out.append("All checks passed!" if "ruff" in cmd else f"Success: no issues found in {rng.randint(5, 200)} source files")
        elif p.lang == "rust":
            cmd = rng.choice(("cargo clippy --all-targets -- -D warnings", "cargo build", "cargo check"))
            if not clean:
                def block() -> str:
                    f = rng.choice(p.files)
                    ln = rng.randint(1, f.lines)
                    return (f"{self.error()}\n  --> {f.path}:{ln}:{rng.randint(5, 40)}\n   |\n{ln:<3}| {p.pool[f.start + ln - 1]}\n"
                            f"   |         ^^^^^^ expected `{rng.choice(('u64', 'usize', '&str', 'String'))}`, found `{rng.choice(('i64', 'Option<String>', '&String'))}`\n")
                self._fill_lines(out, target, block)
                out.append(f"error: could not compile `{rng.choice(p.crates)}` (lib) due to {len(out)} previous errors")
            else:
                out.append(f"    Finished `dev` profile [unoptimized + debuginfo] target(s) in {rng.uniform(0.2, 60):.2f}s")
        elif p.lang == "ts":
            cmd = rng.choice(("npx tsc --noEmit", "npm run lint", "npm run build"))
            if not clean:
                self._fill_lines(out, target, lambda: f"{rng.choice(p.files).path}({rng.randint(1, 400)},{rng.randint(1, 60)}): {self.error()}")
                out.append(f"Found {len(out)} errors in {rng.randint(1, 9)} files.")
        else:
            cmd = rng.choice(("go vet ./...", "go build ./...", "golangci-lint run"))
            if not clean:
                self._fill_lines(out, target, lambda: f"{rng.choice(p.files).path}:{rng.randint(1, 400)}:{rng.randint(1, 60)}: {self.error()}")
        return cmd, "\n".join(out), (0 if clean else 1), rng.randint(500, 60_000)

    def _git_output(self) -> tuple[str, str, int, int]:
        rng, p = self.rng, self.p
        r = rng.random()
        out: list[str]
        if r < 0.35:
            cmd = "git status"
            out = [f"On branch {p.branch}", "Changes not staged for commit:", '  (use "git add <file>..." to update what will be committed)']
            out += [f"\tmodified:   {rng.choice(p.files).path}" for _ in range(rng.randint(1, 8))]
            out += ["", 'no changes added to commit (use "git add" and/or "git commit -a")']
        elif r < 0.75:
            f = rng.choice(p.file_urn)
            cmd = rng.choice(("git diff", f"git diff {f.path}", "git diff --stat HEAD~1", "git show HEAD"))
            out = []

            def hunk() -> str:
                g = rng.choice(p.file_urn)
                a = rng.randrange(max(1, g.lines - 8))
                ctx = p.pool[g.start + a : g.start + a + 6]
                body = [f" {x}" for x in ctx[:3]] + [f"-{x}" for x in ctx[3:4]] + [f"+{self.gen.line(rng)}" for _ in range(rng.randint(1, 4))] + [f" {x}" for x in ctx[4:]]
                return (f"diff --git a/{g.path} b/{g.path}\nindex {rng.getrandbits(28):07x}..{rng.getrandbits(28):07x} 100644\n"
                        f"--- a/{g.path}\n+++ b/{g.path}\n@@ -{a + 1},6 +{a + 1},{len(body) - 1} @@\n" + "\n".join(body))

            self._fill_lines(out, self.size(), hunk)
        else:
            cmd = rng.choice(("git log --oneline -n 20", "git log --oneline -n 50"))
            out = [f"{rng.getrandbits(28):07x} {rng.choice(('fix', 'feat', 'refactor', 'test', 'chore', 'docs'))}: {self.sentences(1).rstrip('.').lower()}"
                   for _ in range(20 if "20" in cmd else 50)]
        return cmd, "\n".join(out), 0, rng.randint(10, 400)

    def _misc_output(self) -> tuple[str, str, int, int]:
        rng, p, w = self.rng, self.p, self.w
        r = rng.random()
        out: list[str] = []
        code = 0
        if r < 0.2:
            d = rng.choice(p.files).path.rsplit("/", 1)[0] if rng.random() < 0.6 else "."
            cmd = f"ls -la {d}"
            out.append(f"total {rng.randint(8, 400)}")
            out += [f"{rng.choice(('-rw-r--r--', 'drwxr-xr-x'))}  1 dev dev {rng.randint(96, 90_000):>6} Feb {rng.randint(1, 28):>2} {rng.randint(0, 23):02d}:{rng.randint(0, 59):02d} {rng.choice(p.files).path.rsplit('/', 1)[-1]}"
                    for _ in range(rng.randint(3, 40))]
        elif r < 0.35:
            cmd = rng.choice(("rg --files | head -200", "find . -name '*.%s' -not -path './node_modules/*'" % {"python": "py", "rust": "rs", "ts": "ts", "go": "go"}[p.lang]))
            self._fill_lines(out, self.size(), lambda: rng.choice(p.files).path)
        elif r < 0.50:
            q = self.sql()
            cmd = f'psql "$DATABASE_URL" -c "{q}"'
            if rng.random() < 0.3:
                out.append(rng.choice(_SQL_ERRORS).format(s=rng.choice(p.idents).snake, W=rng.choice(w.noun_urn).upper()))
                code = 1
            else:
                cols = [rng.choice(p.idents).snake for _ in range(rng.randint(2, 5))]
                out.append(" " + " | ".join(cols))
                out.append("-" + "-+-".join("-" * len(c) for c in cols))
                n = rng.randint(0, 60)
                out += [" " + " | ".join(str(rng.randint(1, 99999)) if j % 2 == 0 else rng.choice(w.noun_urn) for j in range(len(cols))) for _ in range(n)]
                out.append(f"({n} rows)")
        elif r < 0.68:
            cmd = rng.choice(("tail -n 400 logs/app.log", "docker compose logs --tail=300 api", "journalctl -u app --since '10 min ago'"))
            base = _START_MS + rng.randrange(_SPAN_DAYS * _DAY_MS)

            def logline() -> str:
                lvl = rng.choice(("INFO", "INFO", "INFO", "DEBUG", "WARN", "ERROR"))
                msg = self.error() if lvl == "ERROR" else f"{rng.choice(w.verb_urn)} {rng.choice(w.noun_urn)} {rng.choice(p.idents).snake}={rng.randint(0, 9999)}"
                return f"{_ts(base + rng.randrange(600_000))} {lvl:<5} {rng.choice(p.idents).snake}: {msg}"

            self._fill_lines(out, self.size(), logline)
        elif r < 0.78:
            cmd = f"curl -s localhost:{rng.choice((3000, 8000, 8080, 5173))}/api/{rng.choice(p.idents).snake.replace('_', '-')}"
            items = ", ".join(f'{{"{rng.choice(p.idents).snake}": {rng.randint(0, 999)}, "{rng.choice(p.idents).snake}": "{rng.choice(w.noun_urn)}"}}' for _ in range(rng.randint(1, 20)))
            out.append(f'{{"ok": true, "data": [{items}]}}')
        elif r < 0.90:
            cmd = {"python": "uv pip install -e '.[dev]'", "rust": "cargo update", "ts": "npm install", "go": "go mod tidy"}[p.lang]
            libs = _LIBS[p.lang]
            if p.lang == "ts":
                out = [f"added {rng.randint(1, 900)} packages, and audited {rng.randint(200, 1500)} packages in {rng.randint(2, 60)}s", "",
                       f"{rng.randint(10, 200)} packages are looking for funding", "  run `npm fund` for details", "", "found 0 vulnerabilities"]
            else:
                out = [f"    Updating {rng.choice(libs)} v{rng.randint(0, 3)}.{rng.randint(0, 40)}.{rng.randint(0, 9)} -> v{rng.randint(0, 3)}.{rng.randint(0, 40)}.{rng.randint(0, 9)}" for _ in range(rng.randint(1, 25))]
        else:
            cmd = rng.choice(("cat .env", "env | sort", "cat .env.local"))
            out = [f"{rng.choice(p.idents).snake.upper()}={rng.choice(w.noun_urn)}" for _ in range(rng.randint(3, 20))]
            if rng.random() < 0.5:  # fake credentials, so the redaction path gets exercised
                out.insert(rng.randrange(len(out)), self.secret())
        return cmd, "\n".join(out), code, rng.randint(10, 3000)

    def secret(self) -> str:
        rng = self.rng
        self.stats.secrets += 1
        kind = rng.randrange(5)
        if kind == 0:
            return f"OPENAI_API_KEY=sk-proj-{_rand_str(rng, 48)}"
        if kind == 1:
            return f"GITHUB_TOKEN=ghp_{_rand_str(rng, 36)}"
        if kind == 2:
            return f"AWS_ACCESS_KEY_ID=AKIA{_rand_str(rng, 16, _B32)}"
        if kind == 3:
            return f"ANTHROPIC_API_KEY=sk-ant-api03-{_rand_str(rng, 40)}"
        return f"DATABASE_URL=postgres://app:{_rand_str(rng, 24)}@db.internal:5432/app"

    # -- a turn -----------------------------------------------------------------------------

    def turn(self, index: int, last: bool, incomplete_last: bool, in_session_gap: bool) -> _Turn:
        rng = self.rng
        prompt = self.prompt(index == 0)
        short = len(prompt) < 40
        n_calls = rng.choices(_N_CALLS, _N_CALLS_W)[0]
        if short and rng.random() < 0.4:
            n_calls = min(n_calls, 3)
        outcome = "complete"
        if last and incomplete_last:
            outcome = "incomplete"
        elif rng.random() < 0.03:
            outcome = "aborted"
        steps: list[_Step] = []
        done = 0
        while done < n_calls:
            k = 1 if rng.random() < 0.75 else min(rng.randint(2, 3), n_calls - done)
            pos = done / n_calls
            calls = [self.call(pos) for _ in range(k)]
            done += k
            comment = self.commentary() if rng.random() < 0.5 else None
            steps.append(_Step(self.reasoning() if rng.random() < 0.75 else "", comment, calls, rng.randint(1200, 25_000)))
        final: str | None = None
        if outcome == "aborted":
            if steps:
                steps = steps[: rng.randint(1, len(steps))]
                steps[-1].calls[-1].aborted = True
        elif outcome == "incomplete":
            if steps:
                steps = steps[: rng.randint(1, len(steps))]
                if rng.random() < 0.5:
                    steps[-1].calls[-1].pending = True
        else:
            final = self.final(n_calls)
        gap = int(_loguniform(rng, 15_000, 1_800_000))
        if in_session_gap:
            gap += rng.randint(3, 20) * 3_600_000
        closing = self.reasoning() if final is not None and rng.random() < 0.5 else ""
        return _Turn(prompt, steps, final, outcome, rng.random() < 0.003, gap, closing)


# --------------------------------------------------------------------------------------------
# Statistics and sample queries.
# --------------------------------------------------------------------------------------------


class _Stats:
    """Running totals plus a few terms known to occur, from which sample queries are built."""

    def __init__(self) -> None:
        self.files = 0
        self.bytes = 0
        self.records = 0
        self.secrets = 0
        self.by_harness: dict[str, dict[str, int]] = {
            h: {"files": 0, "sessions": 0, "turns": 0, "searchable_events": 0} for h in ("codex", "claude")
        }
        self.session_turns: list[tuple[str, int]] = []
        self.terms: dict[str, Counter[str]] = {k: Counter() for k in ("ident", "path", "error", "cjk")}

    def note(self, kind: str, term: str) -> None:
        counter = self.terms[kind]
        if len(counter) < 5000 or term in counter:
            counter[term] += 1

    def sample_queries(self, seed: int) -> list[str]:
        """Queries of graded selectivity, every one built from terms the corpus contains."""
        rng = random.Random(f"moraine-corpus/{seed}/queries")
        out: list[str] = []
        idents = self.terms["ident"].most_common()
        if idents:
            out.append(idents[0][0])  # frequent
            mid = idents[len(idents) // 10][0]
            errors = [e for e, _ in self.terms["error"].most_common(20)] or ["error"]
            out.append(f"{mid} {rng.choice(errors)}")  # mixed
            rare = [t for t, n in idents if n == 1] or [idents[-1][0]]
            out.append(rng.choice(rare))  # rare
        if self.terms["error"]:
            out.append(self.terms["error"].most_common(1)[0][0])
        if self.terms["path"]:
            out.append(self.terms["path"].most_common(3)[-1][0])
        out.append("connection timeout retry")
        if self.terms["cjk"]:
            out.append(self.terms["cjk"].most_common(1)[0][0])
        return list(dict.fromkeys(out))


# --------------------------------------------------------------------------------------------
# Harness renderers.
# --------------------------------------------------------------------------------------------

_ENCODE = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"), check_circular=False).encode

_ENV_CONTEXT = (
    "<environment_context>\n  <cwd>{cwd}</cwd>\n  <approval_policy>on-request</approval_policy>\n"
    "  <sandbox_mode>workspace-write</sandbox_mode>\n  <network_access>restricted</network_access>\n"
    "  <shell>{shell}</shell>\n</environment_context>"
)
_AGENTS_MD = (
    "# AGENTS.md instructions for {cwd}\n\n<INSTRUCTIONS>\n## Conventions\n- Run `{test}` before finishing.\n"
    "- Keep functions small and typed.\n- Never commit secrets or generated files.\n</INSTRUCTIONS>"
)
_TURN_ABORTED_NOTE = (
    "<turn_aborted>\n  <turn_id>{tid}</turn_id>\n  <reason>interrupted</reason>\n  <guidance>The user interrupted "
    "the previous turn. Do not continue the interrupted work unless asked.</guidance>\n</turn_aborted>"
)
_CLAUDE_REJECT = (
    "The user doesn't want to proceed with this tool use. The tool use was rejected (eg. if it was a file edit, "
    "the new_string was NOT written to the file). STOP what you are doing and wait for the user to tell you how to proceed."
)
_TODO_OK = (
    "Todos have been modified successfully. Ensure that you continue to use the todo list to track your progress. "
    "Please proceed with the current tasks if applicable"
)


class _Session:
    """Shared bookkeeping for one session file: clock, lines, searchable-event count."""

    def __init__(self, world: _World, rng: random.Random, proj: _Project, start_ms: int, stats: _Stats) -> None:
        self.w = world
        self.rng = rng
        self.p = proj
        self.start = start_ms
        self.t = start_ms
        self.lines: list[str] = []
        self.count = 0
        self.turns = 0
        self.stats = stats

    def emit(self, obj: _Json) -> None:
        self.lines.append(_ENCODE(obj))

    def tick(self, lo: int, hi: int) -> str:
        self.t += self.rng.randint(lo, hi)
        return _ts(self.t)

    def b64(self, n: int) -> str:
        s = self.w.b64
        o = self.rng.randrange(len(s) - n)
        return s[o : o + n]

    def write(self, path: Path) -> None:
        data = ("\n".join(self.lines) + "\n").encode("utf-8")
        path.parent.mkdir(parents=True, exist_ok=True)
        with open(path, "wb", buffering=1 << 20) as f:
            f.write(data)
        self.stats.bytes += len(data)
        self.stats.records += len(self.lines)
        self.stats.files += 1


def _codex_style(rng: random.Random) -> tuple[str, str, str]:
    """(tool style, cli_version, model): three generations of Codex shell tooling seen in the wild."""
    r = rng.random()
    if r < 0.35:
        return "shell", rng.choice(("0.46.0", "0.50.0", "0.53.0")), rng.choice(("gpt-5-codex", "gpt-5-codex", "gpt-5"))
    if r < 0.7:
        return "shell_command", rng.choice(("0.63.0", "0.71.0", "0.77.0")), rng.choice(("gpt-5.1-codex", "gpt-5.1-codex-max", "gpt-5.2-codex"))
    return "exec_command", rng.choice(("0.87.0", "0.94.0", "0.98.0")), rng.choice(("gpt-5.2-codex", "gpt-5.3-codex", "gpt-5.3-codex"))


class _Codex(_Session):
    """Renders turns as a Codex rollout (``payload``-wrapped records, one JSON object a line)."""

    def __init__(self, world: _World, rng: random.Random, proj: _Project, start_ms: int, stats: _Stats) -> None:
        super().__init__(world, rng, proj, start_ms, stats)
        self.style, self.cli, self.model = _codex_style(rng)
        self.sid = _uuid7(rng, start_ms)
        self.effort = rng.choice(("medium", "medium", "high", "xhigh", "low"))
        self.total = {"input_tokens": 0, "cached_input_tokens": 0, "output_tokens": 0, "reasoning_output_tokens": 0, "total_tokens": 0}
        self.ctx = rng.randint(8000, 20_000)
        self.primary = rng.uniform(0, 40)
        self.phase = self.style == "exec_command"
        ts = _ts(start_ms)
        self.emit({"timestamp": ts, "type": "session_meta", "payload": {
            "id": self.sid, "timestamp": ts, "cwd": proj.cwd, "originator": "codex_cli_rs", "cli_version": self.cli,
            "instructions": None, "source": "cli", "model_provider": "openai",
            "git": {"commit_hash": f"{rng.getrandbits(160):040x}", "branch": proj.branch, "repository_url": proj.repo_url}}})
        if self.phase:
            self.item("message", role="developer", content=[{"type": "input_text", "text": "<permissions instructions>\nFilesystem sandboxing defines which files can be read or written. `sandbox_mode` is `workspace-write`.\n</permissions instructions>"}])
        if rng.random() < 0.6:
            test = _TEST_HINT[proj.lang]
            self.item("message", role="user", content=[{"type": "input_text", "text": _AGENTS_MD.format(cwd=proj.cwd, test=test)}])
        self.item("message", role="user", content=[{"type": "input_text", "text": _ENV_CONTEXT.format(cwd=proj.cwd, shell=rng.choice(("zsh", "bash")))}])

    def path_name(self, out: Path) -> Path:
        stamp = _ts(self.start)
        d = stamp[:10].replace("-", "/")
        return out / "codex" / "sessions" / d / f"rollout-{stamp[:19].replace(':', '-')}-{self.sid}.jsonl"

    def item(self, typ: str, ts: str | None = None, **payload: Any) -> None:
        self.emit({"timestamp": ts or self.tick(1, 40), "type": "response_item", "payload": {"type": typ, **payload}})

    def event(self, typ: str, ts: str | None = None, **payload: Any) -> None:
        self.emit({"timestamp": ts or self.tick(0, 5), "type": "event_msg", "payload": {"type": typ, **payload}})

    def tokens(self) -> None:
        rng = self.rng
        self.ctx += rng.randint(300, 6000)
        out = rng.randint(40, 2500)
        reasoning = rng.randint(0, out)
        cached = int(self.ctx * rng.uniform(0.5, 0.95))
        last = {"input_tokens": self.ctx, "cached_input_tokens": cached, "output_tokens": out, "reasoning_output_tokens": reasoning, "total_tokens": self.ctx + out}
        for k, v in last.items():
            self.total[k] += v
        self.primary = min(100.0, self.primary + rng.uniform(0, 0.6))
        resets = self.t // 1000 + rng.randint(600, 18_000)
        self.event("token_count", info={"total_token_usage": dict(self.total), "last_token_usage": last, "model_context_window": 258_400},
                   rate_limits={"primary": {"used_percent": round(self.primary, 1), "window_minutes": 300, "resets_at": resets},
                                "secondary": {"used_percent": round(self.primary / 4, 1), "window_minutes": 10080, "resets_at": resets + 400_000},
                                "credits": None, "plan_type": None})

    def assistant(self, text: str, phase: str) -> None:
        extra: _Json = {"phase": phase} if self.phase else {}
        ts = self.tick(50, 900)
        self.item("message", ts=ts, role="assistant", content=[{"type": "output_text", "text": text}], **extra)
        self.event("agent_message", ts=self.tick(0, 2), message=text, **extra)
        self.count += 1

    def reasoning(self, text: str) -> None:
        rng = self.rng
        summary = [{"type": "summary_text", "text": text}] if text else []
        self.item("reasoning", summary=summary, content=None, encrypted_content="gAAAAAB" + self.b64(rng.randint(400, 4000)))
        if text:
            self.event("agent_reasoning", text=text)

    def render(self, turn: _Turn) -> None:
        rng = self.rng
        self.t += turn.gap_ms if self.turns else rng.randint(500, 4000)
        self.turns += 1
        tid = _uuid7(rng, self.t)
        self.event("task_started", turn_id=tid, model_context_window=258_400)
        self.emit({"timestamp": self.tick(1, 30), "type": "turn_context", "payload": {
            "turn_id": tid, "cwd": self.p.cwd, "approval_policy": "on-request",
            "sandbox_policy": {"type": "workspace-write", "network_access": False, "exclude_tmpdir_env_var": False, "exclude_slash_tmp": False},
            "model": self.model, "effort": self.effort, "summary": "auto"}})
        content: list[_Json] = [{"type": "input_text", "text": turn.prompt}]
        images: list[str] = []
        if turn.image:
            url = "data:image/png;base64," + self.b64(rng.randint(4000, 40_000))
            content.append({"type": "input_image", "image_url": url})
            images.append(url)
        ts = self.tick(1, 20)
        self.item("message", ts=ts, role="user", content=content)
        self.event("user_message", ts=self.tick(0, 2), message=turn.prompt, images=images, local_images=[], text_elements=[])
        self.count += 1
        if len(self.lines) < 8:
            self.event("token_count", info=None, rate_limits=None)
        for step in turn.steps:
            self.t += step.latency_ms
            if step.reasoning or rng.random() < 0.5:
                self.reasoning(step.reasoning)
            if step.commentary:
                self.assistant(step.commentary, "commentary")
            for call in step.calls:
                self.call(call)
            for call in step.calls:
                if call.pending:
                    continue
                self.t += call.duration_ms
                self.output(call)
            if not any(c.aborted or c.pending for c in step.calls):
                self.tokens()
        if turn.outcome == "aborted":
            self.event("turn_aborted", turn_id=tid, reason="interrupted")
            self.item("message", role="user", content=[{"type": "input_text", "text": _TURN_ABORTED_NOTE.format(tid=tid)}])
        elif turn.final is not None:
            self.t += rng.randint(1500, 30_000)
            if turn.final_reasoning:
                self.reasoning(turn.final_reasoning)
            self.assistant(turn.final, "final_answer")
            self.tokens()
            self.event("task_complete", turn_id=tid, last_agent_message=turn.final)

    # Codex renders reads and searches as shell commands: that is what the model really runs.
    def command_for(self, c: _Call) -> str:
        if c.kind == "read":
            assert c.file is not None
            if c.first == 0 and c.last == c.file.lines:
                return f"cat {c.file.path}"
            if self.rng.random() < 0.3:
                return f"nl -ba {c.file.path} | sed -n '{c.first + 1},{c.last}p'"
            return f"sed -n '{c.first + 1},{c.last}p' {c.file.path}"
        if c.kind == "search":
            d = self.rng.choice(("src", ".", "crates", "internal", "tests"))
            return f'rg -n "{c.pattern}" {d}'
        return c.cmd

    def call(self, c: _Call) -> None:
        rng = self.rng
        c.cmd = self.command_for(c) if c.kind in ("read", "search", "shell") else c.cmd
        call_id = c.call_id = "call_" + _rand_str(rng, 24)
        ts = self.tick(20, 400)
        if c.kind == "web":
            self.item("web_search_call", ts=ts, status="completed", action={"type": "search", "query": c.pattern})
            c.pending = True  # Codex writes no output record for a web search
            return
        if c.kind in ("edit", "write"):
            assert c.file is not None
            if c.kind == "edit":
                ctx = self.p.pool[c.file.start + max(0, c.first - 1)]
                body = f"*** Update File: {c.file.path}\n@@ {ctx}\n" + "\n".join("-" + x for x in c.old.split("\n")) + "\n" + "\n".join("+" + x for x in c.new.split("\n"))
            else:
                body = f"*** Add File: {c.file.path}\n" + "\n".join("+" + x for x in c.new.split("\n"))
            self.item("custom_tool_call", ts=ts, status="completed", call_id=call_id, name="apply_patch", input=f"*** Begin Patch\n{body}\n*** End Patch\n")
            return
        if c.kind == "plan":
            plan = [{"step": s, "status": st} for s, st in zip(c.text.split("\n"), ("completed", "in_progress", "pending", "pending", "pending", "pending"))]
            self.item("function_call", ts=ts, name="update_plan", arguments=_ENCODE({"plan": plan}), call_id=call_id)
            return
        if self.style == "shell":
            args: _Json = {"command": ["bash", "-lc", c.cmd], "workdir": self.p.cwd, "timeout_ms": 120_000}
        elif self.style == "shell_command":
            args = {"command": c.cmd, "workdir": self.p.cwd}
        else:
            args = {"cmd": c.cmd, "workdir": self.p.cwd, "yield_time_ms": 10_000, "max_output_tokens": 10_000}
        self.item("function_call", ts=ts, name=self.style, arguments=_ENCODE(args), call_id=call_id)

    def output(self, c: _Call) -> None:
        call_id = c.call_id
        self.count += 1
        if c.kind in ("edit", "write"):
            assert c.file is not None
            if c.aborted:
                out = "aborted"
            elif c.exit_code:
                out = _ENCODE({"output": f"apply_patch verification failed: Failed to find expected lines in {c.file.path}:\n{c.old}", "metadata": {"exit_code": 1, "duration_seconds": 0.0}})
            else:
                flag = "M" if c.kind == "edit" else "A"
                out = _ENCODE({"output": f"Success. Updated the following files:\n{flag} {c.file.path}\n", "metadata": {"exit_code": 0, "duration_seconds": round(c.duration_ms / 1000, 1)}})
            self.item("custom_tool_call_output", call_id=call_id, output=out)
            return
        if c.aborted:
            self.item("function_call_output", call_id=call_id, output="aborted")
            return
        if c.kind == "plan":
            self.item("function_call_output", call_id=call_id, output="Plan updated")
            return
        text = c.text
        if c.kind == "read" and c.cmd.startswith("nl "):
            text = "\n".join(f"{n:>6}\t{x}" for n, x in enumerate(text.split("\n"), c.first + 1))
        secs = c.duration_ms / 1000
        if self.style == "shell":
            out = _ENCODE({"output": text, "metadata": {"exit_code": c.exit_code, "duration_seconds": round(secs, 1)}})
        elif self.style == "shell_command":
            out = f"Exit code: {c.exit_code}\nWall time: {secs:.1f} seconds\nOutput:\n{text}"
        else:
            out = (f"Chunk ID: {self.rng.getrandbits(24):06x}\nWall time: {secs:.4f} seconds\nProcess exited with code {c.exit_code}\n"
                   f"Original token count: {len(text) // 4}\nOutput:\n{text}")
        self.item("function_call_output", call_id=call_id, output=out)

    def compact(self) -> None:
        """Long sessions hit the context limit: Codex writes a ``compacted`` record with a summary."""
        summary = "Summary of the conversation so far:\n" + "\n".join(f"- {_filler(self)}" for _ in range(self.rng.randint(4, 12)))
        self.emit({"timestamp": self.tick(100, 2000), "type": "compacted", "payload": {"message": summary}})
        self.event("context_compacted")
        self.ctx = self.rng.randint(8000, 20_000)


_TEST_HINT = {"python": "pytest -q", "rust": "cargo test", "ts": "npm test", "go": "go test ./..."}


def _filler(sess: _Session) -> str:
    """One assistant-voice sentence, for summaries and thinking the plan did not provide."""
    w, rng = sess.w, sess.rng
    return w.fill(rng, rng.choice(w.assistant_patterns), lambda: f"`{rng.choice(sess.p.ident_urn).snake}`")


_CLAUDE_MODELS = ("claude-opus-4-5-20251101", "claude-opus-4-5-20251101", "claude-sonnet-4-5-20250929", "claude-haiku-4-5-20251001")
_CLAUDE_VERSIONS = ("2.0.76", "2.1.3", "2.1.9", "2.1.15", "2.1.29")


class _Claude(_Session):
    """Renders turns as a Claude Code transcript: one record per content block, linked by
    ``parentUuid``; tool results come back as ``user`` records with ``tool_result`` blocks."""

    def __init__(self, world: _World, rng: random.Random, proj: _Project, start_ms: int, stats: _Stats) -> None:
        super().__init__(world, rng, proj, start_ms, stats)
        self.sid = _uuid4(rng)
        self.version = rng.choice(_CLAUDE_VERSIONS)
        self.model = rng.choice(_CLAUDE_MODELS)
        self.parent: str | None = None
        self.mode = rng.choice(("default", "default", "acceptEdits", "plan"))
        self.ctx = rng.randint(12_000, 30_000)
        self.edited: dict[str, int] = {}
        self.base = {"isSidechain": False, "userType": "external", "cwd": proj.cwd, "sessionId": self.sid,
                     "version": self.version, "gitBranch": proj.branch}

    def path_name(self, out: Path) -> Path:
        slug = self.p.cwd.replace("/", "-").replace(".", "-")
        return out / "claude" / "projects" / slug / f"{self.sid}.jsonl"

    def record(self, typ: str, ts: str, **fields: Any) -> str:
        uid = _uuid4(self.rng)
        obj: _Json = {"parentUuid": self.parent, **self.base, "type": typ, **fields, "uuid": uid, "timestamp": ts}
        self.emit(obj)
        self.parent = uid
        return uid

    def usage(self, out_tokens: int) -> _Json:
        rng = self.rng
        self.ctx += rng.randint(200, 5000)
        created = rng.randint(0, 4000)
        return {"input_tokens": rng.randint(1, 12), "cache_creation_input_tokens": created, "cache_read_input_tokens": self.ctx,
                "cache_creation": {"ephemeral_5m_input_tokens": created, "ephemeral_1h_input_tokens": 0},
                "output_tokens": out_tokens, "service_tier": "standard"}

    def assistant_blocks(self, blocks: list[_Json], stop: str | None) -> str:
        """One API message split into one record per block, sharing message.id and requestId."""
        msg_id = "msg_01" + _rand_str(self.rng, 22)
        req = "req_011C" + _rand_str(self.rng, 20)
        usage = self.usage(self.rng.randint(20, 1800))
        uid = ""
        for n, block in enumerate(blocks):
            last = n == len(blocks) - 1
            message = {"model": self.model, "id": msg_id, "type": "message", "role": "assistant", "content": [block],
                       "stop_reason": stop if last else None, "stop_sequence": None, "usage": usage}
            uid = self.record("assistant", self.tick(30, 1500), message=message, requestId=req)
            if block["type"] == "text":
                self.count += 1
        return uid

    def render(self, turn: _Turn) -> None:
        rng = self.rng
        self.t += turn.gap_ms if self.turns else rng.randint(500, 4000)
        self.turns += 1
        turn_start = self.t
        prompt_id = _uuid4(rng)
        backups = {p: {"backupFileName": f"{rng.getrandbits(64):016x}@v{v}", "version": v, "backupTime": _ts(self.t)} for p, v in self.edited.items()}
        self.emit({"type": "file-history-snapshot", "messageId": prompt_id,
                   "snapshot": {"messageId": prompt_id, "trackedFileBackups": backups, "timestamp": _ts(self.t)}, "isSnapshotUpdate": False})
        content: Any = turn.prompt
        if turn.image:
            content = [{"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": self.b64(rng.randint(4000, 40_000))}},
                       {"type": "text", "text": turn.prompt}]
        obj: _Json = {"parentUuid": self.parent, **self.base, "type": "user", "message": {"role": "user", "content": content},
                      "uuid": prompt_id, "timestamp": self.tick(1, 50), "thinkingMetadata": {"maxThinkingTokens": 31999}, "todos": [],
                      "permissionMode": self.mode}
        self.emit(obj)
        self.parent = prompt_id
        self.count += 1
        for step in turn.steps:
            self.t += step.latency_ms
            blocks: list[_Json] = []
            if step.reasoning:
                blocks.append({"type": "thinking", "thinking": step.reasoning, "signature": self.b64(rng.randint(200, 1200))})
            if step.commentary:
                blocks.append({"type": "text", "text": step.commentary})
            ids = ["toolu_01" + _rand_str(rng, 22) for _ in step.calls]
            blocks += [self.tool_use(c, i) for c, i in zip(step.calls, ids)]
            src = self.assistant_blocks(blocks, "tool_use")
            for c, i in zip(step.calls, ids):
                if c.pending:
                    continue
                self.t += c.duration_ms
                self.result(c, i, src)
        if turn.outcome == "aborted":
            text = "[Request interrupted by user for tool use]" if turn.steps else "[Request interrupted by user]"
            self.record("user", self.tick(200, 5000), message={"role": "user", "content": [{"type": "text", "text": text}]})
        elif turn.final is not None:
            self.t += rng.randint(1500, 30_000)
            blocks = [{"type": "thinking", "thinking": _filler(self), "signature": self.b64(rng.randint(200, 1200))}] if rng.random() < 0.3 else []
            blocks.append({"type": "text", "text": turn.final})
            self.assistant_blocks(blocks, "end_turn")
            self.record("system", self.tick(5, 60), subtype="turn_duration", durationMs=self.t - turn_start, isMeta=False)

    def tool_use(self, c: _Call, tool_id: str) -> _Json:
        rng, cwd = self.rng, self.p.cwd
        if c.kind == "read":
            assert c.file is not None
            inp: _Json = {"file_path": f"{cwd}/{c.file.path}"}
            if c.first or c.last != c.file.lines:
                inp.update(offset=c.first + 1, limit=c.last - c.first)
            name = "Read"
        elif c.kind == "search":
            if rng.random() < 0.7:
                name, inp = "Grep", {"pattern": c.pattern, "path": cwd, "output_mode": "content", "-n": True}
            else:
                name, inp = "Grep", {"pattern": c.pattern, "output_mode": "files_with_matches"}
        elif c.kind == "edit":
            assert c.file is not None
            name, inp = "Edit", {"file_path": f"{cwd}/{c.file.path}", "old_string": c.old, "new_string": c.new}
        elif c.kind == "write":
            assert c.file is not None
            name, inp = "Write", {"file_path": f"{cwd}/{c.file.path}", "content": c.new}
        elif c.kind == "plan":
            todos = [{"content": s, "status": st, "activeForm": s} for s, st in zip(c.text.split("\n"), ("completed", "in_progress", "pending", "pending", "pending", "pending"))]
            name, inp = "TodoWrite", {"todos": todos}
        elif c.kind == "web":
            name, inp = "WebSearch", {"query": c.pattern}
        else:
            name, inp = "Bash", {"command": c.cmd, "description": _filler(self).split(" ")[0] + " " + c.cmd.split(" ")[0]}
        return {"type": "tool_use", "id": tool_id, "name": name, "input": inp}

    def result(self, c: _Call, tool_id: str, src: str) -> None:
        cwd = self.p.cwd
        is_error = False
        extra: Any
        if c.aborted:
            text, is_error, extra = _CLAUDE_REJECT, True, "User rejected tool use"
        elif c.kind == "read":
            assert c.file is not None
            raw = c.text
            text = "\n".join(f"{n:>6}→{x}" for n, x in enumerate(raw.split("\n"), c.first + 1))
            extra = {"type": "text", "file": {"filePath": f"{cwd}/{c.file.path}", "content": raw, "numLines": c.last - c.first,
                                              "startLine": c.first + 1, "totalLines": c.file.lines}}
        elif c.kind == "search":
            lines = c.text.split("\n") if c.text else []
            if not lines:
                text = "No matches found"
            elif len(lines) > 0 and self.rng.random() < 0.3:
                files = list(dict.fromkeys(x.split(":", 1)[0] for x in lines))
                text = f"Found {len(files)} files\n" + "\n".join(f"{cwd}/{x}" for x in files)
            else:
                text = "\n".join(f"{cwd}/{x}" for x in lines)
            extra = {"mode": "content", "numFiles": len({x.split(':', 1)[0] for x in lines}), "filenames": [], "content": text, "numLines": len(lines)}
        elif c.kind == "edit":
            assert c.file is not None
            path = f"{cwd}/{c.file.path}"
            if c.exit_code:
                text, is_error = f"<tool_use_error>String to replace not found in file.\nString: {c.old}</tool_use_error>", True
                extra = f"Error: String to replace not found in file.\nString: {c.old}"
            else:
                self.edited[c.file.path] = self.edited.get(c.file.path, 0) + 1
                pool, s = self.p.pool, c.file.start
                lo = max(0, c.first - 4)
                snippet = pool[s + lo : s + c.first] + c.new.split("\n") + pool[s + c.last : s + c.last + 4]
                text = (f"The file {path} has been updated. Here's the result of running `cat -n` on a snippet of the edited file:\n"
                        + "\n".join(f"{n:>6}→{x}" for n, x in enumerate(snippet, lo + 1)))
                extra = {"filePath": path, "oldString": c.old, "newString": c.new, "originalFile": None,
                         "structuredPatch": [{"oldStart": c.first + 1, "oldLines": c.last - c.first, "newStart": c.first + 1,
                                              "newLines": c.new.count("\n") + 1, "lines": ["-" + x for x in c.old.split("\n")] + ["+" + x for x in c.new.split("\n")]}],
                         "userModified": False, "replaceAll": False}
        elif c.kind == "write":
            assert c.file is not None
            text = f"File created successfully at: {cwd}/{c.file.path}"
            extra = {"type": "create", "filePath": f"{cwd}/{c.file.path}", "content": c.new, "structuredPatch": []}
        elif c.kind == "plan":
            text, extra = _TODO_OK, {"oldTodos": [], "newTodos": []}
        elif c.kind == "web":
            text, extra = c.text, {"query": c.pattern, "durationSeconds": c.duration_ms / 1000}
        else:
            if c.exit_code:
                text, is_error = f"Exit code {c.exit_code}\n{c.text}", True
                extra = f"Error: Exit code {c.exit_code}\n{c.text}"
            else:
                text = c.text
                extra = {"stdout": c.text, "stderr": "", "interrupted": False, "isImage": False}
        block = {"tool_use_id": tool_id, "type": "tool_result", "content": text, "is_error": is_error}
        self.record("user", self.tick(5, 80), message={"role": "user", "content": [block]}, toolUseResult=extra, sourceToolAssistantUUID=src)
        self.count += 1

    def compact(self) -> None:
        """Claude auto-compaction: a ``compact_boundary`` then an ``isCompactSummary`` continuation."""
        rng = self.rng
        boundary = self.record("system", self.tick(100, 2000), subtype="compact_boundary", content="Conversation compacted",
                               isMeta=False, level="info", compactMetadata={"trigger": "auto", "preTokens": self.ctx})
        summary = ("This session is being continued from a previous conversation that ran out of context. The conversation is summarized below:\n"
                   "Analysis:\n" + "\n".join(f"- {_filler(self)}" for _ in range(rng.randint(5, 14))))
        self.parent = boundary
        self.record("user", self.tick(10, 200), message={"role": "user", "content": summary}, isCompactSummary=True, isVisibleInTranscriptOnly=True)
        self.ctx = rng.randint(12_000, 30_000)


# --------------------------------------------------------------------------------------------
# Driver.
# --------------------------------------------------------------------------------------------


def _session_start(rng: random.Random) -> int:
    """A start time in the 90-day window, weighted to working hours (UTC) and weekdays."""
    while True:
        day = rng.randrange(_SPAN_DAYS)
        if (day + 0) % 7 < 5 or rng.random() < 0.35:  # 2026-01-05 is a Monday
            break
    hour = min(23, max(0, int(rng.gauss(14, 4))))
    return _START_MS + day * _DAY_MS + hour * 3_600_000 + rng.randrange(3_600_000)


def _turn_count(rng: random.Random) -> int:
    """Zipf-like session length: median ~3 turns, a long tail to 200."""
    return max(1, min(200, int(1.6 * rng.paretovariate(1.1))))


def generate(out: Path, events: int, seed: int = 0, codex_share: float = 0.5, *, force: bool = False) -> dict[str, Any]:
    """Write the corpus under ``out`` and return its summary.

    Refuses to write into non-empty ``out/codex/sessions`` or ``out/claude/projects`` unless
    ``force`` (then those two trees are deleted first): stale files from an earlier run would
    silently change the event count a benchmark relies on.
    """
    if events < 1:
        raise ValueError("events must be >= 1")
    if not 0.0 <= codex_share <= 1.0:
        raise ValueError("codex_share must be within [0, 1]")
    out = Path(out)
    for sub in (out / "codex" / "sessions", out / "claude" / "projects"):
        if sub.exists() and any(sub.iterdir()):
            if not force:
                raise FileExistsError(f"{sub} is not empty (use force=True / --force to replace it)")
            shutil.rmtree(sub)
    began = time.perf_counter()
    world = _World(seed)
    stats = _Stats()
    total = 0
    index = 0
    while total < events:
        rng = random.Random(f"moraine-corpus/{seed}/session/{index}")
        index += 1
        codex = rng.random() < codex_share
        proj = rng.choice(world.project_urn)
        start = _session_start(rng)
        n_turns = _turn_count(rng)
        incomplete_last = rng.random() < 0.05
        r = rng.random()
        cjk = "ja" if r < 0.015 else "zh" if r < 0.03 else None
        sess: _Codex | _Claude = (_Codex if codex else _Claude)(world, rng, proj, start, stats)
        sim = _Sim(world, proj, rng, cjk, stats)
        compact_at = rng.randint(40, 90) if n_turns > 60 else -1
        for i in range(n_turns):
            if i == compact_at:
                sess.compact()
            turn = sim.turn(i, i == n_turns - 1, incomplete_last, rng.random() < 0.02)
            before = sess.count
            sess.render(turn)
            total += sess.count - before
            if total >= events:
                break
        sess.write(sess.path_name(out))
        h = stats.by_harness["codex" if codex else "claude"]
        h["files"] += 1
        h["sessions"] += 1
        h["turns"] += sess.turns
        h["searchable_events"] += sess.count
        stats.session_turns.append((sess.sid, sess.turns))
    elapsed = time.perf_counter() - began
    return {
        "out": str(out),
        "seed": seed,
        "codex_share": codex_share,
        "events_requested": events,
        "files": stats.files,
        "sessions": len(stats.session_turns),
        "turns": sum(n for _, n in stats.session_turns),
        "searchable_events": total,
        "records": stats.records,
        "bytes": stats.bytes,
        "planted_secrets": stats.secrets,
        "elapsed_s": round(elapsed, 3),
        "by_harness": stats.by_harness,
        "sample_queries": stats.sample_queries(seed),
        "session_turns": stats.session_turns,
    }


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    ap.add_argument("--out", type=Path, required=True, help="output directory (DIR/codex = CODEX_HOME, DIR/claude = CLAUDE_CONFIG_DIR)")
    ap.add_argument("--events", type=int, required=True, help="searchable events to generate (user_input + assistant_response + tool_response)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--codex-share", type=float, default=0.5, help="fraction of sessions written as Codex rollouts (default 0.5)")
    ap.add_argument("--force", action="store_true", help="replace an existing corpus in DIR")
    ap.add_argument("--json", action="store_true", help="print the full summary as JSON")
    args = ap.parse_args(argv)
    try:
        summary = generate(args.out, args.events, args.seed, args.codex_share, force=args.force)
    except (ValueError, FileExistsError) as exc:
        print(f"make_corpus: {exc}", file=sys.stderr)
        return 2
    if args.json:
        print(json.dumps(summary, ensure_ascii=False))
    else:
        s = summary
        print(f"{s['files']} files, {s['sessions']} sessions, {s['turns']} turns, {s['searchable_events']} searchable events, "
              f"{s['records']} records, {s['bytes'] / 1e6:.1f} MB in {s['elapsed_s']:.1f}s -> {s['out']}")
        for h, v in s["by_harness"].items():
            print(f"  {h}: {v['sessions']} sessions, {v['turns']} turns, {v['searchable_events']} searchable events")
        print("  sample queries: " + " | ".join(s["sample_queries"]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
