"""What the fuzzers call: one entry point of lucent, applied to untrusted bytes.

The targets are read from lucent's registries, so a format added there is fuzzed without a
change here:

* ``decode``: every schema of ``lucent.SCHEMAS`` (vendor schemas included), its root and every
  definition of its ``DECODE_TYPES``;
* ``sse``: ``lucent.sse.parse``, whole and split into two chunks;
* ``assemble``: every format of ``lucent.streams.FORMATS``, whole and split;
* ``convert_stream``: every (source, target) of ``lucent.streams.FORMATS``;
* ``convert``: every (source, target, kind) that ``lucent.convert`` supports (the formats and
  documents of ``lucent.generated.convert_registry``), source == target included.

A target returns what lucent returned, or raises; the harness (:mod:`tests.fuzz.harness`)
accepts only :class:`lucent.errors.LucentError`.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from typing import Any

import lucent
from lucent._context import read_by
from lucent import sse, streams
from lucent._convert import FORMATS as CONVERT_FORMATS
from lucent.generated.convert_registry import CONVERTERS, DOCUMENTS

__all__ = ["Target", "convert_pairs", "targets"]

CONTEXT: dict[str, Any] = {
    "invocationId": "inv_fuzz",
    "deadline": 1893456000000,
    "purpose": "SYNTHETIC_PROBE",
    "appId": "fuzz",
    "model": "model-1",
    "max_completion_tokens": 256,
    "stream": False,
    "id": "resp_fuzz",
}
"""The caller's values a conversion may need (``lucent.convert``'s ``context``)."""


@dataclass(frozen=True)
class Target:
    """One fuzz target.

    Attributes
    ----------
    family : str
        ``decode``, ``sse``, ``assemble``, ``convert_stream`` or ``convert``.
    name : str
        Unique: ``decode:anthropic:Message``, ``convert:sparktide:lux:request``, ...
    run : Callable[[bytes], Any]
        Calls lucent on the bytes.
    schema, definition : str or None
        For ``decode`` and ``convert``: what a valid input is (the schema and definition it
        decodes as), which the seeds and the hang check use. ``definition`` None is the root.
    stream : str or None
        For ``sse``, ``assemble`` and ``convert_stream``: the stream format of a valid input.
    """

    family: str
    name: str
    run: Callable[[bytes], Any]
    schema: str | None = None
    definition: str | None = None
    stream: str | None = None


def _decode(schema: str, definition: str | None) -> Callable[[bytes], Any]:
    def run(data: bytes) -> Any:
        return lucent.decode(data, schema, definition)

    return run


def _split(data: bytes) -> list[bytes]:
    """Two chunks, cut where the first byte says (chunk boundaries are input too)."""
    if not data:
        return []
    cut = data[0] % (len(data) + 1)
    return [data[1:cut], data[cut:]] if cut else [data[1:]]


def _sse(split: bool) -> Callable[[bytes], Any]:
    def run(data: bytes) -> Any:
        return list(sse.parse(_split(data) if split else [data]))

    return run


def _assemble(fmt: str, split: bool) -> Callable[[bytes], Any]:
    def run(data: bytes) -> Any:
        return streams.assemble(_split(data) if split else data, fmt)

    return run


def _convert_stream(source: str, target: str) -> Callable[[bytes], Any]:
    def run(data: bytes) -> Any:
        conversion = streams.convert_stream(data, source, target, context=read_by({"id": "r", "model": "m"}, source, target, "stream"))
        return list(conversion), conversion.diagnostics

    return run


def _convert(source: str, target: str, kind: str) -> Callable[[bytes], Any]:
    def run(data: bytes) -> Any:
        return lucent.convert(data, source, target, kind, context=read_by(CONTEXT, source, target, kind))

    return run


def convert_pairs() -> list[tuple[str, str, str]]:
    """Every (source, target, kind) lucent.convert supports: a direct converter, both hops
    through Lux, or source == target."""
    found = []
    for source, kind in sorted(DOCUMENTS):
        for target in CONVERT_FORMATS:
            if (target, kind) not in DOCUMENTS:
                continue
            direct = (source, target, kind) in CONVERTERS
            composed = (source, "lux", kind) in CONVERTERS and ("lux", target, kind) in CONVERTERS
            if source == target or direct or composed:
                found.append((source, target, kind))
    return found


@cache
def targets() -> tuple[Target, ...]:
    """Every target, in a stable order (an input's first two bytes pick one)."""
    found: list[Target] = []
    for schema, module_name in lucent.SCHEMAS.items():
        module = importlib.import_module(f"lucent.generated.{module_name}")
        for definition in (None, *sorted(module.DECODE_TYPES)):
            found.append(Target("decode", f"decode:{schema}:{definition or '$'}", _decode(schema, definition), schema, definition))
    for split in (False, True):
        found.append(Target("sse", f"sse:{'split' if split else 'whole'}", _sse(split), stream=streams.FORMATS[0]))
    for fmt in streams.FORMATS:
        for split in (False, True):
            found.append(Target("assemble", f"assemble:{fmt}:{'split' if split else 'whole'}", _assemble(fmt, split), stream=fmt))
    for source in streams.FORMATS:
        for target in streams.FORMATS:
            found.append(Target("convert_stream", f"convert_stream:{source}:{target}", _convert_stream(source, target), stream=source))
    for source, target, kind in convert_pairs():
        schema, definition = DOCUMENTS[(source, kind)]
        found.append(Target("convert", f"convert:{source}:{target}:{kind}", _convert(source, target, kind), CONVERT_FORMATS[source], _decodable(schema, definition)))
    return tuple(found)


def _decodable(schema: str, definition: str) -> str | None:
    module = importlib.import_module(f"lucent.generated.{lucent.SCHEMAS[schema]}")
    return definition if definition in module.DECODE_TYPES else None
