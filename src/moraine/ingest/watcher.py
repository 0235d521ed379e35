"""Names the log files to look at; never reads them.

`watch` turns watchdog's file events into "these logs changed" (a directory event: "look at
everything"), which the daemon keeps as its dirty set: what a call's catch-up reads.

`Discovery` is the reconcile scan: it walks the source roots but re-lists only directories
whose mtime changed since the last walk (adding a file changes its directory's mtime,
appending to one does not), so a catch-up before every MCP answer costs a few stats per
directory instead of a full tree listing. A folder's mtime ticks with the kernel's coarse
clock (milliseconds), so a file added in the same tick as the listing leaves it unchanged: a
listing is trusted only once its folder was quiet for `RACY_NS` before it was taken (as git
treats a "racily clean" index entry).
"""

from __future__ import annotations

import errno
import fnmatch
import os
import stat
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

LOG_SUFFIXES = (".jsonl", ".json", ".db")  # every kind of file some harness logs to
RACY_NS = 1_000_000_000  # a folder changed this shortly before its listing is listed again


def log_of(path: str) -> str | None:
    """The log a changed file belongs to (a database's write-ahead file stands for the
    database), or None when it is no log of any kind."""
    if path.endswith(LOG_SUFFIXES):
        return path
    if path.endswith(".db-wal"):
        return path[: -len("-wal")]
    return None


def watch(roots: list[Path], mark_dirty: Callable[[list[str], bool], None]) -> Any:
    """A started watchdog observer of `roots` (recursive) that reports each changed log, and
    whether a directory changed, to `mark_dirty(paths, structural)`. Opening or closing a file
    unwritten is no change."""
    from watchdog.observers import Observer

    observer = Observer()
    for root in roots:
        watch_more(observer, root, mark_dirty)
    observer.daemon = True
    observer.start()
    return observer


def watch_more(observer: Any, root: Path, mark_dirty: Callable[[list[str], bool], None]) -> None:
    """Watch one more root (recursive) with a running or new observer."""
    from watchdog.events import FileSystemEvent, FileSystemEventHandler

    class Handler(FileSystemEventHandler):
        def on_any_event(self, event: FileSystemEvent) -> None:
            if event.event_type in ("opened", "closed_no_write"):
                return
            paths = [os.fsdecode(event.src_path), os.fsdecode(getattr(event, "dest_path", "") or "")]
            mark_dirty([log for log in map(log_of, paths) if log], event.is_directory)

    observer.schedule(Handler(), str(root), recursive=True)


def _walked(root: str, directory: str, under: tuple[str, ...] | None) -> bool:
    """Whether a walk limited to the `under` sub-folders of `root` enters `directory`."""
    if under is None:
        return True
    rel = os.path.relpath(directory, root)
    return any(rel == u or rel.startswith(u + "/") or u.startswith(rel + "/") for u in under)


@dataclass
class _Listing:
    mtime_ns: int
    listed_ns: int  # the clock when the listing began
    identity: tuple[int, int]  # (device, inode): the folder whichever path reached it
    files: list[str]
    subdirs: list[str]
    links: list[str]  # symlinks: judged per walk (their targets can change without the mtime)
    problems: dict[str, str]


@dataclass
class Discovery:
    """Symlinks are followed only to a target inside the source root (or anywhere with
    `follow_symlinks`): a link to `/etc/passwd` named `x.jsonl` is reported, never read. A
    link that loops or dangles is reported too, and never hides the rest of its folder."""

    suffixes: tuple[str, ...] = LOG_SUFFIXES
    listings: dict[str, _Listing] = field(default_factory=dict)
    problems: dict[str, str] = field(default_factory=dict)  # path → why it is not read (last walk)

    def files(self, root: str, excludes: list[str], follow_symlinks: bool = False,
              suffixes: tuple[str, ...] = (".jsonl",), under: tuple[str, ...] | None = None) -> list[str]:
        """Every file below `root` ending in one of `suffixes` (sorted), minus the exclude globs.
        With `under`, only those sub-folders of the root are walked (and the root's own files):
        a harness whose data folder also holds big trees that are not logs (OpenCode keeps git
        snapshots beside its database) is not walked through them."""
        found: list[str] = []
        for stale in [p for p in self.problems if p == root or p.startswith(root.rstrip("/") + "/")]:
            del self.problems[stale]
        real_root = os.path.realpath(root)
        # Each folder is walked once, by its identity: every real folder first, then the symlinked
        # ones, so a link back into the tree (a loop, or a second way in) is the one skipped.
        walked: set[tuple[int, int]] = set()
        stack: list[str] = [root]
        linked: list[str] = []
        while stack or linked:
            directory = stack.pop() if stack else linked.pop()
            listing = self._listing(directory)
            if listing is None:
                continue
            if listing.identity in walked:
                self.problems[directory] = "symlinked folder already walked (a loop or a second way in): skipped"
                continue
            walked.add(listing.identity)
            self.problems.update(listing.problems)
            found.extend(f for f in listing.files if f.endswith(suffixes))
            stack.extend(d for d in listing.subdirs if _walked(root, d, under))
            for link in listing.links:
                kind = self._judge_link(link, real_root, follow_symlinks)
                if kind == "file" and link.endswith(suffixes):
                    found.append(link)
                elif kind == "dir" and _walked(root, link, under):
                    linked.append(link)
        found = [f for f in found if not any(fnmatch.fnmatch(f, p) for p in excludes)]
        found.sort()
        return found

    def live(self, since_ns: int) -> list[str]:
        """The files of the folders modified since `since_ns` (and of folders new inside them),
        each folder stat-ed and re-listed if it changed: what a call's catch-up looks at for a
        new log the watcher has not reported yet, without walking the tree. A file new in a
        folder quiet for longer waits for the watcher or the next walk."""
        found: list[str] = []
        stack = [d for d, listing in self.listings.items() if listing.mtime_ns >= since_ns]
        seen = set(stack)
        while stack:
            listing = self._listing(stack.pop())
            if listing is None:
                continue
            found.extend(listing.files)
            for sub in listing.subdirs:
                cached = self.listings.get(sub)
                if sub not in seen and (cached is None or cached.mtime_ns >= since_ns):
                    seen.add(sub)
                    stack.append(sub)
        return found

    def _judge_link(self, link: str, real_root: str, follow: bool) -> str | None:
        try:
            st = os.stat(link)
        except OSError as exc:
            reason = "symlink loop" if exc.errno == errno.ELOOP else f"dangling symlink ({exc.strerror})"
            self.problems[link] = f"{reason}: not read"
            return None
        target = os.path.realpath(link)
        if not follow and not (target + "/").startswith(real_root.rstrip("/") + "/"):
            self.problems[link] = ("symlink points outside the source root: not followed "
                                   "(set ingest.follow_symlinks = true to follow it)")
            return None
        if stat.S_ISDIR(st.st_mode):
            return "dir"
        if link.endswith(self.suffixes) and stat.S_ISREG(st.st_mode):
            return "file"
        return None

    def _listing(self, directory: str) -> _Listing | None:
        try:
            st = os.stat(directory)
        except OSError:
            self.listings.pop(directory, None)
            return None
        mtime, identity = st.st_mtime_ns, (st.st_dev, st.st_ino)
        cached = self.listings.get(directory)
        if cached is not None and cached.mtime_ns == mtime and cached.identity == identity \
                and cached.listed_ns - mtime > RACY_NS:
            return cached
        listing = _Listing(mtime, time.time_ns(), identity, [], [], [], {})
        try:
            with os.scandir(directory) as entries:
                for entry in entries:
                    self._classify(entry, listing)
        except OSError as exc:
            listing.problems[directory] = f"cannot list this folder: {exc.strerror}"
        self.listings[directory] = listing
        return listing

    def _classify(self, entry: os.DirEntry[str], listing: _Listing) -> None:
        try:
            if entry.is_symlink():
                listing.links.append(entry.path)
            elif entry.is_dir(follow_symlinks=False):
                listing.subdirs.append(entry.path)
            elif entry.name.endswith(self.suffixes):
                if entry.is_file(follow_symlinks=False):
                    listing.files.append(entry.path)
                else:
                    listing.problems[entry.path] = "not a regular file: not read"
        except OSError as exc:
            listing.problems[entry.path] = f"cannot inspect: {exc.strerror}"
