"""`open`: expand a session, turn or event ID into structured context."""

from __future__ import annotations

import base64
import binascii
import json
from typing import Any

import orjson
from pydantic import Field

from moraine.errors import ContractError
from moraine.ingest.state import Freshness
from moraine.mcp_server.arguments import MAX_CURSOR, MAX_PATH, Arguments, check
from moraine.mcp_server.contract import (
    Answer,
    Call,
    ParsedId,
    Timer,
    ToolResult,
    compact,
    encode_cursor,
    parse_id,
    respond,
)
from moraine.mcp_server.refs import resolve
from moraine.mcp_server.tools import Tool
from moraine.mcp_server.views import (
    event_id,
    event_summary_text,
    one_line,
    session_brief,
    session_full,
    session_label,
    short_time,
    text_ref,
    turn_docs,
    turn_summary,
)
from moraine.model import Event, shown_ts
from moraine.store.engine import Store
from moraine.store.session import Session
from moraine.store.turns import Turn

NAME = "open"
DESCRIPTION = (
    "Open a Moraine ID returned by search_sessions, list_sessions or open. A session gives its "
    "metadata and every turn summarized; a turn gives its events summarized with traversal IDs; "
    "an event gives its full content (tool name, arguments, exit code, output)."
)


class OpenArguments(Arguments):
    id: str = Field(min_length=1, max_length=MAX_PATH,
                    description="A session:, turn: or event: ID returned by Moraine; or a harness's "
                    "own session id (native_id, as codex resume / claude --resume show it) or a log file's path, "
                    "which open as their session.")
    offset: int | None = Field(None, ge=0, description="Event only: first character of the content page (default "
                               "0; null = omitted).")
    max_chars: int | None = Field(None, ge=1, description="Event only: characters in the content page (default and "
                                  "maximum: what fits the reply bound; null = omitted).")
    cursor: str | None = Field(None, max_length=MAX_CURSOR,
                               description="Session or turn: next_cursor of the previous page of turns or "
                               "events (null = first page).")
    content_in_text: bool = Field(False, description="Event: also put the content page in the text block, for hosts "
                                  "that show the model only the text (default false: the page is in "
                                  "structuredContent data.content.text only; null = false).")


PAGE_SHARE = 0.4  # of the reply bound, for an event's content page (in the JSON; in the text too with content_in_text)
LIST_SHARE = 0.7  # of the reply bound, for a page of turns or events (JSON + one line of text each)
LINE_CHARS = 200  # the text block's lines for one turn or event, beside the texts they quote
SLA = {"event": 200, "turn": 300, "session": 500}
SLA_BIG_SESSION = 1500
MAX_EMPTY_SKIPPED = 10_000  # blank events passed over looking for one with text, at most


def _canonical(store: Store, raw: Any) -> tuple[dict[str, Any], ParsedId]:
    args = check(OpenArguments, raw)
    if not args.id.strip():
        raise ContractError("invalid_request", "id must be a non-empty string", {"field": "id"})
    request: dict[str, Any] = {"id": args.id}
    resolved = resolve(store, args.id, "id")  # a native session id or a log path → its session's ID
    parsed = parse_id(resolved)
    if resolved != args.id:
        request["resolved_id"] = resolved
    _paging(args, parsed, request)
    return request, parsed


def _paging(args: OpenArguments, parsed: ParsedId, request: dict[str, Any]) -> None:
    """The paging arguments, checked against the kind of ID opened, into `request`."""
    for name in ("offset", "max_chars"):
        number = getattr(args, name)
        if number is not None:
            if parsed.kind != "event":
                raise ContractError("invalid_request", f"{name} pages an event's content; use cursor for a "
                                    f"{parsed.kind}", {"field": name})
            request[name] = number
    if "content_in_text" in args.model_fields_set:  # echoed as given
        request["content_in_text"] = args.content_in_text  # a session or turn has no page: ignored there
    if args.cursor is not None:
        if parsed.kind == "event":
            raise ContractError("invalid_request", "cursor pages a session's turns or a turn's events; use "
                                "offset for an event", {"field": "cursor"})
        request["cursor"] = args.cursor


def _page_start(request: dict[str, Any], owner: str, total: int) -> int:
    """Where a page of turns or events starts: the cursor is bound to the ID it came from, and
    points inside its `total` items (a next_cursor is only given while more follow)."""
    cursor = request.get("cursor")
    if cursor is None:
        return 0
    bad = ContractError("invalid_request", "cursor is not a next_cursor of this open", {"field": "cursor"})
    try:
        if not isinstance(cursor, str) or len(cursor) > 256:
            raise ValueError
        payload = json.loads(base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4)))
    except (ValueError, binascii.Error):
        raise bad from None
    if (not isinstance(payload, dict) or set(payload) != {"o", "n"} or payload["o"] != owner
            or type(payload["n"]) is not int or not 0 < payload["n"] < total):
        raise bad
    return int(payload["n"])


def _page(items: list[Any], start: int, budget: int, build: Any) -> tuple[list[dict[str, Any]], int | None]:
    """Built items from `start` while their JSON fits `budget` (at least one); the next start or None."""
    page: list[dict[str, Any]] = []
    used = 0
    for i in range(start, len(items)):
        item = build(items[i])
        size = len(orjson.dumps(item)) + _text_cost(item)
        if page and used + size > budget:
            return page, i
        page.append(item)
        used += size
    return page, None


def _text_cost(item: dict[str, Any]) -> int:
    """What a turn summary or an event row adds to the text block: its line, and the prompt,
    final response or summary it quotes."""
    quoted = [item.get("summary") or ""]
    for key in ("user_input", "final_response"):
        ref = item.get(key)
        quoted.append(ref["text"] if isinstance(ref, dict) and ref.get("text") else "")
    return LINE_CHARS + sum(map(len, quoted))


def _cursor(owner: str, start: int | None) -> str | None:
    if start is None:
        return None
    return encode_cursor({"o": owner, "n": start})


def _locate(store: Store, parsed: ParsedId, raw: str) -> tuple[Session, Turn | None, int | None]:
    missing = ContractError("not_found", f"{parsed.kind} not found", {"id": raw})  # the spec's example, exactly
    if parsed.kind == "event":
        doc = store.read.doc_by_uid(parsed.key)
        if doc is None:
            raise missing
        event_session, turn, _ = store.read.turn_of(doc)
        return event_session, turn, doc
    session = store.read.session_by_sid(parsed.key)
    if session is None or not session.docs:  # unknown, or every event retired (its log forgotten)
        raise missing
    if parsed.kind == "session":
        return session, None, None
    turns = store.read.turns(session)
    if parsed.ordinal > len(turns):
        raise missing
    return session, turns[parsed.ordinal - 1], None


def _open_session(store: Store, session: Session, request: dict[str, Any]) -> dict[str, Any]:
    previous, following = store.read.neighbours(session)
    children = store.read.children_ids(session)
    turns = store.read.turns(session)
    start = _page_start(request, session.id, len(turns))
    budget = int(store.config.mcp.max_reply_chars * LIST_SHARE)
    page, following_page = _page(turns, start, budget, lambda turn: turn_summary(store, session, turn))
    return {
        "kind": "session",
        "session": session_full(store, session),
        "turns": page,
        "turns_shown": {"from_ordinal": start + 1, "to_ordinal": start + len(page), "total": len(turns)},
        "next_cursor": _cursor(session.id, following_page),
        "subagent_session_ids": children,
        "log_paths": sorted(session.file_ts),
        "traversal": {"previous_session_id": previous, "next_session_id": following},
    }


def _adjacent_turns(store: Store, session: Session, turn: Turn) -> tuple[str | None, str | None]:
    count = len(store.read.turns(session))
    previous = store.read.turn_id(session, turn.ordinal - 1) if turn.ordinal > 1 else None
    following = store.read.turn_id(session, turn.ordinal + 1) if turn.ordinal < count else None
    return previous, following


def _event_row(store: Store, turn: Turn, doc: int, ordinal: int) -> dict[str, Any]:
    event = store.read.event(doc)
    summary, truncated = compact(event_summary_text(event))
    return {
        "id": store.read.event_id(doc), "ordinal": ordinal, "type": event.type,
        "timestamp": shown_ts(event.ts_ms), "terminal": turn.terminal_doc == doc,
        "tool_name": event.tool_name if event.type in ("tool_call", "tool_response") else None,
        "model": event.model, "summary": summary, "truncated": truncated,
    }


def _open_turn(store: Store, session: Session, turn: Turn, request: dict[str, Any]) -> dict[str, Any]:
    docs = turn_docs(session, turn)
    previous, following = _adjacent_turns(store, session, turn)
    tid = store.read.turn_id(session, turn.ordinal)
    start = _page_start(request, tid, len(docs))
    budget = int(store.config.mcp.max_reply_chars * LIST_SHARE)
    numbered = list(enumerate(docs, start=1))
    rows, following_page = _page(numbered, start, budget, lambda item: _event_row(store, turn, item[1], item[0]))
    return {
        "kind": "turn",
        "turn": {
            "id": tid, "session_id": session.id, "ordinal": turn.ordinal,
            "completed": turn.completed, "terminal_event_id": event_id(store, turn.terminal_doc),
            "event_count": len(docs), "started_at": shown_ts(turn.started_ms),
            "updated_at": shown_ts(turn.updated_ms),
        },
        "session": session_brief(store, session),
        "summary": {
            "user_input": text_ref(store, turn.user_doc),
            "final_response": text_ref(store, turn.final_doc),
            "tools_called": store.read.tools_called(docs),
            "event_types": store.read.event_types(docs),
        },
        "events": rows,
        "next_cursor": _cursor(tid, following_page),
        "traversal": {
            "session_id": session.id, "previous_turn_id": previous, "next_turn_id": following,
            "first_event_id": event_id(store, docs[0]) if docs else None,
            "last_event_id": event_id(store, docs[-1]) if docs else None,
        },
    }


def _content(event: Event, request: dict[str, Any], budget: int) -> dict[str, Any]:
    """The event's content; its text a page of at most `budget` characters (`offset`,
    `max_chars`): pages concatenate to exactly the logged text."""
    total = len(event.text)
    offset = min(request.get("offset", 0), total)
    end = min(total, offset + min(request.get("max_chars", budget), budget))
    page = {"text": event.text[offset:end], "truncated": end < total, "offset": offset, "total_chars": total,
            "next_offset": end if end < total else None}
    if event.type == "tool_call":
        arguments: Any = event.arguments
        omitted = arguments is not None and len(orjson.dumps(arguments)) > budget // 4
        content = {"format": "tool_call", "tool_name": event.tool_name, "arguments": None if omitted else arguments,
                   **page}
        if omitted:  # too large to repeat beside the text, which holds every argument value (paged)
            content["arguments_omitted"] = True
        return content
    if event.type == "tool_response":
        content = {"format": "tool_response", "tool_name": event.tool_name, "exit_code": event.exit_code, **page}
        if event.meta.get("is_error"):
            content["is_error"] = True
        return content
    if event.type == "reasoning":
        content = {"format": "reasoning", **page}
        if event.meta.get("encrypted"):
            content["encrypted"] = True
        return content
    return {"format": "text", **page}


def _open_event(store: Store, session: Session, turn: Turn, doc: int, request: dict[str, Any]) -> dict[str, Any]:
    event = store.read.event(doc)
    position = store.read.position_in_session(doc)
    ordinal = position - turn.start + 1
    previous, following = _adjacent_turns(store, session, turn)
    tid = store.read.turn_id(session, turn.ordinal)
    return {
        "kind": "event",
        "event": {
            "id": store.read.event_id(doc), "session_id": session.id, "turn_id": tid, "ordinal": ordinal,
            "type": event.type, "timestamp": shown_ts(event.ts_ms), "terminal": turn.terminal_doc == doc,
            "model": event.model, "originating_model": store.read.model_at(session, position),
            "tool_name": event.tool_name, "harness_version": event.harness_version,
        },
        "content": _content(event, request, int(store.config.mcp.max_reply_chars * PAGE_SHARE)),
        "session": session_brief(store, session),
        "turn": {"id": tid, "ordinal": turn.ordinal, "completed": turn.completed},
        "traversal": {
            "session_id": session.id, "turn_id": tid,
            "previous_event_id": event_id(store, session.docs[position - 1]) if position > turn.start else None,
            "next_event_id": event_id(store, session.docs[position + 1]) if position + 1 < turn.end else None,
            "previous_turn_id": previous, "next_turn_id": following,
            "previous_nonempty_event_id": _nearest_with_text(store, session, position, -1),
            "next_nonempty_event_id": _nearest_with_text(store, session, position, 1),
        },
        "source": {"file": event.file, "line": event.line, "offset": event.offset},
    }


def _nearest_with_text(store: Store, session: Session, position: int, step: int) -> str | None:
    """The nearest event before (step -1) or after (step 1) the one at `position` in the
    session, crossing turn boundaries, whose text is not blank: what an agent reading on wants
    rather than an empty `system` or encrypted `reasoning` record. None at the session's ends."""
    docs = session.docs
    i = position + step
    for _ in range(MAX_EMPTY_SKIPPED):
        if not 0 <= i < len(docs):
            return None
        if store.read.event_text(docs[i]).strip():
            return store.read.event_id(docs[i])
        i += step
    return None


def run(store: Store, args: Any, timer: Timer | None = None, fresh: Freshness | None = None) -> ToolResult:
    return respond(Call(NAME, args, timer or Timer(), SLA["event"]), lambda call: _answer(store, call), render)


def _answer(store: Store, call: Call) -> Answer:
    request, parsed = _canonical(store, call.args)
    call.sla_ms = SLA[parsed.kind]
    session, turn, doc = _locate(store, parsed, request.get("resolved_id", request["id"]))
    if parsed.kind == "session":
        if len(store.read.turns(session)) > 100:
            call.sla_ms = SLA_BIG_SESSION
        data = _open_session(store, session, request)
    elif parsed.kind == "turn":
        assert turn is not None
        data = _open_turn(store, session, turn, request)
    else:
        assert turn is not None and doc is not None
        data = _open_event(store, session, turn, doc, request)
    return request, data, []


def render(envelope: dict[str, Any]) -> str:
    """The text reply of a successful `open`, by the kind of ID opened."""
    data = envelope["data"]
    if data["kind"] == "session":
        return _render_session(data)
    if data["kind"] == "turn":
        return _render_turn(data)
    return _render_event(data, bool(envelope["request"].get("content_in_text")))


def _render_session(data: dict[str, Any]) -> str:
    """Session header, then one line per turn shown (its prompt and how it ended), then how to
    get the next page."""
    s = data["session"]
    lines = [one_line(f'Session {s["id"]} — {s["title"] or "(untitled)"} ({s["source"]}, {s["mode"]}, '
                      f'{s["turn_count"]} turns, {s["event_count"]} events, '
                      f'{"completed" if s["completed"] else "not completed"})'),
             one_line(f'{s["started_at"] or "?"} → {s["updated_at"] or "?"}  cwd: {s["cwd"]}'
                      + (f'  branch: {s["git_branch"]}' if s.get("git_branch") else ""))]
    if s.get("resume_command"):
        lines.append(one_line(f'resume: {s["resume_command"]}'))
    if s.get("parent_session_id"):
        lines.append(f'subagent of {s["parent_session_id"]}')
    if data["subagent_session_ids"]:
        lines.append(f'subagents: {", ".join(data["subagent_session_ids"])}')
    for t in data["turns"]:
        prompt = (t["user_input"] or {}).get("text") or "(no user input)"
        final = (t["final_response"] or {}).get("text")
        tools = f' tools: {one_line(", ".join(t["tools_called"][:6]))}.' if t["tools_called"] else ""
        lines.append(f'  turn {t["ordinal"]} {t["id"]} {short_time(t["started_at"])}, {t["event_count"]} events'
                     f'{"" if t["completed"] else " [incomplete]"}: {prompt}')
        if final or tools:
            lines.append(f'    →{tools}{" " + final if final else ""}')
    shown = data["turns_shown"]
    if data["next_cursor"]:
        lines.append(f'turns {shown["from_ordinal"]}–{shown["to_ordinal"]} of {shown["total"]} shown; for the '
                     f'next ones call open with id={s["id"]} and cursor={data["next_cursor"]}')
    traversal = data["traversal"]
    lines.append(f'previous session (same cwd): {traversal["previous_session_id"] or "none"}; next: '
                 f'{traversal["next_session_id"] or "none"}')
    return "\n".join(lines)


def _render_turn(data: dict[str, Any]) -> str:
    """Turn header, then one line per event shown, then how to get the next page."""
    t, tr = data["turn"], data["traversal"]
    lines = [f'Turn {t["ordinal"]} of {data["session"]["id"]} — {t["event_count"]} events, '
             f'{"completed" if t["completed"] else "not completed"}, '
             f'{t["started_at"] or "?"} → {t["updated_at"] or "?"}',
             f'session: {session_label(data["session"])}']
    for e in data["events"]:
        tool = f' {one_line(e["tool_name"])}' if e["tool_name"] else ""
        summary = e["summary"] or "(empty)"
        clock = (e["timestamp"] or "")[11:19] or "?"
        lines.append(f'  {e["ordinal"]}. {clock} [{e["type"]}{tool}] {summary}  ({e["id"]})')
    if data["next_cursor"]:
        lines.append(f'events 1–{data["events"][-1]["ordinal"] if data["events"] else 0} shown; for the next '
                     f'ones call open with id={t["id"]} and cursor={data["next_cursor"]}')
    lines.append(f'previous turn: {tr["previous_turn_id"] or "none"}; next turn: {tr["next_turn_id"] or "none"}')
    return "\n".join(lines)


PREVIEW_CHARS = 200  # of an event's content in the text block, when the page itself is not there


def _render_event(data: dict[str, Any], with_page: bool) -> str:
    """Event header, where its content is (the page itself only with content_in_text: it is in
    structuredContent, never in both unasked), the traversal, and how to get the rest of a cut page."""
    e, c, tr = data["event"], data["content"], data["traversal"]
    head = f'Event {e["id"]} [{e["type"]}] {e["timestamp"] or "(no time)"} in {e["turn_id"]}'
    if c.get("tool_name"):
        head += f' tool={one_line(c["tool_name"])}'
    if c.get("exit_code") is not None:
        head += f' exit_code={c["exit_code"]}'
    if e.get("harness_version"):
        head += f' ({one_line(data["session"]["source"])} {one_line(e["harness_version"])})'
    lines = [head, f'session: {session_label(data["session"])} ({data["session"]["id"]})']
    span = f'characters {c["offset"]}–{c["offset"] + len(c["text"])} of {c["total_chars"]}'
    if with_page:
        lines += [f"content ({span}):", c["text"]]
    elif c["text"]:
        preview, cut = compact(c["text"], PREVIEW_CHARS)
        lines.append(f'content: {span}, in structuredContent data.content.text'
                     + ("" if not cut else "; this text shows its start (call open with content_in_text=true "
                        "if this host shows you no structuredContent)") + ":")
        lines.append(preview)
    else:
        lines.append("content: empty" + (" (encrypted)" if c.get("encrypted") else ""))
    if c.get("arguments_omitted"):
        lines.append("arguments: too large to repeat beside the text, which holds every value")
    ids = {key: value or "none" for key, value in tr.items()}
    lines.append(f'previous event: {ids["previous_event_id"]}; next event: {ids["next_event_id"]}; with text: '
                 f'previous {ids["previous_nonempty_event_id"]}, next {ids["next_nonempty_event_id"]}')
    lines.append(f'previous turn: {ids["previous_turn_id"]}; next turn: {ids["next_turn_id"]}')
    if c["truncated"]:
        lines.append(f'[{span} in this page; for the rest call open with id={e["id"]} and '
                     f'offset={c["next_offset"]}]')
    return "\n".join(lines)


TOOL = Tool(NAME, DESCRIPTION, OpenArguments, run)
