"""`moraine snapshot --out` while logs grow and other processes index into the same state.

Why: a snapshot copy is only useful if it is one consistent instant of the state, even when
taken in the middle of a long backfill. The copy is made under the writer lock right after
a publish, so it must verify (every file against the manifest's size and CRC32), open with
its invariants intact, and hold exactly the events of some prefix of the indexer's work:
no event half-applied, none duplicated, and a restore of it catches up to the full logs.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time
from pathlib import Path

from _agentlogs import LogWriter, populate

from moraine.store.admin import verify_snapshot
from moraine.store.engine import Store

MORAINE = Path(sys.executable).parent / "moraine"


def test_snapshot_out_while_logs_grow_and_index_runs_is_consistent(tmp_path: Path) -> None:
    writer = LogWriter(tmp_path / "logs", seed=4711)
    populate(writer, n_codex=4, n_claude=4, records_per_file=(100, 200))
    home = tmp_path / "state"
    env = {**os.environ, **writer.env(), "MORAINE_HOME": str(home), "MORAINE_STORE_FSYNC": "never",
           "MORAINE_STORE_SEAL_EVENTS": "200", "MORAINE_STORE_SNAPSHOT_EVENTS": "300",
           "MORAINE_INGEST_BATCH_EVENTS": "40", "MORAINE_INGEST_WORKERS": "1"}
    subprocess.run([str(MORAINE), "index"], env=env, check=True, capture_output=True)
    stop = threading.Event()
    passes: list[int] = []

    def keep_indexing() -> None:  # an agent writing while catch-up passes run, as in real use
        while not stop.is_set():
            for log in writer.files[:3]:
                writer.extend(log, 20)
            result = subprocess.run([str(MORAINE), "index"], env=env, capture_output=True, text=True)
            passes.append(result.returncode)

    worker = threading.Thread(target=keep_indexing)
    worker.start()
    copies = []
    try:
        for i in range(4):
            time.sleep(0.3)
            out = tmp_path / f"copy{i}"
            result = subprocess.run([str(MORAINE), "snapshot", "--out", str(out), "--json"], env=env,
                                    capture_output=True, text=True, timeout=120)
            assert result.returncode == 0, result.stderr
            copies.append((out, json.loads(result.stdout)))
    finally:
        stop.set()
        worker.join(timeout=300)
    assert passes and all(code == 0 for code in passes), passes
    subprocess.run([str(MORAINE), "index"], env=env, check=True, capture_output=True)
    counts = sorted({info["events"] for _, info in copies})
    assert len(counts) >= 2, f"the copies should catch the state at different moments: {counts}"

    config = writer.config(home)
    full = Store(config)
    full_uids = set(full.catalog.uid.view[full.catalog.alive.view].tolist())
    for out, info in copies:
        manifest = verify_snapshot(out)  # every file against its size and CRC32
        assert manifest.counts["live_events"] == info["events"]
        copy = Store(writer.config(out))
        copy._check()
        uids = copy.catalog.uid.view[copy.catalog.alive.view].tolist()
        assert len(uids) == len(set(uids)) == info["events"], "a copy holds a whole number of frames, once each"
        assert set(uids) <= full_uids, "every event of a copy is in the finished index"
        for doc in range(0, len(copy.catalog.content), 97):
            if copy.catalog.alive.view[doc]:
                uid = copy.catalog.uid.view[doc].decode()
                assert copy.catalog.event(doc).to_wire() == full.catalog.event(full.read.doc_by_uid(uid)).to_wire()
        # restored into a new state, the copy catches up with the logs to the full index
        restored = tmp_path / f"restored-{out.name}"
        result = subprocess.run([str(MORAINE), "restore", str(out)], env={**env, "MORAINE_HOME": str(restored)},
                                capture_output=True, text=True, timeout=120)
        assert result.returncode == 0, result.stderr
        result = subprocess.run([str(MORAINE), "index", "--json"], env={**env, "MORAINE_HOME": str(restored)},
                                capture_output=True, text=True, timeout=300)
        assert result.returncode == 0, result.stderr
        back = Store(writer.config(restored))
        back._check()
        assert set(back.catalog.uid.view[back.catalog.alive.view].tolist()) == full_uids
