"""Opening a state sets nothing for the process: the umask and the redaction rules are the entry
points' (`cli.own_process`), so a library caller, a test or a tool that opens a Store keeps its
own, and two stores of different configurations in one process do not overwrite each other's
rules. The home is private whatever the caller's umask."""

from __future__ import annotations

import os
import stat
from pathlib import Path

from moraine.cli import own_process
from moraine.config import load_config
from moraine.redaction import redact
from moraine.store.engine import Store


def _umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def test_opening_a_store_leaves_the_umask_and_the_redaction_rules_alone(tmp_path: Path) -> None:
    before, rules = _umask(), redact.current()
    os.umask(0o022)
    try:
        off = {"enabled": False, "store_secrets_in_plain_text": True}
        config = load_config({"home": str(tmp_path / "h"), "redaction": off}, env={"HOME": str(tmp_path)})
        Store(config)
        assert _umask() == 0o022
        assert redact.current() is rules
        assert stat.S_IMODE((tmp_path / "h").stat().st_mode) == 0o700
    finally:
        os.umask(before)


def test_the_entry_point_sets_the_umask_and_the_rules_of_the_configuration(tmp_path: Path) -> None:
    before, rules = _umask(), redact.current()
    try:
        config = load_config({"home": str(tmp_path / "h"),
                              "redaction": {"extra_patterns": [{"name": "ticket", "pattern": "TKT-[0-9]{6}"}]}},
                             env={"HOME": str(tmp_path)})
        own_process(config)
        assert _umask() == 0o077
        assert redact.redact("see TKT-123456") == "see [REDACTED:user-ticket]"
    finally:
        os.umask(before)
        redact.configure(rules)
