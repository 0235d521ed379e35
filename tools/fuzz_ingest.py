"""Long-run fuzzing of the adapters and the store: `python tools/fuzz_ingest.py --seconds 600`.

The generator is the CI test's (tests/unit/_mutate.py); this runs it for as long as asked,
commits every 50 lines as one WAL frame into a fresh state, checks the store's invariants
after every frame and after a restart, and prints the counts: lines tried, events, lines
quarantined, crashes (any exception from ingest), and invariant failures.
"""

from __future__ import annotations

import argparse
import os
import random
import sys
import tempfile
import time
import traceback
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "unit"))

from _mutate import fuzz_once, sample_lines

from moraine.config import load_config
from moraine.store.engine import Store


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as home:
        os.environ["MORAINE_HOME"] = home
        config = load_config()
        store = Store(config)
        rng = random.Random(args.seed)
        lines = sample_lines()
        states: dict = {}
        tried = events = quarantined = crashes = broken = 0
        deadline = time.monotonic() + args.seconds
        while time.monotonic() < deadline:
            rows, issues = [], []
            for _ in range(50):
                tried += 1
                try:
                    new, found = fuzz_once(rng, lines, states, tried)
                except Exception:
                    crashes += 1
                    traceback.print_exc(limit=3)
                    continue
                rows += new
                issues += found
            with store.writer():
                store.commit(rows, issues, {})
            events += len(rows)
            quarantined += len(issues)
            try:
                store._check()
            except AssertionError:
                broken += 1
                traceback.print_exc(limit=3)
        reopened = Store(config)
        reopened._check()
        same = reopened.counts() == store.counts()
    print(f"seed {args.seed}, {args.seconds:.0f} s: {tried} lines tried, {events} events, {quarantined} lines "
          f"reported, {crashes} crashes, {broken} invariant failures, restart equal: {same}")
    return 0 if crashes == broken == 0 and same else 1


if __name__ == "__main__":
    sys.exit(main())
