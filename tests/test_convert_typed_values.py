"""Values are the types they claim (issue 16, section 3).

Every value ``lucent.convert`` returns is the generated Struct its annotation names, all the way
down: a union typed ``Any`` at run time (Anthropic ``CreateMessageParamsToolsItem``, Responses
``Tool``/``InputItem``, dispatched by ``dispatch_<Name>`` in ``__post_init__``) holds one of its
Structs, not a ``dict``. The same for the events of ``lucent.streams.convert_stream`` and the
responses of ``lucent.streams.assemble``. Each output is walked against its type
(:func:`tests.typed_values.faults`, hints as a type checker reads them) for:

* the vendor corpus pairs that ``tests/vendor_convert_corpus.py`` runs (documents: the round
  trip X -> Lux -> X, both hops, and X -> Y with the context a caller gives);
* the seed formats: the pairs of ``tests/convert_conformance`` (corpus documents and a few
  drawn ones) and each seed format to each vendor format;
* streams: the seed corpus streams, the recorded vendor streams and a few generated seed
  streams, assembled and converted to every stream format.

A required member a conversion could not fill is ``UNSET``; it is allowed only where an Invalid
``target:`` diagnostic names it.
"""

from __future__ import annotations

import copy
import importlib.util
import inspect
import json
import os
import re
import subprocess
import sys
import typing
from functools import cache
from pathlib import Path
from typing import Any, Union

import msgspec
import pytest

import lucent
from lucent import _convert as lucent_convert
from lucent import _decode as lucent_decode
from lucent import streams
from lucent._context import read_by
from lucent._decode import schema_module
from lucent._stream_read import spec
from lucent._typed_values import typed, typed_parts
from lucent.errors import LucentError, StreamError
from lucent.generated import anthropic, lux_ir_v1, openai_responses
from lucent.generated.convert_registry import DOCUMENTS
from lucent.generated.lucent_diagnostics_v1 import ConversionResult
from tests.convert_conformance.inputs import corpus_inputs, generated_inputs
from tests.convert_conformance.pairs import Pair as SeedPair
from tests.convert_conformance.pairs import context_for, pairs as seed_pairs, side
from tests.convert_conformance.validity import Validity
from tests.paths import DATA, REPO
from tests.typed_values import declared, faults
from tests.vendor_convert_corpus import STREAM_CONTEXT, VENDORS, Pair, cases, pairs

FOLLOWUP = DATA / "lingua" / "snapshots" / "toolCallRequest" / "chat-completions" / "followup-request.json"


@cache
def document_type(fmt: str, kind: str) -> Any:
    """The generated type of a ``fmt`` document of ``kind`` (``DOCUMENTS``)."""
    schema, definition = DOCUMENTS[(fmt, kind)]
    module = schema_module(schema)
    return module.DECODE_TYPES.get(definition, module.ROOT)


@cache
def event_type(fmt: str) -> Any:
    """The type of one ``fmt`` stream event: its definition, and the events the published union
    lacks (Anthropic ``ping``/``error``)."""
    found = spec(fmt)
    module = schema_module(found.schema)
    tp = declared(module.__name__).get(found.definition) or module.DECODE_TYPES[found.definition]  # as a type checker reads it
    for _tag, extra in found.side_events:
        tp = Union[tp, extra]  # noqa: UP007 - a run-time union of a type alias and a class
    return tp


def absent(result: Any) -> set[str]:
    """The target paths an Invalid diagnostic names (``target:$.model`` -> ``$.model``)."""
    return {d.field.removeprefix("target:") for d in result.diagnostics if d.status == "Invalid" and d.field.startswith("target:")}


def untyped(result: Any, fmt: str, kind: str) -> list[str]:
    """Where ``result.value`` is not the Struct its annotation names. The one exception, which
    NOTES.md lists: a value whose typed form would drop a member the converter wrote (an open
    object such as Anthropic ``InputSchema`` keeps only its declared members) is returned as the
    converter wrote it; then the typed form must really drop one, or it is a fault."""
    found = faults(result.value, document_type(fmt, kind), absent=absent(result))
    if found and _typed_form_drops_a_member(result.value, fmt, kind):
        return []
    return found


def _typed_form_drops_a_member(value: Any, fmt: str, kind: str) -> bool:
    try:
        typed = msgspec.convert(msgspec.to_builtins(value), document_type(fmt, kind))
    except (msgspec.ValidationError, TypeError):
        return False
    return msgspec.to_builtins(typed) != msgspec.to_builtins(value)


def needed(result: Any) -> dict[str, Any]:
    """The context a caller gives after a first try (tests/vendor_convert_corpus.py's ``_needed``)."""
    from tests.vendor_convert_corpus import _needed

    return dict(_needed(result.diagnostics))


# ------------------------------------------------------------------ the example of the issue
def test_anthropic_tools_are_structs() -> None:
    result = lucent.convert(FOLLOWUP.read_bytes(), "openai-chat", "anthropic", context={"max_tokens": 1024})
    tool = result.value.tools[0]
    assert type(tool) is anthropic.Tool
    assert tool.name == "get_weather"
    assert tool.description == "Get the current weather for a location"
    assert type(tool.input_schema) is anthropic.InputSchema
    assert tool.input_schema.required == ["location"]
    assert untyped(result, "anthropic", "request") == []


def test_responses_tools_and_input_items_are_structs() -> None:
    result = lucent.convert(FOLLOWUP.read_bytes(), "openai-chat", "openai-responses")
    tool = result.value.tools[0]
    assert type(tool) is openai_responses.FunctionTool
    assert (tool.name, tool.strict) == ("get_weather", False)
    assert tool.parameters["required"] == ["location"]
    assert [type(item).__name__ for item in result.value.input] == ["EasyInputMessage", "FunctionToolCall", "FunctionCallOutputItemParam"]
    assert untyped(result, "openai-responses", "request") == []


def test_lux_to_anthropic_tools_are_structs() -> None:
    lux = lucent.convert(FOLLOWUP.read_bytes(), "openai-chat", "lux")
    assert type(lux.value) is lux_ir_v1.LucentRequest
    back = lucent.convert(lux.value, "lux", "anthropic", context={"max_tokens": 1024})
    assert [type(t).__name__ for t in back.value.tools] == ["Tool"]
    assert lucent.encode(back.value) == lucent.encode(lucent.decode(lucent.encode(back.value), "anthropic", "CreateMessageParams"))


def test_a_target_with_faults_is_typed_where_it_can_be() -> None:
    """No ``max_tokens`` (required by Anthropic, absent in the Chat request, no context): the
    target is Invalid there, and its tools are still Tools."""
    result = lucent.convert(FOLLOWUP.read_bytes(), "openai-chat", "anthropic")
    assert [(d.field, d.detail) for d in result.diagnostics if d.status == "Invalid"] == [
        ("target:$.max_tokens", "required by the target (Anthropic requires max_tokens) and not in the source; supply context['max_tokens']")
    ]
    assert result.value.max_tokens is msgspec.UNSET
    assert type(result.value.tools[0]) is anthropic.Tool
    assert result.value.tools[0].name == "get_weather"
    assert untyped(result, "anthropic", "request") == []


def test_typing_the_parts_leaves_the_converted_value_as_it_was() -> None:
    typed = lucent.convert(FOLLOWUP.read_bytes(), "openai-chat", "anthropic", context={"max_tokens": 1024}).value
    tools = [{"name": t.name, "input_schema": t.input_schema} for t in typed.tools]
    raw = changed(typed, tools=tools, max_tokens=msgspec.UNSET)
    out = typed_parts(raw)
    assert [type(t) for t in out.tools] == [anthropic.Tool]
    assert raw.tools is tools and type(tools[0]) is dict  # the converter's value: unchanged
    assert out.tools[0].input_schema == tools[0]["input_schema"]  # a copy: Structs are copied too
    assert out.tools[0].input_schema is not tools[0]["input_schema"]


def test_a_member_the_typed_form_would_drop_is_written_back_on_a_holding_struct() -> None:
    """``InputSchema`` defines no ``additionalProperties``: a converter's tool whose schema has
    it would lose it as a plain Struct, so the typed form is an ``InputSchema`` subclass that
    writes it too (lucent._unknown.holding); where no Struct can write the member (a name
    msgspec cannot give a field), the value stays as the converter wrote it."""
    typed_request = lucent.convert(FOLLOWUP.read_bytes(), "openai-chat", "anthropic", context={"max_tokens": 1024}).value
    raw = changed(typed_request, tools=[{"name": "n", "input_schema": {"type": "object", "additionalProperties": False}}])
    made = typed(raw, None)
    assert type(made.tools[0]) is anthropic.Tool and isinstance(made.tools[0].input_schema, anthropic.InputSchema)
    assert msgspec.to_builtins(made)["tools"][0]["input_schema"] == {"type": "object", "additionalProperties": False}
    assert untyped(ConversionResult(value=made, diagnostics=[]), "anthropic", "request") == []
    kept = changed(typed_request, tools=[{"name": "n", "input_schema": {"type": "object"}}])
    assert type(typed(kept, None).tools[0]) is anthropic.Tool
    unwritable = changed(typed_request, tools=[{"name": "n", "input_schema": {"type": "object", 'x"y': 1}}])
    assert typed(unwritable, None) is unwritable
    # the decode of the text, as convert has it: its length says a member was dropped
    text = lucent.encode(raw)
    decoded = lucent.decode(text, "anthropic", "CreateMessageParams")
    assert b"additionalProperties" not in lucent.encode(decoded)
    again = typed(raw, decoded, text)
    assert json.loads(lucent.encode(again)) == json.loads(text) and type(again.tools[0]) is anthropic.Tool  # the member's position may differ
    text = lucent.encode(kept)
    decoded = lucent.decode(text, "anthropic", "CreateMessageParams")
    assert typed(kept, decoded, text) is decoded


def test_no_generated_struct_has_a_default_so_a_decode_adds_no_member() -> None:
    """What lets :func:`lucent._typed_values.typed` compare lengths instead of sorted texts."""
    from lucent._decode import SCHEMAS
    from lucent._typed_values import _adds_no_member

    assert all(_adds_no_member(schema_module(schema).__name__) for schema in SCHEMAS)


# ------------------------------------------------------------------ the checker itself
def changed(struct: Any, **members: Any) -> Any:
    """A copy of ``struct`` with ``members`` set as they are (``msgspec.structs.replace`` would
    run ``__post_init__``, whose dispatch types the very values under test)."""
    made = copy.copy(struct)
    for name, value in members.items():
        setattr(made, name, value)
    return made


def test_the_checker_finds_a_dict_where_a_struct_is_annotated() -> None:
    """The converter's own value (tools as dicts holding an InputSchema Struct), as convert
    returned it before: every tool is named."""
    typed = lucent.convert(FOLLOWUP.read_bytes(), "openai-chat", "anthropic", context={"max_tokens": 1024}).value
    raw = changed(typed, tools=[{"name": t.name, "input_schema": t.input_schema} for t in typed.tools])
    found = faults(raw, anthropic.CreateMessageParams)
    assert len(found) == 1 and found[0].startswith("$.tools[0]: a dict is none of Tool | BashTool_20250124 | "), found


def test_the_checker_reads_scalars_literals_unset_and_json() -> None:
    request = lucent.decode(FOLLOWUP.read_bytes(), "openai-chat", "CreateChatCompletionRequest")
    assert faults(request, type(request)) == []
    assert faults(changed(request, model=3), type(request)) != []
    assert faults(changed(request, messages=msgspec.UNSET), type(request)) != []
    assert faults(changed(request, messages=msgspec.UNSET), type(request), absent={"$.messages"}) == []
    message = lux_ir_v1.LucentMessage(role="user", content=[lux_ir_v1.LucentContentText(text="hi")])
    assert faults(message, lux_ir_v1.LucentMessage) == []
    assert faults(changed(message, role="robot"), lux_ir_v1.LucentMessage) == ["$.role: 'robot' is not one of ('system', 'user', 'assistant', 'tool', 'model', 'developer')"]
    # a JSON value (Any) holds plain JSON only: a Struct there is a value left untyped
    assert faults({"a": [1, 2.5, None, True, "x"]}, Any) == []
    assert faults({"a": [message]}, Any) == ["$.a[0]: a LucentMessage where a JSON value (Any) is annotated"]
    assert faults(1, float) == [] and faults(True, int) != [] and faults(1.0, int) != []


# ------------------------------------------------------------------ vendor corpus documents
DOCUMENT_PAIRS = pairs(VENDORS, ("request", "response"))


@pytest.mark.parametrize("pair", DOCUMENT_PAIRS, ids=lambda p: f"{p.source}:{'lux:' if p.round_trip else ''}{p.target}:{p.kind}")
def test_vendor_corpus_conversions_are_typed(pair: Pair) -> None:
    found: list[str] = []
    converted = 0
    for case in cases(pair.source, pair.kind)[0]:
        if pair.round_trip:
            first = lucent.convert(case.value, pair.source, "lux", pair.kind)
            second = lucent.convert(first.value, "lux", pair.source, pair.kind)
            steps = [("lux", first), (pair.source, second)]
        else:
            result = lucent.convert(case.value, pair.source, pair.target, pair.kind)
            context = needed(result)
            if context:
                result = lucent.convert(case.value, pair.source, pair.target, pair.kind, context=context)
            steps = [(pair.target, result)]
        for fmt, result in steps:
            converted += 1
            found += [f"{case.file} ({fmt}): {fault}" for fault in untyped(result, fmt, pair.kind)]
    assert converted > 0
    assert found == []


# ------------------------------------------------------------------ seed formats
_SEED = ("lux", "sparktide", "llm-sdk", "htmlp")
SEED_PAIRS = seed_pairs() + [
    SeedPair(side(source, kind), side(target, kind))
    for kind in ("request", "response")
    for source in _SEED
    for target in VENDORS
    if (source, kind) in DOCUMENTS and (target, kind) in DOCUMENTS
]


@cache
def _validity() -> Validity:
    return Validity()


@pytest.mark.parametrize("pair", SEED_PAIRS, ids=lambda p: p.name)
def test_seed_conversions_are_typed(pair: SeedPair) -> None:
    validity = _validity()
    found: list[str] = []
    converted = 0
    for item in corpus_inputs(pair.source, validity) + generated_inputs(pair.source, 10, 0):
        context = context_for(pair.source.format, pair.kind, item.doc, lambda key, value: validity.accepts_member(pair.target, key, value), pair.target.format)
        try:
            result = lucent.convert(json.dumps(item.doc).encode(), pair.source.format, pair.target.format, pair.kind, context=context)
        except LucentError:
            continue  # a refusal is tests/convert_conformance's concern, not a type
        converted += 1
        found += [f"{item.name}: {fault}" for fault in untyped(result, pair.target.format, pair.kind)]
    assert converted > 0
    assert found == []


# ------------------------------------------------------------------ streams
@cache
def _streams() -> tuple[tuple[str, str, Any], ...]:
    from tests.stream_conformance import corpus, generated_streams, vendor_corpus

    generated = [s for fmt in ("sparktide", "llm-sdk", "lux") for s in generated_streams(fmt, 5, seed=0)]
    return tuple(corpus() + vendor_corpus() + generated)


STREAM_CONTEXT_ALL = {**STREAM_CONTEXT, "created_at": STREAM_CONTEXT["created"]}


@pytest.mark.parametrize("source", streams.FORMATS)
def test_stream_events_and_responses_are_typed(source: str) -> None:
    chosen = [(name, events) for name, fmt, events in _streams() if fmt == source]
    assert chosen, f"no {source} stream"
    found: list[str] = []
    for name, events in chosen:
        try:
            response = streams.assemble(events, source)
        except StreamError as exc:
            assert exc.code == "model_error", (name, exc.code)
        else:
            found += [f"{name} assembled: {fault}" for fault in faults(response, document_type(source, "response"))]
        for target in streams.FORMATS:  # source itself too: the events as read (iter_events)
            conversion = streams.convert_stream(events, source, target, context=read_by(STREAM_CONTEXT_ALL, source, target, "stream"))
            written = []
            try:
                written.extend(conversion)
            except StreamError as exc:
                assert exc.code == "model_error", (name, target, exc.code)
            found += [f"{name} -> {target}: {fault}" for i, event in enumerate(written) for fault in faults(event, event_type(target), f"$[{i}]")]
    assert found == []


# ------------------------------------------------------------------ what a type checker knows
def _literal(annotation: str) -> str | None:
    found = re.fullmatch(r"Literal\[['\"]([^'\"]+)['\"]\]", annotation)
    return found.group(1) if found else None


def test_convert_has_one_overload_per_target_and_kind() -> None:
    """``lucent.convert(data, source, "anthropic")`` is ``ConversionResult[CreateMessageParams]``
    for a type checker: one overload per document of ``DOCUMENTS``, then ``ConversionResult[Any]``."""
    found = {}
    for overload in typing.get_overloads(lucent_convert.convert):
        parameters = inspect.signature(overload).parameters
        target, kind = _literal(parameters["target"].annotation), _literal(parameters["kind"].annotation)
        returned = re.fullmatch(r"ConversionResult\[(\w+)\]", inspect.signature(overload).return_annotation)
        assert returned is not None
        if target is None:
            assert (parameters["target"].annotation, returned.group(1)) == ("str", "Any")
            continue
        assert (parameters["kind"].default == "request") == (kind == "request")
        found[(target, kind)] = returned.group(1).replace("LuxError", "LucentError")
    assert found == {key: definition for key, (_schema, definition) in DOCUMENTS.items()}


def test_decode_has_one_overload_per_document_definition() -> None:
    found = {}
    for overload in typing.get_overloads(lucent_decode.decode):
        parameters = inspect.signature(overload).parameters
        schema = _literal(parameters["schema"].annotation)
        if schema is not None:
            definition = _literal(parameters["definition"].annotation)
            found[(schema, definition or "ModelRequest")] = inspect.signature(overload).return_annotation.replace("LuxError", "LucentError")
    assert found == {(schema, definition): definition for schema, definition in DOCUMENTS.values()}
    assert lucent_decode.decode.__name__ == "decode" and len(typing.get_overloads(lucent_decode.decode)) == len(found) + 2  # type=T -> T, then Any


def test_assemble_has_one_overload_per_stream_format() -> None:
    for function in (streams.assemble, streams.assemble_async):
        found = {}
        for overload in typing.get_overloads(function):
            fmt = _literal(inspect.signature(overload).parameters["format"].annotation)
            if fmt is not None:
                found[fmt] = inspect.signature(overload).return_annotation
        assert found == {fmt: DOCUMENTS[(fmt, "response")][1] for fmt in streams.FORMATS}


def test_convert_stream_has_one_overload_per_target() -> None:
    """``convert_stream(..., target="anthropic")`` is a ``StreamConversion`` of Anthropic events
    (the published union and the ``ping``/``error`` events it lacks) for a type checker."""
    for function, name in ((streams.convert_stream, "StreamConversion"), (streams.aconvert_stream, "AsyncStreamConversion")):
        found = {}
        for overload in typing.get_overloads(function):
            target = _literal(inspect.signature(overload).parameters["target"].annotation)
            returned = re.fullmatch(rf"{name}\[(.+)\]", inspect.signature(overload).return_annotation)
            assert returned is not None
            if target is not None:
                found[target] = returned.group(1)
        expected = {fmt: " | ".join([spec(fmt).definition, *(tp.__name__ for _tag, tp in spec(fmt).side_events)]) for fmt in streams.FORMATS}
        assert found == expected


def test_conversion_result_is_generic() -> None:
    assert anthropic.CreateMessageParams in typing.get_args(ConversionResult[anthropic.CreateMessageParams])
    result = ConversionResult[anthropic.CreateMessageParams](value=anthropic.CreateMessageParams(model="m", messages=[], max_tokens=1), diagnostics=[])
    assert lucent.encode(result) == b'{"value":{"model":"m","messages":[],"max_tokens":1},"diagnostics":[]}'
    assert lucent.decode(lucent.encode(result), "lucent-diagnostics-v1", "ConversionResult").value == {"model": "m", "messages": [], "max_tokens": 1}


EXAMPLE = '''
from __future__ import annotations

from typing import Any

import lucent
from lucent.generated.anthropic import CreateMessageParams, Message
from lucent.generated.lucent_diagnostics_v1 import ConversionResult
from lucent.generated.lux_ir_v1 import LucentRequest
from lucent.generated.openai_chat import CreateChatCompletionStreamResponse
from lucent.generated.openai_responses import CreateResponse


def to_anthropic(body: bytes) -> str:
    result = lucent.convert(body, "openai-chat", "anthropic", context={"max_tokens": 1024})
    reveal_type(result)
    return result.value.model


def response(body: bytes) -> Message:
    return lucent.convert(body, "openai-chat", "anthropic", "response").value


def keyword_kind(body: bytes) -> LucentRequest:
    return lucent.convert(body, "openai-chat", "lux", kind="request").value


def to_responses(body: bytes) -> ConversionResult[CreateResponse]:
    return lucent.convert(body, "anthropic", "openai-responses")


def unknown(body: bytes, target: str) -> ConversionResult[Any]:
    return lucent.convert(body, "anthropic", target)


def decoded(body: bytes) -> CreateMessageParams:
    reveal_type(lucent.decode(body, "anthropic", "CreateMessageParams"))
    return lucent.decode(body, type=CreateMessageParams)


def wrong(body: bytes) -> Message:
    return lucent.convert(body, "openai-chat", "anthropic").value


def decoded_wrong(body: bytes) -> Message:
    return lucent.decode(body, type=CreateMessageParams)


def assembled(body: bytes) -> Message:
    return lucent.streams.assemble(body, "anthropic")


def assembled_wrong(body: bytes) -> CreateMessageParams:
    return lucent.streams.assemble(body, "anthropic")


def first_chunk(body: bytes) -> CreateChatCompletionStreamResponse:
    return next(lucent.streams.convert_stream(body, "anthropic", "openai-chat"))


def first_chunk_wrong(body: bytes) -> Message:
    return next(lucent.streams.convert_stream(body, "anthropic", "gemini"))
'''


@pytest.mark.skipif(importlib.util.find_spec("mypy") is None, reason="mypy is not installed in this environment")
def test_mypy_strict_knows_the_result_types(tmp_path: Path) -> None:
    """mypy --strict on a small caller: the result types are revealed, and a request taken for
    a response is an error. lucent is laid out as installed (generated/ as lucent/generated)."""
    package = tmp_path / "site" / "lucent"
    package.mkdir(parents=True)
    for entry in (REPO / "lucent").iterdir():
        if entry.name != "generated":
            (package / entry.name).symlink_to(entry)
    (package / "generated").symlink_to(REPO / "generated")
    (tmp_path / "example.py").write_text(EXAMPLE, encoding="utf-8")
    result = subprocess.run(
        [sys.executable, "-m", "mypy", "--strict", "--no-incremental", "--follow-imports=silent", "example.py"],
        capture_output=True, text=True, cwd=tmp_path, env={**os.environ, "MYPYPATH": str(tmp_path / "site")},
    )
    lines = [line.split(": ", 1)[1] for line in result.stdout.splitlines() if line.startswith("example.py:")]
    assert lines == [
        'note: Revealed type is "lucent.generated.lucent_diagnostics_v1.ConversionResult[lucent.generated.anthropic.CreateMessageParams]"',
        'note: Revealed type is "lucent.generated.anthropic.CreateMessageParams"',
        'error: Incompatible return value type (got "CreateMessageParams", expected "Message")  [return-value]',
        'error: Incompatible return value type (got "CreateMessageParams", expected "Message")  [return-value]',
        'error: Incompatible return value type (got "Message", expected "CreateMessageParams")  [return-value]',
        'error: Incompatible return value type (got "GenerateContentResponse", expected "Message")  [return-value]',
    ], result.stdout
