#!/usr/bin/env python3
"""Generate a deterministic synthetic corpus of AI coding-agent logs for Moraine benchmarks.

Why this exists: the ingest, index and search benchmarks need large inputs that look like real
``~/.codex`` and ``~/.claude`` trees (record shapes, size distributions, vocabulary skew, many
sessions per project), but real logs are private and full of secrets.  This tool writes such a
tree from a seed, so a benchmark run is reproducible byte for byte.

Layout written under ``--out DIR`` (``DIR/codex`` works as ``CODEX_HOME``, ``DIR/claude`` as
``CLAUDE_CONFIG_DIR``)::

    DIR/codex/sessions/YYYY/MM/DD/rollout-YYYY-MM-DDTHH-MM-SS-<uuid7>.jsonl
    DIR/claude/projects/<cwd with "/" and "." replaced by "-">/<uuid4>.jsonl

``--pi-share F`` writes that fraction of sessions as Pi sessions, and ``--harness-mix`` (``all``,
or weights such as ``codex=0.3,claude-code=0.3,pi=0.1,gemini-cli=0.3``) mixes every harness
Moraine reads, each in its own folder, which its variable points Moraine at (``corpus_env``)::

    DIR/pi/sessions/--<cwd>--/<time>_<uuid>.jsonl                     PI_CODING_AGENT_DIR=DIR/pi
    DIR/qwen/projects/<cwd, non-alphanumerics as "-">/chats/<uuid>.jsonl   QWEN_HOME=DIR/qwen
    DIR/kimi/sessions/<md5 of cwd>/<uuid>/wire.jsonl, DIR/kimi/kimi.json   KIMI_SHARE_DIR=DIR/kimi
    DIR/cursor/projects/<cwd slug>/agent-transcripts/<uuid>/<uuid>.jsonl  CURSOR_HOME=DIR/cursor
    DIR/copilot/session-state/<uuid>/events.jsonl                     COPILOT_HOME=DIR/copilot
    DIR/gemini/.gemini/tmp/<project slug>/chats/session-<time>-<id8>.jsonl (+ .project_root,
        DIR/gemini/.gemini/projects.json)                             GEMINI_CLI_HOME=DIR/gemini
    DIR/gemini/.gemini/tmp/<slug, or the project hash>/chats/session-<time>-<id8>.json
        (gemini-cli-json: Gemini CLI's legacy single-document chats)  GEMINI_CLI_HOME=DIR/gemini
    DIR/opencode/opencode.db (WAL; tables session, message, part)      XDG_DATA_HOME=DIR

Each harness gets the same simulated turns, written in its real record format as Moraine's
adapter reads it (src/moraine/sources/<harness>.py; docs/harnesses/*.md).  Two are no appended
lines: a legacy Gemini chat is one pretty-printed JSON document (the CLI rewrote it whole), and
OpenCode keeps every session in one SQLite database, with OpenCode's own schema
(tools/make_opencode_samples.py's DDL), written by the main process whatever ``--jobs`` is.

``--events N`` counts *searchable events*: normalized events of the default search types
``user_input``, ``assistant_response`` and ``tool_response``.  Exactly:

* one per genuine prompt (a Codex ``response_item`` user message and its ``event_msg``
  ``user_message`` mirror are ONE event; Claude: a ``user`` record with typed text);
* one per assistant reply, commentary or final (a Codex ``response_item`` assistant message and
  its ``event_msg`` ``agent_message`` mirror are ONE event; Claude: one ``text`` block record);
* one per tool output (Codex ``function_call_output`` / ``custom_tool_call_output``, including
  the ``aborted`` output of an interrupted call; Claude: one ``tool_result`` block).

The other harnesses count the same things in their own records: the typed prompt (Qwen
``user`` record, Kimi ``TurnBegin``, Cursor ``<user_query>``, Copilot ``user.message``, Gemini
``user`` message), each assistant text (a Gemini message appended again when it changes is ONE
event), each tool result (a Gemini ``toolCalls`` entry with its result, not its v0.44+ synthetic
user copy; a call left ``executing`` has none).  OpenCode: the user message's text part, each
assistant ``text`` part (not the summary of a ``/compact``, a compaction), each ``tool`` part
``completed`` or ``error`` (not one left ``running``); its session row, reasoning, step-start /
step-finish, file and compaction parts and the end of an assistant message are not counted.

Everything else real logs hold is written too and not counted: ``session_meta``,
``turn_context``, injected ``<environment_context>`` / AGENTS.md / ``<turn_aborted>`` context,
developer messages, ``token_count``, ``reasoning`` + ``agent_reasoning``, tool calls,
``web_search_call``, ``task_started`` / ``task_complete`` / ``turn_aborted``, ``compacted``;
Claude ``file-history-snapshot``, ``thinking`` / ``tool_use`` blocks, ``system``
``turn_duration`` / ``compact_boundary`` records, ``isCompactSummary`` continuations and
``[Request interrupted by user…]`` markers.  Generation stops at the end of the turn in which
the count reaches N, so the summary's ``searchable_events`` is N or a few more.

Determinism: the shared world (vocabulary, projects, file contents, text pools) derives from
the seed, and session *i* from ``(seed, i)`` alone.  The output is therefore a function of
``(seed, events, codex_share, pi_share, harness_mix)`` whatever ``--jobs`` is, and a smaller
corpus is a prefix of a larger one with the same seed and shares (all sessions but the last,
which stops early).  A session's harness is one draw (two with ``--pi-share``), made only as the
options ask: without them a corpus is byte-identical to one written before they existed.

Speed: text is assembled from per-project pools of pre-rendered sentences and lines built once
(Zipf-weighted, so term frequencies stay skewed); pooled text is JSON-escaped once and spliced
into records, whose small remainder goes through one reused compact encoder (the bytes are
exactly what ``json.dumps(..., ensure_ascii=False, separators=(",", ":"))`` would give); each
session file is written in one write; above 50k events, sessions are generated and written by
worker processes (``--jobs``) in a bounded window ahead of the parent, which keeps the count
and the order and removes whatever was written past the end.

Known difference with Moraine's adapters (as of writing): a Codex prompt with an image (0.3% of
prompts) is written as real Codex writes it, text in ``input_text`` and the image in
``input_image`` / ``user_message.images``; an adapter that puts an ``[image]`` marker in the
``response_item`` text but not in the mirror's sees two prompts there instead of one.
"""

from __future__ import annotations

import argparse
import base64
import hashlib
import importlib.util
import json
import math
import multiprocessing
import os
import random
import re
import shutil
import sqlite3
import sys
import time
from bisect import bisect
from collections import Counter, deque
from collections.abc import Callable, Iterator, Mapping, Sequence
from concurrent.futures import Future, ProcessPoolExecutor
from dataclasses import dataclass, field
from datetime import UTC, datetime
from itertools import accumulate
from pathlib import Path
from typing import Any, ClassVar, TypeVar

__all__ = ["COUNTED_TYPES", "HARNESSES", "Harness", "corpus_env", "generate", "main", "parse_harness_mix"]

COUNTED_TYPES: tuple[str, ...] = ("user_input", "assistant_response", "tool_response")

_T = TypeVar("_T")
_Json = dict[str, Any]
# An OpenCode session's rows: (project, session, messages, parts), as the tables take them.
_DbRows = tuple[tuple[Any, ...], tuple[Any, ...], list[tuple[Any, ...]], list[tuple[Any, ...]]]

_START_MS = int(datetime(2026, 1, 5, tzinfo=UTC).timestamp() * 1000)  # a Monday
_SPAN_DAYS = 90
_DAY_MS = 86_400_000
_B32 = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567"
_ID_FIX = str.maketrans("+/", "xK")
_LANG_EXT = {"python": "py", "rust": "rs", "ts": "ts", "go": "go"}


def _words(text: str) -> tuple[str, ...]:
    return tuple(text.split())


# --------------------------------------------------------------------------------------------
# Vocabulary.  Lists are roughly in descending real-world frequency; Zipf urns keep that skew.
# --------------------------------------------------------------------------------------------

_NOUNS = _words("""
error test file config session index query token request response value function path module
type result cache handler key field table server client message event output input string
state option user data connection timeout record line list schema column row migration pool
retry queue worker thread process task job payload header body status code flag argument
parameter variable constant interface struct trait service endpoint route middleware database
transaction lock mutex channel stream buffer batch offset cursor page limit filter order range
window segment snapshot checkpoint generation watcher tailer pipeline store catalog memtable
merge compaction tokenizer score snippet document term frequency posting dictionary bitmap
hash digest id uuid timestamp date duration latency throughput memory heap stack frame pointer
reference lifetime closure iterator generator coroutine future promise callback hook component
prop context reducer selector template view model controller widget layout style theme asset
bundle dependency package version release tag branch commit diff patch rebase conflict repo
workspace crate feature target profile binary library script command shell environment secret
credential permission account role group policy quota limiter counter metric gauge histogram
log trace span alert dashboard deployment container image pod node cluster volume network
socket port address host proxy certificate handshake protocol format encoding validation
serializer fixture mock stub assertion coverage benchmark regression warning panic exception
traceback backtrace signal child parent owner loop condition case fallback edge boundary
character byte number integer float boolean array map set tuple vector slice registry adapter
provider factory builder manager loader reader writer encoder decoder formatter logger
scheduler executor runner locale timezone invoice customer cart price currency webhook email
""")
_VERBS = _words("""
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
""")
_ADJS = _words("""
empty stale invalid missing duplicate slow large small new old current previous next first
last default custom optional required async blocking concurrent nested partial full raw
encoded cached pending active idle broken flaky deterministic stable legacy deprecated
internal external public private unused unexpected wrong correct final initial temporary
global local remote unique sorted malformed truncated unicode binary max min
""")
_ABBREVS = _words("id ctx cfg req resp err buf tx rx db fd ts idx len ptr msg args opts env tmp src dst num cnt")
_PREPS = _words("in into from to for with without before after inside through across via against per on")
_PAST_IRREGULAR = {
    "run": "ran", "build": "built", "write": "wrote", "read": "read", "find": "found", "split": "split",
    "send": "sent", "catch": "caught", "throw": "threw", "set": "set", "drop": "dropped", "stop": "stopped",
    "skip": "skipped", "map": "mapped", "wrap": "wrapped", "pin": "pinned", "commit": "committed",
    "log": "logged", "cap": "capped", "unwrap": "unwrapped", "emit": "emitted",
}
_LIBS: dict[str, tuple[str, ...]] = {
    "python": _words("pytest pydantic fastapi sqlalchemy numpy httpx requests click typer alembic asyncio "
                     "aiohttp celery redis uvicorn structlog orjson msgpack watchdog"),
    "rust": _words("tokio serde anyhow thiserror clap reqwest axum hyper tracing sqlx rayon crossbeam notify "
                   "regex chrono uuid bytes futures"),
    "ts": _words("react next vite vitest jest zod prisma express tailwind axios redux tanstack-query eslint "
                 "typescript playwright"),
    "go": _words("cobra viper gin chi zap sqlc pgx testify grpc protobuf errgroup logrus gorm"),
}
_PROJECT_NAMES = _words("""
moraine ledger-api atlas-web pipeline-etl quill-editor harbor-cli nimbus-sync orbit-dashboard
ferrite-db kestrel-auth sable-ml tundra-infra lumen-docs vector-search relay-gateway
cinder-engine aurora-billing marble-mobile
""")
_HOME_ROOTS = ("/home/dev/src", "/Users/alex/code", "/home/ubuntu/work", "/workspace", "/Users/mika/dev")

# Sentence patterns: {n} noun, {a} adjective, {v} verb, {v3} verb 3rd person, {vd} past tense,
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
    "Inspecting {n} handling", "Planning {n} refactor", "Investigating {a} {n}", "Reviewing test failures",
    "Checking {c} usage", "Evaluating {n} options", "Preparing final summary", "Updating {n} logic",
    "Tracing {n} flow", "Verifying the fix",
)
_COMMENTARY = (
    "I'll start by looking at `{path}`.", "Let me search for where `{ident}` is defined.",
    "Running the tests to see the current failures.", "Now I'll update `{ident}` to handle the {a} case.",
    "The failure comes from `{ident}`; checking `{path}`.", "Let me read the rest of `{path}`.",
    "I'll patch `{path}` and rerun the suite.", "Checking how `{ident}` is called.",
    "Let me verify the build still passes.", "Looking at the recent changes with git.",
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
    "Add proper types to {path} and make the type checker pass.",
    "Implement pagination for {ident} using an opaque cursor.",
)
_FOLLOWUPS = (
    "continue", "yes, go ahead", "looks good, commit it", "try again", "ok now run the tests",
    "that didn't work, same error", "can you also add a test for that?", "perfect, thanks",
    "revert that last change", "use the existing helper instead", "go on", "ship it",
    "hmm, still failing on CI", "make it simpler", "what about the edge case with an empty {n}?",
    "also update {path}", "run `{cmd}` again", "why did you change {ident}?",
)
# Non-English prompts and replies (~2% of prompts): real logs have them and the tokenizer must
# keep CJK searchable.  The second element is a term certainly present, for the sample queries.
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
_CJK_REPLIES = {
    "ja": (
        "`{path}` を確認しました。原因は `{ident}` で例外が発生していたことです。\n\n"
        "- `{ident2}` に入力チェックを追加しました\n- テストを {k} 件追加しました\n\n`{cmd}` はすべて成功しています。",
        "修正しました。`{ident}` のキャッシュが古いまま使われていたため、無効化の処理を追加しました。"
        "変更点は `{path}` のみです。",
    ),
    "zh": (
        "已经修改了 `{path}`：`{ident}` 现在会在超时时重试，并记录详细日志。\n\n"
        "- 新增 {k} 个单元测试\n- 修复了 `{ident2}` 的空指针问题\n\n`{cmd}` 全部通过。",
        "问题出在 `{ident}`：缓存没有及时失效。我在 `{path}` 里加了失效逻辑，测试已经通过。",
    ),
}
_CJK_COMMENTARY = {
    "ja": ("まず `{path}` を確認します。", "`{ident}` の呼び出し元を調べます。"),
    "zh": ("先看一下 `{path}` 的实现。", "我先搜索 `{ident}` 的调用位置。"),
}
_ERRORS: dict[str, tuple[str, ...]] = {
    "python": (
        "KeyError: '{s}'", "AttributeError: '{P}' object has no attribute '{s}'",
        "TypeError: {s}() got an unexpected keyword argument '{s2}'", "ModuleNotFoundError: No module named '{s}'",
        "ValueError: invalid literal for int() with base 10: '{q}'", "AssertionError: assert {k} == {k2}",
        "sqlite3.OperationalError: no such table: {s}",
        "json.decoder.JSONDecodeError: Expecting value: line 1 column 1 (char 0)",
        "ConnectionRefusedError: [Errno 111] Connection refused", "TimeoutError: timed out after {k}s waiting for {s}",
        "RecursionError: maximum recursion depth exceeded while calling a Python object",
        "UnicodeDecodeError: 'utf-8' codec can't decode byte 0xe3 in position {k}: invalid continuation byte",
        "FileNotFoundError: [Errno 2] No such file or directory: '{p}'",
        "PermissionError: [Errno 13] Permission denied: '{p}'",
        'sqlalchemy.exc.IntegrityError: (psycopg2.errors.UniqueViolation) duplicate key value violates unique '
        'constraint "{s}_pkey"',
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
        "panic: runtime error: invalid memory address or nil pointer dereference", "undefined: {c}",
        "cannot use {c} (variable of type string) as {P} value in argument to {c2}",
        "fatal error: all goroutines are asleep - deadlock!", "context deadline exceeded",
        'pq: duplicate key value violates unique constraint "{s}_pkey"',
    ),
}
_SQL_ERRORS = (
    'ERROR:  relation "{s}" does not exist', 'ERROR:  column "{s}" does not exist',
    'ERROR:  duplicate key value violates unique constraint "{s}_pkey"', 'ERROR:  syntax error at or near "{W}"',
)
_LINT_CODES = (
    "F401 [*] `os` imported but unused", "E501 Line too long (104 > 100)",
    "F841 Local variable `{v}` is assigned to but never used", "B008 Do not perform function call in argument defaults",
    "error: Incompatible types in assignment (expression has type \"str\", variable has type \"int\")  [assignment]",
    "error: Item \"None\" of \"Optional[{P}]\" has no attribute \"{v}\"  [union-attr]",
)
_CODEX_STATUSES = ("completed", "in_progress", "pending", "pending", "pending", "pending")


# --------------------------------------------------------------------------------------------
# Small fast helpers.  random.choice/randint cost ~0.4 µs each in pure Python; these ~0.1 µs.
# --------------------------------------------------------------------------------------------


def _pick(rng: random.Random, seq: Sequence[_T]) -> _T:
    return seq[int(rng.random() * len(seq))]


def _int(rng: random.Random, lo: int, hi: int) -> int:
    """Uniform integer in [lo, hi]."""
    return lo + int(rng.random() * (hi - lo + 1))


def _loguniform(rng: random.Random, lo: float, hi: float) -> float:
    return math.exp(math.log(lo) + rng.random() * (math.log(hi) - math.log(lo)))


def _zipf_urn(items: Sequence[_T], s: float = 1.0, size: int = 1 << 16) -> list[_T]:
    """Expand a ranked list into an urn whose uniform draws follow Zipf's law.

    Why an urn rather than ``random.choices(cum_weights=...)``: a uniform pick from a flat list
    is one index, several times cheaper than the bisect of weighted choices.  Every item keeps
    at least one slot.
    """
    weights = [1.0 / (r**s) for r in range(1, len(items) + 1)]
    scale = size / sum(weights)
    urn: list[_T] = []
    for item, w in zip(items, weights, strict=True):
        urn.extend([item] * max(1, round(w * scale)))
    return urn


def _third(verb: str) -> str:
    if verb.endswith(("s", "sh", "ch", "x", "z")):
        return verb + "es"
    if verb.endswith("y") and verb[-2] not in "aeiou":
        return verb[:-1] + "ies"
    return verb + "s"


def _past(verb: str) -> str:
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


_MINUTE_PREFIX: dict[int, str] = {}


def _ts(ms: int) -> str:
    """RFC 3339 UTC with milliseconds, as both harnesses write it; a cached per-minute prefix
    makes it several times cheaper than strftime (it runs once per record)."""
    minute, rem = divmod(ms, 60_000)
    prefix = _MINUTE_PREFIX.get(minute)
    if prefix is None:
        prefix = _MINUTE_PREFIX[minute] = datetime.fromtimestamp(minute * 60, tz=UTC).strftime("%Y-%m-%dT%H:%M:")
    return f"{prefix}{rem // 1000:02d}.{rem % 1000:03d}Z"


# Pre-escaped JSON.  Escaping is half the cost of writing a record, and most bytes are pooled
# text (source lines, logs, test output) that recurs; so pools are escaped once at start-up, and
# records are encoded with a placeholder string per big field, then the placeholders are replaced
# by ready JSON fragments.  ``encode_basestring`` is the C escaper the encoder itself uses with
# ensure_ascii=False, so the bytes are identical to a plain json.dumps of the full record.
_JSON_STR: Callable[[str], str] = json.encoder.encode_basestring
_HOLE = "\ue000"  # a private-use character: never in generated text, never escaped by the encoder
_HOLES = tuple(f"{_HOLE}{k}" for k in range(10))


def _e(text: str) -> str:
    """JSON-escape ``text`` without the surrounding quotes."""
    return _JSON_STR(text)[1:-1]


def _q(escaped: str) -> str:
    """A JSON string fragment from already-escaped text."""
    return f'"{escaped}"'


def _splice(line: str, frags: Sequence[str]) -> str:
    """Replace each encoded ``_HOLES[k]`` string in ``line`` by the JSON fragment ``frags[k]``."""
    parts = line.split('"' + _HOLE)
    return parts[0] + "".join(frags[int(part[0])] + part[2:] for part in parts[1:])


def _uuid4(rng: random.Random) -> str:
    h = f"{rng.getrandbits(128):032x}"
    return f"{h[:8]}-{h[8:12]}-4{h[13:16]}-{'89ab'[int(h[16], 16) & 3]}{h[17:20]}-{h[20:]}"


def _uuid7(rng: random.Random, ms: int) -> str:
    """UUIDv7 as Codex uses for session and turn ids: time-ordered, so it sorts with the file."""
    t = f"{ms:012x}"
    h = f"{rng.getrandbits(80):020x}"
    return f"{t[:8]}-{t[8:12]}-7{h[:3]}-{'89ab'[int(h[3], 16) & 3]}{h[4:7]}-{h[8:20]}"


def _token(rng: random.Random, n: int) -> str:
    """n alphanumeric characters (tool-call and message ids)."""
    raw = rng.getrandbits(n * 6 + 6).to_bytes((n * 6 + 13) // 8, "little")
    return base64.b64encode(raw).decode("ascii")[:n].translate(_ID_FIX)


def _b32(rng: random.Random, n: int) -> str:
    return "".join(_B32[rng.getrandbits(5)] for _ in range(n))


# --------------------------------------------------------------------------------------------
# The world: vocabulary, projects, source files and text pools.
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _Ident:
    """One identifier in the spellings code uses, so a concept is ``parse_config`` in Python and
    ``parseConfig`` / ``ParseConfig`` in TypeScript and Go."""

    snake: str
    camel: str
    pascal: str


@dataclass(slots=True)
class _File:
    path: str
    start: int  # offset of its first line in the project's code pool
    lines: int


@dataclass
class _Project:
    """A repository the agents work in.  Several sessions share it (same cwd), as in real use.

    The pools are pre-rendered text in this project's vocabulary: tool outputs and replies are
    assembled from them at a few hundred nanoseconds a line instead of several microseconds.
    """

    name: str
    cwd: str
    lang: str
    branch: str
    repo_url: str
    idents: list[_Ident]
    ident_urn: list[_Ident]
    mentions: list[str] = field(default_factory=list)  # Zipf urn of identifier spellings
    crates: list[str] = field(default_factory=list)
    files: list[_File] = field(default_factory=list)
    file_urn: list[_File] = field(default_factory=list)
    tests: list[_File] = field(default_factory=list)
    code: list[str] = field(default_factory=list)
    asent: list[str] = field(default_factory=list)
    usent: list[str] = field(default_factory=list)
    errors: list[tuple[str, str]] = field(default_factory=list)  # (message, error class)
    traces: list[str] = field(default_factory=list)
    commentary: list[str] = field(default_factory=list)
    reasoning: list[str] = field(default_factory=list)
    grep: list[str] = field(default_factory=list)
    progress: list[str] = field(default_factory=list)
    lint: list[str] = field(default_factory=list)
    logs: list[str] = field(default_factory=list)
    hunks: list[str] = field(default_factory=list)
    commits: list[str] = field(default_factory=list)
    avg: dict[str, float] = field(default_factory=dict)
    esc: dict[str, list[str]] = field(default_factory=dict)  # JSON-escaped twins of the pools


class _World:
    """Everything the sessions of one corpus share; built once per seed (about a second).

    Sessions only read it, drawing with their own RNG, which keeps each session a pure function
    of ``(seed, index)`` and lets worker processes share it copy-on-write after a fork.
    """

    def __init__(self, seed: int) -> None:
        rng = random.Random(f"moraine-corpus/{seed}/world")
        self.seed = seed
        self.noun_urn = _zipf_urn(_NOUNS, 1.0)
        self.adj_urn = _zipf_urn(_ADJS, 0.9)
        self.verb_urn = _zipf_urn(_VERBS, 1.0)
        self.third = {v: _third(v) for v in _VERBS}
        self.past = {v: _past(v) for v in _VERBS}
        self.idents = self._make_idents(rng, 6000)
        self.ident_urn = _zipf_urn(self.idents, 1.05, 1 << 17)
        self.b64 = base64.b64encode(rng.getrandbits(8 * 96_000).to_bytes(96_000, "little")).decode("ascii")
        self.homes = [_pick(rng, _HOME_ROOTS) for _ in _PROJECT_NAMES]
        self._projects: dict[int, _Project] = {}
        self.project_urn = _zipf_urn(range(len(_PROJECT_NAMES)), 0.9, 4096)

    def project(self, index: int) -> _Project:
        """Project ``index``, built on first use from its own RNG: a small corpus pays only for the
        projects it touches, and the result does not depend on which process builds it first."""
        proj = self._projects.get(index)
        if proj is None:
            rng = random.Random(f"moraine-corpus/{self.seed}/project/{index}")
            proj = self._projects[index] = _build_project(self, rng, index)
        return proj

    def _make_idents(self, rng: random.Random, count: int) -> list[_Ident]:
        nouns, verbs, adjs = self.noun_urn, self.verb_urn, self.adj_urn
        seen: set[str] = set()
        out: list[_Ident] = []
        while len(out) < count:
            r = rng.random()
            if r < 0.35:
                parts = [_pick(rng, verbs), _pick(rng, nouns)]
            elif r < 0.6:
                parts = [_pick(rng, nouns), _pick(rng, nouns)]
            elif r < 0.75:
                parts = [_pick(rng, adjs), _pick(rng, nouns)]
            elif r < 0.9:
                parts = [_pick(rng, verbs), _pick(rng, adjs), _pick(rng, nouns)]
            else:
                parts = [_pick(rng, nouns), _pick(rng, _ABBREVS)]
            if len(set(parts)) < len(parts):
                continue
            snake = "_".join(parts)
            if snake in seen:
                continue
            seen.add(snake)
            pascal = "".join(w.capitalize() for w in parts)
            out.append(_Ident(snake, parts[0] + pascal[len(parts[0]) :], pascal))
        return out

    def fill(self, rng: random.Random, parts: list[tuple[bool, str]], code: Callable[[], str]) -> str:
        """Render a parsed sentence pattern; slot words come from the Zipf urns."""
        out: list[str] = []
        for is_slot, text in parts:
            if not is_slot:
                out.append(text)
            elif text == "n":
                out.append(_pick(rng, self.noun_urn))
            elif text == "a":
                out.append(_pick(rng, self.adj_urn))
            elif text == "v":
                out.append(_pick(rng, self.verb_urn))
            elif text == "v3":
                out.append(self.third[_pick(rng, self.verb_urn)])
            elif text == "vd":
                out.append(self.past[_pick(rng, self.verb_urn)])
            elif text == "p":
                out.append(_pick(rng, _PREPS))
            elif text == "c":
                out.append(code())
            else:
                out.append(str(_int(rng, 2, 12)))
        s = "".join(out)
        return s[0].upper() + s[1:]


class _Builder:
    """World-time text generation for one project: slow, rich, run once to fill the pools."""

    def __init__(self, world: _World, proj: _Project, rng: random.Random) -> None:
        self.w, self.p, self.rng = world, proj, rng

    def i(self) -> _Ident:
        return _pick(self.rng, self.p.ident_urn)

    def mention(self) -> str:
        return _pick(self.rng, self.p.mentions)

    def path(self) -> str:
        return _pick(self.rng, self.p.file_urn).path

    def code_ref(self) -> str:
        return f"`{self.mention()}`" if self.rng.random() < 0.7 else f"`{self.path()}`"

    def noun(self) -> str:
        return _pick(self.rng, self.w.noun_urn)

    def verb(self) -> str:
        return _pick(self.rng, self.w.verb_urn)

    def adj(self) -> str:
        return _pick(self.rng, self.w.adj_urn)

    def line(self) -> str:
        """One source line in the project's language, using the project's identifiers."""
        rng, i, lang = self.rng, self.i, self.p.lang
        r = rng.random()
        if lang == "python":
            table: tuple[tuple[float, Callable[[], str]], ...] = (
                (0.06, lambda: f"def {i().snake}({i().snake}: {i().pascal}, {i().snake}: int = {_int(rng, 0, 99)})"
                               f" -> {i().pascal}:"),
                (0.30, lambda: f"    {i().snake} = {i().snake}.{i().snake}({i().snake}, {i().snake}={i().snake})"),
                (0.38, lambda: f"    if {i().snake} is None:"),
                (0.43, lambda: f'        raise {i().pascal}Error(f"{self.adj()} {self.noun()}: {{{i().snake}!r}}")'),
                (0.50, lambda: f"    return {i().snake}"),
                (0.54, lambda: f"class {i().pascal}({i().pascal}):"),
                (0.60, lambda: f"from .{i().snake} import {i().pascal}, {i().snake}"),
                (0.67, lambda: f"    for {i().snake} in self.{i().snake}():"),
                (0.74, lambda: f"    # {self.verb()} the {self.adj()} {self.noun()} before the {self.noun()}"),
                (0.79, lambda: f'        logger.debug("{self.verb()} {self.noun()} %s", {i().snake})'),
                (0.84, lambda: f"    assert {i().snake} == {_int(rng, 0, 64)}"),
            )
        elif lang == "rust":
            table = (
                (0.06, lambda: f"pub fn {i().snake}(&self, {i().snake}: &{i().pascal}) -> Result<{i().pascal}> {{"),
                (0.30, lambda: f"        let {i().snake} = self.{i().snake}.{i().snake}(&{i().snake})?;"),
                (0.37, lambda: f"        match {i().snake} {{"),
                (0.44, lambda: f"            {i().pascal}::{i().pascal} => {i().snake},"),
                (0.52, lambda: "    }"),
                (0.57, lambda: f"use crate::{i().snake}::{{{i().pascal}, {i().pascal}}};"),
                (0.62, lambda: f"pub struct {i().pascal} {{"),
                (0.68, lambda: f"    pub {i().snake}: "
                               f"{_pick(rng, ('u64', 'usize', 'String', 'Vec<u8>', 'Option<String>', 'Arc<State>'))},"),
                (0.74, lambda: f"    // {self.verb()} the {self.adj()} {self.noun()} first"),
                (0.78, lambda: "#[derive(Debug, Clone, Serialize, Deserialize)]"),
                (0.83, lambda: f'            .map_err(|e| anyhow!("{self.verb()} {self.noun()}: {{e}}"))?;'),
            )
        elif lang == "ts":
            table = (
                (0.07, lambda: f"export async function {i().camel}({i().camel}: {i().pascal}): "
                               f"Promise<{i().pascal}> {{"),
                (0.32, lambda: f"  const {i().camel} = await {i().camel}.{i().camel}({i().camel});"),
                (0.39, lambda: f"import {{ {i().pascal}, {i().camel} }} from './{i().camel}';"),
                (0.45, lambda: f"export interface {i().pascal} {{"),
                (0.52, lambda: f"  {i().camel}: {_pick(rng, ('string', 'number', 'boolean', 'Date | null'))};"),
                (0.57, lambda: f"  if (!{i().camel}) throw new Error(`{self.adj()} {self.noun()}: ${{{i().camel}}}`);"),
                (0.62, lambda: f"  return <{i().pascal} {i().camel}={{{i().camel}}} />;"),
                (0.68, lambda: f"  // {self.verb()} the {self.noun()} when the {self.noun()} changes"),
                (0.76, lambda: "}"),
            )
        else:
            table = (
                (0.07, lambda: f"func (s *{i().pascal}) {i().pascal}(ctx context.Context, {i().camel} string) "
                               f"(*{i().pascal}, error) {{"),
                (0.30, lambda: f"\t{i().camel}, err := s.{i().camel}.{i().pascal}(ctx, {i().camel})"),
                (0.40, lambda: "\tif err != nil {"),
                (0.47, lambda: f'\t\treturn nil, fmt.Errorf("{self.verb()} {self.noun()}: %w", err)'),
                (0.54, lambda: "\t}"),
                (0.59, lambda: f"type {i().pascal} struct {{"),
                (0.65, lambda: f'\t{i().pascal} string `json:"{i().snake}"`'),
                (0.71, lambda: f"\t// {self.verb()} the {self.adj()} {self.noun()}"),
            )
        for bound, make in table:
            if r < bound:
                return make()
        return ""

    def sentence(self, patterns: list[list[tuple[bool, str]]]) -> str:
        return self.w.fill(self.rng, _pick(self.rng, patterns), self.code_ref)

    def error(self) -> tuple[str, str]:
        rng, p = self.rng, self.p
        i1, i2 = self.i(), self.i()
        msg = _pick(rng, _ERRORS[p.lang]).format(
            s=i1.snake, s2=i2.snake, P=i1.pascal, c=i1.camel, c2=i2.camel, q=self.noun(), k=_int(rng, 1, 99),
            k2=_int(rng, 1, 99), p=self.path(), crate=_pick(rng, p.crates),
        )
        return msg, _error_class(msg)

    def trace(self) -> str:
        """A stack trace in the project's language, as tools print them and users paste them."""
        rng, p, cwd = self.rng, self.p, self.p.cwd
        frames = _int(rng, 3, 12)
        if p.lang == "python":
            out = ["Traceback (most recent call last):"]
            for _ in range(frames):
                f = _pick(rng, p.files)
                out.append(f'  File "{cwd}/{f.path}", line {_int(rng, 1, f.lines)}, in {self.i().snake}')
                out.append("    " + _pick(rng, p.code).strip())
            out.append(self.error()[0])
        elif p.lang == "rust":
            f = _pick(rng, p.files)
            out = [f"thread 'main' panicked at {f.path}:{_int(rng, 1, f.lines)}:{_int(rng, 5, 40)}:", self.error()[0],
                   "stack backtrace:"]
            for n in range(frames):
                out.append(f"  {n:>2}: {_pick(rng, p.crates).replace('-', '_')}::{self.i().snake}::{self.i().snake}")
                out.append(f"             at ./{_pick(rng, p.files).path}:{_int(rng, 1, 900)}:{_int(rng, 5, 40)}")
        elif p.lang == "ts":
            out = [self.error()[0]]
            for _ in range(frames):
                f = _pick(rng, p.files)
                out.append(f"    at {self.i().camel} ({cwd}/{f.path}:{_int(rng, 1, f.lines)}:{_int(rng, 3, 60)})")
        else:
            out = [self.error()[0], "", "goroutine 1 [running]:"]
            for _ in range(frames):
                f = _pick(rng, p.files)
                pkg = f"{p.name.replace('-', '')}/{f.path.rsplit('/', 1)[0]}"
                out.append(f"{pkg}.(*{self.i().pascal}).{self.i().pascal}(...)")
                out.append(f"\t{cwd}/{f.path}:{_int(rng, 1, f.lines)} +0x{_int(rng, 16, 900):x}")
        return "\n".join(out)

    def progress(self) -> str:
        rng, p = self.rng, self.p
        if p.lang == "python":
            dots = "".join(rng.choices("..........sF" if rng.random() < 0.1 else "........s", k=_int(rng, 3, 60)))
            return f"{_pick(rng, p.tests).path} {dots}  [{_int(rng, 1, 100):>3}%]"
        if p.lang == "rust":
            return f"test {self.i().snake}::tests::{self.i().snake} ... ok"
        if p.lang == "ts":
            return f" ✓ {_pick(rng, p.tests).path} ({_int(rng, 1, 40)} tests) {_int(rng, 2, 900)}ms"
        mod = p.repo_url.split(":")[1].removesuffix(".git")
        return f"ok  \tgithub.com/{mod}/internal/{self.i().snake.replace('_', '')}\t{rng.uniform(0.005, 3):.3f}s"

    def lint(self) -> str:
        rng, p = self.rng, self.p
        f = _pick(rng, p.files)
        ln = _int(rng, 1, f.lines)
        if p.lang == "python":
            code = _pick(rng, _LINT_CODES).format(v=self.i().snake, P=self.i().pascal)
            return f"{f.path}:{ln}:{_int(rng, 1, 80)}: {code}"
        if p.lang == "rust":
            want = _pick(rng, ("u64", "usize", "&str", "String"))
            got = _pick(rng, ("i64", "Option<String>", "&String"))
            return (f"{self.error()[0]}\n  --> {f.path}:{ln}:{_int(rng, 5, 40)}\n   |\n"
                    f"{ln:<3}| {p.code[f.start + ln - 1]}\n"
                    f"   |         ^^^^^^ expected `{want}`, found `{got}`\n")
        if p.lang == "ts":
            return f"{f.path}({ln},{_int(rng, 1, 60)}): {self.error()[0]}"
        return f"{f.path}:{ln}:{_int(rng, 1, 60)}: {self.error()[0]}"

    def log(self) -> str:
        rng = self.rng
        lvl = _pick(rng, ("INFO", "INFO", "INFO", "DEBUG", "WARN", "ERROR"))
        msg = self.error()[0] if lvl == "ERROR" else f"{self.verb()} {self.noun()} {self.i().snake}={_int(rng, 0, 999)}"
        return f"{_ts(_START_MS + int(rng.random() * _SPAN_DAYS * _DAY_MS))} {lvl:<5} {self.i().snake}: {msg}"

    def hunk(self) -> str:
        rng, p = self.rng, self.p
        g = _pick(rng, p.file_urn)
        a = int(rng.random() * max(1, g.lines - 8))
        ctx = p.code[g.start + a : g.start + a + 6]
        body = ([f" {x}" for x in ctx[:3]] + [f"-{x}" for x in ctx[3:4]]
                + [f"+{self.line()}" for _ in range(_int(rng, 1, 4))] + [f" {x}" for x in ctx[4:]])
        return (f"diff --git a/{g.path} b/{g.path}\nindex {rng.getrandbits(28):07x}..{rng.getrandbits(28):07x} 100644\n"
                f"--- a/{g.path}\n+++ b/{g.path}\n@@ -{a + 1},6 +{a + 1},{len(body) - 1} @@\n" + "\n".join(body))

    def fill_pools(self) -> None:
        p, rng, w = self.p, self.rng, self.w
        apat = [_parse_pattern(x) for x in _ASSISTANT_PATTERNS]
        upat = [_parse_pattern(x) for x in _USER_PATTERNS]
        tpat = [_parse_pattern(x) for x in _REASONING_TITLES]
        p.asent = [self.sentence(apat) for _ in range(2000)]
        p.usent = [self.sentence(upat) for _ in range(600)]
        p.errors = [self.error() for _ in range(600)]
        p.traces = [self.trace() for _ in range(200)]
        p.reasoning = [
            f"**{w.fill(rng, _pick(rng, tpat), self.code_ref)}**\n\n"
            + " ".join(rng.choices(p.asent, k=_int(rng, 1, 4)))
            for _ in range(800)
        ]
        p.commentary = [
            _pick(rng, _COMMENTARY).format(path=self.path(), ident=self.mention(), a=self.adj())
            + (" " + _pick(rng, p.asent) if rng.random() < 0.3 else "")
            for _ in range(800)
        ]
        p.grep = []
        for _ in range(2000):
            f = _pick(rng, p.file_urn)
            ln = int(rng.random() * f.lines)
            p.grep.append(f"{f.path}:{ln + 1}:{p.code[f.start + ln].strip()}")
        p.progress = [self.progress() for _ in range(800)]
        p.lint = [self.lint() for _ in range(500)]
        p.logs = [self.log() for _ in range(1000)]
        p.hunks = [self.hunk() for _ in range(300)]
        kinds = ("fix", "feat", "refactor", "test", "chore", "docs")
        p.commits = [f"{rng.getrandbits(28):07x} {_pick(rng, kinds)}: {_pick(rng, p.asent).rstrip('.').lower()}"
                     for _ in range(400)]
        for name in ("code", "grep", "progress", "lint", "logs", "hunks", "commits", "traces"):
            pool: list[str] = getattr(p, name)
            p.avg[name] = sum(len(x) + 1 for x in pool) / len(pool)
            p.esc[name] = [_e(x) for x in pool]


def _error_class(msg: str) -> str:
    """The searchable name of an error: ``KeyError``, ``E0308``, ``TS2339``; "" when it has none."""
    head = msg.split(":", 1)[0]
    if head.startswith("error[") or head.startswith("error TS"):
        return head.split("[")[-1].rstrip("]") if "[" in head else head.split(" ")[1]
    last = head.rsplit(".", 1)[-1]
    return last if last[:1].isupper() and last.isidentifier() and last != "Error" else ""


def _build_project(world: _World, rng: random.Random, index: int) -> _Project:
    name = _PROJECT_NAMES[index]
    lang = ("python", "rust", "ts", "go", "python", "ts")[index % 6]
    own = [_pick(rng, world.ident_urn) for _ in range(300)] + rng.sample(world.idents[1500:], 120)
    uniq = list(dict.fromkeys(own))
    rng.shuffle(uniq)
    org = _pick(rng, ("acme", "octo-labs", "northwind", "mika"))
    proj = _Project(
        name=name, cwd=f"{world.homes[index]}/{name}", lang=lang,
        branch=_pick(rng, ("main", "main", "master", "develop")), repo_url=f"git@github.com:{org}/{name}.git",
        idents=uniq, ident_urn=_zipf_urn(uniq, 1.0, 1 << 14),
    )
    if lang in ("python", "rust"):
        proj.mentions = [x.snake if k % 4 else x.pascal for k, x in enumerate(proj.ident_urn)]
    else:
        proj.mentions = [x.camel if k % 4 else x.pascal for k, x in enumerate(proj.ident_urn)]
    proj.crates = [f"{name.split('-')[0]}-{s}" for s in ("core", "cli", "store", "server")]
    build = _Builder(world, proj, rng)
    proj.code = [build.line() for _ in range(4000)]
    pkg = name.replace("-", "_")
    paths: list[str] = []
    tests: list[str] = []
    subdirs = ("api", "core", "db", "models", "services", "utils", "cli", "ingest", "index", "store")
    for ident in uniq[:90]:
        sub = _pick(rng, subdirs)
        if lang == "python":
            paths.append(f"src/{pkg}/{sub}/{ident.snake}.py")
            tests.append(f"tests/{sub}/test_{ident.snake}.py")
        elif lang == "rust":
            paths.append(f"crates/{_pick(rng, proj.crates)}/src/{ident.snake}.rs")
            tests.append(f"crates/{_pick(rng, proj.crates)}/tests/{ident.snake}.rs")
        elif lang == "ts" and rng.random() < 0.4:
            paths.append(f"src/components/{ident.pascal}.tsx")
            tests.append(f"src/components/{ident.pascal}.test.tsx")
        elif lang == "ts":
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

    def make_file(path: str) -> _File:
        n = int(_loguniform(rng, 15, 2200))
        return _File(path, int(rng.random() * (len(proj.code) - n)), n)

    proj.files = [make_file(x) for x in [*dict.fromkeys(paths), *extra]]
    proj.tests = [make_file(x) for x in dict.fromkeys(tests)]
    proj.file_urn = _zipf_urn(proj.files, 1.0, 4096)
    build.fill_pools()
    return proj


# --------------------------------------------------------------------------------------------
# Harness-neutral turn plan.
# --------------------------------------------------------------------------------------------


@dataclass(slots=True)
class _Call:
    """One tool call and its output, before either harness renders it.

    ``kind`` is read / search / edit / write / shell / plan / web.  ``esc`` is the output as the
    tool printed it, already JSON-escaped (harnesses wrap it in their own envelope); ``lines``
    the escaped lines of a search; ``text`` the raw steps of a plan.
    """

    kind: str
    duration_ms: int
    esc: str = ""
    lines: list[str] = field(default_factory=list)
    text: str = ""
    exit_code: int = 0
    file: _File | None = None
    first: int = 0  # 0-based first line of a read or edit
    last: int = 0
    cmd: str = ""
    pattern: str = ""
    old: str = ""
    new: str = ""
    call_id: str = ""
    aborted: bool = False
    pending: bool = False  # the session ends before this call's output


@dataclass(slots=True)
class _Step:
    """One model round: optional reasoning and commentary, then 1..3 parallel calls."""

    reasoning: str
    commentary: str | None
    calls: list[_Call]
    latency_ms: int


@dataclass(slots=True)
class _Turn:
    prompt: str
    steps: list[_Step]
    final: str | None
    outcome: str  # complete | aborted | incomplete
    image: bool
    gap_ms: int
    final_reasoning: str


_NOTE_KINDS = ("ident", "path", "error", "cjk", "phrase")
_N_CALLS = tuple(range(16))
_N_CALLS_CUM = tuple(accumulate((22, 12, 11, 10, 9, 8, 6, 5, 4, 3, 3, 2, 2, 1, 1, 1)))


class _Slots(dict[str, Any]):
    """Template slots computed on first use, so a prompt pays only for the slots it has."""

    def __init__(self, sim: _Sim) -> None:
        super().__init__()
        self.sim = sim

    def __missing__(self, key: str) -> Any:
        value = self[key] = self.sim.slot(key)
        return value


class _Sim:
    """Plans the turns of one session: prompt, model rounds, tool calls with their outputs."""

    def __init__(self, world: _World, proj: _Project, rng: random.Random, cjk: str | None) -> None:
        self.w, self.p, self.rng, self.cjk = world, proj, rng, cjk
        self.notes: dict[str, Counter[str]] = {k: Counter() for k in _NOTE_KINDS}
        self.secrets = 0

    # -- slots ------------------------------------------------------------------------------

    def path(self) -> str:
        return _pick(self.rng, self.p.file_urn).path

    def ident(self) -> str:
        return _pick(self.rng, self.p.mentions)

    def error(self) -> str:
        msg, cls = _pick(self.rng, self.p.errors)
        if cls:
            self.notes["error"][cls] += 1
        return msg

    def test_cmd(self) -> str:
        rng, p = self.rng, self.p
        t = _pick(rng, p.tests).path
        i = _pick(rng, p.idents)
        if p.lang == "python":
            return _pick(rng, (f"pytest -q {t}", "pytest -x -q", f"uv run pytest {t} -k {i.snake}", "python -m pytest"))
        if p.lang == "rust":
            return _pick(rng, (f"cargo test -p {_pick(rng, p.crates)}", "cargo test", "cargo test --workspace"))
        if p.lang == "ts":
            return _pick(rng, (f"npx vitest run {t}", "npm test", f"pnpm test -- {t}"))
        return _pick(rng, ("go test ./...", f"go test ./{t.rsplit('/', 1)[0]}/ -run Test{i.pascal}"))

    def sql(self) -> str:
        rng, i = self.rng, self.p.idents
        t, c1, c2 = _pick(rng, i).snake, _pick(rng, i).snake, _pick(rng, i).snake
        return _pick(rng, (
            f"SELECT {c1}, {c2}, created_at FROM {t}s WHERE {c1} = $1 ORDER BY created_at DESC LIMIT 50",
            f"SELECT count(*) FROM {t}s t JOIN {c1}s c ON c.id = t.{c1}_id GROUP BY t.{c2}",
            f"UPDATE {t}s SET {c2} = NULL WHERE {c1} < now() - interval '30 days'",
            f"SELECT DISTINCT ON ({c1}) * FROM {t}s WHERE {c2} IS NOT NULL",
        ))

    def slot(self, key: str) -> Any:
        rng, p, w = self.rng, self.p, self.w
        if key in ("path", "path2"):
            value = self.path()
            self.notes["path"][value.rsplit("/", 1)[-1]] += 1
            return value
        if key in ("ident", "ident2"):
            value = self.ident()
            self.notes["ident"][value] += 1
            return value
        if key == "error":
            return self.error()
        if key == "cmd":
            return self.test_cmd()
        if key == "trace":
            return _pick(rng, p.traces)
        if key == "sql":
            return self.sql()
        if key == "test":
            return f"{_pick(rng, p.tests).path}::test_{_pick(rng, p.idents).snake}"
        if key == "Type":
            return _pick(rng, p.idents).pascal
        if key in ("table", "col"):
            return _pick(rng, p.idents).snake + ("s" if key == "table" else "")
        if key == "flag":
            return _pick(rng, p.idents).snake.replace("_", "-")
        if key in ("lib", "lib2"):
            return _pick(rng, _LIBS[p.lang])
        if key == "n":
            return _pick(rng, w.noun_urn)
        if key == "a":
            return _pick(rng, w.adj_urn)
        if key == "v":
            return _pick(rng, w.verb_urn)
        if key == "ms":
            return _pick(rng, (180, 450, 900, 1200, 2500, 4000))
        if key == "lines":
            return _pick(rng, (800, 1200, 2000, 3500))
        return _int(rng, 2, 30)

    def fmt(self, template: str) -> str:
        return template.format_map(_Slots(self))

    # -- prompts and replies ------------------------------------------------------------------

    def prompt(self, first: bool) -> str:
        rng, p = self.rng, self.p
        if self.cjk and rng.random() < 0.7:
            template, term = _pick(rng, _CJK_PROMPTS)
            self.notes["cjk"][term] += 1
            return self.fmt(template)
        if not first and rng.random() < 0.25:
            return self.fmt(_pick(rng, _FOLLOWUPS))
        template = _pick(rng, _PROMPTS)
        lead = []  # the template's opening words, a natural-language query known to occur
        for word in template.lower().split(" "):
            if not word.isalpha():
                break
            lead.append(word)
        if len(lead) >= 3:
            self.notes["phrase"][" ".join(lead[:5])] += 1
        text = self.fmt(template)
        r = rng.random()
        if r < 0.35:
            text += " " + " ".join(rng.choices(p.usent, k=_int(rng, 1, 3)))
        elif r < 0.42:  # a long, spec-like prompt
            text += "\n\n" + "\n".join(f"- {x}" for x in rng.choices(p.usent, k=_int(rng, 3, 12)))
            text += "\n\n" + " ".join(rng.choices(p.usent, k=_int(rng, 2, 8)))
        elif r < 0.50:
            text += f"\n\n```\n{_pick(rng, p.traces)}\n```"
        return text

    def commentary(self) -> str:
        if self.cjk and self.rng.random() < 0.6:
            return self.fmt(_pick(self.rng, _CJK_COMMENTARY[self.cjk]))
        return _pick(self.rng, self.p.commentary)

    def final(self, calls: int) -> str:
        rng, p = self.rng, self.p
        if self.cjk and rng.random() < 0.7:
            return self.fmt(_pick(rng, _CJK_REPLIES[self.cjk]))
        r = rng.random()
        if calls == 0 or r < 0.3:
            return " ".join(rng.choices(p.asent, k=_int(rng, 2, 7)))
        parts = [" ".join(rng.choices(p.asent, k=_int(rng, 1, 3)))]
        if r < 0.8:
            parts.append("\n".join(f"- `{self.path()}`: {_pick(rng, p.asent)}" for _ in range(_int(rng, 1, 6))))
        if rng.random() < 0.25:
            start = int(rng.random() * (len(p.code) - 12))
            parts.append(f"```{_LANG_EXT[p.lang]}\n" + "\n".join(p.code[start : start + _int(rng, 3, 12)]) + "\n```")
        if rng.random() < 0.6:
            parts.append(f"Tests: `{self.test_cmd()}` — {_int(rng, 3, 400)} passed.")
        if rng.random() < 0.3:
            parts.append(" ".join(rng.choices(p.asent, k=_int(rng, 1, 4))))
        return "\n\n".join(parts)

    # -- tool calls ------------------------------------------------------------------------------

    def size(self) -> int:
        """Output size target: mostly 100 B–4 KB, ~9% tiny, ~1% 20–100 KB."""
        r = self.rng.random()
        if r < 0.01:
            return int(_loguniform(self.rng, 20_000, 100_000))
        if r < 0.10:
            return int(_loguniform(self.rng, 20, 100))
        return int(_loguniform(self.rng, 100, 4000))

    def lines(self, pool: str, target: int) -> str:
        """About ``target`` bytes of lines drawn from one of the project's pools, JSON-escaped."""
        k = max(1, int(target / self.p.avg[pool]))
        return "\\n".join(self.rng.choices(self.p.esc[pool], k=k))

    def call(self, pos: float) -> _Call:
        r = self.rng.random()
        if self.rng.random() < 0.008:
            return self.call_web()
        if pos < 0.4:
            kind = "read" if r < 0.45 else "search" if r < 0.80 else "shell" if r < 0.97 else "plan"
        elif pos < 0.75:
            kind = "edit" if r < 0.45 else "read" if r < 0.65 else "search" if r < 0.75 else "shell"
            kind = "write" if r >= 0.98 else kind
        else:
            kind = "shell" if r < 0.65 else "edit" if r < 0.85 else "read"
        make: Callable[[], _Call] = getattr(self, f"call_{kind}")
        return make()

    def call_read(self) -> _Call:
        rng, p = self.rng, self.p
        target = self.size()
        f = _pick(rng, p.file_urn)
        if target > 20_000:
            f = max((_pick(rng, p.files) for _ in range(6)), key=lambda x: x.lines)
        want = max(8, target // 38)
        first, last = 0, f.lines
        if want < f.lines:
            first = int(rng.random() * (f.lines - want))
            last = first + want
        esc = "\\n".join(p.esc["code"][f.start + first : f.start + last])
        return _Call("read", _int(rng, 20, 400), esc=esc, file=f, first=first, last=last)

    def call_search(self) -> _Call:
        rng, p = self.rng, self.p
        pattern = _pick(rng, p.mentions)
        if rng.random() < 0.15:
            return _Call("search", _int(rng, 20, 300), exit_code=1, pattern=pattern)
        lines = self.rng.choices(p.esc["grep"], k=max(1, int(self.size() / p.avg["grep"])))
        return _Call("search", _int(rng, 20, 600), esc="\\n".join(lines), lines=lines, pattern=pattern)

    def call_edit(self) -> _Call:
        rng, p = self.rng, self.p
        f = _pick(rng, p.file_urn)
        first = int(rng.random() * max(1, f.lines - 6))
        n_old = _int(rng, 1, 4)
        old = "\n".join(p.code[f.start + first : f.start + first + n_old])
        new = "\n".join(rng.choices(p.code, k=_int(rng, 1, 8)))
        code = 1 if rng.random() < 0.05 else 0
        return _Call("edit", _int(rng, 10, 200), file=f, first=first, last=first + n_old, old=old, new=new,
                     exit_code=code)

    def call_write(self) -> _Call:
        rng, p = self.rng, self.p
        start = int(rng.random() * (len(p.code) - 80))
        new = "\n".join(p.code[start : start + _int(rng, 10, 80)])
        return _Call("write", _int(rng, 10, 200), file=_pick(rng, p.tests), new=new)

    def call_plan(self) -> _Call:
        steps = [x.rstrip(".") for x in self.rng.choices(self.p.asent, k=_int(self.rng, 2, 6))]
        return _Call("plan", 5, text="\n".join(steps))

    def call_web(self) -> _Call:
        rng, w = self.rng, self.w
        query = f"{_pick(rng, _LIBS[self.p.lang])} {_pick(rng, w.noun_urn)} {self.error().split(':')[0]}"
        links = ", ".join(
            f'{{"title":"{_pick(rng, w.noun_urn).title()} {_pick(rng, w.noun_urn)} guide",'
            f'"url":"https://docs.example.dev/{_pick(rng, w.noun_urn)}/{_int(rng, 1, 999)}"}}'
            for _ in range(_int(rng, 3, 8))
        )
        body = f'Web search results for query: "{query}"\n\nLinks: [{links}]\n\n' + " ".join(
            rng.choices(self.p.asent, k=_int(rng, 3, 10)))
        return _Call("web", _int(rng, 800, 6000), esc=_e(body), pattern=query)

    def call_shell(self) -> _Call:
        r = self.rng.random()
        if r < 0.45:
            cmd, text, code, dur = self.out_test()
        elif r < 0.60:
            cmd, text, code, dur = self.out_lint()
        elif r < 0.78:
            cmd, text, code, dur = self.out_git()
        else:
            cmd, text, code, dur = self.out_misc()
        return _Call("shell", dur, esc=text, exit_code=code, cmd=cmd)

    # The out_* helpers return (command, JSON-escaped output, exit code, duration ms).

    def out_test(self) -> tuple[str, str, int, int]:
        rng, p = self.rng, self.p
        cmd = self.test_cmd()
        body = self.lines("progress", self.size())
        fail = rng.random() < 0.35
        passed = _int(rng, 3, 500)
        secs = rng.random() * 60 + 0.3
        err = self.error() if fail else ""
        name = f"test_{_pick(rng, p.idents).snake}"
        t = _pick(rng, p.tests).path
        bar = "=" * 30
        if p.lang == "python":
            head = (f"{bar} test session starts {bar}\nplatform linux -- Python 3.11.{_int(rng, 4, 9)}, pytest-8.3.2, "
                    f"pluggy-1.5.0\nrootdir: {p.cwd}\nconfigfile: pyproject.toml\ncollected {passed + fail} items\n\n")
            tail = f"\n\n{bar} {passed} passed in {secs:.2f}s {bar}"
            if fail:
                src = "\n".join("    " + x for x in rng.choices(p.code, k=_int(rng, 3, 15)))
                tail = (f"\n\n{bar} FAILURES {bar}\n{'_' * 20} {name} {'_' * 20}\n\n{src}\nE       {err}\n\n"
                        f"{t}:{_int(rng, 5, 400)}: {err.split(':')[0]}\n{bar} short test summary info {bar}\n"
                        f"FAILED {t}::{name} - {err}\n{bar} 1 failed, {passed} passed in {secs:.2f}s {bar}")
        elif p.lang == "rust":
            crate = _pick(rng, p.crates)
            head = (f"   Compiling {crate} v0.{_int(rng, 1, 9)}.{_int(rng, 0, 20)} ({p.cwd}/crates/{crate})\n"
                    f"    Finished `test` profile [unoptimized + debuginfo] target(s) in {secs:.2f}s\n"
                    f"     Running unittests src/lib.rs (target/debug/deps/{crate.replace('-', '_')}-"
                    f"{rng.getrandbits(64):016x})\n\nrunning {passed + fail} tests\n")
            tail = (f"\n\ntest result: ok. {passed} passed; 0 failed; {_int(rng, 0, 3)} ignored; 0 measured; "
                    f"0 filtered out; finished in {secs:.2f}s")
            if fail:
                f = _pick(rng, p.files)
                where = f"{f.path}:{_int(rng, 1, f.lines)}:{_int(rng, 5, 40)}"
                tail = (f"\ntest {name} ... FAILED\n\nfailures:\n\n---- {name} stdout ----\nthread '{name}' panicked "
                        f"at {where}:\n{err}\nnote: run with `RUST_BACKTRACE=1` environment variable to display a "
                        f"backtrace\n\nfailures:\n    {name}\n\ntest result: FAILED. {passed} passed; 1 failed; "
                        f"0 ignored; 0 measured; 0 filtered out; finished in {secs:.2f}s\n\n"
                        f"error: test failed, to rerun pass `-p {crate} --lib`")
        elif p.lang == "ts":
            head = f"> {p.name}@0.{_int(rng, 1, 20)}.0 test\n> vitest run\n\n RUN  v2.1.{_int(rng, 0, 9)} {p.cwd}\n\n"
            files = f" Test Files  {_int(rng, 1, 60)} passed"
            tail = f"\n\n{files}\n      Tests  {passed} passed\n   Duration  {secs:.2f}s"
            if fail:
                tail = (f"\n ❯ {t} ({_int(rng, 2, 20)} tests | 1 failed) {_int(rng, 5, 900)}ms\n   × {name}\n"
                        f"     → {err}\n\n FAIL  {t}\n{_pick(rng, p.traces)}\n\n Test Files  1 failed | "
                        f"{_int(rng, 1, 60)} passed\n      Tests  1 failed | {passed} passed\n   Duration  {secs:.2f}s")
        else:
            head = tail = ""
            if fail:
                pkg, base = t.rsplit("/", 1)
                tail = (f"\n--- FAIL: Test{_pick(rng, p.idents).pascal} ({rng.random() * 2:.2f}s)\n    "
                        f"{base}:{_int(rng, 10, 400)}: {err}\nFAIL\nFAIL\t{pkg}\t{secs:.3f}s")
        code = (101 if p.lang == "rust" else 1) if fail else 0
        return cmd, _e(head) + body + _e(tail), code, int(secs * 1000) + 400

    def out_lint(self) -> tuple[str, str, int, int]:
        rng, p = self.rng, self.p
        cmd = _pick(rng, {
            "python": ("ruff check .", "mypy src", "ruff check src tests && mypy src"),
            "rust": ("cargo clippy --all-targets -- -D warnings", "cargo build", "cargo check"),
            "ts": ("npx tsc --noEmit", "npm run lint", "npm run build"),
            "go": ("go vet ./...", "go build ./...", "golangci-lint run"),
        }[p.lang])
        if rng.random() < 0.45:
            finished = f"    Finished `dev` profile [unoptimized + debuginfo] target(s) in {rng.random() * 60:.2f}s"
            clean = {"python": "All checks passed!", "ts": "", "go": "", "rust": finished}[p.lang]
            return cmd, _e(clean), 0, _int(rng, 500, 60_000)
        body = self.lines("lint", min(self.size(), 12_000))
        n = body.count("\\n") + 1
        summary = {"python": f"\nFound {n} errors.", "ts": f"\nFound {n} errors in {_int(rng, 1, 9)} files.", "go": "",
                   "rust": f"\nerror: could not compile `{_pick(rng, p.crates)}` (lib) due to {n} previous errors"}
        return cmd, body + _e(summary[p.lang]), 1, _int(rng, 500, 60_000)

    def out_git(self) -> tuple[str, str, int, int]:
        rng, p = self.rng, self.p
        r = rng.random()
        if r < 0.35:
            mods = "\n".join(f"\tmodified:   {_pick(rng, p.files).path}" for _ in range(_int(rng, 1, 8)))
            text = (f'On branch {p.branch}\nChanges not staged for commit:\n  (use "git add <file>..." to update '
                    f'what will be committed)\n{mods}\n\nno changes added to commit (use "git add" and/or '
                    f'"git commit -a")')
            return "git status", _e(text), 0, _int(rng, 10, 200)
        if r < 0.75:
            cmd = _pick(rng, ("git diff", f"git diff {self.path()}", "git diff HEAD~1", "git show HEAD"))
            return cmd, self.lines("hunks", self.size()), 0, _int(rng, 10, 400)
        k = _pick(rng, (20, 50))
        return f"git log --oneline -n {k}", "\\n".join(rng.choices(p.esc["commits"], k=k)), 0, _int(rng, 10, 200)

    def out_misc(self) -> tuple[str, str, int, int]:
        rng, p, w = self.rng, self.p, self.w
        r = rng.random()
        dur = _int(rng, 10, 3000)
        if r < 0.2:
            d = self.path().rsplit("/", 1)[0] if rng.random() < 0.6 else "."
            rows = [f"{_pick(rng, ('-rw-r--r--', 'drwxr-xr-x'))}  1 dev dev {_int(rng, 96, 90_000):>6} "
                    f"Feb {_int(rng, 1, 28):>2} {_int(rng, 0, 23):02d}:{_int(rng, 0, 59):02d} "
                    f"{self.path().rsplit('/', 1)[-1]}" for _ in range(_int(rng, 3, 40))]
            return f"ls -la {d}", _e(f"total {_int(rng, 8, 400)}\n" + "\n".join(rows)), 0, dur
        if r < 0.35:
            find = f"find . -name '*.{_LANG_EXT[p.lang]}' -not -path './node_modules/*'"
            files = rng.choices(p.files, k=max(1, self.size() // 40))
            return _pick(rng, ("rg --files | head -200", find)), _e("\n".join(f.path for f in files)), 0, dur
        if r < 0.50:
            cmd = f'psql "$DATABASE_URL" -c "{self.sql()}"'
            if rng.random() < 0.3:
                err = _pick(rng, _SQL_ERRORS).format(s=_pick(rng, p.idents).snake, W=_pick(rng, w.noun_urn).upper())
                return cmd, _e(err), 1, dur
            cols = [_pick(rng, p.idents).snake for _ in range(_int(rng, 2, 5))]
            n = _int(rng, 0, 60)
            rows = [" " + " | ".join(str(_int(rng, 1, 99_999)) if j % 2 == 0 else _pick(rng, w.noun_urn)
                                     for j in range(len(cols))) for _ in range(n)]
            rule = "-" + "-+-".join("-" * len(c) for c in cols)
            return cmd, _e("\n".join([" " + " | ".join(cols), rule, *rows, f"({n} rows)"])), 0, dur
        if r < 0.68:
            cmd = _pick(rng, ("tail -n 400 logs/app.log", "docker compose logs --tail=300 api", "journalctl -n 300"))
            return cmd, self.lines("logs", self.size()), 0, dur
        if r < 0.78:
            route = _pick(rng, p.idents).snake.replace("_", "-")
            items = ", ".join(f'{{"{_pick(rng, p.idents).snake}": {_int(rng, 0, 999)}, '
                              f'"{_pick(rng, p.idents).snake}": "{_pick(rng, w.noun_urn)}"}}'
                              for _ in range(_int(rng, 1, 20)))
            url = f"localhost:{_pick(rng, (3000, 8000, 8080))}/api/{route}"
            return f"curl -s {url}", _e(f'{{"ok": true, "data": [{items}]}}'), 0, dur
        if r < 0.90:
            if p.lang == "ts":
                text = (f"added {_int(rng, 1, 900)} packages, and audited {_int(rng, 200, 1500)} packages in "
                        f"{_int(rng, 2, 60)}s\n\n{_int(rng, 10, 200)} packages are looking for funding\n"
                        "  run `npm fund` for details\n\nfound 0 vulnerabilities")
                return "npm install", _e(text), 0, dur * 10
            cmd = {"python": "uv pip install -e '.[dev]'", "rust": "cargo update", "go": "go mod tidy"}[p.lang]
            bumps = [f"    Updating {_pick(rng, _LIBS[p.lang])} v0.{_int(rng, 0, 40)}.{_int(rng, 0, 9)} "
                     f"-> v0.{_int(rng, 0, 40)}.{_int(rng, 0, 9)}" for _ in range(_int(rng, 1, 25))]
            return cmd, _e("\n".join(bumps)), 0, dur * 10
        rows = [f"{_pick(rng, p.idents).snake.upper()}={_pick(rng, w.noun_urn)}" for _ in range(_int(rng, 3, 20))]
        if rng.random() < 0.5:  # fake credentials, so that the redaction path is exercised
            rows.insert(int(rng.random() * len(rows)), self.secret())
        return _pick(rng, ("cat .env", "env | sort", "cat .env.local")), _e("\n".join(rows)), 0, dur

    def secret(self) -> str:
        rng = self.rng
        self.secrets += 1
        kind = int(rng.random() * 5)
        if kind == 0:
            return f"OPENAI_API_KEY=sk-proj-{_token(rng, 48)}"
        if kind == 1:
            return f"GITHUB_TOKEN=ghp_{_token(rng, 36)}"
        if kind == 2:
            return f"AWS_ACCESS_KEY_ID=AKIA{_b32(rng, 16)}"
        if kind == 3:
            return f"ANTHROPIC_API_KEY=sk-ant-api03-{_token(rng, 40)}"
        return f"DATABASE_URL=postgres://app:{_token(rng, 24)}@db.internal:5432/app"

    # -- a turn -------------------------------------------------------------------------------

    def turn(self, index: int, last: bool, incomplete_last: bool) -> _Turn:
        """Plan one turn.  Where it stops (abort, end of an incomplete session) is decided before
        any content is made, so every term noted for the sample queries is really written."""
        rng = self.rng
        prompt = self.prompt(index == 0)
        n_calls = _N_CALLS[bisect(_N_CALLS_CUM, rng.random() * _N_CALLS_CUM[-1])]
        if len(prompt) < 40 and rng.random() < 0.4:
            n_calls = min(n_calls, 3)
        outcome = "incomplete" if last and incomplete_last else "aborted" if rng.random() < 0.03 else "complete"
        sizes: list[int] = []  # calls per model round: mostly one, sometimes 2-3 in parallel
        while sum(sizes) < n_calls:
            sizes.append(1 if rng.random() < 0.75 else min(_int(rng, 2, 3), n_calls - sum(sizes)))
        if outcome != "complete" and sizes:
            sizes = sizes[: _int(rng, 1, len(sizes))]
        steps: list[_Step] = []
        done = 0
        for k in sizes:
            calls = [self.call(done / n_calls) for _ in range(k)]
            done += k
            reasoning = _pick(rng, self.p.reasoning) if rng.random() < 0.75 else ""
            comment = self.commentary() if rng.random() < 0.5 else None
            steps.append(_Step(reasoning, comment, calls, _int(rng, 1200, 25_000)))
        final: str | None = None
        if outcome == "aborted" and steps:
            steps[-1].calls[-1].aborted = True
        elif outcome == "incomplete" and steps and rng.random() < 0.5:
            steps[-1].calls[-1].pending = True
        elif outcome == "complete":
            final = self.final(n_calls)
        closing = _pick(rng, self.p.reasoning) if final is not None and rng.random() < 0.5 else ""
        gap = int(_loguniform(rng, 15_000, 1_800_000))
        if rng.random() < 0.02:  # the person came back hours later
            gap += _int(rng, 3, 20) * 3_600_000
        return _Turn(prompt, steps, final, outcome, rng.random() < 0.003, gap, closing)


# --------------------------------------------------------------------------------------------
# Harness renderers.
# --------------------------------------------------------------------------------------------


def _make_encoder() -> Callable[[Any], str]:
    """Compact, UTF-8-preserving JSON, as Codex and Claude Code write it.

    ``JSONEncoder.encode`` builds a new C encoder on every call, a noticeable cost at millions
    of records; build it once.  Falls back to the public API if the private constructor differs
    on this Python or does not produce identical output.
    """
    slow = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"), check_circular=False).encode

    def default(obj: Any) -> Any:
        raise TypeError(f"not JSON serializable: {type(obj).__name__}")

    make = getattr(json.encoder, "c_make_encoder", None)
    if make is None:
        return slow
    try:
        chunks = make(None, default, json.encoder.encode_basestring, None, ":", ",", False, False, True)

        def fast(obj: Any) -> str:
            return "".join(chunks(obj, 0))

        probe = {"a": [1, 2.5, None, True, "é\n\"\\"], "b": {"c": "x", "d": -0.1}, "e": []}
        if fast(probe) == slow(probe):
            return fast
    except Exception:  # a different private signature: use the public path
        pass
    return slow


_ENCODE = _make_encoder()

_ENV_CONTEXT = (
    "<environment_context>\n  <cwd>{cwd}</cwd>\n  <approval_policy>on-request</approval_policy>\n"
    "  <sandbox_mode>workspace-write</sandbox_mode>\n  <network_access>restricted</network_access>\n"
    "  <shell>{shell}</shell>\n</environment_context>"
)
_AGENTS_MD = (
    "# AGENTS.md instructions for {cwd}\n\n<INSTRUCTIONS>\n## Conventions\n- Run `{test}` before finishing.\n"
    "- Keep functions small and typed.\n- Never commit secrets or generated files.\n</INSTRUCTIONS>"
)
_PERMISSIONS = (
    "<permissions instructions>\nFilesystem sandboxing defines which files can be read or written. "
    "`sandbox_mode` is `workspace-write`. Network access is restricted.\n</permissions instructions>"
)
_TURN_ABORTED_NOTE = (
    "<turn_aborted>\n  <turn_id>{tid}</turn_id>\n  <reason>interrupted</reason>\n  <guidance>The user interrupted "
    "the previous turn. Do not continue the interrupted work unless asked.</guidance>\n</turn_aborted>"
)
_CLAUDE_REJECT = (
    "The user doesn't want to proceed with this tool use. The tool use was rejected (eg. if it was a file edit, "
    "the new_string was NOT written to the file). STOP what you are doing and wait for the user to tell you how "
    "to proceed."
)
_TODO_OK = (
    "Todos have been modified successfully. Ensure that you continue to use the todo list to track your progress. "
    "Please proceed with the current tasks if applicable"
)
# token_count is written after every model call: a template is much cheaper than encoding it.
_USAGE = ('{"input_tokens":%d,"cached_input_tokens":%d,"output_tokens":%d,"reasoning_output_tokens":%d,'
          '"total_tokens":%d}')
_TOKEN_COUNT = (
    '{"timestamp":"%s","type":"event_msg","payload":{"type":"token_count","info":{"total_token_usage":'
    + _USAGE + ',"last_token_usage":' + _USAGE + ',"model_context_window":258400},"rate_limits":{"primary":'
    '{"used_percent":%.1f,"window_minutes":300,"resets_at":%d},"secondary":{"used_percent":%.1f,'
    '"window_minutes":10080,"resets_at":%d},"credits":null,"plan_type":null}}}'
)
_TEST_HINT = {"python": "pytest -q", "rust": "cargo test", "ts": "npm test", "go": "go test ./..."}
_CLAUDE_MODELS = ("claude-opus-4-5-20251101", "claude-opus-4-5-20251101", "claude-sonnet-4-5-20250929",
                  "claude-haiku-4-5-20251001")
_CLAUDE_VERSIONS = ("2.0.76", "2.1.3", "2.1.9", "2.1.15", "2.1.29")


class _Session:
    """Bookkeeping shared by the renderers: clock, output lines, counted events."""

    harness = ""
    sid = ""

    def __init__(self, world: _World, rng: random.Random, proj: _Project, start_ms: int) -> None:
        self.w, self.rng, self.p = world, rng, proj
        self.start = self.t = start_ms
        self.lines: list[str] = []
        self.count = 0
        self.turns = 0

    def emit(self, obj: _Json, frags: Sequence[str] = ()) -> None:
        """Append one record; ``_HOLES[k]`` string values in ``obj`` become ``frags[k]`` verbatim."""
        self.lines.append(_splice(_ENCODE(obj), frags) if frags else _ENCODE(obj))

    def tick(self, lo: int, hi: int) -> str:
        """Advance the session clock by lo..hi ms and return the new timestamp (once per record)."""
        t = self.t = self.t + lo + int(self.rng.random() * (hi - lo))
        minute, rem = divmod(t, 60_000)
        prefix = _MINUTE_PREFIX.get(minute)
        if prefix is None:
            return _ts(t)
        return f"{prefix}{rem // 1000:02d}.{rem % 1000:03d}Z"

    def b64(self, n: int) -> str:
        """A JSON fragment of n base64 characters (encrypted reasoning, signatures, images)."""
        s = self.w.b64
        o = int(self.rng.random() * (len(s) - n))
        return f'"{s[o : o + n]}"'

    def advance(self, lo: int, hi: int) -> int:
        """Advance the clock as ``tick`` does, for a harness that writes no RFC 3339 time."""
        self.t += lo + int(self.rng.random() * (hi - lo))
        return self.t

    def begin(self, turn: _Turn) -> None:
        """The pause before a prompt: the turn's gap, or a few seconds before the first."""
        self.t += turn.gap_ms if self.turns else _int(self.rng, 500, 4000)
        self.turns += 1

    def rel_path(self) -> str:
        raise NotImplementedError

    def render(self, turn: _Turn) -> None:
        raise NotImplementedError

    def compact(self) -> None:
        raise NotImplementedError

    def finish(self) -> None:
        """Records a harness writes when the session's process ends (none by default)."""

    def file_bytes(self) -> bytes:
        """The session's file: its JSONL lines (a harness that writes a document overrides it)."""
        return ("\n".join(self.lines) + "\n").encode("utf-8")

    def record_count(self) -> int:
        return len(self.lines)

    def db_rows(self) -> _DbRows | None:
        """Rows for the corpus's database instead of a file of its own (OpenCode), else None."""
        return None


class _Codex(_Session):
    """Renders turns as a Codex rollout: ``{timestamp, type, payload}`` records."""

    harness = "codex"

    def __init__(self, world: _World, rng: random.Random, proj: _Project, start_ms: int) -> None:
        super().__init__(world, rng, proj, start_ms)
        # Three generations of Codex shell tooling seen in the wild, with their CLI versions.
        r = rng.random()
        if r < 0.35:
            self.style, self.cli, self.model = "shell", _pick(rng, ("0.46.0", "0.50.0", "0.53.0")), "gpt-5-codex"
        elif r < 0.7:
            self.style, self.cli = "shell_command", _pick(rng, ("0.63.0", "0.71.0", "0.77.0"))
            self.model = _pick(rng, ("gpt-5.1-codex", "gpt-5.1-codex-max", "gpt-5.2-codex"))
        else:
            self.style, self.cli = "exec_command", _pick(rng, ("0.87.0", "0.94.0", "0.98.0"))
            self.model = _pick(rng, ("gpt-5.2-codex", "gpt-5.3-codex", "gpt-5.3-codex"))
        self.phase = self.style == "exec_command"  # newer builds tag messages commentary/final_answer
        self.sid = _uuid7(rng, start_ms)
        self.effort = _pick(rng, ("medium", "medium", "high", "xhigh", "low"))
        self.total = {"input_tokens": 0, "cached_input_tokens": 0, "output_tokens": 0, "reasoning_output_tokens": 0,
                      "total_tokens": 0}
        self.ctx = _int(rng, 8000, 20_000)
        self.used = rng.random() * 40
        ts = _ts(start_ms)
        git = {"commit_hash": f"{rng.getrandbits(160):040x}", "branch": proj.branch, "repository_url": proj.repo_url}
        self.emit({"timestamp": ts, "type": "session_meta", "payload": {
            "id": self.sid, "timestamp": ts, "cwd": proj.cwd, "originator": "codex_cli_rs", "cli_version": self.cli,
            "instructions": None, "source": "cli", "model_provider": "openai", "git": git}})
        if self.phase:
            self.item("message", role="developer", content=[{"type": "input_text", "text": _PERMISSIONS}])
        if rng.random() < 0.6:
            agents = _AGENTS_MD.format(cwd=proj.cwd, test=_TEST_HINT[proj.lang])
            self.item("message", role="user", content=[{"type": "input_text", "text": agents}])
        env = _ENV_CONTEXT.format(cwd=proj.cwd, shell=_pick(rng, ("zsh", "bash")))
        self.item("message", role="user", content=[{"type": "input_text", "text": env}])

    def rel_path(self) -> str:
        stamp = _ts(self.start)
        return f"codex/sessions/{stamp[:10].replace('-', '/')}/rollout-{stamp[:19].replace(':', '-')}-{self.sid}.jsonl"

    def item(self, typ: str, ts: str | None = None, frags: Sequence[str] = (), **payload: Any) -> None:
        body = _ENCODE({"type": typ, **payload})
        line = f'{{"timestamp":"{ts or self.tick(1, 40)}","type":"response_item","payload":{body}}}'
        self.lines.append(_splice(line, frags) if frags else line)

    def event(self, typ: str, ts: str | None = None, frags: Sequence[str] = (), **payload: Any) -> None:
        body = _ENCODE({"type": typ, **payload})
        line = f'{{"timestamp":"{ts or self.tick(0, 5)}","type":"event_msg","payload":{body}}}'
        self.lines.append(_splice(line, frags) if frags else line)

    def tokens(self) -> None:
        rng = self.rng
        self.ctx += _int(rng, 300, 6000)
        out = _int(rng, 40, 2500)
        last = {"input_tokens": self.ctx, "cached_input_tokens": int(self.ctx * (0.5 + rng.random() * 0.45)),
                "output_tokens": out, "reasoning_output_tokens": int(out * rng.random()),
                "total_tokens": self.ctx + out}
        for k, v in last.items():
            self.total[k] += v
        self.used = min(100.0, self.used + rng.random() * 0.6)
        resets = self.t // 1000 + _int(rng, 600, 18_000)
        self.lines.append(_TOKEN_COUNT % (self.tick(0, 5), *self.total.values(), *last.values(), round(self.used, 1),
                                          resets, round(self.used / 4, 1), resets + 400_000))

    def assistant(self, text: str, phase: str) -> str:
        """A reply and its ``agent_message`` mirror (one counted event); returns the escaped text
        so ``task_complete`` can repeat it without escaping it a third time."""
        extra: _Json = {"phase": phase} if self.phase else {}
        frag = _JSON_STR(text)
        self.item("message", ts=self.tick(50, 900), frags=[frag], role="assistant",
                  content=[{"type": "output_text", "text": _HOLES[0]}], **extra)
        self.event("agent_message", ts=self.tick(0, 2), frags=[frag], message=_HOLES[0], **extra)
        self.count += 1
        return frag

    def reasoning(self, text: str) -> None:
        summary = [{"type": "summary_text", "text": text}] if text else []
        frag = self.b64(_int(self.rng, 200, 1400))
        self.item("reasoning", frags=['"gAAAAAB' + frag[1:]], summary=summary, content=None,
                  encrypted_content=_HOLES[0])
        if text:
            self.event("agent_reasoning", text=text)

    def render(self, turn: _Turn) -> None:
        rng = self.rng
        self.t += turn.gap_ms if self.turns else _int(rng, 500, 4000)
        self.turns += 1
        tid = _uuid7(rng, self.t)
        self.event("task_started", turn_id=tid, model_context_window=258_400)
        sandbox = {"type": "workspace-write", "network_access": False, "exclude_tmpdir_env_var": False,
                   "exclude_slash_tmp": False}
        self.emit({"timestamp": self.tick(1, 30), "type": "turn_context", "payload": {
            "turn_id": tid, "cwd": self.p.cwd, "approval_policy": "on-request", "sandbox_policy": sandbox,
            "model": self.model, "effort": self.effort, "summary": "auto"}})
        content: list[_Json] = [{"type": "input_text", "text": turn.prompt}]
        images: list[str] = []
        frags: list[str] = []
        if turn.image:
            frags.append('"data:image/png;base64,' + self.b64(_int(rng, 4000, 40_000))[1:])
            content.append({"type": "input_image", "image_url": _HOLES[0]})
            images.append(_HOLES[0])
        frags.append(_JSON_STR(turn.prompt))
        content[0]["text"] = _HOLES[len(frags) - 1]
        self.item("message", ts=self.tick(1, 20), frags=frags, role="user", content=content)
        self.event("user_message", ts=self.tick(0, 2), frags=frags, message=content[0]["text"], images=images)
        self.count += 1
        if self.turns == 1:
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
                if not call.pending:
                    self.t += call.duration_ms
                    self.output(call)
            if not any(c.aborted or c.pending for c in step.calls):
                self.tokens()
        if turn.outcome == "aborted":
            self.event("turn_aborted", turn_id=tid, reason="interrupted")
            note = _TURN_ABORTED_NOTE.format(tid=tid)
            self.item("message", role="user", content=[{"type": "input_text", "text": note}])
        elif turn.final is not None:
            self.t += _int(rng, 1500, 30_000)
            if turn.final_reasoning:
                self.reasoning(turn.final_reasoning)
            final = self.assistant(turn.final, "final_answer")
            self.tokens()
            self.event("task_complete", frags=[final], turn_id=tid, last_agent_message=_HOLES[0])

    def command_for(self, c: _Call) -> str:
        """Codex reads and searches through the shell: that is what the model really runs."""
        if c.kind == "read" and c.file is not None:
            if c.first == 0 and c.last == c.file.lines:
                return f"cat {c.file.path}"
            if self.rng.random() < 0.3:
                return f"nl -ba {c.file.path} | sed -n '{c.first + 1},{c.last}p'"
            return f"sed -n '{c.first + 1},{c.last}p' {c.file.path}"
        if c.kind == "search":
            return f'rg -n "{c.pattern}" {_pick(self.rng, ("src", ".", "crates", "internal", "tests"))}'
        return c.cmd

    def call(self, c: _Call) -> None:
        c.call_id = "call_" + _token(self.rng, 24)
        ts = self.tick(20, 400)
        if c.kind == "web":
            self.item("web_search_call", ts=ts, status="completed", action={"type": "search", "query": c.pattern})
            c.pending = True  # Codex writes no output record for a web search
        elif c.kind in ("edit", "write") and c.file is not None:
            if c.kind == "edit":
                ctx = self.p.code[c.file.start + max(0, c.first - 1)]
                minus = "\n".join("-" + x for x in c.old.split("\n"))
                plus = "\n".join("+" + x for x in c.new.split("\n"))
                body = f"*** Update File: {c.file.path}\n@@ {ctx}\n{minus}\n{plus}"
            else:
                body = f"*** Add File: {c.file.path}\n" + "\n".join("+" + x for x in c.new.split("\n"))
            self.item("custom_tool_call", ts=ts, status="completed", call_id=c.call_id, name="apply_patch",
                      input=f"*** Begin Patch\n{body}\n*** End Patch\n")
        elif c.kind == "plan":
            plan = [{"step": s, "status": st} for s, st in zip(c.text.split("\n"), _CODEX_STATUSES, strict=False)]
            self.item("function_call", ts=ts, name="update_plan", arguments=_ENCODE({"plan": plan}), call_id=c.call_id)
        else:
            c.cmd = self.command_for(c)
            if self.style == "shell":
                args: _Json = {"command": ["bash", "-lc", c.cmd], "workdir": self.p.cwd, "timeout_ms": 120_000}
            elif self.style == "shell_command":
                args = {"command": c.cmd, "workdir": self.p.cwd}
            else:
                args = {"cmd": c.cmd, "workdir": self.p.cwd, "yield_time_ms": 10_000, "max_output_tokens": 10_000}
            self.item("function_call", ts=ts, name=self.style, arguments=_ENCODE(args), call_id=c.call_id)

    def output(self, c: _Call) -> None:
        self.count += 1
        if c.kind in ("edit", "write") and c.file is not None:
            if c.aborted:
                out = "aborted"
            elif c.exit_code:
                msg = f"apply_patch verification failed: Failed to find expected lines in {c.file.path}:\n{c.old}"
                out = _ENCODE({"output": msg, "metadata": {"exit_code": 1, "duration_seconds": 0.0}})
            else:
                msg = f"Success. Updated the following files:\n{'M' if c.kind == 'edit' else 'A'} {c.file.path}\n"
                meta = {"exit_code": 0, "duration_seconds": round(c.duration_ms / 1000, 1)}
                out = _ENCODE({"output": msg, "metadata": meta})
            self.item("custom_tool_call_output", call_id=c.call_id, output=out)
            return
        if c.aborted or c.kind == "plan":
            self.item("function_call_output", call_id=c.call_id, output="aborted" if c.aborted else "Plan updated")
            return
        esc = c.esc
        if c.kind == "read" and c.cmd.startswith("nl ") and c.file is not None:
            lines = self.p.esc["code"][c.file.start + c.first : c.file.start + c.last]
            esc = "\\n".join(f"{n:>6}\\t{x}" for n, x in enumerate(lines, c.first + 1))
        secs = c.duration_ms / 1000
        if self.style == "shell":  # JSON inside the JSON string: this one is escaped twice
            frag = _JSON_STR(f'{{"output":"{esc}","metadata":{{"exit_code":{c.exit_code},'
                             f'"duration_seconds":{round(secs, 1)}}}}}')
        elif self.style == "shell_command":
            frag = _q(_e(f"Exit code: {c.exit_code}\nWall time: {secs:.1f} seconds\nOutput:\n") + esc)
        else:
            head = (f"Chunk ID: {self.rng.getrandbits(24):06x}\nWall time: {secs:.4f} seconds\nProcess exited with "
                    f"code {c.exit_code}\nOriginal token count: {len(esc) // 4}\nOutput:\n")
            frag = _q(_e(head) + esc)
        self.item("function_call_output", frags=[frag], call_id=c.call_id, output=_HOLES[0])

    def compact(self) -> None:
        """Long sessions hit the context limit: Codex writes a ``compacted`` record with a summary."""
        summary = "Summary of the conversation so far:\n" + "\n".join(
            f"- {x}" for x in self.rng.choices(self.p.asent, k=_int(self.rng, 4, 12)))
        self.emit({"timestamp": self.tick(100, 2000), "type": "compacted", "payload": {"message": summary}})
        self.event("context_compacted")
        self.ctx = _int(self.rng, 8000, 20_000)


class _Claude(_Session):
    """Renders turns as a Claude Code transcript: one record per content block, chained by
    ``parentUuid``; tool results come back as ``user`` records with ``tool_result`` blocks."""

    harness = "claude"

    def __init__(self, world: _World, rng: random.Random, proj: _Project, start_ms: int) -> None:
        super().__init__(world, rng, proj, start_ms)
        self.sid = _uuid4(rng)
        self.model = _pick(rng, _CLAUDE_MODELS)
        self.parent: str | None = None
        self.mode = _pick(rng, ("default", "default", "acceptEdits", "plan"))
        self.ctx = _int(rng, 12_000, 30_000)
        self.edited: dict[str, int] = {}
        self.cwd_e = _e(proj.cwd)
        self.base = {"isSidechain": False, "userType": "external", "cwd": proj.cwd, "sessionId": self.sid,
                     "version": _pick(rng, _CLAUDE_VERSIONS), "gitBranch": proj.branch}
        self.base_json = "," + _ENCODE(self.base)[1:-1]  # the fields every record repeats, encoded once

    def rel_path(self) -> str:
        return f"claude/projects/{self.p.cwd.replace('/', '-').replace('.', '-')}/{self.sid}.jsonl"

    def record(self, typ: str, ts: str, frags: Sequence[str] = (), **fields: Any) -> str:
        body = _ENCODE(fields)[1:-1]
        return self.raw_record(typ, ts, _splice(body, frags) if frags else body)

    def raw_record(self, typ: str, ts: str, body: str) -> str:
        """Append a record from its type-specific members, already JSON; returns its uuid."""
        uid = _uuid4(self.rng)
        parent = f'"{self.parent}"' if self.parent else "null"
        self.lines.append(f'{{"parentUuid":{parent}{self.base_json},"type":"{typ}",{body},"uuid":"{uid}",'
                          f'"timestamp":"{ts}"}}')
        self.parent = uid
        return uid

    def assistant(self, blocks: list[tuple[_Json, Sequence[str]]], stop: str) -> str:
        """One API message, split into one record per block sharing ``message.id``/``requestId``."""
        rng = self.rng
        msg_id = "msg_01" + _token(rng, 22)
        req = "req_011C" + _token(rng, 20)
        self.ctx += _int(rng, 200, 5000)
        created = _int(rng, 0, 4000)
        usage = {"input_tokens": _int(rng, 1, 12), "cache_creation_input_tokens": created,
                 "cache_read_input_tokens": self.ctx,
                 "cache_creation": {"ephemeral_5m_input_tokens": created, "ephemeral_1h_input_tokens": 0},
                 "output_tokens": _int(rng, 20, 1800), "service_tier": "standard"}
        head = f'{{"model":"{self.model}","id":"{msg_id}","type":"message","role":"assistant","content":['
        tail = f'"stop_sequence":null,"usage":{_ENCODE(usage)}}}'
        uid = ""
        for n, (block, frags) in enumerate(blocks):
            stop_json = f'"{stop}"' if n == len(blocks) - 1 else "null"
            message = f'{head}{_ENCODE(block)}],"stop_reason":{stop_json},{tail}'
            message = _splice(message, frags) if frags else message
            uid = self.raw_record("assistant", self.tick(30, 1500), f'"message":{message},"requestId":"{req}"')
            if block["type"] == "text":
                self.count += 1
        return uid

    def thinking(self, text: str) -> tuple[_Json, Sequence[str]]:
        return {"type": "thinking", "thinking": text, "signature": _HOLES[0]}, [self.b64(_int(self.rng, 150, 600))]

    def render(self, turn: _Turn) -> None:
        rng = self.rng
        self.t += turn.gap_ms if self.turns else _int(rng, 500, 4000)
        self.turns += 1
        turn_start = self.t
        prompt_id = _uuid4(rng)
        now = _ts(self.t)
        backups = {p: {"backupFileName": f"{rng.getrandbits(64):016x}@v{v}", "version": v, "backupTime": now}
                   for p, v in self.edited.items()}
        self.emit({"type": "file-history-snapshot", "messageId": prompt_id,
                   "snapshot": {"messageId": prompt_id, "trackedFileBackups": backups, "timestamp": now},
                   "isSnapshotUpdate": False})
        content: Any = turn.prompt
        frags: list[str] = []
        if turn.image:
            frags.append(self.b64(_int(rng, 4000, 40_000)))
            image = {"type": "base64", "media_type": "image/png", "data": _HOLES[0]}
            content = [{"type": "image", "source": image}, {"type": "text", "text": turn.prompt}]
        parent = f'"{self.parent}"' if self.parent else "null"
        fields = _ENCODE({"message": {"role": "user", "content": content}, "uuid": prompt_id,
                          "timestamp": self.tick(1, 50), "thinkingMetadata": {"maxThinkingTokens": 31999}, "todos": [],
                          "permissionMode": self.mode})
        line = f'{{"parentUuid":{parent}{self.base_json},"type":"user",{fields[1:]}'
        self.lines.append(_splice(line, frags) if frags else line)
        self.parent = prompt_id
        self.count += 1
        for step in turn.steps:
            self.t += step.latency_ms
            blocks = [self.thinking(step.reasoning)] if step.reasoning else []
            if step.commentary:
                blocks.append(({"type": "text", "text": step.commentary}, ()))
            ids = ["toolu_01" + _token(rng, 22) for _ in step.calls]
            blocks += [(self.tool_use(c, i), ()) for c, i in zip(step.calls, ids, strict=True)]
            src = self.assistant(blocks, "tool_use")
            for c, i in zip(step.calls, ids, strict=True):
                if not c.pending:
                    self.t += c.duration_ms
                    self.result(c, i, src)
        if turn.outcome == "aborted":
            text = "[Request interrupted by user for tool use]" if turn.steps else "[Request interrupted by user]"
            marker = {"role": "user", "content": [{"type": "text", "text": text}]}
            self.record("user", self.tick(200, 5000), message=marker)
        elif turn.final is not None:
            self.t += _int(rng, 1500, 30_000)
            blocks = [self.thinking(turn.final_reasoning)] if turn.final_reasoning else []
            blocks.append(({"type": "text", "text": turn.final}, ()))
            self.assistant(blocks, "end_turn")
            self.record("system", self.tick(5, 60), subtype="turn_duration", durationMs=self.t - turn_start,
                        isMeta=False)

    def tool_use(self, c: _Call, tool_id: str) -> _Json:
        cwd = self.p.cwd
        inp: _Json
        if c.kind == "read" and c.file is not None:
            name, inp = "Read", {"file_path": f"{cwd}/{c.file.path}"}
            if c.first or c.last != c.file.lines:
                inp.update(offset=c.first + 1, limit=c.last - c.first)
        elif c.kind == "search":
            name, inp = "Grep", {"pattern": c.pattern, "path": cwd, "output_mode": "content", "-n": True}
        elif c.kind == "edit" and c.file is not None:
            name, inp = "Edit", {"file_path": f"{cwd}/{c.file.path}", "old_string": c.old, "new_string": c.new}
        elif c.kind == "write" and c.file is not None:
            name, inp = "Write", {"file_path": f"{cwd}/{c.file.path}", "content": c.new}
        elif c.kind == "plan":
            todos = [{"content": s, "status": st, "activeForm": s}
                     for s, st in zip(c.text.split("\n"), _CODEX_STATUSES, strict=False)]
            name, inp = "TodoWrite", {"todos": todos}
        elif c.kind == "web":
            name, inp = "WebSearch", {"query": c.pattern}
        else:
            name, inp = "Bash", {"command": c.cmd, "description": f"Run {c.cmd.split(' ')[0]}"}
        return {"type": "tool_use", "id": tool_id, "name": name, "input": inp}

    def result(self, c: _Call, tool_id: str, src: str) -> None:
        """The ``tool_result`` record, with ``toolUseResult`` as Claude Code writes it per tool."""
        cwd, h0, h1 = self.p.cwd, _HOLES[0], _HOLES[1]
        is_error = False
        frags: list[str] = []
        extra: Any
        if c.aborted:
            text, is_error, extra = _CLAUDE_REJECT, True, "User rejected tool use"
        elif c.kind == "read" and c.file is not None:
            lines = self.p.esc["code"][c.file.start + c.first : c.file.start + c.last]
            frags = [_q("\\n".join(f"{n:>6}→{x}" for n, x in enumerate(lines, c.first + 1))), _q(c.esc)]
            text = h0
            extra = {"type": "text", "file": {"filePath": f"{cwd}/{c.file.path}", "content": h1,
                                              "numLines": c.last - c.first, "startLine": c.first + 1,
                                              "totalLines": c.file.lines}}
        elif c.kind == "search":
            prefix = self.cwd_e + "/"
            frags = [_q("\\n".join(prefix + x for x in c.lines)) if c.lines else '"No matches found"']
            text = h0
            files = len({x.split(":", 1)[0] for x in c.lines})
            extra = {"mode": "content", "numFiles": files, "filenames": [], "content": h0, "numLines": len(c.lines)}
        elif c.kind == "edit" and c.file is not None:
            path = f"{cwd}/{c.file.path}"
            if c.exit_code:
                text = f"<tool_use_error>String to replace not found in file.\nString: {c.old}</tool_use_error>"
                is_error, extra = True, f"Error: String to replace not found in file.\nString: {c.old}"
            else:
                self.edited[c.file.path] = self.edited.get(c.file.path, 0) + 1
                code, s, lo = self.p.code, c.file.start, max(0, c.first - 4)
                snippet = code[s + lo : s + c.first] + c.new.split("\n") + code[s + c.last : s + c.last + 4]
                text = (f"The file {path} has been updated. Here's the result of running `cat -n` on a snippet of "
                        "the edited file:\n" + "\n".join(f"{n:>6}→{x}" for n, x in enumerate(snippet, lo + 1)))
                lines = ["-" + x for x in c.old.split("\n")] + ["+" + x for x in c.new.split("\n")]
                patch = {"oldStart": c.first + 1, "oldLines": c.last - c.first, "newStart": c.first + 1,
                         "newLines": c.new.count("\n") + 1, "lines": lines}
                extra = {"filePath": path, "oldString": c.old, "newString": c.new, "originalFile": None,
                         "structuredPatch": [patch], "userModified": False, "replaceAll": False}
        elif c.kind == "write" and c.file is not None:
            text = f"File created successfully at: {cwd}/{c.file.path}"
            extra = {"type": "create", "filePath": f"{cwd}/{c.file.path}", "content": c.new, "structuredPatch": []}
        elif c.kind == "plan":
            text, extra = _TODO_OK, {"oldTodos": [], "newTodos": []}
        elif c.kind == "web":
            text, frags = h0, [_q(c.esc)]
            extra = {"query": c.pattern, "durationSeconds": c.duration_ms / 1000}
        elif c.exit_code:
            text, extra, is_error = h0, h1, True
            frags = [_q(_e(f"Exit code {c.exit_code}\n") + c.esc), _q(_e(f"Error: Exit code {c.exit_code}\n") + c.esc)]
        else:
            text, frags = h0, [_q(c.esc)]
            extra = {"stdout": h0, "stderr": "", "interrupted": False, "isImage": False}
        block = {"tool_use_id": tool_id, "type": "tool_result", "content": text, "is_error": is_error}
        self.record("user", self.tick(5, 80), frags, message={"role": "user", "content": [block]}, toolUseResult=extra,
                    sourceToolAssistantUUID=src)
        self.count += 1

    def compact(self) -> None:
        """Claude auto-compaction: a ``compact_boundary`` then an ``isCompactSummary`` continuation."""
        rng = self.rng
        self.parent = None
        self.record("system", self.tick(100, 2000), subtype="compact_boundary", content="Conversation compacted",
                    isMeta=False, level="info", compactMetadata={"trigger": "auto", "preTokens": self.ctx})
        summary = ("This session is being continued from a previous conversation that ran out of context. The "
                   "conversation is summarized below:\nAnalysis:\n"
                   + "\n".join(f"- {x}" for x in rng.choices(self.p.asent, k=_int(rng, 5, 14))))
        self.record("user", self.tick(10, 200), message={"role": "user", "content": summary}, isCompactSummary=True,
                    isVisibleInTranscriptOnly=True)
        self.ctx = _int(rng, 12_000, 30_000)


# --------------------------------------------------------------------------------------------
# Sessions and the driver.
# --------------------------------------------------------------------------------------------


class _Pi(_Session):
    """Renders turns as a Pi coding-agent session (format v3): a header, then message entries
    chained by ``parentId``; each model round is one assistant message whose tool calls come back
    as ``toolResult`` messages (the shape of ``data_samples/pi``)."""

    harness = "pi"
    _TOOLS: ClassVar[dict[str, str]] = {"read": "read", "search": "grep", "edit": "edit", "write": "write",
                                        "shell": "bash", "plan": "todo", "web": "web_search"}

    def __init__(self, world: _World, rng: random.Random, proj: _Project, start_ms: int) -> None:
        super().__init__(world, rng, proj, start_ms)
        self.sid = _uuid4(rng)
        self.provider, self.model = _pick(rng, (("anthropic", "claude-sonnet-4-5"), ("openai", "gpt-5"),
                                                ("google", "gemini-2.5-pro")))
        self.parent: str | None = None
        self.emit({"type": "session", "version": 3, "id": self.sid, "timestamp": _ts(start_ms), "cwd": proj.cwd})

    def rel_path(self) -> str:
        folder = "--" + self.p.cwd.strip("/").replace("/", "-") + "--"
        return f"pi/sessions/{folder}/{_ts(self.start).replace(':', '-').replace('.', '-')}_{self.sid}.jsonl"

    def entry(self, ts: str, message: _Json, frags: Sequence[str] = ()) -> None:
        eid = f"{self.rng.getrandbits(32):08x}"
        self.emit({"type": "message", "id": eid, "parentId": self.parent, "timestamp": ts, "message": message}, frags)
        self.parent = eid

    def assistant(self, blocks: list[_Json], stop: str) -> None:
        self.entry(self.tick(20, 400), {"role": "assistant", "content": blocks, "provider": self.provider,
                                        "model": self.model, "stopReason": stop})

    def arguments(self, c: _Call) -> _Json:
        path = c.file.path if c.file is not None else ""
        by_kind: dict[str, _Json] = {
            "read": {"path": path, "offset": c.first + 1, "limit": max(1, c.last - c.first)},
            "search": {"pattern": c.pattern, "path": "."}, "edit": {"path": path, "oldText": c.old, "newText": c.new},
            "write": {"path": path, "content": c.new}, "plan": {"items": c.text}, "web": {"query": c.pattern}}
        return by_kind.get(c.kind, {"command": c.cmd})

    def render(self, turn: _Turn) -> None:
        rng = self.rng
        self.t += turn.gap_ms if self.turns else _int(rng, 500, 4000)
        self.turns += 1
        self.entry(self.tick(1, 20), {"role": "user", "content": [{"type": "text", "text": _HOLES[0]}]},
                   [_JSON_STR(turn.prompt)])
        self.count += 1
        for step in turn.steps:
            self.t += step.latency_ms
            blocks: list[_Json] = [{"type": "thinking", "thinking": step.reasoning}] if step.reasoning else []
            if step.commentary:
                blocks.append({"type": "text", "text": step.commentary})
                self.count += 1
            for c in step.calls:
                c.call_id = "toolu_" + _token(rng, 20)
                blocks.append({"type": "toolCall", "id": c.call_id, "name": self._TOOLS.get(c.kind, "bash"),
                               "arguments": self.arguments(c)})
            self.assistant(blocks, "toolUse" if step.calls else "stop")
            for c in step.calls:
                if c.pending:
                    continue
                self.t += c.duration_ms
                text = "aborted" if c.aborted else c.esc or "(no output)"
                if c.exit_code and c.kind == "shell":
                    text += f"\\n\\nCommand exited with code {c.exit_code}"
                self.entry(self.tick(1, 5), {"role": "toolResult", "toolCallId": c.call_id,
                                             "toolName": self._TOOLS.get(c.kind, "bash"),
                                             "content": [{"type": "text", "text": _HOLES[0]}],
                                             "isError": bool(c.exit_code or c.aborted)}, [_q(text)])
                self.count += 1
        if turn.outcome == "aborted":
            self.assistant([], "aborted")
        elif turn.final is not None:
            self.t += _int(rng, 1500, 30_000)
            blocks = [{"type": "thinking", "thinking": turn.final_reasoning}] if turn.final_reasoning else []
            self.assistant([*blocks, {"type": "text", "text": turn.final}], "stop")
            self.count += 1

    def compact(self) -> None:
        summary = "Summary of the conversation so far:\n" + "\n".join(
            f"- {x}" for x in self.rng.choices(self.p.asent, k=_int(self.rng, 4, 12)))
        eid = f"{self.rng.getrandbits(32):08x}"
        self.emit({"type": "compaction", "id": eid, "parentId": self.parent, "timestamp": self.tick(100, 2000),
                   "summary": summary, "tokensBefore": _int(self.rng, 80_000, 190_000)})
        self.parent = eid


# --------------------------------------------------------------------------------------------
# The other harnesses Moraine reads.  Each renderer writes the same simulated turns in the
# harness's own files, as its adapter under src/moraine/sources/ reads them (the module
# docstrings and docs/harnesses/*.md give the formats, data_samples/<harness> hand-made examples).
# --------------------------------------------------------------------------------------------

_NOT_ALNUM = re.compile(r"[^A-Za-z0-9]")
_NOT_ALNUM_RUN = re.compile(r"[^A-Za-z0-9]+")
_CANCELLED = "[Operation Cancelled] Reason: User cancelled the operation."
_REJECTED = "The user rejected this tool call."


def _thought(text: str) -> tuple[str, str]:
    """A reasoning summary ``**Title**\\n\\nbody`` as (title, body)."""
    if text.startswith("**"):
        end = text.find("**", 2)
        if end > 0:
            return text[2:end], text[end + 2 :].strip()
    return "", text


def _auto_title(prompt: str) -> str:
    """A generated session title: the gist of the first prompt, a few words long."""
    words = prompt.split("\n", 1)[0].split()[:7]
    return " ".join(words).rstrip(".,:;!?`") or "Untitled session"


def _numbered(proj: _Project, c: _Call, number: Callable[[int], str]) -> str:
    """The escaped lines of a read, each behind ``number(line)`` (already escaped)."""
    assert c.file is not None
    lines = proj.esc["code"][c.file.start + c.first : c.file.start + c.last]
    return "\\n".join(number(n) + x for n, x in enumerate(lines, c.first + 1))


def _todos(c: _Call) -> list[str]:
    return c.text.split("\n")


class _Qwen(_Session):
    """Renders turns as a Qwen Code chat (``chatRecordingService``, JSONL): ChatRecords chained by
    ``parentUuid`` with ``cwd``/``version``/``gitBranch`` on each; a model round is one assistant
    record (thought, text and ``functionCall`` parts), each result a ``tool_result`` record paired
    by ``callId``; newer builds close a turn with ``branch_checkpoint`` / ``turn_result``."""

    harness = "qwen-code"
    _TOOLS: ClassVar[dict[str, str]] = {"read": "read_file", "search": "grep_search", "edit": "edit",
                                        "write": "write_file", "shell": "run_shell_command", "plan": "todo_write",
                                        "web": "web_search"}

    def __init__(self, world: _World, rng: random.Random, proj: _Project, start_ms: int) -> None:
        super().__init__(world, rng, proj, start_ms)
        self.sid = _uuid4(rng)
        self.model = _pick(rng, ("qwen3-coder-plus", "qwen3-coder-plus", "qwen3-coder-flash", "qwen3-max"))
        version = _pick(rng, ("0.2.3", "0.5.1", "0.8.2", "0.19.11"))
        self.markers = version == "0.19.11"  # the builds that write turn_result / branch_checkpoint
        self.parent: str | None = None
        self.titled = False
        self.tail = "," + _ENCODE({"cwd": proj.cwd, "version": version, "gitBranch": proj.branch})[1:-1]

    def rel_path(self) -> str:
        return f"qwen/projects/{_NOT_ALNUM.sub('-', self.p.cwd)}/chats/{self.sid}.jsonl"

    def record(self, typ: str, body: _Json, frags: Sequence[str] = (), subtype: str = "", chain: bool = True,
               ts: str | None = None) -> None:
        """One ChatRecord; a side record (a title) does not move the chain's tail."""
        uid = _uuid4(self.rng)
        parent = f'"{self.parent}"' if self.parent else "null"
        sub = f',"subtype":"{subtype}"' if subtype else ""
        line = (f'{{"uuid":"{uid}","parentUuid":{parent},"sessionId":"{self.sid}","timestamp":'
                f'"{ts or self.tick(5, 400)}","type":"{typ}"{sub}{self.tail},{_ENCODE(body)[1:-1]}}}')
        self.lines.append(_splice(line, frags) if frags else line)
        if chain:
            self.parent = uid

    def assistant(self, parts: list[_Json]) -> None:
        rng = self.rng
        prompt, out = _int(rng, 8000, 90_000), _int(rng, 20, 1800)
        usage = {"promptTokenCount": prompt, "candidatesTokenCount": out, "cachedContentTokenCount": prompt // 2,
                 "totalTokenCount": prompt + out}
        self.record("assistant", {"model": self.model, "message": {"role": "model", "parts": parts},
                                  "usageMetadata": usage}, ts=self.tick(20, 400))

    def arguments(self, c: _Call) -> _Json:
        path = f"{self.p.cwd}/{c.file.path}" if c.file is not None else ""
        if c.kind == "read":
            return {"absolute_path": path, "offset": c.first, "limit": max(1, c.last - c.first)}
        if c.kind == "search":
            return {"pattern": c.pattern, "path": self.p.cwd}
        if c.kind == "edit":
            return {"file_path": path, "old_string": c.old, "new_string": c.new}
        if c.kind == "write":
            return {"file_path": path, "content": c.new}
        if c.kind == "plan":
            return {"todos": [{"id": str(k), "content": s, "status": "pending"} for k, s in enumerate(_todos(c), 1)]}
        if c.kind == "web":
            return {"query": c.pattern}
        return {"command": c.cmd, "is_background": False}

    def output(self, c: _Call) -> tuple[str, str, str]:
        """(escaped text the model got, status, short display) of one call."""
        path = f"{self.p.cwd}/{c.file.path}" if c.file is not None else ""
        if c.aborted:
            return _e(_CANCELLED), "cancelled", "Cancelled"
        if c.kind == "shell":
            head = _e(f"Command: {c.cmd}\nDirectory: (root)\nOutput: ")
            tail = _e(f"\nError: (none)\nExit Code: {c.exit_code}\nSignal: (none)\nBackground PIDs: (none)\n"
                      f"Process Group PGID: {_int(self.rng, 1000, 99_999)}")
            return head + (c.esc or "(empty)") + tail, "success", f"Exit Code: {c.exit_code}"
        if c.kind == "edit" and c.exit_code:
            msg = f"Failed to edit, 0 occurrences found for old_string in {path}. No edits made."
            return _e(msg), "error", msg
        by_kind = {"read": (c.esc, f"Read lines {c.first + 1}-{c.last}"),
                   "search": (c.esc or _e(f'No matches found for pattern "{c.pattern}".'),
                              f"Found {len(c.lines)} matches"),
                   "edit": (_e(f"Successfully modified file: {path} (1 replacements)."), "Edited"),
                   "write": (_e(f"Successfully created and wrote to new file: {path}."), "Written"),
                   "plan": (_e("Todos have been modified successfully."), "Todos updated"),
                   "web": (c.esc, "Search results returned")}
        text, display = by_kind[c.kind]
        return text, "success", display

    def result(self, c: _Call) -> None:
        text, status, display = self.output(c)
        key = "output" if status == "success" else "error"
        response = {"functionResponse": {"id": c.call_id, "name": self._TOOLS[c.kind], "response": {key: _HOLES[0]}}}
        error = None if status == "success" else {"message": display if status == "error" else _CANCELLED}
        outcome = {"callId": c.call_id, "status": status, "resultDisplay": display, "error": error,
                   "durationMs": c.duration_ms}
        self.record("tool_result", {"message": {"role": "user", "parts": [response]}, "toolCallResult": outcome},
                    [_q(text)], ts=self.tick(1, 5))
        self.count += 1

    def render(self, turn: _Turn) -> None:
        rng = self.rng
        self.begin(turn)
        parts: list[_Json] = [{"text": _HOLES[0]}]
        frags = [_JSON_STR(turn.prompt)]
        if turn.image:
            parts.append({"inlineData": {"mimeType": "image/png", "data": _HOLES[1]}})
            frags.append(self.b64(_int(rng, 4000, 40_000)))
        self.record("user", {"message": {"role": "user", "parts": parts}}, frags, ts=self.tick(1, 20))
        self.count += 1
        for step in turn.steps:
            self.t += step.latency_ms
            parts = [{"text": step.reasoning, "thought": True}] if step.reasoning else []
            if step.commentary:
                parts.append({"text": step.commentary})
                self.count += 1
            for c in step.calls:
                c.call_id = "call_" + _token(rng, 24)
                parts.append({"functionCall": {"id": c.call_id, "name": self._TOOLS[c.kind],
                                               "args": self.arguments(c)}})
            self.assistant(parts)
            for c in step.calls:
                if not c.pending:
                    self.t += c.duration_ms
                    self.result(c)
        if turn.outcome == "aborted" and self.markers:
            self.record("system", {"systemPayload": {"state": "cancelled",
                                                     "error": {"message": "Request cancelled by the user"}}},
                        subtype="turn_result")
        elif turn.final is not None:
            self.t += _int(rng, 1500, 30_000)
            thought = [{"text": turn.final_reasoning, "thought": True}] if turn.final_reasoning else []
            self.assistant([*thought, {"text": turn.final}])
            self.count += 1
            self.closed(turn)

    def closed(self, turn: _Turn) -> None:
        """After a finished turn: the auto title (first turn only), the end-of-turn checkpoint."""
        if not self.titled:
            self.titled = True
            title = _auto_title(turn.prompt)
            self.record("system", {"systemPayload": {"customTitle": title, "titleSource": "auto"}},
                        subtype="custom_title", chain=False)
        if self.markers:
            self.record("system", {"systemPayload": {}}, subtype="branch_checkpoint", ts=self.tick(1, 10))

    def compact(self) -> None:
        rng = self.rng
        summary = "<state_snapshot>\n" + "\n".join(f"- {x}" for x in rng.choices(self.p.asent, k=_int(rng, 4, 12)))
        history = [{"role": "user", "parts": [{"text": summary + "\n</state_snapshot>"}]},
                   {"role": "model", "parts": [{"text": "Got it. Thanks for the additional context!"}]}]
        before = _int(rng, 80_000, 190_000)
        info = {"originalTokenCount": before, "newTokenCount": before // 8, "compressionStatus": "COMPRESSED"}
        self.record("system", {"systemPayload": {"info": info, "compressedHistory": history}},
                    subtype="chat_compression", ts=self.tick(100, 2000))


class _Kimi(_Session):
    """Renders turns as a Kimi CLI ``wire.jsonl`` (wire protocol 1.x): a ``metadata`` header, then
    ``{timestamp: epoch seconds, message: {type, payload}}`` lines: ``TurnBegin``, ``StepBegin``,
    ``ContentPart`` (think / text), ``ToolCall`` with JSON-string arguments, ``ToolResult``,
    ``StatusUpdate``, and ``TurnEnd`` or ``StepInterrupted``.  The sessions folder is the md5 of
    the cwd; ``kimi.json`` (written once for the corpus) maps it back."""

    harness = "kimi-cli"
    _TOOLS: ClassVar[dict[str, str]] = {"read": "ReadFile", "search": "Grep", "edit": "StrReplaceFile",
                                        "write": "WriteFile", "shell": "Shell", "plan": "SetTodoList",
                                        "web": "SearchWeb"}

    def __init__(self, world: _World, rng: random.Random, proj: _Project, start_ms: int) -> None:
        super().__init__(world, rng, proj, start_ms)
        self.sid = _uuid4(rng)
        self.ctx = _int(rng, 6000, 20_000)
        self.calls = 0
        self.emit({"type": "metadata", "protocol_version": _pick(rng, ("1.9", "1.10", "1.10"))})

    def rel_path(self) -> str:
        return f"kimi/sessions/{_md5(self.p.cwd)}/{self.sid}/wire.jsonl"

    def wire(self, kind: str, payload: _Json, frags: Sequence[str] = (), lo: int = 1, hi: int = 200) -> None:
        seconds = self.advance(lo, hi) / 1000  # Kimi writes time.time(), a float
        line = f'{{"timestamp":{seconds!r},"message":{{"type":"{kind}","payload":{_ENCODE(payload)}}}}}'
        self.lines.append(_splice(line, frags) if frags else line)

    def status(self) -> None:
        rng = self.rng
        self.ctx += _int(rng, 300, 6000)
        usage = {"input_other": _int(rng, 100, 3000), "output": _int(rng, 20, 1800),
                 "input_cache_read": self.ctx, "input_cache_creation": 0}
        self.wire("StatusUpdate", {"context_usage": round(self.ctx / 262_144, 4), "token_usage": usage,
                                   "message_id": "chatcmpl-" + _token(rng, 24)}, lo=0, hi=5)

    def arguments(self, c: _Call) -> _Json:
        path = c.file.path if c.file is not None else ""
        if c.kind == "read":
            return {"path": path, "line_offset": c.first + 1, "n_lines": max(1, c.last - c.first)}
        if c.kind == "search":
            return {"pattern": c.pattern, "path": ".", "output_mode": "content", "-n": True}
        if c.kind == "edit":
            return {"path": path, "edit": {"old": c.old, "new": c.new}}
        if c.kind == "write":
            return {"path": path, "content": c.new}
        if c.kind == "plan":
            return {"todos": [{"title": s, "status": "Pending"} for s in _todos(c)]}
        if c.kind == "web":
            return {"query": c.pattern}
        return {"command": c.cmd, "timeout": 60}

    def output(self, c: _Call) -> tuple[bool, str, str]:
        """(is_error, escaped output, message) of one call, as Kimi's tools return them."""
        if c.aborted:
            return True, "", "The tool call is rejected by the user. Stop and wait for further instructions."
        if c.kind == "shell":
            if c.exit_code:
                return True, c.esc, f"Command failed with exit code: {c.exit_code}."
            return False, c.esc, "Command executed successfully."
        if c.kind == "read":
            return False, _numbered(self.p, c, lambda n: f"{n:6d}\\t"), (
                f"{c.last - c.first} lines read from file starting from line {c.first + 1}.")
        if c.kind == "search":
            return False, c.esc, "" if c.lines else "No matches found."
        if c.kind == "edit" and c.exit_code:
            return True, "", "No replacements were made. The old string was not found in the file."
        messages = {"edit": "File successfully edited. Applied 1 edit(s) with 1 total replacement(s).",
                    "write": f"File successfully overwritten. Current size: {len(c.new.encode())} bytes.",
                    "plan": "Todo list updated", "web": ""}
        return False, c.esc if c.kind == "web" else "", messages[c.kind]

    def result(self, c: _Call) -> None:
        error, text, message = self.output(c)
        value = {"is_error": error, "output": _HOLES[0], "message": message, "display": [], "extras": None}
        self.wire("ToolResult", {"tool_call_id": c.call_id, "return_value": value}, [_q(text)], lo=1, hi=5)
        self.count += 1

    def render(self, turn: _Turn) -> None:
        rng = self.rng
        self.begin(turn)
        if turn.image:
            url = '"data:image/png;base64,' + self.b64(_int(rng, 4000, 40_000))[1:]
            prompt: Any = [{"type": "text", "text": _HOLES[0]}, {"type": "image_url", "image_url": {"url": _HOLES[1]}}]
            self.wire("TurnBegin", {"user_input": prompt}, [_JSON_STR(turn.prompt), url])
        else:
            self.wire("TurnBegin", {"user_input": _HOLES[0]}, [_JSON_STR(turn.prompt)])
        self.count += 1
        for n, step in enumerate(turn.steps, 1):
            self.t += step.latency_ms
            self.step(n, step)
        if turn.outcome == "aborted":
            if not turn.steps:
                self.wire("StepBegin", {"n": 1})
            self.wire("StepInterrupted", {}, lo=100, hi=3000)
        elif turn.final is not None:
            self.t += _int(rng, 1500, 30_000)
            self.wire("StepBegin", {"n": len(turn.steps) + 1})
            if turn.final_reasoning:
                self.wire("ContentPart", {"type": "think", "think": turn.final_reasoning, "encrypted": None})
            self.wire("ContentPart", {"type": "text", "text": turn.final})
            self.count += 1
            self.status()
            self.wire("TurnEnd", {}, lo=0, hi=5)

    def step(self, n: int, step: _Step) -> None:
        self.wire("StepBegin", {"n": n})
        if step.reasoning:
            self.wire("ContentPart", {"type": "think", "think": step.reasoning, "encrypted": None})
        if step.commentary:
            self.wire("ContentPart", {"type": "text", "text": step.commentary})
            self.count += 1
        for c in step.calls:
            c.call_id = f"{self._TOOLS[c.kind]}:{self.calls}"  # Kimi numbers the calls of a session
            self.calls += 1
            function = {"name": self._TOOLS[c.kind], "arguments": _ENCODE(self.arguments(c))}
            self.wire("ToolCall", {"type": "function", "id": c.call_id, "function": function, "extras": None})
        self.status()
        for c in step.calls:
            if not c.pending:
                self.t += c.duration_ms
                self.result(c)

    def compact(self) -> None:
        self.wire("CompactionBegin", {}, lo=100, hi=500)
        self.wire("CompactionEnd", {}, lo=2000, hi=20_000)
        self.ctx = _int(self.rng, 6000, 20_000)


def _md5(text: str) -> str:
    return hashlib.md5(text.encode("utf-8"), usedforsecurity=False).hexdigest()


class _Cursor(_Session):
    """Renders turns as a Cursor agent transcript (nested layout, ``<id>/<id>.jsonl``): one
    Anthropic-style message a line, ``{role, message: {content: [blocks]}}``, the typed prompt
    inside ``<user_query>``, results as ``tool_result`` blocks of a user line, ``turn_ended``
    lines.  No time, id, model or exit code is logged; the file's mtime is the last record's.
    Tool names follow the CLI's (Read, Grep, StrReplace, Write, Shell, TodoWrite, WebSearch)."""

    harness = "cursor"
    _TOOLS: ClassVar[dict[str, str]] = {"read": "Read", "search": "Grep", "edit": "StrReplace", "write": "Write",
                                        "shell": "Shell", "plan": "TodoWrite", "web": "WebSearch"}

    def __init__(self, world: _World, rng: random.Random, proj: _Project, start_ms: int) -> None:
        super().__init__(world, rng, proj, start_ms)
        self.sid = _uuid4(rng)
        self.shell = _pick(rng, ("zsh", "bash"))

    def rel_path(self) -> str:
        slug = _NOT_ALNUM_RUN.sub("-", self.p.cwd).strip("-")
        return f"cursor/projects/{slug}/agent-transcripts/{self.sid}/{self.sid}.jsonl"

    def message(self, role: str, blocks: list[_Json], frags: Sequence[str] = ()) -> None:
        self.emit({"role": role, "message": {"content": blocks}}, frags)

    def arguments(self, c: _Call) -> _Json:
        path = f"{self.p.cwd}/{c.file.path}" if c.file is not None else ""
        if c.kind == "read":
            return {"path": path, "offset": c.first + 1, "limit": max(1, c.last - c.first)}
        if c.kind == "search":
            return {"pattern": c.pattern, "path": self.p.cwd}
        if c.kind == "edit":
            return {"path": path, "old_string": c.old, "new_string": c.new}
        if c.kind == "write":
            return {"path": path, "contents": c.new}
        if c.kind == "plan":
            return {"todos": [{"id": str(k), "content": s, "status": "pending"} for k, s in enumerate(_todos(c), 1)],
                    "merge": False}
        if c.kind == "web":
            return {"search_term": c.pattern}
        return {"command": c.cmd, "is_background": False}

    def output(self, c: _Call) -> tuple[bool, str]:
        """(is_error, escaped text) of one result."""
        path = f"{self.p.cwd}/{c.file.path}" if c.file is not None else ""
        if c.aborted:
            return True, _e(_REJECTED)
        if c.kind == "read":
            return False, _numbered(self.p, c, lambda n: f"{n:>6}|")
        if c.kind == "edit":
            if c.exit_code:
                return True, _e(f"The string to replace was not found in {path}.")
            return False, _e(f"The file {path} has been updated.")
        texts = {"search": c.esc or _e("No matches found"), "write": _e(f"Wrote contents to {path}."),
                 "plan": _e("Successfully updated TODOs."), "web": c.esc, "shell": c.esc}
        return c.kind == "shell" and c.exit_code != 0, texts[c.kind]

    def render(self, turn: _Turn) -> None:
        rng = self.rng
        self.begin(turn)
        context = ""
        if self.turns == 1:  # the first prompt carries what Cursor tells the model about the machine
            context = (f"<user_info>\nOS Version: linux 6.8.0\nShell: {self.shell}\nWorkspace Path: {self.p.cwd}\n"
                       "</user_info>\n\n")
        text = _JSON_STR(f"{context}<user_query>\n{turn.prompt}\n</user_query>")
        self.message("user", [{"type": "text", "text": _HOLES[0]}], [text])
        self.count += 1
        for step in turn.steps:
            self.t += step.latency_ms
            blocks: list[_Json] = []
            if step.commentary:
                blocks.append({"type": "text", "text": step.commentary})
                self.count += 1
            for c in step.calls:
                c.call_id = "toolu_" + _token(rng, 24)
                blocks.append({"type": "tool_use", "id": c.call_id, "name": self._TOOLS[c.kind],
                               "input": self.arguments(c)})
            self.message("assistant", blocks)
            self.results([c for c in step.calls if not c.pending])
        if turn.outcome == "aborted":
            self.emit({"type": "turn_ended", "status": "cancelled"})
        elif turn.final is not None:
            self.advance(1500, 30_000)
            self.message("assistant", [{"type": "text", "text": turn.final}])
            self.count += 1
            self.emit({"type": "turn_ended", "status": "completed"})

    def results(self, calls: list[_Call]) -> None:
        if not calls:
            return
        blocks: list[_Json] = []
        frags: list[str] = []
        for c in calls:
            self.t += c.duration_ms
            error, text = self.output(c)
            blocks.append({"type": "tool_result", "tool_use_id": c.call_id,
                           "content": [{"type": "text", "text": _HOLES[len(frags)]}], "is_error": error})
            frags.append(_q(text))
        self.message("user", blocks, frags)
        self.count += len(calls)

    def compact(self) -> None:
        """Cursor logs no trace of its context summarization in the transcript."""


class _Copilot(_Session):
    """Renders turns as a GitHub Copilot CLI ``session-state/<id>/events.jsonl``: events
    ``{type, id, timestamp, parentId, data}`` chained by ``parentId`` (the SDK's schema):
    ``user.message``, ``assistant.turn_start``/``turn_end`` around each model call,
    ``assistant.message`` with ``toolRequests``, ``tool.execution_start``/``complete`` (shell
    exit codes in ``contents[].exitCode``), ``abort``; autopilot sessions end a turn with
    ``session.task_complete``, every process with ``session.shutdown``."""

    harness = "copilot-cli"
    _TOOLS: ClassVar[dict[str, str]] = {"read": "view", "search": "grep", "edit": "edit", "write": "create",
                                        "shell": "bash", "plan": "update_todo", "web": "web_search"}

    def __init__(self, world: _World, rng: random.Random, proj: _Project, start_ms: int) -> None:
        super().__init__(world, rng, proj, start_ms)
        self.sid = _uuid4(rng)
        self.model = _pick(rng, ("claude-sonnet-4.5", "claude-sonnet-4.5", "gpt-5", "gpt-5.1-codex",
                                 "claude-haiku-4.5"))
        self.mode = "autopilot" if rng.random() < 0.15 else "interactive"
        self.parent: str | None = None
        self.outcome = ""
        repo = proj.repo_url.split(":", 1)[1].removesuffix(".git")
        context = {"cwd": proj.cwd, "gitRoot": proj.cwd, "branch": proj.branch, "repository": repo,
                   "headCommit": f"{rng.getrandbits(160):040x}"}
        ts = _ts(start_ms)
        self.event("session.start", {"sessionId": self.sid, "version": 1, "producer": "copilot-agent",
                                     "copilotVersion": _pick(rng, ("0.0.354", "1.0.12", "1.0.40", "1.0.78")),
                                     "startTime": ts, "selectedModel": self.model, "context": context}, ts=ts)

    def rel_path(self) -> str:
        return f"copilot/session-state/{self.sid}/events.jsonl"

    def event(self, kind: str, data: _Json, frags: Sequence[str] = (), ts: str | None = None) -> None:
        eid = _uuid4(self.rng)
        parent = f'"{self.parent}"' if self.parent else "null"
        line = (f'{{"type":"{kind}","id":"{eid}","timestamp":"{ts or self.tick(1, 200)}","parentId":{parent},'
                f'"data":{_ENCODE(data)}}}')
        self.lines.append(_splice(line, frags) if frags else line)
        self.parent = eid

    def arguments(self, c: _Call) -> _Json:
        path = f"{self.p.cwd}/{c.file.path}" if c.file is not None else ""
        if c.kind == "read":
            return {"path": path, "view_range": [c.first + 1, max(c.first + 1, c.last)]}
        if c.kind == "search":
            return {"pattern": c.pattern, "path": self.p.cwd, "output_mode": "content", "-n": True}
        if c.kind == "edit":
            return {"path": path, "old_str": c.old, "new_str": c.new}
        if c.kind == "write":
            return {"path": path, "file_text": c.new}
        if c.kind == "plan":
            return {"todos": "\n".join(f"- [ ] {s}" for s in _todos(c))}
        if c.kind == "web":
            return {"query": c.pattern}
        return {"command": c.cmd, "description": f"Run {c.cmd.split(' ')[0]}", "mode": "sync"}

    def complete(self, c: _Call) -> None:
        """``tool.execution_complete``: ``result`` on success, ``error`` otherwise."""
        path = f"{self.p.cwd}/{c.file.path}" if c.file is not None else ""
        data: _Json = {"toolCallId": c.call_id, "success": True}
        frags: list[str] = []
        if c.aborted:
            data.update(success=False, error={"message": _REJECTED, "code": "rejected"})
        elif c.kind == "edit" and c.exit_code:
            data.update(success=False, error={"message": f"No match found for old_str in {path}", "code": "failure"})
        elif c.kind == "shell":  # the terminal's text, and its exit code
            frags = [_q(c.esc + _e(f"\n<exited with exit code {c.exit_code}>"))]
            data["result"] = {"content": _HOLES[0], "contents": [{"type": "terminal", "text": _HOLES[0],
                                                                  "exitCode": c.exit_code, "cwd": self.p.cwd}]}
        else:
            frags = [_q(self.result_text(c, path))]
            data["result"] = {"content": _HOLES[0]}
        data["toolTelemetry"] = {}
        self.event("tool.execution_complete", data, frags)
        self.count += 1

    def result_text(self, c: _Call, path: str) -> str:
        """The escaped result of a successful call other than a shell command."""
        if c.kind == "read":
            return _numbered(self.p, c, lambda n: f"{n}. ")
        if c.kind == "search":
            return c.esc or _e("No matches found.")
        if c.kind == "edit":
            return _e(f"File {path} updated with changes.")
        if c.kind == "write":
            return _e(f"Created file {path} with {len(c.new)} characters")
        if c.kind == "plan":
            return _e("TODO list updated")
        return c.esc

    def render(self, turn: _Turn) -> None:
        rng = self.rng
        self.begin(turn)
        self.outcome = turn.outcome
        interaction = _uuid4(rng)
        ts = self.tick(1, 20)
        wrapped = _q(_e(f"<current_datetime>{ts}</current_datetime>\n\n") + _JSON_STR(turn.prompt)[1:-1])
        self.event("user.message", {"content": _HOLES[0], "transformedContent": _HOLES[1], "attachments": [],
                                    "agentMode": self.mode, "interactionId": interaction},
                   [_JSON_STR(turn.prompt), wrapped], ts=ts)
        self.count += 1
        for k, step in enumerate(turn.steps):
            self.t += step.latency_ms
            self.model_call(str(k), interaction, step.reasoning, step.commentary or "", step.calls)
            for c in step.calls:
                if not c.pending:
                    self.t += c.duration_ms
                    self.complete(c)
            if not any(c.pending for c in step.calls):
                self.event("assistant.turn_end", {"turnId": str(k)}, ts=self.tick(1, 10))
        if turn.outcome == "aborted":
            self.event("abort", {"reason": "user_initiated"}, ts=self.tick(100, 3000))
        elif turn.final is not None:
            self.t += _int(rng, 1500, 30_000)
            k = str(len(turn.steps))
            self.model_call(k, interaction, turn.final_reasoning, turn.final, [])
            self.event("assistant.turn_end", {"turnId": k}, ts=self.tick(1, 10))
            if self.mode == "autopilot":
                summary = turn.final.split("\n", 1)[0][:120]
                self.event("session.task_complete", {"summary": summary, "success": True, "outcome": "completed"})

    def model_call(self, turn_id: str, interaction: str, reasoning: str, text: str, calls: list[_Call]) -> None:
        """One model round: its bounds, its reasoning, the message with its tool requests."""
        rng = self.rng
        self.event("assistant.turn_start", {"turnId": turn_id, "interactionId": interaction})
        if reasoning:
            self.event("assistant.reasoning", {"reasoningId": _uuid4(rng), "content": reasoning})
        requests = []
        for c in calls:
            c.call_id = "toolu_" + _token(rng, 24)
            requests.append({"toolCallId": c.call_id, "name": self._TOOLS[c.kind], "arguments": self.arguments(c),
                             "type": "function"})
        self.event("assistant.message", {"messageId": _uuid4(rng), "content": text, "toolRequests": requests,
                                         "interactionId": interaction, "outputTokens": _int(rng, 20, 1800)},
                   ts=self.tick(20, 400))
        if text:
            self.count += 1
        for c, request in zip(calls, requests, strict=True):
            self.event("tool.execution_start", {"toolCallId": c.call_id, "toolName": request["name"],
                                                "arguments": request["arguments"]}, ts=self.tick(1, 20))

    def compact(self) -> None:
        rng = self.rng
        summary = "\n".join(f"- {x}" for x in rng.choices(self.p.asent, k=_int(rng, 4, 12)))
        before = _int(rng, 80_000, 190_000)
        self.event("session.compaction_start", {}, ts=self.tick(100, 500))
        self.event("session.compaction_complete", {"success": True, "summaryContent": summary, "trigger": "threshold",
                                                   "preCompactionTokens": before, "postCompactionTokens": before // 6},
                   ts=self.tick(2000, 20_000))

    def finish(self) -> None:
        if self.outcome != "incomplete":  # a session still running when the corpus was taken has no end
            self.event("session.shutdown", {"shutdownType": "routine", "currentModel": self.model,
                                            "totalPremiumRequests": _int(self.rng, 1, 40)}, ts=self.tick(500, 60_000))


class _Gemini(_Session):
    """Renders turns as a Gemini CLI chat (JSONL, v0.39+): a header (``sessionId``,
    ``projectHash``, ``startTime``, ``kind``), message records ``{id, timestamp, type, content}``
    appended again when they change (a ``gemini`` message first with its text and thoughts, again
    with ``tokens`` and its ``toolCalls`` and their results), ``$set`` lines (``lastUpdated``, the
    ``summary`` title, the history after a compression) and ``info`` records of a cancelled
    request.  v0.44+ builds also record tool responses as synthetic user messages.  The project
    folder is the cwd's slug; ``.project_root`` (written once for the corpus) names the cwd."""

    harness = "gemini-cli"
    _TOOLS: ClassVar[dict[str, str]] = {"read": "read_file", "search": "search_file_content", "edit": "replace",
                                        "write": "write_file", "shell": "run_shell_command", "plan": "write_todos",
                                        "web": "google_web_search"}

    def __init__(self, world: _World, rng: random.Random, proj: _Project, start_ms: int) -> None:
        super().__init__(world, rng, proj, start_ms)
        self.sid = _uuid4(rng)
        self.model = _pick(rng, ("gemini-2.5-pro", "gemini-2.5-pro", "gemini-2.5-flash", "gemini-3-pro-preview"))
        self.synthetic = rng.random() < 0.5  # v0.44+: tool responses also written as a user message
        self.titled = False
        ts = _ts(start_ms)
        digest = hashlib.sha256(proj.cwd.encode("utf-8")).hexdigest()
        self.emit({"sessionId": self.sid, "projectHash": digest, "startTime": ts, "lastUpdated": ts, "kind": "main"})
        if self.synthetic:
            context = (f"<session_context>\nThis is the Gemini CLI. We are setting up the context for our chat.\n"
                       f"Today's date is {datetime.fromtimestamp(start_ms / 1000, UTC):%A, %B %d, %Y}.\n"
                       f"My operating system is: linux\nI'm currently working in the directory: {proj.cwd}\n"
                       "</session_context>")
            self.message("user", ts, [{"text": context}])

    def rel_path(self) -> str:
        stamp = _ts(self.start)[:16].replace(":", "-")
        return f"gemini/.gemini/tmp/{_gemini_slug(self.p.cwd)}/chats/session-{stamp}-{self.sid[:8]}.jsonl"

    def message(self, kind: str, ts: str, content: Any, frags: Sequence[str] = (), mid: str = "", **extra: Any) -> str:
        mid = mid or _uuid4(self.rng)
        self.emit({"id": mid, "timestamp": ts, "type": kind, "content": content, **extra}, frags)
        return mid

    def updated(self) -> None:
        self.emit({"$set": {"lastUpdated": _ts(self.t)}})

    def thoughts(self, reasoning: str, ts: str) -> list[_Json]:
        if not reasoning:
            return []
        subject, description = _thought(reasoning)
        return [{"subject": subject, "description": description, "timestamp": ts}]

    def tokens(self) -> _Json:
        rng = self.rng
        prompt, out = _int(rng, 8000, 120_000), _int(rng, 20, 1800)
        return {"input": prompt, "output": out, "cached": prompt // 2, "thoughts": _int(rng, 0, 800), "tool": 0,
                "total": prompt + out}

    def gemini(self, text: str, reasoning: str, calls: list[_Call]) -> None:
        """A model message: written once with its text and thoughts, again with its tokens and
        tool calls (results included) once they ran, as the CLI appends a changed message."""
        ts = self.tick(20, 400)
        thoughts = self.thoughts(reasoning, ts)
        mid = self.message("gemini", ts, text, thoughts=thoughts, model=self.model)
        for c in calls:
            c.call_id = f"{self._TOOLS[c.kind]}-{self.t}-{_token(self.rng, 12)}"
        records: list[_Json] = []
        frags: list[str] = []
        for c in calls:
            if not c.pending:
                self.t += c.duration_ms
            records.append(self.tool_call(c, frags))
        extra: _Json = {"thoughts": thoughts, "tokens": self.tokens(), "model": self.model}
        if records:
            extra["toolCalls"] = records
        self.message("gemini", ts, text, frags, mid=mid, **extra)
        if self.synthetic and frags:
            parts = [r["result"][0] for r in records if "result" in r]
            self.message("user", self.tick(1, 10), parts, frags)

    def tool_call(self, c: _Call, frags: list[str]) -> _Json:
        """One ``toolCalls`` entry; its output goes to ``frags`` (the hole it names)."""
        record: _Json = {"id": c.call_id, "name": self._TOOLS[c.kind], "args": self.arguments(c)}
        if c.pending:
            return {**record, "status": "executing", "timestamp": _ts(self.t)}
        status, key, text = self.output(c)
        response = {"functionResponse": {"id": c.call_id, "name": record["name"],
                                         "response": {key: _HOLES[len(frags)]}}}
        frags.append(_q(text))
        self.count += 1
        return {**record, "result": [response], "status": status, "timestamp": _ts(self.t),
                "displayName": record["name"], "renderOutputAsMarkdown": c.kind not in ("shell", "read")}

    def arguments(self, c: _Call) -> _Json:
        path = f"{self.p.cwd}/{c.file.path}" if c.file is not None else ""
        if c.kind == "read":
            return {"absolute_path": path, "offset": c.first, "limit": max(1, c.last - c.first)}
        if c.kind == "search":
            return {"pattern": c.pattern}
        if c.kind == "edit":
            return {"file_path": path, "old_string": c.old, "new_string": c.new}
        if c.kind == "write":
            return {"file_path": path, "content": c.new}
        if c.kind == "plan":
            return {"todos": [{"description": s, "status": "pending"} for s in _todos(c)]}
        if c.kind == "web":
            return {"query": c.pattern}
        return {"command": c.cmd, "description": f"Run {c.cmd.split(' ')[0]}"}

    def output(self, c: _Call) -> tuple[str, str, str]:
        """(status, response key, escaped text) of one finished call."""
        path = f"{self.p.cwd}/{c.file.path}" if c.file is not None else ""
        if c.aborted:
            return "cancelled", "error", _e(_CANCELLED)
        if c.kind == "shell":
            code = f"\nExit Code: {c.exit_code}" if c.exit_code else ""  # printed only when non-zero
            pgid = _int(self.rng, 1000, 99_999)
            text = _e("Output: ") + (c.esc or "(empty)") + _e(f"{code}\nProcess Group PGID: {pgid}")
            return "success", "output", text
        if c.kind == "edit" and c.exit_code:
            return "error", "error", _e(f"Failed to edit, 0 occurrences found for old_string in {path}. No edits "
                                        "made. The exact text in old_string was not found.")
        texts = {"read": c.esc, "web": c.esc,
                 "search": c.esc or _e(f'No matches found for pattern "{c.pattern}" in path ".".'),
                 "edit": _e(f"Successfully modified file: {path} (1 replacements)."),
                 "write": _e(f"Successfully created and wrote to new file: {path}."),
                 "plan": _e("Successfully updated the todo list.")}
        return "success", "output", texts[c.kind]

    def render(self, turn: _Turn) -> None:
        rng = self.rng
        self.begin(turn)
        parts: list[_Json] = [{"text": _HOLES[0]}]
        frags = [_JSON_STR(turn.prompt)]
        if turn.image:
            parts.append({"inlineData": {"mimeType": "image/png", "data": _HOLES[1]}})
            frags.append(self.b64(_int(rng, 4000, 40_000)))
        self.message("user", self.tick(1, 20), parts, frags)
        self.count += 1
        self.updated()
        for step in turn.steps:
            self.t += step.latency_ms
            if step.commentary:
                self.count += 1
            self.gemini(step.commentary or "", step.reasoning, step.calls)
        if turn.outcome == "aborted":
            self.message("info", self.tick(100, 3000), "Request cancelled.")
        elif turn.final is not None:
            self.t += _int(rng, 1500, 30_000)
            self.gemini(turn.final, turn.final_reasoning, [])
            self.count += 1
            self.updated()
            if not self.titled:
                self.titled = True
                self.emit({"$set": {"summary": _auto_title(turn.prompt)}})

    def compact(self) -> None:
        """``/compress``: a checkpoint that replaces the history by a summary and its reply."""
        rng = self.rng
        snapshot = "<state_snapshot>\n" + "\n".join(f"- {x}" for x in rng.choices(self.p.asent, k=_int(rng, 4, 12)))
        ts = self.tick(2000, 20_000)
        history = [{"id": _uuid4(rng), "timestamp": ts, "type": "user",
                    "content": [{"text": snapshot + "\n</state_snapshot>"}]},
                   {"id": _uuid4(rng), "timestamp": ts, "type": "gemini",
                    "content": "Got it. Thanks for the additional context!", "model": self.model}]
        self.emit({"$set": {"messages": history, "lastUpdated": ts}})


def _gemini_slug(cwd: str) -> str:
    """The project folder Gemini CLI v0.29+ gives a cwd: a slug of its base name."""
    return _NOT_ALNUM_RUN.sub("-", cwd.rstrip("/").rsplit("/", 1)[-1].lower()).strip("-") or "project"


class _GeminiJson(_Gemini):
    """Renders turns as a legacy Gemini CLI chat (v0.4 to v0.38): one ``session-*.json``
    document, the whole ``ConversationRecord`` (``sessionId``, ``projectHash``, ``startTime``,
    ``lastUpdated``, ``messages``, ``summary`` once generated) rewritten in place, pretty-printed
    with 2-space indents; written here as the CLI left it at the session's last update.  The
    message records are the JSONL form's, each once in its final state (no v0.44+ synthetic
    tool-response user copies).  Releases before v0.29 kept chats in a folder named by the
    project hash, with no ``.project_root`` (their cwd is unknown); later ones in the slug folder.
    ``/compress`` left no trace in the document (none is written)."""

    harness = "gemini-cli-json"

    def __init__(self, world: _World, rng: random.Random, proj: _Project, start_ms: int) -> None:
        self.header: _Json = {}
        self.messages: dict[str, tuple[_Json, Sequence[str]]] = {}  # by id: a rewrite keeps its place
        super().__init__(world, rng, proj, start_ms)
        self.synthetic = False  # the synthetic tool-response user messages are v0.44+
        self.hashed = rng.random() < 0.3  # a v0.4-v0.28 chat: the project-hash folder

    def rel_path(self) -> str:
        folder = self.header["projectHash"] if self.hashed else _gemini_slug(self.p.cwd)
        stamp = _ts(self.start)[:16].replace(":", "-")
        return f"gemini/.gemini/tmp/{folder}/chats/session-{stamp}-{self.sid[:8]}.json"

    def emit(self, obj: _Json, frags: Sequence[str] = ()) -> None:
        """Apply a JSONL record to the document: a message replaces its copy, ``$set`` patches
        the header."""
        if "$set" in obj:
            self.header.update({k: v for k, v in obj["$set"].items() if k != "messages"})
        elif "id" in obj:
            self.messages[obj["id"]] = (obj, tuple(frags))
        else:
            self.header = {k: v for k, v in obj.items() if k != "kind"}  # `kind` is later than these builds

    def compact(self) -> None:
        """Not recorded in a legacy document (see the class docstring)."""

    def file_bytes(self) -> bytes:
        """``JSON.stringify(record, null, 2)``: ``messages`` after the first four keys, a
        ``summary`` set later after them, no final newline."""
        head = {k: v for k, v in self.header.items() if k != "summary"}
        items = []
        for obj, frags in self.messages.values():
            text = "    " + json.dumps(obj, ensure_ascii=False, indent=2).replace("\n", "\n    ")
            items.append(_splice(text, frags) if frags else text)
        doc = json.dumps(head, ensure_ascii=False, indent=2)[:-2]  # without the closing "\n}"
        doc += ',\n  "messages": ' + ("[\n" + ",\n".join(items) + "\n  ]" if items else "[]")
        if self.header.get("summary"):
            doc += ',\n  "summary": ' + _JSON_STR(self.header["summary"])
        return (doc + "\n}").encode("utf-8")

    def record_count(self) -> int:
        return 1 + len(self.messages)


_OPENCODE_MODELS = (("anthropic", "claude-sonnet-4-5"), ("anthropic", "claude-sonnet-4-5"),
                    ("anthropic", "claude-opus-4-5"), ("openai", "gpt-5.1-codex"), ("google", "gemini-2.5-pro"),
                    ("opencode", "big-pickle"))
_OPENCODE_VERSIONS = ("1.2.25", "1.3.0", "1.14.29", "1.18.3")
_OPENCODE_SLUG = (_words("brave calm clever cosmic crisp curious eager gentle happy lucky misty quiet swift tidy"),
                  _words("cabin comet falcon harbor lagoon nebula otter river canyon forest meadow orchid"))
_OPENCODE_ABORTED = {"name": "MessageAbortedError", "data": {"message": "The operation was aborted."}}
_OPENCODE_TODO_PRIORITY = ("high", "medium", "medium", "low")
_OPENCODE_META_MAX = 30_000  # the bash tool's MAX_METADATA_LENGTH: metadata.output is cut there
_OPENCODE_DB = "opencode/opencode.db"


class _OpenCode(_Session):
    """Renders turns as OpenCode v1.x keeps them in its SQLite store (``opencode.db``; the
    adapter src/moraine/sources/opencode.py, docs/harnesses/opencode.md): a ``session``
    row (``directory`` = the cwd, a generated title), a ``message`` row per user prompt and per
    LLM step (``data`` = the message minus its ids), a ``part`` row per text / reasoning / tool /
    step-start / step-finish / file / compaction part.  Ids ``ses_`` (descending, as OpenCode's
    session ids are), ``msg_`` and ``prt_`` (ascending) are ``<prefix>_<12 hex of ms*0x1000+n>
    <14 base62>``.  An assistant message ends with ``finish`` ``tool-calls`` (another follows)
    or ``stop``; an aborted one has ``error`` ``MessageAbortedError`` and its unfinished tool part
    ``status: error`` "Tool execution aborted"; a session still running has a tool part
    ``running`` and a message never completed.  ``/compact`` is a user message with one
    ``compaction`` part and a ``summary`` assistant message.  The rows go to the corpus's one
    database, written by the parent process (``_OpenCodeDb``), not to a file of the session's.
    Not written: child sessions (the ``task`` tool), synthetic / ``@file`` parts, the legacy JSON
    tree, ``session_message`` rows (the v2 projection, empty in the databases v1.x leaves)."""

    harness = "opencode"
    _TOOLS: ClassVar[dict[str, str]] = {"read": "read", "search": "grep", "edit": "edit", "write": "write",
                                        "shell": "bash", "plan": "todowrite", "web": "websearch"}

    def __init__(self, world: _World, rng: random.Random, proj: _Project, start_ms: int) -> None:
        super().__init__(world, rng, proj, start_ms)
        self.ms = self.seq = 0
        self.sid = self.ident("ses", start_ms, descending=True)
        self.provider, self.model = _pick(rng, _OPENCODE_MODELS)
        self.version = _pick(rng, _OPENCODE_VERSIONS)
        self.v18 = self.version == "1.18.3"  # the shell tool's v1.18 input / title / metadata
        self.slug = f"{_pick(rng, _OPENCODE_SLUG[0])}-{_pick(rng, _OPENCODE_SLUG[1])}"
        self.placeholder = rng.random() < 0.03  # title generation never ran: `New session - <time>` stays
        self.title = ""
        self.project = hashlib.sha1(proj.repo_url.encode("utf-8")).hexdigest()  # stands for the root commit
        self.messages: list[tuple[Any, ...]] = []
        self.parts: list[tuple[Any, ...]] = []
        self.user_id = ""
        self.cost = 0.0
        self.usage = [0, 0, 0, 0, 0]  # input, output, reasoning, cache read, cache write

    def rel_path(self) -> str:
        return _OPENCODE_DB

    def ident(self, prefix: str, ms: int, descending: bool = False) -> str:
        """OpenCode's ``Identifier.create``; the per-millisecond counter keeps ids ascending."""
        if ms != self.ms:
            self.ms, self.seq = ms, 0
        self.seq += 1
        value = ms * 0x1000 + self.seq
        if descending:
            value = ~value
        return f"{prefix}_{value & 0xFFFF_FFFF_FFFF:012x}{_token(self.rng, 14)}"

    def part(self, mid: str, start: int, end: int, body: _Json, frags: Sequence[str] = ()) -> None:
        """One part row; ``start`` never before the previous part's (ids ascend with time)."""
        data = _splice(_ENCODE(body), frags) if frags else _ENCODE(body)
        self.parts.append((self.ident("prt", start), mid, self.sid, start, end, data))

    def user(self, created: int) -> str:
        mid = self.user_id = self.ident("msg", created)
        return mid

    def user_row(self, mid: str, created: int) -> None:
        data = {"role": "user", "time": {"created": created}, "agent": "build",
                "model": {"providerID": self.provider, "modelID": self.model}}
        self.messages.append((mid, self.sid, created, created, _ENCODE(data)))

    def step_start(self, mid: str) -> None:
        t = self.advance(300, 2500)  # the first streamed chunk
        self.part(mid, t, t, {"type": "step-start", "snapshot": f"{self.rng.getrandbits(160):040x}"})

    def say(self, mid: str, kind: str, text: str) -> None:
        start = self.advance(1, 60)
        end = self.advance(200, 4000)
        self.part(mid, start, end, {"type": kind, "text": _HOLES[0], "time": {"start": start, "end": end}},
                  [_JSON_STR(text)])

    def assistant(self, created: int, mid: str, finish: str | None, *, aborted: bool = False,
                  completed: bool = True, summary: bool = False) -> None:
        """The message row of one LLM step, once its parts are written (its tokens, its end)."""
        rng = self.rng
        prompt, out, think = _int(rng, 8000, 120_000), _int(rng, 20, 1800), _int(rng, 0, 600)
        read = prompt - _int(rng, 100, 4000)
        cost = round((prompt - read) * 3e-6 + read * 3e-7 + (out + think) * 1.5e-5, 6)
        tokens = {"input": prompt - read, "output": out, "reasoning": think, "cache": {"read": read, "write": 0}}
        if finish is not None and not aborted:
            end = self.advance(5, 200)
            self.part(mid, end, end, {"type": "step-finish", "reason": finish,
                                      "snapshot": f"{rng.getrandbits(160):040x}", "cost": cost, "tokens": tokens})
        self.cost += cost
        for k, n in enumerate((prompt - read, out, think, read, 0)):
            self.usage[k] += n
        times: _Json = {"created": created}
        if completed:
            times["completed"] = self.advance(5, 200)
        data: _Json = {"role": "assistant", "time": times}
        if aborted:
            data["error"] = _OPENCODE_ABORTED
        agent = "compaction" if summary else "build"
        data.update({"parentID": self.user_id, "modelID": self.model, "providerID": self.provider, "mode": agent,
                     "agent": agent, "path": {"cwd": self.p.cwd, "root": self.p.cwd}})
        if summary:
            data["summary"] = True
        data.update({"cost": cost, "tokens": tokens})
        if finish is not None and not aborted:
            data["finish"] = finish
        self.messages.append((mid, self.sid, created, self.t, _ENCODE(data)))

    def render(self, turn: _Turn) -> None:
        rng = self.rng
        self.begin(turn)
        created = self.advance(1, 20)
        mid = self.user(created)
        if not self.title:
            self.title = f"New session - {_ts(self.start)}" if self.placeholder else _auto_title(turn.prompt)
        self.part(mid, created, created, {"type": "text", "text": _HOLES[0]}, [_JSON_STR(turn.prompt)])
        self.count += 1
        if turn.image:  # a pasted image: a file part holding it as a data: URL
            self.part(mid, created, created, {"type": "file", "mime": "image/png", "filename": "image.png",
                                              "url": _HOLES[0]},
                      ['"data:image/png;base64,' + self.b64(_int(rng, 4000, 40_000))[1:]])
        self.user_row(mid, created)
        for step in turn.steps:
            self.t += step.latency_ms
            self.step(step)
        if turn.outcome == "aborted" and not turn.steps:  # stopped before the model answered
            created = self.advance(20, 400)
            amid = self.ident("msg", created)
            self.step_start(amid)
            self.assistant(created, amid, None, aborted=True)
        elif turn.final is not None:
            self.t += _int(rng, 1500, 30_000)
            created = self.advance(20, 400)
            amid = self.ident("msg", created)
            self.step_start(amid)
            if turn.final_reasoning:
                self.say(amid, "reasoning", turn.final_reasoning)
            self.say(amid, "text", turn.final)
            self.count += 1
            self.assistant(created, amid, "stop")

    def step(self, step: _Step) -> None:
        """One model round: an assistant message with its reasoning, text and tool parts."""
        created = self.advance(20, 400)
        mid = self.ident("msg", created)
        self.step_start(mid)
        if step.reasoning:
            self.say(mid, "reasoning", step.reasoning)
        if step.commentary:
            self.say(mid, "text", step.commentary)
            self.count += 1
        for c in step.calls:
            self.tool(mid, c)
        last = step.calls[-1] if step.calls else None
        aborted = last is not None and last.aborted
        pending = last is not None and last.pending
        self.assistant(created, mid, None if pending else "tool-calls", aborted=aborted, completed=not pending)

    def tool(self, mid: str, c: _Call) -> None:
        rng = self.rng
        c.call_id = ("toolu_01" + _token(rng, 22)) if self.provider == "anthropic" else "call_" + _token(rng, 24)
        start = self.advance(5, 80)
        name = self._TOOLS[c.kind]
        args, title = self.arguments(c)
        body: _Json = {"type": "tool", "callID": c.call_id, "tool": name}
        if c.pending:  # the session ends while it runs: no output
            body["state"] = {"status": "running", "input": args, "title": title, "metadata": {},
                             "time": {"start": start}}
            self.part(mid, start, start, body)
            return
        end = self.t = start + c.duration_ms
        self.count += 1
        error = "Tool execution aborted" if c.aborted else (
            "oldString not found in content" if c.kind == "edit" and c.exit_code else "")
        if error:
            body["state"] = {"status": "error", "input": args, "error": error, "metadata": {},
                             "time": {"start": start, "end": end}}
            self.part(mid, start, end, body)
            return
        text, metadata = self.output(c, title)
        body["state"] = {"status": "completed", "input": args, "output": _HOLES[0], "title": title,
                         "metadata": metadata, "time": {"start": start, "end": end}}
        short = text if len(text) <= _OPENCODE_META_MAX else _e(json.loads(_q(text))[:_OPENCODE_META_MAX])
        self.part(mid, start, end, body, [_q(text), _q(short)])  # bash repeats its output (cut) in the metadata

    def arguments(self, c: _Call) -> tuple[_Json, str]:
        """(input, state title) of one call."""
        path = f"{self.p.cwd}/{c.file.path}" if c.file is not None else ""
        rel = c.file.path if c.file is not None else ""
        if c.kind == "read":
            return {"filePath": path, "offset": c.first, "limit": max(1, c.last - c.first)}, rel
        if c.kind == "search":
            return {"pattern": c.pattern, "path": self.p.cwd}, c.pattern
        if c.kind == "edit":
            return {"filePath": path, "oldString": c.old, "newString": c.new}, rel
        if c.kind == "write":
            return {"filePath": path, "content": c.new}, rel
        if c.kind == "plan":
            todos = [{"content": s, "status": "pending", "priority": _OPENCODE_TODO_PRIORITY[k % 4], "id": str(k)}
                     for k, s in enumerate(_todos(c), 1)]
            return {"todos": todos}, f"{len(todos)} todos"
        if c.kind == "web":
            return {"query": c.pattern}, f"Web search: {c.pattern}"
        if self.v18:
            return {"command": c.cmd}, c.cmd
        description = f"Run {c.cmd.split(' ')[0]}"
        return {"command": c.cmd, "description": description}, description

    def output(self, c: _Call, title: str) -> tuple[str, _Json]:
        """(escaped output, state metadata) of a completed call; a hole in the metadata is the
        output again."""
        path = f"{self.p.cwd}/{c.file.path}" if c.file is not None else ""
        if c.kind == "shell":
            meta: _Json = {"output": _HOLES[1], "exit": c.exit_code}
            meta.update({"truncated": False} if self.v18 else {"description": title})
            return c.esc, meta
        if c.kind == "read":
            assert c.file is not None
            body = _numbered(self.p, c, lambda n: f"{n:05d}| ")
            more = (f"(File has more lines. Use 'offset' parameter to read beyond line {c.last})"
                    if c.last < c.file.lines else f"(End of file - total {c.file.lines} lines)")
            return _e("<file>\n") + body + _e(f"\n\n{more}\n</file>"), {"truncated": c.last < c.file.lines}
        if c.kind == "search":
            if not c.lines:
                return _e("No files found"), {"matches": 0, "truncated": False}
            return _e(f"Found {len(c.lines)} matches\n") + c.esc, {"matches": len(c.lines), "truncated": False}
        if c.kind == "edit":
            return _e("Edit applied successfully."), {"diagnostics": {}}
        if c.kind == "write":
            return _e("Wrote file successfully."), {"diagnostics": {}, "filepath": path, "exists": False}
        if c.kind == "plan":
            todos = self.arguments(c)[0]["todos"]
            return _e(json.dumps(todos, indent=2, ensure_ascii=False)), {"todos": todos}
        return c.esc, {}

    def compact(self) -> None:
        """``/compact``: a user message whose one part is a compaction, then the summary."""
        rng = self.rng
        created = self.advance(2000, 20_000)
        mid = self.user(created)
        self.part(mid, created, created, {"type": "compaction", "auto": False})
        self.user_row(mid, created)
        created = self.advance(20, 400)
        amid = self.ident("msg", created)
        self.step_start(amid)
        summary = "## Conversation summary\n\n" + "\n".join(f"- {x}" for x in rng.choices(self.p.asent,
                                                                                          k=_int(rng, 4, 12)))
        self.say(amid, "text", summary)
        self.assistant(created, amid, "stop", summary=True)

    def record_count(self) -> int:
        return 1 + len(self.messages) + len(self.parts)

    def db_rows(self) -> _DbRows:
        cwd, created, updated = self.p.cwd, self.start, self.t
        project = (self.project, cwd, "git", created, updated, "[]")
        add, dele = (_int(self.rng, 0, 400), _int(self.rng, 0, 120)) if self.turns else (None, None)
        files = _int(self.rng, 1, 12) if self.turns else None
        title = self.title or f"New session - {_ts(self.start)}"
        agent, model = ("build", _ENCODE({"id": self.model, "providerID": self.provider})) if self.v18 else (None, None)
        session = (self.sid, self.project, None, self.slug, cwd, None, title, self.version, add, dele, files,
                   round(self.cost, 6), *self.usage, agent, model, created, updated)
        return project, session, self.messages, self.parts


@dataclass(frozen=True, slots=True)
class Harness:
    """A harness a corpus can hold: its key in the summary's ``by_harness`` (what
    ``--harness-mix`` takes, as well as the source name of the first harness of that source),
    Moraine's source name, its folder under the corpus (``""``: the corpus itself), the variable
    that points Moraine at that folder, and the tree of logs inside it.  Gemini CLI's two forms
    are two harnesses of one source, in one folder."""

    key: str
    source: str
    folder: str
    env: str
    logs: str
    renderer: type[_Session]


HARNESSES: tuple[Harness, ...] = (
    Harness("codex", "codex", "codex", "CODEX_HOME", "sessions", _Codex),
    Harness("claude", "claude-code", "claude", "CLAUDE_CONFIG_DIR", "projects", _Claude),
    Harness("pi", "pi", "pi", "PI_CODING_AGENT_DIR", "sessions", _Pi),
    Harness("qwen-code", "qwen-code", "qwen", "QWEN_HOME", "projects", _Qwen),
    Harness("kimi-cli", "kimi-cli", "kimi", "KIMI_SHARE_DIR", "sessions", _Kimi),
    Harness("cursor", "cursor", "cursor", "CURSOR_HOME", "projects", _Cursor),
    Harness("copilot-cli", "copilot-cli", "copilot", "COPILOT_HOME", "session-state", _Copilot),
    Harness("gemini-cli", "gemini-cli", "gemini", "GEMINI_CLI_HOME", ".gemini/tmp", _Gemini),
    Harness("gemini-cli-json", "gemini-cli", "gemini", "GEMINI_CLI_HOME", ".gemini/tmp", _GeminiJson),
    Harness("opencode", "opencode", "", "XDG_DATA_HOME", "opencode", _OpenCode),
)
_BY_KEY = {h.key: h for h in HARNESSES}
_GEMINI_KEYS = ("gemini-cli", "gemini-cli-json")
_KIMI_JSON = "kimi/kimi.json"
_GEMINI_PROJECTS = "gemini/.gemini/projects.json"


def corpus_env(corpus: Path) -> dict[str, str]:
    """The environment that points Moraine at every harness folder of ``corpus`` (a folder that
    does not exist is simply no source)."""
    return {h.env: str(Path(corpus) / h.folder) for h in HARNESSES}


def parse_harness_mix(text: str) -> dict[str, float]:
    """``all`` (the same share for every harness) or ``name=weight,…`` with Moraine's source
    names or the harness keys (``claude`` works for claude-code; ``gemini-cli`` is the JSONL
    form, ``gemini-cli-json`` the legacy documents); weights are relative: they need not sum to 1."""
    if text.strip().lower() == "all":
        return {h.key: 1.0 for h in HARNESSES}
    mix: dict[str, float] = {}
    for item in text.split(","):
        name, sep, weight = item.partition("=")
        if not sep:
            raise ValueError(f"harness mix item {item.strip()!r} is not name=weight")
        try:
            mix[name.strip()] = float(weight)
        except ValueError:
            raise ValueError(f"harness mix weight {weight.strip()!r} of {name.strip()} is not a number") from None
    return mix


def _mix_bounds(mix: Mapping[str, float]) -> tuple[tuple[str, float], ...]:
    """Cumulative upper bounds of the shares, in ``HARNESSES`` order whatever the order given
    (so ``codex=0.5,claude-code=0.5`` draws exactly as the default corpus does)."""
    known: dict[str, str] = {}
    for h in HARNESSES:  # a source name is its first harness (gemini-cli: the JSONL form)
        known.setdefault(h.source, h.key)
    known |= {h.key: h.key for h in HARNESSES}
    weights: dict[str, float] = {}
    for name, weight in mix.items():
        if name not in known:
            raise ValueError(f"unknown harness {name!r} (known: {', '.join(h.key for h in HARNESSES)})")
        if not math.isfinite(weight) or weight < 0:
            raise ValueError(f"the weight of {name} must be a finite number >= 0")
        weights[known[name]] = weights.get(known[name], 0.0) + weight
    total = sum(weights.values())
    if total <= 0:
        raise ValueError("the harness mix gives no harness a share")
    bounds: list[tuple[str, float]] = []
    acc = 0.0
    for h in HARNESSES:
        if weights.get(h.key, 0.0) > 0:
            acc += weights[h.key]
            bounds.append((h.key, acc / total))
    return tuple(bounds)


@dataclass(frozen=True, slots=True)
class _Choice:
    """How each session's harness is drawn: Codex or Claude by ``codex_share`` (then Pi by
    ``pi_share``, drawn only when asked, so other corpora stay byte-identical); or, with
    ``mix`` (cumulative bounds), one draw across every harness of the mix."""

    codex_share: float = 0.5
    pi_share: float = 0.0
    mix: tuple[tuple[str, float], ...] = ()

    def renderer(self, rng: random.Random) -> type[_Session]:
        if self.mix:
            r = rng.random()
            return _BY_KEY[next((key for key, bound in self.mix if r < bound), self.mix[-1][0])].renderer
        renderer: type[_Session] = _Codex if rng.random() < self.codex_share else _Claude
        if self.pi_share > 0 and rng.random() < self.pi_share:
            renderer = _Pi
        return renderer


@dataclass
class _SessionOut:
    """What the driver needs to know about one written session file."""

    index: int
    harness: str
    sid: str
    rel_path: str
    size: int
    count: int
    turns: int
    records: int
    secrets: int
    cum: list[int]  # counted events after each turn
    notes: dict[str, Counter[str]]
    cwd: str
    rows: _DbRows | None = None  # an OpenCode session: its rows, for the parent to write


def _session_start(rng: random.Random) -> int:
    """A start time in the 90-day window, weighted to weekdays and working hours (UTC)."""
    day = int(rng.random() * _SPAN_DAYS)
    while day % 7 >= 5 and rng.random() < 0.65:
        day = int(rng.random() * _SPAN_DAYS)
    hour = min(23, max(0, int(rng.gauss(14, 4))))
    return _START_MS + day * _DAY_MS + hour * 3_600_000 + int(rng.random() * 3_600_000)


def _make_session(world: _World, out: Path, index: int, choice: _Choice, budget: int | None = None) -> _SessionOut:
    """Write session ``index`` of the corpus under ``out``; its content is a pure function of the
    world's seed, ``index`` and the harness ``choice``.

    With ``budget``, stop after the turn during which the count reaches it (the corpus's end).
    """
    rng = random.Random(f"moraine-corpus/{world.seed}/session/{index}")
    renderer = choice.renderer(rng)
    proj = world.project(_pick(rng, world.project_urn))
    start = _session_start(rng)
    n_turns = max(1, min(200, int(1.6 * rng.paretovariate(1.1))))  # Zipf-like: median ~3, tail to 200
    incomplete_last = rng.random() < 0.05
    r = rng.random()
    cjk = "ja" if r < 0.02 else "zh" if r < 0.04 else None  # ~70% of their prompts: ~2% of all prompts
    compact_at = _int(rng, 40, 90) if n_turns > 60 else -1
    sess: _Session = renderer(world, rng, proj, start)
    sim = _Sim(world, proj, rng, cjk)
    cum: list[int] = []
    for i in range(n_turns):
        if i == compact_at:
            sess.compact()
        sess.render(sim.turn(i, i == n_turns - 1, incomplete_last))
        cum.append(sess.count)
        if budget is not None and sess.count >= budget:
            break
    sess.finish()
    rows = sess.db_rows()
    size = 0
    if rows is None:  # a file of its own (an OpenCode session's rows go to the corpus's database)
        data = sess.file_bytes()
        size = len(data)
        path = out / sess.rel_path()
        path.parent.mkdir(parents=True, exist_ok=True)
        with open(path, "wb") as f:
            f.write(data)
        os.utime(path, ns=(sess.t * 1_000_000, sess.t * 1_000_000))  # mtime = last record, as a live log's
    return _SessionOut(index, sess.harness, sess.sid, sess.rel_path(), size, sess.count, sess.turns,
                       sess.record_count(), sim.secrets, cum, sim.notes, proj.cwd, rows)


_WORKER_WORLD: _World | None = None


def _init_worker(seed: int) -> None:
    """Each worker builds its own world (projects lazily, as it needs them): cheap, and identical
    to the parent's because everything derives from the seed."""
    global _WORKER_WORLD
    _WORKER_WORLD = _World(seed)


def _worker(out: Path, index: int, choice: _Choice) -> _SessionOut:
    assert _WORKER_WORLD is not None
    return _make_session(_WORKER_WORLD, out, index, choice)


def _remove(out: Path, rel_path: str) -> None:
    """Delete a file written past the end of the corpus, and the directories it alone needed."""
    path = out / rel_path
    path.unlink(missing_ok=True)
    for parent in path.parents:
        if parent == out or out not in parent.parents:
            break
        try:
            parent.rmdir()
        except OSError:  # not empty
            break


def _sessions(world: _World, out: Path, events: int, choice: _Choice, jobs: int) -> Iterator[_SessionOut]:
    """Write sessions in index order until ``events`` are counted; the last one is cut short.

    Worker processes generate and write sessions ahead, in a bounded window, and hand back only
    their metadata.  When a session would overshoot, the parent rewrites it with the remaining
    budget (same RNG, so a prefix of it) and deletes whatever the workers wrote beyond it.
    """
    total = 0
    if jobs <= 1:
        index = 0
        while total < events:
            done = _make_session(world, out, index, choice, events - total)
            total += done.count
            index += 1
            yield done
        return
    # spawn, not fork: safe whatever threads the caller runs (a benchmark may have some).
    ctx = multiprocessing.get_context("spawn")
    window: deque[Future[_SessionOut]] = deque()
    pool = ProcessPoolExecutor(jobs, mp_context=ctx, initializer=_init_worker, initargs=(world.seed,))
    try:
        index = 0
        while total < events:
            while len(window) < jobs * 3:
                window.append(pool.submit(_worker, out, index, choice))
                index += 1
            done = window.popleft().result()
            if total + done.count >= events:  # the last session: stop it after the turn that reaches N
                cut = next(i for i, c in enumerate(done.cum) if total + c >= events)
                if cut < len(done.cum) - 1:
                    done = _make_session(world, out, done.index, choice, events - total)
            total += done.count
            yield done
    finally:
        pool.shutdown(wait=True, cancel_futures=True)
        for future in window:  # sessions past the end that a worker had already written
            if not future.cancelled() and future.exception() is None and future.result().rows is None:
                _remove(out, future.result().rel_path)


def _clear(out: Path, force: bool) -> None:
    """Refuse a non-empty log tree of any harness, or, with ``force``, delete them all (and the
    corpus-wide side files, which would otherwise name work dirs of the earlier corpus)."""
    for h in HARNESSES:
        sub = out / h.folder / h.logs  # OpenCode's: the data folder, its database inside
        if sub.exists() and any(sub.iterdir()):
            if not force:
                raise FileExistsError(f"{sub} is not empty (use force=True / --force to replace it)")
            shutil.rmtree(sub)
    if force:
        for side in (_KIMI_JSON, _GEMINI_PROJECTS):
            (out / side).unlink(missing_ok=True)


def _write_side_files(out: Path, kimi: dict[str, str], gemini: list[str]) -> None:
    """What two harnesses keep beside their logs, once for the corpus: Kimi's ``kimi.json``
    (each work dir, whose md5 names its sessions folder, with its last session) and Gemini's
    ``projects.json`` and per-project ``.project_root`` (the cwd of a slug folder)."""
    if kimi:
        work_dirs = [{"path": cwd, "kaos": "local", "last_session_id": sid} for cwd, sid in kimi.items()]
        (out / _KIMI_JSON).write_text(json.dumps({"work_dirs": work_dirs}, indent=2) + "\n", encoding="utf-8")
    if gemini:
        slugs = {cwd: _gemini_slug(cwd) for cwd in gemini}
        projects = out / _GEMINI_PROJECTS
        projects.write_text(json.dumps({"projects": slugs}, indent=2) + "\n", encoding="utf-8")
        for cwd, slug in slugs.items():
            (projects.parent / "tmp" / slug / ".project_root").write_text(cwd, encoding="utf-8")


def _opencode_ddl() -> tuple[list[str], str, list[str]]:
    """OpenCode's real schema: the statements a fresh v1.18.3 install runs (its drizzle DDL),
    the ``migration`` journal table and its ids, as tools/make_opencode_samples.py pins them
    (docs/harnesses/opencode.md, its storage part, §2)."""
    name = "make_opencode_samples"
    module = sys.modules.get(name)
    if module is None:
        spec = importlib.util.spec_from_file_location(name, Path(__file__).with_name(f"{name}.py"))
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
    return list(module.SCHEMA), str(module.MIGRATION_TABLE), list(module.MIGRATION_IDS)


class _OpenCodeDb:
    """The one ``opencode.db`` (WAL mode) that holds every OpenCode session of a corpus.  Only
    the parent process writes it, in session order whatever ``--jobs`` is (workers hand their
    rows back), ``executemany`` in one transaction per chunk of sessions: the same seed gives
    the same rows in the same order."""

    CHUNK = 256  # sessions a transaction

    _PROJECT = ("INSERT INTO project (id, worktree, vcs, time_created, time_updated, sandboxes) VALUES (?,?,?,?,?,?) "
                "ON CONFLICT(id) DO UPDATE SET time_created = min(time_created, excluded.time_created), "
                "time_updated = max(time_updated, excluded.time_updated)")
    _SESSION = ("INSERT INTO session (id, project_id, parent_id, slug, directory, path, title, version, "
                "summary_additions, summary_deletions, summary_files, cost, tokens_input, tokens_output, "
                "tokens_reasoning, tokens_cache_read, tokens_cache_write, agent, model, time_created, time_updated) "
                "VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)")
    _MESSAGE = "INSERT INTO message (id, session_id, time_created, time_updated, data) VALUES (?,?,?,?,?)"
    _PART = "INSERT INTO part (id, message_id, session_id, time_created, time_updated, data) VALUES (?,?,?,?,?,?)"

    def __init__(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        self.path = path
        self.con = sqlite3.connect(path, isolation_level=None)
        self.con.execute("PRAGMA journal_mode = WAL")  # as OpenCode opens it
        self.con.execute("PRAGMA synchronous = OFF")  # a generated file: no need to survive a crash
        schema, journal, migrations = _opencode_ddl()
        self.con.execute("BEGIN")
        for statement in schema:
            self.con.execute(statement)
        self.con.execute(journal)
        self.con.executemany('INSERT INTO "migration" (id, time_completed) VALUES (?, ?)',
                             [(m, _START_MS) for m in migrations])
        self.con.execute("COMMIT")
        self.pending: list[_DbRows] = []
        self.newest = _START_MS

    def add(self, rows: _DbRows) -> None:
        self.pending.append(rows)
        self.newest = max(self.newest, rows[1][-1])
        if len(self.pending) >= self.CHUNK:
            self.flush()

    def flush(self) -> None:
        if not self.pending:
            return
        con, pending = self.con, self.pending
        con.execute("BEGIN")
        con.executemany(self._PROJECT, [r[0] for r in pending])
        con.executemany(self._SESSION, [r[1] for r in pending])
        con.executemany(self._MESSAGE, [m for r in pending for m in r[2]])
        con.executemany(self._PART, [p for r in pending for p in r[3]])
        con.execute("COMMIT")
        self.pending = []

    def close(self) -> int:
        """Write what is left, checkpoint the WAL into the file (closing removes it), give the
        file the time of its last write; its size."""
        self.flush()
        self.con.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        self.con.close()
        os.utime(self.path, ns=(self.newest * 1_000_000, self.newest * 1_000_000))
        return self.path.stat().st_size


def generate(out: Path, events: int, seed: int = 0, codex_share: float = 0.5, *, force: bool = False,
             jobs: int = 0, pi_share: float = 0.0, harness_mix: Mapping[str, float] | str | None = None
             ) -> dict[str, Any]:
    """Write the corpus under ``out`` and return its summary.

    Summary keys: ``out``, ``seed``, ``codex_share``, ``events_requested``; ``files`` (one
    OpenCode database holds all its sessions), ``sessions``, ``turns`` (genuine prompts),
    ``searchable_events`` (>= ``events``: generation ends with the turn that reaches it),
    ``records`` (JSONL lines; a legacy Gemini document's header and messages; OpenCode's
    session, message and part rows), ``bytes``,
    ``planted_secrets`` (fake credentials in ``.env`` dumps, for redaction), ``elapsed_s``;
    ``by_harness`` (``codex`` / ``claude`` / ``pi``, and each harness of the mix by its
    ``Harness.key``: files, sessions, turns, searchable_events; Gemini CLI's legacy documents
    apart from its JSONL chats, although Moraine lists both under its ``gemini-cli`` source);
    ``sample_queries`` (strings of graded selectivity, all present in the corpus);
    ``session_turns``, a list of (native session id, turn count) in generation order; with a mix,
    ``harness_mix`` (each harness key's share).

    ``harness_mix`` (a mapping of source name or harness key to weight, or the text
    ``--harness-mix`` takes)
    replaces ``codex_share`` and cannot be combined with ``pi_share``.  ``jobs`` worker processes
    generate sessions (0: one per CPU, or none below 50k events); the output does not depend on
    it.  Refuses to write into a non-empty log tree of any harness (``out/codex/sessions``,
    ``out/claude/projects``, …) unless ``force`` (then they are deleted first): stale files from
    an earlier run would silently change the event count a benchmark relies on.
    """
    if events < 1:
        raise ValueError("events must be >= 1")
    if not 0.0 <= codex_share <= 1.0 or not 0.0 <= pi_share <= 1.0:
        raise ValueError("codex_share and pi_share must be within [0, 1]")
    if isinstance(harness_mix, str):
        harness_mix = parse_harness_mix(harness_mix)
    choice = _Choice(codex_share, pi_share)
    if harness_mix is not None:
        if pi_share:
            raise ValueError("pi_share and harness_mix do not combine: give pi a weight in the mix")
        choice = _Choice(mix=_mix_bounds(harness_mix))
    out = Path(out)
    _clear(out, force)
    if not jobs:  # each worker builds the projects it meets (~2 s for all): not worth it for small corpora
        jobs = 1 if events < 50_000 else min(8, os.cpu_count() or 1)
    began = time.perf_counter()
    world = _World(seed)
    keys = ["codex", "claude", "pi"] + [k for k, _ in choice.mix if k not in ("codex", "claude", "pi")]
    by_harness = {h: {"files": 0, "sessions": 0, "turns": 0, "searchable_events": 0} for h in keys}
    notes: dict[str, Counter[str]] = {k: Counter() for k in _NOTE_KINDS}
    session_turns: list[tuple[str, int]] = []
    kimi: dict[str, str] = {}
    gemini: list[str] = []
    db: _OpenCodeDb | None = None
    total = size = records = secrets = 0
    for s in _sessions(world, out, events, choice, jobs):
        h = by_harness[s.harness]
        if s.rows is not None:  # an OpenCode session: rows of the one database
            if db is None:
                db = _OpenCodeDb(out / _OPENCODE_DB)
                h["files"] = 1
            db.add(s.rows)
        else:
            h["files"] += 1
        h["sessions"] += 1
        h["turns"] += s.turns
        h["searchable_events"] += s.count
        total += s.count
        size += s.size
        records += s.records
        secrets += s.secrets
        session_turns.append((s.sid, s.turns))
        for k, counter in s.notes.items():
            notes[k].update(counter)
        if s.harness == "kimi-cli":
            kimi[s.cwd] = s.sid
        elif s.harness in _GEMINI_KEYS and f"/tmp/{_gemini_slug(s.cwd)}/" in s.rel_path and s.cwd not in gemini:
            gemini.append(s.cwd)  # (not a legacy chat in a project-hash folder: that one has no .project_root)
    if db is not None:
        size += db.close()
    _write_side_files(out, kimi, gemini)
    summary: dict[str, Any] = {
        "out": str(out),
        "seed": seed,
        "codex_share": codex_share if not choice.mix else _share(choice.mix, "codex"),
        "events_requested": events,
        "files": sum(h["files"] for h in by_harness.values()),
        "sessions": len(session_turns),
        "turns": sum(n for _, n in session_turns),
        "searchable_events": total,
        "records": records,
        "bytes": size,
        "planted_secrets": secrets,
        "elapsed_s": round(time.perf_counter() - began, 3),
        "by_harness": by_harness,
        "sample_queries": _sample_queries(notes, seed),
        "session_turns": session_turns,
    }
    if choice.mix:
        summary["harness_mix"] = {k: _share(choice.mix, k) for k, _ in choice.mix}
    return summary


def _share(bounds: tuple[tuple[str, float], ...], key: str) -> float:
    """The share of harness ``key`` in cumulative ``bounds`` (0 when it has none)."""
    previous = 0.0
    for k, bound in bounds:
        if k == key:
            return round(bound - previous, 6)
        previous = bound
    return 0.0


def _sample_queries(notes: dict[str, Counter[str]], seed: int) -> list[str]:
    """Queries of graded selectivity, each made of terms the corpus is known to contain: the most
    frequent identifier, a mid-frequency identifier with an error name, a rare identifier, the
    commonest error, a file name, a natural-language prompt phrase, and a CJK term if any."""
    rng = random.Random(f"moraine-corpus/{seed}/queries")

    def ranked(kind: str) -> list[str]:
        return [t for t, _ in sorted(notes[kind].items(), key=lambda kv: (-kv[1], kv[0]))]

    idents, errors, paths, phrases, cjk = (ranked(k) for k in ("ident", "error", "path", "phrase", "cjk"))
    out: list[str] = []
    if idents:
        rare = sorted(t for t, n in notes["ident"].items() if n == 1) or idents[-1:]
        mid = idents[len(idents) // 10]
        out += [idents[0], f"{mid} {_pick(rng, errors[:20])}" if errors else mid, _pick(rng, rare)]
    out += errors[:1] + paths[2:3] + phrases[:1] + cjk[:1]
    return list(dict.fromkeys(out))


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Generate a deterministic synthetic corpus of coding-agent logs "
                                                 "(Codex + Claude Code by default; every harness Moraine reads with "
                                                 "--harness-mix).")
    parser.add_argument("--out", type=Path, required=True,
                        help="output directory (DIR/codex = CODEX_HOME, DIR/claude = CLAUDE_CONFIG_DIR; the other "
                             "harnesses' folders and variables are listed in this tool's docstring)")
    parser.add_argument("--events", type=int, required=True,
                        help="searchable events to generate (user_input + assistant_response + tool_response)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--codex-share", type=float, default=None,
                        help="fraction of sessions that are Codex rollouts, the rest Claude Code (default 0.5)")
    parser.add_argument("--pi-share", type=float, default=0.0,
                        help="fraction of sessions written as Pi sessions (DIR/pi works as PI_CODING_AGENT_DIR)")
    parser.add_argument("--harness-mix", metavar="MIX",
                        help="'all' (an equal share for each of " + ", ".join(h.key for h in HARNESSES)
                             + ") or relative weights such as codex=0.3,claude-code=0.3,pi=0.1,gemini-cli=0.3 "
                               "(gemini-cli: JSONL chats; gemini-cli-json: legacy documents); replaces "
                               "--codex-share and --pi-share")
    parser.add_argument("--jobs", type=int, default=0,
                        help="worker processes (default: one per CPU, max 8; in-process below 50k events)")
    parser.add_argument("--force", action="store_true", help="replace an existing corpus in DIR")
    parser.add_argument("--json", action="store_true", help="print the full summary as JSON")
    args = parser.parse_args(argv)
    try:
        if args.harness_mix is not None and args.codex_share is not None:
            raise ValueError("--codex-share and --harness-mix do not combine: give codex a weight in the mix")
        codex_share = 0.5 if args.codex_share is None else args.codex_share
        summary = generate(args.out, args.events, args.seed, codex_share, force=args.force, jobs=args.jobs,
                           pi_share=args.pi_share, harness_mix=args.harness_mix)
    except (ValueError, FileExistsError) as exc:
        print(f"make_corpus: {exc}", file=sys.stderr)
        return 2
    if args.json:
        print(json.dumps(summary, ensure_ascii=False))
        return 0
    s = summary
    print(f"{s['files']} files, {s['sessions']} sessions, {s['turns']} turns, {s['searchable_events']} searchable "
          f"events, {s['records']} records, {s['bytes'] / 1e6:.1f} MB in {s['elapsed_s']:.1f}s -> {s['out']}")
    for name, h in s["by_harness"].items():
        print(f"  {name}: {h['sessions']} sessions, {h['turns']} turns, {h['searchable_events']} searchable events")
    print("  sample queries: " + " | ".join(s["sample_queries"]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
