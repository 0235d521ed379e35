"""A damaged write-ahead log always comes with its remedy: a missing newest WAL file or one whose
header is not Moraine's is named by every command with `moraine doctor --repair`, doctor
reports it, and the repair leaves a state that answers (the logs are read again)."""

from __future__ import annotations

from cli_harness import Workspace


def _wal(fresh: Workspace) -> list:
    return sorted((fresh.state / "wal").glob("*.log"))


def _repaired(fresh: Workspace) -> None:
    for argv in (("status",), ("search", "migration")):
        result = fresh.run(*argv)
        assert result.returncode == 4 and "moraine doctor --repair" in result.stderr, result
    found = fresh.run("doctor")
    assert found.returncode == 4 and "run `moraine doctor --repair`" in found.stdout, found
    repaired = fresh.run("doctor", "--repair")
    assert repaired.returncode == 0, repaired
    assert fresh.run("doctor").returncode == 0
    hits = fresh.run("search", "migration", "--json")
    assert hits.returncode == 0 and hits.json()["data"]["results"], hits


def test_missing_newest_wal(fresh: Workspace) -> None:
    assert fresh.run("index").returncode == 0
    for path in _wal(fresh):
        path.unlink()
    _repaired(fresh)


def test_wal_with_a_foreign_header(fresh: Workspace) -> None:
    assert fresh.run("index").returncode == 0
    newest = _wal(fresh)[-1]
    data = bytearray(newest.read_bytes())
    data[:8] = b"XXXXXXXX"
    newest.write_bytes(bytes(data))
    _repaired(fresh)
