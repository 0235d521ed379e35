"""The reconcile walk re-lists a folder only when its mtime changed; a folder's mtime ticks
with the kernel's coarse clock, so a file added in the same tick as a listing leaves the mtime
as it was. A listing is trusted only when its folder had been quiet for a while before it was
taken. The same tick is made here on purpose by setting the folder's mtime back."""

from __future__ import annotations

import os
import time
from pathlib import Path

from moraine.ingest.watcher import RACY_NS, Discovery


def _same_tick(folder: Path, mtime_ns: int) -> None:
    os.utime(folder, ns=(mtime_ns, mtime_ns))


def test_a_file_added_in_the_listings_tick_is_found(tmp_path: Path) -> None:
    (tmp_path / "a.jsonl").write_text("{}\n")
    discovery = Discovery()
    assert discovery.files(str(tmp_path), []) == [str(tmp_path / "a.jsonl")]
    tick = discovery.listings[str(tmp_path)].mtime_ns
    (tmp_path / "b.jsonl").write_text("{}\n")
    _same_tick(tmp_path, tick)
    assert discovery.files(str(tmp_path), []) == [str(tmp_path / "a.jsonl"), str(tmp_path / "b.jsonl")]


def test_a_quiet_folders_listing_is_reused(tmp_path: Path) -> None:
    (tmp_path / "a.jsonl").write_text("{}\n")
    quiet = time.time_ns() - 10 * RACY_NS
    _same_tick(tmp_path, quiet)
    discovery = Discovery()
    discovery.files(str(tmp_path), [])
    listing = discovery.listings[str(tmp_path)]
    discovery.files(str(tmp_path), [])
    assert discovery.listings[str(tmp_path)] is listing  # not listed again: a stat only
    (tmp_path / "b.jsonl").write_text("{}\n")  # a later tick: listed again
    assert str(tmp_path / "b.jsonl") in discovery.files(str(tmp_path), [])


def test_live_looks_only_at_live_folders(tmp_path: Path) -> None:
    live, quiet = tmp_path / "live", tmp_path / "quiet"
    live.mkdir()
    quiet.mkdir()
    _same_tick(quiet, time.time_ns() - 7200 * 10**9)  # untouched for two hours
    discovery = Discovery()
    discovery.files(str(tmp_path), [])
    (live / "new.jsonl").write_text("{}\n")
    (live / "sub").mkdir()
    (live / "sub" / "deep.jsonl").write_text("{}\n")
    (quiet / "late.jsonl").write_text("{}\n")  # a quiet folder's news wait for the watcher
    since = time.time_ns() - 3600 * 10**9
    assert sorted(discovery.live(since)) == [str(live / "new.jsonl"), str(live / "sub" / "deep.jsonl")]
    assert str(quiet / "late.jsonl") in discovery.files(str(tmp_path), [])  # the walk finds the rest


def test_a_symlink_back_into_the_tree_is_skipped_and_each_log_found_once(tmp_path: Path) -> None:
    """A symlinked folder that leads back into the root (a loop, or a second way in) is walked
    never: each log is found once, by its real path, and the link is reported (the second level of
    such a loop used to be walked: every log read twice)."""
    project = tmp_path / "projects" / "-home-dev-app"
    project.mkdir(parents=True)
    (project / "a.jsonl").write_text("{}\n")
    (project / "loop").mkdir()
    (project / "loop" / "back").symlink_to(project)  # found before the real folder's subtree is done
    (tmp_path / "projects" / "again").symlink_to(tmp_path / "projects")
    discovery = Discovery()
    assert discovery.files(str(tmp_path / "projects"), []) == [str(project / "a.jsonl")]
    skipped = {path for path, why in discovery.problems.items() if "already walked" in why}
    assert skipped == {str(project / "loop" / "back"), str(tmp_path / "projects" / "again")}, discovery.problems
