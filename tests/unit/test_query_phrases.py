"""Phrases and exclusions in `store.query.find`, against a brute-force scan of a seeded corpus
(~20k events of plain words, code identifiers in every spelling, paths and CJK): every hit
holds each phrase (its words adjacent and in order, `tokenize.words`) and no excluded word or
phrase; when the matches fit the limit, the hits are exactly them; `more` says whether more
exist. The phrases are cut from the corpus's own texts, so most occur; some are shuffled so
that their words occur but not adjacent."""

from __future__ import annotations

import random
from pathlib import Path

import numpy as np
import pytest
from _agentlogs import LogWriter, populate

from moraine.index.tokenize import tokenize, words
from moraine.ingest.pipeline import ingest_once
from moraine.model import DEFAULT_SEARCH_TYPES, TYPE_CODE
from moraine.store.engine import Store
from moraine.store.query import Query, find

LIMIT = 50
pytestmark = pytest.mark.slow  # a brute-force scan of 20k texts per phrase


class Corpus:
    def __init__(self, store: Store) -> None:
        self.store = store
        catalog = store.catalog
        codes = np.array([TYPE_CODE[t] for t in DEFAULT_SEARCH_TYPES])
        docs = np.flatnonzero(np.isin(catalog.type_code.view, codes) & store.index.live.view)
        self.texts = {int(d): store.read.event_text(int(d)) for d in docs}
        self.texts = {d: t for d, t in self.texts.items() if tokenize(t)}  # what the index holds
        self.joined = {d: "\x1f" + "\x1f".join(words(t)) + "\x1f" for d, t in self.texts.items()}
        self.tokens = {d: set(tokenize(t)) for d, t in self.texts.items()}

    def holding(self, sequence: list[str]) -> set[int]:
        needle = "\x1f" + "\x1f".join(sequence) + "\x1f"
        return {d for d, text in self.joined.items() if needle in text}


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> Corpus:
    base: Path = tmp_path_factory.mktemp("phrases")
    writer = LogWriter(base / "logs", seed=31)
    populate(writer, n_codex=150, n_claude=150, records_per_file=(80, 170))
    store = Store(writer.config(base / "state"))
    ingest_once(store)
    corpus = Corpus(store)
    assert len(corpus.texts) > 15000, len(corpus.texts)
    return corpus


def _phrases(corpus: Corpus, rng: random.Random, count: int) -> list[list[str]]:
    docs = sorted(corpus.texts)
    out = []
    while len(out) < count:
        sequence = words(corpus.texts[rng.choice(docs)])
        if len(sequence) < 3:
            continue
        size = rng.randint(2, min(4, len(sequence)))
        start = rng.randrange(len(sequence) - size + 1)
        phrase = sequence[start : start + size]
        if rng.random() < 0.2:
            rng.shuffle(phrase)
        if sum(1 for w in phrase if len(w) >= 2 or not w.isascii()) >= 1:
            out.append(phrase)
    return out


def test_every_hit_holds_the_phrase_and_the_hits_are_all_of_them(corpus: Corpus) -> None:
    rng = random.Random(7)
    compared = exact_sets = cjk = code = 0
    for phrase in _phrases(corpus, rng, 500):
        text = " ".join(phrase)
        expected = corpus.holding(phrase)
        found = find(corpus.store, Query(f'"{text}"', limit=LIMIT))
        got = [h.doc for h in found.hits]
        assert set(got) <= expected, (text, set(got) - expected)
        assert len(got) == len(set(got))
        if found.checked_only is None:
            assert found.more == (len(expected) > LIMIT), (text, len(expected))
            assert len(got) == min(len(expected), LIMIT), (text, len(got), len(expected))
            exact_sets += len(expected) <= LIMIT
        compared += 1
        cjk += any(not w.isascii() for w in phrase)
        code += any(any(c.isdigit() for c in w) for w in phrase)
    assert compared == 500 and exact_sets > 100 and cjk > 20 and code > 10, (exact_sets, cjk, code)


def test_exclusions_leave_out_every_document_holding_them(corpus: Corpus) -> None:
    rng = random.Random(8)
    vocabulary = sorted({w for t in list(corpus.texts.values())[:3000] for w in tokenize(t) if words(w) == [w]})
    for _ in range(150):
        wanted, unwanted = rng.sample(vocabulary, 2)
        found = find(corpus.store, Query(f"{wanted} -{unwanted}", limit=LIMIT))
        for hit in found.hits:
            assert wanted in corpus.tokens[hit.doc] and unwanted not in corpus.tokens[hit.doc], (wanted, unwanted)
        holding = {d for d, tokens in corpus.tokens.items() if wanted in tokens and unwanted not in tokens}
        assert len(found.hits) == min(len(holding), LIMIT) and found.more == (len(holding) > LIMIT)


def test_an_excluded_phrase_and_a_phrase_with_words(corpus: Corpus) -> None:
    rng = random.Random(9)
    for phrase in _phrases(corpus, rng, 100):
        text = " ".join(phrase)
        found = find(corpus.store, Query(f'{phrase[0]} -"{text}"', limit=LIMIT))
        holding = corpus.holding(phrase)
        assert not {h.doc for h in found.hits} & holding, text
        other = rng.choice(sorted(corpus.texts))
        extra = tokenize(corpus.texts[other])[0]
        both = find(corpus.store, Query(f'"{text}" {extra}', limit=LIMIT))
        assert {h.doc for h in both.hits} <= corpus.holding(phrase)
