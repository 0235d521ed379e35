"""Fixtures shared across test folders.

Every test runs with a `$HOME` of its own: an empty folder under pytest's temporary directory,
with `XDG_CONFIG_HOME` / `XDG_DATA_HOME` inside it and every harness's root variable (and every
`MORAINE_*` setting) removed from the environment, for this process and the subprocesses it
starts. Moraine finds each harness's logs from its own variable, else from `$HOME`
(`moraine.config.default_sources`), so without this a machine with its own `~/.pi`, `~/.gemini`,
`~/.local/share/opencode`, ... would add its sessions to what the tests index. Session- and
module-scoped fixtures (built before any test's own fixtures) see a shared empty home; each test
then gets a fresh one.
"""

from __future__ import annotations

import fcntl
import importlib.util
import os
import shutil
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from moraine.config import load_config
from moraine.harnesses import VARIABLES
from moraine.ingest.pipeline import ingest_once
from moraine.store.engine import Store

SAMPLES = Path(__file__).resolve().parents[1] / "data_samples"



def _point_home_at(mp: pytest.MonkeyPatch, home: Path) -> None:
    """`$HOME` (and the XDG folders) at `home`, an empty folder; no harness root or Moraine setting."""
    home.mkdir(parents=True, exist_ok=True)
    for name in (*VARIABLES, *(k for k in os.environ if k.startswith("MORAINE_"))):
        mp.delenv(name, raising=False)
    mp.setenv("HOME", str(home))
    mp.setenv("XDG_CONFIG_HOME", str(home / ".config"))
    mp.setenv("XDG_DATA_HOME", str(home / ".local" / "share"))


@pytest.fixture(scope="session", autouse=True)
def _isolated_session_home(tmp_path_factory: pytest.TempPathFactory, pytestconfig: pytest.Config) -> Iterator[Path]:
    """The home the session- and module-scoped fixtures (shared servers, indexed workspaces) see."""
    with pytest.MonkeyPatch.context() as mp:
        home = tmp_path_factory.mktemp("session-home")
        _point_home_at(mp, home)
        # One cache of the compiled search for every run of this checkout (pytest's own cache
        # folder; numba checks each entry against its source), shared by the xdist workers and
        # every daemon a test starts: compiled once, not a minute of CPU per daemon. Tests of the
        # cache itself start cold.
        pytest_cache = getattr(pytestconfig, "cache", None)  # absent with `-p no:cacheprovider`
        base = tmp_path_factory.getbasetemp()  # an xdist worker's is below the run's
        cache = pytest_cache.mkdir("numba") if pytest_cache is not None else \
            (base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base) / "numba-cache"
        mp.setenv("NUMBA_CACHE_DIR", str(cache))
        _fill_kernel_cache(cache)
        yield home


def pytest_sessionstart(session: pytest.Session) -> None:
    """The run's first process (xdist's controller, before it starts the workers) fills the cache of
    the compiled search, outside every test's timeout: on a loaded machine the compile took over
    300 s, and each worker waiting for it in its first fixture timed out, failing every test it
    held. The workers then find the cache filled (`_isolated_session_home`)."""
    pytest_cache = getattr(session.config, "cache", None)
    if pytest_cache is not None and not hasattr(session.config, "workerinput"):
        _fill_kernel_cache(pytest_cache.mkdir("numba"))


def _fill_kernel_cache(cache: Path) -> None:
    """Compile the search kernel into `cache` once, before any test starts a daemon: else each
    daemon started before the first compile ends compiles too (a core each for a minute under
    load), and a first backfill slowed by that answers the first calls with a warning instead."""
    if importlib.util.find_spec("numba") is None:
        return
    cache.mkdir(parents=True, exist_ok=True)
    with (cache.parent / "numba-cache.lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # one xdist worker compiles; the others wait, then only load it
        code = ("import sys; from pathlib import Path; from moraine.index import compiled; "
                "compiled.prepare(Path(sys.argv[1]))")
        subprocess.run([sys.executable, "-c", code, str(cache)], check=True, timeout=900,
                       env={**os.environ, "NUMBA_CACHE_DIR": str(cache)})


@pytest.fixture(autouse=True)
def _isolated_home(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A fresh, empty `$HOME` for each test (a test that writes to it cannot change the next one)."""
    home = tmp_path_factory.mktemp("home")
    _point_home_at(monkeypatch, home)
    return home


# Tests of ~20 s or more in a full run on the 2-core machine (`--durations`; seconds as measured there,
# under the load of a shared machine), marked `slow` here rather than in their files: `make test-quick`
# leaves them out, `make test` (CI) runs them. A test is named by its node id without parameters, so
# every parameter set of it is slow; a name that no longer matches a test of its collected file is an
# error (rename it here with the test). Tests marked `@pytest.mark.slow` in their own files stay so.
SLOW = {
    "tests/unit/test_history_exact.py::test_worker_processes_and_every_path_equal_the_brute_force_scan": 229,
    "tests/unit/test_secret_corpus_rules.py::test_every_secret_is_redacted_over_many_seeds": 102,
    "tests/e2e/test_secret_corpus_e2e.py::test_no_secret_of_the_corpus_is_retrievable_or_stored": 92,
    "tests/unit/test_wal.py::test_truncation_at_every_byte_of_the_last_two_frames_recovers_the_whole_frames": 51,
    "tests/daemon/test_daemon_lifecycle.py::test_calls_during_a_long_first_backfill_answer_at_once_saying_so": 46,
    "tests/e2e/test_secret_corpus_e2e.py::test_no_lookalike_is_redacted": 44,
    "tests/unit/test_make_corpus_harnesses.py::test_the_default_corpus_does_not_change": 41,
    "tests/unit/test_make_corpus_harnesses.py::test_every_harness_counts_as_the_generator_says": 40,
    "tests/index/test_window_bounds.py::test_a_rarest_term_without_bounds_is_ranked_whole_before_any_window": 63,
    "tests/unit/test_history_exact.py::test_results_equal_a_brute_force_scan": 37,
    "tests/unit/test_secret_corpus_rules.py::test_every_secret_is_redacted_in_every_setting": 36,
    "tests/e2e/test_disk_full.py::test_a_full_disk_gives_exit_4_and_a_readable_state": 34,
    "tests/durability/test_stress_ops.py::test_random_operations_keep_invariants_and_match_a_rebuild": 87,
    "tests/unit/test_make_corpus_harnesses.py::test_opencode_database_does_not_depend_on_jobs": 31,
    "tests/unit/test_parallel_ingest.py::test_a_pass_building_the_index_defers_its_merges_and_ends_with_the_same_index": 30,  # noqa: E501
    "tests/durability/test_snapshot_in_use.py::test_snapshot_out_while_logs_grow_and_index_runs_is_consistent": 29,
    "tests/index/test_window_bounds.py::test_ranking_the_rarest_terms_documents_whole_matches_the_reference": 93,
    "tests/unit/test_make_corpus_harnesses.py::test_pi_sessions_count_as_the_generator_says": 25,
    "tests/unit/test_history_exact.py::test_a_time_window_with_out_of_scope_texts_read_through_equals_the_brute_force_scan": 20,  # noqa: E501
    "tests/daemon/test_rpc_wire.py::test_fuzz": 40,
    "tests/e2e/test_cli_state_commands.py::test_a_tampered_published_file_is_refused_and_doctor_rebuilds": 20,
    "tests/contract/test_inspector_cli.py::test_every_tool_through_the_inspector_cli": 19,
    # from a `make test-quick` run at load average 7 (each ~15-30 s there)
    "tests/daemon/test_daemon_lifecycle.py::test_sigkill_during_live_ingest_loses_nothing": 32,
    "tests/contract/test_history_write_tools.py::test_forgotten_sessions_stay_forgotten": 29,
    "tests/daemon/test_daemon_lifecycle.py::test_detached_daemon_status_and_stop": 28,
    "tests/daemon/test_daemon_hostile_sources.py::test_hostile_databases_never_hold_up_a_call": 25,
    "tests/unit/test_secret_corpus_rules.py::test_every_family_secret_is_redacted_over_many_seeds": 22,
    "tests/contract/test_contract_stability.py::test_ids_survive_restart_and_full_reindex": 21,
    "tests/e2e/test_unopenable_state.py::test_a_missing_or_damaged_current_falls_back_to_the_newest_whole_generation": 20,  # noqa: E501
    "tests/daemon/test_rpc_wire.py::test_other_clients_are_answered_while_huge_lines_stream_in": 17,
    "tests/daemon/test_daemon_idle.py::test_defaults_by_who_started_it": 16,
    "tests/daemon/test_daemon_poison.py::test_poison_in_live_logs_never_stops_the_daemon": 16,
    # from a full run with three test processes (seconds each there)
    "tests/durability/test_log_file_lifecycle.py::test_append_keeps_old_ids_and_opens_new_events_via_cli": 25,
    "tests/secret_heldout/test_heldout_ingest.py::test_every_place_reaches_what_ingest_stores": 22,
    "tests/e2e/test_cli_list.py::test_list_json_paging_gives_every_session_once": 22,
    "tests/e2e/test_home_isolation.py::test_sources_of_the_config_file_replace_every_default_root": 17,
    "tests/durability/test_sigkill_leaves_no_workers.py::test_sigkill_during_a_parallel_index_leaves_no_worker": 17,
    "tests/e2e/test_home_isolation.py::test_a_full_home_is_read_when_nothing_overrides_it": 15,
    "tests/e2e/test_hostile_input.py::test_an_old_poisoned_wal_frame_is_quarantined_not_fatal": 15,
    "tests/e2e/test_unopenable_state.py::test_a_lost_or_garbled_manifest_is_rebuilt_from_the_logs": 15,
    "tests/unit/test_secret_corpus_rules.py::test_every_family_secret_is_redacted_in_every_setting": 15,
    "tests/e2e/test_cli_history_tools.py::test_cleanup_asks_on_a_terminal": 15,
    "tests/e2e/test_cli_history_tools.py::test_history_takes_moraine_ids_native_ids_and_log_paths": 14,
}


@pytest.hookimpl(tryfirst=True)  # before `-m` deselects by marker
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    modules: dict[str, object] = {}
    for item in items:
        name = item.nodeid.split("[", 1)[0]
        modules.setdefault(name.split("::", 1)[0], getattr(item, "module", None))
        if name in SLOW:
            item.add_marker(pytest.mark.slow)
    stale = [name for name in SLOW if (module := modules.get(name.split("::", 1)[0])) is not None
             and not hasattr(module, name.split("::", 1)[1])]
    if stale:
        raise pytest.UsageError(f"tests/conftest.py SLOW names tests that do not exist: {stale}")


def build_samples_store(root: Path) -> Store:
    """data_samples/ copied under `root` and indexed into a fresh state directory there."""
    shutil.copytree(SAMPLES / "codex", root / "codex")
    shutil.copytree(SAMPLES / "claude", root / "claude")
    env = {"CODEX_HOME": str(root / "codex"), "CLAUDE_CONFIG_DIR": str(root / "claude"), "HOME": str(root / "home")}
    store = Store(load_config({"home": str(root / "state")}, env=env))
    ingest_once(store)
    return store


@pytest.fixture(scope="session")
def make_samples_store() -> Callable[[Path], Store]:
    """`build_samples_store`, for tests that need their own copy (they may append to it)."""
    return build_samples_store


@pytest.fixture(scope="module")
def samples_store(tmp_path_factory: pytest.TempPathFactory) -> Store:
    return build_samples_store(tmp_path_factory.mktemp("samples"))
