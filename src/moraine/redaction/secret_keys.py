"""Secret-named keys (`DB_PASSWORD=…`, `"api_key": "…"`, `password: …`, `--token …`): the
key's last words decide whether it names a secret, and the value must be a literal, not code
that reads one. Runs on an ASCII copy of the text (see `redact.spans`)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

import re2

from moraine.redaction.secret_prose import password_like
from moraine.redaction.secret_rules import PROVIDERS
from moraine.redaction.secret_values import Span, is_reference, random_looking

# A key names a secret by its last word(s), so a look at an identifier starts only where one
# of these words ends it (`token_count` and `tokenizer` never get this far).
KEY_WORDS = re2.compile(r"(?i)(pass(?:word|wd|phrase)?|pwd|pw|pat|secret|token|key|creds?|credentials?|auth|dsn|psk"
                        r"|salt|p12|pfx|keystore|jks"
                        r"|key[_-]?base|key[_-]?id|sess(?:ion)?id)(?:[_-](?:b64|base64|enc|encoded|hex|raw|plain))?"
                        r"(?:[^A-Za-z0-9_.-]|$)")
# The same without its group: RE2 finds a match's end with its DFA alone; filling a group takes
# another pass per match (a third of the key pass's time).
_NO_GROUPS = re2.Options()
_NO_GROUPS.never_capture = True
_KEY_WORDS_FIND = re2.compile(KEY_WORDS.pattern, _NO_GROUPS)
_IDENT_CHAR = re.compile(r"[A-Za-z0-9_.-]")
_IDENT_REACH = 120  # characters an identifier ending at a key word is looked for in
_IDENT_TAIL = re.compile(rf"[A-Za-z0-9_.-]{{0,{_IDENT_REACH}}}$")
_CAMEL = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|[0-9]+")
# The key's last word names a secret ...
_SECRET_LAST = frozenset({
    "password", "passwd", "passphrase", "pwd", "secret", "secrets", "token", "apikey", "credential",
    "credentials", "creds", "auth", "privatekey", "secretkey", "accesskey", "authtoken", "dsn", "pw", "pass",
    "sessionid", "sessid", "pat", "psk",
})
# ... or names one after another word (`NONCE_SALT`, `SIGNING_P12`; a `salt` or `.pfx` alone is code's).
_SECRET_LAST_OWNED = frozenset({"salt", "p12", "pfx", "keystore", "jks"})
# ... or its last two words do (`api_key`, `AccountKey`, `client-secret` is covered above).
_SECRET_KEY_FIRST = frozenset({
    "api", "access", "secret", "private", "account", "master", "application", "encryption", "signing", "license",
    "shared",
    "auth", "app", "admin", "service", "sas", "storage", "consumer", "client", "session", "webhook", "deploy",
    # detect-secrets' KeywordDetector denylist (db_key, priv_key, …) and what signs or encrypts
    "hmac", "jwt", "db", "database", "priv", "aes", "cipher", "crypto", "enc", "sign", "cookie", "csrf",
    "xsrf", "totp", "otp", "mfa", "recovery", "wifi", "wpa", "ssh", "gpg", "pgp", "kms", "vault", "bot",
    *PROVIDERS,  # `STRIPE_KEY`, `MAPBOX_KEY` (a `SORT_KEY`, `CACHE_KEY` or `PRIMARY_KEY` is no secret)
})
# Keys that are no secret whatever their value (`SORT_KEY`, `IDEMPOTENCY_KEY`, `VAPID_PUBLIC_KEY`). A
# key named otherwise but not by a word above (`MAPS_SERVER_KEY`, `KEY`) counts when its value is
# random-looking (`_needs_random`).
_NOT_SECRET_KEY_FIRST = frozenset({
    "public", "publishable", "pub", "site", "sort", "cache", "primary", "foreign", "partition", "routing", "dedup",
    "dedupe", "idempotency", "unique", "composite", "range", "hash", "row", "lookup", "map", "dict", "group",
    "object", "message", "event", "request", "i18n", "translation", "locale", "react", "list", "item", "index",
    "cursor", "shard", "order", "search", "query", "storage_class", "distribution", "element", "node", "field",
    "column", "table", "parent", "child", "next", "prev", "previous", "last", "first", "start", "end", "hot",
    "short", "long", "keyboard", "music", "piano", "host", "fingerprint", "known", "authorized", "verify",
    "verification", "trusted", "root_ca", "ca", "cert", "certificate",
})
# The owners of a password: `DB_PASS`, `SMTP_PASS` hold one (a plain word too); a `render_pass` or
# `first_pass` is a compiler's or renderer's pass, whose values are words.
_PASS_OWNERS = frozenset({
    "db", "database", "smtp", "mail", "email", "redis", "mysql", "postgres", "pg", "mongo", "mongodb", "admin",
    "root", "user", "ldap", "ftp", "sftp", "ssh", "rabbit", "rabbitmq", "amqp", "vpn", "wifi", "proxy", "api",
    "app", "service", "bind", "keystore", "truststore", "store", "key", "login", "basic", "http", "sql", "mssql",
    "oracle", "elastic", "es", "kafka", "git", "registry", "docker", "npm", "pypi", "nexus", "jenkins", "s3",
})
_GLUED = ("password", "passwd", "passphrase", "token", "secret", "apikey", "sessionid", "sessid")
# Whole keys known to hold secrets although their last word says otherwise.
_SECRET_KEYS = frozenset({("secret", "key", "base"), ("private", "key", "id")})
# Keys public by design: `publicKeyToken`, the Push API's `applicationServerKey`, a captcha's `sitekey`.
_PUBLIC_NAMES = ("public", "applicationserverkey", "sitekey", "site_key")
_FLAG = re.compile(r"-{1,2}[A-Za-z]")
# `define('DB_PASSWORD', '…')`, `setdefault("API_TOKEN", "…")`: a quoted key, a comma, a quoted value.
_PAIR_SEP = re.compile(r"(\\*[\"'])[ \t]*(,)(?=[ \t]*\\*[\"'])")
_SEP = re.compile(r"(\\*[\"']\]?)?[ \t]*(:=|=>|=(?!=)|:(?![:/])(?=[\s\"'\\]|$))")  # `["KEY"] = …` too
_OPEN_QUOTE = re.compile(r"[ \t]*(?:[bBrRuUfF]{1,2}(?=[\"']))?(\\*)([\"'])")  # `b"…"`, `r'…'` too
_VALUE_END = re.compile(r"[\s\"'`\\&]|</")  # `</` closes an element (`<cwd>…/KEY=value</cwd>`)
_VALUE_END_LINE = re.compile(r"[\s\"'`\\]|</")  # `DB_PASS=Velvet&96…` of a .env line: `&` is no query's end
_VALUE_END_CODE = re.compile(r"[\s\"'`\\&,;)}\]]")
_TYPE_ANNOTATED = re.compile(r"[ \t]*=(?!=)[ \t]*")
_UPPER_CAMEL = re.compile(r"[A-Z][A-Za-z0-9]*[a-z][A-Za-z0-9]*")  # `PrivateKey`, `Token` (not `TOKEN`)
_ENV_KEY = re.compile(r"(?:export\s+)?[A-Z][A-Z0-9_]*")  # an environment variable: its value is a literal
_IDENT_VALUE = re.compile(r"([A-Za-z_][\w.]*)[,;:)\]}]*$")


# Words after a secret's name that say how it is written, not what it is (`DB_PASSWORD_B64`).
_ENCODING_WORDS = frozenset({"b64", "base64", "encoded", "enc", "hex", "raw", "plain", "plaintext", "str", "value",
                             "val"})


def _words(identifier: str) -> list[str]:
    parts = re.split(r"[_.\-]+", identifier)
    while len(parts) > 1 and parts[-1].lower() in _ENCODING_WORDS:
        parts.pop()
    return [w.lower() for part in parts for w in _CAMEL.findall(part)]


@lru_cache(maxsize=4096)
def _is_secret_key(identifier: str) -> bool:
    words = _words(identifier)
    if not words:
        return False
    if tuple(words[-3:]) in _SECRET_KEYS:
        return True
    if words[-1] in _SECRET_LAST or words[-1].endswith(_GLUED):  # `PGPASSWORD`, `GITHUBTOKEN`
        return True
    if words[-1] in _SECRET_LAST_OWNED and len(words) >= 2:
        return True
    return words[-1] == "key" and (len(words) == 1 or words[-2] not in _NOT_SECRET_KEY_FIRST)


@dataclass(frozen=True, slots=True)
class _Key:
    start: int
    end: int
    flag: bool
    line_start: bool  # the key opens its line (YAML, .env, a config file)


def _key_at(text: str, hit: int) -> _Key | None:
    """The identifier ending at `hit`, when it names a secret."""
    end = hit
    tail = _IDENT_TAIL.search(text, max(0, end - _IDENT_REACH), end)  # always found: the tail may be empty
    start = end - len(tail.group()) if tail is not None else end
    while start < end and text[start] in "._":  # `.token` of `self.token` is looked at whole
        start += 1
    if start > 0 and text[start - 1] in "$%{":  # a variable being read, not assigned
        return None
    identifier = text[start:end]
    flag = bool(_FLAG.match(identifier))
    named = _is_secret_key(identifier.lstrip("-")) or (flag and identifier.lower().endswith("pass"))  # `-storepass`
    if not named or any(word in identifier.lower() for word in _PUBLIC_NAMES):  # `publicKeyToken`
        return None
    line = text.rfind("\n", 0, start)
    lead = text[line + 1:start]
    at_line_start = lead.strip(" \t-\"'") == "" or lead.strip() == "export"
    return _Key(start, end, flag, at_line_start)


def _pair_sep(text: str, key: _Key) -> re.Match[str] | None:
    """`'KEY', 'value'` as a call's first two arguments (`define(`, `setdefault(`), not items
    of a list (`["Auth", "BasicAuth"]`)."""
    opening = text[max(0, key.start - 8):key.start].rstrip("\"'\\").rstrip()
    return _PAIR_SEP.match(text, key.end) if opening.endswith("(") else None


def _value_after(text: str, key: _Key) -> tuple[int, int, str] | None:
    """(start, end, context) of the value assigned to the key, or None when the key is not
    assigned here. context: "quoted", "env" (a literal by syntax) or "code" (an expression)."""
    sep = _SEP.match(text, key.end) or _pair_sep(text, key)
    pos = key.end
    if sep is not None:
        pos = sep.end()
        spaced = sep.group(2) == ":" or text[key.end:sep.start(2)].strip(" \t") != text[key.end:sep.start(2)] \
            or text[pos:pos + 1] in " \t"
    elif key.flag and text[key.end:key.end + 1] in (" ", "\t"):
        spaced = False
    else:
        return None
    quote = _OPEN_QUOTE.match(text, pos)
    if quote is not None:
        return quote.end(), _closing(text, quote.end(), quote.group(1) + quote.group(2)), "quoted"
    while pos < len(text) and text[pos] in " \t":
        pos += 1
    literal = key.flag or not spaced  # `KEY=value` (shell, .env, URLs) and flags hold literals
    if key.line_start and sep is not None and sep.group(2) == ":":  # YAML: the rest of the line
        newline = text.find("\n", pos)
        end = len(text) if newline < 0 else newline
        end = _cut_comment(text, pos, end)
        while end > pos and text[end - 1] in ",;":  # `token: string;` of a TypeScript interface
            end -= 1
        return pos, end, "yaml"
    finder = (_VALUE_END_LINE if key.line_start else _VALUE_END) if literal else _VALUE_END_CODE
    end = _literal_end(text, pos, finder, literal)
    if literal and not key.flag and not _ENV_KEY.fullmatch(text[key.start:key.end]):
        word = _IDENT_VALUE.match(text, pos, end)  # `f(token=token)`, `x(create_token=True)`: code
        if word is not None and not random_looking(word.group(1)) and not _chosen(key, text, word.group(1)):
            return None
    annotation = text[pos:end]
    if (not literal and _TYPE_ANNOTATED.match(text, end) and re.fullmatch(r"[A-Za-z_][\w\[\], |.]*", annotation)
            and not random_looking(annotation)):
        return _value_after(text, _Key(key.start, end, key.flag, key.line_start))  # `token: str = "…"`
    return pos, end, "env" if literal else "code"


def _chosen(key: _Key, text: str, value: str) -> bool:
    """A password a person chose, though it reads as an identifier (`ossrhPassword=CjYYGmr8maMu`):
    a password-named key, and letters of both cases with a digit (`password=new_password` is code)."""
    has = (any(c.islower() for c in value), any(c.isupper() for c in value), any(c.isdigit() for c in value))
    return all(has) and _names_password(text[key.start:key.end]) and password_like(value)


def _literal_end(text: str, pos: int, finder: re.Pattern[str], literal: bool) -> int:
    stop = finder.search(text, pos)
    end = len(text) if stop is None else stop.start()
    while literal and end > pos + 1 and text[end - 1] in ";,":  # `sessionid=…;` of a cookie, `X=1; cmd`
        end -= 1
    return end


def _closing(text: str, start: int, quote: str) -> int:
    """Where a quoted value ends: its closing quote, the end of the line, or, for a value in
    single quotes or backticks, a double quote or backslash (in a raw JSON line those belong to
    the JSON string around it, and a redaction must not cut through an escape)."""
    ends = [text.find(quote, start), text.find("\n", start)]
    if quote[-1] != '"':
        ends += [text.find('"', start), text.find("\\", start)]
    found = [e for e in ends if e >= 0]
    return min(found) if found else len(text)


def _cut_comment(text: str, start: int, end: int) -> int:
    comment = text.find(" #", start, end)
    end = comment if comment >= 0 else end
    while end > start and text[end - 1] in " \t\r":
        end -= 1
    return end


_PROSE = re.compile(r"[A-Za-z][A-Za-z0-9,.'-]*(?: +[A-Za-z][A-Za-z0-9,.'-]*)+")


_PLAIN = re.compile(r"[A-Za-z][a-z]*(?:[_ -][A-Za-z][a-z]*)*|[A-Z]+(?:_[A-Z]+)*")  # words, a CONSTANT_NAME


def _names_password(identifier: str) -> bool:
    """A person's password may be a plain word; a token, key or secret never is. `pass` names
    one alone (`pass:` of a YAML file, `--pass`) or after its owner (`DB_PASS`, `SMTP_PASS`)."""
    words = _words(identifier)
    if words[-1:] in (["password"], ["passwd"], ["pwd"], ["passphrase"], ["pw"]):
        return True
    return words[-1:] == ["pass"] and (len(words) == 1 or words[-2] in _PASS_OWNERS)


def _needs_random(identifier: str) -> bool:
    """Keys whose last word is also an ordinary word of code (`pat` a pattern, `pass` a render
    pass, `sessionid` a log's field): only a random-looking value counts."""
    words = _words(identifier)
    if words[-1:] == ["key"] and (len(words) == 1 or words[-2] not in _SECRET_KEY_FIRST):
        return True  # `MAPS_SERVER_KEY`, `KEY`: a key of some kind; only a random-looking value is a credential
    return words[-1:] in (["pat"], ["sessionid"], ["sessid"]) or (words[-1:] == ["pass"] and not _names_password(
        identifier))


def _generated(value: str) -> bool:
    """Random-looking, and not words run together (`ServerlessV2PlatformVersions`): what a key of
    some kind (`result_key`, `pat`) holds when it holds a credential."""
    chunks = _CAMEL.findall(value)
    words = [c for c in chunks if len(c) >= 5 and c.istitle()]
    return random_looking(value) and not (len(value) / max(len(chunks), 1) >= 4 and len(words) >= 2)


def _may_assign(text: str, end: int) -> bool:
    """Whether a key ending at `end` can be assigned a value here: a separator follows, or a
    space does and a `-` within reach may open a flag (`--token abc`). Most key words are
    neither ('the token is …', 'auth flow'): they are passed over before `_key_at` looks for
    the identifier (at 1M events, 13,641 key words in the 300 logs sampled, 3,099 followed by
    a separator). Never false where `_value_after` would find a value: it needs one or the other."""
    if _SEP.match(text, end) is not None:
        return True
    if text[end:end + 1] in "\"'\\" and _PAIR_SEP.match(text, end) is not None:
        return True  # (a pair is checked again once the key's start is known: `_pair_sep`)
    return text[end:end + 1] in (" ", "\t") and "-" in text[max(0, end - _IDENT_REACH):end]


def assignment_spans(text: str, data: bytes) -> list[Span]:
    spans: list[Span] = []
    last_key_end = -1
    for hit in _KEY_WORDS_FIND.finditer(data):
        if hit.start() < last_key_end:
            continue  # inside a value already redacted
        end = hit.end()
        if end < len(text) or not _IDENT_CHAR.match(text, end - 1):
            end -= 1  # the character after the key word (`$` consumes none)
        if not _may_assign(text, end):
            continue
        key = _key_at(text, end)
        if key is None:
            continue
        last_key_end = key.end
        found = _value_after(text, key)
        if found is not None and _holds_secret(text, key, *found):
            spans.append((found[0], found[1], "secret-assignment"))
            last_key_end = found[1]
    return spans


def _holds_secret(text: str, key: _Key, start: int, end: int, context: str) -> bool:
    """A secret-named key is assigned names, words and code as often as credentials: only a
    value that could be one is redacted, so logs keep their meaning."""
    if context == "code" and _UPPER_CAMEL.fullmatch(text[key.start:key.end]):
        return False  # `MLKEM768X25519PrivateKey = …`: a class; `"ClientSecret": "…"`, `RootPass: …` still count
    value = text[start:end]
    bare = value.strip().rstrip(":;,.*")
    if not bare or is_reference(bare):
        return False
    identifier = text[key.start:key.end]
    if identifier.lower() == "key" and not key.line_start and context != "quoted" and text[key.start - 1] not in "?&":
        return False  # "restored from key: …" (prose); `KEY = …`, `"key": "…"` are read
    if _needs_random(identifier.lstrip("-")) and not _generated(bare) and not (
            _words(identifier)[-1:] == ["pass"] and password_like(bare)):
        return False  # `ansible_become_pass: ki5bzaP+K1…` holds one, `render_pass: shadow` does not
    if not _names_password(identifier) and (_PLAIN.fullmatch(bare) or _PROSE.fullmatch(bare)):
        return False  # `"input_token": "position"`, `"nextToken": "A generated value."`: never a credential
    if context == "code" and re.fullmatch(r"[A-Za-z_]\w*", value) and not random_looking(value):
        return False  # `password = new_password`: a variable
    if key.flag and value.isalpha() and value.islower():
        return False  # `the --password option`: prose about a flag
    return not (context == "yaml" and _PROSE.fullmatch(value.strip()))  # `Token: see the docs`: prose


def names_secret(name: str) -> bool:
    """Whether a name held as a value (`name: API_TOKEN`, a table's `DB password` column) names a
    secret, by the words that decide for a key."""
    identifier = "_".join(name.split())
    return bool(identifier) and _is_secret_key(identifier) and not any(
        word in identifier.lower() for word in _PUBLIC_NAMES)


def value_may_be_secret(name: str, value: str) -> bool:
    """Whether a value stored under a secret's name could be the secret (`_holds_secret` for a
    value read from a record's own field: names, words and references are not)."""
    bare = value.strip("\"' ").rstrip(":;,.")
    if not bare or is_reference(bare):
        return False
    identifier = "_".join(name.split())
    if _needs_random(identifier) and not _generated(bare):
        return False
    if _names_password(identifier):
        return password_like(bare) or random_looking(bare) or not _PROSE.fullmatch(bare)
    return not (_PLAIN.fullmatch(bare) or _PROSE.fullmatch(bare))
