"""Fixtures of the contract suite; the harness itself lives in `contract_harness`.

The read-only modules share one corpus and one `moraine mcp` server for the whole session (server
start-up dominates the suite's runtime). Modules that change the logs or restart servers
(`test_contract_catch_up`, `test_contract_stability`) override `corpus`/`server`/`sids` with
module-scoped fixtures of their own (see `own_corpus` / `own_server` below).
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from contract_harness import Corpus, McpServer, build_corpus


def _server(corpus: Corpus) -> Iterator[McpServer]:
    srv = McpServer(corpus)
    try:
        yield srv
    finally:
        srv.close()


def _sids(server: McpServer) -> dict[str, str]:
    ids = server.session_ids()
    assert set(ids) == set(server.corpus.sessions), f"corpus sessions not all listed: {ids}"
    return ids


@pytest.fixture(scope="session")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> Corpus:
    return build_corpus(tmp_path_factory.mktemp("corpus"))


@pytest.fixture(scope="session")
def server(corpus: Corpus) -> Iterator[McpServer]:
    yield from _server(corpus)


@pytest.fixture(scope="session")
def sids(server: McpServer) -> dict[str, str]:
    return _sids(server)


# Module-private variants, for modules that mutate their corpus or run their own servers.


@pytest.fixture(scope="module")
def own_corpus(tmp_path_factory: pytest.TempPathFactory) -> Corpus:
    return build_corpus(tmp_path_factory.mktemp("own-corpus"))


@pytest.fixture(scope="module")
def own_server(own_corpus: Corpus) -> Iterator[McpServer]:
    yield from _server(own_corpus)


@pytest.fixture(scope="module")
def own_sids(own_server: McpServer) -> dict[str, str]:
    return _sids(own_server)
