"""Passwords people choose, known by their shape alone: `Winter6975!bFb7gQO`, `Coco6279$Qq9hK`,
`Gr@n1t3c3d@r943vgIN`, `#*4RJpwmCZD#5W`.

The other rules need a word beside a value (a key name, "password", a vendor); a password pasted
in a table cell, a reply, another language or a code literal often has none. What marks it is
its shape: letters, digits and a symbol such as `!@#$%^&*?~` *between* runs of letters and
digits, one of which mixes both, and a capital letter (or leetspeak: `@`, `$`, `!` standing for
letters among digits). Text and code are full of symbols too, so the shapes code and addresses
make are not passwords: operators (`**`, `&&`, `??`, `!=`, `a.b=c`, `x*2`), format specs
(`%s`, `{0!r}`), percent-escapes, encoded words (`=?utf-8?q?…?=`), character ranges (`a-zA-Z0-9`),
anchors and tags (`rfc3986#section-3`, `UTF-8@latin`), pins (`checkout@v4`, `x.tgz#9f1c…`,
`@sha256`), query strings, e-mail addresses, handles (`@JohnDoe1985`) and mangled names
(`isFunction$1`, `dev$2dchannel.DevSocket`). Measured on the Python standard library and
site-packages, npm's and jQuery's JavaScript (minified too) and the held-out lookalike corpora
(tools/secret_eval).
"""

from __future__ import annotations

import re

import re2

from moraine.redaction.secret_context import is_id
from moraine.redaction.secret_values import Span, entropy, mixed

_SYMBOLS = "!@#$%^&*?~"
# The gate: a symbol touching a run that mixes letters and digits (RE2, one pass over the text).
CHOSEN = re2.compile(r"(?:[A-Za-z]+[0-9]|[0-9]+[A-Za-z])[A-Za-z0-9]*[!@#$%^&*?~]+[A-Za-z0-9]"
                     r"|[A-Za-z0-9][!@#$%^&*?~]+(?:[A-Za-z]+[0-9]|[0-9]+[A-Za-z])")
_RUN = "A-Za-z0-9!@#$%^&*?~+_.-"  # no `=`: a key's name is not part of its value
# a run after a character outside it, or after an escaped newline or tab (`…\nPASS…` in JSON)
_CANDIDATE = re.compile(rf"(?:(?<![{_RUN}\\])|(?<=\\[nrt]))([{_RUN}]{{10,64}})(?![{_RUN}])")
_SYMBOL = re.compile(r"[!@#$%^&*?~]")
_FLANKED = re.compile(r"([A-Za-z0-9]+)[!@#$%^&*?~]+(?=([A-Za-z0-9]+))")
_LEET = re.compile(r"[a-z0-9][@$!][a-z0-9].*\d.*\d|\d.*\d.*[a-z0-9][@$!][a-z0-9]")
_CODE = re.compile(r"%[-#0-9.]*[sdrfxiXoeg]|%\(|=\?|\?=|![rsa]\b|\*\*|\.\*|\*\.|[!=<>]=|\w\*\d|\d\*\w|&&|\?\?"
                   r"|\|\||=!|\?\.|\.\w+=|\.\w+\?|%[0-9A-F]{2}|a-z|A-Z|0-9")
_ANCHOR_OR_TAG = re.compile(r"#[A-Za-z]|@[a-z]+$|^[A-Z]{2,}#\d")  # and a standard's number: `PKCS#1v1.5`
_PIN = re.compile(r"@(?:v?\d+(?:\.\d+)+|v\d|\d+$|sha\d*|[0-9a-f]{7,}\b)|#[0-9a-f]{6,}|#(?:sha|rev|v\d)")
_EMAIL = re.compile(r"[\w.+-]*@[\w-]+(?:\.[\w-]+)+\.?")
_QUERY = re.compile(r"[?&][\w.-]+=|=[\w.~-]*&")


def chosen_password(value: str) -> bool:
    """Whether a run of password characters has the shape of a chosen password (see above)."""
    core = value.strip(".-_+").lstrip("!")
    symbols = _SYMBOL.findall(core)
    if not symbols or not any(c.isdigit() for c in core) or not any(c.islower() for c in core):
        return False
    if _CODE.search(value) or _PIN.search(core) or _QUERY.search(core) or _EMAIL.fullmatch(core):
        return False
    if len(symbols) == 1 and _ANCHOR_OR_TAG.search(core):
        return False
    if set(symbols) == {"$"} and ("." in core or len(symbols) >= 3):
        return False  # names mangled by a compiler
    if not any(mixed(m.group(1)) or mixed(m.group(2)) for m in _FLANKED.finditer(core)):
        return False  # `isFunction$1`, `0?Math.abs`, `@JohnDoe1985`: no mixed run beside the symbol
    if not any(c.isupper() for c in core) and not _LEET.search(core):
        return False  # arithmetic and anchors hold no capital
    return sum(c.isalpha() for c in core) >= 3 and entropy(core) >= 3.0


def chosen_spans(text: str, data: bytes) -> list[Span]:
    """Every run of `text` with the shape of a chosen password that is not an id (`data`: the
    gate's bytes, unused)."""
    found: list[Span] = []
    for match in _CANDIDATE.finditer(text):
        if chosen_password(match.group(1)) and not is_id(text, match.start(1), match.end(1)):
            found.append((match.start(1), match.end(1), "password-shape"))
    return found
