"""32 concurrent `moraine mcp` clients × 200 mixed tool calls against one daemon while it ingests.

Why: `moraine mcp` is only a stdio ⇄ socket bridge; every agent host on the machine shares one
long-lived daemon, which serves one MCP session per connection on worker threads while its
ingest thread (and each call's read-your-writes catch-up) appends to the same store. Unit and
contract tests drive one session at a time; only many real bridge processes hitting one daemon
while the logs grow show that concurrent sessions never see a JSON-RPC error, an `isError`
result, a timeout, a malformed envelope or a torn read, and that nothing written meanwhile is
lost or indexed twice.

The corpus is data_samples/ plus seeded Codex and Claude Code logs (tests/unit/_agentlogs.py).
A first `moraine mcp` (the checker) starts the daemon and stays connected for the whole test;
then 32 more bridges each run 200 calls from a seeded mix: global searches (random event types
and hit counts), searches within a session or turn taken from earlier results, `open` of
event / turn / session IDs returned earlier (and of traversal IDs), `list_sessions` over
several windows with cursor pagination, searches for words the writer has just appended
(read-your-writes: exactly one hit, or none in an answer that says the index is behind the
logs), and intentionally invalid requests whose in-band error
must carry the exact contract code. A writer thread keeps appending lines with unique words to
six live logs (and random noise lines, sometimes flushed mid-line) until the clients finish;
then every appended word must be found exactly once, in the session of the log it went to.
Every result is checked against the contract envelope and the pydantic models the published
output schemas are generated from; the SDK's own JSON Schema check runs on every 8th result
(see `SampledSchemaSession`). The daemon must have run once: never restarted, no failed ingest
pass or connection in its log, and none left running after `moraine stop`.

Throughput and P50/P95 latency are printed (run with -s) and not asserted. About 3 minutes on
2 cores.
"""

from __future__ import annotations

import json
import os
import random
import shutil
import subprocess
import threading
import time
import uuid
from collections import Counter, defaultdict
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TextIO

import anyio
import pytest
from _agentlogs import LogFile, LogWriter, _iso, populate
from contract_harness import (
    CANONICAL_TYPES,
    MORAINE,
    UNKNOWN_EVENT,
    UNKNOWN_SESSION,
    UNKNOWN_TURN,
    check_error_envelope,
    check_success_envelope,
    check_wrapper,
)
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client

from moraine.mcp_server.schemas import SUCCESS, ErrorEnvelope
from moraine.model import MODES

SAMPLES = Path(__file__).resolve().parents[2] / "data_samples"
SEED = 20_260_512
CLIENTS = 32
CALLS_PER_CLIENT = 200
CALL_TIMEOUT_S = 60.0
START_TIMEOUT_S = 180.0
WRITE_INTERVAL_S = 0.02
VERIFY_CHUNK = 25  # unique words per verification query (max_query_terms is 32)
MAX_FAILURES_PER_CLIENT = 5
POOL_CAP = 300

ALL_TIME = ("2000-01-01T00:00:00Z", "2100-01-01T00:00:00Z")
WINDOWS = [
    ALL_TIME,
    ("2026-03-01T00:00:00Z", "2026-04-01T00:00:00Z"),  # data_samples
    ("2026-01-01T00:00:00+00:00", "2026-02-15T00:00:00+00:00"),  # the generated sessions
    ("2026-03-14T00:00:00-04:00", "2026-03-16T00:00:00-04:00"),
]


# --------------------------------------------------------------------------------------------
# Corpus and the live writer
# --------------------------------------------------------------------------------------------


@dataclass
class Corpus:
    root: Path
    home: Path
    writer: LogWriter
    live: list[LogFile]

    def env(self) -> dict[str, str]:
        # the compiled search where numba is installed: it takes over mid-run, under these calls
        return {**self.writer.env(), "MORAINE_HOME": str(self.home), "MORAINE_DAEMON_IDLE_EXIT_S": "30",
                "MORAINE_SEARCH_BACKEND": "auto"}


def build_corpus(root: Path) -> Corpus:
    writer = LogWriter(root, SEED)
    shutil.copytree(SAMPLES / "codex", writer.codex_home, dirs_exist_ok=True)
    shutil.copytree(SAMPLES / "claude", writer.claude_home, dirs_exist_ok=True)
    populate(writer, 40, 40, (10, 60))
    live = [writer.new_codex() for _ in range(3)] + [writer.new_claude() for _ in range(3)]
    for log in live:
        writer.extend(log, 6)
    home = root / "moraine-home"
    home.mkdir()
    return Corpus(root, home, writer, live)


def _append(log: LogFile, record: dict[str, Any]) -> None:
    """One complete line in one write: visible to the daemon whole once this returns."""
    with log.path.open("a", encoding="utf-8") as handle:
        handle.write(json.dumps(record) + "\n")
    log.n += 1


def _word_record(log: LogFile, text: str) -> dict[str, Any]:
    log.ts += 1000
    ts = _iso(log.ts)
    if log.harness == "codex":  # an assistant reply: one assistant_response event
        return {"timestamp": ts, "type": "response_item",
                "payload": {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": text}]}}
    # a typed Claude Code prompt: one user_input event
    return {"sessionId": log.sid, "cwd": "/repo", "timestamp": ts, "uuid": str(uuid.uuid4()), "type": "user",
            "message": {"role": "user", "content": text}}


class LiveWriter(threading.Thread):
    """Appends lines with unique words (and random noise) to the live logs until stopped."""

    def __init__(self, corpus: Corpus) -> None:
        super().__init__(name="live-writer", daemon=True)
        self.corpus = corpus
        self.rng = random.Random(SEED + 1)
        self.written: list[tuple[str, int]] = []  # (word, index of its live log), complete on disk
        self.halt = threading.Event()
        self.error: BaseException | None = None

    def run(self) -> None:
        try:
            n = 0
            while not self.halt.is_set():
                index = n % len(self.corpus.live)
                log = self.corpus.live[index]
                if self.rng.random() < 0.3:  # random records; their buffered writes may flush mid-line
                    self.corpus.writer.extend(log, self.rng.randint(1, 4))
                word = f"zyxw{n:05d}q"
                _append(log, _word_record(log, f"{word} appended live while {CLIENTS} clients query the daemon"))
                self.written.append((word, index))
                n += 1
                self.halt.wait(WRITE_INTERVAL_S)
        except BaseException as exc:  # reported by the test
            self.error = exc


# --------------------------------------------------------------------------------------------
# One client: a seeded mix of calls, each checked
# --------------------------------------------------------------------------------------------


class CallFailed(Exception):
    pass


class SampledSchemaSession(ClientSession):
    """The SDK client, re-checking the published JSON output schema on every 8th result only.

    The SDK validates each result with `jsonschema` (~17 ms for a 20-hit search on one core),
    which in one test process serving 32 sessions would starve the daemon of CPU on a 2-core
    runner and measure the client instead of the daemon. Every result is still validated
    against the pydantic models the published schema is generated from (`Client.call`).
    """

    JSONSCHEMA_EVERY = 8

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.results_seen = 0

    async def validate_tool_result(self, name: str, result: Any) -> None:
        self.results_seen += 1
        if self.results_seen % self.JSONSCHEMA_EVERY == 1:
            await super().validate_tool_result(name, result)


@dataclass
class Stats:
    latencies: dict[str, list[float]] = field(default_factory=lambda: defaultdict(list))
    kinds: Counter[str] = field(default_factory=Counter)
    failures: list[str] = field(default_factory=list)
    fresh_checked: int = 0
    fresh_behind: int = 0  # read-your-writes answered without the word, saying the index is behind
    invalid_checked: int = 0
    pages_followed: int = 0


def _pick(rng: random.Random, pool: list[str]) -> str | None:
    return rng.choice(pool) if pool else None


def _remember(rng: random.Random, pool: list[str], value: str | None) -> None:
    if not value:
        return
    if len(pool) < POOL_CAP:
        pool.append(value)
    else:
        pool[rng.randrange(POOL_CAP)] = value


class Client:
    """Drives one `ClientSession`; IDs found along the way feed later calls."""

    def __init__(self, index: int, session: ClientSession, vocab: list[str], live: LiveWriter, stats: Stats) -> None:
        self.index = index
        self.session = session
        self.rng = random.Random(SEED * 1000 + index)
        self.vocab = vocab
        self.live = live
        self.stats = stats
        self.sessions: list[str] = []
        self.turns: list[str] = []
        self.events: list[str] = []
        self.cursor: tuple[dict[str, Any], str, set[str]] | None = None  # (args, next cursor, IDs seen so far)

    async def call(self, tool: str, args: dict[str, Any], expect_error: str | None = None) -> dict[str, Any]:
        """One call through the bridge, checked against the contract envelope and schema."""
        started = time.perf_counter()
        try:
            with anyio.fail_after(CALL_TIMEOUT_S):
                result = await self.session.call_tool(tool, args)
        except TimeoutError:
            raise CallFailed(f"{tool}({json.dumps(args)[:300]}) timed out after {CALL_TIMEOUT_S:.0f}s") from None
        except Exception as exc:  # a JSON-RPC error, a broken bridge
            raise CallFailed(f"{tool}({json.dumps(args)[:300]}) raised {type(exc).__name__}: {exc}") from exc
        self.stats.latencies[tool].append(time.perf_counter() - started)
        try:
            check_wrapper(result)
            envelope = result.structured_content
            assert isinstance(envelope, dict)
            if expect_error is None:
                assert envelope.get("schema_version") == f"moraine.mcp.{tool}.v1", \
                    f"unexpected error {envelope.get('error')}"
                SUCCESS[tool].model_validate(envelope)
                check_success_envelope(envelope, tool)
            else:
                assert envelope.get("schema_version") == "moraine.mcp.error.v1", "expected an error envelope"
                ErrorEnvelope.model_validate(envelope)
                check_error_envelope(envelope, tool)
                assert envelope["error"]["code"] == expect_error, \
                    f"expected {expect_error}, got {envelope['error']}"
        except Exception as exc:
            body = json.dumps(result.structured_content)[:600] if result.structured_content else repr(result)[:600]
            raise CallFailed(f"{tool}({json.dumps(args)[:300]}): {type(exc).__name__}: {exc}; got {body}") from exc
        return envelope

    def check(self, condition: bool, message: str) -> None:
        if not condition:
            raise CallFailed(message)

    # -- the call kinds ---------------------------------------------------------------------

    def _query(self) -> str:
        return " ".join(self.rng.choice(self.vocab) for _ in range(self.rng.randint(1, 3)))

    def _event_types(self) -> list[str] | None:
        if self.rng.random() < 0.5:
            return None
        return self.rng.sample(CANONICAL_TYPES, self.rng.randint(1, 4))

    def _harvest_hits(self, hits: list[dict[str, Any]]) -> None:
        for hit in hits:
            _remember(self.rng, self.events, hit["open"]["event_id"])
            _remember(self.rng, self.turns, hit["open"]["turn_id"])
            _remember(self.rng, self.sessions, hit["open"]["session_id"])

    async def search_global(self) -> None:
        types = self._event_types()
        args: dict[str, Any] = {"query": self._query()}
        if types is not None or self.rng.random() < 0.3:
            args["event_types"] = types
        if self.rng.random() < 0.5:
            args["n_hits"] = self.rng.choice((1, 5, 20, 50))
        envelope = await self.call("search_sessions", args)
        data = envelope["data"]
        wanted = set(types or ("user_input", "assistant_response", "tool_response"))
        self.check(data["result_count"] == len(data["results"]) <= data["limit"] == args.get("n_hits", 10),
                   f"search counts: {json.dumps(data)[:300]}")
        self.check(all(hit["event"]["type"] in wanted for hit in data["results"]),
                   f"search {args} returned types outside the filter")
        self.check([hit["rank"] for hit in data["results"]] == list(range(1, len(data["results"]) + 1)), "ranks")
        self._harvest_hits(data["results"])

    async def search_within(self) -> None:
        use_turn = self.turns and self.rng.random() < 0.5
        scope = _pick(self.rng, self.turns if use_turn else self.sessions)
        if scope is None:
            return await self.search_global()
        args: dict[str, Any] = {"query": self._query(), "within_id": scope}
        if self.rng.random() < 0.4:
            args["event_types"] = self._event_types()
        envelope = await self.call("search_sessions", args)
        key = "turn_id" if scope.startswith("turn:") else "session_id"
        hits = envelope["data"]["results"]
        self.check(all(hit["open"][key] == scope for hit in hits), f"hits outside within_id={scope}")
        self._harvest_hits(hits)
        return None

    async def open_id(self) -> None:
        pools = [p for p in (self.events, self.turns, self.sessions) if p]
        if not pools:
            return await self.list_page()
        target = self.rng.choice(self.rng.choice(pools))
        data = (await self.call("open", {"id": target}))["data"]
        kind = target.split(":", 1)[0]
        self.check(data["kind"] == kind, f"open({target}) returned kind {data['kind']}")
        self.check(data[kind]["id"] == target, f"open({target}) returned {data[kind]['id']}")
        if kind == "session":
            shown = data["turns_shown"]  # a page of turns: all of them, or a cursor to the rest
            self.check(shown["total"] == data["session"]["turn_count"] and len(data["turns"]) ==
                       shown["to_ordinal"] - shown["from_ordinal"] + 1 and
                       (data["next_cursor"] is None) == (shown["to_ordinal"] == shown["total"]),
                       f"open({target}) turn count")
            for turn in data["turns"]:
                _remember(self.rng, self.turns, turn["id"])
        elif kind == "turn":
            for row in self.rng.sample(data["events"], min(3, len(data["events"]))):
                _remember(self.rng, self.events, row["id"])
        for value in data["traversal"].values():
            if isinstance(value, str) and value.startswith("event:"):
                _remember(self.rng, self.events, value)
            elif isinstance(value, str) and value.startswith("turn:"):
                _remember(self.rng, self.turns, value)
            elif isinstance(value, str) and value.startswith("session:"):
                _remember(self.rng, self.sessions, value)
        return None

    async def list_page(self) -> None:
        if self.cursor is not None and self.rng.random() < 0.7:
            base, cursor, seen = self.cursor
            args = {**base, "cursor": cursor}
            self.stats.pages_followed += 1
        else:
            start, end = self.rng.choice(WINDOWS)
            base = {"start_datetime": start, "end_datetime": end, "limit": self.rng.randint(1, 12)}
            if self.rng.random() < 0.3:
                base["sort"] = self.rng.choice(("asc", "desc"))
            if self.rng.random() < 0.2:
                base["mode"] = self.rng.choice(MODES)
            args, seen = dict(base), set()
        data = (await self.call("list_sessions", args))["data"]
        ids = [item["id"] for item in data["sessions"]]
        self.check(len(ids) == data["result_count"] <= data["limit"], f"list counts: {json.dumps(data)[:300]}")
        self.check(data["truncated"] == (data["next_cursor"] is not None), "truncated vs next_cursor")
        keys = [(item["session"]["updated_at"], item["id"]) for item in data["sessions"]]
        descending = args.get("sort", "desc") == "desc"
        self.check(keys == sorted(keys, reverse=descending), f"list order: {keys}")
        if descending:  # keyset paging by (updated_at desc, id): an updated session only moves up
            self.check(not seen & set(ids), f"a session listed twice across pages: {seen & set(ids)}")
        self.cursor = (base, data["next_cursor"], seen | set(ids)) if data["next_cursor"] else None
        for sid in ids:
            _remember(self.rng, self.sessions, sid)

    async def fresh_word(self) -> None:
        """Read-your-writes: a word whose line is complete on disk is found, exactly once."""
        written = self.live.written
        if not written:
            return await self.search_global()
        word, _index = written[-1 - self.rng.randrange(min(len(written), 40))]
        reply = await self.call("search_sessions", {"query": word, "n_hits": 5})
        data = reply["data"]
        if data["result_count"] == 0 and any("behind the logs" in w for w in reply["warnings"]):
            self.stats.fresh_behind += 1  # an honest answer (the writer was busy); the end checks the word
            return None
        self.check(data["result_count"] == 1 and word in data["results"][0]["snippet"]["text"],
                   f"fresh word {word}: {data['result_count']} hit(s); warnings {reply['warnings']}")
        self.stats.fresh_checked += 1
        return None

    async def invalid(self) -> None:
        some_event = _pick(self.rng, self.events) or UNKNOWN_EVENT
        cases: list[tuple[str, dict[str, Any], str]] = [
            ("open", {"id": "not-a-valid-id"}, "invalid_id"),
            ("open", {"id": "   "}, "invalid_request"),
            ("open", {}, "invalid_request"),
            ("open", {"id": UNKNOWN_EVENT}, "not_found"),
            ("open", {"id": UNKNOWN_TURN}, "not_found"),
            ("search_sessions", {"query": "  "}, "invalid_request"),
            ("search_sessions", {"query": "pelican", "within_id": some_event}, "invalid_request"),
            ("search_sessions", {"query": "pelican", "within_id": "bogus"}, "invalid_id"),
            ("search_sessions", {"query": "pelican", "within_id": UNKNOWN_SESSION}, "not_found"),
            ("search_sessions", {"query": "pelican", "event_types": ["debug_trace"]}, "unsupported_event_type"),
            ("search_sessions", {"query": "pelican", "event_types": []}, "invalid_request"),
            ("search_sessions", {"query": "pelican", "n_hits": 51}, "invalid_request"),
            ("list_sessions", {"start_datetime": ALL_TIME[1], "end_datetime": ALL_TIME[0]}, "invalid_request"),
            ("list_sessions", {"start_datetime": "2026-03-10T00:00:00", "end_datetime": ALL_TIME[1]},
             "invalid_request"),
            ("list_sessions", {"start_datetime": ALL_TIME[0], "end_datetime": ALL_TIME[1], "sort": "up"},
             "invalid_request"),
        ]
        if self.cursor is not None:  # a cursor under a changed filter
            base, cursor, _seen = self.cursor
            flipped = "asc" if base.get("sort", "desc") == "desc" else "desc"
            cases.append(("list_sessions", {**base, "cursor": cursor, "sort": flipped}, "invalid_request"))
        tool, args, code = self.rng.choice(cases)
        await self.call(tool, args, expect_error=code)
        self.stats.invalid_checked += 1

    async def run(self, calls: int) -> None:
        kinds = {"search_global": self.search_global, "search_within": self.search_within, "open": self.open_id,
                 "list_sessions": self.list_page, "fresh_word": self.fresh_word, "invalid": self.invalid}
        weights = {"search_global": 24, "search_within": 14, "open": 30, "list_sessions": 14, "fresh_word": 10,
                   "invalid": 8}
        names = list(kinds)
        failures = 0
        await self.list_page()  # seed the ID pools
        for _ in range(calls - 1):
            kind = self.rng.choices(names, weights=[weights[n] for n in names])[0]
            self.stats.kinds[kind] += 1
            try:
                await kinds[kind]()
            except CallFailed as exc:
                failures += 1
                self.stats.failures.append(f"client {self.index} {kind}: {exc}")
                if failures >= MAX_FAILURES_PER_CLIENT:
                    self.stats.failures.append(f"client {self.index}: stopped after {failures} failures")
                    return


# --------------------------------------------------------------------------------------------
# The test
# --------------------------------------------------------------------------------------------


def _daemon_pids(home: Path) -> list[int]:
    """Processes running `moraine ... --home <home> daemon --foreground`."""
    pids = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            argv = (entry / "cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        if str(home).encode() in argv and b"--foreground" in argv and b"daemon" in argv:
            pids.append(int(entry.name))
    return pids


def _stop_daemon(corpus: Corpus) -> None:
    subprocess.run([str(MORAINE), "--home", str(corpus.home), "stop"], env={**os.environ, **corpus.env()},
                   capture_output=True, timeout=180, check=False)


def _percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))] if ordered else float("nan")


@pytest.fixture()
def concurrency_corpus(tmp_path: Path) -> Iterator[Corpus]:
    built = build_corpus(tmp_path)
    try:
        yield built
    finally:
        _stop_daemon(built)
        deadline = time.monotonic() + 30
        while _daemon_pids(built.home) and time.monotonic() < deadline:
            time.sleep(0.2)
        assert not _daemon_pids(built.home), "a daemon outlived `moraine stop`"


async def _wait_backfilled(home: Path) -> dict[str, Any]:
    with anyio.fail_after(START_TIMEOUT_S):
        while True:
            try:
                status = json.loads((home / "run" / "daemon.json").read_text())
            except (OSError, ValueError):
                status = {}
            if status.get("backfilled"):
                return status
            await anyio.sleep(0.1)


async def _verify_words(session: ClientSession, corpus: Corpus, written: list[tuple[str, int]]) -> list[str]:
    """Every appended word is found exactly once, in the one session of the log it went to."""
    problems: list[str] = []
    session_of_log: dict[int, set[str]] = defaultdict(set)
    for start in range(0, len(written), VERIFY_CHUNK):
        chunk = written[start : start + VERIFY_CHUNK]
        args = {"query": " ".join(w for w, _ in chunk), "event_types": list(CANONICAL_TYPES), "n_hits": 50}
        with anyio.fail_after(CALL_TIMEOUT_S):
            result = await session.call_tool("search_sessions", args)
        check_wrapper(result)
        envelope = result.structured_content
        assert envelope is not None
        if "error" in envelope:
            problems.append(f"verify {chunk[0][0]}..: {envelope['error']}")
            continue
        found: Counter[str] = Counter()
        for hit in envelope["data"]["results"]:
            words = [(w, i) for w, i in chunk if w in hit["snippet"]["text"]]
            if len(words) != 1:
                problems.append(f"hit {hit['id']} holds {len(words)} of the words: {hit['snippet']['text'][:120]}")
                continue
            found[words[0][0]] += 1
            session_of_log[words[0][1]].add(hit["open"]["session_id"])
        for word, _index in chunk:
            if found[word] != 1:
                problems.append(f"appended word {word} found {found[word]} time(s)")
    for index, sessions in session_of_log.items():
        if len(sessions) != 1:
            problems.append(f"words of live log {corpus.live[index].path.name} are in sessions {sorted(sessions)}")
    all_sessions = [next(iter(s)) for s in session_of_log.values() if len(s) == 1]
    if len(set(all_sessions)) != len(all_sessions):
        problems.append(f"two live logs share a session: {all_sessions}")
    return problems


async def _client_task(index: int, params: StdioServerParameters, errlog: TextIO, vocab: list[str],
                       live: LiveWriter, stats: Stats, ready: list[int], go: anyio.Event) -> None:
    try:
        async with stdio_client(params, errlog=errlog) as (read, write), SampledSchemaSession(read, write) as session:
            with anyio.fail_after(START_TIMEOUT_S):
                await session.initialize()
            ready.append(index)
            await go.wait()
            await Client(index, session, vocab, live, stats).run(CALLS_PER_CLIENT)
    except Exception as exc:  # a bridge that could not start or broke the session
        stats.failures.append(f"client {index}: {type(exc).__name__}: {exc}")
    finally:
        if index not in ready:
            ready.append(index)  # never leave the others waiting


@pytest.mark.slow
@pytest.mark.timeout(900)
def test_32_clients_x_200_calls_while_ingesting(concurrency_corpus: Corpus) -> None:
    corpus = concurrency_corpus
    params = StdioServerParameters(command=str(MORAINE), args=["mcp"], env=corpus.env(), cwd=str(corpus.root))
    errlog_path = corpus.root / "bridges-stderr.log"
    live = LiveWriter(corpus)
    stats = Stats()
    report: dict[str, Any] = {}

    async def main() -> None:
        with errlog_path.open("w") as errlog:
            # The checker is the first `moraine mcp`: it starts the daemon and stays connected
            # (so the 30 s idle exit never fires mid-test), then verifies the appended words.
            async with stdio_client(params, errlog=errlog) as (read, write), ClientSession(read, write) as checker:
                with anyio.fail_after(START_TIMEOUT_S):
                    await checker.initialize()
                status = await _wait_backfilled(corpus.home)
                report["daemon_pid"] = status["pid"]
                listed = await checker.call_tool("list_sessions", {"start_datetime": ALL_TIME[0],
                                                                   "end_datetime": ALL_TIME[1], "limit": 50})
                check_wrapper(listed)
                assert listed.structured_content is not None
                assert listed.structured_content["data"]["result_count"] == 50, listed.structured_content

                live.start()
                ready: list[int] = []
                go = anyio.Event()
                spawn = time.perf_counter()
                async with anyio.create_task_group() as tg:
                    for index in range(CLIENTS):
                        tg.start_soon(_client_task, index, params, errlog, corpus.writer.texts.vocab, live, stats,
                                      ready, go)
                    with anyio.fail_after(START_TIMEOUT_S):
                        while len(ready) < CLIENTS:
                            await anyio.sleep(0.05)
                    report["spawn_s"] = time.perf_counter() - spawn
                    began = time.perf_counter()
                    go.set()
                report["calls_s"] = time.perf_counter() - began
                live.halt.set()
                await anyio.to_thread.run_sync(live.join, 30.0)
                report["words"] = len(live.written)
                report["problems"] = await _verify_words(checker, corpus, list(live.written))
                final = json.loads((corpus.home / "run" / "daemon.json").read_text())
                report["final_pid"] = final["pid"]

    started = time.perf_counter()
    try:
        anyio.run(main)
    finally:
        live.halt.set()
    total_s = time.perf_counter() - started

    latencies = [x for values in stats.latencies.values() for x in values]
    calls = len(latencies)
    per_tool = ", ".join(f"{tool} n={len(v)} p50={_percentile(v, 0.5) * 1000:.0f}ms "
                         f"p95={_percentile(v, 0.95) * 1000:.0f}ms" for tool, v in sorted(stats.latencies.items()))
    summary = (f"{CLIENTS} clients x {CALLS_PER_CLIENT} calls: {calls} answered in {report.get('calls_s', 0):.1f}s "
               f"({calls / max(report.get('calls_s', 1), 1e-9):.0f} calls/s), "
               f"p50={_percentile(latencies, 0.5) * 1000:.0f}ms p95={_percentile(latencies, 0.95) * 1000:.0f}ms "
               f"max={max(latencies, default=0) * 1000:.0f}ms; {per_tool}; bridges up in "
               f"{report.get('spawn_s', 0):.1f}s; {report.get('words', 0)} words appended; "
               f"{stats.fresh_checked} read-your-writes ({stats.fresh_behind} more said behind) and "
               f"{stats.invalid_checked} invalid-request checks, "
               f"{stats.pages_followed} cursor pages; mix {dict(stats.kinds)}; whole test {total_s:.0f}s")
    print("\n" + summary)

    daemon_log = (corpus.home / "run" / "daemon.log").read_text(errors="replace")
    assert live.error is None, f"the writer failed: {live.error!r}"
    bridges = errlog_path.read_text(errors="replace")
    assert not stats.failures, f"{len(stats.failures)} failed call(s):\n" + "\n".join(stats.failures[:20]) + \
        f"\n{summary}\nbridge stderr: {bridges[-2000:]}\ndaemon log: {daemon_log[-2000:]}"
    assert calls == CLIENTS * CALLS_PER_CLIENT, summary
    assert not report["problems"], "\n".join(report["problems"][:30]) + f"\n{summary}"
    assert report["words"] > 100, summary
    # one daemon served it all: never restarted, no ingest pass or connection failed
    assert report["final_pid"] == report["daemon_pid"], f"the daemon was restarted\n{daemon_log[-2000:]}"
    assert daemon_log.count("moraine daemon: starting") == 1, daemon_log[-2000:]
    assert "ingest pass failed" not in daemon_log and "connection ended with" not in daemon_log, daemon_log[-3000:]
