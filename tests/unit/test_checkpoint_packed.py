"""Checkpoints as a snapshot stores them."""

from __future__ import annotations

from moraine.model import Checkpoint


def test_a_checkpoint_packed_for_a_snapshot_keeps_its_packed_state() -> None:
    """Every publish stores every checkpoint: the packed state is kept, unpacked again (equal)
    on first use, and packed again only after that."""
    state = {"sid": "x", "calls": {"c1": ["shell", False]}, "n": 3}
    checkpoint = Checkpoint("codex", 5, 100, 2, 90, 7, dict(state))
    first = checkpoint.packed()
    assert isinstance(checkpoint.state, bytes) and checkpoint.packed() == first
    assert Checkpoint.from_wire(first).adapter_state() == state
    assert checkpoint.adapter_state() == state and isinstance(checkpoint.state, dict)
    checkpoint.adapter_state()["n"] = 4
    assert Checkpoint.from_wire(checkpoint.packed()).adapter_state() == {**state, "n": 4}
