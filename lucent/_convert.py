"""convert: one wire format to another through the Lux IR hub, with diagnostics.

The converters themselves are generated (``lucent.generated.convert_*``) from the hand-written
mapping specs in ``mappings/``; ``docs/mappings.md`` lists every field of every pair and the
status a conversion reports for it. This module decodes the input, picks the converter, checks
the result against the target schema and applies ``strict``.
"""

from __future__ import annotations

import datetime
import functools
import decimal
import re
import sys
import uuid
from bisect import bisect_left
from collections.abc import Collection, Iterator, Mapping
from typing import TYPE_CHECKING, Any, Literal, cast, overload

import msgspec

from lucent._best_error import _container, _fields, _struct_for
from lucent._decode import (
    _MSGSPEC_CODES,
    _no_key_lost,
    _skips_values,
    _validation_error,
    adds_no_member,
    decode,
    duplicate_paths,
    encode,
    encoded,
    same_colons,
    schema_module,
)
from lucent._first_use import LOCK
from lucent._limits import Limits
from lucent._context import document_keys, refuse_unknown
from lucent._stream_base import context_of, flag
from lucent.formats import FORMATS as _REGISTRY
from lucent.errors import ConversionError, EncodeError, LucentError, UsageError, ValidationError
from lucent._validation import RuleViolation, convert_as, member
from lucent._converters import Converter
from lucent._forms import FORM_OF, forms_alike
from lucent._typed_values import typed
from lucent._unknown import steps_of
from lucent.generated.convert_registry import CONVERTERS, DOCUMENTS
from lucent.generated.lucent_diagnostics_v1 import ConversionDiagnostic, ConversionResult

if TYPE_CHECKING:
    from lucent._conversion import Origins
    from lucent._converters import ToLux
    from lucent.generated.anthropic import CreateMessageParams, Message
    from lucent.generated.gemini import GenerateContentRequest, GenerateContentResponse
    from lucent.generated.htmlp_model_request import ModelRequest
    from lucent.generated.llm_sdk import LanguageModelInput, ModelResponse
    from lucent.generated.lux_ir_v1 import LucentError as LuxError, LucentRequest, LucentResponse
    from lucent.generated.openai_chat import CreateChatCompletionRequest, CreateChatCompletionResponse
    from lucent.generated.openai_responses import CreateResponse, Response
    from lucent.generated.sparktide_remote_1_0 import RemoteModelFailure, RemoteModelRequest, RemoteModelResponse

__all__ = ["FORMATS", "convert"]

FORMATS: dict[str, str] = {f.name: f.schema for f in _REGISTRY.values()}
"""Format name -> schema file stem (``schemas/<stem>.json`` or ``schemas/vendor/<stem>.json``), from
the format registry (:data:`lucent.formats.FORMATS`)."""

_LOSSY = ("Unsupported", "Invalid")


# What a type checker knows of the result, per target format and kind (DOCUMENTS; held to it by
# tests/test_convert_typed_values.py), in msgspec's manner of decode(buf, type=T) -> T.
@overload
def convert(data: Any, source: str, target: Literal["lux"], kind: Literal["request"] = "request", *, strict: bool = ..., context: Mapping[str, Any] | None = ..., limits: Limits | None = ..., capabilities: Any = ...) -> ConversionResult[LucentRequest]: ...
@overload
def convert(data: Any, source: str, target: Literal["lux"], kind: Literal["response"], *, strict: bool = ..., context: Mapping[str, Any] | None = ..., limits: Limits | None = ..., capabilities: Any = ...) -> ConversionResult[LucentResponse]: ...
@overload
def convert(data: Any, source: str, target: Literal["lux"], kind: Literal["error"], *, strict: bool = ..., context: Mapping[str, Any] | None = ..., limits: Limits | None = ..., capabilities: Any = ...) -> ConversionResult[LuxError]: ...
@overload
def convert(data: Any, source: str, target: Literal["sparktide"], kind: Literal["request"] = "request", *, strict: bool = ..., context: Mapping[str, Any] | None = ..., limits: Limits | None = ..., capabilities: Any = ...) -> ConversionResult[RemoteModelRequest]: ...
@overload
def convert(data: Any, source: str, target: Literal["sparktide"], kind: Literal["response"], *, strict: bool = ..., context: Mapping[str, Any] | None = ..., limits: Limits | None = ..., capabilities: Any = ...) -> ConversionResult[RemoteModelResponse]: ...
@overload
def convert(data: Any, source: str, target: Literal["sparktide"], kind: Literal["error"], *, strict: bool = ..., context: Mapping[str, Any] | None = ..., limits: Limits | None = ..., capabilities: Any = ...) -> ConversionResult[RemoteModelFailure]: ...
@overload
def convert(data: Any, source: str, target: Literal["llm-sdk"], kind: Literal["request"] = "request", *, strict: bool = ..., context: Mapping[str, Any] | None = ..., limits: Limits | None = ..., capabilities: Any = ...) -> ConversionResult[LanguageModelInput]: ...
@overload
def convert(data: Any, source: str, target: Literal["llm-sdk"], kind: Literal["response"], *, strict: bool = ..., context: Mapping[str, Any] | None = ..., limits: Limits | None = ..., capabilities: Any = ...) -> ConversionResult[ModelResponse]: ...
@overload
def convert(data: Any, source: str, target: Literal["htmlp"], kind: Literal["request"] = "request", *, strict: bool = ..., context: Mapping[str, Any] | None = ..., limits: Limits | None = ..., capabilities: Any = ...) -> ConversionResult[ModelRequest]: ...
@overload
def convert(data: Any, source: str, target: Literal["openai-chat"], kind: Literal["request"] = "request", *, strict: bool = ..., context: Mapping[str, Any] | None = ..., limits: Limits | None = ..., capabilities: Any = ...) -> ConversionResult[CreateChatCompletionRequest]: ...
@overload
def convert(data: Any, source: str, target: Literal["openai-chat"], kind: Literal["response"], *, strict: bool = ..., context: Mapping[str, Any] | None = ..., limits: Limits | None = ..., capabilities: Any = ...) -> ConversionResult[CreateChatCompletionResponse]: ...
@overload
def convert(data: Any, source: str, target: Literal["openai-responses"], kind: Literal["request"] = "request", *, strict: bool = ..., context: Mapping[str, Any] | None = ..., limits: Limits | None = ..., capabilities: Any = ...) -> ConversionResult[CreateResponse]: ...
@overload
def convert(data: Any, source: str, target: Literal["openai-responses"], kind: Literal["response"], *, strict: bool = ..., context: Mapping[str, Any] | None = ..., limits: Limits | None = ..., capabilities: Any = ...) -> ConversionResult[Response]: ...
@overload
def convert(data: Any, source: str, target: Literal["anthropic"], kind: Literal["request"] = "request", *, strict: bool = ..., context: Mapping[str, Any] | None = ..., limits: Limits | None = ..., capabilities: Any = ...) -> ConversionResult[CreateMessageParams]: ...
@overload
def convert(data: Any, source: str, target: Literal["anthropic"], kind: Literal["response"], *, strict: bool = ..., context: Mapping[str, Any] | None = ..., limits: Limits | None = ..., capabilities: Any = ...) -> ConversionResult[Message]: ...
@overload
def convert(data: Any, source: str, target: Literal["gemini"], kind: Literal["request"] = "request", *, strict: bool = ..., context: Mapping[str, Any] | None = ..., limits: Limits | None = ..., capabilities: Any = ...) -> ConversionResult[GenerateContentRequest]: ...
@overload
def convert(data: Any, source: str, target: Literal["gemini"], kind: Literal["response"], *, strict: bool = ..., context: Mapping[str, Any] | None = ..., limits: Limits | None = ..., capabilities: Any = ...) -> ConversionResult[GenerateContentResponse]: ...
@overload
def convert(data: Any, source: str, target: str, kind: str = "request", *, strict: bool = ..., context: Mapping[str, Any] | None = ..., limits: Limits | None = ..., capabilities: Any = ...) -> ConversionResult[Any]: ...

def convert(
    data: Any,
    source: str,
    target: str,
    kind: str = "request",
    *,
    strict: bool = False,
    context: Mapping[str, Any] | None = None,
    limits: Limits | None = None,
    capabilities: Any = None,
) -> ConversionResult[Any]:
    """Convert a document from one wire format to another.

    Parameters
    ----------
    data : bytes, str, msgspec.Struct or JSON value
        The source document. JSON text (``bytes``/``str``) and plain JSON values (``dict``...)
        are decoded with :func:`lucent.decode` against the source schema. A generated Struct of
        the source definition (``RemoteModelRequest``, ``LucentRequest``) is written as JSON and
        decoded the same way, so that one built or changed by hand is held to the schema too: a
        value of the wrong type raises; a Struct that breaks a constraint (a required member left
        ``UNSET``, as a conversion leaves what its target needs and its source lacks) is
        converted as it is, with an Invalid diagnostic naming its first fault (which raises if
        the converter cannot read the Struct).
    source, target : {"lux", "sparktide", "llm-sdk", "htmlp", "openai-chat", "openai-responses", "anthropic", "gemini"}
        Format names (:data:`FORMATS`). Each format converts to and from Lux by a generated converter
        (``lucent.generated.convert_registry.CONVERTERS``); any other pair is composed through
        Lux (source -> Lux -> target), with every diagnostic of both hops named by its path in
        the source document. ``source == target`` returns the decoded document unchanged; its only
        diagnostics are the protocol rules it breaks (Invalid, as below).
    kind : {"request", "response", "error"}
        What the document is, per format (``lucent.generated.convert_registry.DOCUMENTS``):
        ``request`` is ``LucentRequest`` (lux-ir-v1), ``RemoteModelRequest``
        (sparktide-remote-1.0), ``LanguageModelInput`` (llm-sdk), ``ModelRequest`` (htmlp),
        ``CreateChatCompletionRequest`` (openai-chat), ``CreateResponse`` (openai-responses),
        ``CreateMessageParams`` (anthropic) or ``GenerateContentRequest`` (gemini); ``response``
        is ``LucentResponse``, ``RemoteModelResponse``, ``ModelResponse``,
        ``CreateChatCompletionResponse``, ``Response``, ``Message`` or
        ``GenerateContentResponse``; ``error`` is ``LucentError`` or ``RemoteModelFailure``. A kind a format has no converter for raises
        ``unsupported_conversion``.
    strict : bool, default False
        Raise :class:`~lucent.errors.ConversionError` instead of returning when any diagnostic
        is Unsupported or Invalid.
    context : Mapping[str, Any], optional
        Values the target requires and the source cannot supply; for a SparkTide target the
        platform-assigned envelope (``invocationId``, ``deadline``, ``purpose``, ``appId``,
        ``subjectId``, ``tenantId``, ``runId``, ``traceId``) and ``model``,
        ``max_completion_tokens``, ``stream``; for a Lux target from llm-sdk ``model`` and
        ``stream`` (requests), ``id`` and ``model`` (responses); for a Lux response from
        SparkTide ``id``, ``model`` and, optionally, ``created_at``; for an openai-chat response
        ``created`` (Chat's own name, as a Chat stream reads it), for an openai-responses
        response ``created_at``, for an anthropic request ``max_tokens``. A context value wins
        over the source's (a different source value is reported Degraded); one found nowhere is
        an Invalid diagnostic ``target:$.<field>``, never invented. A composed conversion gives
        the context to both hops, and reads both hops' keys. A key the conversion does not read
        raises ``invalid_context`` (its path ``$.<key>``; the message names it and the keys
        read): the keys are ``lucent.generated.convert_registry.CONTEXT``, listed by
        ``lucent convert --help`` (``lucent._context``); with ``capabilities``, a request
        conversion reads ``model`` too.
    limits : lucent.Limits, optional
        Caps on the source document, as for :func:`lucent.decode`. A body over the protocol's own
        cap (SparkTide 1 MiB) is an Invalid diagnostic, like every protocol rule; a body over
        ``limits.max_body_bytes`` when given, or over lucent's 32 MiB default, raises.
    capabilities : LucentCapabilities, ProviderCapability or LucentDiscovery, optional
        The target model's capability declaration (a ``LucentDiscovery``: the declaration
        :func:`lucent.capabilities.lookup` finds for the request's model, or
        ``context["model"]``). A request value the model cannot take (an image to a model
        without image input, tools, parallel calls, reasoning, a JSON schema response format,
        an undeclared provider parameter: :func:`lucent.capabilities.preflight`) is reported
        Unsupported (``none``) or Degraded (``partial``) at its source path, unless the
        conversion reports that value lost already. Requests only (``invalid_capabilities``).

    Returns
    -------
    ConversionResult[T]
        ``.value``: the target Struct (``LucentRequest``, ``RemoteModelRequest``,
        ``LanguageModelInput``, ...; a type checker knows ``T`` for a literal ``target`` and
        ``kind``), its members the generated Structs their annotations name all the way down (an
        Anthropic tool is a ``Tool``, a Responses input item an ``EasyInputMessage``...: the target
        check's own decode; a value with Invalid target faults is typed where its rules let it
        be, a required member missing is ``UNSET``);
        ``.diagnostics``: ``list[ConversionDiagnostic]`` in source order, each with ``.field``
        (a JSON path in the source document, or ``target:$.x`` for a value the target lacks),
        ``.status`` (``Degraded``, ``Unsupported`` or ``Invalid``) and ``.detail``. Success is
        not exactness: read the diagnostics. Fields carried unchanged are not reported. The list
        is bounded: past the first 1,000 (``lucent._conversion.MAX_DIAGNOSTICS``), the diagnostics
        of one class (status and detail) are folded into one, at the JSON path that holds them
        all, whose detail ends ``[folded: N diagnostics at paths inside this field]``
        (``lucent._conversion.represented`` reads N); docs/semantics.md.

    Raises
    ------
    ValidationError
        The source breaks its JSON Schema (``.code`` is the keyword, ``.path`` the JSON path
        jsonschema names). Protocol rules beyond the schema (``tool_arguments``,
        ``duplicate_key``, ``max_body_bytes``) do not raise: they become Invalid diagnostics.
    DecodeError
        The input is not JSON (``malformed_json``, ``invalid_utf8``, ...), or nests deeper than
        ``limits.max_depth`` (``max_depth``).
    ConversionError
        ``strict=True`` and a diagnostic is Unsupported or Invalid (``code="conversion_lossy"``,
        ``.path`` the first such field, ``.diagnostics`` all of them).
    UsageError
        ``unknown_format`` (a name not listed above), ``unsupported_conversion`` (a pair or kind
        not implemented yet), ``invalid_input_type`` (a Struct of another definition, a value
        that is not JSON: bytes, a tuple, a set, a key that is not a str, NaN...; or a format or kind that is not a str), ``invalid_context`` (context is not a mapping, or one that raises while read, it is read once, into a dict; or it has a key the conversion does not read), a ``strict`` with no truth value (``invalid_input_type``),
        ``invalid_limits``, ``invalid_capabilities``, ``unknown_model`` (no declaration of the
        request's model in the ``LucentDiscovery`` given).
    """
    source_definition, target_definition, converter, hops = _plan(source, target, kind)
    context = context_of(context) if context is not None else None  # read once: UsageError if it cannot be
    if context:  # a key no converter of this conversion reads is refused, not ignored (lucent._context)
        reads = document_keys(source, target, kind)
        refuse_unknown(context, reads + (("model",) if capabilities is not None and kind == "request" and "model" not in reads else ()), f"{source} {kind}s to {target}")
    strict = flag(strict, "strict")
    if converter is None and hops is None and source != target:
        raise UsageError(f"converting {kind} from {source} to {target} is not implemented yet", code="unsupported_conversion")
    document, diagnostics, incomplete, unknown = _decode_keeping(data, FORMATS[source], source_definition, limits)
    if unknown and (converter is None or target != "lux"):  # kept only on the way to Lux, or back to the source
        diagnostics.extend(_unkept(unknown, source, target))
    try:
        if converter is not None and unknown and target == "lux":
            value, found = cast("ToLux", converter)(document, context, unknown=unknown)  # kept in the Lux side-car
        elif converter is not None:
            value, found = converter(document, context)
        elif hops is not None:
            value, found = _compose(hops, document, context, source)  # no direct converter: through Lux
        else:
            value, found = document, []  # source == target: the document as decoded
            if unknown:  # and the members its Structs do not hold, where they were
                value = _put_back(document, unknown, diagnostics)
    except LucentError:
        raise
    except Exception:
        if incomplete is None:
            raise
        raise incomplete from None  # a Struct that breaks its schema, which the converter cannot read
    conversion = _conversion()  # loaded with the converter
    Diagnostics, represented = conversion.Diagnostics, conversion.represented

    checked = document if capabilities is not None else None  # what the pre-flight check reads
    if converter is not None or hops is not None:
        diagnostics = _merge(found, diagnostics)
        empties = {d.field for d in diagnostics if d.status == "Unsupported" and _empty_in(document, d.field)}
        if empties:  # a null or [] the target leaves out is no loss: its absence says the same
            diagnostics = [d for d in diagnostics if not (d.field in empties and (d.status == "Unsupported" or (d.status == "Degraded" and _kept_in_side_car(d.detail))))]
        del document  # the target may share the source's JSON values; the rest is not needed to check it
        named = {d.field for d in diagnostics if d.status == "Invalid" and d.field.startswith("target:")}
        faults, decoded, text = _target_faults(value, FORMATS[target], target_definition, named)
        diagnostics.extend(faults)
        value = typed(value, decoded, text)  # the generated Structs all the way down (lucent._typed_values)
    if capabilities is not None:  # the model's own limits (lucent._preflight)
        from lucent._preflight import on_the_way

        diagnostics = on_the_way(diagnostics, checked, source, kind, capabilities, context)
    diagnostics = Diagnostics(one_per_path(diagnostics))  # bounded: past MAX_DIAGNOSTICS, one per class, with its count
    if strict:
        lossy = [d for d in diagnostics if d.status in _LOSSY]
        if lossy:
            first = lossy[0]
            raise ConversionError(
                f"{sum(map(represented, lossy))} diagnostic(s) are Unsupported or Invalid; first: {first.status} at {first.field}: {first.detail}",
                code="conversion_lossy",
                path=first.field,
                diagnostics=diagnostics,
            )
    return ConversionResult(value=value, diagnostics=diagnostics)


_Plan = tuple[str, str, Converter | None, tuple[Converter, Converter] | None]
_PLANS: dict[tuple[str, str, str], _Plan] = {}


def _plan(source: Any, target: Any, kind: Any) -> _Plan:
    """(source definition, target definition, the direct converter, the two hops through Lux)
    of a conversion, worked out once per (source, target, kind) of str (:func:`_definition`
    raises for a name or kind it does not know, every time: a miss is not kept)."""
    key = (source, target, kind)
    names = type(source) is str and type(target) is str and type(kind) is str
    found = _PLANS.get(key) if names else None
    if found is None:
        source_definition, target_definition = _definition(source, kind), _definition(target, kind)
        converter = converter_of(key)
        hops = _through_lux(source, target, kind) if converter is None and source != target else None
        found = (source_definition, target_definition, converter, hops)
        if names:
            _PLANS[key] = found
    return found


def _conversion() -> Any:
    """lucent._conversion (imported with the first converter; this module does not import it
    on its own, so that ``lucent.convert`` loads no more than it did)."""
    module = sys.modules.get("lucent._conversion")
    if module is None:
        import lucent._conversion

        module = lucent._conversion
    return module


_SEVERITY = {"Degraded": 1, "Unsupported": 2, "Invalid": 3}


def _kept_in_side_car(detail: str) -> bool:
    """A first hop's "kept in <side-car>" (Degraded), which a later Unsupported says is not so."""
    return " kept " in f" {detail}" and ("provider_payload" in detail or "extra." in detail)


def one_per_path(diagnostics: list[ConversionDiagnostic]) -> list[ConversionDiagnostic]:
    """At most one diagnostic per field, with the worst status reported for it (Invalid over
    Unsupported over Degraded) and the details of that status joined with "; ", then what the
    other statuses said, each marked with its status (``... (Degraded)``), in the order the
    fields were first reported (docs/semantics.md). A "kept in the side-car" that a worse
    status contradicts is left out. Through Lux the first hop can say a
    member is kept in the Lux side-car (Degraded) and the second that the target has no place
    for it (Unsupported): what happened in the end is the second."""
    by_field: dict[str, list[ConversionDiagnostic]] = {}
    for diagnostic in diagnostics:
        by_field.setdefault(diagnostic.field, []).append(diagnostic)
    if len(by_field) == len(diagnostics):
        return diagnostics
    out = []
    for field, found in by_field.items():
        if len(found) == 1:
            out.append(found[0])
            continue
        worst = max(found, key=lambda d: _SEVERITY.get(d.status, 0)).status
        details = [d.detail for d in found if d.status == worst and isinstance(d.detail, str)]
        # what the other statuses said of the field is kept in the detail, marked with them
        for d in found:
            if d.status != worst and isinstance(d.detail, str) and not (d.status == "Degraded" and _kept_in_side_car(d.detail)):
                details.append(f"{d.detail} ({d.status})")
        joined = "; ".join(dict.fromkeys(details)) if details else found[0].detail
        out.append(ConversionDiagnostic(field=field, status=worst, detail=joined))
    return out


def converter_of(key: tuple[str, str, str]) -> Converter | None:
    """The converter of (source, target, kind), None if there is none; its module is imported
    on the first look-up, under lucent._first_use.LOCK (a fork waits for it)."""
    if key not in CONVERTERS:
        return None
    found = _converters.get(key)
    if found is None:
        with LOCK:
            found = _converters[key] = CONVERTERS[key]
    return found


_converters: dict[tuple[str, str, str], Converter] = {}


def _through_lux(source: str, target: str, kind: str) -> tuple[Converter, Converter] | None:
    """The two converters source -> lux -> target, when both exist."""
    first, second = converter_of((source, "lux", kind)), converter_of(("lux", target, kind))
    return (first, second) if first is not None and second is not None else None


def _compose(hops: tuple[Converter, Converter], document: Any, context: Mapping[str, Any] | None, source: str) -> tuple[Any, list[ConversionDiagnostic]]:
    """Convert through Lux; every diagnostic names a path in the source document.

    The first hop records where each Lux value it builds came from (``origins``: Lux path ->
    source path); a second-hop diagnostic, which names a Lux path, is reported at the source
    path of that value (see :func:`_source_paths`). The first hop's ``target:`` diagnostics name
    values the intermediate Lux document lacks; they are left out, since the second hop, and the
    check of the result against the target schema, report what the target itself lacks. A
    second-hop restructuring between two Lux forms that the ``source`` format writes alike
    (``lucent._forms``: a tool result as an item or a block, for Chat) is left out too: read
    back as the source format, the target says what the source said.
    """
    conversion = _conversion()  # loaded with the first converter
    provenance = conversion.Origins()
    COMPOSED_FROM = conversion.COMPOSED_FROM
    lux, first = hops[0](document, context, provenance)
    token = COMPOSED_FROM.set(source)  # the second hop may read what the source format meant by an absent member
    try:
        value, second = hops[1](lux, context)
    finally:
        COMPOSED_FROM.reset(token)
    found = [d for d in first if not d.field.startswith("target:")]
    carried = _carried_across(hops[0], hops[1], lux, provenance)
    if carried:  # kept in the side-car by the first hop, written by the second: no loss
        found = [d for d in found if not (d.status == "Degraded" and _under(d.field, carried))]
    if not second:  # nothing to place
        return value, found
    holder_of, represented = conversion.holder_of, conversion.represented
    seen = {(d.field, d.status, d.detail) for d in found}
    kept: dict[str, list[str]] | None = None
    index = _Index()
    alike = forms_alike(source)
    if alike:  # restructurings the source format writes alike (lucent._forms)
        second = [d for d in second if not (d.status == "Degraded" and FORM_OF.get(d.detail) in alike)]
    supplied = provenance.from_caller
    if supplied:  # a Lux value the first hop took from the context (or found nowhere): not the source's
        second = [d for d in second if d.status == "Invalid" or not _under(d.field, supplied)]
    for diagnostic in second:
        field = diagnostic.field
        around = provenance.around(field)
        fields = _source_paths(field, around, index)
        if field.startswith(_SIDE_CARS) and field not in around and not _inside(field, around, index):
            if kept is None:
                kept = {}
                for path, source in _kept_members(_side_cars_of(lux), provenance, index):
                    kept.setdefault(path, []).append(source)
            inside = [source for path in [field, *_inside(field, kept, index)] for source in kept.get(path, ())]
            if inside:  # the members the side-car kept, each at its source path (not the object that held them)
                fields = inside
        if len(fields) > 1 and represented(diagnostic) > 1:  # a folded one stays one, with its count
            fields = [holder_of(fields)]
        for source in dict.fromkeys(fields):
            key = (source, diagnostic.status, diagnostic.detail)
            if key not in seen:
                seen.add(key)
                found.append(ConversionDiagnostic(field=source, status=diagnostic.status, detail=diagnostic.detail))
    return value, found


_SIDE_CARS = ("$.extra", "$.provider_payload")


def _side_cars_of(lux: Any) -> dict[str, Any]:
    """The side-cars of a Lux document (``extra``, ``provider_payload``) as JSON: all of it that
    :func:`_kept_members` reads (not the whole document)."""
    found = {}
    for name in ("extra", "provider_payload"):
        value = getattr(lux, name, msgspec.UNSET)
        if value is not msgspec.UNSET:
            found[name] = msgspec.to_builtins(value)
    return found


def _under(field: str, paths: Collection[str]) -> bool:
    """Whether `field` is one of `paths` or inside one of them."""
    return field in paths or any(field.startswith((p + ".", p + "[")) for p in paths)


def _carried_across(first: Converter, second: Converter, lux: Any, origins: Any) -> set[str]:
    """The source paths of the side-car members the first hop kept (Degraded) that are no loss
    through the second: those it reads as parameters of the same meaning in its format (its
    module's SIBLINGS_READ: Chat's store read by Responses; it reports whatever of them it cannot
    write), and those holding an idle value (the first hop's IDLE_VALUES: ``store: false``, which
    a target that keeps nothing does anyway)."""
    reads = getattr(sys.modules.get(getattr(second, "__module__", ""), None), "SIBLINGS_READ", ())
    idle = getattr(sys.modules.get(getattr(first, "__module__", ""), None), "IDLE_VALUES", ())
    found: set[str] = set()
    for path, value in [*((path, _ANY) for path in reads), *idle]:
        _, space, car, key = path.split(".")
        held = getattr(lux, space, None)
        held = held.get(car) if isinstance(held, dict) else None
        if isinstance(held, dict) and key in held and (value is _ANY or held[key] is value):
            source = origins.around(path).get(path)
            if source is not None:
                found.add(source)
    return found


_ANY = object()
"""In :func:`_carried_across`, any value of a member a second hop reads."""


def _kept_members(lux: Any, origins: Origins, index: _Index | None = None) -> Iterator[tuple[str, str]]:
    """(Lux path, source path) of each member a first hop kept in a side-car's ``members`` space.

    A side-car such as ``extra.openai_responses.members`` maps the Lux path of an object to the
    source members Lux has no field for (docs/semantics.md, "Side-cars"); a second hop that
    cannot carry the side-car reports it at its Lux path, and each member it held is named here
    at the source path of the object it was kept for, plus the member's name.
    """
    for space in ("extra", "provider_payload"):
        cars = lux.get(space) if isinstance(lux, dict) else None
        for key, car in (cars.items() if isinstance(cars, dict) else ()):
            members = car.get("members") if isinstance(car, dict) else None
            if not isinstance(members, dict):
                continue
            base = member(member(f"$.{space}", key), "members")
            for lux_path, kept in members.items():
                if not isinstance(kept, dict) or not isinstance(lux_path, str) or not lux_path.startswith("$"):
                    continue
                owners = _source_paths(lux_path, origins.around(lux_path), index)
                for name in kept:
                    for owner in owners:
                        yield member(member(base, lux_path), name), member(owner, name)


def _source_paths(field: str, origins: dict[str, str], index: _Index | None = None) -> list[str]:
    """The source paths a Lux path of the intermediate document stands for.

    The Lux value itself when the first hop recorded it; else every recorded value inside it
    (the outermost ones, in document order: a side-car such as ``extra.llm_sdk`` holds values
    from many places); else the nearest recorded value that holds it. ``target:`` paths are kept
    as they are.
    """
    if field.startswith("target:"):
        return [field]
    if field in origins:
        return [origins[field]]
    inside = _inside(field, origins, index)  # document order
    within = set(inside)
    outermost: list[str] = []
    for path in inside:  # a path none of whose holders (up to `field`) is recorded too
        holder = _parent(path)
        while holder is not None and holder != field and holder not in within:
            holder = _parent(holder)
        if holder is None or holder == field:
            outermost.append(path)
    if outermost:
        return list(dict.fromkeys(origins[p] for p in outermost))
    parent = _parent(field)
    while parent is not None:
        if parent in origins:
            return [origins[parent]]
        parent = _parent(parent)
    return [field]


def _inside(field: str, origins: Mapping[str, Any], index: _Index | None = None) -> list[str]:
    """The recorded paths inside `field` (``field.x``, ``field[0]``), in document order: a scan of
    a small table, a look-up in the sorted paths of a large one (``index``, which keeps them per
    table for one conversion), so that placing n findings in m paths costs n log m, not n * m."""
    if len(origins) <= _SCANNED:
        return [p for p in origins if p.startswith((field + ".", field + "["))]
    paths, order = (index if index is not None else _Index()).of(origins)
    found: list[str] = []
    for sep, after in ((".", "/"), ("[", "\\")):  # the next character up closes the range
        found += paths[bisect_left(paths, field + sep) : bisect_left(paths, field + after)]
    return sorted(found, key=order.__getitem__)


_SCANNED = 64


class _Index:
    """The sorted paths (and document order) of each large table one conversion reads."""

    def __init__(self) -> None:
        self._tables: dict[int, tuple[Mapping[str, Any], list[str], dict[str, int]]] = {}

    def of(self, origins: Mapping[str, Any]) -> tuple[list[str], dict[str, int]]:
        found = self._tables.get(id(origins))
        if found is None or found[0] is not origins or len(found[1]) != len(origins):
            found = self._tables[id(origins)] = (origins, sorted(origins), {path: i for i, path in enumerate(origins)})
        return found[1], found[2]


def _parent(path: str) -> str | None:
    """The JSON path one step up (``$.a.b[0]`` -> ``$.a.b``, ``$.a["x.y"]`` -> ``$.a``); None at ``$``."""
    if '"' not in path:  # no quoted key: the last separator, found in C
        last = max(path.rfind("."), path.rfind("["))
        return path[:last] if last > 0 else None
    last = -1
    i = 1
    while i < len(path):
        char = path[i]
        if char == ".":
            last = i
        elif char == "[":
            last = i
            if path.startswith('["', i):  # a quoted key: skip to its closing quote
                i += 2
                while i < len(path) and path[i] != '"':
                    i += 2 if path[i] == "\\" else 1
        i += 1
    return path[:last] if last > 0 else None


def _definition(fmt: str, kind: str) -> str:
    for name, value in (("format", fmt), ("kind", kind)):
        if not isinstance(value, str):
            raise UsageError(f"the {name} must be a str, not {type(value).__name__}", code="invalid_input_type")
    if fmt not in FORMATS:
        raise UsageError(f"unknown format; known: {', '.join(FORMATS)}", code="unknown_format")
    try:
        return DOCUMENTS[(fmt, kind)][1]
    except KeyError:
        if kind == "stream":
            raise UsageError("a stream converts event by event: use lucent.streams.convert_stream", code="unsupported_conversion") from None
        raise UsageError(f"converting {kind} documents of {fmt} is not implemented yet", code="unsupported_conversion") from None


def _decode_source(data: Any, schema: str, definition: str, limits: Limits | None = None) -> tuple[Any, list[ConversionDiagnostic], ValidationError | None]:
    """The source Struct; diagnostics: an Invalid one for a protocol rule it breaks (if any), an
    Unsupported one for each member the Struct cannot keep; and, for a Struct given that breaks
    its schema, its first fault (else None). :func:`_decode_keeping` gives those members too."""
    document, found, incomplete, unknown = _decode_keeping(data, schema, definition, limits)
    found.extend(ConversionDiagnostic(field=path, status="Unsupported", detail=_UNKNOWN) for path, _, _ in unknown)
    return document, found, incomplete


Unknown = list[tuple[str, list[str | int], Any]]
"""The members of a source its Structs do not hold: (JSON path, steps from the root, JSON value)."""


def _decode_keeping(data: Any, schema: str, definition: str, limits: Limits | None = None) -> tuple[Any, list[ConversionDiagnostic], ValidationError | None, Unknown]:
    """:func:`_decode_source`'s document, diagnostics (but for the members the Struct cannot
    keep) and first fault, and those members (path, steps, JSON value each), which a conversion
    to Lux keeps in its side-car (lucent._unknown). They are found only where the decode may have
    dropped some: when no Struct under the definition ignores unknown members, or the text has
    as many members as the document writes (:func:`lucent._decode.same_colons`), there are none
    and nothing more is read.

    A Struct is checked as its JSON text is: its constructor checks no constraint, and its fields
    can be set to anything after it is made. A value of the wrong type raises. A Struct that
    breaks a constraint of its schema (a required member left ``UNSET``, as a conversion leaves
    what its target needs and its source lacks; too few items...) is converted as it is, with an
    Invalid diagnostic naming its first fault, which raises if a converter cannot read it.
    """
    Diagnostics = _conversion().Diagnostics  # bounded, as convert's result

    expected = getattr(schema_module(schema), definition)
    struct = data if isinstance(data, msgspec.Struct) else None
    if struct is not None and not isinstance(struct, expected):
        raise UsageError(f"expected a {definition} Struct, not {type(struct).__name__}", code="invalid_input_type")
    if not isinstance(data, (bytes, bytearray, memoryview, str)):
        try:
            text = encode(data)  # NaN and infinity refused, not written as null
        except EncodeError as exc:
            raise UsageError(f"cannot read a {type(data).__name__} as JSON: {exc.message}", code="invalid_input_type", path=exc.path) from None
        # msgspec writes bytes as base64, a datetime or UUID as a string...: values the caller never gave
        _check_json_value(data if struct is None else msgspec.to_builtins(struct, builtin_types=_WRITTEN_AS_TEXT), text)
        data = text
    name = _decodable(schema, definition)
    try:
        document = decode(data, schema, name, limits=limits)
        found = Diagnostics()
    except ValidationError as fault:
        # Schema faults raise (from the schema-only decode, so .path is the schema's path); a
        # document that breaks only a protocol rule is converted and the fault reported.
        try:
            document = decode(data, schema, name, rules="schema", limits=limits)
        except ValidationError as broken:
            if struct is None or broken.code == "type":
                raise  # text breaks its schema; a Struct's value of the wrong type no converter reads
            return struct, [ConversionDiagnostic(field=broken.path, status="Invalid", detail=f"{broken.message} ({broken.code})")], broken, []
        found = Diagnostics([ConversionDiagnostic(field=fault.path, status="Invalid", detail=f"{fault.message} ({fault.code})")])
    tp: Any = type(document)
    text = data.encode("utf-8", "surrogatepass") if isinstance(data, str) else bytes(data)
    # duplicate properties: a protocol that refuses them has named them (Invalid) already
    named = bool(schema_module(schema).PROTOCOL.get("reject_duplicate_keys"))
    if not _skips_values(tp):  # every member of the text is in the document, but a duplicate's
        if not named and not _no_key_lost(text, document, tp):
            found.extend(_duplicates(text))
        return document, found, None, []
    if adds_no_member(tp) and same_colons(text, document):
        return document, found, None, []  # no member of the text is missing from the document
    try:
        raw = msgspec.json.decode(text)
    except msgspec.ValidationError:
        # decode() accepted the document, so only a number out of range inside a member the
        # schema does not define can fail here.
        raise ValidationError("a number is out of range", code="number_out_of_range") from None
    if not named and not same_colons(text, raw):  # raw keeps the last of duplicate members too
        found.extend(_duplicates(text))
    # The texts, keys sorted, compared in C: to_builtins(document) == raw would copy the document
    # whole (24 bytes a byte of the body for many empty objects). A difference the walk finds
    # nothing in (1 read into a float field as 1.0) costs only the walk.
    unknown = [] if _SORTED.encode(raw) == _SORTED.encode(document) else list(_unknown_members(raw, document, "$", []))
    return document, found, None, unknown


_WRITTEN_AS_TEXT = (bytes, bytearray, memoryview, datetime.datetime, datetime.date, datetime.time, datetime.timedelta, uuid.UUID, decimal.Decimal)
"""Values msgspec writes as JSON strings; ``to_builtins`` keeps them, so that the comparison with
the text finds them."""


def _check_json_value(value: Any, text: bytes) -> None:
    """Raise UsageError(``invalid_input_type``) unless ``value`` is a JSON value (dict with str
    keys, list, str, int, float, bool, None) that ``text`` (msgspec's writing of it) says
    exactly: msgspec also writes bytes (as base64), datetimes, UUIDs, sets, tuples and int keys,
    which would reach the converter as values the caller never gave. One parse and one
    comparison, in C; the walk that names the path runs only on a refusal."""
    try:
        same = msgspec.json.decode(text) == value
    except (msgspec.DecodeError, RecursionError):  # pragma: no cover - msgspec reads what it wrote
        same = False
    if not same:
        path = _not_json(value, "$")
        raise UsageError(f"not a JSON value at {path}: only dict (str keys), list, str, int, float, bool and None", code="invalid_input_type", path=path)


def _not_json(value: Any, path: str) -> str:
    """The path of the first part of ``value`` that is not a JSON value (``path`` if none is found)."""
    stack: list[tuple[Any, str]] = [(value, path)]
    while stack:
        node, where = stack.pop()
        if node.__class__ is dict:
            for key in node:
                if key.__class__ is not str:
                    return where
            stack.extend((item, member(where, key)) for key, item in reversed(node.items()))
        elif node.__class__ is list:
            stack.extend((item, f"{where}[{index}]") for index, item in reversed(list(enumerate(node))))
        elif node is not None and node.__class__ not in (str, int, float, bool):
            return where
    return path


_UNKNOWN = "a property the schema does not define (its object allows more); the bindings do not keep it, so it is dropped"
_DUPLICATE = "a property the object names more than once: the last value is kept, as JSON Schema reads it; the earlier ones are dropped"


def _unkept(unknown: Unknown, source: str, target: str) -> Iterator[ConversionDiagnostic]:
    """Unsupported, once each, for the members of the source its Structs do not hold, converted
    to another format than Lux (which keeps them in its side-car) or the source's own."""
    if source == target:
        return
    name, other = _REGISTRY[source].label, _REGISTRY[target].label
    detail = f"a member the {name} schema does not define (its object allows more); lucent gives such members back only to {name}, so {other} does not get it"
    for path, _, value in unknown:
        if value is not None and value != []:  # an empty value is the target's absence: nothing lost
            yield ConversionDiagnostic(field=path, status="Unsupported", detail=detail)


def _empty_in(document: Any, field: str) -> bool:
    """Whether the source member at ``field`` (a JSON path) is null or an empty array: a target
    without a place for it, leaving it out, says the same (docs/semantics.md, Exact), so its
    Unsupported (and a "kept in the side-car" the same path got on the way) is no loss."""
    steps = steps_of(field) if not field.startswith("target:") else None
    if not steps:
        return False
    node = document
    for step in steps:
        if isinstance(step, int):
            if not isinstance(node, (list, tuple)) or not 0 <= step < len(node):
                return False
            node = node[step]
        elif isinstance(node, dict):
            if step not in node:
                return False
            node = node[step]
        elif isinstance(node, msgspec.Struct):
            name = _attributes(type(node)).get(step)
            node = getattr(node, name, msgspec.UNSET) if name is not None else msgspec.UNSET
            if node is msgspec.UNSET:
                return False
        else:
            return False
    return node is None or (isinstance(node, (list, tuple)) and not node)


@functools.lru_cache(maxsize=1024)
def _attributes(cls: type) -> dict[str, str]:
    """A Struct class's JSON member names -> attribute names."""
    return {f.encode_name: f.name for f in msgspec.structs.fields(cls)}


def _put_back(document: Any, unknown: Unknown, diagnostics: list[ConversionDiagnostic]) -> Any:
    """A same-format conversion: the document with the members its Structs do not hold written
    back where they were (lucent._unknown.put_members); each it cannot hold (a name msgspec
    cannot give a field) is added to ``diagnostics``, Unsupported."""
    from lucent._unknown import put_members

    value, refused = put_members(document, [(steps, item) for _, steps, item in unknown])
    diagnostics.extend(ConversionDiagnostic(field=unknown[i][0], status="Unsupported", detail=_UNKNOWN) for i in refused)
    return value


def _duplicates(text: bytes) -> list[ConversionDiagnostic]:
    """An Unsupported diagnostic for each property ``text`` names twice (RFC 8259 section 4),
    folded past the first 1,000 as they are found (``lucent._conversion.Diagnostics``)."""
    from lucent._conversion import Diagnostics

    found = Diagnostics()
    for path in duplicate_paths(text):
        found.add(path, "Unsupported", _DUPLICATE)
    return found


def _unknown_members(raw: Any, kept: Any, path: str, steps: list[str | int]) -> Iterator[tuple[str, list[str | int], Any]]:
    """The members of the JSON value `raw` (at `path`, `steps` from the root) that its decoded
    form `kept` (a Struct, or a JSON value holding Structs) lacks: (path, steps, JSON value).

    An object the schema leaves open (no ``additionalProperties: false``: Lux, htmlp, vendor
    objects) accepts members it does not define, and the generated Struct does not keep them;
    a conversion keeps each one for its format (lucent._unknown) or names it.
    """
    if isinstance(kept, msgspec.Struct):
        kept = _members_of(kept)
    if isinstance(raw, dict) and isinstance(kept, dict):
        for key, item in raw.items():
            if key not in kept:
                yield member(path, key), [*steps, key], item
            elif item.__class__ in _CONTAINERS:  # a scalar holds no member
                yield from _unknown_members(item, kept[key], member(path, key), [*steps, key])
    elif isinstance(raw, list) and isinstance(kept, list) and len(raw) == len(kept):
        for index, item in enumerate(raw):
            if item.__class__ in _CONTAINERS:
                yield from _unknown_members(item, kept[index], f"{path}[{index}]", [*steps, index])


_CONTAINERS = (dict, list)
_SORTED = msgspec.json.Encoder(order="sorted")


def _members_of(struct: msgspec.Struct) -> dict[str, Any]:
    """The members a Struct writes (its tag, then each field not UNSET), by JSON name, as
    ``msgspec.to_builtins`` gives them one level down (the values are not converted)."""
    config = struct.__struct_config__
    found: dict[str, Any] = {config.tag_field: config.tag} if config.tag_field is not None else {}
    for name, key in zip(struct.__struct_fields__, struct.__struct_encode_fields__):
        value = getattr(struct, name)
        if value is not msgspec.UNSET:
            found[key] = value
    return found


def _decodable(schema: str, definition: str) -> str | None:
    """The definition name :func:`decode` takes: None for a schema whose root is the document
    (htmlp's ``ModelRequest``)."""
    module = schema_module(schema)
    return None if definition not in module.DECODE_TYPES and getattr(module, definition, None) is module.ROOT else definition


def _merge(found: list[ConversionDiagnostic], decoded: list[ConversionDiagnostic]) -> list[ConversionDiagnostic]:
    """The converter's diagnostics, plus every decode fault it did not report itself (an Invalid
    at the same field); a fault at a field the converter reported only as Degraded or
    Unsupported is kept, never folded away."""
    seen = {(d.field, d.status) for d in found}
    return list(found) + [d for d in decoded if (d.field, d.status) not in seen]


def _check_target(value: Any, schema: str, definition: str, named: Collection[str] = ()) -> list[ConversionDiagnostic]:
    """An Invalid diagnostic ``target:<path>`` for every fault of the converted value against the
    target schema and protocol rules, except where an Invalid diagnostic in `named` (its
    ``target:<path>`` field) names that path already (:func:`_target_faults`)."""
    return _target_faults(value, schema, definition, named)[0]


def _target_faults(value: Any, schema: str, definition: str, named: Collection[str] = ()) -> tuple[list[ConversionDiagnostic], Any, bytes]:
    """(The faults of the converted ``value`` against the target, as :func:`_check_target`
    names them; the target decode of ``value``'s JSON text, or None when there are faults;
    that text).

    The decode is the value with every member the generated type its annotation names, the
    unions typed ``Any`` at run time (Anthropic ``CreateMessageParamsToolsItem``, which a
    converter leaves a ``dict``) dispatched by ``__post_init__`` as :func:`lucent.decode` does;
    :func:`lucent._typed_values.typed` returns it when it says what ``value`` says.

    The decoder stops at one fault; when there is one, the value is walked against the generated
    types (:func:`_schema_faults`) for every schema fault, and the decoder's own fault (a
    protocol rule, such as SparkTide's closed JSON arguments, when the schema holds) is kept too.
    """
    name = _decodable(schema, definition)
    text = encoded(value)  # a converter writes no NaN; the decode below checks the text
    try:
        decoded = decode(text, schema, name)
    except LucentError as fault:
        first = fault
    else:
        return [], decoded, text
    module = schema_module(schema)
    tp = module.ROOT if name is None else module.DECODE_TYPES[name]
    try:
        faults = _schema_faults(msgspec.json.decode(text), tp, "$", module.PROTOCOL_CHECKS)
    except RecursionError:
        faults = []
    # the decoder's fault is one of these, unless it is a rule the walk does not see (the body size)
    if not any(f.path == first.path and f.code == first.code for f in faults) and (first.code not in _SCHEMA_CODES or not faults):
        faults.append(first)
    found: list[ConversionDiagnostic] = []
    seen = set(named)
    for each in faults:
        field = f"target:{_required_member(each)}"
        if field in seen:
            continue
        seen.add(field)
        found.append(ConversionDiagnostic(field=field, status="Invalid", detail=f"{each.message} ({each.code})"))
    return found, None, text


# the codes of JSON Schema keywords (msgspec's and the generated rules'); other codes are protocol rules
_SCHEMA_CODES = {code for _pattern, code in _MSGSPEC_CODES} | {"not", "anyOf", "oneOf", "allOf", "format", "invalid"}


_REQUIRED = re.compile(r"^'(.+)' is a required property$")


def _required_member(fault: LucentError) -> str:
    """The path of a fault; for a conditional rule's missing property, the property's path."""
    found = _REQUIRED.match(fault.message) if fault.code == "required" else None
    return member(fault.path, found.group(1)) if found else fault.path


def _schema_faults(node: Any, tp: Any, path: str, protocol: Mapping[str, Any]) -> list[LucentError]:
    """Every fault of the JSON value `node` against the generated type `tp`, at `path`: its
    schema faults, and the protocol rules (`protocol`: the module's PROTOCOL_CHECKS, by
    definition) of the structs that meet the schema.

    A node that converts, and meets its definition's protocol rules, has none. Otherwise a
    struct's own faults (each missing required field, at its path; each member it does not
    define) and a list's item count are collected, and the members and items are walked; a node
    with no fault inside it has the fault msgspec (or its protocol rule) names. When the schema
    has protocol rules, a node that meets the schema is walked too, so that each violation is
    named by the innermost struct whose rule sees it. (This runs only after a decode failed.)
    """
    first: LucentError | None = None
    try:
        value = convert_as(node, tp)  # a union's type worked out once, not per node
    except msgspec.ValidationError as exc:
        first = _validation_error(exc, path)
    except (ValueError, TypeError) as exc:  # a rule of __post_init__ outside msgspec's wrapping
        return [ValidationError(str(exc), code="invalid", path=path)]
    else:
        rule = protocol.get(type(value).__name__) if isinstance(value, msgspec.Struct) else None
        try:
            if rule is not None:
                rule(value)
        except RuleViolation as violation:  # the walk below pins each one to its own struct
            first = ValidationError(violation.message, code=violation.code, path=path + violation.path[1:])
        if first is None and not protocol:
            return []
    found: list[LucentError] = []
    struct = _struct_for(tp, node)
    container = _container(tp, node)
    if struct is not None:
        config = struct.__struct_config__
        names = {f.encode_name for f in _fields(struct)} | ({config.tag_field} if config.tag_field else set())
        for spec in _fields(struct):
            key = spec.encode_name
            if key in node:
                found.extend(_schema_faults(node[key], spec.type, member(path, key), protocol))
            elif spec.required:
                found.append(ValidationError(f"Object missing required field `{key}`", code="required", path=member(path, key)))
        if config.forbid_unknown_fields:
            found.extend(ValidationError("Object contains an unknown field", code="additionalProperties", path=member(path, key))
                         for key in node if key not in names)
    elif container is not None and isinstance(node, list):
        item, metas = container
        for meta in metas:
            if meta.min_length is not None and len(node) < meta.min_length:
                found.append(ValidationError(f"Expected `array` of length >= {meta.min_length}", code="minItems", path=path))
            if meta.max_length is not None and len(node) > meta.max_length:
                found.append(ValidationError(f"Expected `array` of length <= {meta.max_length}", code="maxItems", path=path))
        for index, value in enumerate(node):
            found.extend(_schema_faults(value, item, f"{path}[{index}]", protocol))
    elif container is not None and isinstance(node, dict):
        for key, value in node.items():
            found.extend(_schema_faults(value, container[0], member(path, key), protocol))
    return found or ([first] if first is not None else [])
