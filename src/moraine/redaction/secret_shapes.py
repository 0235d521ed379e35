"""The first kind of evidence: a credential's own shape (`secret_rules.TOKEN_RULES`), a vendor
prefix with its alphabet and length, a private-key block, a JWK's private members, a URI's
password, an `Authorization` header, a password on a command line.

Every shape is one alternative of one RE2 pattern (`SHAPES_PATTERN`): RE2 finds where a match starts with
its DFA alone, then the groups are read by an anchored match at that place only. A match is redacted
unless its rule's checks turn it down: a value written to be replaced (`sk-your-key-here`), one
that must start a word and does not, one that must look random and does not
(`secret_values.mixed`), a reference to a secret rather than one (`${TOKEN}`), a call's name.
"""

from __future__ import annotations

import base64
import binascii
import functools
import re
from typing import NamedTuple

import re2

from moraine.redaction.secret_rules import END, TOKEN_RULES, Rule
from moraine.redaction.secret_values import Span, is_placeholder, is_reference, mixed

# One alternation of every shape, each rule's pattern in a group of its own.
SHAPES_PATTERN = "|".join(f"({rule.pattern})" for rule in TOKEN_RULES)
FIND_OPTIONS = re2.Options()
FIND_OPTIONS.max_mem = 128 << 20
FIND_OPTIONS.never_capture = True


class _Shapes(NamedTuple):
    read: re2._Regexp  # the alternation with its groups, matched where `find` found a start
    find: re2._Regexp  # the same without groups: RE2 finds where a match starts with its DFA alone
    groups: list[tuple[int, Rule, bool]]  # each rule's outer group, and whether it has one of its own


@functools.cache
def _shapes() -> _Shapes:
    """Compiled on first use (~0.1 s): a process that redacts nothing (`moraine mcp`, a search,
    a daemon answering before its first new line) does not pay for it. The search without groups
    is ~10x faster than one that must also fill ~100 groups; the groups are then read by an
    anchored match at that place only."""
    where, group = [], 1
    for rule in TOKEN_RULES:
        inner = re.compile(rule.pattern).groups  # RE2 and `re` count groups alike
        where.append((group, rule, inner > 0))
        group += 1 + inner
    options = re2.Options()
    options.max_mem = 128 << 20  # room for the DFA of ~150 alternatives (RE2 would fall back to a slower NFA)
    return _Shapes(re2.compile(SHAPES_PATTERN, options), re2.compile(SHAPES_PATTERN, FIND_OPTIONS), where)


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


def shape_spans(text: str, data: bytes) -> list[Span]:
    spans: list[Span] = []
    shapes = _shapes()
    pos, find, read = 0, shapes.find.search, shapes.read.match
    while (found := find(data, pos)) is not None:
        match = read(data, found.start())
        pos = found.start() + 1
        for group, rule, own in shapes.groups:
            if match is None or match.group(group) is None:
                continue
            span = _shape_span(text, match, group, rule, own)
            if span is not None:
                spans.append(span)
                pos = max(pos, span[1])
            break
    return spans


def _own_group(match: re2._Match, group: int) -> int:
    """The rule's first group that took part in the match (a rule of several alternatives
    has a group in each)."""
    inner = group + 1
    while match.start(inner) < 0 and inner < len(match.groups()):
        inner += 1
    return inner


def _shape_span(text: str, match: re2._Match, group: int, rule: Rule, own: bool) -> Span | None:
    """The span a shape's match redacts, or None when its checks turn it down."""
    first = match.start(group)
    if rule.back:  # the part before the RE2 match (`[a-f0-9]{32}` of `…-us6`, a URI's scheme)
        before = _BACK[rule.name].search(text, max(0, first - 96), first)
        if before is None:
            return None
        first = before.start()
    start, end = match.span(_own_group(match, group)) if own else (first, match.end(group))
    if not own and rule.pattern.endswith(END) and end > start and not _token_char(text[end - 1]):
        end -= 1
    if rule.name == "jwt":
        end = _unwrapped_end(text, start, end)
    value = text[start:end]
    if start < 0 or (rule.starts_word and not _starts_word(text, first)) or "EXAMPLE" in value:
        return None
    if is_placeholder(value):
        return None  # `ghp_xxxxxxxx…`, `sk-your-key-here`: written to be replaced
    if (rule.mixed and not mixed(value) and not _basic_credentials(value)) or (rule.needs and rule.needs not in text):
        return None
    if own and rule.name not in _BASE64_GROUPS and is_reference(value.strip("\"'")):
        return None
    if text.startswith("(", end):
        return None  # a call's name (`Basic base64(user:password)` of a document), not a value
    name = _checked_name(rule.name, value, text[first:match.start(group)])
    return None if name is None else (start, end, name)


def _checked_name(name: str, value: str, scheme: str) -> str | None:
    """The placeholder's name of a shape's match, or None when the value turns out to be none:
    a URI's port and path, a uid:gid, a Basic word that decodes to no pair."""
    if name == "uri-password":
        return None if _PORT_PATH.match(value) else _URI_KINDS.get(scheme.lower(), name)  # `host:8080/users/@me`
    if (name == "curl-user-password" and value.isdigit()) or (name == "basic-auth" and not _basic_credentials(value)):
        return None  # `-u 1000:1000` is a uid:gid; `Basic` before a word that decodes to no pair
    return name


# Rules whose group is base64 (a leading `/` is no path there).
_PORT_PATH = re.compile(r"[0-9]{1,5}(?:/|$)")
_BASE64_GROUPS = frozenset({"putty-private-key", "jwk-private-key", "kubeconfig-client-key", "docker-config-auth",
                            "azure-storage-key", "basic-auth"})
_LINE_BREAK = re.compile(r"(?:\r?\n|(?:\\r)?\\n)[ \t]*")


def _unwrapped_end(text: str, start: int, end: int) -> int:
    """A token wrapped across lines has lines of one width and a shorter last one: what follows
    a shorter line is the next line of text, not more token."""
    breaks = list(_LINE_BREAK.finditer(text, start, end))
    if not breaks:
        return end
    pieces = [b.start() - a for a, b in zip([start] + [m.end() for m in breaks], breaks, strict=False)]
    width = max(pieces[1:], default=pieces[0]) if len(pieces) > 1 else pieces[0]
    for i in range(1, len(pieces)):
        if pieces[i] < width:  # line i is the token's last
            return breaks[i].start()
    return end
