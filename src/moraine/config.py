"""One validated `Config`: defaults < `$MORAINE_HOME/config.toml` < `MORAINE_*` env < flags.

Unknown keys are errors everywhere, so a typo in the file fails fast with its name.
"""

from __future__ import annotations

import os
import tomllib
from pathlib import Path
from typing import Any, Literal

import re2
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from moraine.errors import ConfigError
from moraine.harnesses import HARNESSES, NAMES


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


def absolute(path: Path) -> Path:
    """`~` expanded and made absolute against the working directory now: a relative root or state
    (`CODEX_HOME=data_samples/codex`) named from another directory later, by a daemon, a host
    or the same person elsewhere, would name other files (every log would look deleted)."""
    return Path(os.path.abspath(path.expanduser()))


class SourceConfig(_Strict):
    """A harness log root; the adapter knows the file pattern below it."""

    name: str
    harness: str  # one of `harnesses.NAMES`
    root: Path
    enabled: bool = True

    @field_validator("harness")
    @classmethod
    def _known_harness(cls, value: str) -> str:
        if value not in HARNESSES:
            raise ValueError(f"unknown harness {value!r}; known: {', '.join(NAMES)}")
        return value

    @field_validator("root")
    @classmethod
    def _absolute_root(cls, value: Path) -> Path:
        return absolute(value)
    # A harness's default root, there only once that harness is installed: the daemon watches for
    # it to appear, and while it is missing it is neither reported nor counted as configured.
    optional: bool = False

    def in_use(self) -> bool:
        """Enabled, and (for an optional default root) present."""
        return self.enabled and (not self.optional or Path(self.root).expanduser().is_dir())


class Bm25Config(_Strict):
    k1: float = Field(default=1.2, gt=0, le=10)
    b: float = Field(default=0.75, ge=0, le=1)
    max_query_terms: int = Field(default=32, ge=1, le=256)


class IngestConfig(_Strict):
    exclude: list[str] = Field(default_factory=list, description="glob patterns of log paths to skip")
    debounce_ms: int = Field(default=100, ge=0, le=60_000)
    reconcile_interval_s: float = Field(default=30.0, ge=1, le=86_400)
    batch_events: int = Field(default=5000, ge=1, le=1_000_000)
    workers: int = Field(default_factory=lambda: os.cpu_count() or 1, ge=1, le=64,
                         description="processes that parse and redact logs during a bulk pass")
    follow_symlinks: bool = Field(default=False, description="follow symlinks whose target is outside the source root")


class StoreConfig(_Strict):
    fsync: Literal["always", "batch", "never"] = Field(
        default="batch", description="WAL durability: fsync every frame, once per ingest pass, or leave it to the OS")
    seal_events: int = Field(default=50_000, ge=100, le=10_000_000)
    snapshot_events: int = Field(default=200_000, ge=1, le=100_000_000,
                                 description="events in the WAL after which a snapshot is published")


class DaemonConfig(_Strict):
    socket: Path | None = Field(default=None, description="the MCP socket (default $MORAINE_HOME/run/mcp.sock)")
    snapshot_interval_s: float = Field(default=300.0, ge=1, le=86_400,
                                       description="publish a snapshot this often when anything changed")
    start_timeout_s: float = Field(default=120.0, ge=1, le=3600,
                                   description="how long `moraine mcp` waits for a daemon")
    idle_exit_s: float = Field(default=1800.0, ge=0,
                               description="a daemon started by `moraine mcp` exits after this long without "
                               "connections (0: never); one started by `moraine daemon` only when set")
    catch_up_on_call: bool = Field(default=True, description="read live logs' new lines before answering each call")
    max_connections: int = Field(default=256, ge=1, le=65_536,
                                 description="connections served at once; one more is answered with an error and "
                                 "closed (each idle one holds memory: thousands of them would hold it for good)")


class McpConfig(_Strict):
    max_reply_chars: int = Field(default=100_000, ge=10_000, le=10_000_000,
                                 description="bound on one tool reply: its text block plus the compact JSON of "
                                 "structuredContent (agent hosts cap tool results, Claude Code at ~25k tokens)")
    allow_write_tools: bool = Field(default=False,
                                    description="list track_input_event and cleanup_old_sessions over MCP")


class RetentionConfig(_Strict):
    delete_logs: bool = Field(default=False, description="cleanup also deletes the forgotten sessions' log files")


class SearchConfig(_Strict):
    backend: Literal["auto", "numpy", "numba"] = Field(
        default="auto", description="the window search: numba compiled (auto: when numba is installed; the daemon "
        "loads it in the background and answers with numpy meanwhile) or numpy")
    min_should_match: int = Field(default=1, ge=1, le=256, description="default: query terms a hit must contain")
    min_score: float = Field(default=0.0, ge=0, le=1, description="default: hits scoring below this are left out")
    history_workers: int = Field(default_factory=lambda: min(os.cpu_count() or 1, 4), ge=1, le=64,
                                 description="processes a search_session_history scan is split over (1: none)")
    history_parallel_bytes: int = Field(default=32 << 20, ge=0, description="text to scan above which the worker "
                                        "processes share it (below, starting them would cost more)")


class TelemetryConfig(_Strict):
    query_log: bool = Field(default=False, description="keep a local log of queries, results and opens (never sent "
                            "anywhere) for `moraine queries`")


class RedactionPattern(_Strict):
    name: str = Field(pattern=r"^[a-z0-9][a-z0-9_.-]{0,40}$", description="placeholder: [REDACTED:user-<name>]")
    pattern: str = Field(min_length=1, description="RE2 syntax (linear time)")


class RedactionConfig(_Strict):
    """Credential redaction at ingest. Switching it off takes two settings, so it never
    happens by one typo, and everything that reports on the state says it is off."""

    enabled: bool = True
    store_secrets_in_plain_text: bool = Field(default=False, description="must be true too for enabled = false")
    extra_patterns: list[RedactionPattern] = Field(default_factory=list)
    allow: list[str] = Field(default_factory=list, description="RE2 patterns: a credential that fully "
                             "matches one is kept (e.g. a well-known test key)")

    @model_validator(mode="after")
    def _check(self) -> RedactionConfig:
        if not self.enabled and not self.store_secrets_in_plain_text:
            raise ValueError("enabled = false stores every credential of your logs in plain text; "
                             "set store_secrets_in_plain_text = true as well to mean it")
        for label, pattern in [*((f"extra_patterns {p.name}", p.pattern) for p in self.extra_patterns),
                               *((f"allow {p!r}", p) for p in self.allow)]:
            options = re2.Options()
            options.log_errors = False
            try:
                re2.compile(pattern, options)
            except re2.error as exc:
                detail = exc.args[0].decode("utf-8", "replace") if exc.args and isinstance(exc.args[0], bytes) else exc
                raise ValueError(f"{label}: not a valid RE2 pattern: {detail}") from exc
        return self


class Config(_Strict):
    home: Path
    sources: list[SourceConfig]

    @field_validator("home")
    @classmethod
    def _absolute_home(cls, value: Path) -> Path:
        return absolute(value)

    @field_validator("sources")
    @classmethod
    def _distinct(cls, sources: list[SourceConfig]) -> list[SourceConfig]:
        """A source is named in `moraine status` and `index_status`: two of one name could not be
        told apart. Two of one harness whose roots are the same folder, or one inside the other,
        would read each log below both twice."""
        seen: dict[str, SourceConfig] = {}
        for source in sources:
            if source.name in seen:
                raise ValueError(f"two sources are named {source.name!r}: give each [[sources]] its own name")
            seen[source.name] = source
            for other in list(seen.values())[:-1]:
                if other.harness == source.harness and _overlap(other.root, source.root):
                    raise ValueError(f"sources {other.name!r} ({other.root}) and {source.name!r} ({source.root}) "
                                     f"read the same {source.harness} logs: keep the one whose root holds both")
        return sources
    bm25: Bm25Config = Bm25Config()
    ingest: IngestConfig = IngestConfig()
    store: StoreConfig = StoreConfig()
    daemon: DaemonConfig = DaemonConfig()
    mcp: McpConfig = McpConfig()
    search: SearchConfig = SearchConfig()
    telemetry: TelemetryConfig = TelemetryConfig()
    retention: RetentionConfig = RetentionConfig()
    redaction: RedactionConfig = RedactionConfig()

    @property
    def socket_path(self) -> Path:
        return self.daemon.socket or self.home / "run" / "mcp.sock"

    @property
    def state_dir(self) -> Path:
        return self.home


def _overlap(a: Path, b: Path) -> bool:
    """Whether one root is the other or inside it (symlinks resolved where they exist)."""
    a, b = a.expanduser().resolve(), b.expanduser().resolve()
    return a == b or a in b.parents or b in a.parents


def default_home(env: dict[str, str]) -> Path:
    return Path(env.get("MORAINE_HOME") or Path.home() / ".moraine").expanduser()


def default_sources(env: dict[str, str]) -> list[dict[str, Any]]:
    """Every harness's default log root, from the environment given (its own variable, else
    `HOME`), so a test's environment decides. Codex's and Claude Code's are always configured
    (a missing one is reported); the others are optional: watched for until they appear."""
    home = Path(env["HOME"]) if env.get("HOME") else Path.home()
    return [{"name": h.name, "harness": h.name, "root": str(h.root(env, home)),
             **({"optional": True} if h.optional else {})} for h in HARNESSES.values()]


def _merge(base: dict[str, Any], extra: dict[str, Any]) -> dict[str, Any]:
    merged = dict(base)
    for key, value in extra.items():
        if isinstance(value, dict) and isinstance(merged.get(key), dict):
            merged[key] = _merge(merged[key], value)
        else:
            merged[key] = value
    return merged


_NOT_SETTINGS = ("MORAINE_HOME", "MORAINE_CONFIG")


def _env_overrides(env: dict[str, str]) -> dict[str, Any]:
    """`MORAINE_BM25_K1=1.5` → `{"bm25": {"k1": "1.5"}}` (pydantic converts the type)."""
    sections = {name for name, info in Config.model_fields.items() if isinstance(info.default, BaseModel)}
    result: dict[str, Any] = {}
    for key, value in env.items():
        if not key.startswith("MORAINE_") or key in ("MORAINE_HOME", "MORAINE_CONFIG"):
            continue
        section, _, field = key[len("MORAINE_"):].lower().partition("_")
        if section in sections and field:
            result.setdefault(section, {})[field] = value.split(",") if field == "exclude" else value
    return result


def load_config(overrides: dict[str, Any] | None = None, env: dict[str, str] | None = None) -> Config:
    """Build the configuration from every layer; a bad layer is a `ConfigError` naming it."""
    env = dict(os.environ if env is None else env)
    home = Path(overrides["home"]) if overrides and overrides.get("home") else default_home(env)
    data: dict[str, Any] = {"home": str(home), "sources": default_sources(env)}
    path = Path(env["MORAINE_CONFIG"]) if env.get("MORAINE_CONFIG") else home / "config.toml"
    if path.is_file():
        try:
            data = _merge(data, tomllib.loads(path.read_text(encoding="utf-8")))
        except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
            raise ConfigError(f"{path}: not valid TOML: {exc}") from exc
    file_label = str(path) if path.is_file() else "defaults"
    _validate(data, file_label)
    env_layer = _env_overrides(env)
    data = _merge(data, env_layer)
    if env_layer:
        names = ", ".join(sorted(k for k in env if k.startswith("MORAINE_") and k not in _NOT_SETTINGS))
        _validate(data, f"environment {names}")
    data = _merge(data, {k: v for k, v in (overrides or {}).items() if v is not None})
    return _validate(data, "command-line flags")


def _validate(data: dict[str, Any], layer: str) -> Config:
    """Validate the layers merged so far; an error names the layer that introduced it."""
    try:
        return Config.model_validate(data)
    except ValidationError as exc:
        problems = "; ".join(f"{'.'.join(str(p) for p in err['loc'])}: {err['msg']}" for err in exc.errors())
        raise ConfigError(f"invalid configuration ({layer}): {problems}") from exc
