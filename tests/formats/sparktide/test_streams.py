"""SparkTide REMOTE 1.0 streams: frames assembled into RemoteModelResponse, every rule enforced.

The rules: ``#/$defs/RemoteModelStreamFrame``'s description and sparktide-docs/SOURCE.md.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import msgspec
import pytest
from lucent.generated.sparktide_remote_1_0 import (
    RemoteModelResponse,
    RemoteModelToolDelta,
    RemoteModelUsage,
)

import lucent
from lucent import streams
from lucent.errors import StreamError, UsageError
from tests.paths import DATA

DOC_STREAM = (DATA / "sparktide-docs" / "stream.sse").read_bytes()
USAGE = {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15}


def frame(type: str, **fields: Any) -> dict[str, Any]:
    return {"protocolVersion": "1.0", "type": type, **fields}


def text(t: str) -> dict[str, Any]:
    return frame("text.delta", text=t)


def tool(index: int, **fields: Any) -> dict[str, Any]:
    return frame("tool.delta", index=index, **fields)


def usage(**fields: int) -> dict[str, Any]:
    return frame("usage", usage=fields)


def done(reason: str = "STOP") -> dict[str, Any]:
    return frame("model.completed", finishReason=reason)


def sse(*frames: dict[str, Any] | str) -> bytes:
    return b"".join(
        b"data: " + (f.encode() if isinstance(f, str) else json.dumps(f, ensure_ascii=False).encode()) + b"\n\n" for f in frames
    )


def assemble(*frames: dict[str, Any] | str, **kw: Any) -> RemoteModelResponse:
    return streams.assemble(sse(*frames), "sparktide", **kw)


def fails(*frames: dict[str, Any] | str, **kw: Any) -> StreamError:
    with pytest.raises(StreamError) as info:
        assemble(*frames, **kw)
    return info.value


def as_json(value: Any) -> Any:
    return msgspec.to_builtins(value)


EXPECTED_DOC = {
    "message": {
        "role": "assistant",
        "content": "正在查询",
        "tool_calls": [{"id": "call-1", "type": "function", "function": {"name": "tool_0", "arguments": '{"query":"设备"}'}}],
    },
    "usage": USAGE,
}


# ---------------------------------------------------------------- the documented example


def test_documented_stream_assembles_into_its_response() -> None:
    response = streams.assemble(DOC_STREAM, "sparktide", tools=["tool_0"])
    assert isinstance(response, RemoteModelResponse)
    assert as_json(response) == EXPECTED_DOC
    # The result is a valid RemoteModelResponse, protocol rules included.
    assert lucent.decode(lucent.encode(response), "sparktide-remote-1.0", "RemoteModelResponse") == response


@pytest.mark.parametrize("cut", range(1, len(DOC_STREAM)))
def test_documented_stream_split_at_every_byte_offset(cut: int) -> None:
    assert as_json(streams.assemble([DOC_STREAM[:cut], DOC_STREAM[cut:]], "sparktide")) == EXPECTED_DOC


def test_documented_stream_one_byte_at_a_time() -> None:
    chunks = (DOC_STREAM[i : i + 1] for i in range(len(DOC_STREAM)))
    assert as_json(streams.assemble(chunks, "sparktide")) == EXPECTED_DOC


def test_documented_stream_with_crlf_and_cr_line_ends() -> None:
    for end in (b"\r\n", b"\r"):
        assert as_json(streams.assemble(DOC_STREAM.replace(b"\n", end), "sparktide")) == EXPECTED_DOC


def test_sse_comments_bom_and_other_fields_are_ignored() -> None:
    body = b"\xef\xbb\xbf: hello\nretry: 100\n\n" + DOC_STREAM.replace(b"data: ", b"event: frame\nid: 1\ndata: ")
    assert as_json(streams.assemble(body, "sparktide")) == EXPECTED_DOC


def test_decoded_frames_and_json_objects_assemble_the_same() -> None:
    events = list(streams.iter_events(DOC_STREAM, "sparktide"))
    assert as_json(streams.assemble(events, "sparktide")) == EXPECTED_DOC
    assert as_json(streams.assemble([as_json(e) for e in events], "sparktide")) == EXPECTED_DOC


def test_encode_sse_writes_frames_that_read_back_the_same() -> None:
    events = list(streams.iter_events(DOC_STREAM, "sparktide"))
    written = b"".join(streams.encode_sse(events))
    assert b"[DONE]" not in written
    assert list(streams.iter_events(written, "sparktide")) == events


def test_assemble_async_reads_an_async_byte_source() -> None:
    async def body() -> AsyncIterator[bytes]:
        for i in range(0, len(DOC_STREAM), 7):
            yield DOC_STREAM[i : i + 7]

    assert as_json(asyncio.run(streams.assemble_async(body(), "sparktide"))) == EXPECTED_DOC
    assert as_json(asyncio.run(streams.assemble_async(DOC_STREAM, "sparktide"))) == EXPECTED_DOC


def test_an_assembler_can_be_fed_event_by_event() -> None:
    parts = streams.assembler("sparktide")
    for event in streams.iter_events(DOC_STREAM, "sparktide"):
        parts.push(event)
    assert as_json(parts.close()) == EXPECTED_DOC
    assert parts.finish_reason == "TOOL_CALLS"  # type: ignore[attr-defined]
    with pytest.raises(UsageError):
        parts.close()


# ---------------------------------------------------------------- content, usage


def test_a_text_reply_concatenates_text_and_has_no_tool_calls() -> None:
    response = assemble(text("Hel"), text("lo"), done())
    assert as_json(response) == {"message": {"role": "assistant", "content": "Hello"}, "usage": {}}


def test_a_reply_without_text_or_tools_has_empty_string_content() -> None:
    assert assemble(done()).message.content == ""


def test_a_tool_call_only_reply_has_null_content_never_empty_string() -> None:
    response = assemble(text(""), tool(0, id="c", name="f", arguments="{}"), done("TOOL_CALLS"))
    assert response.message.content is None
    assert b'"content":null' in lucent.encode(response)


def test_no_usage_frame_gives_empty_usage_never_zeros() -> None:
    assert lucent.encode(assemble(text("x"), done()).usage) == b"{}"


def test_usage_frames_merge_field_by_field() -> None:
    response = assemble(usage(prompt_tokens=3), text("x"), usage(completion_tokens=2, total_tokens=5), done())
    assert response.usage == RemoteModelUsage(prompt_tokens=3, completion_tokens=2, total_tokens=5)


def test_tool_calls_come_out_by_index_and_arguments_concatenate_in_order() -> None:
    response = assemble(
        tool(1, id="b", name="g", arguments='{"x":'),
        tool(0, id="a", name="f", arguments="{}"),
        tool(1, arguments="1}"),
        done("TOOL_CALLS"),
    )
    calls = response.message.tool_calls
    assert not isinstance(calls, msgspec.UnsetType)
    assert [(c.id, c.function.name, c.function.arguments) for c in calls] == [("a", "f", "{}"), ("b", "g", '{"x":1}')]


def test_a_repeated_identical_id_or_name_is_not_appended() -> None:
    response = assemble(
        tool(0, id="call-1", name="f", arguments='{"a":'),
        tool(0, id="call-1", name="f", arguments="1}"),
        tool(0, name="f"),
        done("TOOL_CALLS"),
    )
    assert as_json(response.message.tool_calls) == [
        {"id": "call-1", "type": "function", "function": {"name": "f", "arguments": '{"a":1}'}}
    ]


def test_id_and_name_may_arrive_after_the_first_frame_of_a_call() -> None:
    response = assemble(tool(0, arguments="{}"), tool(0, id="c"), tool(0, name="f"), done("TOOL_CALLS"))
    assert as_json(response.message.tool_calls) == [{"id": "c", "type": "function", "function": {"name": "f", "arguments": "{}"}}]


def test_sixteen_tool_calls_are_allowed() -> None:
    frames = [tool(i, id=f"c{i}", name="f", arguments="{}") for i in range(16)]
    calls = assemble(*frames, done("TOOL_CALLS")).message.tool_calls
    assert not isinstance(calls, msgspec.UnsetType) and len(calls) == 16


def test_length_without_tool_calls_is_allowed() -> None:
    assert assemble(text("trunc"), done("LENGTH")).message.content == "trunc"


# ---------------------------------------------------------------- every failure class, its own code


def test_changed_id_at_the_same_index_is_tool_identity_changed() -> None:
    error = fails(tool(0, id="a", name="f"), tool(0, id="b"), done("TOOL_CALLS"))
    assert (error.code, error.path) == ("tool_identity_changed", "$[1].id")
    assert "index 0" in error.message


def test_changed_name_at_the_same_index_is_tool_identity_changed() -> None:
    error = fails(tool(0, id="a", name="f"), tool(0, name="g"), done("TOOL_CALLS"))
    assert (error.code, error.path) == ("tool_identity_changed", "$[1].name")


def test_one_id_at_two_indexes_is_duplicate_call_id() -> None:
    error = fails(tool(0, id="a", name="f", arguments="{}"), tool(1, id="a", name="f", arguments="{}"), done("TOOL_CALLS"))
    assert (error.code, error.path) == ("duplicate_call_id", "$[1].id")


def test_a_tool_index_above_15_is_too_many_tool_calls() -> None:
    error = fails(tool(16, id="a", name="f", arguments="{}"), done("TOOL_CALLS"))
    assert (error.code, error.path) == ("too_many_tool_calls", "$[0].index")


def test_a_hand_built_frame_is_validated_like_a_decoded_one() -> None:
    frames = [RemoteModelToolDelta(protocolVersion="1.0", index=20, id="a")]
    with pytest.raises(StreamError) as info:
        streams.assemble(frames, "sparktide")
    assert (info.value.code, info.value.path) == ("too_many_tool_calls", "$[0].index")


def test_length_finishing_a_result_with_tool_calls_is_rejected() -> None:
    error = fails(tool(0, id="a", name="f", arguments="{}"), done("LENGTH"))
    assert (error.code, error.path) == ("length_with_tool_calls", "$[1].finishReason")


@pytest.mark.parametrize(
    "pieces",
    [['{"a":', "1"], ["null"], ['{"a":1}', '{"b":2}'], ['{"a":1,', '"a":2}'], ["[1]"], [], ['"x"'], ["NaN"]],
    ids=["unclosed", "null", "trailing-json", "duplicate-key", "array", "none", "string", "nan"],
)
def test_arguments_that_are_not_one_closed_object_are_malformed_arguments(pieces: list[str]) -> None:
    frames = [tool(0, id="a", name="f")] + [tool(0, arguments=p) for p in pieces]
    error = fails(*frames, done("TOOL_CALLS"))
    assert (error.code, error.path) == ("malformed_arguments", f"$[{len(frames) - 1}].arguments")


def test_a_tool_call_without_id_or_name_is_incomplete() -> None:
    error = fails(text("x"), tool(0, arguments="{}"), tool(0, name="f"), done("TOOL_CALLS"))
    assert (error.code, error.path) == ("incomplete_tool_call", "$[1]")


def test_an_undeclared_tool_name_is_rejected_when_tools_are_given() -> None:
    error = fails(tool(0, id="a", name="other", arguments="{}"), done("TOOL_CALLS"), tools=["lookup"])
    assert (error.code, error.path) == ("tool_name_not_declared", "$[0].name")
    assert assemble(tool(0, id="a", name="other", arguments="{}"), done("TOOL_CALLS")).message.tool_calls


def test_a_second_terminal_frame_is_duplicate_terminal() -> None:
    assert fails(text("x"), done(), done()).code == "duplicate_terminal"
    error = fails(text("x"), done(), frame("model.error", code="MODEL_TIMED_OUT"))
    assert (error.code, error.path) == ("duplicate_terminal", "$[2]")


@pytest.mark.parametrize("late", [text("more"), usage(prompt_tokens=1), tool(0, id="a", name="f", arguments="{}")])
def test_any_frame_after_the_terminal_frame_is_data_after_terminal(late: dict[str, Any]) -> None:
    error = fails(text("x"), done(), late)
    assert (error.code, error.path) == ("data_after_terminal", "$[2]")


@pytest.mark.parametrize("position", ["before", "after"])
def test_the_done_sentinel_is_rejected(position: str) -> None:
    frames: list[dict[str, Any] | str] = [text("x"), done(), "[DONE]"] if position == "after" else [text("x"), "[DONE]", done()]
    error = fails(*frames)
    assert error.code == "done_sentinel"
    assert error.path == ("$[2]" if position == "after" else "$[1]")


def test_a_clean_end_without_terminal_frame_is_missing_terminal() -> None:
    error = fails(text("x"), usage(prompt_tokens=1))
    assert (error.code, error.path) == ("missing_terminal", "$[2]")
    assert fails().code == "missing_terminal"


def test_a_cut_at_every_byte_offset_is_interrupted_or_missing_terminal() -> None:
    boundaries = {i + 2 for i in range(len(DOC_STREAM)) if DOC_STREAM[i : i + 2] == b"\n\n"}
    for cut in range(len(DOC_STREAM) - 1):  # the file ends with one extra "\n"
        with pytest.raises(StreamError) as info:
            streams.assemble(DOC_STREAM[:cut], "sparktide")
        expected = "missing_terminal" if cut in boundaries or cut == 0 else "interrupted"
        assert info.value.code == expected, cut


def test_a_source_that_raises_is_interrupted_and_keeps_the_usage() -> None:
    def body() -> Iterator[bytes]:
        yield sse(text("x"), usage(**USAGE))
        raise ConnectionResetError("peer went away")

    with pytest.raises(StreamError) as info:
        streams.assemble(body(), "sparktide")
    assert (info.value.code, info.value.path) == ("interrupted", "$[2]")
    assert info.value.usage == RemoteModelUsage(**USAGE)
    assert isinstance(info.value.__cause__, ConnectionResetError)


def test_an_async_source_that_times_out_is_interrupted() -> None:
    async def body() -> AsyncIterator[bytes]:
        yield sse(usage(prompt_tokens=4))
        raise TimeoutError

    with pytest.raises(StreamError) as info:
        asyncio.run(streams.assemble_async(body(), "sparktide"))
    assert info.value.code == "interrupted" and info.value.usage == RemoteModelUsage(prompt_tokens=4)


@pytest.mark.parametrize(
    "bad, path",
    [(frame("nope"), "$[1].type"), ({"protocolVersion": "1.0", "text": "x"}, "$[1].type")],
    ids=["unknown-type", "no-type"],
)
def test_an_unknown_frame_type_is_unknown_frame(bad: dict[str, Any], path: str) -> None:
    error = fails(text("x"), bad, done())
    assert (error.code, error.path) == ("unknown_frame", path)


@pytest.mark.parametrize(
    "bad, path",
    [
        ({**text("x"), "extra": 1}, "$[0]"),
        ({**text("x"), "protocolVersion": "2.0"}, "$[0].protocolVersion"),
        (frame("model.completed", finishReason="DONE"), "$[0].finishReason"),
        (tool(0), "$[0]"),
        (usage(prompt_tokens=-1), "$[0].usage.prompt_tokens"),
    ],
    ids=["unknown-field", "version", "finish-reason", "empty-tool-delta", "negative-usage"],
)
def test_a_frame_the_schema_rejects_is_invalid_frame(bad: dict[str, Any], path: str) -> None:
    error = fails(bad, done())
    assert (error.code, error.path) == ("invalid_frame", path)


@pytest.mark.parametrize(
    "body, code, path",
    [
        (b'data: {"protocolVersion":"1.0",\n\n', "malformed_frame", "$[0]"),
        (b"data: [1]\n\n", "malformed_frame", "$[0]"),
        (b"data:\n\n", "malformed_frame", "$[0]"),
        (b'data: {"protocolVersion":"1.0","type":"text.delta",\ndata: "text":"a"}\n\n', "malformed_frame", "$[0]"),
        (b'data: {"protocolVersion":"1.0","type":"text.delta","text":"a","text":"b"}\n\n', "invalid_frame", "$[0].text"),
    ],
    ids=["truncated-json", "array", "empty", "two-data-lines", "duplicate-key"],
)
def test_data_that_is_not_one_json_object_per_line_is_rejected(body: bytes, code: str, path: str) -> None:
    with pytest.raises(StreamError) as info:
        streams.assemble(body + sse(done()), "sparktide")
    assert (info.value.code, info.value.path) == (code, path)


def test_invalid_utf8_is_rejected_with_frame_and_offset() -> None:
    body = sse(text("ok")) + b'data: {"protocolVersion":"1.0","type":"text.delta","text":"\xff"}\n\n' + sse(done())
    with pytest.raises(StreamError) as info:
        streams.assemble(body, "sparktide")
    assert (info.value.code, info.value.path) == ("invalid_utf8", "$[1]")
    assert info.value.offset == body.index(b"\xff")


def test_a_utf8_character_split_across_chunks_is_not_invalid() -> None:
    body = sse(text("设备"), done())
    cut = body.index("设".encode()) + 1
    assert streams.assemble([body[:cut], body[cut:]], "sparktide").message.content == "设备"


def stream_of_size(total: int) -> bytes:
    tail = sse(done())
    head = b'data: {"protocolVersion":"1.0","type":"text.delta","text":"'
    end = b'"}\n\n'
    return head + b"a" * (total - len(tail) - len(head) - len(end)) + end + tail


def test_a_stream_of_exactly_4_mib_is_accepted_and_one_byte_more_is_too_large() -> None:
    limit = 4 * 1024 * 1024
    assert len(stream_of_size(limit)) == limit
    assert streams.assemble(stream_of_size(limit), "sparktide").message.content
    with pytest.raises(StreamError) as info:
        streams.assemble(stream_of_size(limit + 1), "sparktide")
    assert info.value.code == "stream_too_large"


def test_too_large_counts_across_chunks_and_keeps_earlier_usage() -> None:
    def body() -> Iterator[bytes]:
        yield sse(usage(prompt_tokens=9))
        while True:
            yield b": keep-alive padding " + b"x" * 65536 + b"\n"

    with pytest.raises(StreamError) as info:
        streams.assemble(body(), "sparktide")
    assert (info.value.code, info.value.usage) == ("stream_too_large", RemoteModelUsage(prompt_tokens=9))


def test_too_large_applies_to_event_sources_too() -> None:
    big = text("a" * (4 * 1024 * 1024))
    with pytest.raises(StreamError) as info:
        streams.assemble([big, done()], "sparktide")
    assert (info.value.code, info.value.path) == ("stream_too_large", "$[0]")


def test_a_model_error_frame_raises_model_error_with_the_frame_and_the_usage() -> None:
    error = fails(text("partial"), usage(**USAGE), frame("model.error", code="MODEL_UNAVAILABLE"))
    assert (error.code, error.path) == ("model_error", "$[2]")
    assert error.error is not None and error.error.code == "MODEL_UNAVAILABLE"
    assert error.usage == RemoteModelUsage(**USAGE)


@pytest.mark.parametrize(
    "failure",
    [
        [tool(0, id="a", name="f"), tool(0, id="b")],
        [done(), text("late")],
        [done(), "[DONE]"],
        [tool(0, id="a", name="f", arguments="{"), done("TOOL_CALLS")],
        [tool(0, id="a", name="f", arguments="{}"), done("LENGTH")],
        [text("no end")],
        [frame("nope")],
    ],
    ids=["identity", "after-terminal", "done", "arguments", "length", "missing-terminal", "unknown"],
)
def test_usage_received_before_any_failure_is_kept(failure: list[dict[str, Any] | str]) -> None:
    error = fails(usage(**USAGE), *failure)
    assert error.usage == RemoteModelUsage(**USAGE)


def test_usage_is_none_when_none_arrived_before_the_failure() -> None:
    assert fails(text("x")).usage is None


# ---------------------------------------------------------------- API misuse


def test_str_sources_unknown_formats_and_mixed_sources_are_usage_errors() -> None:
    with pytest.raises(UsageError) as info:
        streams.assemble(DOC_STREAM.decode(), "sparktide")  # type: ignore[call-overload]
    assert info.value.code == "invalid_input_type"
    with pytest.raises(UsageError) as info:
        streams.assemble(DOC_STREAM, "openai")
    assert info.value.code == "unknown_format"
    with pytest.raises(UsageError) as info:
        streams.assemble([DOC_STREAM, text("x")], "sparktide")
    assert info.value.code == "invalid_input_type"
    with pytest.raises(UsageError):
        streams.assemble(DOC_STREAM, "sparktide", tools="tool_0")


# ---------------------------------------------------------------- CLI: lucent assemble


def test_cli_assemble_prints_the_response(capsys: pytest.CaptureFixture[str]) -> None:
    from lucent.cli import main

    path = DATA / "sparktide-docs" / "stream.sse"
    assert main(["assemble", "--format", "sparktide", "--tool", "tool_0", str(path)]) == 0
    assert json.loads(capsys.readouterr().out) == EXPECTED_DOC


def test_cli_assemble_reports_the_failure_and_the_usage(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from lucent.cli import main

    path = tmp_path / "cut.sse"
    path.write_bytes(sse(usage(prompt_tokens=3), text("x")))
    assert main(["assemble", "--format", "sparktide", str(path)]) == 1
    err = capsys.readouterr().err.splitlines()
    assert err == [
        "lucent: $[2]: the stream ended after 2 frames without model.completed or model.error [missing_terminal]",
        'usage received: {"prompt_tokens":3}',
    ]
    assert main(["assemble", "--format", "sparktide", str(tmp_path / "absent.sse")]) == 2


def test_a_fault_before_the_size_limit_is_reported_first() -> None:
    limit = 4 * 1024 * 1024
    body = sse(text("ok")) + b"data: \xff" + b"a" * limit
    with pytest.raises(StreamError) as info:
        streams.assemble(body, "sparktide")
    assert (info.value.code, info.value.path) == ("invalid_utf8", "$[1]")
