"""One error tree for the whole package.

Bad input is data, not an exception, inside the pipeline (see `model.IngestIssue`); the
exceptions here cross module boundaries and are mapped to contract codes in exactly one
place (`mcp_server.contract.error_envelope`) and to exit codes in one place (`cli`).
"""

from __future__ import annotations

from typing import Any


class MoraineError(Exception):
    """Base of every error Moraine raises on purpose."""

    exit_code = 1


class ContractError(MoraineError):
    """A tool request the contract rejects; carries the exact contract error code."""

    def __init__(self, code: str, message: str, details: dict[str, Any] | None = None) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.details = details or {}


class UsageError(MoraineError):
    """The command line is wrong in a way argparse cannot see."""

    exit_code = 2


class ConfigError(MoraineError):
    """The configuration file, environment or flags are wrong."""

    exit_code = 3


class StateError(MoraineError):
    """The state directory is missing, locked, unreadable or damaged."""

    exit_code = 4


class DaemonRunningError(MoraineError):
    """Another daemon already serves this state (or its socket)."""

    exit_code = 6


class NoLogsError(MoraineError):
    """None of the configured source roots holds any log."""

    exit_code = 5


class UntrustedSocketError(MoraineError):
    """The daemon's socket, its directory or the state directory could be another user's: owned by
    someone else, writable by group or others, or served by a process of another user."""

    exit_code = 7
