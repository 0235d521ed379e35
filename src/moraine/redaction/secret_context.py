"""Credentials known by what stands around them, and ids known by what they look like.

A key without a prefix is recognised by a word beside it: a provider or secret word a few words
*before* it ("my twilio auth token is 0f3c…", "aws secret: wJalr…") or *after* it ("pasted
3f9a…, which looks like a live credential", "0f3c… is the api key for staging"), or by its
partner: an AWS key id (`AKIA…`) beside a 40-character secret, a Twilio account SID beside a
32-hex auth token, an Alibaba or Tencent key id beside its secret (GitHub secret scanning and
trufflehog match such pairs). Cookies are redacted by their names and values.

The same words stand beside ids: "github, commit 3f2c…", "docker pull x@sha256:…", "stripe
charge ch_…", "anthropic msg_01…", "twilio account AC…". Those are kept by what ids look like
(`is_id`): a commit or tree hash (hex after commit/sha/rev/merge/HEAD/tree/parent, or opening a
line of git output), a digest (after `sha256:`, `sha1:`, `h1:`, `shasum`, `integrity`,
`checksum`, `etag`), a UUID, a vendor object id (`ch_`, `cus_`, `pi_`, `msg_`, `toolu_`,
`chatcmpl-`, `req_`, `evt_`, Twilio SIDs other than API keys).
"""

from __future__ import annotations

import re

import re2

from moraine.redaction.secret_rules import PROVIDERS
from moraine.redaction.secret_values import DOTTED, HEX, TYPE_NAME, Span, entropy, is_reference, mixed, random_looking
from moraine.redaction.secret_vendors import VENDORS

# A word, or the last words of an identifier (`MISTRAL_API_KEY`: `_` joins words there).
_NAMES = sorted(set(PROVIDERS) | set(VENDORS))
_NO_GROUPS = re2.Options()
_NO_GROUPS.never_capture = True  # spans only: the wrapper asks for groups at every match otherwise
CONTEXT = re2.compile(r"(?i)(?:\b|_)(?:" + "|".join(_NAMES) + r"|token|secret|password|passwd|api[ _-]?key"
                      r"|access[ _-]?key|secret[ _-]?key|private[ _-]?key|credential|bearer|key"
                      # the same words in other languages (`?`: a letter outside ASCII in the copy)
                      r"|jeton|schl\?ssel|zugangsschl\?ssel|chiave|llave|chave|sleutel|klucz|nyckeln?|kunci|anahtar"
                      r"|kulcs|secert|sercet|toekn|tokne)s?\b"
                      r"|\bcl\?[ \t]|\bn\?gle\b|\banahtar\?|\bkl\?\?",
                      _NO_GROUPS)
# "key" alone marks a value only when a copula gives it one, and not after these words.
_KEY_OWNERS_NOT = re.compile(r"(?i)\b(?:cache|sort|primary|foreign|partition|composite|unique|public|idempotency"
                             r"|dedupe?|lookup|map|dict|hash|index|row|object|s3|registry|react|list|translation|i18n"
                             r"|config|env|keyboard|hot|shortcut|the|a|this|that|which|each|every|its|gpg|ssh|host"
                             r"|signing key id|license|result|output|input|group|json|field|column|attr|prop|property"
                             r"|param|api)[ _-]\Z")
_CANDIDATE = re.compile(r"(?<![A-Za-z0-9_./+=#?&%\\-])(?:\\+[nrt])?([A-Za-z0-9+/=_.-]{16,})")  # after `\n`, not in it
_LONG_RUN = re2.compile(r"[A-Za-z0-9+/=_.-]{16,}", _NO_GROUPS)  # as long as the shortest candidate
_UUID = re.compile(r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}")
_PUBLIC_PREFIXES = ("pk_live_", "pk_test_", "pk.", "sha1", "sha256", "sha384", "sha512", "ssh-", "AAAA", "arn:")
_PROVIDER_WORDS = frozenset(_NAMES)  # after a value, only a secret word marks it ("… npm" says nothing)
_WINDOW = 48  # characters after a context word a value may start in
_BEFORE = 64  # characters before a context word a value may end in

def _provider(word: str) -> bool:
    """A service's name (in the plural too: "aws" is one, and "slacks" is "slack")."""
    return word in _PROVIDER_WORDS or (word.endswith("s") and word[:-1] in _PROVIDER_WORDS)


# -- ids -------------------------------------------------------------------------------------------

# Object ids of APIs whose names are context words: Stripe, Anthropic, OpenAI, Twilio, GitHub Actions.
ID_PREFIXES = (
    "ch_", "cus_", "pi_", "pm_", "in_", "ii_", "sub_", "si_", "prod_", "price_", "evt_", "req_", "msg_", "toolu_",
    "srvtoolu_", "chatcmpl-", "call_", "run_", "thread_", "asst_", "file-", "file_", "batch_", "resp_", "ft-",
    "ftjob-", "org-", "proj_", "cs_", "txn_", "po_", "re_", "tr_", "acct_", "src_", "card_", "seti_", "py_", "dp_",
    "ba_", "txr_", "cn_", "inv_", "sess_", "compl_", "modr-", "vs_", "step_", "fc_", "rs_", "ws_", "cmpl-",
)
_TWILIO_SID = re.compile(r"(?!SK)[A-Z]{2}[0-9a-f]{32}")  # `AC…`, `SM…`, `CA…`: ids; `SK…` is an API key
# Words that say the next value is a hash, a digest or an id.
_ID_WORDS = re.compile(
    r"(?i)(?:\b(?:commit|commits|sha|sha1|sha-1|sha256|sha-256|sha384|sha512|rev|revision|merge|head|tree|parent|blob"
    r"|object|checkout|cherry-pick|revert|reset|rebase|digest|checksum|shasum|integrity|hash|etag|h1|md5|md5sum"
    r"|fingerprint|nonce|image|layer|build|tag|id|uuid|ref|event|request|trace|span|job|order|message|device"
    r"|instance|correlation|session|(?:span|trace|parent|request|object|correlation)_?id|challenge"
    r"|code_challenge|address)\b[\s:=@\"',(]*|@|#|\bh1:|sha\d*[:~-])$")


def _hash_line(text: str, start: int, end: int) -> bool:
    """A hex value as git and the checksum tools print one: a short or full commit hash opening a
    line (`git log --oneline`, `git rev-parse`), or any hash before two spaces and a file name
    (`sha256sum`, `md5sum`). A 32-hex value opening a line is a key as often ("… is the api key")."""
    line = text.rfind("\n", 0, start) + 1
    lead = text[line:start]
    opens = lead.strip() == "" or lead.endswith("\\n")
    return text.startswith("  ", end) or (opens and (end - start <= 12 or end - start in (40, 64)))


def is_id(text: str, start: int, end: int, keys_are_uuids: bool = False) -> bool:
    """Whether `text[start:end]` is an id, a hash or a digest rather than a credential (a UUID
    is one unless a copula gives it to a secret word: Snyk's and Heroku's keys are UUIDs)."""
    value = text[start:end]
    if value.startswith(ID_PREFIXES) or _TWILIO_SID.fullmatch(value):
        return True
    if _UUID.fullmatch(value) and not keys_are_uuids:
        return True
    before = text[max(0, start - 24):start]
    if _ID_WORDS.search(before):
        return True
    return bool(HEX.fullmatch(value) and 7 <= len(value) <= 128 and _hash_line(text, start, end))


# -- a context word, then (or after) a random-looking value ---------------------------------------

_ARN_BEFORE = re.compile(r"arn:[\w-]*(?::[\w./-]*){0,5}:?\Z")


def _in_arn(text: str, at: int) -> bool:
    """Whether position `at` lies in an AWS resource name (the word around it starts `arn:`,
    or an `arn:` shortly before it leads to it: `fix/arn:aws:iam::…`)."""
    if _ARN_BEFORE.search(text, max(0, at - 96), at):
        return True
    start = at
    while start > 0 and at - start < 256 and not text[start - 1].isspace() and text[start - 1] not in "\"'`":
        start -= 1
    return text.startswith("arn:", start)


def _wordy(value: str) -> bool:
    """Mostly made of words (`compute-environment/C4OnDemand`): a name, not a random key."""
    parts = re.split(r"[/_.:-]+", value)
    words = sum(len(p) for p in parts if len(p) >= 4 and (p.isalpha() and (p.islower() or p.istitle())))
    return words * 2 >= len(value)


def secretish(value: str, provider: str) -> bool:
    core = value.strip("=.-_")
    if "example" in core.lower() or "=" in core or _wordy(core):
        return False  # `=` inside: a `name=value` pair (base64 pads only at the end)
    if len(core) < 16 or core.startswith(_PUBLIC_PREFIXES) or DOTTED.fullmatch(core) or TYPE_NAME.fullmatch(core):
        return False
    if _UUID.fullmatch(core):
        return provider == "heroku"
    if HEX.fullmatch(core):
        return len(core) >= 24 and mixed(core)
    if (core.count("/") >= 3 and not random_looking(core.replace("/", ""))) or core.count("-") >= 2 \
            or core.count("_") >= 2:
        return False  # a path, a slug, an identifier (a base64 secret may hold slashes: it looks random)
    classes = sum((any(c.islower() for c in core), any(c.isupper() for c in core), any(c.isdigit() for c in core)))
    return classes == 3 and entropy(core) >= 3.8


_SECRET_WORD = re.compile(r"(?i)\b(?:key|token|secret|password|credential|api[ _-]?key)s?\b")
# Any copula (a word's own: "is:" is one).
_COPULA = re.compile(r"\b(?:is|was|are)\b\s*:?|->|(?<![:=])(?::|=)(?![:/=])")
# A copula just before a value: "the new one is X", "api key: X", "token = X".
_JOINED = re.compile(r"(?:\bis|\bwas|\bare|\bto|(?<![:=]):|(?<![=!<>]):?=|->)\s*[\"'`]?\Z")  # not `::`, `==`


_LABELLED_DIGEST = re.compile(r"(?:[A-Za-z]+[-_.])+(?:[0-9a-f]{40}|[0-9a-f]{64})")
_SNAKE = re.compile(r"[a-z0-9]+(?:_[a-z0-9]+)+|[A-Z0-9]+(?:_[A-Z0-9]+)+")  # `test_fix_token_6`, `MAX_RETRY_2`


def joined_secret(value: str, commits: bool = False) -> bool:
    """A value a copula gives to a secret word ("the langfuse credential, the new one is
    live_8cR…", "the api key is api-f2997b74-…"): a name with words and dashes counts here, as
    vendors' keys hold them, but a word, a path, a commit hash or a public key does not."""
    core = value.strip("=.-_")
    if len(core) < 16 or "example" in core.lower() or core.startswith(_PUBLIC_PREFIXES) or not mixed(core):
        return False
    if DOTTED.fullmatch(core) or TYPE_NAME.fullmatch(core) or is_reference(core):
        return False
    if _wordy(core) or _SNAKE.fullmatch(core):
        return False
    if HEX.fullmatch(core) and (len(core) < 32 or (len(core) == 40 and not commits)):
        return False  # an id or a digest; a commit (but W&B's keys have its shape: "use daaaf7… for wandb")
    if _LABELLED_DIGEST.fullmatch(core):
        return False  # `node-modules-Linux-83c9…`: a cache key, words then a digest
    return entropy(core) >= 3.0


def _line_window(text: str, start: int, end: int) -> tuple[int, int]:
    """`start..end` cut to the line the context word is on."""
    newline = text.find("\n", start, end)
    end = newline if newline >= 0 else end
    newline = text.rfind("\n", start, end)
    return (newline + 1 if newline >= 0 else start), end


def _after(text: str, hit_end: int, word: str, joined_only: bool = False) -> Span | None:
    _, window_end = _line_window(text, hit_end, min(len(text), hit_end + _WINDOW))
    if text.startswith("\n", window_end) and _JOINED.search(text, hit_end, window_end):
        if text.startswith("```", window_end + 1):  # the value in a code block of its own
            fence_end = text.find("\n", window_end + 1)
            window_end = fence_end if 0 <= fence_end < window_end + 40 else window_end
        _, window_end = _line_window(text, window_end + 1, min(len(text), window_end + 1 + _WINDOW))
        # "the signing secret for the webhooks is\nfheZ…": the value opens the next line
    # starts in the window, ends where it ends (read to 4,096 characters past it: a longer run is a blob, not a key)
    for cand in _CANDIDATE.finditer(text, hit_end, min(len(text), window_end + 4096)):
        if cand.start() >= window_end:
            break
        start, stop = cand.span(1)
        value = cand.group(1)
        if not joined_only and secretish(value, word):
            if not is_id(text, start, stop):
                return start, stop, "secret-near-keyword"
        elif _joined(text, hit_end, start, word, value) and not is_id(text, start, stop, keys_are_uuids=True):
            return start, stop, "secret-near-keyword"
    return None


def _joined(text: str, hit_end: int, start: int, word: str, value: str) -> bool:
    """A copula gives the word this value (the cheap look at the value first: most fail it)."""
    if _JOINED.search(text, hit_end, start) is None or len(_COPULA.findall(text, hit_end, start)) > 1:
        return False  # no copula before the value, or another pair's (`"output_tokens": 512, "model": "…"`)
    if not joined_secret(value):
        return False
    # a service's name needs a secret word too: "the snyk key you asked for: X", not `"AWS::S3::X": "…"`
    return not _provider(word) or _SECRET_WORD.search(text, hit_end, start) is not None


# Between a value and a provider's name after it: "use X for datadog" (a bare "X npm" says nothing).
_FOR = r"\s+(?:for|with|on|in|to)\s+(?:the\s+|my\s+|our\s+|your\s+)?(?:new\s+)?"
_FOR_BEFORE = re.compile(_FOR + r"\Z")  # looked for first, before any value is read
_FOR_PROVIDER = re.compile(r"[\"'`]?" + _FOR)  # the whole gap between the value and the name


def _before(text: str, hit_start: int, word: str) -> Span | None:
    """The value closest before a context word (a few words back, on its line); before a
    provider's name only when "for" (or the like) joins them."""
    if _provider(word) and _FOR_BEFORE.search(text, max(0, hit_start - 40), hit_start) is None:
        return None  # a value before a service's name needs "for" (or the like) between them
    line_start = text.rfind("\n", 0, hit_start) + 1
    last = None
    for cand in _CANDIDATE.finditer(text, max(line_start, hit_start - _BEFORE - 512), hit_start):
        last = cand
    if last is None or last.end(1) < hit_start - _BEFORE:
        return None
    start, stop = last.span(1)
    value = last.group(1)
    if _provider(word):
        if not _FOR_PROVIDER.fullmatch(text, stop, hit_start):
            return None
        if joined_secret(value, commits=True) and not is_id(text, start, stop, keys_are_uuids=True):
            return start, stop, "secret-near-keyword"  # "use 952540d7-… for heroku": a key for a service
    if text[stop:hit_start].count(" ") > 8 or (HEX.fullmatch(value) and len(value) in (40, 64)):
        return None  # far away, or a commit hash or digest ("`9532bd…` (changelog); npm")
    if secretish(value, word) and not is_id(text, start, stop):
        return start, stop, "secret-near-keyword"
    return None


def context_spans(text: str, data: bytes) -> list[Span]:
    spans: list[Span] = []
    if _LONG_RUN.search(data) is None:
        return spans  # no value long enough to be one (prose that merely names a token or a service)
    arns = b"arn:" in data  # one look per text, not per hit (a long tool output holds many words)
    for hit in CONTEXT.finditer(data):
        start, end = hit.span()  # once: each look at a match costs a call into the wrapper
        if (arns and _in_arn(text, start)) or text[end:end + 1] in _HOST_AFTER or text[start - 1:start] in _HOST_BEFORE:
            continue  # an ARN (`…:secret:MyDbSecret-d4e5f6`), a host or a path (`github.com/acme`): names
        word = text[start:end].lower().lstrip("_")
        inner = text[start] == "_"  # the end of an identifier (`MISTRAL_API_KEY`, `max_tokens`)
        if inner and not _INNER_JOINED.match(text, end):
            continue  # `"input_tokens": 512`: an identifier's own value is the key rule's to judge
        if word == "key" or inner:  # a value only when a copula gives it one
            at = start + inner  # `result_key`: the `_` is the owner's
            owned = word == "key" and _KEY_OWNERS_NOT.search(text, max(0, at - 24), at)
            if not owned and (found := _after(text, end, word, joined_only=True)):
                spans.append(found)
            continue
        for found in (_after(text, end, word), _before(text, start, word)):
            if found is not None:
                spans.append(found)
    return spans


# After an identifier ending in a secret word, the prose that gives it a value ("MISTRAL_API_KEY is …").
_INNER_JOINED = re.compile(r"[\"'`]?[ \t]+(?:is|was|to|->)[ \t]")
_HOST_AFTER = frozenset({".", "/"})
_HOST_BEFORE = frozenset({".", "/", "@"})


# -- a secret beside its partner id ----------------------------------------------------------------

# The id (kept: an id alone grants nothing) and the shape of the secret issued with it (an AWS key
# id's alphabet as trufflehog reads it: digits 0, 1, 8, 9 are written by hand and in examples).
PARTNERS = re2.compile(r"(?:A3T[A-Z0-9]|AKIA|ASIA|ABIA|ACCA)[A-Z0-9]{16}|AC[0-9a-f]{32}|LTAI[A-Za-z0-9]{17,21}"
                       r"|AKID[A-Za-z0-9]{32}")
_PARTNER_SECRET = {
    "A": re.compile(r"(?:(?<![A-Za-z0-9+/])|(?<=\\[nrt]))[A-Za-z0-9+/]{40}(?![A-Za-z0-9+/=])"),  # AWS secret access key
    "AC": re.compile(r"(?<![A-Za-z0-9])[0-9a-f]{32}(?![A-Za-z0-9])"),  # Twilio auth token
    "LTAI": re.compile(r"(?<![A-Za-z0-9])[A-Za-z0-9]{30}(?![A-Za-z0-9])"),  # Alibaba AccessKey secret
    "AKID": re.compile(r"(?<![A-Za-z0-9])[A-Za-z0-9]{32}(?![A-Za-z0-9])"),  # Tencent SecretKey
}
_PARTNER_REACH = 160


def partner_spans(text: str, data: bytes) -> list[Span]:
    spans: list[Span] = []
    for hit in PARTNERS.finditer(data):
        ident = text[hit.start():hit.end()]
        kind = next(k for k in ("AC", "LTAI", "AKID", "A") if ident.startswith(k))
        lo, hi = max(0, hit.start() - _PARTNER_REACH), min(len(text), hit.end() + _PARTNER_REACH)
        for cand in _PARTNER_SECRET[kind].finditer(text, lo, hi):
            value = cand.group()
            if cand.start() < hit.end() and cand.end() > hit.start():
                continue  # the id itself
            if mixed(value) and entropy(value) >= 3.2 and not is_reference(value) and not is_id(
                    text, cand.start(), cand.end()):
                spans.append((cand.start(), cand.end(), "secret-beside-id"))
    return spans


# -- cookies ---------------------------------------------------------------------------------------

COOKIES = re2.compile(r"(?i)(?:\b(?:set-)?cookie\\?[\"']?\s*[:=]|(?:^|\s)(?:-b|--cookie)\s)")
_PAIR = re.compile(r"\s*([A-Za-z0-9_.$!#%&*+^`|~-]{1,64})=([^;\s\"'\\]{1,4096})")
_COOKIE_NAME = re.compile(r"(?i)sess|sid|token|auth|jwt|remember|csrf|xsrf|key|secret|pass|sig|login|^d$|^s$")


def cookie_spans(text: str, data: bytes) -> list[Span]:
    """The values of a Cookie or Set-Cookie header (and of curl's `-b`), pair by pair: a
    value is a credential when its name says so (`sessionid`, `_gitlab_session`, `csrftoken`)
    or it looks random; `theme=dark; lang=en` is kept."""
    spans: list[Span] = []
    for hit in COOKIES.finditer(data):
        pos = hit.end()
        while pos < len(text) and text[pos] in " \t\"'":
            pos += 1
        while (pair := _PAIR.match(text, pos)) is not None:
            name, value = pair.group(1), pair.group(2)
            if (_COOKIE_NAME.search(name) and len(value) >= 8 and not is_reference(value)) or random_looking(value):
                spans.append((pair.start(2), pair.end(2), "cookie-value"))
            pos = pair.end()
            if text[pos:pos + 1] != ";":
                break
            pos += 1
    return spans
