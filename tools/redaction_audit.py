"""Precision audit of the redaction rules on real text: every span they would redact in a tree
of files, per rule, with examples, so a person can judge what is a credential and what is code.

    python tools/redaction_audit.py --root .venv/lib/python3.11/site-packages --glob '*.py' --limit 3000

Each line of each file is redacted as an event text would be; the report counts spans per rule
and shows up to --examples lines for each (cut to 160 characters), and the throughput.
"""

from __future__ import annotations

import argparse
import collections
import json
import time
from pathlib import Path

from moraine.redaction.redact import spans


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--root", type=Path, required=True)
    parser.add_argument("--glob", default="*.py")
    parser.add_argument("--limit", type=int, default=3000, help="files at most (sorted by path)")
    parser.add_argument("--examples", type=int, default=12)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    files = sorted(args.root.rglob(args.glob))[: args.limit]
    by_rule: collections.Counter[str] = collections.Counter()
    examples: dict[str, list[str]] = collections.defaultdict(list)
    size = lines = 0
    started = time.perf_counter()
    for path in files:
        try:
            text = path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            continue
        size += len(text)
        for line in text.splitlines():
            lines += 1
            for start, end, rule in spans(line):
                by_rule[rule] += 1
                if len(examples[rule]) < args.examples:
                    examples[rule].append(f"{path.relative_to(args.root)}: {line.strip()[:160]}  «{line[start:end]}»")
    seconds = time.perf_counter() - started
    report = {"files": len(files), "lines": lines, "characters": size, "seconds": round(seconds, 1),
              "spans": sum(by_rule.values()), "by_rule": dict(by_rule.most_common()), "examples": examples}
    if args.json:
        print(json.dumps(report, indent=2))
        return
    print(f"{len(files)} files, {lines:,} lines, {size / 1e6:.1f} MB in {seconds:.1f} s: "
          f"{report['spans']} spans would be redacted")
    for rule, count in by_rule.most_common():
        print(f"{count:6d} {rule}")
        for example in examples[rule]:
            print(f"         {example}")


if __name__ == "__main__":
    main()
