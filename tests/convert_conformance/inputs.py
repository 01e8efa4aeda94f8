"""The inputs of one source kind: the corpus documents of that kind and generated documents.

Corpus (``tests.conformance.paths.shared_dir()``/corpus and the repository's own data):

* ``sparktide-docs/request.json`` and ``failure.json``, the ``sparktide-derived/requests`` the
  schema accepts, and the reply ``sparktide-docs/stream.sse`` assembles to;
* the Lux schema's own examples;
* the documents of tests/data/cases in a seed format: the inputs of the ``convert``,
  ``round_trip`` and ``decode`` cases that the schema accepts, and the final responses of the
  ``assemble`` cases whose stream is valid.

Generated: drawn from the strategies codegen renders from the source schema
(``tests.conformance.generate``); SparkTide tool-call ``arguments`` are made closed JSON objects,
as the protocol requires. Equal documents are converted once and counted as often as drawn.
"""

from __future__ import annotations

import json
import random
from collections import Counter
from dataclasses import dataclass
from functools import cache
from itertools import cycle, islice
from typing import Any

import lucent
from lucent import streams
from lucent.errors import LucentError
from tests.conformance import corpus
from tests.conformance.generate import close_tool_arguments, draw, named_seed, strategy
from tests.conformance.paths import REPO, shared_dir

from .pairs import Side
from .validity import Validity

__all__ = ["Input", "corpus_inputs", "generated_inputs", "inputs"]

CASES = REPO / "tests" / "data" / "cases"


@dataclass(frozen=True)
class Input:
    """One distinct source document.

    Attributes
    ----------
    origin : str
        ``corpus`` or ``generated``.
    name : str
        Where it comes from (a corpus path, or ``generated #i`` with the index of its first draw).
    doc : Any
        The JSON value.
    weight : int
        How many inputs it stands for (a strategy with few distinct values draws repeats).
    """

    origin: str
    name: str
    doc: Any
    weight: int = 1


def _canonical(doc: Any) -> str:
    return json.dumps(doc, sort_keys=True, ensure_ascii=False)


def _case_documents(side: Side) -> list[tuple[str, Any]]:
    """(name, document) of every case document that is a ``side`` document."""
    out: list[tuple[str, Any]] = []
    for path in sorted(CASES.glob("*.json")):
        case = json.loads(path.read_text(encoding="utf-8"))
        name = f"tests/data/cases/{path.name}"
        operation = case.get("operation")
        if operation in ("convert", "round_trip") and case.get("source") == side.format and case.get("kind") == side.kind:
            out.append((name, case["input"]))
        elif operation == "decode" and (case.get("schema"), case.get("definition")) == (side.schema, side.definition):
            value = case.get("input")
            if isinstance(value, str):
                try:
                    value = json.loads(value)
                except ValueError:
                    continue
            if value is not None:
                out.append((name, value))
        elif operation in ("assemble", "assemble_then_convert") and case.get("format") == side.format and side.kind == "response":
            source: Any = None
            if "input_sse" in case:
                source = case["input_sse"].encode()
            elif "input_events" in case or "input_partials" in case:
                source = case.get("input_events", case.get("input_partials"))
            try:
                out.append((f"{name} (assembled)", json.loads(lucent.encode(streams.assemble(source, side.format)))))
            except LucentError:
                continue  # a stream the case expects to be refused
    return out


def _accepted(side: Side, doc: Any, validity: Validity) -> bool:
    """Whether the schema accepts ``doc``: the oracle, and lucent's decoder (which refuses, as
    the JSON text lucent reads, what the listed decode departures name, e.g. lone surrogates)."""
    if validity.error(side, doc) is not None:
        return False
    try:
        lucent.decode(json.dumps(doc), side.schema, side.root, rules="schema")
    except LucentError:
        return False
    return True


def corpus_inputs(side: Side, validity: Validity) -> list[Input]:
    """The corpus documents of ``side`` that its schema accepts."""
    found: list[tuple[str, Any]] = []
    for document in corpus.documents():
        if (document.schema, document.definition) == (side.schema, side.definition):
            found.append((document.name, json.loads(document.data)))
    sse = shared_dir() / "corpus" / "sparktide-docs" / "stream.sse"
    if side.format == "sparktide" and side.kind == "response" and sse.exists():
        try:
            found.append(("sparktide-docs/stream.sse (assembled)", json.loads(lucent.encode(streams.assemble(sse.read_bytes(), "sparktide")))))
        except LucentError:
            pass
    found.extend(_case_documents(side))
    out: list[Input] = []
    seen: set[str] = set()
    for name, doc in found:
        key = _canonical(doc)
        if key not in seen and _accepted(side, doc, validity):
            seen.add(key)
            out.append(Input("corpus", name, doc))
    return out


@cache
def _drawn(schema: str, root: str | None, count: int, seed: int) -> tuple[str, ...]:
    values = draw(strategy(schema, root), count, named_seed(seed, schema, root or "<root>"))
    if schema == "sparktide-remote-1.0":
        rng = random.Random(f"{seed}:{schema}:{root}")
        values = [close_tool_arguments(v, rng, share=1.0) for v in values]
    return tuple(_canonical(v) for v in values)


def generated_inputs(side: Side, count: int, seed: int = 0) -> list[Input]:
    """``count`` documents drawn for ``side`` (repeated in turn when the strategy has fewer
    distinct values), equal ones merged into one input with their count as its weight."""
    drawn = _drawn(side.schema, side.root, count, seed)
    if not drawn:
        return []
    weights: Counter[str] = Counter(islice(cycle(drawn), count))
    first: dict[str, int] = {}
    for index, key in enumerate(drawn):
        first.setdefault(key, index)
    return [Input("generated", f"generated #{first[key]}", json.loads(key), weights[key]) for key in first]


def inputs(side: Side, count: int, seed: int, validity: Validity) -> list[Input]:
    """The corpus inputs, then the generated ones."""
    return corpus_inputs(side, validity) + generated_inputs(side, count, seed)
