"""Inverted index: tokenizer, BM25 scoring, memtable + immutable numpy segments."""
