"""The pairs ``lucent.convert`` supports, the documents of each side, and the caller's context."""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from functools import cache
from typing import Any

from lucent._context import read_by
from lucent.generated.convert_registry import CONVERTERS, DOCUMENTS, UNREACHABLE

from lucent._convert import FORMATS

__all__ = ["FIXED_CONTEXT", "KINDS", "Pair", "Side", "context_for", "pairs", "side"]

KINDS = ("request", "response", "error")
# The seed formats; the vendor formats (schemas/vendor/) are checked by tests/test_convert_<x>.py.
SEED_FORMATS = ("lux", "sparktide", "llm-sdk", "htmlp")


@dataclass(frozen=True)
class Side:
    """One format's documents of one kind.

    Attributes
    ----------
    format, kind : str
        ``lux``, ``sparktide``, ``llm-sdk`` or ``htmlp``; ``request``, ``response`` or ``error``.
    schema : str
        The schema's file stem (``sparktide-remote-1.0``).
    definition : str
        The definition a document decodes as (``DOCUMENTS``).
    root : str or None
        The definition as the oracle and the strategies name it: None where the definition is
        the schema root (htmlp's ``ModelRequest``).
    """

    format: str
    kind: str
    schema: str
    definition: str
    root: str | None

    @property
    def label(self) -> str:
        return f"{self.format} {self.kind}"


@cache
def _definitions(schema: str) -> frozenset[str]:
    from tests.conformance.paths import schema_path

    document = json.loads(schema_path(schema).read_text(encoding="utf-8"))
    return frozenset(name for section in ("$defs", "definitions") for name in document.get(section, {}))


def side(fmt: str, kind: str) -> Side:
    """The documents of ``fmt`` and ``kind``."""
    schema, definition = DOCUMENTS[(fmt, kind)]
    assert schema == FORMATS[fmt]
    return Side(fmt, kind, schema, definition, definition if definition in _definitions(schema) else None)


@dataclass(frozen=True)
class Pair:
    """One conversion, and the round trip it starts when one side is Lux."""

    source: Side
    target: Side

    @property
    def kind(self) -> str:
        return self.source.kind

    @property
    def name(self) -> str:
        """``SRC:TGT:KIND``, as ``--pair`` takes it."""
        return f"{self.source.format}:{self.target.format}:{self.kind}"

    @property
    def round_trip(self) -> bool:
        """Whether target -> source closes a round trip through Lux (X -> Lux -> X, Lux -> X -> Lux)."""
        return "lux" in (self.source.format, self.target.format)

    @property
    def direct(self) -> bool:
        """Whether a generated converter does it in one hop (else it composes through Lux)."""
        return (self.source.format, self.target.format, self.kind) in CONVERTERS

    @property
    def unreachable(self) -> dict[str, str]:
        """The target paths the spec of the converter that writes the target declares unreachable
        (``UNREACHABLE``: no valid target document exists for some sources), with the reason."""
        writer = (self.source.format if self.direct else "lux", self.target.format, self.kind)
        return UNREACHABLE.get(writer, {})


def pairs() -> list[Pair]:
    """Every supported pair, source != target: both (format, kind) are in ``DOCUMENTS`` and
    ``lucent.convert`` has a direct converter or both hops through Lux."""
    found = []
    for kind in KINDS:
        formats = [f for f in FORMATS if (f, kind) in DOCUMENTS and f in SEED_FORMATS]
        for source in formats:
            for target in formats:
                if source == target:
                    continue
                direct = (source, target, kind) in CONVERTERS
                composed = (source, "lux", kind) in CONVERTERS and ("lux", target, kind) in CONVERTERS
                if direct or composed:
                    found.append(Pair(side(source, kind), side(target, kind)))
    return found


FIXED_CONTEXT: dict[str, Any] = {
    # SparkTide: the envelope the platform assigns, and the generation limits it fixes
    "invocationId": "inv_conformance",
    "deadline": 1893456000000,
    "purpose": "SYNTHETIC_PROBE",
    "appId": "conformance",
    "model": "model-1",
    "max_completion_tokens": 256,
    "stream": False,
    # Lux: what llm-sdk and SparkTide responses leave to the caller
    "id": "resp_conformance",
    # Lux (from llm-sdk, SparkTide, Anthropic) and Responses: a response's creation time
    "created_at": 1893456000,
    # OpenAI Chat Completions: the same, by Chat's name for it, which Lux may lack
    "created": 1893456000,
    # Anthropic: max_tokens is required, and a Lux request may have no max_output_tokens
    "max_tokens": 256,
}
"""The values a caller holds outside the documents (``lucent.convert``'s ``context``)."""

_ENVELOPE = ("invocationId", "deadline", "purpose", "appId", "subjectId", "tenantId", "runId", "traceId")
_MISSING = object()


def _get(doc: Any, *keys: str) -> Any:
    for key in keys:
        if not isinstance(doc, Mapping) or key not in doc:
            return _MISSING
        doc = doc[key]
    return doc


def _held(fmt: str, kind: str, doc: Any) -> dict[str, Any]:
    """The context values a document of ``fmt`` holds itself (key -> value)."""
    where: dict[str, tuple[str, ...]] = {}
    if fmt == "lux" and kind == "request":
        where = {"model": ("model",), "stream": ("options", "stream"), "max_completion_tokens": ("options", "max_output_tokens")}
        where["max_tokens"] = ("options", "max_output_tokens")
        where.update({key: ("extra", "sparktide", key) for key in _ENVELOPE})
    elif fmt == "lux" and kind == "response":
        where = {"id": ("id",), "model": ("model",), "created_at": ("created_at",), "created": ("created_at",)}
    elif fmt == "htmlp":
        where = {"model": ("model",), "max_completion_tokens": ("max_output_tokens",)}
    elif fmt == "llm-sdk" and kind == "request":
        where = {"max_completion_tokens": ("maxTokens",)}
    elif fmt == "gemini":
        where = {"model": ("model",)} if kind == "request" else {"id": ("responseId",), "model": ("modelVersion",)}
    elif fmt == "sparktide" and kind == "request":
        where = {key: (key,) for key in (*_ENVELOPE, "model", "max_completion_tokens", "stream")}
    found = {key: _get(doc, *path) for key, path in where.items()}
    return {key: value for key, value in found.items() if value is not _MISSING}


def context_for(fmt: str, kind: str, doc: Any, accepts: Callable[[str, Any], bool], target: str) -> dict[str, Any]:
    """The context a caller passes when converting ``doc`` (a document of ``fmt``).

    The values the target requires and the source cannot supply (``lucent.convert``) come from
    `FIXED_CONTEXT`. A value the document holds itself and the target accepts there
    (``accepts(key, value)``) is left to the document: the caller's value is the source's, so the
    context replaces nothing (lucent would report that Degraded) and a round trip can be exact.
    Only the keys the conversion to ``target`` reads are given: lucent refuses any other.
    """
    held = _held(fmt, kind, doc)
    return read_by({key: value for key, value in FIXED_CONTEXT.items() if key not in held or not accepts(key, held[key])}, fmt, target, kind)
