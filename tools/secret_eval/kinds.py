"""What a kind is, and the small random and encoding helpers the three corpora share.

A *kind* is one sort of string: a vendor token, a password written the way people write it, or
a lookalike that must be left alone. Each has

    make(rng) -> str                      a fresh random value (never a real credential)
    renders: [render(rng, value) -> str | (str, [(form, window)])]
                                          ways to write it into text; an encoded rendering also
                                          names the encoded form(s) that count as the value
                                          (with the window, in characters of that form, that
                                          stands for 10 characters of the value)

The leak criterion (see `leaks.py`): any `window` consecutive characters of the value or of
one of its forms, found in what Moraine returns or stores.
"""

from __future__ import annotations

import base64
import random
import re
import string
import urllib.parse
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

Form = tuple[str, int]  # (an encoded form of the value, its window in characters)
Rendered = str | tuple[str, list[Form]]
Render = Callable[[random.Random, str], Rendered]

WINDOW = 10

HEX = "0123456789abcdef"
HEXU = "0123456789ABCDEF"
DIGITS = string.digits
LOWER = string.ascii_lowercase
UPPER = string.ascii_uppercase
ALNUM = string.ascii_letters + string.digits
LALNUM = string.ascii_lowercase + string.digits
UALNUM = string.ascii_uppercase + string.digits
B64 = ALNUM + "+/"
B64URL = ALNUM + "-_"
B32 = "abcdefghijklmnopqrstuvwxyz234567"


@dataclass(frozen=True)
class Kind:
    name: str
    family: str
    make: Callable[[random.Random], str]
    renders: tuple[Render, ...]
    source: str = ""  # where the shape was learned (public corpus) or what it imitates
    # True when the value says what it is on its own (a vendor prefix): such a kind is also
    # written bare into the one-line places (a tool name, a branch); others use a one-line
    # rendering that carries its context.
    self_evident: bool = False
    notes: str = ""
    tags: tuple[str, ...] = field(default_factory=tuple)


def kind(name: str, family: str, make: Callable[[random.Random], str], *renders: Render, source: str = "",
         self_evident: bool = False, notes: str = "") -> Kind:
    return Kind(name, family, make, tuple(renders), source, self_evident, notes)


def rendered(result: Rendered) -> tuple[str, list[Form]]:
    if isinstance(result, tuple):
        return result
    return result, []


# --------------------------------------------------------------------------------------------
# random pieces
# --------------------------------------------------------------------------------------------


def rs(rng: random.Random, alphabet: str, n: int) -> str:
    return "".join(rng.choice(alphabet) for _ in range(n))


def mixed(rng: random.Random, alphabet: str, n: int) -> str:
    """n characters of `alphabet` holding at least one digit, one lower and one upper letter
    where the alphabet has them (a random token that does not look like a word)."""
    while True:
        value = rs(rng, alphabet, n)
        if n < 8:
            return value
        need = [set(a) for a in (DIGITS, LOWER, UPPER) if set(a) & set(alphabet)]
        if all(set(value) & s for s in need):
            return value


# Templates of the outsider corpora: «v» is the value, every other «name» or «name:n» is drawn by the
# corpus's own filler (a user, a host, n hex digits), fresh at every rendering.
PLACEHOLDER = re.compile(r"«([A-Za-z_][A-Za-z0-9_]*)(?::(\d+))?»")
Template = str | list[str] | Callable[[random.Random, str], str]  # a list: one of them, drawn per rendering
Filler = Callable[[random.Random, str, "int | None"], str]


def filled(rng: random.Random, template: str, value: str, filler: Filler) -> str:
    """`template` with «v» as `value` and each other placeholder drawn by `filler`."""
    return PLACEHOLDER.sub(lambda m: value if m.group(1) == "v" else
                           filler(rng, m.group(1), int(m.group(2)) if m.group(2) else None), template)


def rendering(template: Template, filler: Filler) -> Callable[[random.Random, str], str]:
    """A kind's rendering from a template (a callable is one already)."""
    if callable(template):
        return template
    if isinstance(template, list):
        return lambda rng, v: filled(rng, rng.choice(template), v, filler)
    return lambda rng, v: filled(rng, template, v, filler)


def compose(*parts: str | tuple[str, int] | Callable[[random.Random], str]) -> Callable[[random.Random], str]:
    """A value made of literal strings, (alphabet, n) random runs and callables."""

    def make(rng: random.Random) -> str:
        return "".join(p if isinstance(p, str) else rs(rng, p[0], p[1]) if isinstance(p, tuple) else p(rng)
                       for p in parts)

    return make


def sha1(rng: random.Random) -> str:
    return rs(rng, HEX, 40)


def sha256(rng: random.Random) -> str:
    return rs(rng, HEX, 64)


def uuid4(rng: random.Random) -> str:
    h = rs(rng, HEX, 32)
    return f"{h[:8]}-{h[8:12]}-4{h[13:16]}-{rng.choice('89ab')}{h[17:20]}-{h[20:]}"


def b64_of(raw: bytes, url: bool = False, pad: bool = True) -> str:
    text = (base64.urlsafe_b64encode(raw) if url else base64.b64encode(raw)).decode("ascii")
    return text if pad else text.rstrip("=")


def rbytes(rng: random.Random, n: int) -> bytes:
    return bytes(rng.getrandbits(8) for _ in range(n))


def wrap(text: str, width: int = 64) -> str:
    return "\n".join(text[i : i + width] for i in range(0, len(text), width))


WORDS = ("maple", "otter", "copper", "lantern", "falcon", "walnut", "harbor", "cobalt", "meadow", "thistle",
         "juniper", "granite", "saffron", "pebble", "tundra", "velvet", "quartz", "ember", "willow", "raven",
         "cedar", "marble", "orchid", "canyon", "glacier", "hazel", "indigo", "lotus", "mango", "nectar",
         "oyster", "parsley", "quill", "rocket", "sparrow", "tulip", "umber", "violet", "wombat", "yonder")


def password(rng: random.Random) -> str:
    """A password as a person picks one: words, digits, a symbol, random casing (long enough
    that no 10 characters of it are shared with another value of the run)."""
    style = rng.randrange(4)
    if style == 0:
        return (rng.choice(WORDS).capitalize() + rng.choice("!#%&*+.-_") + rs(rng, DIGITS, 2)
                + rs(rng, ALNUM, 5) + rng.choice(WORDS))
    if style == 1:
        return mixed(rng, ALNUM + "!#%^&*()-_=+", rng.randrange(14, 22))
    if style == 2:
        return "-".join([rng.choice(WORDS), rs(rng, LALNUM, 4), rng.choice(WORDS), rs(rng, DIGITS, 3)])
    return mixed(rng, ALNUM, rng.randrange(16, 25))


def plain_password(rng: random.Random) -> str:
    """A password with no character that needs quoting in a shell or a URL."""
    return mixed(rng, ALNUM, rng.randrange(14, 22)) + rng.choice(["", "_", "."]) + rs(rng, ALNUM, 3)


def username(rng: random.Random) -> str:
    return rng.choice(["deploy", "admin", "svc_ci", "app", "jenkins", "root", "backup", "analytics", "etl"]) + (
        "" if rng.random() < 0.5 else rs(rng, DIGITS, 2))


def host(rng: random.Random) -> str:
    return rng.choice(["db", "cache", "mq", "api", "pg-primary", "mongo-0", "redis"]) + "." + rng.choice(
        ["internal", "prod.acme.io", "staging.example.com", "corp.lan", "eu-west-1.rds.amazonaws.com"])


# --------------------------------------------------------------------------------------------
# encodings (for the people corpus' encoded kinds)
# --------------------------------------------------------------------------------------------


def url_encoded(value: str) -> str:
    return urllib.parse.quote(value, safe="")


def u_escaped(value: str) -> str:
    return "".join(f"\\u{ord(c):04x}" for c in value)


def hex_of(value: str) -> str:
    return value.encode("utf-8").hex()


def full_width(value: str) -> str:
    return "".join(chr(ord(c) + 0xFEE0) if "!" <= c <= "~" else c for c in value)


# --------------------------------------------------------------------------------------------
# generic renderings of a value with a name (public corpus)
# --------------------------------------------------------------------------------------------


def r_env(name: str) -> Render:
    return lambda rng, v: f"{name}={v}"


def r_export(name: str) -> Render:
    return lambda rng, v: f'export {name}="{v}"'


def r_json(key: str) -> Render:
    return lambda rng, v: '{"' + key + '": "' + v + '", "timeout": 30}'


def r_yaml(key: str) -> Render:
    return lambda rng, v: f"config:\n  {key}: {v}\n  retries: 3"


def r_prose(vendor: str) -> Render:
    return lambda rng, v: rng.choice([
        f"Here is the {vendor} key you asked for: {v} (created today)",
        f"I rotated the {vendor} credential, the new one is {v}",
        f"use {v} for {vendor} until Friday",
    ])


def r_bare(rng: random.Random, v: str) -> str:
    return rng.choice([f"try {v}", f"token: {v}", f"{v}", f"value was {v}."])


def r_bearer(url: str) -> Render:
    return lambda rng, v: f'curl -sS -H "Authorization: Bearer {v}" {url}'


def r_header(name: str, url: str) -> Render:
    return lambda rng, v: f"curl -H '{name}: {v}' {url}"


def r_code(call: str) -> Render:
    """`call` holds `{v}`: e.g. 'client = Client(api_key="{v}")'."""
    return lambda rng, v: call.replace("{v}", v)


def one_line(kind_: Kind, rng: random.Random, value: str, limit: int = 220) -> tuple[str, list[Form]] | None:
    """A single-line way to write the value, for the one-line places (tool names, branches, ...):
    the bare value when it says what it is, else the first one-line rendering."""
    if kind_.self_evident and "\n" not in value and len(value) <= limit:
        return value, []
    for render in kind_.renders:
        text, forms = rendered(render(random.Random(rng.random()), value))
        if "\n" not in text and len(text) <= limit:
            return text, forms
    return None


def check_unique_names(kinds: Sequence[Kind]) -> None:
    seen: set[str] = set()
    for k in kinds:
        assert k.name not in seen, f"duplicate kind name {k.name}"
        seen.add(k.name)
