"""Needle retrieval: does a search for a few words of one event find that event in the top 10?
MRR@10 and recall@10 of Moraine's ranking beside tantivy's, on the same texts and queries.

    python tools/bench_needle.py --state S --corpus C [--queries 300] [--seed 7] [--json]

Each needle is a searchable event drawn at random, asked for in two ways:
- `distinctive`: its 2 or 3 rarest words (fewest documents), in the order of its text: what one
  remembers of a particular event (an identifier, a file name, an error code). `unique` is the
  part of these queries that single the needle out (its text is the only one holding every
  term of the query): the needle search whose target is MRR@10 ≥ 0.9 (docs/benchmarks.md,
  Targets). In the rest, other events hold the same words (a generated corpus repeats tool
  outputs and messages with small changes), and which of them a query meant is not in the query.
- `phrase`: 2 to 4 consecutive words of its text, as tools/bench.py draws its latency queries:
  mostly common words that many events share, so a low score says little about ranking.

A query scores 1/rank of the first hit whose text equals the needle's (a generated corpus repeats
some messages word for word: any copy is the needle), 0 past rank 10. Moraine ranks with the
engine the tools use (default event types, k = 10); tantivy indexes the same searchable texts
with its default tokenizer and answers the same words.
"""

from __future__ import annotations

import json
import random
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench import open_state, state_parser, tantivy_words
from moraine.index.tokenize import query_terms, tokenize
from moraine.model import DEFAULT_SEARCH_TYPES, TYPE_CODE
from moraine.store.engine import Store

K = 10
HEAD = 2000  # characters of a needle's text its queries are drawn from


def needles(store: Store, docs: np.ndarray, count: int, rng: random.Random) -> dict[str, list[tuple[str, int]]]:
    """(query, needle doc id) pairs of each kind (see the module's docstring), the same needles."""
    found: dict[str, list[tuple[str, int]]] = {"distinctive": [], "phrase": []}
    while len(found["phrase"]) < count:
        doc = int(rng.choice(docs))
        text = store.read.event_text(doc)
        words = [t for t in tokenize(text[:HEAD]) if t.isascii()]
        if len(text) > HEAD:
            words = words[:-1]  # the head may end inside a word: not one the index holds
        if len(set(words)) < 4:
            continue
        start = rng.randrange(len(words) - 1)
        found["phrase"].append((" ".join(words[start : start + rng.randint(2, 4)]), doc))
        df = {w: store.index.live_parts(w)[1] for w in dict.fromkeys(words)}
        rarest = set(sorted((w for w in df if df[w]), key=df.__getitem__)[: rng.randint(2, 3)])
        distinct = list(df)
        found["distinctive"].append((" ".join(w for w in distinct if w in rarest), doc))
    return found


def reciprocal_rank(ranked: list[str], needle: str) -> float:
    for rank, text in enumerate(ranked[:K], 1):
        if text == needle:
            return 1.0 / rank
    return 0.0


def tantivy_ranker(texts: list[str]) -> Callable[[str], list[int]]:
    """tantivy over `texts` (one text field, its default tokenizer, the text's index stored):
    a query's top K as indices into `texts`."""
    import tantivy

    builder = tantivy.SchemaBuilder()
    builder.add_text_field("body", stored=False)
    builder.add_integer_field("at", stored=True)
    index = tantivy.Index(builder.build())
    writer = index.writer()
    for at, text in enumerate(texts):
        writer.add_document(tantivy.Document(body=text, at=at))
    writer.commit()
    index.reload()
    searcher = index.searcher()

    def ranked(q: str) -> list[int]:
        words = tantivy_words(q)
        if not words:
            return []
        hits = searcher.search(index.parse_query(words, ["body"]), K).hits
        return [int(searcher.doc(address)["at"][0]) for _, address in hits]

    return ranked


def measure(store: Store, count: int, seed: int) -> dict[str, Any]:
    catalog = store.catalog
    default = np.isin(catalog.type_code.view, [TYPE_CODE[t] for t in DEFAULT_SEARCH_TYPES])
    docs = np.flatnonzero(default & store.index.live.view)
    kinds = needles(store, docs, count, random.Random(seed))
    types = list(DEFAULT_SEARCH_TYPES)
    limit = store.config.bm25.max_query_terms
    texts = [store.read.event_text(int(d)) for d in docs]
    tantivy = tantivy_ranker(texts)
    report: dict[str, Any] = {"queries": count, "seed": seed, "searchable": len(docs)}
    searchable = np.zeros(len(catalog.type_code.view), dtype=bool)
    searchable[docs] = True
    kinds["unique"] = [(q, d) for q, d in kinds["distinctive"] if _singles_out(store, query_terms(q, limit), d,
                                                                               searchable)]
    for kind, pairs in kinds.items():
        moraine, tantivy_rr = [], []
        for query, needle in pairs:
            hits = store.search(query_terms(query, limit), K, types, None, None, exact_total=False)
            target = store.read.event_text(needle)
            moraine.append(reciprocal_rank([store.read.event_text(int(d)) for d in hits.docs], target))
            tantivy_rr.append(reciprocal_rank([texts[at] for at in tantivy(query)], target))
        report[kind] = {engine: {"mrr_at_10": float(np.mean(rr)), "recall_at_10": float(np.mean(np.array(rr) > 0))}
                        for engine, rr in (("moraine", moraine), ("tantivy", tantivy_rr))}
        report[kind]["queries"] = len(pairs)
        report[kind]["examples"] = [query for query, _ in pairs[:5]]
    return report


def _singles_out(store: Store, terms: list[str], needle: int, searchable: np.ndarray) -> bool:
    """Whether the needle's text is the only one among the searchable events holding every term:
    each searchable event holding the query's rarest term, tokenized, holds them all only if its
    text is the needle's."""
    rarest = min(terms, key=lambda t: store.index.live_parts(t)[1])
    holders = store.index.postings(rarest)[0]
    target, wanted = store.read.event_text(needle), set(terms)
    for doc in holders[searchable[holders]].tolist():
        text = store.read.event_text(doc)
        if text != target and wanted <= set(tokenize(text)):
            return False
    return True


def main() -> None:
    parser = state_parser(__doc__)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    report = measure(open_state(args), args.queries, args.seed)
    if args.json:
        print(json.dumps(report, indent=1))
        return
    print(f"{report['queries']} needles among {report['searchable']:,} searchable events")
    for kind in ("unique", "distinctive", "phrase"):
        m, t = report[kind]["moraine"], report[kind]["tantivy"]
        print(f"  {kind:11s} ({report[kind]['queries']} queries) Moraine MRR@10 {m['mrr_at_10']:.3f} (recall@10 "
              f"{m['recall_at_10']:.3f}), tantivy {t['mrr_at_10']:.3f} ({t['recall_at_10']:.3f}); "
              f"e.g. {report[kind]['examples'][:2]}")


if __name__ == "__main__":
    main()
