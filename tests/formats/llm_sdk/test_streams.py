"""llm-sdk streams: PartialModelResponse values accumulated per index into a ModelResponse."""

from __future__ import annotations

import asyncio
import base64
import json
from collections.abc import AsyncIterator
from typing import Any

import msgspec
import pytest
from lucent.generated.llm_sdk import ModelResponse, PartialModelResponse

from lucent import streams
from lucent.errors import StreamError


def partial(index: int, type: str, **fields: Any) -> dict[str, Any]:
    return {"delta": {"index": index, "part": {"type": type, **fields}}}


def assemble(*partials: dict[str, Any], **kw: Any) -> Any:
    result = streams.assemble(list(partials), "llm-sdk", **kw)
    assert isinstance(result, ModelResponse)
    return msgspec.to_builtins(result)


def fails(*partials: dict[str, Any], **kw: Any) -> StreamError:
    with pytest.raises(StreamError) as info:
        streams.assemble(list(partials), "llm-sdk", **kw)
    return info.value


def test_text_concatenates_per_index_and_parts_come_out_by_index() -> None:
    result = assemble(
        partial(1, "text", text="b1"),
        partial(0, "text", text="a1"),
        partial(1, "text", text="b2"),
        partial(0, "text", text="a2"),
    )
    assert result == {"content": [{"type": "text", "text": "a1a2"}, {"type": "text", "text": "b1b2"}]}


def test_tool_call_args_concatenate_and_are_parsed() -> None:
    result = assemble(
        partial(0, "tool-call", toolCallId="c1", toolName="lookup", args='{"q":'),
        partial(0, "tool-call", args='"设备"'),
        partial(0, "tool-call", args="}"),
    )
    assert result["content"] == [{"type": "tool-call", "toolCallId": "c1", "toolName": "lookup", "args": {"q": "设备"}}]


@pytest.mark.parametrize("pieces", [[], [""], ["", " "]], ids=["absent", "empty", "blank"])
def test_a_tool_call_without_args_gets_an_empty_object(pieces: list[str]) -> None:
    first = partial(0, "tool-call", toolCallId="c", toolName="now")
    result = assemble(first, *[partial(0, "tool-call", args=p) for p in pieces])
    assert result["content"][0]["args"] == {}


def test_null_args_stay_null_as_the_schema_allows() -> None:
    assert assemble(partial(0, "tool-call", toolCallId="c", toolName="f", args="null"))["content"][0]["args"] is None


def test_tool_id_and_name_are_stable_a_repeat_is_not_appended() -> None:
    result = assemble(
        partial(0, "tool-call", toolCallId="c", toolName="f", args="{"),
        partial(0, "tool-call", toolCallId="c", toolName="f", args="}"),
    )
    assert (result["content"][0]["toolCallId"], result["content"][0]["toolName"]) == ("c", "f")


@pytest.mark.parametrize("field", ["toolCallId", "toolName"])
def test_a_changed_tool_id_or_name_is_tool_identity_changed(field: str) -> None:
    error = fails(partial(0, "tool-call", toolCallId="c", toolName="f"), partial(0, "tool-call", **{field: "other"}))
    assert (error.code, error.path) == ("tool_identity_changed", f"$[1].delta.part.{field}")
    assert "index 0" in error.message


def test_a_changed_part_type_at_an_index_is_part_type_changed() -> None:
    error = fails(partial(0, "text", text="a"), partial(0, "tool-call", toolCallId="c", toolName="f"))
    assert (error.code, error.path) == ("part_type_changed", "$[1].delta.part.type")


def test_a_changed_part_id_is_part_field_changed() -> None:
    error = fails(partial(0, "text", text="a", id="p1"), partial(0, "text", text="b", id="p2"))
    assert (error.code, error.path) == ("part_field_changed", "$[1].delta.part.id")
    assert assemble(partial(0, "text", text="a", id="p1"), partial(0, "text", text="b", id="p1"))["content"][0]["id"] == "p1"


@pytest.mark.parametrize("args", ['{"a":', '{"a":1}{"b":2}', '{"a":1,"a":2}', "[1]", "NaN"])
def test_args_that_are_not_one_json_object_are_malformed_arguments(args: str) -> None:
    error = fails(partial(0, "tool-call", toolCallId="c", toolName="f", args=args[:2]), partial(0, "tool-call", args=args[2:]), partial(1, "text", text="x"))
    assert (error.code, error.path) == ("malformed_arguments", "$[1].delta.part.args")


def test_a_tool_call_without_id_or_name_is_incomplete() -> None:
    error = fails(partial(0, "text", text="x"), partial(1, "tool-call", args="{}"), partial(1, "tool-call", toolName="f"))
    assert (error.code, error.path) == ("incomplete_tool_call", "$[1].delta.part")


def test_an_undeclared_tool_name_is_rejected_when_tools_are_given() -> None:
    error = fails(partial(0, "tool-call", toolCallId="c", toolName="f"), tools={"g"})
    assert (error.code, error.path) == ("tool_name_not_declared", "$[0].delta.part.toolName")


# ---------------------------------------------------------------- audio


def b64(data: bytes) -> str:
    return base64.b64encode(data).decode()


def test_audio_bytes_concatenate_across_independently_encoded_chunks() -> None:
    pcm = [bytes(range(i, i + 5)) for i in range(0, 50, 5)]  # 5 bytes: each chunk is padded
    result = assemble(
        partial(0, "audio", audioData=b64(pcm[0]), encoding="linear16", sampleRate=24000, channels=1),
        *[partial(0, "audio", audioData=b64(c), encoding="linear16") for c in pcm[1:]],
    )
    part = result["content"][0]
    assert base64.b64decode(part["audioData"]) == b"".join(pcm)
    assert (part["encoding"], part["sampleRate"], part["channels"]) == ("linear16", 24000, 1)


@pytest.mark.parametrize("cut", range(13))
def test_audio_base64_split_anywhere_decodes_the_same(cut: int) -> None:
    text = b64(b"0123456789ab")
    result = assemble(partial(0, "audio", audioData=text[:cut]), partial(0, "audio", audioData=text[cut:]))
    assert base64.b64decode(result["content"][0]["audioData"]) == b"0123456789ab"


def test_audio_transcript_concatenates() -> None:
    result = assemble(partial(0, "audio", audioData="", transcript="Hel"), partial(0, "audio", transcript="lo"))
    assert result["content"][0]["transcript"] == "Hello"


def test_a_changed_audio_format_is_part_field_changed() -> None:
    error = fails(partial(0, "audio", audioData="", sampleRate=16000), partial(0, "audio", sampleRate=24000))
    assert (error.code, error.path) == ("part_field_changed", "$[1].delta.part.sampleRate")


@pytest.mark.parametrize("data", ["not base64!", "QUJD="], ids=["alphabet", "padding"])
def test_audio_data_that_is_not_base64_is_malformed_audio(data: str) -> None:
    error = fails(partial(0, "audio", audioData="QUJD"), partial(0, "audio", audioData=data))
    assert (error.code, error.path) == ("malformed_audio", "$[1].delta.part.audioData")


def test_audio_data_that_ends_inside_a_base64_group_is_malformed_audio() -> None:
    error = fails(partial(0, "audio", audioData="QUJ"))
    assert (error.code, error.path) == ("malformed_audio", "$[0].delta.part.audioData")


# ---------------------------------------------------------------- sources


PARTIALS = [
    partial(0, "text", text="正在"),
    partial(1, "tool-call", toolCallId="call_1", toolName="lookup", args='{"q":'),
    partial(0, "text", text="查询"),
    partial(1, "tool-call", args="1}"),
]
EXPECTED = {
    "content": [
        {"type": "text", "text": "正在查询"},
        {"type": "tool-call", "toolCallId": "call_1", "toolName": "lookup", "args": {"q": 1}},
    ]
}


def body() -> bytes:
    return b"".join(b"data: " + json.dumps(p, ensure_ascii=False).encode() + b"\n\n" for p in PARTIALS)


def test_sse_bytes_split_at_every_offset_assemble_the_same() -> None:
    data = body()
    for cut in range(len(data) + 1):
        assert msgspec.to_builtins(streams.assemble([data[:cut], data[cut:]], "llm-sdk")) == EXPECTED, cut


def test_structs_json_objects_and_async_sources_assemble_the_same() -> None:
    structs = list(streams.iter_events(body(), "llm-sdk"))
    assert all(isinstance(s, PartialModelResponse) for s in structs)
    assert msgspec.to_builtins(streams.assemble(structs, "llm-sdk")) == EXPECTED

    async def chunks() -> AsyncIterator[bytes]:
        for chunk in streams.encode_sse(structs):
            yield chunk

    assert msgspec.to_builtins(asyncio.run(streams.assemble_async(chunks(), "llm-sdk"))) == EXPECTED


def test_an_empty_stream_is_an_empty_response() -> None:
    assert assemble() == {"content": []}


def test_an_unknown_part_type_is_unknown_frame() -> None:
    error = fails(partial(0, "text", text="a"), partial(1, "reasoning", text="b"))
    assert (error.code, error.path) == ("unknown_frame", "$[1].delta.part.type")


def test_a_partial_the_schema_rejects_is_invalid_frame() -> None:
    error = fails({"delta": {"index": 0, "part": {"type": "text"}}})
    assert (error.code, error.path) == ("invalid_frame", "$[0].delta.part")


def test_a_stream_cut_inside_a_frame_is_interrupted() -> None:
    data = body()
    with pytest.raises(StreamError) as info:
        streams.assemble(data[:-1], "llm-sdk")
    assert (info.value.code, info.value.path) == ("interrupted", "$[3]")
