"""IDs are derived from the logs alone: the same logs give the same session, turn and event
IDs in any fresh state directory, with any batching, incrementally or at once, and after
a WAL replay."""

from __future__ import annotations

import random
import shutil
from pathlib import Path

import pytest
from _agentlogs import SEARCHABLE, LogWriter, TextMaker, grow, populate

from moraine.index.tokenize import query_terms
from moraine.ingest.checkpoint import pending_bytes
from moraine.ingest.pipeline import ingest_once
from moraine.model import UID_RE
from moraine.store.engine import Store


def _eid(store: Store, doc: int | None) -> str | None:
    return None if doc is None else store.catalog.event_id(doc)


def events_in_order(store: Store) -> list[tuple[str, str, str, bool]]:
    """(event id, type, text, alive) of every catalog row, in doc order."""
    c = store.catalog
    out = []
    for doc in range(len(c.content)):
        event = c.event(doc)
        out.append((c.event_id(doc), event.type, event.text, bool(c.alive.view[doc])))
    return out


def sessions_and_turns(store: Store) -> dict[str, tuple]:
    """Per session id: its key, parent, ordered event ids and its turns (ids and anchors)."""
    c = store.catalog
    out = {}
    for session in c.sessions:
        turns = [
            (c.turn_id(session, t.ordinal), t.start, t.end, t.completed, _eid(store, t.user_doc),
             _eid(store, t.final_doc), _eid(store, t.terminal_doc))
            for t in c.turns(session)
        ]
        out[session.id] = (session.key, session.source, session.parent_key, session.title,
                           [c.event_id(d) for d in session.docs], turns)
    return out


def ranked_ids(store: Store, queries: list[tuple[str, list[str], int]]) -> list[list[tuple[str, float]]]:
    results = []
    for query, types, k in queries:
        hits = store.search(query_terms(query, 16), k, types, None, None)
        results.append([(store.catalog.event_id(int(d)), round(float(r), 12)) for d, r in
                        zip(hits.docs.tolist(), hits.raw.tolist(), strict=True)] + [("total", hits.total)])
    return results


@pytest.fixture(scope="module")
def logs(tmp_path_factory: pytest.TempPathFactory) -> LogWriter:
    writer = LogWriter(tmp_path_factory.mktemp("idlogs"), seed=2718)
    populate(writer, n_codex=4, n_claude=4, records_per_file=(30, 80))
    return writer


@pytest.fixture(scope="module")
def queries(logs: LogWriter) -> list[tuple[str, list[str], int]]:
    rng = random.Random(1)
    texts = TextMaker(random.Random(2), logs.texts.vocab)
    return [(texts.query(), rng.sample(SEARCHABLE, rng.randint(1, 8)), rng.randint(1, 50)) for _ in range(40)]


def test_same_logs_give_identical_ids_in_two_fresh_state_dirs(logs: LogWriter, queries, tmp_path: Path) -> None:
    a = Store(logs.config(tmp_path / "a"))
    ingest_once(a)
    # a different batching and sealing must not change any ID either
    b = Store(logs.config(tmp_path / "b", ingest={"batch_events": 7}, store={"fsync": "never", "seal_events": 100}))
    ingest_once(b)
    assert b.stats.frames > a.stats.frames
    ev_a, ev_b = events_in_order(a), events_in_order(b)
    assert len(ev_a) > 500
    assert [e[0] for e in ev_a] == [e[0] for e in ev_b]
    assert ev_a == ev_b
    assert len({e[0] for e in ev_a}) == len(ev_a), "event ids are unique"
    for eid, *_ in ev_a:
        assert eid.startswith("event:evt_") and UID_RE.match(eid.removeprefix("event:evt_"))
    sa, sb = sessions_and_turns(a), sessions_and_turns(b)
    assert list(sa) == list(sb) and sa == sb
    assert len(sa) >= 9  # 4 + 4 sessions and one subagent
    assert any(parent for _, _, parent, *_ in sa.values()), "the subagent names its parent"
    assert sum(len(s[5]) for s in sa.values()) > 20
    for sid, (_key, _src, _parent, _title, _docs, turns) in sa.items():
        assert sid.startswith("session:ses_")
        assert [t[0] for t in turns] == [f"turn:trn_{sid.removeprefix('session:ses_')}_{i}"
                                         for i in range(1, len(turns) + 1)]
    assert ranked_ids(a, queries) == ranked_ids(b, queries)


def test_reopened_store_replays_to_the_same_ids_and_results(logs: LogWriter, queries, tmp_path: Path) -> None:
    config = logs.config(tmp_path / "s", ingest={"batch_events": 50}, store={"fsync": "never", "seal_events": 120})
    store = Store(config)
    ingest_once(store)
    before = (events_in_order(store), sessions_and_turns(store), ranked_ids(store, queries))
    assert sum(1 for r in before[2] if len(r) > 1) >= 20
    reopened = Store(config)
    assert reopened.stats.torn_bytes == 0 and reopened.stats.events == store.stats.events
    assert (events_in_order(reopened), sessions_and_turns(reopened), ranked_ids(reopened, queries)) == before
    # nothing new in the logs: another pass commits no event and changes nothing
    assert ingest_once(reopened).events == 0
    assert events_in_order(reopened) == before[0]


def test_incremental_ingest_across_restarts_gives_the_one_shot_ids(tmp_path: Path) -> None:
    """Logs ingested as they grow (with Store restarts in between, so parser state comes back
    from the WAL) give the same events, sessions and turns as ingesting the final logs once."""
    writer = LogWriter(tmp_path / "logs", seed=99)
    populate(writer, n_codex=3, n_claude=3, records_per_file=(15, 40))
    config = writer.config(tmp_path / "inc", ingest={"batch_events": 11})
    inc = Store(config)
    ingest_once(inc)
    for round_ in range(3):
        grow(writer, n_new_files=1, records=(3, 15))
        inc = Store(config) if round_ % 2 == 0 else inc  # sometimes a restart (WAL replay) first
        ingest_once(inc)
    once = Store(writer.config(tmp_path / "once"))
    ingest_once(once)
    assert not inc.stats.issues and not once.stats.issues
    ev_inc = {e[0]: e[1:] for e in events_in_order(inc)}
    ev_once = {e[0]: e[1:] for e in events_in_order(once)}
    assert len(ev_inc) == len(events_in_order(inc)), "no event applied twice"
    assert ev_inc == ev_once
    assert sorted(sessions_and_turns(inc).items()) == sorted(sessions_and_turns(once).items())
    rng = random.Random(3)
    texts = TextMaker(random.Random(4), writer.texts.vocab)
    queries = [(texts.query(), list(SEARCHABLE), rng.randint(1, 50)) for _ in range(30)]
    assert ranked_ids(inc, queries) == ranked_ids(once, queries)


def test_ids_do_not_depend_on_the_state_directory_or_wall_clock(logs: LogWriter, tmp_path: Path) -> None:
    """Copying the logs' state dir elsewhere and replaying gives the same IDs."""
    first = Store(logs.config(tmp_path / "one"))
    ingest_once(first)
    shutil.copytree(tmp_path / "one", tmp_path / "two")
    moved = Store(logs.config(tmp_path / "two"))
    assert events_in_order(moved) == events_in_order(first)
    assert sessions_and_turns(moved) == sessions_and_turns(first)


def test_mirror_and_half_written_line_split_across_a_restart(tmp_path: Path) -> None:
    """A Codex prompt whose event_msg mirror lands after a restart is still one event, and a
    line caught half-written is parsed once, whole, on the next pass: same IDs as one shot."""
    import json

    sid = "019c5f6a-49bd-7920-ac67-1dd8e33b0e95"

    def rec(second: int, kind: str, payload: dict) -> str:
        return json.dumps({"timestamp": f"2026-02-15T03:50:{second:02d}.000Z", "type": kind, "payload": payload})

    lines = [
        rec(0, "session_meta", {"id": sid, "cwd": "/repo"}),
        rec(1, "response_item", {"type": "message", "role": "user",
                                 "content": [{"type": "input_text", "text": "fix the flaky walrus test"}]}),
        rec(1, "event_msg", {"type": "user_message", "message": "fix the flaky walrus test"}),
        rec(2, "event_msg", {"type": "agent_message", "message": "looking at walrus_test.py"}),
        rec(2, "response_item", {"type": "message", "role": "assistant",
                                 "content": [{"type": "output_text", "text": "looking at walrus_test.py"}]}),
        rec(3, "response_item", {"type": "function_call", "call_id": "c1", "name": "shell",
                                 "arguments": json.dumps({"command": ["pytest", "walrus_test.py"]})}),
        rec(4, "response_item", {"type": "function_call_output", "call_id": "c1", "output": "Exit code: 1\n1 failed"}),
    ]
    env_root = tmp_path / "codex" / "sessions" / "2026" / "02" / "15"
    env_root.mkdir(parents=True)
    from moraine.config import load_config

    def config(home: str):
        return load_config(overrides={"home": str(tmp_path / home), "store": {"fsync": "never"}},
                           env={"CODEX_HOME": str(tmp_path / "codex"), "CLAUDE_CONFIG_DIR": str(tmp_path / "cl")})

    log = env_root / f"rollout-2026-02-15T03-50-00-{sid}.jsonl"
    data = "".join(line + "\n" for line in lines)
    cut_mirror = len("".join(line + "\n" for line in lines[:2]))  # after the prompt, before its mirror
    cut_half = len("".join(line + "\n" for line in lines[:5])) + 25  # in the middle of the tool call line
    log.write_text(data[:cut_mirror])
    inc = Store(config("inc"))
    ingest_once(inc)
    log.write_text(data[:cut_half])
    inc = Store(config("inc"))  # restart: the mirror window comes back from the WAL checkpoint
    ingest_once(inc)
    assert pending_bytes(inc.checkpoints) == 25, "the half-written line waits"
    log.write_text(data)
    inc = Store(config("inc"))
    ingest_once(inc)
    once = Store(config("once"))
    ingest_once(once)
    assert events_in_order(inc) == events_in_order(once)
    types = [e[1] for e in events_in_order(once) if e[3]]
    assert types.count("user_input") == 1 and types.count("assistant_response") == 1
    assert types.count("tool_call") == 1 and types.count("tool_response") == 1
    assert sessions_and_turns(inc) == sessions_and_turns(once)


def test_uid_is_the_base32_of_the_blake2b_digest() -> None:
    """IDs must never change between versions: make_uid's unrolled base32 equals the
    standard library's encoding of the same digest."""
    import base64
    import hashlib
    import random

    from moraine.sources._common import make_uid

    rng = random.Random(4)
    for _ in range(2000):
        parts = [rng.choice(["codex", "claude-code", "x" * rng.randint(0, 40), "日本"]), rng.randint(0, 10**6),
                 rng.randint(0, 50)]
        digest = hashlib.blake2b("\x1f".join(map(str, parts)).encode("utf-8"), digest_size=16).digest()
        assert make_uid(*parts) == base64.b32encode(digest).decode().rstrip("=").lower()


def test_the_id_format_is_written_once_and_parses_back() -> None:
    """The contract's IDs are written by `model` only (the store orders sessions by theirs) and
    parsed by `contract.parse_id` against the same `ID_RE`: what one writes, the other reads."""
    from moraine.errors import ContractError
    from moraine.mcp_server.contract import parse_id
    from moraine.model import event_ref, session_ref, turn_ref

    sid, uid = "a" * 20 + "234567", "z" * 26
    assert (parse_id(session_ref(sid)).kind, parse_id(session_ref(sid)).key) == ("session", sid)
    parsed = parse_id(turn_ref(sid, 12))
    assert (parsed.kind, parsed.key, parsed.ordinal) == ("turn", sid, 12)
    assert (parse_id(event_ref(uid)).kind, parse_id(event_ref(uid)).key) == ("event", uid)
    for bad in (session_ref("short"), turn_ref(sid, 0), event_ref(uid.upper()), "session:" + sid):
        with pytest.raises(ContractError):
            parse_id(bad)
    src = Path(__file__).resolve().parents[2] / "src" / "moraine"
    writers = sorted(str(p.relative_to(src)) for p in src.rglob("*.py")
                     if any(prefix in p.read_text() for prefix in ("ses_", "trn_", "evt_")))
    # secret_context.py names Stripe's `evt_…` object ids (kept by redaction), not Moraine's IDs
    assert [w for w in writers if w != "redaction/secret_context.py"] == ["model.py"], writers
