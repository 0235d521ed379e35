"""Fixtures of the contract suite; the harness itself lives in `contract_harness`."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from contract_harness import Corpus, McpServer, build_corpus


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> Corpus:
    return build_corpus(tmp_path_factory.mktemp("corpus"))


@pytest.fixture(scope="module")
def server(corpus: Corpus) -> Iterator[McpServer]:
    srv = McpServer(corpus)
    try:
        yield srv
    finally:
        srv.close()


@pytest.fixture(scope="module")
def sids(server: McpServer) -> dict[str, str]:
    ids = server.session_ids()
    assert set(ids) == set(server.corpus.sessions), f"corpus sessions not all listed: {ids}"
    return ids
