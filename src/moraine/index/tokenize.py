"""One tokenizer for documents and queries: Unicode-aware and code-aware.

`snake_case`, `camelCase`, `dotted.names` and `paths/like/this` are kept whole *and*
split into their parts, so either spelling finds them. CJK runs (which have no spaces)
become unigrams and bigrams, so Japanese and Chinese text is searchable. Tokens shorter
than two characters are dropped except CJK; tokens longer than 64 bytes are dropped.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable

MAX_TOKEN_BYTES = 64
MAX_TEXT_CHARS = 1_000_000
_CACHE_LIMIT = 500_000
_COMPOUND = re.compile(r"[^\W_]\w*(?:[./:@+#-]+\w+)*")
_SEPARATOR_TO_SPACE = str.maketrans("./:@+#_-", "        ")
_CAMEL = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|\d+|[^\W\d_a-zA-Z]+")
_CJK = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff\u31f0-\u31ff]+")


def _fits(token: str) -> bool:
    if len(token) < 2:
        return False
    return len(token) <= MAX_TOKEN_BYTES if token.isascii() else len(token.encode("utf-8")) <= MAX_TOKEN_BYTES


def _cjk_grams(run: str) -> list[str]:
    grams = list(run)
    grams.extend(run[i : i + 2] for i in range(len(run) - 1))
    return grams


def _split_piece(piece: str, out: list[str]) -> None:
    """A piece between separators: CJK runs as n-grams, the rest by camelCase parts."""
    if _CJK.search(piece):
        last = 0
        for match in _CJK.finditer(piece):
            if match.start() > last:
                _split_piece(piece[last : match.start()], out)
            out.extend(_cjk_grams(match.group()))
            last = match.end()
        if last < len(piece):
            _split_piece(piece[last:], out)
        return
    parts = _CAMEL.findall(piece)
    lowered = piece.lower()
    if len(parts) > 1 and _fits(lowered):
        out.append(lowered)
    for part in parts:
        part = part.lower()
        if _fits(part):
            out.append(part)


_PIECES: dict[str, list[str]] = {}


def _piece_tokens(piece: str) -> list[str]:
    """Pieces (`migrate`, `camelCase`, `0042`) repeat across distinct compounds: cache them."""
    parts = _PIECES.get(piece)
    if parts is None:
        if len(_PIECES) >= _CACHE_LIMIT:
            _PIECES.clear()
        if piece.isascii() and piece.isalnum() and (piece.islower() or piece.isdigit()):  # common case
            parts = [piece] if _fits(piece) else []
        else:
            parts = []
            _split_piece(piece, parts)
        _PIECES[piece] = parts
    return parts


def _compound_tokens(compound: str) -> tuple[str, ...]:
    if compound.isascii() and compound.isalnum() and (compound.islower() or compound.isdigit()):
        return (compound,) if _fits(compound) else ()
    pieces = compound.translate(_SEPARATOR_TO_SPACE).split()
    out: list[str] = []
    ascii_only = compound.isascii()
    if len(pieces) > 1 and len(compound) <= MAX_TOKEN_BYTES and (ascii_only or not _CJK.search(compound)):
        whole = compound.lower()
        if _fits(whole):
            out.append(whole)
    for piece in pieces:
        out.extend(_piece_tokens(piece))
    return tuple(out)


_CACHE: dict[str, tuple[str, ...]] = {}


def tokenize(text: str) -> list[str]:
    """All tokens of a document, in order, with repeats (they are term frequencies).

    Identifiers repeat heavily (Zipf), so each distinct compound is split once and cached.
    """
    return _expanded(text, _CACHE, _compound_tokens)


def _expanded(text: str, cache: dict[str, tuple[str, ...]], split: Callable[[str], tuple[str, ...]]) -> list[str]:
    """The text's compounds each replaced by its `split` parts, in order; each distinct compound
    is split once (`cache`, cleared when it reaches _CACHE_LIMIT)."""
    out: list[str] = []
    extend, get = out.extend, cache.get
    for compound in _COMPOUND.findall(text[:MAX_TEXT_CHARS]):
        parts = get(compound)
        if parts is None:
            if len(cache) >= _CACHE_LIMIT:
                cache.clear()
            parts = cache[compound] = split(compound)
        extend(parts)
    return out


def term_frequencies(text: str) -> tuple[dict[str, int], int]:
    """Term → tf and the document length, as `Counter(tokenize(text))` would give.

    Counting the compounds first (in C) means each distinct identifier is expanded once
    per document, not once per occurrence: large tool outputs repeat a lot.
    """
    cache = _CACHE
    tfs: dict[str, int] = {}
    length = 0
    for compound, count in Counter(_COMPOUND.findall(text[:MAX_TEXT_CHARS])).items():
        parts = cache.get(compound)
        if parts is None:
            if len(cache) >= _CACHE_LIMIT:
                cache.clear()
            parts = cache[compound] = _compound_tokens(compound)
        length += count * len(parts)
        for part in parts:
            tfs[part] = tfs.get(part, 0) + count
    return tfs, length


def query_terms(text: str, max_terms: int) -> list[str]:
    """Distinct query tokens in first-seen order, at most `max_terms`."""
    seen: dict[str, None] = {}
    for token in tokenize(text):
        seen.setdefault(token, None)
        if len(seen) >= max_terms:
            break
    return list(seen)


def words(text: str) -> list[str]:
    """The text's finest parts in order, lower-cased: each compound split at its separators and
    camelCase humps, CJK runs as single characters, single letters and digits kept. A phrase
    holds when its words occur adjacent and in this order (`fix_migration`, `fixMigration` and
    `fix migration` all hold "fix migration"; `fix the migration` does not)."""
    return _expanded(text, _WORDS, _compound_words)


_WORDS: dict[str, tuple[str, ...]] = {}


def _compound_words(compound: str) -> tuple[str, ...]:
    if compound.isascii() and compound.isalnum() and compound.islower() and compound.isalpha():
        return (compound,)
    out: list[str] = []
    for piece in compound.translate(_SEPARATOR_TO_SPACE).split():
        last = 0
        for match in _CJK.finditer(piece):
            out.extend(part.lower() for part in _CAMEL.findall(piece[last : match.start()]))
            out.extend(match.group())
            last = match.end()
        out.extend(part.lower() for part in _CAMEL.findall(piece[last:]))
    return tuple(out)
