"""Learned prompt → input patterns (the history tool `get_learned_patterns`), on Moraine's model.

In agent history the "prompt" is what the agent asked the person at the end of a turn: a
final response whose last line asks (ends with `?`, or offers a choice such as `(yes/no)`,
`[Y/n]`), or an explicit question tool call (Claude Code's `AskUserQuestion`, Codex's
`request_user_input`). The "input" is the person's next prompt. The reply succeeded when the
turn it opened completed without an interruption or an error. Prompts are grouped by a
normalized form (case, whitespace, numbers, paths), replies by their trimmed lower-case text;
explicit observations from `track_input_event` count with the learned ones.
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from itertools import pairwise
from typing import Any, TypedDict

from moraine.model import TERMINAL_ABORT, format_ts
from moraine.store.engine import Store
from moraine.store.session import Session

QUESTION_TOOLS = frozenset({"askuserquestion", "ask_user_question", "request_user_input", "ask_user"})
CHOICE_RE = re.compile(r"\((?:y(?:es)?/n(?:o)?)\)|\[(?:y/n|Y/n|y/N)\]|\b(?:yes or no|y/n)\b", re.I)
PATH_RE = re.compile(r"(?:~|\.{1,2})?/[\w.@%+=:,-]+(?:/[\w.@%+=:,-]+)*")
NUMBER_RE = re.compile(r"\d+(?:\.\d+)?")
PROMPT_CHARS = 300


def normalize_prompt(text: str) -> str:
    text = PATH_RE.sub("<path>", text.lower())
    return " ".join(NUMBER_RE.sub("#", text).split())


def normalize_input(text: str) -> str:
    return " ".join(text.strip().lower().split())


def question_of(text: str) -> str | None:
    """The asking line of a final response, or None when it does not end by asking."""
    lines = [line.strip() for line in text.strip().splitlines() if line.strip()]
    if not lines:
        return None
    last = lines[-1]
    if last.endswith("?") or CHOICE_RE.search(last):
        return last[:PROMPT_CHARS]
    return None


class Response(TypedDict):
    """One reply to a prompt pattern: its most common text, how often it came, how often it succeeded."""
    input_text: str
    count: int
    success_count: int
    success_rate: float


@dataclass
class _Pattern:
    prompts: Counter[str] = field(default_factory=Counter)  # raw prompt texts seen
    replies: dict[str, list[int]] = field(default_factory=lambda: defaultdict(lambda: [0, 0]))  # → [count, ok]
    reply_text: dict[str, Counter[str]] = field(default_factory=lambda: defaultdict(Counter))
    last_ms: int = 0
    tracked: int = 0  # observations recorded with track_input_event

    def add(self, prompt: str, reply: str, ok: bool, at_ms: int, tracked: bool = False) -> None:
        key = normalize_input(reply)
        self.tracked += int(tracked)
        self.prompts[prompt] += 1
        counts = self.replies[key]
        counts[0] += 1
        counts[1] += int(ok)
        self.reply_text[key][reply.strip()] += 1
        self.last_ms = max(self.last_ms, at_ms)


def _from_session(store: Store, session: Session, into: dict[str, _Pattern]) -> None:
    catalog = store.catalog
    turns = catalog.turns(session)
    for turn, following in pairwise(turns):
        if following.user_doc is None:
            continue
        prompt = None
        docs = session.docs[turn.start : turn.end]
        for doc in docs:  # an explicit question tool call
            ix = int(catalog.tool_ix.view[doc])
            if ix and catalog.tool_names[ix].rsplit("__", 1)[-1].lower() in QUESTION_TOOLS:
                event = catalog.event(doc)
                prompt = (event.text.split("\n", 1)[-1] or event.text)[:PROMPT_CHARS]
        if prompt is None and turn.final_doc is not None:
            prompt = question_of(catalog.event(turn.final_doc).text)
        if not prompt:
            continue
        reply = catalog.event(following.user_doc).text
        aborted = following.terminal_doc is not None and int(catalog.terminal.view[following.terminal_doc]) == \
            TERMINAL_ABORT
        ok = following.completed and not aborted
        into.setdefault(normalize_prompt(prompt), _Pattern()).add(prompt, reply, ok, following.started_ms)


def learned(store: Store) -> dict[str, _Pattern]:
    """Every pattern: learned from the history, plus the tracked observations."""
    patterns: dict[str, _Pattern] = {}
    for session in store.catalog.by_updated:
        if session.docs:
            _from_session(store, session, patterns)
    for _sid, prompt, reply, ok, _source, _ms, at in store.tracked:
        patterns.setdefault(normalize_prompt(prompt), _Pattern()).add(prompt, reply, ok, at, tracked=True)
    return patterns


DEFAULT_MIN_OCCURRENCES = 2  # a pair seen once has a success rate of 0 or 100 %, which says nothing


def report(store: Store, prompt_filter: str | None, min_occurrences: int | None, sort_by: str) -> dict[str, Any]:
    """The patterns seen at least `min_occurrences` times. Omitted (None): twice for a pattern
    learned from the history only, once for one with an observation recorded on purpose
    (`track_input_event`); `below_min_occurrences` counts the patterns this left out."""
    rows = []
    left_out = 0
    for pattern in learned(store).values():
        prompt_text = pattern.prompts.most_common(1)[0][0]
        if prompt_filter is not None and prompt_filter not in prompt_text:
            continue
        total = sum(c for c, _ in pattern.replies.values())
        least = min_occurrences if min_occurrences is not None else 1 if pattern.tracked else DEFAULT_MIN_OCCURRENCES
        if total < least:
            left_out += 1
            continue
        responses: list[Response] = sorted(({"input_text": pattern.reply_text[key].most_common(1)[0][0], "count": count,
                             "success_count": ok, "success_rate": round(ok / count, 4)}
                            for key, (count, ok) in pattern.replies.items()),
                           key=lambda r: (-r["count"], r["input_text"]))
        top = responses[0]
        rows.append({"prompt_text": prompt_text, "total_occurrences": total,
                     "most_common_response": {k: top[k] for k in ("input_text", "count", "success_rate")},
                     "all_responses": responses, "last_seen": format_ts(pattern.last_ms),
                     "success_rate": round(sum(r["success_count"] for r in responses) / total, 4)})
    keys = {"occurrences": lambda r: (-r["total_occurrences"], r["prompt_text"]),
            "last_seen": lambda r: (_desc(r["last_seen"]), r["prompt_text"]),
            "success_rate": lambda r: (-r["success_rate"], -r["total_occurrences"], r["prompt_text"])}
    rows.sort(key=keys[sort_by])
    return {"patterns": rows, "total_patterns": len(rows), "below_min_occurrences": left_out}


def _desc(text: str) -> tuple[int, ...]:
    return tuple(-ord(c) for c in text)
