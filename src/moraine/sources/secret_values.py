"""What a value looks like, for the redaction rules: a literal a person typed, or code that
names or reads a secret (`${TOKEN}`, `os.environ["X"]`, `self.token`, a type, a file name);
random like a credential, or made of words."""

from __future__ import annotations

import math
import re
from collections import Counter

Span = tuple[int, int, str]  # start, end, rule name


def mixed(value: str) -> bool:
    return any(c.isdigit() for c in value) and any(c.isalpha() for c in value)


_STOP_WORDS = ("example", "placeholder", "changeme", "change_me", "change-me", "dummy", "sample", "redacted",
               "notasecret", "your_", "your-", "yourpass", "xxxx", "****", "....", "…", "<", ">", "{{", "${",
               "todo", "fixme", "replace", "insert", "goes_here", "-here")
# A template of identifier characters (`"__attr_factory_%s"`), not a password that holds `%r`.
_FORMAT = re.compile(r"[\w.:/ -]*(?:%[sdr]|%\([a-z_]+\)[sdr]|\{\})[\w.:/ -]*")
_LITERAL_WORDS = frozenset({
    "null", "none", "nil", "true", "false", "undefined", "required", "optional", "string", "str", "bytes",
    "int", "number", "boolean", "bool", "any", "object", "secret", "password", "token", "env", "default",
    "omit", "hidden", "masked", "empty", "unset", "prompt", "stdin", "input", "auto", "file", "none,",
    "secretstr", "secretbytes", "text", "varchar", "char", "uuid", "bearer", "basic", "pass", "passwd", "pwd",
    "user:pass", "username", "user", "login",
})
_REFERENCE_START = tuple("$%{<[(@#*&!?|-`")
# Values that are public by design: Stripe publishable keys, Mapbox public tokens, PubNub
# publish/subscribe keys, SSH public keys.
_PUBLIC_VALUES = ("pk_live_", "pk_test_", "pk.eyJ", "pub-c-", "sub-c-", "ssh-rsa ", "ssh-ed25519 ", "ecdsa-sha2-")
DOTTED = re.compile(r"[A-Za-z_][\w-]*(?:\.[A-Za-z_][\w-]*)+")
# A type or class name: capitalised words after an optional acronym (`EventLoopToken`,
# `PKCS7PrivateKeyTypes`, `Ed25519PrivateKey`, `Auth`, `RefreshTokenT`); random text never
# splits into such words.
TYPE_NAME = re.compile(r"(?:[A-Z]{1,6}[0-9]*|[A-Z][a-z][0-9]+)?(?:[A-Z][a-z]{2,}[0-9]*)+[A-Z]?")
_CODE_WORD = re.compile(r"[a-z]+(?:[A-Z][a-z]+)+|[a-z]+(?:_[a-z]+)+")  # `serverAuth`, `debug_prompt`


def is_reference(value: str) -> bool:
    """A value that names or reads a secret instead of holding one: `${TOKEN}`, `<password>`,
    `os.environ["X"]`, `getpass()`, `self.token`, `tokenizer_config.json`, `changeme`, a type."""
    lowered = value.lower()
    if len(value) < 4 or lowered.rstrip(":;,.") in _LITERAL_WORDS or value.startswith(_REFERENCE_START):
        return True
    if value.startswith(_PUBLIC_VALUES):
        return True
    if any(word in lowered for word in _STOP_WORDS) or len(set(value)) <= 2 or _FORMAT.fullmatch(value):
        return True
    if "(" in value or "[" in value or " | " in value or " = " in value:  # a call, a subscript, a type
        return True
    if DOTTED.fullmatch(value) and not random_looking(value):  # an attribute, a module, a file name
        return True
    if value.startswith(("/", "./", "~/", "../")) or (value.count("/") >= 2 and not random_looking(value)):
        return True  # a path (a base64 secret holds slashes too, but looks random)
    return bool(TYPE_NAME.fullmatch(value) or _CODE_WORD.fullmatch(value))


def random_looking(value: str) -> bool:
    """An identifier-shaped value that is nevertheless a credential (`token = a8Fk2…`); in a
    dotted name, one random-looking part is enough."""
    if "." in value:
        return any(random_looking(part) for part in value.split("."))
    return len(value) >= 16 and mixed(value) and entropy(value) >= 3.5 and not TYPE_NAME.fullmatch(value)


def entropy(value: str) -> float:
    counts = Counter(value)
    total = len(value)
    return -sum(c / total * math.log2(c / total) for c in counts.values())
