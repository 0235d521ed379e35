"""The same corpora through Moraine's normal ingest path, in process: no CLI, no store.

Each log line goes through `moraine.sources.normalize_line` with the harness's adapter from
`moraine.sources.ADAPTERS` (as the pipeline calls it); every string of the events it returns
(`Event.to_wire`: text, tool name, call id, arguments with their keys, model, metadata), of a
quarantined line's issue (its fragment) and the name the log goes by in the state
(`moraine.redaction.structured.path_key`) is what would be stored. The redactor itself is not called here:
this is a black-box check of what ingest hands to the store.

    .venv/bin/python tools/secret_eval/ingest_check.py --seed 1
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from secret_eval.leaks import SECRET_CORPORA, Findings, Matcher, recall_rows, table
from secret_eval.places import (
    ALL_CORPORA,
    CORPORA,
    LOOKALIKE_CORPORA,
    LogFile,
    Placement,
    build_logs,
    build_placements,
)

ADAPTER_NAMES = {"claude": "claude-code", "codex": "codex"}
ROOTS = {"claude": "/home/dev/.claude", "codex": "/home/dev/.codex"}


def _strings(node: Any) -> Iterator[str]:
    if isinstance(node, str):
        yield node
    elif isinstance(node, dict):
        for key, value in node.items():
            yield from _strings(key)
            yield from _strings(value)
    elif isinstance(node, list | tuple):
        for item in node:
            yield from _strings(item)


def normalized_strings(files: Sequence[LogFile]) -> list[tuple[str, str]]:
    """(where, string) for every string ingest would store from these logs."""
    from moraine.model import LineRef
    from moraine.redaction.structured import path_key
    from moraine.sources import ADAPTERS, normalize_line

    out: list[tuple[str, str]] = []
    for f in files:
        adapter = ADAPTERS[ADAPTER_NAMES[f.harness]]
        path = f"{ROOTS[f.harness]}/{f.relpath}"
        key = path_key(path)
        out.append((f"{f.relpath} (path key)", key or ""))
        state = adapter.initial_state(path)
        offset = 0
        for number, line in enumerate(f.lines, start=1):
            raw = line.encode("utf-8")
            events, issue = normalize_line(adapter, raw, LineRef(key or path, 0, number, offset), state)
            offset += len(raw) + 1
            where = f"{f.relpath}:{number}"
            for event in events:
                out.extend((where, s) for s in _strings(event.to_wire()))
            if issue is not None:
                out.extend((f"{where} (quarantined)", s) for s in _strings(issue.to_wire()))
    return out


def check(placements: list[Placement], files: Sequence[LogFile]) -> tuple[dict[int, list], dict[int, str]]:
    """({pid: evidence} of the secrets that got through, {pid: why} of the lookalikes altered)."""
    strings = normalized_strings(files)
    findings = Findings()
    findings.scan(Matcher([p for p in placements if p.corpus in SECRET_CORPORA]), "ingest", strings)
    hay = "\0".join(s for _, s in strings)
    altered = {p.pid: "not in what ingest stores" for p in placements
               if p.corpus in LOOKALIKE_CORPORA and p.value not in hay}
    return dict(findings.leaks), altered


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--per-kind", type=int, default=None)
    parser.add_argument("--corpus", action="append", choices=ALL_CORPORA,
                        help=f"repeatable; default {', '.join(CORPORA)}")
    args = parser.parse_args(argv)
    placements = build_placements(args.seed, args.corpus or CORPORA, per_kind=args.per_kind)
    files = build_logs(placements, args.seed)
    leaks, altered = check(placements, files)
    by_pid = {p.pid: p for p in placements}
    print(table("corpus", recall_rows(placements, set(leaks), lambda p: p.corpus)))
    print(table("corpus/family", recall_rows(placements, set(leaks), lambda p: f"{p.corpus}/{p.family}")))
    print(table("place", recall_rows(placements, set(leaks), lambda p: p.place)))
    looks = [p for p in placements if p.corpus in LOOKALIKE_CORPORA]
    if looks and args.corpus:  # a chosen set of corpora (the default output is kept as it was)
        rows: dict[str, list[int]] = {}
        for p in looks:
            row = rows.setdefault(f"{p.corpus}/{p.family}", [0, 0])
            row[0] += 1
            row[1] += p.pid in altered
        print(table("lookalike family", [(k, n, a, 1 - a / n) for k, (n, a) in sorted(rows.items())], head="altered"))
    print(f"lookalikes altered: {len(altered)} of {len(looks)}")
    for pid in sorted(altered):
        print("  altered:", by_pid[pid].label)
    for pid in sorted(leaks)[:80]:
        print("  leaked:", by_pid[pid].label, repr(leaks[pid][0].excerpt))
    return 0


if __name__ == "__main__":
    sys.exit(main())
