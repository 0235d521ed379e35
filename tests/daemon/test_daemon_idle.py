"""Who started the daemon decides how long it lives: one `moraine mcp` started for an
agent host exits after `daemon.idle_exit_s` (default 1800 s) without connections, so it does not
outlive the host; one the user started with `moraine daemon` runs until stopped, unless they set
idle_exit_s themselves."""

from __future__ import annotations

from test_daemon_lifecycle import (  # noqa: F401 - `ws` is the workspace fixture
    LiveLogs,
    McpSession,
    Workspace,
    _alive,
    _stop_all,
    _wait,
    wait_backfilled,
    ws,
)


def _env_without_idle(workspace: Workspace, **extra: str) -> dict[str, str]:
    env = workspace.env(**extra)
    if "MORAINE_DAEMON_IDLE_EXIT_S" not in extra:
        env.pop("MORAINE_DAEMON_IDLE_EXIT_S", None)  # the workspace sets one for stray daemons
    return env


def test_a_host_started_daemon_exits_when_idle(ws: Workspace) -> None:  # noqa: F811
    logs = LiveLogs(ws, claude=False)
    session = ws.mcp(MORAINE_DAEMON_IDLE_EXIT_S="2")
    wait_backfilled(session, logs.seed_words())
    pid = ws.status()["pid"]
    assert ws.status()["idle_exit_s"] == 2
    session.close()
    _wait(lambda: not _alive(pid), 30, "the idle daemon to exit after its host left")
    assert not ws.socket.exists()


def test_defaults_by_who_started_it(ws: Workspace) -> None:  # noqa: F811
    LiveLogs(ws, claude=False)
    started = ws.run("daemon", env=_env_without_idle(ws))
    assert started.returncode == 0, started
    assert ws.status()["idle_exit_s"] == 0  # the user's daemon: until stopped
    _stop_all(ws, ws.home)
    host = McpSession(ws, _env_without_idle(ws), "host")
    ws.sessions.append(host)
    assert _wait(lambda: ws.status(), 30, "daemon.json")["idle_exit_s"] == 1800  # the host's daemon: 30 min
    assert _alive(ws.status()["pid"])
    host.close()
    _stop_all(ws, ws.home)
