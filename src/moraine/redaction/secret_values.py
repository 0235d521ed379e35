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


# (and masks: `sk-...Ab3d`, `••••`)
_STOP_WORDS = ("example", "placeholder", "changeme", "change_me", "change-me", "dummy", "sample", "redacted",
               "notasecret", "your_", "your-", "yourpass", "xxxx", "****", "....", "…", "{{", "${",
               "todo", "fixme", "replace", "insert", "goes_here", "-here", "...", "\u2022")
# A placeholder in angle brackets (`<password>`, `Bearer <your token>`); a salt holds `<` and `>` bare.
_ANGLED = re.compile(r"<[A-Za-z][\w .:-]*(?:>|$)|^<|>$")
# A template of identifier characters (`"__attr_factory_%s"`), not a password that holds `%r`.
_FORMAT = re.compile(r"[\w.:/ -]*(?:%[sdr](?![A-Za-z0-9])|%\([a-z_]+\)[sdr]|\{\})[\w.:/ -]*")
_LITERAL_WORDS = frozenset({
    "null", "none", "nil", "true", "false", "undefined", "required", "optional", "string", "str", "bytes",
    "int", "number", "boolean", "bool", "any", "object", "secret", "password", "token", "env", "default",
    "omit", "hidden", "masked", "empty", "unset", "prompt", "stdin", "input", "auto", "file", "none,",
    "secretstr", "secretbytes", "text", "varchar", "char", "uuid", "bearer", "basic", "pass", "passwd", "pwd",
    "user:pass", "username", "user", "login",
})
_REFERENCE_START = tuple("${<[(?|-`")
# A value opening with one of `%@#*&!` names or reads something only in these forms (`%HOME%`,
# `%(name)s`, `@file.txt`, `# comment`, `*alias`, `*(optional)*`, `&anchor`, `!vault |`); a
# password may open with any of them (`%f(Z3yMy…`, `!Qa9…`, `#7cX…`, `*C^=Zh…`).
_MARKED_REFERENCE = re.compile(r"%[A-Za-z_]\w*%|%\(|%[sdr]|\(.*\)$|@[\w./-]+$|#(?:\s|[A-Za-z_-]+$|[0-9a-fA-F]{3,8}$)"
                                r"|\*+\w*$|\*\(|&\w+$|![A-Za-z][\w.-]*(?:\s|$)")
# Values that are public by design: Stripe publishable keys, Mapbox public tokens, PubNub
# publish/subscribe keys, SSH public keys.
_PUBLIC_VALUES = ("pk_live_", "pk_test_", "pk.eyJ", "pub-c-", "sub-c-", "ssh-rsa ", "ssh-ed25519 ", "ecdsa-sha2-")
DOTTED = re.compile(r"[A-Za-z_][\w-]*(?:\.[A-Za-z_][\w-]*)+")
# A type or class name: capitalised words after an optional acronym (`EventLoopToken`,
# `PKCS7PrivateKeyTypes`, `Ed25519PrivateKey`, `Auth`, `RefreshTokenT`); random text never
# splits into such words.
TYPE_NAME = re.compile(r"(?:[A-Z]{1,6}[0-9]*|[A-Z][a-z][0-9]+)?(?:[A-Z][a-z]{2,}[0-9]*)+[A-Z]?")
# A call or a subscript (`os.getenv("X")`, `env["X"]`, `getpass()`, `(await vault.read())`).
_CALL = re.compile(r"([A-Za-z_$][\w.$]*)\s*[(\[]|\(.*\)$|\[.*\]$")
# A part of a dotted name as code writes one: a word in any case, with digits after it.
_CODE_PART = re.compile(r"[a-z_][a-z0-9_-]*|[A-Z][A-Z0-9_]*|[A-Z]?[a-z]+(?:[A-Z][a-z]{2,}[0-9]*)*[0-9]*"
                        r"|(?:[A-Z]+[a-z]{2,}[0-9]*)+")
HEX = re.compile(r"[0-9a-fA-F]+")  # a hash, a digest, a hex key
_PASSWORD_MARKS = re.compile(r"[!^&#@$%~]")
_LETTERS = re.compile(r"[A-Za-z_]*")
_CODE_WORD = re.compile(r"[a-z]+(?:[A-Z][a-z]+)+|[a-z]+(?:_[a-z]+)+")  # `serverAuth`, `debug_prompt`


def _is_call(value: str) -> bool:
    """A call or a subscript of a name code would write (`s.accept(TokenType.STRING`, cut where
    the value's end was read); `gdKBvphBxP(T4r^h` opens with no such name."""
    call = _CALL.match(value)
    if call is None:
        return False
    rest = value[call.end():]
    if rest.count("(") > rest.count(")"):
        return False  # `eDDH(oKl(t+Xuk7Jvj`: two calls opened, none closed
    if _PASSWORD_MARKS.search(rest) and not any(q in rest for q in "\"'"):
        return False  # `q9(x!v2m^k7&…` of a Django key: no call's arguments hold these bare
    name = call.group(1)
    return name is None or all(_code_part(part.strip("$")) for part in name.split(".") if part.strip("$"))


def _code_part(part: str) -> bool:
    """A part of a dotted name as code writes one (`ed25519`, `Ed25519PrivateKey`, `CLIENT_AUTH`,
    `ExtendedKeyUsageOID`); `Unyg38cSDo6rBl` is none."""
    return bool(_CODE_PART.fullmatch(part) or TYPE_NAME.fullmatch(part) or _LETTERS.fullmatch(part))


_SCALARS = frozenset({"String", "Int", "Float", "Boolean", "ID", "DateTime", "JSON"})  # GraphQL's
# A constant's name as a value (`BASE64_ENCODED_VALUE`, `YOUR_API_TOKEN_HERE`): three words or more.
_CONSTANT = re.compile(r"[A-Z][A-Z0-9]*(?:_[A-Z0-9]+){2,}")


_DIGIT_RUN = re.compile(r"[0-9]+")
# A version or a version range (`^0.30.16`, `~=2.1`, `>=1.4.0-rc.1`): a dependency's, not a secret.
_VERSION_RANGE = re.compile(r"(?:[\^~]|[<>]=?|~=|==)?v?[0-9]+(?:\.[0-9x*]+){1,3}(?:[-+][0-9A-Za-z.-]+)?")

_WORDS_THEN_NUMBER = re.compile(r"(?:[A-Z][a-z]{2,}){2,}(?!(?:128|256|384|512|1024|2048|4096)$)[0-9]{3,}")


def _three_classes(value: str) -> bool:
    """Lower and upper case letters and a digit: what a generator or a person making a password writes."""
    return any(c.islower() for c in value) and any(c.isupper() for c in value) and any(c.isdigit() for c in value)


def is_placeholder(value: str) -> bool:
    """A value written to be replaced (`CHANGE_ME_PLEASE`, `your_token_here`, `xxxx`)."""
    lowered = value.lower()
    return any(word in lowered for word in _STOP_WORDS)


def is_reference(value: str) -> bool:
    """A value that names or reads a secret instead of holding one: `${TOKEN}`, `<password>`,
    `os.environ["X"]`, `getpass()`, `self.token`, `tokenizer_config.json`, `changeme`, a type."""
    lowered = value.lower()
    if len(value) < 4 or lowered.rstrip(":;,.") in _LITERAL_WORDS or value.startswith(_REFERENCE_START):
        return True
    if value[0] in "%@#*&!" and _MARKED_REFERENCE.match(value) and not (value[0] == "*" and _three_classes(value)):
        return True  # (`*jKwhtRI6gXP`: no YAML alias mixes cases and digits)
    if value.startswith(_PUBLIC_VALUES) or value.startswith(("#{", "ENC[")) or _CONSTANT.fullmatch(value):
        return True  # (a Ruby interpolation, a sops-encrypted value, a constant's name)
    if any(word in lowered for word in _STOP_WORDS) or len(set(value)) <= 2 or _FORMAT.fullmatch(value):
        return True
    if (("<" in value or ">" in value) and _ANGLED.search(value)) or _VERSION_RANGE.fullmatch(value):
        return True  # (`<password>`, `^0.30.16`)
    if _is_call(value) or " | " in value or " = " in value:  # a call, a subscript, a type
        return True
    if value.endswith("!") and ("." in value or value[:-1].lower() in _LITERAL_WORDS or value[:-1] in _SCALARS):
        value = value.rstrip("!")  # TypeScript's non-null `process.env.KEY!`, GraphQL's `String!`
    if DOTTED.fullmatch(value) and not random_looking(value) and all(map(_code_part, value.split("."))):
        return True  # an attribute, a module, a file name (not `Unyg38cSDo6rBl.aKW`)
    if (value.startswith(("/", "./", "~/", "../")) and not _base64_secret(value)) or (
            value.count("/") >= 2 and not random_looking(value)):
        return True  # a path (a base64 secret holds slashes too, but looks random)
    return _names_a_type(value) or bool(_CODE_WORD.fullmatch(value))


def _names_a_type(value: str) -> bool:
    """A type's name holds one number at most (`Ed25519PrivateKey`, `Int32Array`); `Hunter2Secret99`
    is chosen, and so is `MirrorRabbit451`: words, then a number no type ends with (a bit size
    does: `Uint256`)."""
    if not TYPE_NAME.fullmatch(value) or len(_DIGIT_RUN.findall(value)) >= 2:
        return False
    return not _WORDS_THEN_NUMBER.fullmatch(value)


def _base64_secret(value: str) -> bool:
    """Base64 that opens with a `/` (`/L9nuy6fPhYxm…+Dc…=`): padded or holding a `+`, and its
    parts random, where a path's parts are words."""
    return len(value) >= 20 and ("+" in value or value.endswith("=")) and \
        random_looking(re.sub(r"[/+=]", "", value))


def random_looking(value: str) -> bool:
    """An identifier-shaped value that is nevertheless a credential (`token = a8Fk2…`); in a
    dotted name, one random-looking part is enough."""
    if "." in value:
        return any(random_looking(part) for part in value.split("."))
    if len(value) >= 20 and HEX.fullmatch(value) and mixed(value):
        return entropy(value) >= 3.0  # hex has 16 letters: its entropy tops out at 4
    return len(value) >= 16 and mixed(value) and entropy(value) >= 3.5 and not TYPE_NAME.fullmatch(value)


def entropy(value: str) -> float:
    counts = Counter(value)
    total = len(value)
    return -sum(c / total * math.log2(c / total) for c in counts.values())
