"""Credential redaction, applied to every value Moraine keeps before it is stored.

`sources.normalize_line` runs it over each event's text, arguments and metadata, over paths,
names and ids, and over quarantined fragments. A credential becomes `[REDACTED:<rule>]`.

Kinds of evidence, in this order of strength:

1. A shape (`secret_rules.TOKEN_RULES`): a vendor prefix with its alphabet and length, a
   private-key block, a JWK's private members, a URI's password, an `Authorization` header, a
   password on a command line (`docker login -p`, `redis-cli -a`, `echo … | sudo -S`, `.pgpass`).
2. A secret-named key (`secret_keys.py`: `DB_PASSWORD=…`, `"api_key": "…"`, `--token …`): the
   key's *last* words decide (`password_hash_algorithm`, `tokenizer_config_file` and
   `secret_template` are not secrets), and the value must be a literal, not code that reads a
   secret (`os.environ["TOKEN"]`, `getpass()`, `self.token`, `${TOKEN}`, a type name).
3. Words around a random-looking value (`secret_context.py`): a provider or secret word a few
   words before it ("my twilio auth token is 0f3c…") or after it ("0f3c… is the api key"), its
   partner id (`AKIA…` beside a 40-character secret), a cookie's name. Ids that stand beside the
   same words (commit hashes, digests, UUIDs, `ch_…`, `msg_01…`, `AC…` SIDs) are kept.
4. A password in a sentence (`secret_prose.py`): a password word of any of many languages, a
   copula, a value a person chose ("the password is hunter22", "Passwort: …", "パスワード：…").
5. Encoded forms (`secret_decode.py`): escapes decoded and mapped back, base64 and hex blobs
   redacted whole when what they decode to holds any of the above; full-width letters folded.

Names (a call id, a branch, a tool name, a Claude project folder) are made of commands and
sentences with their spaces replaced: `redact_name` also reads them spaced out (`secret_names.py`).

Why several kinds: a table of vendor formats only finds the formats it lists, and a test
corpus written from the same table passes while the credentials people actually paste (a
vendor not in the table, a password in a command, a key URL-encoded in a query string) leak.
The general rules find those by what surrounds them; the id rules keep their precision.

The rules also hold on raw JSON text (a quarantined line): a JSON escape such as `\\n` counts
as a word boundary, quoted keys may be escaped, and every replacement is free of quotes and
backslashes, so a redacted line stays valid JSON.

Cost: one RE2 set (`_evidence_set`) says which kinds of evidence a text holds, in one DFA pass;
most texts hold none and cost that pass only, and the rest run only their kinds' passes.

The active rule set is process-wide (`configure`): the parse workers configure themselves
from the same `Config` as the process that started them.
"""

from __future__ import annotations

import functools
import hashlib
import re
from collections import Counter
from dataclasses import dataclass, field
from functools import lru_cache

import re2

from moraine.redaction.secret_chosen import CHOSEN, chosen_spans
from moraine.redaction.secret_context import CONTEXT, COOKIES, PARTNERS, context_spans, cookie_spans, partner_spans
from moraine.redaction.secret_decode import ENCODED_TRIGGERS, blob_spans, fold_wide, unescaped
from moraine.redaction.secret_keys import KEY_WORDS, assignment_spans
from moraine.redaction.secret_names import after_public, claude_folder, holds_context, id_prefixed, random_runs, spaced
from moraine.redaction.secret_prose import PASSWORD_WORDS, name_prose_spans, other_script_spans, prose_spans
from moraine.redaction.secret_records import record_spans
from moraine.redaction.secret_rules import TOKEN_RULES
from moraine.redaction.secret_shapes import FIND_OPTIONS, SHAPES_PATTERN, shape_spans
from moraine.redaction.secret_values import Span, is_placeholder, is_reference

PLACEHOLDER = re.compile(r"\[REDACTED:([a-z0-9][a-z0-9_.-]{0,63})\]")

# -- 1. shapes: `secret_shapes.py`; 2. secret-named keys: `secret_keys.py`

# -- 3. context words, partners and cookies: `secret_context.py`; 4. encoded forms: `secret_decode.py`

_context_spans = context_spans  # the name the gate test knows


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
    redact_name_cached.cache_clear()


def rules_fingerprint(settings: Settings | None = None) -> str:
    """Changes whenever what would be redacted changes: the built-in rules or the user's."""
    settings = settings or _settings
    digest = hashlib.blake2b(digest_size=8)
    for rule in TOKEN_RULES:
        digest.update(f"{rule.name}\x1f{rule.pattern}\x1f{rule.mixed}\x1e".encode())
    digest.update(repr((RULES_REVISION, ENCODED_TRIGGERS, CONTEXT.pattern, settings.enabled, settings.extra_patterns,
                        settings.allow)).encode())
    return digest.hexdigest()


RULES_REVISION = 6  # bump when the context or assignment logic changes what it redacts


def spans(text: str) -> list[Span]:
    """Where the credentials of `text` are, sorted, without overlaps (the earlier, then the
    longer match wins)."""
    # The rules run on an ASCII copy with the same positions (full-width and other compatibility
    # forms folded to their ASCII letter, any other non-ASCII character a `?`; credentials are
    # ASCII), so RE2's byte offsets are character offsets.
    if text.isascii():
        return _merged(text, _rule_spans(text))
    proxy = fold_wide(text)
    return _merged(text, _rule_spans(proxy) + other_script_spans(text, proxy))


_KINDS = (SHAPES_PATTERN, KEY_WORDS.pattern, CONTEXT.pattern, PARTNERS.pattern, COOKIES.pattern, ENCODED_TRIGGERS,
          PASSWORD_WORDS.pattern, CHOSEN.pattern)


@functools.cache
def any_evidence() -> re2._Regexp:
    """One DFA for the three kinds of evidence: a text none of them touches (most texts: 86%
    of a generated corpus's, and prose and code without `key`, `token`, `secret`, … alike)
    is answered by one search instead of three passes, each with its own call overhead. A
    span of any kind starts at a match of its own pattern, so none is missed. Compiled on
    first use, as every pattern of the gate (see `secret_shapes._shapes`)."""
    options = re2.Options()
    options.max_mem = 256 << 20  # the shapes' ~150 alternatives, the word lists and the encoded triggers
    options.never_capture = True
    return re2.compile("|".join(f"(?:{pattern})" for pattern in _KINDS), options)



@functools.cache
def _evidence_set() -> re2.Set:
    """The same evidence as `any_evidence`, one pattern per kind: one DFA pass says which
    kinds a text holds, and only their passes run (most texts that hold any hold only a key
    word: `token_count`, `auth_method`)."""
    options = re2.Options()
    options.max_mem = 256 << 20
    options.never_capture = True
    kinds = re2.Set.SearchSet(options)
    for pattern in _KINDS:
        kinds.Add(pattern)
    kinds.Compile()
    return kinds


_SHAPE, _KEY, _CONTEXT_WORD, _PARTNER, _COOKIE, _ENCODED_FORM, _PROSE, _CHOSEN = range(8)
_ALL_KINDS = frozenset(range(len(_KINDS)))
_LONG = 32_768  # a set's DFA gives up (finds nothing) where RE2's search falls back: long texts are checked again


def _rule_spans(proxy: str, decode: bool = True) -> list[Span]:
    data = proxy.encode("ascii")  # RE2 is several times faster on bytes than on str
    kinds = _evidence_set().Match(data)
    if not kinds:
        if len(data) < _LONG or any_evidence().search(data) is None:
            return []
        kinds = _ALL_KINDS
    return all_passes(proxy, data, decode, frozenset(kinds))


@functools.cache
def _encoded() -> re2._Regexp:
    return re2.compile(ENCODED_TRIGGERS, FIND_OPTIONS)


def all_passes(proxy: str, data: bytes, decode: bool = True, kinds: frozenset[int] = _ALL_KINDS) -> list[Span]:
    """The passes of the kinds of evidence found (every pass by default: the gate test compares)."""
    found = shape_spans(proxy, data) if _SHAPE in kinds else []
    if _KEY in kinds:
        found += assignment_spans(proxy, data) + record_spans(proxy, data)
    if _CONTEXT_WORD in kinds:
        found += context_spans(proxy, data)
    if _PARTNER in kinds:
        found += partner_spans(proxy, data)
    if _COOKIE in kinds:
        found += cookie_spans(proxy, data)
    if _PROSE in kinds:
        found += prose_spans(proxy, data)
    if _CHOSEN in kinds:
        found += chosen_spans(proxy, data)
    if decode and _ENCODED_FORM in kinds and _encoded().search(data) is not None:
        found += _decoded_spans(proxy)
    return found


def _decoded_spans(proxy: str) -> list[Span]:
    """Spans found in what `proxy`'s escapes and blobs decode to (`secret_decode.py`)."""
    found = blob_spans(proxy, _scan_decoded)
    decoded = unescaped(proxy)
    if decoded is not None:
        text, where = decoded
        found += [(where[a], where[b], name) for a, b, name in _scan_decoded(text) if where[b] > where[a]]
    return found


def _scan_decoded(text: str) -> list[Span]:
    proxy = text if text.isascii() else fold_wide(text)
    return _rule_spans(proxy, decode=False)


def _merged(text: str, found: list[Span]) -> list[Span]:
    """The user's patterns added, the allowed values taken out, overlapping spans joined (the
    earlier one's name kept: a span that starts inside another and ends past it must not leave
    its tail in the clear)."""
    for name, regex in _settings._extra:
        found.extend((m.start(), m.end(), f"user-{name}") for m in regex.finditer(text) if m.end() > m.start())
    if _settings._allow:
        found = [s for s in found if not any(a.fullmatch(text[s[0]:s[1]]) for a in _settings._allow)]
    found.sort(key=lambda s: (s[0], -s[1]))
    kept: list[Span] = []
    for span in found:
        if kept and span[0] < kept[-1][1]:
            if span[1] > kept[-1][1]:
                kept[-1] = (kept[-1][0], span[1], kept[-1][2])
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


# -- names: one-line values made of other text (`secret_names.py`) ---------------------------------


def name_spans(proxy: str, name: str | None = None) -> list[Span]:
    """Credentials of a one-line name (a tool's name, a call id, a model, a key, a branch, a
    folder): people and tools make names from a command or a sentence, replacing its spaces
    and punctuation (a call id made of the command it ran, a branch named after a sentence, a
    Claude project folder named after its cwd), so the rules also read the name spaced out; a
    name that holds a credential's context word loses every random-looking run (what the
    spacing could not give back: `curl -u root:…` as `curl--u-root-…`). `name` is the original
    when `proxy` is its ASCII copy (words of other scripts are read there)."""
    found = _rule_spans(proxy)
    if name is not None and name != proxy:
        found += other_script_spans(name, proxy)
    if not holds_context(proxy):
        return found  # no word a credential goes with (most ids and names): the spaced copies hold none
    read = [span for variant in spaced(proxy) for span in _rule_spans(variant) + name_prose_spans(proxy, variant)]
    return found + [span for span in read if not after_public(proxy, span[0]) and not id_prefixed(proxy, span[0])
                    and not _spaced_reference(proxy, span)] \
        + random_runs(proxy)


_NAME_WORD = re.compile(r"[A-Za-z0-9_]*")


def _spaced_reference(proxy: str, span: Span) -> bool:
    """A value read in a spaced copy that the name writes as one placeholder word (spaced,
    `CHANGE_ME_PLEASE` is `CHANGE`): judged whole, as the name holds it."""
    start = span[0]
    while start > 0 and (proxy[start - 1].isalnum() or proxy[start - 1] == "_"):
        start -= 1
    word = _NAME_WORD.match(proxy, start)
    whole = word.group() if word is not None else ""
    return len(whole) > span[1] - span[0] and is_placeholder(whole)


def redact_name(name: str) -> str:
    """A one-line name with its credentials redacted (see `name_spans`)."""
    if len(name) < _SHORTEST or not _settings.enabled:
        return name
    proxy = name if name.isascii() else fold_wide(name)
    found = _merged(name, name_spans(proxy, name))
    return _splice(name, found) if found else name


# A `user:password@host` folder (a cwd cut from a URI: the path keeps one slash of `://`).
_PATH_USERINFO = re.compile(r"(?:^|/)[^/\s:@]{0,64}:([^/\s@]{3,256})@[A-Za-z0-9\[]")


def redact_path(path: str) -> str:
    """A log's path redacted name by name, and as the cwd it may be named after: Claude Code
    names a project folder after its cwd with `/` as `-`, so the shapes also run with `-` read
    as `/` (same positions), and a `user:password@host` folder counts as a URI's credentials."""
    if len(path) < _SHORTEST or not _settings.enabled:
        return path
    proxy = path if path.isascii() else fold_wide(path)
    found: list[Span] = []
    start = 0
    previous = ""
    for segment in proxy.split("/"):  # a file or folder name is a name of its own
        found += [(a + start, b + start, name) for a, b, name in name_spans(segment)]
        if claude_folder(segment, previous):
            found += [(a + start, b + start, name) for a, b, name in random_runs(segment, folder=True)]
        start += len(segment) + 1
        previous = segment
    # Shapes may span folders (`hooks.slack.com/…`), and a cwd's `_` and `.` are `-` in a Claude
    # folder name (`ghp_…` is `ghp-…` there).
    for variant in {proxy, proxy.replace("-", "/"), proxy.replace("-", "_"), proxy.replace("-", ".")}:
        found += shape_spans(variant, variant.encode("ascii"))
    found += [(m.start(1), m.end(1), "uri-password") for m in _PATH_USERINFO.finditer(proxy)
              if not is_reference(m.group(1))]
    found = _merged(path, found)
    return _splice(path, found) if found else path


def redact_field(key: str, value: str) -> str:
    """A value stored under a key (a tool's arguments, metadata), redacted as `"key": "value"`
    would be: `{"password": "hunter22"}` loses its value, though the value alone says nothing.
    For callers that hold keys and values apart (`sources._redacted` redacts each alone)."""
    if len(value) < 4 or not _settings.enabled:
        return value
    opening = '"' + key.replace('"', "'") + '": "'
    found = [(max(a - len(opening), 0), min(b - len(opening), len(value)), name)
             for a, b, name in spans(opening + value + '"') if b > len(opening) and a < len(opening) + len(value)]
    return _splice(value, found) if found else redact(value)


# Short values (ids, names, paths, models) repeat from record to record: redacted once each.
redact_cached = lru_cache(maxsize=16_384)(redact)
redact_name_cached = lru_cache(maxsize=16_384)(redact_name)


def count_placeholders(data: bytes | str) -> Counter[str]:
    """How many `[REDACTED:<rule>]` placeholders `data` holds, per rule."""
    text = data.decode("utf-8", "replace") if isinstance(data, bytes) else data
    return Counter(PLACEHOLDER.findall(text))
