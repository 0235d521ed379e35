"""Encoded credentials: the same rules, run on what an encoded span decodes to.

A token pasted URL-encoded (`ghp%5F…`), as JavaScript or JSON escapes (`\\u0067hp_…`), as HTML
entities, in full-width letters, or a whole `.env` file, kubeconfig key or `user:password` pair
in base64 or hex is still a credential, but no shape matches its encoded bytes. So candidates are
decoded and the decoded text is scanned by the same rules (`redact._rule_spans`, one level deep:
a decoded text is not decoded again, which bounds the cost):

* escapes (`%2F`, `\\u0067`, `\\x67`, `&#103;`) decode the whole text with a map from each decoded
  character to where it came from, so a span found in the decoded text is redacted exactly where
  its encoded form is (`next=%2Frepos%3Fauth%3D[REDACTED:github-token]`);
* a base64 or hex blob (a line, or lines wrapped at one width as `base64` and PEM write them)
  is redacted whole when what it decodes to holds a credential: its bytes cannot be split.

Finding candidates must stay cheap, since every text is searched for them: an escape of a
printable ASCII character (`\\u0067`; JSON writes `\\u` only for other characters), and, for
blobs, the base64 or hex of a word that opens a credential or names one (`ghp_`, `AKIA`,
`-----BEGIN`, `PASSWORD`, `_KEY=`). Base64 of a word has three forms, one per alignment of the
word against base64's 3-byte groups; each form's inner characters depend on the word alone, so
the search is for literal strings (`ENCODED_TRIGGERS`). A blob beside a decoding command
(`base64 -d`, `atob(`, `b64decode`) is decoded whatever it holds.
"""

from __future__ import annotations

import base64
import binascii
import re
import unicodedata
from collections.abc import Callable

from moraine.redaction.secret_prose import password_like
from moraine.redaction.secret_values import Span, mixed, random_looking

# Words whose base64 or hex marks a blob worth decoding: token prefixes (gitleaks', trufflehog's)
# and the words of a `.env` file or PEM block.
_ANCHORS: tuple[bytes, ...] = (
    b"ghp_", b"gho_", b"ghu_", b"ghs_", b"github_pat_", b"glpat-", b"sk-ant-", b"sk-proj-", b"sk_live_",
    b"rk_live_", b"AKIA", b"ASIA", b"xoxb-", b"xoxp-", b"AIza", b"npm_", b"dckr_pat_", b"pypi-AgE", b"hvs.",
    b"-----BEGIN", b"PRIVATE KEY", b"PASSWORD", b"password", b"Password", b"PASSWD", b"passwd", b"SECRET",
    b"secret", b"Secret", b"TOKEN", b"token", b"Token", b"_KEY=", b"_KEY\":", b"API_KEY", b"api_key", b"apiKey",
    b"_PASS=", b"_PAT=", b"Bearer ",
)


def _base64_forms(word: bytes) -> list[str]:
    """The characters of `word`'s base64 that depend on `word` alone, for each alignment."""
    forms = []
    for shift in range(3):
        encoded = base64.b64encode(b"\0" * shift + word + b"\0\0\0").decode()
        forms.append(encoded[-(-8 * shift // 6):(8 * (shift + len(word))) // 6])
    return forms


def _triggers() -> str:
    literals: set[str] = set()
    for word in _ANCHORS:
        literals.update(form for form in _base64_forms(word) if len(form) >= 4)
        literals.update((word.hex(), word.hex().upper()))
    alternatives = sorted(re.escape(literal) for literal in literals)
    escapes = [r"\\+u00[2-7][0-9A-Fa-f]", r"\\+u[fF][fF][0-5][0-9A-Fa-f]", r"\\+x[2-7][0-9A-Fa-f]",
               r"%[2-7][0-9A-Fa-f]", r"&#(?:x[2-7][0-9A-Fa-f]|[3-9][0-9]|1[01][0-9]|12[0-6]);"]
    return "|".join([*alternatives, *escapes, r"(?i:base64|b64decode|atob|xxd|encodedcommand|-enc\s)"])


ENCODED_TRIGGERS = _triggers()

# -- escapes ---------------------------------------------------------------------------------------

_ESCAPE = re.compile(r"%([0-9A-Fa-f]{2})|\\+u([0-9A-Fa-f]{4})|\\+x([0-9A-Fa-f]{2})"
                     r"|&#x([0-9A-Fa-f]{1,4});|&#([0-9]{1,5});")


def _escape_char(match: re.Match[str]) -> str:
    percent, uni, byte, hex_entity, entity = match.groups()
    code = int(percent or uni or byte or hex_entity or "0", 16) if not entity else int(entity)
    char = chr(code) if code < 0x110000 else "?"
    if not char.isascii():
        return fold_wide(char)  # `\uff47` is a full-width g
    return char if char.isprintable() or char in "\n\t" else "?"


def unescaped(text: str) -> tuple[str, list[int]] | None:
    """`text` with its escapes decoded (ASCII; any other character a `?`), and for each decoded
    position (and the end) the position it came from; None when nothing was decoded."""
    out: list[str] = []
    where: list[int] = []
    last = 0
    for match in _ESCAPE.finditer(text):
        out.append(text[last:match.start()])
        where.extend(range(last, match.start()))
        out.append(_escape_char(match))
        where.append(match.start())
        last = match.end()
    if not out:
        return None
    out.append(text[last:])
    where.extend(range(last, len(text) + 1))
    return "".join(out), where


_WIDE = re.compile("[\uff01-\uff5e\U0001d400-\U0001d7ff\u2070-\u209f\u24b6-\u24e9]")


def fold_wide(text: str) -> str:
    """Compatibility forms folded to ASCII one character for one (`ｇｈｐ＿` → `ghp_`, 𝐠 → g),
    every other non-ASCII character a `?`: the same positions, so spans carry over."""
    if _WIDE.search(text) is None:  # most non-ASCII text (CJK, accents, emoji) has none
        return text.encode("ascii", "replace").decode("ascii")
    table = {}
    for char in set(text):
        if not char.isascii():
            folded = _FOLDED.get(char)
            if folded is None:
                folded = unicodedata.normalize("NFKC", char)
                folded = folded if len(folded) == 1 and folded.isascii() and folded.isprintable() else "?"
                if len(_FOLDED) < 65_536:
                    _FOLDED[char] = folded
            table[ord(char)] = folded
    return text.translate(table)


_FOLDED: dict[str, str] = {}

# -- blobs -----------------------------------------------------------------------------------------

_LINE = r"(?:\r?\n|(?:\\r)?\\n)[ \t]*"
# A blob starts after a JSON escape (`\\n`) or where no blob character stands before it.
_START = r"(?:(?<=\\[nrt])|(?<![\\A-Za-z0-9+/_-]))"
_BASE64_BLOB = re.compile(rf"{_START}[A-Za-z0-9+/_-]{{12,}}={{0,2}}(?:{_LINE}[A-Za-z0-9+/_-]{{4,}}={{0,2}})*")
_HEX_BLOB = re.compile(rf"{_START}(?:[0-9a-fA-F]{{2}}){{8,}}(?![0-9a-fA-F])")
_BREAK = re.compile(_LINE)


def _kept_length(blob: str) -> int:
    """How many characters of a blob belong to it: a blob wraps at a width of 60 to 80 (`base64`
    at 76, PEM at 64, a multiple of 4), each line but the last as wide as the first; a shorter
    line ends it, and a line after one of another width is other text (`…K` then `done`)."""
    lines = _BREAK.split(blob)
    breaks = list(_BREAK.finditer(blob))
    width = len(lines[0])
    if len(lines) == 1 or not (60 <= width <= 80 and width % 4 == 0):
        return len(lines[0])
    for i in range(1, len(lines)):
        if len(lines[i]) != width:  # line i is the last (shorter) one
            return breaks[i - 1].end() + len(lines[i])
    return len(blob)


def _printable(data: bytes) -> str | None:
    if len(data) < 6:
        return None
    # UTF-16LE (PowerShell's -EncodedCommand): every other byte a NUL
    utf16 = len(data) % 2 == 0 and data[1::2].count(0) >= 0.9 * (len(data) // 2)
    try:
        text = data.decode("utf-16-le" if utf16 else "utf-8")
    except UnicodeDecodeError:
        return None
    visible = sum(1 for c in text if c.isprintable() or c in "\n\r\t")
    return text if visible >= 0.95 * len(text) else None


def _from_base64(blob: str) -> str | None:
    body = blob.rstrip("=")
    if len(body) % 4 == 1:
        return None
    padded = body + "=" * (-len(body) % 4)
    try:
        data = base64.b64decode(padded, altchars=b"-_" if ("-" in body or "_" in body) else None, validate=True)
    except (binascii.Error, ValueError):
        return None
    return _printable(data)


def _from_hex(blob: str) -> str | None:
    return _printable(bytes.fromhex(blob))


_PAIR = re.compile(r"[A-Za-z0-9._@+-]{1,64}:([^\s:]{6,128})")


def basic_pair(decoded: str) -> bool:
    """Whether a decoded blob is a `user:password` pair (HTTP Basic, a Docker `auth`): a password
    is never a plain word here (`hello:world` is text)."""
    match = _PAIR.fullmatch(decoded.strip())
    return match is not None and (mixed(match.group(1)) or not match.group(1).isalnum())


Scan = Callable[[str], list[Span]]


def blob_spans(text: str, scan: Scan) -> list[Span]:
    """Base64 and hex blobs of `text` whose decoded text holds a credential, redacted whole."""
    found: list[Span] = []
    decoding = re.search(r"(?i)base64|b64decode|atob|encodedcommand", text) is not None
    for kind, finder, decode in (("base64", _BASE64_BLOB, _from_base64), ("hex", _HEX_BLOB, _from_hex)):
        for match in finder.finditer(text):
            length = _kept_length(match.group()) if kind == "base64" else len(match.group())
            decoded = decode(_BREAK.sub("", match.group()[:length]))
            breaks = list(_BREAK.finditer(match.group(), 0, length)) if decoded is None and kind == "base64" else []
            if breaks:  # a last line that is other text (`done`)
                length = breaks[-1].start()
                decoded = decode(_BREAK.sub("", match.group()[:length]))
            if decoded is None:
                continue
            inner = scan(decoded)
            if inner:
                found.append((match.start(), match.start() + length, f"{kind}-{inner[0][2]}"[:64]))
            elif kind == "base64" and (decoding or length <= 120) and basic_pair(decoded):
                found.append((match.start(), match.start() + length, "base64-basic-credentials"))
            elif _DECODED_BY.match(text, match.start() + length) and _lone_secret(decoded):
                found.append((match.start(), match.start() + length, f"{kind}-decoded-secret"))
    return found


# A blob piped to a decoder (`echo … | xxd -r -p`, `| base64 -d`): a value someone hid from view.
_DECODED_BY = re.compile(r"[\"']?\s*\|\s*(?:xxd\s+-r|base64\s+(?:-d|--decode|-D)|openssl\s+(?:base64|enc)\s+-d)")


def _lone_secret(decoded: str) -> bool:
    """What a hidden blob decodes to is a secret when it is one token a person or a generator
    wrote (`meadow-8z1q-walnut-246`), not text or a file."""
    core = decoded.strip()
    return not any(c.isspace() for c in core) and (password_like(core) or random_looking(core))
