"""Arrows only point down: every import inside `moraine` goes from a layer to one below it.

The layers, bottom up (a package or a root module is one unit; units of one layer may not
import each other, so no two units can form a circle):

0. the shared vocabulary: `errors`, `model`, `durable` (fsync), `wire` (JSON-RPC framing),
   `pool` (worker processes), `collector` (the GC's policy), `harnesses` (the list of harnesses), `config`
1. `redaction` (the rules and the gate) and `index` (postings, BM25, grep)
2. `sources` (one adapter per harness), `querylog`
3. `store` (WAL, segments, catalog, the read facade)
4. `ingest` (reads logs through the adapters into the store)
5. `mcp_server` (the tools)
6. `daemon`, `setup`
7. `cli_args` (the parser), `cli_state` (the state commands), `cli_status`
8. `cli_query` (the reading commands: they answer from `cli_state`'s caught-up state)
9. `cli` (which imports a command's module by name when it runs)

A new unit fails this test until it is given a layer here: where it sits is a decision."""

from __future__ import annotations

import ast
from pathlib import Path

SRC = Path(__file__).resolve().parents[2] / "src" / "moraine"

LAYERS: dict[str, int] = {
    "errors": 0, "model": 0, "durable": 0, "wire": 0, "pool": 0, "collector": 0, "harnesses": 0, "config": 0,
    "redaction": 1, "index": 1,
    "sources": 2, "querylog": 2,
    "store": 3,
    "ingest": 4,
    "mcp_server": 5,
    "daemon": 6, "setup": 6,
    "cli_args": 7, "cli_state": 7, "cli_status": 7,
    "cli_query": 8,
    "cli": 9,
}
# Within layer 0, `config` reads `errors` (its error type) and `harnesses` (the allowed names, the
# default roots): the sanctioned edges inside a layer.
WITHIN_LAYER = {("config", "errors"), ("config", "harnesses")}


def _unit(path: Path) -> str:
    rel = path.relative_to(SRC)
    return rel.parts[0] if len(rel.parts) > 1 else rel.stem


def _package(path: Path) -> list[str]:
    rel = path.relative_to(SRC).with_suffix("")
    parts = ["moraine", *rel.parts]
    return parts if path.name == "__init__.py" else parts[:-1]


def _imported(path: Path, units: set[str]) -> set[str]:
    """The `moraine` units a module imports (absolute or relative, at any depth of the file)."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        names: list[str] = []
        if isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                package = _package(path)
                base = ".".join(package[: len(package) - node.level + 1] + ([base] if base else []))
            names = [base] if node.module else [f"{base}.{alias.name}" for alias in node.names]
            if base == "moraine":
                names = [f"moraine.{alias.name}" for alias in node.names]
        elif isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        for name in names:
            parts = name.split(".")
            if parts[0] == "moraine" and len(parts) > 1 and parts[1] in units:
                found.add(parts[1])
    return found


def _all_units() -> set[str]:
    return {_unit(path) for path in SRC.rglob("*.py") if path.name != "__init__.py" or path.parent != SRC}


def _edges() -> dict[tuple[str, str], list[str]]:
    edges: dict[tuple[str, str], list[str]] = {}
    units = _all_units()
    for path in sorted(SRC.rglob("*.py")):
        if path.parent == SRC and path.name == "__init__.py":
            continue
        source = _unit(path)
        for target in _imported(path, units) - {source}:
            edges.setdefault((source, target), []).append(str(path.relative_to(SRC)))
    return edges


def test_every_unit_has_a_layer() -> None:
    assert _all_units() - LAYERS.keys() == set(), "give the new unit a layer in LAYERS"
    assert LAYERS.keys() - _all_units() == set(), "a unit in LAYERS no longer exists"


def test_imports_only_point_down() -> None:
    upward = [f"{source} (layer {LAYERS[source]}) imports {target} (layer {LAYERS[target]}) in {', '.join(files)}"
              for (source, target), files in sorted(_edges().items())
              if LAYERS[target] >= LAYERS[source] and (source, target) not in WITHIN_LAYER]
    assert upward == []


def test_the_walk_sees_the_imports() -> None:
    """The check is not vacuous: the edges it reads include ones known to exist."""
    edges = _edges()
    assert ("store", "index") in edges and ("sources", "redaction") in edges and ("cli", "daemon") in edges
    assert len(edges) >= 40


MAX_LINES = 500  # a module past this is doing more than one job: split it by job, not by line count


def test_no_module_is_over_500_lines() -> None:
    long = {str(path.relative_to(SRC)): n for path in SRC.rglob("*.py")
            if (n := len(path.read_text().splitlines())) > MAX_LINES}
    assert not long, long
