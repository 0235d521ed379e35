"""The CLI catches up with the logs before answering: a turn appended after `moraine index` is found."""

from __future__ import annotations

import json

from cli_harness import Workspace, oracle_file

WORD = "zorblaxification"


def _codex_turn() -> str:
    ts = ["2026-03-14T10:00:00.000Z", "2026-03-14T10:00:00.050Z", "2026-03-14T10:00:05.000Z",
          "2026-03-14T10:00:05.100Z"]
    prompt = f"Explain the {WORD} step of the release pipeline."
    answer = f"The {WORD} step packs the wheels and signs them before upload."
    records = [
        {"timestamp": ts[0], "type": "event_msg",
         "payload": {"type": "task_started", "turn_id": "fresh-turn-3", "model_context_window": 258400}},
        {"timestamp": ts[1], "type": "response_item",
         "payload": {"type": "message", "role": "user", "content": [{"type": "input_text", "text": prompt}]}},
        {"timestamp": ts[1], "type": "event_msg",
         "payload": {"type": "user_message", "message": prompt, "images": [], "local_images": [],
                     "text_elements": []}},
        {"timestamp": ts[2], "type": "response_item",
         "payload": {"type": "message", "role": "assistant", "phase": "final_answer",
                     "content": [{"type": "output_text", "text": answer}]}},
        {"timestamp": ts[2], "type": "event_msg",
         "payload": {"type": "agent_message", "message": answer, "phase": "final_answer"}},
        {"timestamp": ts[3], "type": "event_msg",
         "payload": {"type": "task_complete", "turn_id": "fresh-turn-3", "last_agent_message": answer}},
    ]
    return "".join(json.dumps(r, ensure_ascii=False, separators=(",", ":")) + "\n" for r in records)


def test_search_sees_a_turn_appended_after_index(fresh: Workspace) -> None:
    sample = oracle_file("codex-normal")
    first = fresh.run("index", "--json")
    assert first.returncode == 0, first

    path = fresh.sample_path(sample["path"])
    assert all(WORD.encode() not in p.read_bytes() for p in fresh.root.rglob("*.jsonl")), "the word must be new"
    assert path.read_bytes().endswith(b"\n")
    with path.open("a", encoding="utf-8") as fh:
        fh.write(_codex_turn())

    result = fresh.run("search", WORD, "--json")
    assert result.returncode == 0, result
    results = result.json()["data"]["results"]
    assert sorted(r["event"]["type"] for r in results) == ["assistant_response", "user_input"], \
        "the prompt and the reply, each once (their event_msg mirrors collapse)"
    for r in results:
        assert r["session"]["title"] == sample["session"]["title"]
        assert r["session"]["started_at"] == sample["session"]["started_at"]
        assert r["session"]["updated_at"] == "2026-03-14T10:00:05.100Z"
        assert r["turn"]["ordinal"] == sample["session"]["turn_count"] + 1
        assert r["turn"]["completed"] is True
        assert WORD in r["snippet"]["text"]
