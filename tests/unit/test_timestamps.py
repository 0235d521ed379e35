"""Record timestamps: the fast path for the shape harnesses write equals the general parser."""

from __future__ import annotations

import random

from moraine.sources._common import _parse_ts_ms, parse_ts_ms


def test_fast_timestamp_path_equals_the_general_parser() -> None:
    rng = random.Random(8)
    for _ in range(20_000):
        day = f"{rng.randint(1971, 2099):04d}-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d}"
        clock = f"{rng.randint(0, 23):02d}:{rng.randint(0, 59):02d}:{rng.randint(0, 59):02d}"
        value = f"{day}T{clock}.{rng.randint(0, 999):03d}Z"
        assert parse_ts_ms(value) == _parse_ts_ms(value) is not None, value
    # the same second twice (cached) with other milliseconds
    assert parse_ts_ms("2026-04-29T18:42:31.125Z") - parse_ts_ms("2026-04-29T18:42:31.000Z") == 125


def test_malformed_timestamps_are_none_on_both_paths() -> None:
    for value in ("2026-13-01T00:00:00.000Z", "2026-02-30T00:00:00.000Z", "2026-01-01T00:00:00.12aZ",
                  "2026-01-01T25:00:00.000Z", "2026-01-01T00:00:60.000Z",
                  "2026-01-01T00:00:00.\u0661\u0662\u0663Z", "", None, True):
        assert parse_ts_ms(value) is None and _parse_ts_ms(value) is None, value
    assert parse_ts_ms("2026-04-29T18:42:31+02:00") == _parse_ts_ms("2026-04-29T18:42:31+02:00")
