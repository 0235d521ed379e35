"""Names the log files to look at; never reads them.

`Discovery` is the reconcile scan: it walks the source roots but re-lists only directories
whose mtime changed since the last walk (adding a file changes its directory's mtime,
appending to one does not), so a catch-up before every MCP answer costs a few stats per
directory instead of a full tree listing.
"""

from __future__ import annotations

import fnmatch
import os
from dataclasses import dataclass, field


@dataclass
class _Listing:
    mtime_ns: int
    files: list[str]
    subdirs: list[str]


@dataclass
class Discovery:
    suffix: str = ".jsonl"
    listings: dict[str, _Listing] = field(default_factory=dict)

    def files(self, root: str, excludes: list[str]) -> list[str]:
        """Every `*.jsonl` below `root` (sorted), minus the exclude globs."""
        found: list[str] = []
        stack = [root]
        while stack:
            directory = stack.pop()
            listing = self._listing(directory)
            if listing is None:
                continue
            found.extend(f for f in listing.files if not any(fnmatch.fnmatch(f, p) for p in excludes))
            stack.extend(listing.subdirs)
        found.sort()
        return found

    def _listing(self, directory: str) -> _Listing | None:
        try:
            mtime = os.stat(directory).st_mtime_ns
        except OSError:
            self.listings.pop(directory, None)
            return None
        cached = self.listings.get(directory)
        if cached is not None and cached.mtime_ns == mtime:
            return cached
        files: list[str] = []
        subdirs: list[str] = []
        try:
            with os.scandir(directory) as entries:
                for entry in entries:
                    if entry.is_dir(follow_symlinks=False):
                        subdirs.append(entry.path)
                    elif entry.name.endswith(self.suffix) and entry.is_file():
                        files.append(entry.path)
        except OSError:
            return None
        listing = _Listing(mtime, files, subdirs)
        self.listings[directory] = listing
        return listing
