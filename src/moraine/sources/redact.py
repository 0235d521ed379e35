"""Credential redaction, applied to every raw line before it is parsed or stored.

Working on the raw JSON line means every field (prompt, arguments, output, quarantined
fragment) is covered by one pass. Every pattern's character class excludes quotes and
backslashes, so a replacement can never break the JSON around it.
"""

from __future__ import annotations

import math
import re
from collections import Counter

_RULES: list[tuple[str, str]] = [
    ("pem-private-key",
     r"-----BEGIN[A-Z ]{0,40}PRIVATE KEY-----(?:[A-Za-z0-9+/=\s]|\\n|\\r){16,}?-----END[A-Z ]{0,40}PRIVATE KEY-----"),
    ("aws-access-token", r"\b(?:A3T[A-Z0-9]|AKIA|ASIA|ABIA|ACCA)[A-Z2-7]{16}\b"),
    ("github-fine-grained-token", r"\bgithub_pat_[A-Za-z0-9_]{82,}"),
    ("github-token", r"\bgh[pousr]_[A-Za-z0-9_]{36,}"),
    ("gitlab-token", r"\b(?:glpat|glft|glcbt|glsoat|gldt)-[A-Za-z0-9_-]{20,}"),
    ("slack-token", r"\bxox[pbarose]-[A-Za-z0-9-]{10,}"),
    ("slack-webhook", r"https://hooks\.slack\.com/services/[A-Za-z0-9/_-]{20,}"),
    ("google-api-key", r"\bAIza[0-9A-Za-z_-]{35}"),
    ("google-oauth-token", r"\bya29\.[0-9A-Za-z_-]{20,}"),
    ("jwt", r"\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}"),
    ("stripe-token", r"\b(?:sk|rk|pk)_(?:test|live)_[A-Za-z0-9]{10,}"),
    ("stripe-webhook-secret", r"\bwhsec_[A-Za-z0-9]{20,}"),
    ("anthropic-api-key", r"\bsk-ant-[A-Za-z0-9_-]{20,}"),
    ("openai-api-key", r"\bsk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_-]{20,}"),
    ("huggingface-token", r"\bhf_[A-Za-z0-9]{30,}"),
    ("sendgrid-api-key", r"\bSG\.[A-Za-z0-9_-]{20,}\.[A-Za-z0-9_-]{20,}"),
    ("npm-token", r"\bnpm_[A-Za-z0-9]{30,}"),
    ("pypi-token", r"\bpypi-[A-Za-z0-9_-]{30,}"),
    ("digitalocean-token", r"\bdop_v1_[a-f0-9]{64}"),
    ("dockerhub-token", r"\bdckr_pat_[A-Za-z0-9_-]{20,}"),
    ("linear-api-key", r"\blin_api_[A-Za-z0-9]{30,}"),
]
_COMBINED = re.compile("|".join(f"(?P<r{i}>{pattern})" for i, (_, pattern) in enumerate(_RULES)))
_PREFILTER = re.compile(
    r"PRIVATE KEY|AKIA|ASIA|ABIA|ACCA|A3T|github_pat_|gh[pousr]_|gl(?:pat|ft|cbt|soat|dt)-|xox|hooks\.slack|AIza"
    r"|ya29\.|eyJ|_test_|_live_|whsec_|sk-|hf_|SG\.|npm_|pypi-|dop_v1_|dckr_pat_|lin_api_"
    r"|(?i:api[_-]?key|access[_-]?token|auth|bearer|secret|passw|credential|private[_-]?key|token)"
)
_GENERIC = re.compile(
    r"(?i)(?P<key>api[_-]?key|access[_-]?token|auth[_-]?token|authorization|bearer|client[_-]?secret|credential"
    r"|passwd|password|private[_-]?key|secret|token)(?P<sep>[\"']?\s*[:=]\s*[\"']?|\s+)"
    r"(?P<value>[0-9A-Za-z_./+=-]{20,})"
)
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


def redact(text: str) -> str:
    """Replace every credential in `text` by `[REDACTED:<rule>]`."""
    if not _PREFILTER.search(text):
        return text

    def named(match: re.Match[str]) -> str:
        index = int(match.lastgroup[1:])  # type: ignore[index]
        return f"[REDACTED:{_RULES[index][0]}]"

    text = _COMBINED.sub(named, text)
    return _GENERIC.sub(_generic, text)
