"""The one tokenizer for documents and queries: code-aware, CJK-aware, bounded."""

from __future__ import annotations

import random
from collections import Counter

import pytest

from moraine.index import tokenize as tok
from moraine.index.tokenize import MAX_TOKEN_BYTES, query_terms, tokenize


@pytest.mark.parametrize(
    ("text", "whole", "parts"),
    [
        ("snake_case_name", "snake_case_name", ["snake", "case", "name"]),
        ("camelCaseName", "camelcasename", ["camel", "case", "name"]),
        ("PascalCaseThing", "pascalcasething", ["pascal", "case", "thing"]),
        ("getHTTPResponse", "gethttpresponse", ["get", "http", "response"]),
        ("os.path.join", "os.path.join", ["os", "path", "join"]),
        ("paths/like/this", "paths/like/this", ["paths", "like", "this"]),
        ("src/db/migrate.py", "src/db/migrate.py", ["src", "db", "migrate", "py"]),
        ("/usr/local/bin", "usr/local/bin", ["usr", "local", "bin"]),
        ("kebab-case-word", "kebab-case-word", ["kebab", "case", "word"]),
        ("tests/unit/test_wal.py", "tests/unit/test_wal.py", ["tests", "unit", "test", "wal", "py"]),
    ],
)
def test_compounds_keep_the_whole_token_and_the_parts(text: str, whole: str, parts: list[str]) -> None:
    tokens = tokenize(text)
    assert whole in tokens
    for part in parts:
        assert part in tokens
    assert tokens[0] == whole  # the whole comes first, then its parts in order
    positions = [tokens.index(p) for p in parts]
    assert positions == sorted(positions)


def test_compound_in_a_sentence_and_lowercasing() -> None:
    tokens = tokenize("Run `pytest tests/unit/test_wal.py` then call parseTsMs(Value) NOW.")
    for expected in ("run", "pytest", "tests/unit/test_wal.py", "test", "wal", "parsetsms", "parse", "ts",
                     "ms", "value", "now"):
        assert expected in tokens, expected
    assert all(t == t.lower() for t in tokens)


def test_query_and_document_spellings_meet() -> None:
    """Any spelling of an identifier in a query finds the document that has another one."""
    doc = set(tokenize("def parse_ts_ms(value): return parseTsMs(value)"))
    for query in ("parse_ts_ms", "parse ts ms", "parseTsMs", "PARSE"):
        assert set(query_terms(query, 32)) & doc, query


@pytest.mark.parametrize(
    ("text", "unigrams", "bigrams"),
    [
        ("日本語のテキスト", ["日", "本", "語", "の", "テ", "キ", "ス", "ト"], ["日本", "本語", "テキ", "スト"]),
        ("エラーが発生しました", ["エ", "ラ", "ー", "発", "生"], ["エラ", "発生", "しま"]),
        ("中文搜索引擎", ["中", "文", "搜", "索", "引", "擎"], ["中文", "搜索", "索引", "引擎"]),
        ("数据库连接失败", ["数", "据", "库"], ["数据", "据库", "连接", "失败"]),
        ("한국어 검색", ["한", "국", "어", "검", "색"], ["한국", "국어", "검색"]),
    ],
)
def test_cjk_runs_become_unigrams_and_bigrams(text: str, unigrams: list[str], bigrams: list[str]) -> None:
    tokens = tokenize(text)
    for gram in unigrams + bigrams:
        assert gram in tokens, gram
    assert text.replace(" ", "") not in tokens or len(text.replace(" ", "")) <= 2


def test_cjk_is_searchable_from_a_shorter_query() -> None:
    doc = set(tokenize("設定ファイルを読み込むときにエラーが発生しました"))
    for query in ("設定", "ファイル", "エラー", "発生", "エラーが発生"):
        terms = query_terms(query, 32)
        assert terms and set(terms) <= doc, query
    doc = set(tokenize("数据库连接失败，请检查配置文件"))
    for query in ("数据库", "配置文件", "连接"):
        assert set(query_terms(query, 32)) <= doc, query


def test_cjk_mixed_with_latin_keeps_both() -> None:
    tokens = tokenize("検索engine東京 user_id=42")
    for expected in ("検", "索", "検索", "engine", "東", "京", "東京", "user_id", "user", "id", "42"):
        assert expected in tokens, expected


def test_short_tokens_are_dropped_except_cjk() -> None:
    assert tokenize("a b c x y z 1 2 3 _ - .") == []
    assert tokenize("I am a x") == ["am"]
    assert "a" not in tokenize("a_b_c_d") and "a_b_c_d" in tokenize("a_b_c_d")
    assert tokenize("字") == ["字"]  # a single CJK character is a token
    assert tokenize("x 字 y") == ["字"]
    assert "v2" in tokenize("v2")


def test_tokens_longer_than_64_bytes_are_dropped() -> None:
    assert tokenize("a" * 64) == ["a" * 64]
    assert tokenize("a" * 65) == []
    # the whole compound is too long, its parts are kept
    long_snake = "_".join(["segment"] * 12)  # 95 characters
    tokens = tokenize(long_snake)
    assert long_snake not in tokens and tokens.count("segment") == 12
    # the limit is in UTF-8 bytes, not characters: "ж" is 2 bytes, so 32 of them are 64 bytes
    cyrillic = "ж" * 32
    assert tokenize(cyrillic) == [cyrillic]
    assert tokenize("ж" * 33) == []
    assert tokenize("検" * 22) != [] and "検" * 22 not in tokenize("検" * 22)  # CJK runs are n-grams anyway
    assert all(len(t.encode("utf-8")) <= MAX_TOKEN_BYTES for t in tokenize("é" * 40 + " " + "z" * 100))


def test_query_terms_dedupes_in_first_seen_order_and_caps() -> None:
    assert query_terms("beta alpha beta gamma alpha delta", 32) == ["beta", "alpha", "gamma", "delta"]
    assert query_terms("beta alpha beta gamma alpha delta", 2) == ["beta", "alpha"]
    assert query_terms("beta alpha beta gamma alpha delta", 3) == ["beta", "alpha", "gamma"]
    assert query_terms("snake_case snake case", 32) == ["snake_case", "snake", "case"]
    assert query_terms("a . x", 32) == []
    words = [f"word{i}" for i in range(100)]
    assert query_terms(" ".join(words + words), 32) == words[:32]
    assert query_terms(" ".join(words), 1) == ["word0"]


def test_query_terms_are_document_tokens() -> None:
    rng = random.Random(3)
    pieces = ["fooBar", "x_y_z", "src/a.py", "東京", "HTTPServer", "naïve", "v1.2.3", "ab-cd", "Ab", "99"]
    for _ in range(200):
        text = " ".join(rng.choice(pieces) for _ in range(rng.randint(1, 8)))
        tokens = tokenize(text)
        assert query_terms(text, 1000) == list(dict.fromkeys(tokens))


def test_term_frequencies_agree_with_tokenize() -> None:
    """If the index builds postings with a faster counter, it must count as tokenize does."""
    counter = getattr(tok, "term_frequencies", None)
    if counter is None:
        pytest.skip("this version indexes tokenize() output directly")
    rng = random.Random(11)
    pieces = ["fooBar", "x_y_z", "src/a.py", "東京都", "HTTPServer", "a", "the", "the", "v1.2.3", "ab-cd",
              "検索エンジン", "z" * 70, "snake_case_name", "ж" * 40]
    for _ in range(300):
        text = " ".join(rng.choice(pieces) for _ in range(rng.randint(0, 30)))
        tokens = tokenize(text)
        tfs, length = counter(text)
        assert dict(tfs) == dict(Counter(tokens))
        assert length == len(tokens)


def test_tokenize_is_deterministic_and_cache_safe() -> None:
    text = "camelCase snake_case 検索 " * 3
    first = tokenize(text)
    assert tokenize(text) == first
    # the cache must not leak one result into another list
    first.append("mutated")
    assert "mutated" not in tokenize(text)


@pytest.mark.parametrize("limit", ["COMPOUND_LIMIT", "COMPOUND_BYTES_LIMIT"])
def test_batch_vocabulary_encoding_agrees_with_tokenize(monkeypatch: pytest.MonkeyPatch, limit: str) -> None:
    """The index's vectorized batch tokenizer yields exactly tokenize()'s tokens, also after
    its compound cache is reset (by entry count or by key bytes)."""
    vocab_mod = pytest.importorskip("moraine.index.vocab")
    monkeypatch.setattr(vocab_mod, limit, 50)
    vocab = vocab_mod.Vocabulary()
    rng = random.Random(21)
    pieces = ["fooBar", "x_y_z", "src/a.py", "東京都", "HTTPServer", "a", "the", "v1.2.3", "ab-cd", "検索エンジン",
              "z" * 70, "snake_case_name", "ж" * 40, "naïve", "İstanbul", "user@example.com", "", "\n", "..."]
    for _ in range(40):
        texts = [" ".join(rng.choice(pieces) + str(rng.randint(0, 30)) * (rng.random() < 0.3)
                          for _ in range(rng.randint(0, 25))) for _ in range(rng.randint(1, 12))]
        doc_index, term_ids = vocab.encode(texts)
        assert len(doc_index) == len(term_ids)
        for i, text in enumerate(texts):
            got = [vocab.terms[t] for t in term_ids[doc_index == i].tolist()]
            assert got == tokenize(text), text


def test_byte_split_words_give_the_regex_compounds() -> None:
    """The index splits UTF-8 bytes at ASCII delimiters instead of running the compound
    regex: on strings of word characters, every separator, underscores, punctuation, control
    characters and non-ASCII text (letters, CJK, dashes, no-break spaces), an ASCII word
    trimmed as the vocabulary trims it is exactly one regex compound, and the batch tokens
    are exactly tokenize()'s."""
    from moraine.index import vocab as vocab_mod
    from moraine.index.tokenize import _COMPOUND

    rng = random.Random(5)
    ascii_alphabet = "aZ9_" * 4 + "./:@+#-" + " \t\n\r\x0b\x0c\x1c\x1f\x7f\"'()[]{}<>,;!?$%^&*=|\\~`"
    wide_alphabet = ascii_alphabet + "éжİ東京検—…\u00a0\u3000\U0001f600"
    vocab = vocab_mod.Vocabulary()
    for round_ in range(4000):
        alphabet = ascii_alphabet if round_ % 2 else wide_alphabet
        text = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 40)))
        if text.isascii():
            trimmed = [w.decode().lstrip("./:@+#-_").rstrip("./:@+#-") for w in vocab_mod.compounds(text)]
            assert [w for w in trimmed if w] == _COMPOUND.findall(text), repr(text)
        doc_index, term_ids = vocab.encode([text, "x " + text])
        assert [vocab.terms[t] for t in term_ids[doc_index == 0].tolist()] == tokenize(text), repr(text)
