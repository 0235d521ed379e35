"""One error tree for the whole package.

Bad input is data, not an exception, inside the pipeline (see `model.IngestIssue`); the
exceptions here cross module boundaries and are mapped to a tool's in-band error in exactly
one place (`mcp_server.contract`: `error_envelope` for the v1 tools, where `ContractError` carries
its code, `DeadlineExceeded` is `deadline_exceeded` and anything else `internal_error`; `seed_failure`
for the history tools, where `SeedError` carries their own upper-case code, a `ContractError` (an
argument refused by the check every tool shares) is `INVALID_REQUEST` and anything else is
`INTERNAL_ERROR`) and to exit codes in one place (`cli.main`).
"""

from __future__ import annotations

import errno
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


class SeedError(MoraineError):
    """A history tool's request refused, in those tools' own terms: an upper-case code
    (INVALID_REQUEST, SESSION_NOT_FOUND, INVALID_REGEX, DEADLINE_EXCEEDED), and fields the answer
    carries beside the message (an ambiguous id's `candidates`)."""

    def __init__(self, code: str, message: str, extra: dict[str, Any] | None = None) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.extra = extra or {}


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


class DeadlineExceeded(MoraineError):
    """A tool ran past its response deadline (a query's scoring, a long listing); the contract
    answers `deadline_exceeded` with the budget that ran out."""

    def __init__(self, deadline_ms: int | None = None) -> None:
        super().__init__("the response deadline passed")
        self.deadline_ms = deadline_ms


class WriterBusy(MoraineError):
    """Another pass holds the writer lock longer than the caller may wait (a call's catch-up
    answers from what is indexed instead, and says how far behind it is)."""


class DaemonUnavailable(MoraineError):
    """The daemon could not be started or reached; `exit_code` is the daemon's own when it
    refused to start (4 state, 5 no logs, …)."""

    def __init__(self, message: str, exit_code: int = 1) -> None:
        super().__init__(message)
        self.exit_code = exit_code


class UntrustedSocketError(MoraineError):
    """The daemon's socket, its directory or the state directory could be another user's: owned by
    someone else, writable by group or others, or served by a process of another user."""

    exit_code = 7


def os_error_message(exc: OSError) -> str:
    """A full disk, a denied permission or an I/O error, in words a person can act on."""
    where = f" ({exc.filename})" if exc.filename else ""
    if exc.errno in (errno.ENOSPC, errno.EDQUOT):
        return (f"no space left on the device{where}. Nothing written was lost: the state stays readable "
                "as of its last whole write; free some space and run the command again.")
    if exc.errno in (errno.EACCES, errno.EPERM, errno.EROFS):
        return f"permission denied{where}: {exc.strerror}. Check the owner and mode of the state directory."
    return f"I/O error{where}: {exc.strerror or exc}. The state stays readable as of its last whole write."
