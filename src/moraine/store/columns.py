"""Columns that only grow, published as immutable parts shared by generations.

    columns/<first>-<end>-<tag>/<name>.npy   rows [first, end) of the column <name>

Most per-event columns are set once, when the event is appended (its uid, time, session, type,
tool, file and line, its indexed length), and never change. Written whole into every
generation they made each publish cost the whole state: ~170 MB at a million events, every
few minutes for a daemon that indexed one new line. Here a publish writes only the rows
appended since the published parts, as one new part; and the newest parts are merged while
the last is at least half the size of the one before it, so a column of n rows has O(log n)
parts and a row is rewritten O(log n) times over its life, like a binary counter. The part
written is always the last: the rows of a merge are read from memory, where the columns are.

Parts are named uniquely (`tag`), like segments and content chunks, so installing another
state's snapshot never overwrites a file the current generation uses; their files are listed
with their checksums in the manifest, copied with it, and removed by garbage collection once
no published generation references them. A column a part lacks (one newer than the part)
reads as -1, as a column the whole snapshot lacks always has. Columns that change in place
(`alive`, the index's `live`) and maps rebuilt at each publish stay in the generation directory.
`nlines` is a growing column too: it changes only where a state written before it reads -1.
"""

from __future__ import annotations

import re
import secrets
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from moraine.errors import StateError
from moraine.index.growable import Column
from moraine.index.segment_files import Output

DIRECTORY = "columns"
_NAME = re.compile(r"^(\d{10})-(\d{10})-([0-9a-f]{8})$")


@dataclass(frozen=True)
class Part:
    first: int
    end: int
    tag: str

    @property
    def dirname(self) -> str:
        return f"{self.first:010d}-{self.end:010d}-{self.tag}"

    @property
    def rows(self) -> int:
        return self.end - self.first


def published(files: Iterable[str]) -> list[Part]:
    """The parts a manifest's files reference, in row order; they must cover rows 0.. without
    a gap or an overlap (a manifest that says otherwise is damaged)."""
    parts = set()
    for rel in files:
        top, _, rest = rel.partition("/")
        if top == DIRECTORY:
            match = _NAME.match(rest.split("/", 1)[0])
            if match is None:
                raise StateError(f"unexpected column part {rel} in the manifest; run `moraine doctor --repair`")
            parts.add(Part(int(match[1]), int(match[2]), match[3]))
    ordered = sorted(parts, key=lambda p: p.first)
    end = 0
    for part in ordered:
        if part.first != end or part.end <= part.first:
            raise StateError(f"the manifest's column parts do not follow each other at row {end} "
                             f"({part.dirname}); run `moraine doctor --repair`")
        end = part.end
    return ordered


def read(home: Path, parts: list[Part], names: Iterable[str]) -> dict[str, list[np.ndarray | None]]:
    """Each column's pieces, part by part, mapped (None where a part lacks the column)."""
    pieces: dict[str, list[np.ndarray | None]] = {name: [] for name in names}
    for part in parts:
        directory = home / DIRECTORY / part.dirname
        for name, column in pieces.items():
            path = directory / f"{name}.npy"
            column.append(np.load(path, mmap_mode="r", allow_pickle=False) if path.exists() else None)
    return pieces


def complete(parts: list[Part], files: Iterable[str], names: Iterable[str]) -> bool:
    """Whether every part holds every named column (`files`: the published files' paths). A
    column newer than a part reads -1 there; the publish after it is added writes every row
    again as one part (once), so what a state held before it does not stay unknown for good."""
    held = set(files)
    return all(f"{DIRECTORY}/{part.dirname}/{name}.npy" in held for part in parts for name in names)


def extend(parts: list[Part], rows: int) -> tuple[list[Part], Part | None]:
    """The parts after `rows` rows: the rows past the published parts become a new part, merged
    with the newest ones while it is at least half the size of the one before it. Returns the
    parts and the one to write (the last; None when no row was added)."""
    covered = parts[-1].end if parts else 0
    if rows < covered:
        raise StateError(f"the columns hold {rows} rows, fewer than the {covered} already published")
    if rows == covered:
        return parts, None
    tag = secrets.token_hex(4)
    new = [*parts, Part(covered, rows, tag)]
    while len(new) >= 2 and 2 * new[-1].rows >= new[-2].rows:
        new[-2:] = [Part(new[-2].first, new[-1].end, tag)]
    return new, new[-1]


def write(home: Path, part: Part, columns: dict[str, np.ndarray]) -> list[Path]:
    """Write the part's rows of every column durably (a temp directory renamed into place);
    returns the files written."""
    directory = home / DIRECTORY / part.dirname
    directory.parent.mkdir(mode=0o700, exist_ok=True)
    out = Output(directory)
    for name, column in columns.items():
        out.array(name, np.ascontiguousarray(column[part.first:part.end]))
    out.close()
    return sorted(directory.iterdir())



# A column as a snapshot holds it: one array (a generation directory's), or its parts' pieces
# (rows, array or None where the part lacks the column), or nothing (a column newer than the state).
Source = np.ndarray | list[tuple[int, np.ndarray | None]] | None


def pieces(home: Path, parts: list[Part], names: Iterable[str]) -> dict[str, Source]:
    """Each named column's pieces over `parts`, mapped; a column no part holds is left out."""
    found: dict[str, Source] = {}
    for name, column in read(home, parts, names).items():
        if any(piece is not None for piece in column):
            found[name] = [(part.rows, piece) for part, piece in zip(parts, column, strict=True)]
    return found


def row_count(source: Source) -> int:
    if source is None:
        return 0
    return len(source) if isinstance(source, np.ndarray) else sum(rows for rows, _ in source)


def fill(column: Column, source: Source, rows: int) -> None:
    """Load `column` (emptied first) from its source, copied into growable memory; rows the
    source lacks read -1 (to be derived when needed)."""
    column.size = 0
    column.reserve(rows + rows // 8)  # and room for what a backfill appends next, without a copy
    dtype = column.view.dtype
    if source is None:
        if rows:  # an empty state has no parts: no column to read, nothing to fill
            column.extend(np.full(rows, -1, dtype=dtype))
    elif isinstance(source, np.ndarray):
        column.extend(np.asarray(source))
    else:
        for count, piece in source:
            column.extend(np.full(count, -1, dtype=dtype) if piece is None else np.asarray(piece))


def assembled(source: Source, rows: int, dtype: str | type) -> np.ndarray:
    """A column's source as one array (for a reader that takes whole arrays)."""
    column = Column(dtype, max(rows, 1))
    fill(column, source, rows)
    return column.view
