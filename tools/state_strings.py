"""Every string a Moraine state directory holds, decoded: what a raw grep of the bytes cannot see.

    python tools/state_strings.py STATE_DIR                 # a summary: strings per file kind
    python tools/state_strings.py STATE_DIR --grep TEXT ... # where each TEXT is stored (case-insensitive too)
    python tools/state_strings.py STATE_DIR --dump          # every string, one JSON line each

Decoded per file (the formats are documented in src/moraine/store/*.py and src/moraine/index/*.py):
    content/*.zst        zstd frames (offsets in the .zoff.npy, the chunk's .dict as dictionary)
                         of msgpack rows
    content/*.bin        msgpack rows (older chunks)
    *.txt, *.json, *.toml, *.jsonl, CURRENT, run/*.log, ...   text (JSON also walked)
    *.msgpack            msgpack (checkpoints, a generation's meta)
    *.npy                arrays: byte/str arrays as strings; a uint8 array as msgpack (records,
                         file names) or text; a segment's term_bytes split at term_ends into the
                         index's terms (lowercased by the tokenizer: kind "term")
    wal/*.log            the WAL: a 16-byte header, then [uint32 len, uint32 crc, msgpack] frames
Inside msgpack and JSON every string is yielded, keys included; a bytes value is opened again
(zstd, msgpack, UTF-8). Every file's raw bytes are also yielded as text (kind "raw"), so a
format this tool does not know is still grepped.
"""

from __future__ import annotations

import argparse
import io
import itertools
import json
import struct
import sys
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any, NamedTuple

import msgpack
import numpy as np
import zstandard

ZSTD_MAGIC = b"\x28\xb5\x2f\xfd"
WAL_MAGIC = b"MORAINEW"
TEXT_SUFFIXES = {".txt", ".json", ".toml", ".jsonl", ".md", ".log", ".lock", ".pid", ".csv"}
MAX_DEPTH = 64


class Found(NamedTuple):
    file: str  # relative to the state directory
    kind: str  # "text", "term" (lowercased index term) or "raw" (bytes read as text)
    text: str


def _text(raw: bytes) -> str:
    return raw.decode("utf-8", "replace")


def _walk(node: Any, depth: int = 0) -> Iterator[str]:
    if depth > MAX_DEPTH:
        return
    if isinstance(node, str):
        yield node
    elif isinstance(node, bytes | bytearray | memoryview):
        yield from _open_bytes(bytes(node), depth + 1)
    elif isinstance(node, dict):
        for key, value in node.items():
            yield from _walk(key, depth + 1)
            yield from _walk(value, depth + 1)
    elif isinstance(node, list | tuple):
        for item in node:
            yield from _walk(item, depth + 1)
    elif isinstance(node, msgpack.ExtType):
        yield from _open_bytes(node.data, depth + 1)


def _msgpack_all(raw: bytes) -> list[Any] | None:
    """Every object of a msgpack stream, or None when the bytes are not one."""
    unpacker = msgpack.Unpacker(io.BytesIO(raw), raw=False, strict_map_key=False, unicode_errors="surrogateescape",
                                max_buffer_size=max(len(raw), 1 << 20))
    out: list[Any] = []
    try:
        for obj in unpacker:
            out.append(obj)
    except Exception:
        return None
    return out


def _zstd_frames(raw: bytes, dict_data: bytes | None = None) -> bytes | None:
    try:
        params = {"dict_data": zstandard.ZstdCompressionDict(dict_data)} if dict_data else {}
        dctx = zstandard.ZstdDecompressor(**params)
        out = bytearray()
        reader = dctx.stream_reader(io.BytesIO(raw), read_across_frames=True)
        while chunk := reader.read(1 << 20):
            out += chunk
        return bytes(out)
    except zstandard.ZstdError:
        return None


def _open_bytes(raw: bytes, depth: int = 0) -> Iterator[str]:
    if not raw or depth > MAX_DEPTH:
        return
    if raw.startswith(ZSTD_MAGIC):
        plain = _zstd_frames(raw)
        if plain is not None:
            yield from _open_bytes(plain, depth + 1)
            return
    objs = _msgpack_all(raw) if len(raw) > 1 else None
    if objs and not (len(objs) == 1 and isinstance(objs[0], int | float | bool | None)):
        for obj in objs:
            yield from _walk(obj, depth + 1)
        return
    yield _text(raw)


def _npy(path: Path) -> Iterator[tuple[str, str]]:
    try:
        array = np.load(path, allow_pickle=False, mmap_mode="r")
    except Exception:
        return
    if array.dtype.kind in "SU":
        for item in np.asarray(array).ravel():
            yield "text", item.decode("utf-8", "replace") if isinstance(item, bytes) else str(item)
    elif array.dtype == np.uint8 and path.name == "term_bytes.npy":
        ends_path = path.with_name("term_ends.npy")
        data = bytes(np.asarray(array))
        if ends_path.exists():
            ends = np.load(ends_path, allow_pickle=False)
            start = 0
            for end in ends.tolist():
                yield "term", _text(data[start:end])
                start = end
        else:
            yield "term", _text(data)
    elif array.dtype == np.uint8 and array.ndim == 1:
        for text in _open_bytes(bytes(np.asarray(array))):
            yield "text", text


def _content_zst(path: Path) -> Iterator[str]:
    stem = path.name[: -len(".zst")]
    dict_path = path.with_name(stem + ".dict")
    dict_data = dict_path.read_bytes() if dict_path.exists() else b""
    raw = path.read_bytes()
    offsets_path = path.with_name(stem + ".zoff.npy")
    frames: list[bytes]
    if offsets_path.exists():
        offsets = np.load(offsets_path, allow_pickle=False).tolist()
        frames = [raw[a:b] for a, b in itertools.pairwise(offsets)]
    else:
        frames = [raw]
    params = {"dict_data": zstandard.ZstdCompressionDict(dict_data)} if dict_data else {}
    dctx = zstandard.ZstdDecompressor(**params)
    for frame in frames:
        try:
            plain = dctx.decompressobj().decompress(frame)
        except zstandard.ZstdError:
            plain = _zstd_frames(frame, dict_data) or b""
        yield from _open_bytes(plain)


def _wal(path: Path) -> Iterator[str]:
    raw = path.read_bytes()
    pos = 16 if raw.startswith(WAL_MAGIC) else 0
    while pos + 8 <= len(raw):
        length, _crc = struct.unpack_from("<II", raw, pos)
        payload = raw[pos + 8 : pos + 8 + length]
        if len(payload) < length:
            yield _text(raw[pos:])  # a torn tail: grep it as it is
            return
        yield from _open_bytes(payload)
        pos += 8 + length


def _json_or_text(raw: bytes) -> Iterator[str]:
    text = _text(raw)
    yield text
    try:
        doc = json.loads(text)
    except ValueError:
        for line in text.splitlines():  # JSON lines
            try:
                yield from _walk(json.loads(line))
            except ValueError:
                continue
        return
    yield from _walk(doc)


def decode_file(path: Path, root: Path) -> Iterator[Found]:
    rel = str(path.relative_to(root))
    name = path.name
    try:
        raw = path.read_bytes()
    except OSError as exc:
        yield Found(rel, "error", f"unreadable: {exc}")
        return
    yield Found(rel, "raw", _text(raw))
    try:
        if name.endswith(".zst"):
            for text in _content_zst(path):
                yield Found(rel, "text", text)
        elif name.endswith(".npy"):
            for kind, text in _npy(path):
                yield Found(rel, kind, text)
        elif path.parent.name == "wal" and ".log" in name:
            for text in _wal(path):
                yield Found(rel, "text", text)
        elif name.endswith((".msgpack", ".bin")):
            for text in _open_bytes(raw):
                yield Found(rel, "text", text)
        elif path.suffix in TEXT_SUFFIXES or name == "CURRENT" or "." not in name:
            for text in _json_or_text(raw):
                yield Found(rel, "text", text)
        else:
            for text in _open_bytes(raw):
                yield Found(rel, "text", text)
    except Exception as exc:  # a file this tool cannot decode is reported, not skipped silently
        yield Found(rel, "error", f"decode failed: {type(exc).__name__}: {exc}")


def state_strings(root: Path) -> Iterator[Found]:
    """Every string of every file under `root` (sockets and other non-files skipped)."""
    root = Path(root)
    for path in sorted(root.rglob("*")):
        if path.is_file() and not path.is_symlink():
            yield from decode_file(path, root)


def grep(root: Path, needles: list[str]) -> dict[str, list[tuple[str, str]]]:
    """{needle: [(file, kind)]} where each needle is stored (terms compared lowercased)."""
    hits: dict[str, list[tuple[str, str]]] = {n: [] for n in needles}
    for found in state_strings(root):
        hay = found.text.lower() if found.kind == "term" else found.text
        for needle in needles:
            probe = needle.lower() if found.kind == "term" else needle
            if probe in hay and (found.file, found.kind) not in hits[needle]:
                hits[needle].append((found.file, found.kind))
    return hits


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("state", type=Path)
    parser.add_argument("--grep", nargs="+", metavar="TEXT")
    parser.add_argument("--dump", action="store_true")
    args = parser.parse_args(argv)
    if not args.state.is_dir():
        parser.error(f"{args.state} is not a directory")
    if args.grep:
        hits = grep(args.state, args.grep)
        for needle, where in hits.items():
            print(f"{needle!r}: " + (", ".join(f"{f} ({k})" for f, k in where) or "not stored"))
        return 1 if any(hits.values()) else 0
    if args.dump:
        for found in state_strings(args.state):
            print(json.dumps(found._asdict(), ensure_ascii=False))
        return 0
    per: Counter[tuple[str, str]] = Counter()
    chars: Counter[tuple[str, str]] = Counter()
    errors = []
    for found in state_strings(args.state):
        suffix = "".join(Path(found.file).suffixes[-2:]) or Path(found.file).name
        per[(suffix, found.kind)] += 1
        chars[(suffix, found.kind)] += len(found.text)
        if found.kind == "error":
            errors.append(f"{found.file}: {found.text}")
    for (suffix, kind), n in sorted(per.items()):
        print(f"{suffix:<24} {kind:<6} {n:>9} strings {chars[(suffix, kind)]:>12} chars")
    for line in errors:
        print("error:", line, file=sys.stderr)
    return 2 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
