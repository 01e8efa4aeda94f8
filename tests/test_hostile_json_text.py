"""JSON text inside values, and hostile arguments to the stream API: never a silent null, never
an exception that is not a lucent error.

Tool-call arguments and tool results hold JSON *text*. A converter that turns such text into a
value (llm-sdk ``args``, htmlp ``arguments``) or a value into text reads and writes it as
``lucent.decode`` reads a document (``lucent._validation.load_json_text``): ``1e999`` is
a number out of range, never ``inf`` (which has no JSON text: ``json.dumps`` raised ValueError
and msgspec wrote ``null``), and nesting deeper than ``MAX_JSON_TEXT_DEPTH`` is refused before
parsing (no RecursionError). What cannot be carried is an Invalid diagnostic at its path.
"""

from __future__ import annotations

import asyncio
import copy
import json
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import msgspec
import pytest

import lucent
from lucent import sse, streams
from lucent.errors import ConversionError, DecodeError, EncodeError, LucentError, StreamError, UsageError, ValidationError
from lucent._validation import MAX_JSON_TEXT_DEPTH, JsonTextError, dump_json_text, load_json_text
from lucent.generated.htmlp_model_request import ContentBlockToolUse
from lucent.generated.sparktide_remote_1_0 import RemoteModelToolDelta

ROOT = Path(__file__).parent.parent
SPARK_REQUEST = json.loads((ROOT / "examples" / "sparktide-request.json").read_bytes())
ARGS = "$.messages[1].tool_calls[0].function.arguments"
RESULT = "$.messages[2].content"
OUT_OF_RANGE = "a number out of range (beyond a JSON double, such as 1e999, or an integer of over 4,300 digits)"
SPARKTIDE_RULE = "SparkTide tool arguments must be a complete, closed JSON object (no duplicate properties, no trailing JSON, not null); carried verbatim"
TOO_DEEP = f"nesting deeper than {MAX_JSON_TEXT_DEPTH} levels"
HUGE = ['{"a":1e999}', '{"a":-1e999}', '{"a":[2.5e400]}', '{"a":' + "1" * 5000 + "}"]
DEEP = ["[" * 5000 + "]" * 5000, '{"a":' + "[" * 600 + "]" * 600 + "}"]


def sparktide_request(arguments: str = "{}", result: str = "65") -> bytes:
    document = copy.deepcopy(SPARK_REQUEST)
    document["messages"][1]["tool_calls"][0]["function"]["arguments"] = arguments
    document["messages"][2]["content"] = result
    return json.dumps(document).encode()


def at(result: Any, field: str) -> list[tuple[str, str]]:
    return [(d.status, d.detail) for d in result.diagnostics if d.field == field]


def lux_events(arguments: str = "{}") -> list[dict[str, Any]]:
    return [
        {"event": "conversation_start", "meta": {"id": "r", "model": "m"}},
        {"event": "item_start", "index": 0, "item": {"type": "message", "message": {"role": "assistant", "content": []}}},
        {"event": "block_start", "index": 0, "block_type": {"type": "tool_call", "id": "c", "name": "f"}},
        {"event": "block_delta", "index": 0, "delta": {"type": "tool_arguments", "arguments": arguments}},
        {"event": "block_end", "index": 0},
        {"event": "item_end", "index": 0},
        {"event": "finish", "finish_reason": "tool_calls"},
        {"event": "done"},
    ]


def sdk_partials(args: str) -> list[dict[str, Any]]:
    return [{"delta": {"index": 0, "part": {"type": "tool-call", "toolCallId": "c", "toolName": "f", "args": args}}}]


# ------------------------------------------------------------------ the reader and writer


@pytest.mark.parametrize(
    ("text", "kind"),
    [
        ('{"a":1e999}', "number_out_of_range"),
        ("-1e999", "number_out_of_range"),
        ("1" + "0" * 5000, "number_out_of_range"),
        ("[" * (MAX_JSON_TEXT_DEPTH + 1) + "]" * (MAX_JSON_TEXT_DEPTH + 1), "max_depth"),
        ("[" * 100_000, "max_depth"),
        ('{"a":1,"a":2}', "duplicate_key"),
        ("NaN", "not_json"),
        ('"\\ud800"', "lone_surrogate"),
        ('"\\udc00\\ud800"', "lone_surrogate"),
        ('"\ud800"', "lone_surrogate"),
        ("[1] 2", "trailing_data"),
        ("{", "malformed"),
    ],
)
def test_load_json_text_refuses_what_decode_refuses(text: str, kind: str) -> None:
    with pytest.raises(JsonTextError) as info:
        load_json_text(text)
    assert info.value.kind == kind
    assert isinstance(info.value, ValueError)


def test_load_json_text_refuses_what_is_not_text() -> None:
    value: Any = 5  # a Struct built in Python may hold anything
    with pytest.raises(JsonTextError) as info:
        load_json_text(value)
    assert (info.value.kind, info.value.problem) == ("not_json", "a int, not JSON text")


def test_load_json_text_takes_what_decode_takes() -> None:
    deepest = "[" * MAX_JSON_TEXT_DEPTH + "]" * MAX_JSON_TEXT_DEPTH
    assert load_json_text(deepest) is not None
    assert load_json_text('"[[[[\\\\ud800"') == "[[[[\\ud800"  # brackets in a string, an escaped backslash
    assert load_json_text('"\\ud83d\\ude00"') == "\U0001f600"
    assert load_json_text("[1e-999, 12345678901234567890]") == [0.0, 12345678901234567890]


@pytest.mark.parametrize(
    ("value", "kind"),
    [
        ({"a": float("inf")}, "not_json"),
        ([float("nan")], "not_json"),
        ({(1,): 2}, "not_json"),
        ({"a": {1, 2}}, "not_json"),
        ("\ud800", "lone_surrogate"),
    ],
)
def test_dump_json_text_refuses_a_value_with_no_json_text(value: Any, kind: str) -> None:
    with pytest.raises(JsonTextError) as info:
        dump_json_text(value)
    assert info.value.kind == kind


def test_dump_json_text_refuses_deep_values_without_recursion_error() -> None:
    value: Any = []
    for _ in range(100_000):
        value = [value]
    with pytest.raises(JsonTextError) as info:
        dump_json_text(value)
    assert info.value.kind == "max_depth"
    shallow: Any = []
    for _ in range(MAX_JSON_TEXT_DEPTH + 1):
        shallow = [shallow]
    with pytest.raises(JsonTextError):
        dump_json_text(shallow)
    assert dump_json_text({"a": [1, "é"]}) == '{"a":[1,"é"]}'


# ------------------------------------------------------------------ fault 1: 1e999 in documents


@pytest.mark.parametrize("arguments", HUGE, ids=["1e999", "-1e999", "2.5e400", "5000-digits"])
def test_huge_numbers_in_arguments_to_llm_sdk_are_invalid_and_written_as_null(arguments: str) -> None:
    result = lucent.convert(sparktide_request(arguments), "sparktide", "llm-sdk")
    call = result.value.messages[1].content[0]
    assert call.toolCallId == "call_sf" and call.args is None
    # one diagnostic a path (docs/semantics.md): both hops' details, joined
    assert at(result, ARGS) == [
        ("Invalid", f"{SPARKTIDE_RULE}: {OUT_OF_RANGE}; llm-sdk args are a JSON object (or null); arguments that are not one are written as null: {OUT_OF_RANGE}"),
    ]
    assert b'"toolCallId":"call_sf","toolName":"get_weather","args":null' in lucent.encode(result.value)


@pytest.mark.parametrize("arguments", HUGE, ids=["1e999", "-1e999", "2.5e400", "5000-digits"])
def test_huge_numbers_in_arguments_to_htmlp_stay_text_never_null(arguments: str) -> None:
    result = lucent.convert(sparktide_request(arguments), "sparktide", "htmlp")
    blocks = [b for f in result.value.fragments for b in f.content if isinstance(b, ContentBlockToolUse)]
    assert blocks[0].arguments == arguments  # kept as a JSON string, as the spec says
    assert blocks[1].arguments == {"location": "New York, NY"}
    assert at(result, ARGS) == [
        ("Invalid", f"{SPARKTIDE_RULE}: {OUT_OF_RANGE}; Lux tool arguments are the JSON text of one value; kept as a JSON string: {OUT_OF_RANGE}"),
    ]


def test_huge_numbers_in_arguments_are_kept_verbatim_in_lux_and_reported() -> None:
    result = lucent.convert(sparktide_request('{"a":1e999}'), "sparktide", "lux")
    assert result.value.conversation[1].message.content[0].tool_use.arguments == '{"a":1e999}'
    assert at(result, ARGS) == [("Invalid", f"{SPARKTIDE_RULE}: {OUT_OF_RANGE}")]


def test_a_lux_source_with_huge_arguments_to_llm_sdk_is_invalid_and_null() -> None:
    lux = lucent.convert(sparktide_request(), "sparktide", "lux").value
    lux.conversation[1].message.content[0].tool_use.arguments = '{"a":1e999}'
    result = lucent.convert(lucent.encode(lux), "lux", "llm-sdk")
    assert result.value.messages[1].content[0].args is None
    field = "$.conversation[1].message.content[0].tool_use.arguments"
    assert at(result, field) == [
        ("Invalid", f"llm-sdk args are a JSON object (or null); arguments that are not one are written as null: {OUT_OF_RANGE}")
    ]


def test_a_huge_number_in_a_tool_result_to_llm_sdk_is_text_with_the_reason() -> None:
    result = lucent.convert(sparktide_request(result='{"a":1e999}'), "sparktide", "llm-sdk")
    part = result.value.messages[2].content[0]
    assert part.result == [{"type": "text", "text": '{"a":1e999}'}]
    assert at(result, RESULT) == [
        (
            "Degraded",
            "an llm-sdk result is one JSON object or array; other content is written as llm-sdk text parts inside result: "
            f"the text is JSON that lucent does not read as a value ({OUT_OF_RANGE})",
        )
    ]


def test_decode_refuses_huge_numbers_and_deep_nesting_in_sparktide_arguments() -> None:
    for arguments, reason in (('{"a":1e999}', "holds a number out of range"), (DEEP[0], f"nests deeper than {MAX_JSON_TEXT_DEPTH} levels")):
        with pytest.raises(ValidationError) as info:
            lucent.decode(sparktide_request(arguments), "sparktide-remote-1.0", "RemoteModelRequest")
        assert (info.value.code, info.value.path) == ("tool_arguments", ARGS)
        assert info.value.message.startswith(f"arguments {reason}")


def test_a_python_struct_holding_infinity_in_args_is_a_usage_error_never_a_value_error() -> None:
    # A Struct given to convert is written as JSON first, as a dict is (tests/test_convert_faults.py):
    # NaN and infinity have no JSON form, so the Struct is refused at the first one's path.
    document = {
        "messages": [
            {"role": "assistant", "content": [{"type": "tool-call", "toolCallId": "c", "toolName": "f", "args": {"a": 1}}]},
            {"role": "tool", "content": [{"type": "tool-result", "toolCallId": "c", "toolName": "f", "result": {"a": 1}}]},
        ]
    }
    source = lucent.decode(json.dumps(document), "llm-sdk", "LanguageModelInput")
    source.messages[0].content[0].args = {"a": float("inf")}
    source.messages[1].content[0].result = [float("nan")]
    with pytest.raises(lucent.errors.UsageError) as info:
        lucent.convert(source, "llm-sdk", "lux", context={"model": "m", "stream": False})
    assert (info.value.code, info.value.path) == ("invalid_input_type", "$.messages[0].content[0].args.a")
    assert "NaN or an infinite number" in info.value.message
    source.messages[0].content[0].args = {"a": 1.5}
    with pytest.raises(lucent.errors.UsageError) as info:
        lucent.convert(source, "llm-sdk", "lux", context={"model": "m", "stream": False})
    assert info.value.path == "$.messages[1].content[0].result[0]"


# ------------------------------------------------------------------ fault 2: deep argument text


@pytest.mark.parametrize("arguments", DEEP, ids=["array-5000", "object-600"])
@pytest.mark.parametrize("target", ["lux", "llm-sdk", "htmlp"])
def test_deep_argument_text_is_invalid_never_a_recursion_error(arguments: str, target: str) -> None:
    result = lucent.convert(sparktide_request(arguments, result=arguments), "sparktide", target)
    second = {
        "lux": "",
        "llm-sdk": f"; llm-sdk args are a JSON object (or null); arguments that are not one are written as null: {TOO_DEEP}",
        "htmlp": f"; Lux tool arguments are the JSON text of one value; kept as a JSON string: {TOO_DEEP}",
    }[target]
    assert at(result, ARGS) == [("Invalid", f"{SPARKTIDE_RULE}: {TOO_DEEP}{second}")]  # one diagnostic a path


def test_deep_argument_values_are_invalid_and_written_as_null() -> None:
    document = copy.deepcopy(json.loads(lucent.encode(lucent.convert(sparktide_request(), "sparktide", "htmlp").value)))
    deep: Any = {}
    for _ in range(900):
        deep = {"k": deep}
    fragment = next(f for f in document["fragments"] if any(b["type"] == "tool_use" for b in f["content"]))
    fragment["content"][0]["arguments"] = deep
    index = document["fragments"].index(fragment)
    with pytest.raises(DecodeError) as refused:  # deeper than the default lucent.Limits.max_depth
        lucent.convert(json.dumps(document).encode(), "htmlp", "lux")
    assert (refused.value.code, refused.value.path) == ("max_depth", "$")
    result = lucent.convert(json.dumps(document).encode(), "htmlp", "lux", limits=lucent.Limits(max_depth=1000))
    field = f"$.fragments[{index}].content[0].arguments"
    assert at(result, field) == [("Invalid", f"the value has no JSON text: it nests deeper than {MAX_JSON_TEXT_DEPTH} levels; written as null")]
    calls = [c for item in result.value.conversation if hasattr(item, "message") for c in item.message.content if hasattr(c, "tool_use")]
    assert calls[0].tool_use.arguments == "null"


@pytest.mark.parametrize("arguments", [*DEEP, '{"a":1e999}'], ids=["array-5000", "object-600", "1e999"])
@pytest.mark.parametrize("target", ["sparktide", "llm-sdk"])
def test_stream_conversion_reports_uncarriable_arguments_at_their_block(arguments: str, target: str) -> None:
    conversion = streams.convert_stream(lux_events(arguments), "lux", target)
    out = list(conversion)
    deep = "1e999" not in arguments
    if target == "sparktide":
        expected = f"SparkTide tool arguments must be a complete, closed JSON object; found {TOO_DEEP if deep else OUT_OF_RANGE}; carried verbatim"
        texts = [e.arguments for e in out if isinstance(e, RemoteModelToolDelta) and e.arguments is not msgspec.UNSET]
    else:
        why = f"nests deeper than {MAX_JSON_TEXT_DEPTH} levels" if deep else f"holds {OUT_OF_RANGE}"
        expected = f"llm-sdk args are a JSON object (or null); the arguments text {why}; carried verbatim, so the llm-sdk stream does not assemble"
        texts = [e.delta.part.args for e in out if e.delta.part.args is not msgspec.UNSET]
    assert [(d.status, d.detail) for d in conversion.diagnostics if d.field == "$[2]"] == [("Invalid", expected)]
    assert texts == [arguments]  # carried verbatim, as the diagnostic says


# ------------------------------------------------------------------ fault 6: llm-sdk stream args


@pytest.mark.parametrize(
    ("args", "reason"),
    [
        ('{"a":1e999}', "holds a number out of range"),
        ('{"a":-1e999}', "holds a number out of range"),
        (DEEP[0], f"nests deeper than {MAX_JSON_TEXT_DEPTH} levels"),
        ('{"a":"\\ud800"}', "holds a lone UTF-16 surrogate"),
    ],
)
def test_llm_sdk_stream_args_that_are_no_value_are_malformed_never_null(args: str, reason: str) -> None:
    with pytest.raises(StreamError) as info:
        streams.assemble(sdk_partials(args), "llm-sdk")
    assert (info.value.code, info.value.path) == ("malformed_arguments", "$[0].delta.part.args")
    assert f"the args of the tool call at index 0, concatenated, {reason}" in info.value.message
    with pytest.raises(StreamError) as again:
        list(streams.convert_stream(sdk_partials(args), "llm-sdk", "lux", context={"id": "r", "model": "m"}))
    assert again.value.code == "malformed_arguments"


def test_sparktide_stream_arguments_with_a_huge_number_are_malformed() -> None:
    frames = [
        {"protocolVersion": "1.0", "type": "tool.delta", "index": 0, "id": "c", "name": "f", "arguments": '{"a":1e999}'},
        {"protocolVersion": "1.0", "type": "model.completed", "finishReason": "TOOL_CALLS"},
    ]
    with pytest.raises(StreamError) as info:
        streams.assemble(frames, "sparktide")
    assert (info.value.code, info.value.path) == ("malformed_arguments", "$[0].arguments")


# ------------------------------------------------------------------ fault 3: argument misuse


@pytest.mark.parametrize("tools", [5, [1], ["f", None], object(), "f", b"f"])
def test_tools_of_the_wrong_type_are_a_usage_error_everywhere(tools: Any) -> None:
    calls = [
        lambda: streams.assemble(lux_events(), "lux", tools=tools),
        lambda: streams.assembler("lux", tools=tools),
        lambda: streams.convert_stream(lux_events(), "lux", "sparktide", tools=tools),
        lambda: streams.aconvert_stream(lux_events(), "lux", "sparktide", tools=tools),
        lambda: asyncio.run(streams.assemble_async(lux_events(), "lux", tools=tools)),
    ]
    for call in calls:
        with pytest.raises(UsageError) as info:
            call()
        assert info.value.code == "invalid_input_type"


def test_tools_that_raise_while_read_are_a_usage_error() -> None:
    def names() -> Iterator[str]:
        yield "f"
        raise OSError("gone")

    with pytest.raises(UsageError) as info:
        streams.assemble(lux_events(), "lux", tools=names())
    assert info.value.code == "invalid_input_type"
    assert streams.assemble(lux_events(), "lux", tools=("f",)).choices[0].message.content[0].tool_use.name == "f"


@pytest.mark.parametrize("events", [None, 5, "data: x\n\n", {"event": "done"}])
def test_encode_sse_refuses_what_is_not_an_iterable_of_events(events: Any) -> None:
    with pytest.raises(UsageError) as info:
        streams.encode_sse(events)
    assert info.value.code == "invalid_input_type"


def test_the_sse_functions_refuse_arguments_of_the_wrong_type() -> None:
    for call, code in [
        (lambda: list(sse.parse(["data: x\n\n"])), "invalid_input_type"),  # type: ignore[list-item]
        (lambda: list(sse.parse(None)), "invalid_input_type"),  # type: ignore[arg-type]
        (lambda: sse.SSEParser().feed("data: x"), "invalid_input_type"),  # type: ignore[arg-type]
        (lambda: sse.encode_event(None), "invalid_input_type"),  # type: ignore[arg-type]
        (lambda: sse.encode_event("x", event=5), "invalid_sse_field"),  # type: ignore[arg-type]
        (lambda: sse.encode_comment(None), "invalid_input_type"),  # type: ignore[arg-type]
    ]:
        with pytest.raises(UsageError) as info:
            call()
        assert info.value.code == code
    assert [e.data for e in sse.parse(b"data: x\n\n")] == ["x"]  # one bytes object is one chunk


def test_an_sse_source_that_raises_is_interrupted() -> None:
    def chunks() -> Iterator[bytes]:
        yield b"data: x\n\nda"
        raise ConnectionResetError

    events = []
    with pytest.raises(StreamError) as info:
        for event in sse.parse(chunks()):
            events.append(event.data)
    assert events == ["x"]
    assert (info.value.code, info.value.offset) == ("interrupted", 11)

    async def achunks() -> AsyncIterator[bytes]:
        yield b"data: y\n\n"
        raise TimeoutError

    async def read() -> list[str]:
        return [e.data async for e in sse.aparse(achunks())]

    with pytest.raises(StreamError) as ainfo:
        asyncio.run(read())
    assert ainfo.value.code == "interrupted"


# ------------------------------------------------------------------ fault 4: deep Python events


def deep_dict(depth: int) -> dict[str, Any]:
    value: dict[str, Any] = {}
    for _ in range(depth):
        value = {"k": value}
    return value


@pytest.mark.parametrize("format", ["lux", "sparktide", "llm-sdk"])
def test_a_deep_python_event_is_a_malformed_frame(format: str) -> None:
    events: list[Any] = lux_events()
    events[0] = {**events[0], "meta": {"id": "r", "model": "m", "x": deep_dict(100_000)}}
    with pytest.raises(StreamError) as info:
        streams.assemble(events, format)
    assert (info.value.code, info.value.path) == ("malformed_frame", "$[0]")
    with pytest.raises(StreamError) as again:
        list(streams.convert_stream(events, format, "lux" if format != "lux" else "sparktide"))
    assert (again.value.code, again.value.path) == ("malformed_frame", "$[0]")


def test_a_deep_python_event_from_an_async_source_is_a_malformed_frame() -> None:
    async def source() -> AsyncIterator[Any]:
        yield lux_events()[0]
        yield {"event": "item_start", "index": 0, "item": [deep_dict(100_000)]}

    with pytest.raises(StreamError) as info:
        asyncio.run(streams.assemble_async(source(), "lux"))
    assert (info.value.code, info.value.path) == ("malformed_frame", "$[1]")


def test_nan_or_infinity_in_a_python_event_is_an_invalid_frame_never_null() -> None:
    events = lux_events()
    events[6] = {"event": "finish", "finish_reason": "tool_calls", "score": float("inf")}
    with pytest.raises(StreamError) as info:
        streams.assemble(events, "lux")
    assert (info.value.code, info.value.path) == ("invalid_frame", "$[6].score")
    events = lux_events()
    events.insert(7, {"event": "usage", "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": float("nan")}})
    with pytest.raises(StreamError) as again:
        list(streams.convert_stream(events, "lux", "sparktide"))
    assert (again.value.code, again.value.path) == ("invalid_frame", "$[7].usage.total_tokens")


def test_encode_sse_refuses_deep_and_non_finite_events_with_typed_errors() -> None:
    with pytest.raises(EncodeError) as deep:
        list(streams.encode_sse([{"event": "done"}, deep_dict(100_000)]))
    assert (deep.value.code, deep.value.path) == ("max_depth", "$[1]")
    with pytest.raises(EncodeError) as inf:
        list(streams.encode_sse([{"event": "finish", "x": [float("-inf")]}]))
    assert (inf.value.code, inf.value.path) == ("unencodable", "$[0].x[0]")
    assert list(streams.encode_sse([{"event": "done", "x": None}])) == [b'data: {"event":"done","x":null}\n\n']


def test_encode_sse_reports_a_failing_event_source_as_interrupted() -> None:
    def events() -> Iterator[Any]:
        yield {"event": "done"}
        raise OSError("gone")

    with pytest.raises(StreamError) as info:
        list(streams.encode_sse(events()))
    assert (info.value.code, info.value.path) == ("interrupted", "$[1]")


# ------------------------------------------------------------------ fault 5: unknown Lux members


def with_unknown_members() -> list[dict[str, Any]]:
    events = lux_events('{"q":1}')
    events[0]["zz"] = 1
    events[0]["meta"]["odd key"] = {"x": 1}
    events[1]["item"]["message"]["content"] = [{"type": "text", "text": "hi", "w": 2}]
    events[3]["delta"]["q"] = [1]
    return events


UNKNOWN = ['$[0].meta["odd key"]', "$[0].zz", "$[1].item.message.content[0].w", "$[3].delta.q"]


@pytest.mark.parametrize("target", ["sparktide", "llm-sdk", "lux"])
def test_unknown_members_of_lux_events_are_unsupported_in_every_target(target: str) -> None:
    conversion = streams.convert_stream(with_unknown_members(), "lux", target)
    list(conversion)
    unsupported = [d for d in conversion.diagnostics if d.field in UNKNOWN]
    assert [d.field for d in unsupported] == UNKNOWN
    assert {d.status for d in unsupported} == {"Unsupported"}
    assert all("the schema does not define" in (d.detail or "") for d in unsupported)


def test_unknown_members_are_reported_from_sse_bytes_too_and_strict_stops_at_the_first() -> None:
    body = b"".join(b"data: " + json.dumps(e).encode() + b"\n\n" for e in with_unknown_members())
    conversion = streams.convert_stream(body, "lux", "llm-sdk")
    list(conversion)
    assert [d.field for d in conversion.diagnostics if d.status == "Unsupported" and d.field in UNKNOWN] == UNKNOWN
    with pytest.raises(ConversionError) as info:
        list(streams.convert_stream(body, "lux", "lux", strict=True))
    assert info.value.path == UNKNOWN[0]


def test_lux_events_without_unknown_members_report_none() -> None:
    conversion = streams.convert_stream(lux_events(), "lux", "lux")
    events = list(conversion)
    assert conversion.diagnostics == []
    again = streams.convert_stream(b"".join(streams.encode_sse(events)), "lux", "lux")
    list(again)
    assert again.diagnostics == []


# ------------------------------------------------------------------ nothing else escapes


@pytest.mark.parametrize(
    "source",
    [
        lux_events('{"a":"\\u0000"}'),
        [{"event": "done", "x": "\ud800"}],
        [{(1,): 2}],
        b"data: " + b"[" * 100_000 + b"\n\n",
        b'data: {"event":"usage","usage":{"prompt_tokens":1e999}}\n\n',
        b'data: {"event":"done","x":' + b"1" * 5000 + b"}\n\n",
    ],
)
@pytest.mark.parametrize("target", ["lux", "sparktide", "llm-sdk"])
def test_hostile_lux_sources_raise_only_lucent_errors(source: Any, target: str) -> None:
    try:
        list(streams.convert_stream(source, "lux", target, context={"id": "r", "model": "m"}))
    except LucentError:
        pass
    try:
        streams.assemble(source, "lux")
    except LucentError:
        pass

