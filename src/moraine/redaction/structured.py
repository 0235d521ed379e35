"""Redaction of what is not free text: structured values (tool arguments, metadata) judged key
by key, log paths as the state names them, and the process's rule set with the caches that
depend on it."""

from __future__ import annotations

import hashlib
from functools import lru_cache
from typing import Any

from moraine.config import RedactionConfig
from moraine.redaction.redact import (
    Settings,
    configure,
    redact,
    redact_cached,
    redact_field,
    redact_name_cached,
    redact_path,
)

# Metadata and argument values repeat from event to event (a cwd, a branch, a model, a
# path): short ones are redacted once per worker and remembered.
SHORT = 256

_field_cached = lru_cache(maxsize=65_536)(redact_field)

# Metadata that holds a name (a folder, a branch, a model), not text: redacted as a name.
_NAME_FIELDS = frozenset({"cwd", "git_branch", "branch", "model", "parent", "originator"})

REDACTED_PATH = "redacted-path:"


def _field(key: str, value: str) -> str:
    """`redact_field`, remembered for short values (a path, a command: they repeat)."""
    if key in _NAME_FIELDS and len(value) <= SHORT:
        return redact_name_cached(value)
    return _field_cached(key, value) if len(value) <= SHORT else redact_field(key, value)


def redact_value(node: Any) -> Any:
    """Every string inside a value (tool arguments, metadata), keys included, with
    credentials redacted."""
    if isinstance(node, str):
        return redact_cached(node) if len(node) <= SHORT else redact(node)
    if isinstance(node, list):
        return [redact_value(item) for item in node]
    if isinstance(node, dict):  # a string value is judged with its key: {"password": "hunter22"}
        return {redact_name_cached(key): _field(key, value) if isinstance(value, str) and isinstance(key, str)
                else redact_value(value) for key, value in node.items()}
    return node


@lru_cache(maxsize=65_536)
def path_key(path: str) -> str | None:
    """The name a log file goes by in the state: its path, unless the path holds a
    credential (a Claude project folder is named after its cwd) — then the redacted path
    behind `redacted-path:<hash of the real path>:`, so two such files never share a key and
    no secret byte is stored. None for a name that is not valid UTF-8 (it cannot be stored;
    the pipeline reports the file instead of reading it)."""
    try:
        path.encode("utf-8")
    except UnicodeEncodeError:
        return None
    clean = redact_path(path)
    if clean == path:
        return path
    digest = hashlib.blake2b(path.encode("utf-8"), digest_size=6).hexdigest()
    return f"{REDACTED_PATH}{digest}:{clean}"


def display_path(path: str) -> str:
    """A path as it can be shown and stored: invalid UTF-8 bytes as U+FFFD, credentials redacted."""
    text = path.encode("utf-8", "surrogateescape").decode("utf-8", "replace")
    return redact_path(text)


def settings_of(rules: RedactionConfig) -> Settings:
    """The rule set a configuration's `[redaction]` asks for."""
    return Settings(rules.enabled, tuple((p.name, p.pattern) for p in rules.extra_patterns), tuple(rules.allow))


def configure_redaction(settings: Settings) -> None:
    """Make `settings` the redaction rules of this process, forgetting every cached result."""
    configure(settings)
    path_key.cache_clear()
    _field_cached.cache_clear()
