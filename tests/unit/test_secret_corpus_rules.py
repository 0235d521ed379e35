"""The redaction rules against the seeded secrets corpus (`_secret_corpus`): every credential is
removed in every setting (alone, in prose, inside a raw JSON line, after a newline of a tool
output), and no code-like lookalike is touched. Each test collects all failures, so one run
shows every gap at once."""

from __future__ import annotations

import json

import pytest
from _secret_corpus import Lookalike, Secret, family_lookalikes, family_secrets, lookalikes, secrets

from moraine.redaction.redact import redact

SEEDS = range(25)
# More seeds for the text alone: a rule that misses a few percent of random values (a `/` too
# many, a length at a boundary) shows up here.
MORE_SEEDS = range(25, 125)


def _secret_settings(s: Secret) -> list[tuple[str, str, str]]:
    """(setting, redacted text, text where the secret must be absent)."""
    out = [("alone", s.text, redact(s.text)), ("prose", s.text, redact("see " + s.text + " for details"))]
    out.append(("output", s.text, redact("$ run.sh\nstarting\n" + s.text + "\ndone")))
    line = json.dumps({"type": "user", "message": {"role": "user", "content": s.text}})
    clean = redact(line)
    try:
        decoded = json.loads(clean)["message"]["content"]
    except (ValueError, KeyError, TypeError) as exc:
        out.append(("json-line", s.text, f"<redacted JSON line is invalid: {exc}> {s.secret}"))
    else:
        out.append(("json-line", s.text, clean))
        out.append(("json-decoded", s.text, decoded))
    return out


def _leaks(secret: str, text: str) -> bool:
    """Any 10 characters of the secret in a row (all of it when shorter): a redaction that
    stops halfway leaks too."""
    width = min(10, len(secret))
    return any(secret[i:i + width] in text for i in range(len(secret) - width + 1))


def _describe(failures: list[str]) -> str:
    return f"{len(failures)} failure(s):\n" + "\n".join(failures)


def test_every_secret_is_redacted_in_every_setting() -> None:
    failures: list[str] = []
    for seed in SEEDS:
        for s in secrets(seed):
            for setting, text, redacted in _secret_settings(s):
                if _leaks(s.secret, redacted) or _leaks(json.dumps(s.secret)[1:-1], redacted):
                    failures.append(f"seed {seed} {s.kind} [{setting}] ({s.source}): {text!r}")
    kinds = sorted({f.split()[2] for f in failures})
    assert not failures, f"secret kinds that leak: {kinds}\n" + _describe(failures)


def test_every_secret_is_redacted_over_many_seeds() -> None:
    failures = [f"seed {seed} {s.kind} ({s.source}): {s.text!r} -> {redact(s.text)!r}"
                for seed in MORE_SEEDS for s in secrets(seed) if _leaks(s.secret, redact(s.text))]
    kinds = sorted({f.split()[2] for f in failures})
    assert not failures, f"secret kinds that leak: {kinds}\n" + _describe(failures)


def _lookalike_settings(item: Lookalike) -> list[tuple[str, bool]]:
    """(setting, kept verbatim)."""
    prose = "we looked at " + item.text + " in the diff"
    line = json.dumps({"type": "assistant", "message": {"content": [{"type": "text", "text": item.text}]}})
    clean = redact(line)
    try:
        decoded = json.loads(clean)["message"]["content"][0]["text"]
    except (ValueError, KeyError, TypeError, IndexError):
        decoded = None
    output = "$ run.sh\nstarting\n" + item.text + "\ndone"
    return [("alone", redact(item.text) == item.text), ("prose", redact(prose) == prose),
            ("output", redact(output) == output),
            ("json-line", clean == line), ("json-decoded", decoded == item.text)]


def test_no_lookalike_is_redacted() -> None:
    failures: list[str] = []
    for seed in SEEDS:
        for item in lookalikes(seed):
            for setting, kept in _lookalike_settings(item):
                if not kept:
                    failures.append(f"seed {seed} {item.kind} [{setting}]: {item.text!r} -> {redact(item.text)!r}")
    kinds = sorted({f.split()[2] for f in failures})
    assert not failures, f"lookalike kinds redacted: {kinds}\n" + _describe(failures)


@pytest.mark.parametrize("seed", SEEDS)
def test_corpus_shape(seed: int) -> None:
    corpus = secrets(seed)
    kinds = [s.kind for s in corpus]
    assert len(set(kinds)) == len(kinds) >= 45
    looks = [item.kind for item in lookalikes(seed)]
    assert len(set(looks)) == len(looks) >= 40
    for s in corpus:
        assert s.secret in s.text and len(s.secret) >= 8, s
    # Random per seed: no secret value repeats across seeds.
    assert not {s.secret for s in corpus} & {s.secret for s in secrets(seed + 100)}


# -- the families a table written from `secrets()` would miss (`family_secrets`) ----------------

FAMILY_SEEDS = range(10)


def test_every_family_secret_is_redacted_in_every_setting() -> None:
    failures: list[str] = []
    for seed in FAMILY_SEEDS:
        for s in family_secrets(seed):
            for setting, text, redacted in _secret_settings(s):
                if _leaks(s.secret, redacted) or _leaks(json.dumps(s.secret)[1:-1], redacted):
                    failures.append(f"seed {seed} {s.kind} [{setting}] ({s.source}): {text!r} -> {redacted!r}")
    kinds = sorted({f.split()[2] for f in failures})
    assert not failures, f"secret kinds that leak: {kinds}\n" + _describe(failures[:40])


def test_every_family_secret_is_redacted_over_many_seeds() -> None:
    failures = [f"seed {seed} {s.kind}: {s.text!r} -> {redact(s.text)!r}"
                for seed in range(10, 110) for s in family_secrets(seed) if _leaks(s.secret, redact(s.text))]
    kinds = sorted({f.split()[2] for f in failures})
    assert not failures, f"secret kinds that leak: {kinds}\n" + _describe(failures[:40])


def test_no_family_lookalike_is_redacted() -> None:
    failures: list[str] = []
    for seed in SEEDS:
        for item in family_lookalikes(seed):
            for setting, kept in _lookalike_settings(item):
                if not kept:
                    failures.append(f"seed {seed} {item.kind} [{setting}]: {item.text!r} -> {redact(item.text)!r}")
    kinds = sorted({f.split()[2] for f in failures})
    assert not failures, f"lookalike kinds redacted: {kinds}\n" + _describe(failures[:40])


def test_family_corpus_shape() -> None:
    kinds = [s.kind for s in secrets(0) + family_secrets(0)]
    assert len(set(kinds)) == len(kinds) >= 130
    looks = [item.kind for item in lookalikes(0) + family_lookalikes(0)]
    assert len(set(looks)) == len(looks) >= 80
    assert not {s.secret for s in family_secrets(0)} & {s.secret for s in family_secrets(1)}
