"""Scopes people ask for — a harness, a project directory, a time window — as array masks.

Additive to the v1 contract: `search_sessions` and `list_sessions` take optional `source`
(harness names), `cwd` (a project directory, absolute or `~/…`: sessions whose cwd is it or
below it) and, for search, `since` / `until` (RFC 3339 or a date, `since` inclusive, `until`
exclusive, bounding the hit events' timestamps). Nothing here scans event text: sessions are matched once per call and
turned into a doc mask with one gather over the catalog's session column.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
from pydantic import Field

from moraine.errors import ContractError
from moraine.harnesses import NAMES
from moraine.mcp_server.arguments import MAX_PATH, MAX_TIME, Arguments, one_of
from moraine.mcp_server.contract import parse_datetime
from moraine.store.engine import Store
from moraine.store.session import Session

if TYPE_CHECKING:
    HarnessName = str
else:
    HarnessName = one_of(NAMES)


class ScopeArguments(Arguments):
    """The session filters `search_sessions` and `list_sessions` share."""

    source: list[HarnessName] | None = Field(None, min_length=1,
                                             description="Only sessions of these harnesses (null = all).")
    cwd: str | None = Field(None, min_length=1, max_length=MAX_PATH,
                            description="Only sessions whose working directory is this "
                            "directory or below it: an absolute path or ~/… (null = any).")


class TimeArguments(Arguments):
    """A window on the events' own times (search, the history search)."""

    since: str | None = Field(None, max_length=MAX_TIME,
                              description="Only events at or after this time: RFC 3339 with offset or Z, "
                              "or a date (2026-03-01 = its midnight UTC; null = no lower bound).")
    until: str | None = Field(None, max_length=MAX_TIME,
                              description="Only events before this time: RFC 3339 with offset or Z, or a "
                              "date (midnight UTC, exclusive; null = no upper bound).")


class TimeScopeArguments(ScopeArguments, TimeArguments):
    """The session filters and a window on the events' own times (search)."""


@dataclass(frozen=True)
class Scope:
    sources: tuple[str, ...] | None = None
    cwd: str | None = None
    since_ms: int | None = None
    until_ms: int | None = None

    @property
    def sessions_filtered(self) -> bool:
        return self.sources is not None or self.cwd is not None

    def echo(self) -> dict[str, Any]:
        """The canonical request fields of the filters that were given."""
        out: dict[str, Any] = {}
        if self.sources is not None:
            out["source"] = list(self.sources)
        if self.cwd is not None:
            out["cwd"] = self.cwd
        return out

    def session_ok(self, session: Session) -> bool:
        if self.sources is not None and session.source not in self.sources:
            return False
        if self.cwd is not None:
            cwd = session.cwd or ""
            return cwd == self.cwd or cwd.startswith(self.cwd + "/") or (self.cwd == "/" and cwd.startswith("/"))
        return True


def parse_scope(args: ScopeArguments) -> tuple[Scope, dict[str, Any]]:
    """The filters of a request and their canonical echo (the harnesses in the registry's order,
    the directory expanded, the times trimmed)."""
    sources = None if args.source is None else tuple(name for name in NAMES if name in args.source)
    cwd = None if args.cwd is None else _cwd(args.cwd)
    scope = Scope(sources, cwd)
    echo = scope.echo()
    if isinstance(args, TimeArguments):
        window, since, until = parse_window(args)
        echo.update(window)
        scope = Scope(sources, cwd, since, until)
    return scope, echo


def parse_window(args: TimeArguments) -> tuple[dict[str, str], int | None, int | None]:
    """The time window's canonical echo and bounds in epoch ms; `until` must follow `since`."""
    echo: dict[str, str] = {}
    since = until = None
    if args.since is not None:
        echo["since"], since = parse_datetime(args.since, "since")
    if args.until is not None:
        echo["until"], until = parse_datetime(args.until, "until")
    if since is not None and until is not None and until <= since:
        raise ContractError("invalid_request", "until must be later than since", {"field": "until"})
    return echo, since, until


def _cwd(value: str) -> str:
    """An absolute directory, or one under the user's home written `~/…` (`~user/…` too)."""
    if value.startswith("~"):
        expanded = os.path.expanduser(value)
        if not expanded.startswith("/"):  # `~nosuchuser/x`: no such user on this machine
            user = value[1:].split("/", 1)[0]
            raise ContractError("invalid_request", f"cwd names the home of {user!r}, who is no user on this machine",
                                {"field": "cwd", "example": "~/project"})
        value = expanded
    if not value.startswith("/"):
        raise ContractError("invalid_request", "cwd must be an absolute directory path or start with ~",
                            {"field": "cwd", "example": "~/project"})
    return value.rstrip("/") or "/"


def doc_scope(store: Store, scope: Scope, within: np.ndarray | None) -> np.ndarray | None:
    """The doc ids a search may return (None: no restriction), `within` (a session's or a turn's
    docs) intersected with the filters."""
    if not scope.sessions_filtered and scope.since_ms is None and scope.until_ms is None:
        return within
    sessions = store.read.session_mask(scope.sources, scope.cwd) if scope.sessions_filtered else None
    return store.read.docs_in_scope(sessions, scope.since_ms, scope.until_ms, within)
