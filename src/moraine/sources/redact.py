"""Credential redaction, applied to every value Moraine keeps before it is stored.

`sources.normalize_line` runs it over each event's text, arguments and metadata, over paths,
names and ids, and over quarantined fragments. A credential becomes `[REDACTED:<rule>]`.

Three kinds of evidence, in this order of strength:

1. A shape (`secret_rules.TOKEN_RULES`): a vendor prefix with its alphabet and length, a
   private-key block, a URI's password, an `Authorization` header. One RE2 pass finds them all.
2. A secret-named key (`secret_keys.py`: `DB_PASSWORD=…`, `"api_key": "…"`, `--token …`): the
   key's *last* words decide (`password_hash_algorithm`, `tokenizer_config_file` and
   `secret_template` are not secrets), and the value must be a literal, not code that reads a
   secret (`os.environ["TOKEN"]`, `getpass()`, `self.token`, `${TOKEN}`, a type name).
3. A provider or secret word a few words before a random-looking value ("my twilio auth token
   is 0f3c…", "aws secret: wJalr…").

The rules also hold on raw JSON text (a quarantined line): a JSON escape such as `\\n` counts
as a word boundary, quoted keys may be escaped, and every replacement is free of quotes and
backslashes, so a redacted line stays valid JSON.

The active rule set is process-wide (`configure`): the parse workers configure themselves
from the same `Config` as the process that started them.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import re
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import lru_cache

import re2

from moraine.sources.secret_keys import KEY_WORDS, assignment_spans
from moraine.sources.secret_rules import END, PROVIDERS, TOKEN_RULES, Rule
from moraine.sources.secret_values import DOTTED, TYPE_NAME, Span, entropy, is_reference, mixed, random_looking

PLACEHOLDER = re.compile(r"\[REDACTED:([a-z0-9][a-z0-9_.-]{0,63})\]")

# -- 1. shapes -------------------------------------------------------------------------------


def _compile_shapes(rules: Iterable[Rule]) -> tuple[re2._Regexp, list[tuple[int, Rule, bool]]]:
    """One alternation of every shape; for each rule, the number of its outer group and
    whether it has a group of its own (only that part is redacted)."""
    parts, where, group = [], [], 1
    for rule in rules:
        inner = re.compile(rule.pattern).groups  # RE2 and `re` count groups alike
        parts.append(f"({rule.pattern})")
        where.append((group, rule, inner > 0))
        group += 1 + inner
    options = re2.Options()
    options.max_mem = 64 << 20  # room for the DFA of ~70 alternatives (RE2 would fall back to a slower NFA)
    return re2.compile("|".join(parts), options), where


_SHAPES, _SHAPE_GROUPS = _compile_shapes(TOKEN_RULES)
# The same alternation without groups: RE2 finds where a match starts with its DFA alone
# (~10x faster than a search that must also fill ~100 groups); the groups are then read by
# an anchored match at that place only.
_FIND_OPTIONS = re2.Options()
_FIND_OPTIONS.max_mem = 64 << 20
_FIND_OPTIONS.never_capture = True
_SHAPES_FIND = re2.compile(_SHAPES.pattern, _FIND_OPTIONS)

_URI_KINDS = {"postgres": "postgres-uri-password", "postgresql": "postgres-uri-password",
              "mysql": "mysql-uri-password", "mariadb": "mysql-uri-password",
              "mongodb": "mongodb-uri-password", "mongodb+srv": "mongodb-uri-password",
              "redis": "redis-uri-password", "rediss": "redis-uri-password",
              "amqp": "amqp-uri-password", "amqps": "amqp-uri-password",
              "http": "url-basic-auth", "https": "url-basic-auth", "ftp": "url-basic-auth"}


def _starts_word(text: str, start: int) -> bool:
    """After a non-alphanumeric character (`_` counts: `mcp__sk-ant-…`) or a JSON escape."""
    if start == 0:
        return True
    before = text[start - 1]
    if not before.isalnum():
        return True
    return before in "ntr" and start >= 2 and text[start - 2] == "\\"


def _basic_credentials(value: str) -> bool:
    """Base64 of `user:password`, as HTTP Basic and Docker's `auth` carry it (it may hold no digit)."""
    if len(value) < 8 or len(value) % 4 == 1:
        return False
    try:
        decoded = base64.b64decode(value + "=" * (-len(value) % 4), validate=True)
    except (binascii.Error, ValueError):
        return False
    return b":" in decoded and decoded.isascii() and decoded.decode("ascii").isprintable()


def _token_char(char: str) -> bool:
    return char.isalnum() or char in "_-"



_BACK = {rule.name: re.compile(f"(?:{rule.back})\\Z") for rule in TOKEN_RULES if rule.back}


def _shape_spans(text: str, data: bytes) -> list[Span]:
    spans: list[Span] = []
    pos, find, read = 0, _SHAPES_FIND.search, _SHAPES.match
    while (found := find(data, pos)) is not None:
        match = read(data, found.start())
        pos = found.start() + 1
        for group, rule, own in _SHAPE_GROUPS:
            if match is None or match.group(group) is None:
                continue
            span = _shape_span(text, match, group, rule, own)
            if span is not None:
                spans.append(span)
                pos = max(pos, span[1])
            break
    return spans


def _shape_span(text: str, match: re2._Match, group: int, rule: Rule, own: bool) -> Span | None:
    """The span a shape's match redacts, or None when its checks turn it down."""
    first = match.start(group)
    if rule.back:  # the part before the RE2 match (`[a-f0-9]{32}` of `…-us6`, a URI's scheme)
        before = _BACK[rule.name].search(text, max(0, first - 64), first)
        if before is None:
            return None
        first = before.start()
    start, end = match.span(group + 1) if own else (first, match.end(group))
    if not own and rule.pattern.endswith(END) and end > start and not _token_char(text[end - 1]):
        end -= 1
    value = text[start:end]
    if rule.starts_word and not _starts_word(text, first):
        return None
    if rule.mixed and not mixed(value) and not _basic_credentials(value):
        return None
    if own and is_reference(value.strip("\"'")):
        return None
    name = rule.name
    if name == "uri-password":
        name = _URI_KINDS.get(text[first:match.start(group)].lower(), name)
    elif name == "curl-user-password" and value.isdigit():
        return None  # `-u 1000:1000` is a uid:gid
    return start, end, name


# -- 3. a provider or secret word, then a random-looking value ---------------------------------

def _in_arn(text: str, at: int) -> bool:
    """Whether position `at` lies in an AWS resource name (the word around it starts `arn:`)."""
    start = at
    while start > 0 and at - start < 256 and not text[start - 1].isspace() and text[start - 1] not in "\"'`":
        start -= 1
    return text.startswith("arn:", start)


def _wordy(value: str) -> bool:
    """Mostly made of words (`compute-environment/C4OnDemand`): a name, not a random key."""
    parts = re.split(r"[/_.:-]+", value)
    words = sum(len(p) for p in parts if len(p) >= 4 and (p.isalpha() and (p.islower() or p.istitle())))
    return words * 2 >= len(value)


_CONTEXT = re2.compile(r"(?i)\b(?:" + "|".join(PROVIDERS) + r"|token|secret|password|passwd|api[ _-]?key"
                       r"|access[ _-]?key|secret[ _-]?key|private[ _-]?key|credential|bearer)s?\b")
_CANDIDATE = re.compile(r"(?<![A-Za-z0-9_./+=#?&%\\-])(?:\\+[nrt])?([A-Za-z0-9+/=_.-]{16,})")  # after `\n`, not in it
_UUID = re.compile(r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}")
_PUBLIC_PREFIXES = ("pk_live_", "pk_test_", "sha1", "sha256", "sha512", "ssh-", "AAAA", "arn:")
_WINDOW = 48


def _secretish(value: str, provider: str) -> bool:
    core = value.strip("=.-_")
    if "example" in core.lower() or _wordy(core):
        return False
    if len(core) < 16 or core.startswith(_PUBLIC_PREFIXES) or DOTTED.fullmatch(core) or TYPE_NAME.fullmatch(core):
        return False
    if _UUID.fullmatch(core):
        return provider == "heroku"
    if re.fullmatch(r"[0-9a-fA-F]+", core):
        return len(core) >= 24 and mixed(core)
    if (core.count("/") >= 3 and not random_looking(core.replace("/", ""))) or core.count("-") >= 2 \
            or core.count("_") >= 2:
        return False  # a path, a slug, an identifier (a base64 secret may hold slashes: it looks random)
    classes = sum((any(c.islower() for c in core), any(c.isupper() for c in core), any(c.isdigit() for c in core)))
    return classes == 3 and entropy(core) >= 3.8


def _context_spans(text: str, data: bytes) -> list[Span]:
    spans: list[Span] = []
    for hit in _CONTEXT.finditer(data):
        end = hit.end()
        if _in_arn(text, hit.start()):
            continue  # `arn:aws:secretsmanager:…:secret:MyDbSecret-d4e5f6`: a resource name
        newline = text.find("\n", end, end + _WINDOW)
        window_end = newline if newline >= 0 else min(len(text), end + _WINDOW)
        word = text[hit.start():end].lower()
        for cand in _CANDIDATE.finditer(text, end):  # starts in the window, ends where it ends
            if cand.start() >= window_end:
                break
            if _secretish(cand.group(1), word):
                start, stop = cand.span(1)
                spans.append((start, stop, "secret-near-keyword"))
                break
    return spans


# -- the redactor ------------------------------------------------------------------------------


_SHORTEST = 8  # no credential Moraine recognises is shorter than `pwd=1234`


@dataclass(frozen=True)
class Settings:
    """What the user may change (config `[redaction]`)."""

    enabled: bool = True
    extra_patterns: tuple[tuple[str, str], ...] = ()  # (name, RE2 pattern)
    allow: tuple[str, ...] = ()  # RE2 patterns: a match that fully matches one is kept
    _extra: list[tuple[str, re2._Regexp]] = field(default_factory=list, compare=False, repr=False)
    _allow: list[re2._Regexp] = field(default_factory=list, compare=False, repr=False)

    def __post_init__(self) -> None:
        self._extra.extend((name, compile_user(pattern)) for name, pattern in self.extra_patterns)
        self._allow.extend(compile_user(pattern) for pattern in self.allow)

    def __reduce__(self) -> tuple[type[Settings], tuple[bool, tuple[tuple[str, str], ...], tuple[str, ...]]]:
        return Settings, (self.enabled, self.extra_patterns, self.allow)  # to the parse workers


def compile_user(pattern: str) -> re2._Regexp:
    """A user's pattern (RE2: linear time whatever it says); `re2.error` names what is wrong."""
    options = re2.Options()
    options.log_errors = False
    return re2.compile(pattern, options)


def current() -> Settings:
    return _settings


_settings = Settings()


def configure(settings: Settings) -> None:
    """Make `settings` the rule set of this process (and forget every cached result)."""
    global _settings
    _settings = settings
    redact_cached.cache_clear()


def rules_fingerprint(settings: Settings | None = None) -> str:
    """Changes whenever what would be redacted changes: the built-in rules or the user's."""
    settings = settings or _settings
    digest = hashlib.blake2b(digest_size=8)
    for rule in TOKEN_RULES:
        digest.update(f"{rule.name}\x1f{rule.pattern}\x1f{rule.mixed}\x1e".encode())
    digest.update(repr((RULES_REVISION, settings.enabled, settings.extra_patterns, settings.allow)).encode())
    return digest.hexdigest()


RULES_REVISION = 2  # bump when the context or assignment logic changes what it redacts


def spans(text: str) -> list[Span]:
    """Where the credentials of `text` are, sorted, without overlaps (the earlier, then the
    longer match wins)."""
    # The rules run on an ASCII copy with the same positions (each non-ASCII character a `?`;
    # credentials are ASCII), so RE2's byte offsets are character offsets.
    proxy = text if text.isascii() else text.encode("ascii", "replace").decode("ascii")
    return _merged(text, _rule_spans(proxy))


def _any_evidence() -> re2._Regexp:
    """One DFA for the three kinds of evidence: a text none of them touches (most texts: 86%
    of a generated corpus's, and prose and code without `key`, `token`, `secret`, … alike)
    is answered by one search instead of three passes, each with its own call overhead. A
    span of any kind starts at a match of its own pattern, so none is missed."""
    options = re2.Options()
    options.max_mem = 128 << 20  # the shapes' ~70 alternatives and the two word lists
    options.never_capture = True
    kinds = (_SHAPES.pattern, KEY_WORDS.pattern, _CONTEXT.pattern)
    return re2.compile("|".join(f"(?:{pattern})" for pattern in kinds), options)


_ANY_EVIDENCE = _any_evidence()


def _rule_spans(proxy: str) -> list[Span]:
    data = proxy.encode("ascii")  # RE2 is several times faster on bytes than on str
    if _ANY_EVIDENCE.search(data) is None:
        return []
    return _shape_spans(proxy, data) + assignment_spans(proxy, data) + _context_spans(proxy, data)


def _merged(text: str, found: list[Span]) -> list[Span]:
    """The user's patterns added, the allowed values taken out, overlaps resolved."""
    for name, regex in _settings._extra:
        found.extend((m.start(), m.end(), f"user-{name}") for m in regex.finditer(text) if m.end() > m.start())
    if _settings._allow:
        found = [s for s in found if not any(a.fullmatch(text[s[0]:s[1]]) for a in _settings._allow)]
    found.sort(key=lambda s: (s[0], -s[1]))
    kept: list[Span] = []
    for span in found:
        if kept and span[0] < kept[-1][1]:
            continue
        kept.append(span)
    return kept


def _splice(text: str, found: list[Span]) -> str:
    out, last = [], 0
    for start, end, name in found:
        out.append(text[last:start])
        out.append(f"[REDACTED:{name}]")
        last = end
    out.append(text[last:])
    return "".join(out)


def redact(text: str) -> str:
    """`text` with every credential replaced by `[REDACTED:<rule>]`."""
    if len(text) < _SHORTEST or not _settings.enabled:
        return text
    found = spans(text)
    return _splice(text, found) if found else text


# A `user:password@host` folder (a cwd cut from a URI: the path keeps one slash of `://`).
_PATH_USERINFO = re.compile(r"(?:^|/)[^/\s:@]{0,64}:([^/\s@]{3,256})@[A-Za-z0-9\[]")


def redact_path(path: str) -> str:
    """A log's path redacted name by name, and as the cwd it may be named after: Claude Code
    names a project folder after its cwd with `/` as `-`, so the shapes also run with `-` read
    as `/` (same positions), and a `user:password@host` folder counts as a URI's credentials."""
    if len(path) < _SHORTEST or not _settings.enabled:
        return path
    proxy = path if path.isascii() else path.encode("ascii", "replace").decode("ascii")
    found: list[Span] = []
    start = 0
    for segment in proxy.split("/"):  # a file or folder name is a text of its own
        found += [(a + start, b + start, name) for a, b, name in _rule_spans(segment)]
        start += len(segment) + 1
    for variant in {proxy, proxy.replace("-", "/")}:  # shapes may span folders (`hooks.slack.com/…`)
        found += _shape_spans(variant, variant.encode("ascii"))
    found += [(m.start(1), m.end(1), "uri-password") for m in _PATH_USERINFO.finditer(proxy)
              if not is_reference(m.group(1))]
    found = _merged(path, found)
    return _splice(path, found) if found else path


# Short values (ids, names, paths, models) repeat from record to record: redacted once each.
redact_cached = lru_cache(maxsize=16_384)(redact)


def count_placeholders(data: bytes | str) -> Counter[str]:
    """How many `[REDACTED:<rule>]` placeholders `data` holds, per rule."""
    text = data.decode("utf-8", "replace") if isinstance(data, bytes) else data
    return Counter(PLACEHOLDER.findall(text))
