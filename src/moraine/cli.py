"""`moraine` command line: the same tool functions as MCP, readable text or `--json`, and
the state commands (snapshot, restore, doctor, reindex, forget, status).

Exit codes: 0 ok, 1 error, 2 bad arguments, 3 configuration, 4 state, 5 no logs.

A command's module is imported when it runs (`_COMMANDS`): `moraine mcp`, which an agent host
spawns at every session start, reaches the daemon having imported the parser, the configuration
and the bridge alone (a tenth of a second, not the half second the search engine and the
redaction rules take to import).
"""

from __future__ import annotations

import argparse
import importlib
import os
import signal
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path

from moraine.cli_args import parser
from moraine.config import Config, default_home, load_config
from moraine.errors import DaemonRunningError, MoraineError, StateError, UsageError, os_error_message
from moraine.store.run_files import daemon_holding


def main(argv: Sequence[str] | None = None) -> None:
    try:
        code = run(argv)
    except MoraineError as exc:  # its message may quote an argument or a path: shown, not obeyed
        print(f"moraine: {_shown(str(exc))}", file=sys.stderr)
        code = exc.exit_code
    except KeyboardInterrupt:
        code = 130
    except BrokenPipeError:  # `moraine search … | head`: the reader left, nothing to report
        code = 0
    except OSError as exc:  # the disk, not Moraine: say which file and what to do
        print(f"moraine: {_shown(os_error_message(exc))}", file=sys.stderr)
        code = StateError.exit_code
    sys.exit(code)


def _shown(text: str) -> str:
    from moraine.mcp_server.views import for_terminal

    return for_terminal(text)


def daemon(config: Config, args: argparse.Namespace) -> int:
    foreground, for_host = args.foreground, args.for_host
    if foreground:
        from moraine.daemon.service import Daemon

        return Daemon(config, for_host=for_host).run()
    from moraine.daemon.bridge import connect
    from moraine.errors import DaemonUnavailable

    if daemon_holding(config.home):
        raise DaemonRunningError(f"a Moraine daemon already serves {config.home}")
    try:
        connect(config, for_host=False).close()
    except DaemonUnavailable as exc:
        error = MoraineError(str(exc))
        error.exit_code = exc.exit_code  # the daemon's own reason: 4 state, 5 no logs, …
        raise error from exc
    from moraine.store.run_files import read_status

    status = read_status(config.home) or {}
    print(f"moraine daemon running (pid {status.get('pid', '?')}) on {config.socket_path}; "
          f"log: {config.home / 'run' / 'daemon.log'}")
    return 0


def stop(config: Config, args: argparse.Namespace) -> int:
    from moraine.store.run_files import read_status

    status = read_status(config.home)
    if not daemon_holding(config.home) or status is None:
        print(f"no Moraine daemon runs on {config.home}")
        return 0
    os.kill(int(status["pid"]), signal.SIGTERM)
    deadline = time.monotonic() + 120
    while daemon_holding(config.home):
        if time.monotonic() > deadline:
            raise StateError(f"the daemon (pid {status['pid']}) did not stop within 120 s")
        time.sleep(0.05)
    print(f"stopped the Moraine daemon (pid {status['pid']})")
    return 0


def _mcp(config: Config) -> int:
    import anyio

    from moraine.ingest.pipeline import catch_up
    from moraine.mcp_server.app import ToolRunner, serve_stdio
    from moraine.store.engine import Store

    runner = ToolRunner(lambda: Store(config), catch_up=catch_up, allow_write=config.mcp.allow_write_tools)
    anyio.run(serve_stdio, runner)
    return 0


def run(argv: Sequence[str] | None = None) -> int:
    args = _parsed(argv)
    if args.command == "mcp" and not args.standalone:
        return _bridge(args)
    config = load_config({"home": args.home})
    own_process(config)
    if not config.redaction.enabled:  # loud on every command, and in status and index_status
        from moraine.mcp_server.tools.index_status import REDACTION_OFF

        print(f"moraine: warning: {REDACTION_OFF}", file=sys.stderr)
    module, name = _COMMANDS.get(args.command, ("moraine.cli_query", "answer"))  # search, open, list, …
    command: Callable[[Config, argparse.Namespace], int] = getattr(importlib.import_module(module), name)
    return command(config, args)


def _parsed(argv: Sequence[str] | None) -> argparse.Namespace:
    """The command's arguments. The words of a query may come after its flags as well as before
    (`moraine search migration -n 2 flush heron`); anything else unknown is a usage error."""
    commands = parser()
    args, extra = commands.parse_known_args(argv)
    if extra and isinstance(getattr(args, "query", None), list) and not any(w.startswith("-") for w in extra):
        args.query += extra
    elif extra:
        commands.error(f"unrecognized arguments: {' '.join(extra)}")
    return args


def own_process(config: Config) -> None:
    """What a Moraine process sets for itself before any command runs: every file it creates is
    private to the user, and the redaction rules are those of `[redaction]` (the daemon's parse
    workers inherit them). The bridge sets neither: it writes nothing and redacts nothing."""
    from moraine.redaction.structured import configure_redaction, settings_of

    os.umask(0o077)
    configure_redaction(settings_of(config.redaction))


def _bridge(args: argparse.Namespace) -> int:
    """What an agent host launches: the state directory is checked before its config is read (a
    state of another user's is refused unread), and whatever stops the bridge from starting is
    answered to the host request by request, not only on stderr."""
    from moraine.daemon.bridge import check_private_dir, refuse, serve

    try:
        home = Path(args.home).expanduser() if args.home else default_home(dict(os.environ))
        if home.exists():
            check_private_dir(home, "the Moraine state directory")
        config = load_config({"home": args.home})
    except MoraineError as exc:
        return refuse(exc)
    return serve(config)


def serve_mcp(config: Config, args: argparse.Namespace) -> int:
    if args.standalone:
        return _mcp(config)
    from moraine.daemon.bridge import serve

    return serve(config)


def setup(config: Config, args: argparse.Namespace) -> int:
    from moraine.setup import run_setup

    home = config.home if config.home != Path.home() / ".moraine" else None  # --home / MORAINE_HOME
    if args.write and args.remove:
        raise UsageError("setup takes --write or --remove, not both")
    return run_setup(args.write, args.json, home, args.remove, args.host, config.sources)


# Each command's function, by module and name (imported when it runs: see the module's docstring);
# the others answer as the MCP tools do (`cli_query.answer`).
_COMMANDS: dict[str, tuple[str, str]] = {
    "index": ("moraine.cli_state", "index"),
    "mcp": ("moraine.cli", "serve_mcp"),
    "daemon": ("moraine.cli", "daemon"),
    "stop": ("moraine.cli", "stop"),
    "setup": ("moraine.cli", "setup"),
    "status": ("moraine.cli_status", "status_command"),
    "snapshot": ("moraine.cli_state", "snapshot"),
    "restore": ("moraine.cli_state", "restore"),
    "doctor": ("moraine.cli_state", "doctor_command"),
    "reindex": ("moraine.cli_state", "reindex"),
    "forget": ("moraine.cli_state", "forget"),
    "queries": ("moraine.cli_query", "queries_command"),
}


if __name__ == "__main__":
    main()
