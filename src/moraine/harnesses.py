"""The harnesses Moraine reads, one row each: the one list every other place reads.

A harness is named here once. Its adapter in `sources/` is registered under the same name (a
test holds the two lists equal, and asks each for samples in `data_samples/`); the configuration's
allowed names and default log roots, the resume command an answer carries, the source filter's
allowed values and the environment variables the tests clear all come from this table. Adding a
harness is a row here, an adapter, and its samples.

The order is the order of every list shown to people (status, errors): the two harnesses that are
always configured first, then the others as they were added.
"""

from __future__ import annotations

import shlex
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

REDACTED = "[REDACTED:"  # the mark a redacted credential leaves (`redaction.redact.PLACEHOLDER`)

@dataclass(frozen=True)
class Harness:
    """Where a harness keeps its logs by default, and how to go back to one of its sessions."""

    name: str
    variables: tuple[str, ...]  # the environment variables that move its folder, the first set wins
    home_dir: str  # its folder under `$HOME` when none is set ("" for the home itself)
    below: str  # where the logs are, below that folder
    resume: str | None  # the command that reopens a session, `{}` standing for its native id
    resume_in_cwd: bool = True  # it looks the id up among the sessions of the folder it runs in
    optional: bool = True  # absent until installed (watched for); else always configured, and reported missing

    def root(self, env: Mapping[str, str], home: Path) -> Path:
        """Its default log root for this environment and home."""
        given = next((env[name] for name in self.variables if env.get(name)), None)
        folder = Path(given) if given else home / self.home_dir
        return folder.expanduser() / self.below

    def resume_command(self, native_id: str, cwd: str | None) -> str | None:
        """The shell command that reopens the session `native_id` (quoted here), from `cwd`
        when the harness finds sessions by folder (without the `cd` when the folder's name held a
        credential and was redacted: that folder does not exist); None when the harness has none."""
        if self.resume is None:
            return None
        command = self.resume.format(shlex.quote(native_id))
        if self.resume_in_cwd and cwd and REDACTED not in cwd:  # a redacted folder cannot be changed into
            return f"cd {shlex.quote(cwd)} && {command}"
        return command


HARNESSES: dict[str, Harness] = {h.name: h for h in (
    Harness("codex", ("CODEX_HOME",), ".codex", "sessions", "codex resume {}", resume_in_cwd=False, optional=False),
    Harness("claude-code", ("CLAUDE_CONFIG_DIR",), ".claude", "projects", "claude --resume {}", optional=False),
    Harness("pi", ("PI_CODING_AGENT_DIR",), ".pi/agent", "sessions", "pi --session {}"),
    Harness("qwen-code", ("QWEN_RUNTIME_DIR", "QWEN_HOME"), ".qwen", "projects", "qwen --resume {}"),
    Harness("kimi-cli", ("KIMI_SHARE_DIR",), ".kimi", "sessions", "kimi -r {}"),
    Harness("cursor", ("CURSOR_HOME",), ".cursor", "projects", "cursor-agent --resume {}"),  # CURSOR_HOME: Moraine's
    Harness("copilot-cli", ("COPILOT_HOME",), ".copilot", "session-state", "copilot --resume {}",
            resume_in_cwd=False),  # found by id wherever it is run
    Harness("gemini-cli", ("GEMINI_CLI_HOME",), "", ".gemini/tmp", "gemini --resume {}"),  # it names a home
    Harness("opencode", ("XDG_DATA_HOME",), ".local/share", "opencode", "opencode --session {}"),
)}
NAMES: tuple[str, ...] = tuple(HARNESSES)
# Every variable that moves a harness's folder (what a test clears to see only its own logs).
VARIABLES: tuple[str, ...] = tuple(dict.fromkeys(v for h in HARNESSES.values() for v in h.variables))
