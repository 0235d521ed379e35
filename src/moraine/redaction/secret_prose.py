"""Passwords written in sentences: "the password is hunter22", "pw: Summer2024!", "log in as
admin with rocket-erh2-willow-087", "Passwort: …", "パスワード：…".

A person's password is not random-looking (`velvet-eesv-granite-854`, `Summer2024!`), so the
rules of `secret_context.py` (a random-looking value near a secret word) pass it over, and it
has no key to be assigned to. What marks it is a word that names a password, in the language
the person writes in, joined to the value by a copula or a separator ("is", "was", ":", "=",
"/", "ist", "es", "est", "是", "は"), or a login verb and "with"/"using" before it, or "is the
password" after it. The value must look like a password someone chose: letters with a digit or
a symbol, eight characters or more, not a word of code, a path, an address or a version
("password length must be at least 12", "the password hashing moved to argon2id in
auth/hash.py" are kept: no copula there, or no value).

Runs on the ASCII copy of the text (same positions, see `redact.spans`); words of other scripts
are looked for in the original text by `other_script_spans`.
"""

from __future__ import annotations

import re

import re2

from moraine.redaction.secret_values import Span, is_reference

# Words naming a password, in the Latin-script languages people write to agents in (matched on
# the ASCII copy: an accented letter is a `?` there).
PASSWORD_WORDS = re2.compile(
    r"(?i)\b(?:pass(?:word|wd|phrase|code)s?|pass[ -]phrase|pwd|pw|wi-?fi(?:[ -]password|[ -]key)?|wpa2?[ -]key"
    r"|passwort|kennwort|contrase[n]as?|contrasenyas?|clave|mot de passe|mdp|senhas?|wachtwoord|has[l][oa]|has[l]em"
    r"|hes(?:lo|la|lem)|l[o]senord(?:et)?|passord(?:et)?|adgangskoden?|salasana|jelszo|parol[ai]?|parolata"
    r"|sifre(?:si|niz|n)?|lozink[aue]|geslo|parool|parole|slaptazodis|kata ?sandi(?:nya)?|mat khau"
    r"|palavra-passe|kata laluan|nenosiri|pasword|passowrd|passwrod|paswd|master password|unlock phrase"
    r"|bimil ?beonho|bimil ?bunho|amho|kodikos(?: prosvasis)?|synthimatiko|kalimat (?:al |el )?(?:sir|murur|ser)"
    r"|kelmet (?:el )?ser|mima|pasuwa-?do|ramz(?:-e)?(?: ?obur)?|paas ?word|parol'"
    r"|pre-?shared key|psk|setup key|recovery (?:key|code)|backup code|unlock code|api key|api token"
    r"|access token|secret key|vault password|pass (?:is|was)"
    r"|pass[ \t]+[^\s.,;]{8,}|credentials?|creds|login|log in|sign in|signin)\b"
    # words whose ASCII copy holds a `?` (a letter outside ASCII): no word boundary beside it
    r"|\?ifre(?:si|niz|n)?\b|\bcontrase\?as?\b|\bhas\?(?:[oa]\b|em\b)|\bl\?senord(?:et)?\b|\bjelsz\?"
    r"|\bslapta\?odis\b|\bm\?t kh\?u\b|\bparol\?")
# The words above that are English: after the others, "to" is a copula (Polish "hasło to …").
_ENGLISH = re.compile(r"(?i)pass|pwd|pw|wi-?fi|wpa|credential|creds|log|sign|master|unlock|pre|psk|setup|recovery"
                      r"|backup|api|access|secret|vault")
# Words of other scripts, looked for in the original text.
_OTHER_SCRIPTS = re.compile(r"پاس ?ورڈ|گذرواژه|رمز|пароль|парол|パスワード|暗証番号|密码|密碼|口令"
                            r"|비밀번호|비번|암호|סיסמה"
                            r"|كلمة المرور|كلمة السر|รหัสผ่าน|κωδικ[όο]ς?|συνθηματικό|पासवर्ड|रमज़|رمز عبور|гасло"
                            r"|পাসওয়ার্ড|лозинк|מפתח|مفتاح|κλειδί|ключ|kh\u00f3a API|kh\u00f3a"
                            r"|APIキー|API キー|アクセスキー|シークレット(?:キー)?|トークン|秘密鍵"
                            r"|密钥|秘钥|令牌|토큰|API 키|비밀 키"
                            r"|ключ API|API-ключ|токен")
# Letters each of those words holds one of.
_SCRIPT_LETTERS = re.compile("[\u0e23رپگпарключтокенгслозинПパ暗密口비암סמكرمキアシト秘令토키κσपरপ\u00f3]")
_LOGIN = re.compile(r"(?i)credentials?|creds|login|log in|sign in|signin")
# A line that ends after the word and a copula; the value then opens the next non-empty line.
_ENDS_IN_COPULA = re.compile(r"(?i)[^\n]{0,40}?(?:\b(?:is|was|are)|:|=)?[ \t]*$", re.MULTILINE)
_NEXT_LINE = re.compile(r"\n(?:[ \t]*\n){0,2}[ \t]*[\"'`]?([^\s\"'`<\\]{8,128})")
# A passphrase of words: three or more, letters or digits, up to the clause's end.
_PHRASE = re.compile(r"[A-Za-z0-9]+(?:[ ][A-Za-z0-9]+){2,7}(?=[ \t]*(?:[.,;!\n]|$))")
_QUOTED_PHRASE = re.compile(r"[A-Za-z0-9]+(?:[ _.-][A-Za-z0-9]+){2,9}")
# After "pass" (a verb as often): not an identifier, an argument (`ssl=True`) or `*marked*`.
_BARE_PASS = re.compile(r"(?![A-Za-z_][A-Za-z0-9_]*$)[^=*`]+")
_CODE_AFTER = frozenset("'\"`])}.(_")
_VALUE_BEFORE = frozenset("=-_./")
_USE_BEFORE = re.compile(r"(?i)\buse\s+[\"'`]?([^\s\"'`]{8,128})[\"'`]?\s+(?:to|for)\s+\Z")
# What joins a password word to its value.
# `?` is a copula of another script in the ASCII copy (`è`, `é`, `«`: "la password di root è …").
# Copulas of other languages: Czech/Slovak/Croatian "je", Polish "jest", Swedish "är" (`?r`), Danish and
# Norwegian "er", Finnish "on", Romanian "este", Indonesian "adalah", Vietnamese "là" (`l?`), Hindi "hai".
_COPULAS = frozenset({"is", "was", "are", "be", "ist", "lautet", "war", "es", "est", "era", "e", "é", "is:", "to", "?",
                      ":", "=", "->", "=>", "/", "|", "-", "with", "using", "como", "als", "ist:", "es:", "est:",
                      "je", "jest", "?r", "er", "on", "este", "adalah", "ialah", "l?", "hai", "h", "wa", "ni",
                      "c'est", "c?est", "?s", "ay", "nya:", "nya", "howa", "hiya", "hia"})
# Words between a copula and the value that leave it joined ("is literally …", "is now …").
_FILLERS = frozenset({"literally", "just", "now", "still", "actually", "simply", "currently", "basically", "also",
                      "temporarily", "really", "ofc", "lol"})
_TO_VERBS = re.compile(r"(?i)\b(?:set|change[ds]?|reset|update[ds]?|rotate[ds]?|chang(?:ing|ed))\b")
# A token ends at a backslash too: in a raw JSON line (a quarantined one) it opens an escape, and a
# redaction must not cut through one.
# A quoted token opens with its value: a closing quote before a space is no opening one.
_TOKEN = re.compile(r"[^\s\"'`<\\]+|\"[^\"\s][^\"\n]{0,127}\"|'[^'\s][^'\n]{0,127}'|`[^`\s][^`\n]{0,127}`")
_REACH = 64  # characters after a password word its value may start in
_STRONG_SYMBOLS = frozenset("!#$%^&*+?~@=")
# A symbol closing a value of words and a number (`TheVikingAte41Fossil!`, `NutmegCastle375?`): a
# password's, where a type's name ends bare.
_CLOSING_SYMBOLS = frozenset("!#$%&*?")
_MASK = re.compile(r"(?:[A-Za-z0-9]+[_-])*(?:\?{4,}|\*{4,}|\.{3,})[A-Za-z0-9]{0,6}")
_WORD_AND_YEAR = re.compile(r"[A-Z]?[a-z]{3,}[0-9]{2,}")  # the password people choose most
# A part people make a password of (`cedar.Cedar591`, `oyster.Falcon463`): no attribute of code
# is a capitalised word with three digits or more.
_CHOSEN_PART = re.compile(r"(?:^|[.])[A-Z][a-z]{2,}[0-9]{3,}(?:[^A-Za-z0-9_]|$)")
_VERSION = re.compile(r"v?\d+(?:\.\d+)+[a-z0-9.-]*")
_FILE = re.compile(r"[\w./-]*\.(?:py|js|ts|tsx|go|rs|rb|java|kt|c|h|cpp|md|txt|json|ya?ml|toml|ini|cfg|conf|env"
                   r"|sh|sql|html|css|lock|log|csv|xml)")
_EMAIL = re.compile(r"[^@\s]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)+")
_CODE = re.compile(r"[a-z]+(?:_[a-z]+)+|[a-z]+(?:[A-Z][a-z]+)+|[A-Za-z]+\(\)?|[A-Z][a-z]+(?:-[A-Z][A-Za-z]+)+")
_BEFORE = re.compile(r"(?i)([^\s\"'`]{8,}|\"[^\"\n]{8,128}\"|'[^'\n]{8,128}')[\"'`]?\s+(?:is|was|=)\s+"
                     r"(?:(?:the|my|our|your|a|an|his|her|their)\s+)?(?:[\w-]+\s+){0,3}$")


def password_like(value: str) -> bool:
    """A value a person chose as a password: eight characters or more, letters with a digit or a
    symbol, and none of the things that follow such words in ordinary text."""
    core = value.strip("\"'`").rstrip(".,;:!?)")
    if _MASK.fullmatch(core):
        return False  # a mask (`sk_live_••••••••4242` is `sk_live_????????4242` in the ASCII copy)
    closed = value.strip("\"'`").rstrip(".,;:)")[-1:] in _CLOSING_SYMBOLS and any(c.isdigit() for c in core)
    if len(core) < 8 or len(core) > 128 or not any(c.isalpha() for c in core):
        return False
    if not (closed or _WORD_AND_YEAR.fullmatch(core) or _CHOSEN_PART.search(core)) and is_reference(core.rstrip("([")):
        return False  # (`Summer2024`, `Evergreen1972` read as a type name otherwise)
    if not (any(c.isdigit() for c in core) or any(c in _STRONG_SYMBOLS for c in core)):
        return False  # `read-only`, `user-facing`: words; `Sommer!Regen` a password
    if "://" in core or core.startswith(("/", "~", "./")) or _EMAIL.fullmatch(core) or _VERSION.fullmatch(core):
        return False
    if core.count("/") >= 2:
        return False  # a path (`secret/data/prod/payments-api`)
    return not (_FILE.fullmatch(core) or _CODE.fullmatch(core) or core.lower().startswith(("http", "www.")))


def _value_span(text: str, start: int, end: int, token: str) -> Span:
    """The token's span without its quotes (escaped ones too: `\\"…\\"` of a raw JSON line) and
    the punctuation that ends a sentence."""
    lead = len(token) - len(token.lstrip("\"'`"))
    core = token.strip("\"'`")
    trimmed = core.rstrip(".,;!?)") if not token.startswith(("\"", "'", "`")) else core.rstrip("\\")
    return start + lead, start + lead + len(trimmed), "password-in-prose"


def _joins(previous: str, login: bool, text: str, word_end: int, skipped: list[str], english: bool = True) -> bool:
    """Whether the token before a value joins it to the password word (`^`: the value follows
    the word at once; a run of `?` is a word of another script, a copula as often: "είναι")."""
    if previous == "^":
        return not login
    if login:
        return previous in ("with", "using", "/", "|")
    if previous == "to" and english:  # "changed the password (for admin) to …", not "moved password hashing to …"
        near = not skipped or skipped[0] in ("for", "of", "on")
        return near and _TO_VERBS.search(text, max(0, word_end - 80), word_end) is not None
    return previous in _COPULAS or (bool(previous) and set(previous) == {"?"})


def _after(text: str, word_start: int, word_end: int, login: bool, phrase: bool = False,
           bare: bool = False, english: bool = True) -> Span | None:
    """The first password-like token after the word that a copula joins to it (or that follows
    the word at once: "pass lighthouse-lyon-1032"), on its line or, after a line that ends in a
    copula ("Here's the DB password:"), on the next one."""
    line_end = text.find("\n", word_end)
    stop = min(len(text) if line_end < 0 else line_end, word_end + _REACH)
    following = text[word_end:word_end + 1]
    if following in _CODE_AFTER:
        return None  # `data['password']`, `pwd.getpwuid(…)`, `password.translate(…)`: code, not a label
    # A value may follow the word at once only when the word is a label of its own: "pass lighthouse-…",
    # not `-field=password secret/…` (the word is a value there).
    previous = "^" if following in " \t" and text[word_start - 1:word_start] not in _VALUE_BEFORE else ""
    skipped = list[str]()
    if following in (":", "="):
        previous, word_end = ":", word_end + 1
    if _ENDS_IN_COPULA.match(text, word_end, stop) and line_end >= 0:
        below = _NEXT_LINE.match(text, line_end)
        if below is not None and password_like(below.group(1)):
            return _value_span(text, below.start(1), below.end(1), below.group(1))
    for token in _TOKEN.finditer(text, word_end, stop):
        value, start = token.group(), token.start()
        low = value.lower()
        if low in _COPULAS or low.rstrip(":") in _COPULAS or set(low) == {"?"} or (
                low in _FILLERS and previous in _COPULAS):  # "is literally …" leaves "is" joining
            previous = previous if low in _FILLERS else low.rstrip(":") or low
            continue
        if value[0] in ":=" and len(value) > 1:  # `Passwort:Sommer…`, `pw=x` without a space
            value, start, previous = value[1:], start + 1, previous if login else ":"
        joined = _joins(previous, login, text, word_end, skipped, english)
        if phrase and joined and (span := _phrase_at(text, start, token.end(), value)):
            return span
        if joined and password_like(value) and (
                not bare or _BARE_PASS.fullmatch(value)):
            return _value_span(text, start, token.end(), value)
        previous = ":" if value.endswith(":") else low
        skipped.append(low)
    return None


def _phrase_at(text: str, start: int, end: int, token: str) -> Span | None:
    """A passphrase of words opening at `start`: "…is: cricket sunshine tortoise 730 iceberg",
    or in quotes, its words joined by spaces, `_`, `-` or `.` ("…is "eagle_zebra_popcorn_biscuit"")."""
    words = _PHRASE.match(text, start)
    if words is not None:
        return start, words.end(), "password-in-prose"
    if token[:1] in "\"'`" and _QUOTED_PHRASE.fullmatch(token[1:-1]):
        return start + 1, end - 1, "password-in-prose"
    return None


def _before(text: str, word_start: int) -> Span | None:
    """"X is the admin password", "`X` was my wifi password"."""
    line_start = text.rfind("\n", 0, word_start) + 1
    found = _BEFORE.search(text, max(line_start, word_start - 160), word_start)
    if found is None or not password_like(found.group(1)):
        return None
    return _value_span(text, found.start(1), found.end(1), found.group(1))


def prose_spans(text: str, data: bytes) -> list[Span]:
    spans: list[Span] = []
    for hit in PASSWORD_WORDS.finditer(data):
        word, end = text[hit.start():hit.end()].lower(), hit.end()
        if word.startswith(("pass ", "pass\t")) and not word.startswith("pass phrase"):
            word, end = "pass", hit.start() + 4  # "pass" is matched with the value it needs ("tests pass." is none)
        login = bool(_LOGIN.fullmatch(word))
        phrase = word.startswith(("passphrase", "pass phrase", "pass-phrase"))
        bare = word == "pass"  # also a verb ("we pass user_id2"): its value is no identifier
        before = _use_to_log_in(text, hit.start()) if login else _before(text, hit.start())
        english = _ENGLISH.match(word) is not None
        for found in (_after(text, hit.start(), end, login, phrase, bare, english), before):
            if found is not None:
                spans.append(found)
    return spans


def _use_to_log_in(text: str, word_start: int) -> Span | None:
    """"use Madrid.Felix$27 to log in"."""
    found = _USE_BEFORE.search(text, max(0, word_start - 160), word_start)
    if found is None or not password_like(found.group(1)):
        return None
    return _value_span(text, found.start(1), found.end(1), found.group(1))


_NAME_VALUE_END = re.compile(r"[,_/\s]|$")


def name_prose_spans(name: str, spaced: str) -> list[Span]:
    """A sentence made into a name (`fix/my-staging-password-is-lotus-s3i5-ember-108,-…`): the
    password word and its copula are read in the spaced copy, and the value, which the
    spacing cut apart, is read in the name up to its next `,`, `_` or `/`."""
    spans: list[Span] = []
    for hit in PASSWORD_WORDS.finditer(spaced.encode("ascii", "replace")):
        for token in _TOKEN.finditer(spaced, hit.end(), min(len(spaced), hit.end() + _REACH)):
            if token.group().lower().rstrip(":") not in _COPULAS:
                continue
            start = token.end() + 1
            stop = _NAME_VALUE_END.search(name, start)
            end = stop.start() if stop is not None else len(name)
            if start < end and password_like(name[start:end]):
                spans.append((start, end, "password-in-prose"))
            break
    return spans


def other_script_spans(text: str, proxy: str) -> list[Span]:
    """Password words of other scripts (`пароль`, `パスワード`, `密码`), found in the original
    text; the value is read from the ASCII copy (full-width letters folded there)."""
    spans: list[Span] = []
    if _SCRIPT_LETTERS.search(text) is None:
        return spans  # (one quick look: most non-ASCII text holds no letter these words need)
    for hit in _OTHER_SCRIPTS.finditer(text):
        end = hit.end()
        while end < len(proxy) and proxy[end] in "?:=\uff1a \t" and end - hit.end() < 8:
            end += 1  # the script's own copula (`は`, `是`) is a `?` in the copy
        at = end - 1 if proxy[end - 1:end] in ":=" else end
        found = _after(proxy, hit.start(), at, False, english=False) if end < len(proxy) else None
        if found is None and end < len(proxy):
            token = _TOKEN.match(proxy, end)
            if token is not None and password_like(token.group()):
                found = _value_span(proxy, token.start(), token.end(), token.group())
        if found is not None:
            spans.append(found)
    return spans
