"""Credential redaction, applied to every value Moraine keeps before it is stored.

`sources.normalize_line` runs it over each event's text, arguments and metadata and over
quarantined fragments. The rules also hold on raw JSON text (a JSON escape such as `\\n`
counts as a word boundary; quoted keys may be escaped), so a fragment of a bad line is
covered too, and every replacement is free of quotes and backslashes.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Iterator
from itertools import repeat

_RULES: list[tuple[str, str]] = [
    ("pem-private-key",
     r"-----BEGIN[A-Z ]{0,40}PRIVATE KEY-----(?:[A-Za-z0-9+/=\s]|\\+[nr]){16,}?-----END[A-Z ]{0,40}PRIVATE KEY-----"),
    ("aws-access-token", r"(?:A3T[A-Z0-9]|AKIA|ASIA|ABIA|ACCA)[A-Z2-7]{16}\b"),
    ("github-fine-grained-token", r"github_pat_[A-Za-z0-9_]{82,}"),
    ("github-token", r"gh[pousr]_[A-Za-z0-9_]{36,}"),
    ("gitlab-token", r"(?:glpat|glft|glcbt|glsoat|gldt)-[A-Za-z0-9_-]{20,}"),
    ("slack-token", r"xox[pbarose]-[A-Za-z0-9-]{10,}"),
    ("slack-webhook", r"https://hooks\.slack\.com/services/[A-Za-z0-9/_-]{20,}"),
    ("google-api-key", r"AIza[0-9A-Za-z_-]{35}"),
    ("google-oauth-token", r"ya29\.[0-9A-Za-z_-]{20,}"),
    ("jwt", r"eyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}"),
    ("stripe-token", r"(?:sk|rk|pk)_(?:test|live)_[A-Za-z0-9]{10,}"),
    ("stripe-webhook-secret", r"whsec_[A-Za-z0-9]{20,}"),
    ("anthropic-api-key", r"sk-ant-[A-Za-z0-9_-]{20,}"),
    ("openai-api-key", r"sk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_-]{20,}"),
    ("huggingface-token", r"hf_[A-Za-z0-9]{30,}"),
    ("sendgrid-api-key", r"SG\.[A-Za-z0-9_-]{20,}\.[A-Za-z0-9_-]{20,}"),
    ("npm-token", r"npm_[A-Za-z0-9]{30,}"),
    ("pypi-token", r"pypi-[A-Za-z0-9_-]{30,}"),
    ("digitalocean-token", r"dop_v1_[a-f0-9]{64}"),
    ("dockerhub-token", r"dckr_pat_[A-Za-z0-9_-]{20,}"),
    ("linear-api-key", r"lin_api_[A-Za-z0-9]{30,}"),
]
# Literal markers that must occur for a rule to possibly match: a plain substring test per
# rule keeps redaction cheap on the vast majority of lines, which hold no credential at all.
_KEYWORDS: dict[str, tuple[str, ...]] = {
    "pem-private-key": ("-----BEGIN",),
    "aws-access-token": ("AKIA", "ASIA", "ABIA", "ACCA", "A3T"),
    "github-fine-grained-token": ("github_pat_",),
    "github-token": ("ghp_", "gho_", "ghu_", "ghs_", "ghr_"),
    "gitlab-token": ("glpat-", "glft-", "glcbt-", "glsoat-", "gldt-"),
    "slack-token": ("xox",),
    "slack-webhook": ("hooks.slack.com",),
    "google-api-key": ("AIza",),
    "google-oauth-token": ("ya29.",),
    "jwt": ("eyJ",),
    "stripe-token": ("sk_test_", "sk_live_", "rk_test_", "rk_live_", "pk_test_", "pk_live_"),
    "stripe-webhook-secret": ("whsec_",),
    "anthropic-api-key": ("sk-ant-",),
    "openai-api-key": ("sk-",),
    "huggingface-token": ("hf_",),
    "sendgrid-api-key": ("SG.",),
    "npm-token": ("npm_",),
    "pypi-token": ("pypi-",),
    "digitalocean-token": ("dop_v1_",),
    "dockerhub-token": ("dckr_pat_",),
    "linear-api-key": ("lin_api_",),
}
_COMPILED = [(name, _KEYWORDS[name], re.compile(pattern)) for name, pattern in _RULES]
_GENERIC_WORDS = ("key", "token", "secret", "passw", "auth", "bearer", "credential")
# After a key word: the rest of an identifier (`aws_secret_access_key`), a quote that may be
# JSON-escaped inside a JSON string (`\\"password\\": \\"…\\"`), `:` or `=`, and a long value.
# A key is a key word's alternative (up to 9 more letters: `auth|orization`) plus up to 30
# identifier characters, hence the 40.
_SEPARATOR_AHEAD = re.compile(
    r"[a-z0-9_-]{0,40}(?:\\*[\"'])?\s*[:=]\s*(?:\\*[\"'])?(?:bearer\s+)?[0-9a-z_./+=-]{20}|\s+[0-9a-z_./+=-]{20}"
)
# A key word sits at most this far into a key (`private_key`), so a match starts there.
_KEY_LEAD = 8
_GENERIC = re.compile(
    r"(?i)(?P<key>(?:api[_-]?key|access[_-]?token|auth[_-]?token|authorization|bearer"
    r"|client[_-]?secret|credential|passwd|password|private[_-]?key|secret|token)[a-z0-9_-]{0,30}?)"
    r"(?P<sep>(?:\\*[\"'])?\s*[:=]\s*(?:\\*[\"'])?(?:bearer\s+)?|(?<=bearer)\s+)"
    r"(?P<value>[0-9A-Za-z_./+=-]{20,})"
)
# No rule matches fewer characters: a Slack token (`xoxb-` and 10) has 15, an assignment
# (`key=` and a 20-character value) more.
_SHORTEST = 15
_STOP_WORDS = ("example", "placeholder", "changeme", "dummy", "sample", "redacted", "notasecret", "xxxx")


def _entropy(value: str) -> float:
    counts = Counter(value)
    total = len(value)
    return -sum(c / total * math.log2(c / total) for c in counts.values())


def _looks_secret(value: str) -> bool:
    """Entropy gate for `password=…`-style values, so ordinary identifiers survive."""
    value = value.strip("'\".,;")
    lowered = value.lower()
    if len(value) < 20 or any(word in lowered for word in _STOP_WORDS) or len(set(value)) <= 2:
        return False
    if "/" in value and value.count("/") > 2:  # a path, not a key
        return False
    if re.fullmatch(r"[a-z_]+", value) or re.fullmatch(r"[A-Z_]+", value):
        return False
    if re.fullmatch(r"[0-9a-fA-F]+", value):
        return _entropy(value) > 3.0 and not value.isdigit()
    return _entropy(value) > 3.5


def _generic(match: re.Match[str]) -> str:
    value = match.group("value")
    if not _looks_secret(value):
        return match.group(0)
    return f"{match.group('key')}{match.group('sep')}[REDACTED:generic-api-key]"


# Every token-shaped secret is a run of at least 15 `[A-Za-z0-9_-]` characters starting with
# its marker; such runs are found and only their starts are tested. The few rules whose
# marker holds other characters (a dot, dashes) are found by a plain substring search.
_RUN = re.compile(r"[A-Za-z0-9_-]{15,}")
_RUN_BYTES = frozenset(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-")
_RUN_MAP = bytes(0x61 if c in _RUN_BYTES else 0x20 for c in range(256))
_LONG_RUN = b"a" * 15
_LITERAL_RULES = frozenset({"pem-private-key", "slack-webhook", "google-oauth-token", "sendgrid-api-key"})
_BY_PREFIX = sorted(
    ((keyword, name, pattern) for name, keywords, pattern in _COMPILED if name not in _LITERAL_RULES
     for keyword in keywords),
    key=lambda item: -len(item[0]),
)
_PREFIXES = tuple(keyword for keyword, _, _ in _BY_PREFIX)
_LITERALS = [(keyword, name, pattern) for name, keywords, pattern in _COMPILED if name in _LITERAL_RULES
             for keyword in keywords]


def _runs(text: str) -> Iterator[tuple[int, int]]:
    """(start, end) of every run of 15 or more `[A-Za-z0-9_-]` characters.

    Same runs as `_RUN.finditer`, which retries a 15-character match at every position of
    every shorter word. Here each character becomes one byte (a non-ASCII one a `?`, never a
    run character), run bytes map to `a` and the rest to a space, and `find` looks for
    fifteen `a`s: a few passes in C, two to four times faster."""
    mapped = text.encode("ascii", "replace").translate(_RUN_MAP)
    start = mapped.find(_LONG_RUN)
    while start >= 0:
        end = mapped.find(b" ", start + 15)
        end = len(mapped) if end < 0 else end
        yield start, end
        start = mapped.find(_LONG_RUN, end)


def _starts(text: str, start: int, end: int) -> list[int]:
    """Word starts inside a run: its start (or just after a JSON escape like `\\n`) and after
    each dash (`prefix-AKIA…`)."""
    found = [start]
    if start >= 1 and text[start - 1] == "\\" and text[start] in "ntr":
        found.append(start + 1)
    dash = text.find("-", start, end)
    while dash >= 0:
        found.append(dash + 1)
        dash = text.find("-", dash + 1, end)
    return found


def _spans(text: str) -> list[tuple[int, int, str]]:
    """Where credentials are."""
    spans: list[tuple[int, int, str]] = []
    startswith = text.startswith
    for start, end in _runs(text):
        if text.find("-", start, end) >= 0 or (start and text[start - 1] == "\\"):
            positions = _starts(text, start, end)
        elif startswith(_PREFIXES, start):
            positions = [start]
        else:
            continue
        for pos in positions:
            if not startswith(_PREFIXES, pos):
                continue
            for keyword, name, pattern in _BY_PREFIX:
                if startswith(keyword, pos):
                    match = pattern.match(text, pos)
                    if match:
                        spans.append((match.start(), match.end(), name))
                        break
    for keyword, name, pattern in _LITERALS:
        pos = text.find(keyword)
        while pos >= 0:
            match = pattern.match(text, pos)
            if match and _at_boundary(text, pos):
                spans.append((match.start(), match.end(), name))
                pos = text.find(keyword, match.end())
            else:
                pos = text.find(keyword, pos + 1)
    return spans


def _at_boundary(text: str, start: int) -> bool:
    """A credential starts a word: after a non-word character or a JSON escape (`\\n`, `\\t`)."""
    if start == 0:
        return True
    before = text[start - 1]
    if not (before.isalnum() or before == "_"):
        return True
    return before in "ntr" and start >= 2 and text[start - 2] == "\\"


def redact(text: str) -> str:
    """Replace every credential in `text` by `[REDACTED:<rule>]`."""
    if len(text) < _SHORTEST:
        return text  # too short to hold any credential (most metadata values)
    return _redact_assignments(_redact_tokens(text))


def _redact_tokens(text: str) -> str:
    """Token-shaped credentials (a known prefix and its alphabet)."""
    spans = sorted(_spans(text), key=lambda s: (s[0], -s[1]))
    return _splice(text, [(start, end, f"[REDACTED:{name}]") for start, end, name in spans])


def _splice(text: str, edits: list[tuple[int, int, str]]) -> str:
    """`text` with each (start, end) span replaced, edits in order of start; one that starts
    inside an earlier one is dropped (the earlier, longer match wins, as a left-to-right
    regex `sub` would have it)."""
    if not edits:
        return text
    out, last = [], 0
    for start, end, replacement in edits:
        if start < last:
            continue
        out.append(text[last:start])
        out.append(replacement)
        last = end
    out.append(text[last:])
    return "".join(out)


def _assignment_starts(lowered: str) -> list[int]:
    """Where a `password=…` / `token: …` match can start: just before each key word that a
    separator and a long value follow. Finding the words is a few `str.find`s; the costly
    generic regex then runs anchored at these few places instead of at every character."""
    starts: set[int] = set()
    for word in _GENERIC_WORDS:
        pos = lowered.find(word)
        while pos >= 0:
            end = pos + len(word)
            if _SEPARATOR_AHEAD.match(lowered, end):
                starts.update(range(max(0, pos - _KEY_LEAD), pos + 1))
            pos = lowered.find(word, end)
    return sorted(starts)


def _redact_assignments(text: str) -> str:
    lowered = text.lower()
    starts = _assignment_starts(lowered)
    if not starts:
        return text
    if len(lowered) != len(text) or not text.isascii():
        # Case folding may move positions (and `(?i)` folds more than `lower()`): scan it all.
        return _GENERIC.sub(_generic, text)
    matches = [m for m in map(_GENERIC.match, repeat(text), starts) if m]
    return _splice(text, [(m.start(), m.end(), _generic(m)) for m in matches])
