"""The evaluator's own yardstick: the leak criterion finds what it should and blames no one else."""

from __future__ import annotations

import random

import _heldout  # noqa: F401  (tools/ on sys.path)

from secret_eval.kinds import rendered
from secret_eval.leaks import Matcher, fixed_windows
from secret_eval.places import LINE_PLACES, PLACES, TEXT_PLACES, build_logs, build_placements, kinds_of


def _secrets(seed: int = 5) -> list:
    return [p for p in build_placements(seed, per_kind=1) if p.corpus in ("public", "people")]


def test_corpora_sizes() -> None:
    assert len(kinds_of("public")) >= 80
    assert len(kinds_of("people")) >= 80
    assert len(kinds_of("lookalike")) >= 80
    assert set(PLACES) == set(TEXT_PLACES) | set(LINE_PLACES) and len(PLACES) == 14


def test_every_kind_makes_fresh_values_and_renders_them() -> None:
    rng = random.Random(3)
    for corpus in ("public", "people", "lookalike"):
        for k in kinds_of(corpus):
            values = {k.make(rng) for _ in range(3)}
            assert len(values) == 3, f"{k.name} does not make fresh values"
            value = values.pop()
            assert len(value) >= 10 or corpus == "lookalike", f"{k.name}: value shorter than the leak window"
            for render in k.renders:
                text, forms = rendered(render(rng, value))
                held = any(value[i : i + 10] in text for i in range(max(1, len(value) - 9)))
                assert held or forms, f"{k.name}: a rendering holds neither the value nor a form of it"
                if corpus == "lookalike":
                    assert value in text, f"{k.name}: a lookalike must be written whole"


def test_any_ten_characters_are_a_leak_and_are_attributed() -> None:
    secrets = _secrets()
    matcher = Matcher(secrets)
    assert not matcher.blind
    for p in secrets[::7]:
        windows = [p.value[i : i + 10] for i in range(0, len(p.value) - 9, 3)]
        hits = [matcher.find(f"noise {w} noise") for w in windows]
        assert any(p.pid in h for h in hits), p.label
        for h in hits:
            assert set(h) <= {p.pid}, f"{p.label}: a window of it blamed {h}"
    assert matcher.find("nothing secret here, just a sentence about sk-ant-api03- and https://hooks.slack.com/") == {}


def test_fixed_text_of_a_kind_is_not_evidence() -> None:
    secrets = [p for p in _secrets() if p.kind in ("anthropic-api", "slack-webhook", "pem-rsa")]
    fixed = {w for _, w in fixed_windows(secrets)}
    assert "sk-ant-api" in fixed and "hooks.slac" in fixed
    matcher = Matcher(secrets)
    for p in secrets:
        assert matcher.find(p.value[:12]) == {}, f"{p.label}: its prefix alone counted as a leak"


def test_lowercased_index_terms_are_matched() -> None:
    secrets = _secrets()
    lower = Matcher(secrets, lower=True)
    p = next(s for s in secrets if s.kind == "github-classic")
    assert p.pid in lower.find(p.value.lower()[4:20])


def test_logs_are_well_formed_json_lines_except_the_quarantined_ones() -> None:
    import json

    placements = build_placements(9, per_kind=1)
    files = build_logs(placements, 9)
    broken = 0
    for f in files:
        for line in f.lines:
            try:
                json.loads(line)
            except ValueError:
                broken += 1
    assert broken == sum(p.place == "quarantined" for p in placements)
    assert all(p.session and p.log for p in placements)
