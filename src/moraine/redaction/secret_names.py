"""Names made of other text: a tool's name, a call id, a model, a key, a branch, a folder.

People and tools make names from a command or a sentence by replacing its spaces and punctuation
(a call id made of the command it ran, `mongosh_--host_db_-p_…`; a branch named after a sentence,
`fix/my-password-is-…`; a Claude Code project folder named after its cwd, every other character a
`-`), so a credential in a name no longer stands where the text rules look for it. This module
gives `redact.name_spans` the pieces to read such a name: the text it may have been made of
(`spaced`), whether it holds a word a credential goes with (`holds_context`), and its runs that
only a generator writes (`random_runs`), keeping what is public by design (a publishable key, a
public key block, an image in a data URI).
"""

from __future__ import annotations

import re

import re2

from moraine.redaction.secret_context import ID_PREFIXES, is_id
from moraine.redaction.secret_values import HEX, Span, entropy, mixed

# A run of dashes in a name made of text stood for a space and the rest (`sshpass--p-x`: `sshpass -p x`).
_DASHES = re.compile(r"-+")
# Words that say a name was made of a credential's context (a command, a key, a sentence), at the
# start of a word (a random run holds `key` or `auth` by chance).
_CONTEXT = re2.compile(r"(?i)(?:^|[^A-Za-z0-9])(?:pass|pwd|secret|token|key|auth|cred|login|sudo|curl|echo|export"
                       r"|sshpass|base64|xxd|bearer|private|pw\b|literal|mysql|psql|mongo|redis|rabbitmq|htpasswd"
                       r"|chpasswd|secure|sqlplus|lftp|config|wifi|contrase|clave|senha|kennwort|heslo|has.o|salasana"
                       r"|jelsz|sifre|sqlcmd|ldap|mosquitto|openssl|smbclient|http|-[pPkwaU][_ -]"
                       r"|\"(?:d|p|q|dp|dq|qi|k)\")|(?-i:[a-z](?:Pass|Secret|Token|Key|Auth)[A-Z_]?)")
_RUN = re.compile(r"[A-Za-z0-9]{12,}")
_FOLDER_RUN = re.compile(r"[A-Za-z0-9]{10,}")  # a Claude folder: the cwd's punctuation is gone, runs are short
_CHUNK = re.compile(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])|[0-9]+")
# Values public by design, known by what comes before them (a publishable key, a data URI's image,
# a Subresource Integrity hash, an SSH key's fingerprint, a public key's field, an ACME challenge,
# a Nix store path, a PKCE challenge) or after them (a Tor address, a Google OAuth client id).
_PUBLIC_BEFORE = re.compile(r"(?:pk_live_|pk_test_|pk\.|phc_|base64,|sha(?:256|384|512)-|SHA256:"
                            r"|(?i:public_?key)\W{0,4}|acme-challenge/|/nix/store/|code_challenge=|jid=)[A-Za-z0-9+/_-]{0,8}\Z")
_PUBLIC_OPENING = re.compile(_PUBLIC_BEFORE.pattern.split(")[A-Za-z0-9")[0] + ")")
_WORD_ENDS = frozenset(" \t\n\"'`(),;")
_PUBLIC_AFTER = re.compile(r"[A-Za-z0-9_-]{0,8}(?:\.onion\b|\.apps\.googleusercontent\.com|--[\w-]+\.netlify\.app)")
# A Claude Code project folder: its cwd with every other character as `-`.
_CLAUDE_FOLDER = re.compile(r"-[A-Za-z0-9-]+")


def spaced(name: str) -> set[str]:
    """The text a name may have been made of, same length: `_` as a space, and each run of
    dashes as a space and the rest of the run (a flag keeps its dash); the name itself left out."""
    underscores = name.replace("_", " ")
    dashes = _DASHES.sub(lambda m: " " + m.group()[1:], name)
    return {underscores, dashes, _DASHES.sub(lambda m: " " + m.group()[1:], underscores)} - {name}


def holds_context(proxy: str) -> bool:
    """Whether an ASCII name holds a word a credential goes with (most ids and names hold none)."""
    return _CONTEXT.search(proxy.encode("ascii")) is not None


def after_public(proxy: str, at: int) -> bool:
    """Whether position `at` follows the prefix of a value public by design (`pk_test_…`,
    `base64,` of a data URI): spacing a name cuts such a prefix, so it is looked for here."""
    if _PUBLIC_BEFORE.search(proxy, max(0, at - 24), at) is not None:
        return True
    start = at  # the word the run stands in may hold the marker (`sha384-Bh7V…+…`), or follow it
    while start > 0 and at - start < 160 and proxy[start - 1] not in _WORD_ENDS:
        start -= 1
    return _PUBLIC_OPENING.search(proxy, max(0, start - 16), at) is not None  # (`PublicKey = …`)


def before_public(proxy: str, end: int) -> bool:
    """Whether the run ending at `end` is followed by the suffix of a public value (`….onion`)."""
    return _PUBLIC_AFTER.match(proxy, end) is not None


def _random_run(run: str) -> bool:
    """A run that only a generator writes: three kinds of character, or a long run of two; a hex
    run of a commit's or digest's length is a hash, and words with a number (`MyProject2024`)
    are a name."""
    kinds = sum((any(c.islower() for c in run), any(c.isupper() for c in run), any(c.isdigit() for c in run)))
    if HEX.fullmatch(run) and (len(run) <= 12 or len(run) in (40, 64)):
        return False
    chunks = _CHUNK.findall(run)
    if chunks and len(run) / len(chunks) >= 4 and max((len(c) for c in chunks if c[-1].isalpha()), default=0) >= 4:
        return False
    return (kinds == 3 and entropy(run) >= 3.2) or (kinds == 2 and len(run) >= 16 and mixed(run)
                                                    and entropy(run) >= 3.0)


def random_runs(proxy: str, folder: bool = False) -> list[Span]:
    """Random-looking runs of a name (of 10 characters and more in a Claude folder, whose cwd's
    punctuation is gone), but not those of what is public by design."""
    if "PUBLIC KEY" in proxy and "PRIVATE" not in proxy:
        return []
    finder = _FOLDER_RUN if folder else _RUN
    paths = [m.span(1) for m in _URL_PATH.finditer(proxy)]
    return [(m.start(), m.end(), "secret-in-name") for m in finder.finditer(proxy)
            if _random_run(m.group()) and not after_public(proxy, m.start()) and not before_public(proxy, m.end())
            and not _named_id(proxy, m.start(), m.end()) and not any(a <= m.start() < b for a, b in paths)]


# The path of a URL (ids, digests and slugs live there; a credential in one has its own shape rule,
# and one in its userinfo or query is read by the text rules).
_URL_PATH = re.compile(r"[a-z][a-z0-9+.-]*://[^/\s?#@]+(/[^\s?#]*)")


_ULID = re.compile(r"[0-7][0-9A-HJKMNP-TV-Z]{25}")
_ID_PREFIXED = re.compile(r"(?:^|[^A-Za-z0-9])(?:" + "|".join(re.escape(p) for p in ID_PREFIXES) + r")\Z")


def id_prefixed(proxy: str, at: int) -> bool:
    """Whether position `at` follows the prefix of an API object's id (`req_`, `msg_`, `sess_`)."""
    return _ID_PREFIXED.search(proxy, max(0, at - 12), at) is not None


def _named_id(proxy: str, start: int, end: int) -> bool:
    """A run the name itself calls an id: a document's `"_id":"…"`, a hex run after an id word
    (`span_id":"db6f…`, `ObjectId("…`), or a `0x` address (40 hex digits: public; a private
    key has 64)."""
    run = proxy[start:end]
    if run.startswith("0x") and HEX.fullmatch(run[2:]) and len(run) == 42:
        return True
    if _ULID.fullmatch(run) or id_prefixed(proxy, start):
        return True  # a ULID (a time, then randomness), `req_…`, `sess_…` of an API's objects
    if proxy[max(0, start - 8):start].endswith(('"_id":"', '"id":"', '"id": "')):
        return True
    return HEX.fullmatch(run) is not None and is_id(proxy, start, end)


def claude_folder(segment: str, parent: str) -> bool:
    """Whether a path segment is a Claude Code project folder (named after a cwd: a credential's
    words are lost there, so a random run is enough)."""
    return parent == "projects" and _CLAUDE_FOLDER.fullmatch(segment) is not None
