"""What every adapter does to turn one record into events: number them, carry the session's
context on the record's first event, and record tool calls the same way (paired later by id,
Moraine's own tools excluded from search, web tools marking the session's mode)."""

from __future__ import annotations

from typing import Any

from moraine.model import Event, LineRef, make_uid
from moraine.sources._common import arguments_text, is_moraine_tool, is_web_tool, kept, new_event

MAX_CALLS = 512  # call id → tool name kept per file, to name the tool of a result


class Emitter:
    """The events of one record. IDs derive from the file place (line, index in the line), or,
    with `record_id`, from the record's own id, so a record written again replaces its copy."""

    def __init__(self, source: str, session_key: str, ref: LineRef, state: dict[str, Any], ts_ms: int,
                 base_meta: dict[str, Any] | None = None, record_id: str | None = None) -> None:
        self.source, self.session_key, self.ref, self.state, self.ts_ms = source, session_key, ref, state, ts_ms
        self.base_meta = base_meta or {}
        self.record_id = record_id
        self.events: list[Event] = []

    def add(self, type_: str, text: str = "", meta: dict[str, Any] | None = None, **fields: Any) -> Event:
        sub = len(self.events)
        merged = dict(self.base_meta) if sub == 0 else {}
        merged.update(meta or {})
        event = new_event(self.source, self.session_key, self.ref, sub, type_, self.ts_ms, text, meta=merged,
                          harness_version=self.state.get("version"), **fields)
        if self.record_id:
            event.uid = make_uid(self.source, self.session_key, self.record_id, sub)
        self.events.append(event)
        return event

    def tool_call(self, name: str | None, call_id: str | None, arguments: Any, model: str | None = None,
                  meta: dict[str, Any] | None = None) -> Event:
        """A tool call; its name is remembered under its id (or under "" when it has none: a
        result without an id pairs with the last such call)."""
        calls = self.state.setdefault("calls", {})
        if name:
            if len(calls) >= MAX_CALLS:
                calls.pop(next(iter(calls)))
            calls[kept(call_id or "")] = kept(name)
        extra = dict(meta or {})
        if is_web_tool(name):
            extra["web"] = True
        if is_moraine_tool(name):
            extra["moraine"] = True
        return self.add("tool_call", arguments_text(name, arguments), tool_name=name, tool_call_id=call_id,
                        arguments=arguments, excluded=is_moraine_tool(name), model=model, meta=extra)

    def tool_response(self, text: str, name: str | None, call_id: str | None, exit_code: int | None = None,
                      error: bool = False, meta: dict[str, Any] | None = None) -> Event:
        extra = dict(meta or {})
        if error:
            extra["is_error"] = True
        return self.add("tool_response", text, tool_name=name, tool_call_id=call_id, exit_code=exit_code,
                        excluded=is_moraine_tool(name), meta=extra)

    def tool_name(self, call_id: str | None) -> str | None:
        """The name of the call a result answers."""
        return self.state.get("calls", {}).get(kept(call_id or ""))


def announced(state: dict[str, Any], source: str) -> dict[str, Any]:
    """The session's cwd and parent, on the first record of the file only (a harness that logs
    them apart from the records: a folder, a side file)."""
    if state.get("announced"):
        return {}
    state["announced"] = True
    meta: dict[str, Any] = {}
    if state.get("cwd"):
        meta["cwd"] = state["cwd"]
    if state.get("parent"):
        meta["parent"] = f"{source}:{state['parent']}"
    return meta


def changed(state: dict[str, Any], values: dict[str, str | None]) -> dict[str, Any]:
    """Context a harness writes on every record (cwd, branch): announced when it changes."""
    meta: dict[str, Any] = {}
    for key, value in values.items():
        if value and kept(value) != state.get(key):
            state[key] = kept(value)
            meta[key] = value
    return meta
