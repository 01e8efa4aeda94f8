"""The seed corpus: valid inputs of every target, from recorded traffic, the cases and the
strategies codegen renders from the schemas.

* documents: ``tests/data/lingua`` (the vendor formats), ``tests/data/sparktide-docs``,
  ``examples/``, the inputs of ``tests/data/cases``; with ``shared=True`` also
  ``../shared/corpus`` (lingua, sparktide-derived) and ``../shared/cases``, as the fuzz session
  reads them (the test suite does not need ../shared: tests/data holds copies);
* every definition of every schema: ``per_definition`` documents drawn from
  ``lucent.generated.<module>_strategies`` (reproducibly);
* the Lux documents the recorded ones convert to (:func:`tests.fuzz.sidecars.lux_documents`),
  whose side-cars the Lux -> X conversions read back;
* streams: ``stream.sse``, the SSE and event inputs of the cases, the Responses streams of
  :func:`tests.fuzz.stream_shapes.responses_seeds` (every output item type and event kind that
  names an index; items and parts at arbitrary indexes, events naming the wrong item kind), and
  each of those converted to every other stream format with ``lucent.streams.convert_stream``.
"""

from __future__ import annotations

import importlib
import json
import random
from collections import defaultdict
from collections.abc import Iterator
from functools import cache
from pathlib import Path
from typing import Any

import msgspec

import lucent
from lucent._context import read_by
from lucent import streams
from lucent.errors import LucentError
from lucent.generated.convert_registry import DOCUMENTS
from tests.conformance.generate import close_tool_arguments, draw
from tests.conformance.paths import REPO, shared_dir
from tests.vendor_corpus import documents as lingua_documents

from .stream_shapes import responses_seeds
from .sidecars import lux_documents
from .targets import Target, targets

__all__ = ["documents", "seeds", "stream_seeds"]

DATA = REPO / "tests" / "data"


def _json(value: Any) -> bytes:
    return json.dumps(value, ensure_ascii=False).encode("utf-8")


def _case_files(shared: bool) -> list[Path]:
    folders = [DATA / "cases"] + ([shared_dir() / "cases"] if shared else [])
    return [path for folder in folders if folder.is_dir() for path in sorted(folder.glob("*.json"))]


def documents(shared: bool = False) -> Iterator[tuple[str, str | None, bytes]]:
    """(schema, definition, JSON bytes) of every recorded document: definition None is the root."""
    folders = [DATA / "lingua" / "snapshots"]
    if shared:
        folders.append(shared_dir() / "corpus" / "lingua" / "snapshots")
    for folder in folders:
        if folder.is_dir():
            for doc in lingua_documents(folder):
                yield doc.schema, doc.definition, _json(doc.value)
    sparktide = "sparktide-remote-1.0"
    docs = DATA / "sparktide-docs"
    yield sparktide, "RemoteModelRequest", (docs / "request.json").read_bytes()
    yield sparktide, "RemoteModelFailure", (docs / "failure.json").read_bytes()
    yield sparktide, "RemoteModelStreamFrame", (docs / "error-frame.json").read_bytes()
    yield sparktide, "RemoteModelRequest", (REPO / "examples" / "sparktide-request.json").read_bytes()
    derived = shared_dir() / "corpus" / "sparktide-derived" / "requests"
    if shared and derived.is_dir():
        for path in sorted(derived.glob("*--*.json")):
            yield sparktide, "RemoteModelRequest", path.read_bytes()
    for path in _case_files(shared):
        case = json.loads(path.read_text(encoding="utf-8"))
        operation = case.get("operation")
        if operation in ("convert", "round_trip") and (case["source"], case["kind"]) in DOCUMENTS:
            schema, definition = DOCUMENTS[(case["source"], case["kind"])]
            yield schema, definition, _json(case["input"])
        elif operation == "decode":
            text = case.get("input_text")
            yield case["schema"], case.get("definition"), text.encode("utf-8", "surrogatepass") if text else _json(case.get("input"))


def _sse(events: list[Any]) -> bytes:
    return b"".join(b"data: " + msgspec.json.encode(event) + b"\n\n" for event in events)


def stream_seeds(shared: bool = False) -> dict[str, list[bytes]]:
    """Stream format -> SSE streams of that format (valid and a few the cases say are not)."""
    found: dict[str, list[bytes]] = defaultdict(list)
    found["sparktide"].append((DATA / "sparktide-docs" / "stream.sse").read_bytes())
    for path in _case_files(shared):
        case = json.loads(path.read_text(encoding="utf-8"))
        fmt = case.get("format") or case.get("source")
        if fmt not in streams.FORMATS:
            continue
        if "input_sse" in case:
            found[fmt].append(case["input_sse"].encode("utf-8"))
        for key in ("input_events", "input_partials"):
            if key in case:
                found[fmt].append(_sse(case[key]))
    found["openai-responses"].extend(responses_seeds())  # every item type and index shape (issue 14)
    for source in list(found):
        for stream in list(found[source]):
            for target in streams.FORMATS:
                if target == source:
                    continue
                try:
                    found[target].append(_sse(list(streams.convert_stream(stream, source, target, context=read_by({"id": "r", "model": "m"}, source, target, "stream")))))
                except LucentError:
                    continue
    return {fmt: list(dict.fromkeys(items)) for fmt, items in found.items()}


@cache
def _drawn(schema: str, definition: str | None, count: int) -> tuple[bytes, ...]:
    """``count`` documents of a definition drawn from its generated strategies module."""
    module = importlib.import_module(f"lucent.generated.{lucent.SCHEMAS[schema]}_strategies")
    strategy = module.STRATEGIES.get(definition) if definition is not None else None
    if strategy is None:  # the root, or a definition whose root is the document (htmlp)
        if definition is not None and getattr(importlib.import_module(f"lucent.generated.{lucent.SCHEMAS[schema]}"), "ROOT", None) is None:
            return ()
        strategy = module.root()
    rng = random.Random(0)
    try:
        values = draw(strategy, count)
    except Exception:  # noqa: BLE001 - a strategy the vendor schemas leave unsupported
        return ()
    if schema == "sparktide-remote-1.0":
        values = [close_tool_arguments(v, rng) for v in values]
    return tuple(_json(v) for v in values)


def seeds(per_definition: int = 1, shared: bool = False, per_target: int | None = None, families: frozenset[str] | None = None) -> dict[str, list[bytes]]:
    """Target name -> its seed inputs (without the target prefix); at most ``per_target`` of
    each, spread over their sizes, when given; only the targets of ``families`` when given."""
    by_definition: dict[tuple[str, str | None], list[bytes]] = defaultdict(list)
    recorded = list(documents(shared))
    for schema, definition, data in recorded:
        by_definition[(schema, definition)].append(data)
        by_definition[(schema, None)].append(data)  # a root takes every document of its schema
    # the Lux documents the conversions to Lux write: their side-cars (extra / provider_payload)
    # are what the Lux -> X converters read back, so the mutations reach every side-car entry
    for kind, doc in lux_documents(recorded):
        lux_schema, lux_definition = DOCUMENTS[("lux", kind)]
        by_definition[(lux_schema, lux_definition)].append(json.dumps(doc).encode())  # ASCII: a lone surrogate stays an escape
    stream = stream_seeds(shared)
    found: dict[str, list[bytes]] = {}
    for target in targets():
        if families is not None and target.family not in families:
            continue
        items = _target_seeds(target, by_definition, stream, per_definition)
        if per_target is not None and len(items) > per_target:
            by_size = sorted(items, key=len)
            items = [by_size[i * len(by_size) // per_target] for i in range(per_target)]
        found[target.name] = items
    return found


def _target_seeds(target: Target, by_definition: dict[tuple[str, str | None], list[bytes]], stream: dict[str, list[bytes]], count: int) -> list[bytes]:
    if target.stream is not None:
        items = stream.get(target.stream, [])
        if target.name.endswith(":split") or target.family == "sse" and target.name.endswith("split"):
            return [bytes([len(s) // 2 % 256]) + s for s in items]  # the first byte picks the cut
        return list(items)
    assert target.schema is not None
    items = list(by_definition.get((target.schema, target.definition), []))
    if count:
        items.extend(_drawn(target.schema, target.definition, count))
    return list(dict.fromkeys(items))
