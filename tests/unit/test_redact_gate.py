"""The one-pass gate in front of the redaction passes (`redact.any_evidence`) must never hide
a credential: wherever any pass (shapes, keys, context words, partners, cookies, decoded forms)
finds a span, the gate matches, and the spans with the gate equal the spans of every pass run
unconditionally."""

from __future__ import annotations

import importlib
import random
import string

import pytest
from _secret_corpus import family_lookalikes, family_secrets, lookalikes, secrets

redact_module = importlib.import_module("moraine.redaction.redact")


def _ungated(proxy: str) -> list[tuple[int, int, str]]:
    return redact_module.all_passes(proxy, proxy.encode("ascii"))


def _texts() -> list[str]:
    rng = random.Random(20261126)
    found = [s.text for seed in range(3) for s in secrets(seed) + family_secrets(seed)]
    found += [k.text for k in lookalikes(0) + family_lookalikes(0)]
    words = ["token", "Key", "auth", "password", "pwd=", "secret:", "api_key", "--token", "DSN", "creds",
             "export", "=", ":", '"', "\\n", "sk-", "ghp_", "AKIA", "Bearer", "//u:p@h", "aws", "stripe",
             "Cookie: ", "%5F", "\\u0067", "Z2hwX", "UEFTU1dPUk", "6768705f", "AC", "pass:", "_PW=", " -p "]
    alphabet = string.ascii_letters + string.digits + "_-./=:\"' \n\\"
    for _ in range(3000):  # words that start evidence, glued to random runs at random places
        parts = [rng.choice(words) if rng.random() < 0.4 else
                 "".join(rng.choice(alphabet) for _ in range(rng.randint(1, 40))) for _ in range(rng.randint(1, 8))]
        found.append("".join(parts))
    # evidence at the very start and end of a text (`$` and `\b` at the text's edges)
    found += ["token", "key", "x key", "secret", "my_password", "sk-" + "a" * 40, "ab token"]
    return found


@pytest.mark.parametrize("chunk", range(4))
def test_the_gate_hides_no_span(chunk: int) -> None:
    texts = _texts()
    for text in texts[chunk::4]:
        proxy = text if text.isascii() else text.encode("ascii", "replace").decode("ascii")
        expected = _ungated(proxy)
        if expected:
            assert redact_module.any_evidence().search(proxy.encode("ascii")) is not None, text
        assert redact_module._rule_spans(proxy) == expected, text


def test_the_gate_lets_plain_prose_and_code_through() -> None:
    """The point of the gate: text with no secret-ish word costs one search."""
    for text in ["def main():\n    return compute(x, y) + 1\n", "Fixed the migration; all 42 tests pass.",
                 "cargo build --release && ./target/release/app", "错误：无法打开文件"]:
        proxy = text if text.isascii() else text.encode("ascii", "replace").decode("ascii")
        assert redact_module.any_evidence().search(proxy.encode("ascii")) is None


def test_key_words_passed_over_hold_no_assignment(monkeypatch: pytest.MonkeyPatch) -> None:
    """`secret_keys._may_assign` skips a key word before its identifier is looked at; with it
    forced true (every key word looked at whole, as before) the spans are the same."""
    keys = importlib.import_module("moraine.redaction.secret_keys")
    rng = random.Random(20261127)
    texts = _texts() + ["".join(rng.choice(["token", " ", "-", "--", "=", ":", "\t", "x", "'", '"', "\\", "pass",
                                            "key", "_", ".", "abc123XYZ", "\n"]) for _ in range(rng.randint(1, 30)))
                        for _ in range(3000)]
    proxies = [t if t.isascii() else t.encode("ascii", "replace").decode("ascii") for t in texts]
    fast = [keys.assignment_spans(p, p.encode("ascii")) for p in proxies]
    monkeypatch.setattr(keys, "_may_assign", lambda text, end: True)
    whole = [keys.assignment_spans(p, p.encode("ascii")) for p in proxies]
    assert sum(map(len, whole)) > 200  # the texts do assign secrets
    for text, a, b in zip(texts, fast, whole, strict=True):
        assert a == b, text
