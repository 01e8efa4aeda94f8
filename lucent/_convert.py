"""convert: one wire format to another through the Lux IR hub, with diagnostics.

The converters themselves are generated (``lucent.generated.convert_*``) from the hand-written
mapping specs in ``mappings/``; ``docs/mappings.md`` lists every field of every pair and the
status a conversion reports for it. This module decodes the input, picks the converter, checks
the result against the target schema and applies ``strict``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import msgspec

from lucent._decode import decode, encode, schema_module
from lucent.errors import ConversionError, LucentError, UsageError, ValidationError
from lucent.generated.convert_registry import CONVERTERS, DOCUMENTS
from lucent.generated.lucent_diagnostics_v1 import ConversionDiagnostic, ConversionResult

__all__ = ["FORMATS", "convert"]

FORMATS: dict[str, str] = {
    "lux": "lux-ir-v1",
    "sparktide": "sparktide-remote-1.0",
    "llm-sdk": "llm-sdk",
    "htmlp": "htmlp-model-request",
}
"""Format name -> schema file stem (``schemas/<stem>.json``)."""

_LOSSY = ("Unsupported", "Invalid")


def convert(
    data: Any,
    source: str,
    target: str,
    kind: str = "request",
    *,
    strict: bool = False,
    context: Mapping[str, Any] | None = None,
) -> ConversionResult:
    """Convert a document from one wire format to another.

    Parameters
    ----------
    data : bytes, str, msgspec.Struct or JSON value
        The source document. JSON text (``bytes``/``str``) and plain JSON values (``dict``...)
        are decoded with :func:`lucent.decode` against the source schema; a generated Struct of
        the source definition (``RemoteModelRequest``, ``LucentRequest``) is used as is.
    source, target : {"lux", "sparktide", "llm-sdk", "htmlp"}
        Format names. ``lux`` <-> ``sparktide`` are implemented; the others raise
        ``UsageError(code="unsupported_conversion")`` for now. ``source == target`` returns the
        decoded document unchanged, with no diagnostics.
    kind : {"request"}
        What the document is. ``request`` follows ``#/definitions/LucentRequest`` (lux-ir-v1)
        and ``#/$defs/RemoteModelRequest`` (sparktide-remote-1.0).
    strict : bool, default False
        Raise :class:`~lucent.errors.ConversionError` instead of returning when any diagnostic
        is Unsupported or Invalid.
    context : Mapping[str, Any], optional
        Values the target requires and the source cannot supply; for a SparkTide target the
        platform-assigned envelope (``invocationId``, ``deadline``, ``purpose``, ``appId``,
        ``subjectId``, ``tenantId``, ``runId``, ``traceId``) and ``model``,
        ``max_completion_tokens``, ``stream``. A context value wins over the source's; one
        found nowhere is an Invalid diagnostic ``target:$.<field>``, never invented.

    Returns
    -------
    ConversionResult
        ``.value``: the target Struct (``LucentRequest`` or ``RemoteModelRequest``);
        ``.diagnostics``: ``list[ConversionDiagnostic]`` in source order, each with ``.field``
        (a JSON path in the source document, or ``target:$.x`` for a value the target lacks),
        ``.status`` (``Degraded``, ``Unsupported`` or ``Invalid``) and ``.detail``. Success is
        not exactness: read the diagnostics. Fields carried unchanged are not reported.

    Raises
    ------
    ValidationError
        The source breaks its JSON Schema (``.code`` is the keyword, ``.path`` the JSON path
        jsonschema names). Protocol rules beyond the schema (``tool_arguments``,
        ``duplicate_key``, ``max_body_bytes``) do not raise: they become Invalid diagnostics.
    DecodeError
        The input is not JSON (``malformed_json``, ``invalid_utf8``, ...).
    ConversionError
        ``strict=True`` and a diagnostic is Unsupported or Invalid (``code="conversion_lossy"``,
        ``.path`` the first such field, ``.diagnostics`` all of them).
    UsageError
        ``unknown_format`` (a name not listed above), ``unsupported_conversion`` (a pair or kind
        not implemented yet), ``invalid_input_type`` (a Struct of another definition, or a value
        that is not JSON), ``invalid_context`` (context is not a mapping).
    """
    source_definition = _definition(source, kind)
    target_definition = _definition(target, kind)
    if context is not None and not isinstance(context, Mapping):
        raise UsageError(f"context must be a mapping, not {type(context).__name__}", code="invalid_context")
    converter = CONVERTERS.get((source, target, kind))
    if converter is None and source != target:
        raise UsageError(f"converting {kind} from {source} to {target} is not implemented yet", code="unsupported_conversion")
    document, diagnostics = _decode_source(data, FORMATS[source], source_definition)
    if converter is None:
        value = document  # source == target: the document as decoded
    else:
        value, found = converter(document, context)
        diagnostics = _merge(found, diagnostics)
        if not any(d.status == "Invalid" for d in diagnostics):
            diagnostics.extend(_check_target(value, FORMATS[target], target_definition))
    if strict:
        lossy = [d for d in diagnostics if d.status in _LOSSY]
        if lossy:
            first = lossy[0]
            raise ConversionError(
                f"{len(lossy)} diagnostic(s) are Unsupported or Invalid; first: {first.status} at {first.field}: {first.detail}",
                code="conversion_lossy",
                path=first.field,
                diagnostics=diagnostics,
            )
    return ConversionResult(value=value, diagnostics=diagnostics)


def _definition(fmt: str, kind: str) -> str:
    if fmt not in FORMATS:
        raise UsageError(f"unknown format {fmt!r}; known: {', '.join(FORMATS)}", code="unknown_format")
    try:
        return DOCUMENTS[(fmt, kind)][1]
    except KeyError:
        raise UsageError(f"converting {kind} documents of {fmt} is not implemented yet", code="unsupported_conversion") from None


def _decode_source(data: Any, schema: str, definition: str) -> tuple[Any, list[ConversionDiagnostic]]:
    """The source Struct, and an Invalid diagnostic for a protocol rule it breaks (if any)."""
    expected = getattr(schema_module(schema), definition)
    if isinstance(data, msgspec.Struct):
        if not isinstance(data, expected):
            raise UsageError(f"expected a {definition} Struct, not {type(data).__name__}", code="invalid_input_type")
        return data, []
    if not isinstance(data, (bytes, bytearray, memoryview, str)):
        try:
            data = msgspec.json.encode(data)
        except (TypeError, msgspec.EncodeError):
            raise UsageError(f"cannot read a {type(data).__name__} as JSON", code="invalid_input_type") from None
    try:
        return decode(data, schema, definition), []
    except ValidationError as fault:
        # Schema faults raise (from the schema-only decode, so .path is the schema's path); a
        # document that breaks only a protocol rule is converted and the fault reported.
        document = decode(data, schema, definition, rules="schema")
        return document, [ConversionDiagnostic(field=fault.path, status="Invalid", detail=f"{fault.message} ({fault.code})")]


def _merge(found: list[ConversionDiagnostic], decoded: list[ConversionDiagnostic]) -> list[ConversionDiagnostic]:
    """The converter's diagnostics, plus a decode fault it did not report itself."""
    fields = {d.field for d in found}
    return list(found) + [d for d in decoded if d.field not in fields]


def _check_target(value: Any, schema: str, definition: str) -> list[ConversionDiagnostic]:
    """An Invalid diagnostic when the converted value breaks the target schema or rules."""
    try:
        decode(encode(value), schema, definition)
    except LucentError as fault:
        return [ConversionDiagnostic(field=f"target:{fault.path}", status="Invalid", detail=f"{fault.message} ({fault.code})")]
    return []
