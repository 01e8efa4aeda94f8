"""lucent.streams.convert_stream: every pair, sync and async, event by event.

What each target gets (tool indexes counted for that target, usage and finish in its order,
exactly one terminal event, never [DONE]), how losses are reported, that the source's own rules
are enforced with assemble's codes, and that memory stays constant.
"""

from __future__ import annotations

import asyncio
import gc
import json
import tracemalloc
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import msgspec
import pytest

import lucent
from lucent import streams
from lucent.errors import ConversionError, StreamError, UsageError
from lucent.generated.convert_sparktide_lux_error import sparktide_to_lux_error
from lucent.generated.llm_sdk import PartialModelResponse
from lucent.generated.lux_ir_v1 import LucentStreamEventDone, LucentStreamEventError
from lucent.generated.sparktide_remote_1_0 import RemoteModelFailure, RemoteModelFailureError
from lucent._context import read_by
from tests.stream_conformance import CONTEXT, check, check_target_stream

FORMATS = ("sparktide", "llm-sdk", "lux")
PAIRS = [(s, t) for s in FORMATS for t in FORMATS if s != t]
STREAM_SSE = Path(__file__).parent / "data" / "sparktide-docs" / "stream.sse"


def spark(kind: str, **fields: Any) -> dict[str, Any]:
    return {"protocolVersion": "1.0", "type": kind, **fields}


def lux_text(index: int, text: str) -> dict[str, Any]:
    return {"event": "block_delta", "index": index, "delta": {"type": "text", "text": text}}


def lux_args(index: int, text: str) -> dict[str, Any]:
    return {"event": "block_delta", "index": index, "delta": {"type": "tool_arguments", "arguments": text}}


def lux_tool(index: int, call_id: str, name: str = "lookup") -> dict[str, Any]:
    return {"event": "block_start", "index": index, "block_type": {"type": "tool_call", "id": call_id, "name": name}}


def lux_stream(*blocks: dict[str, Any], finish: str = "stop", usage: dict[str, Any] | None = None, tail: list[dict[str, Any]] | None = None) -> list[dict[str, Any]]:
    events: list[dict[str, Any]] = [
        {"event": "conversation_start", "meta": dict(CONTEXT)},
        {"event": "item_start", "index": 0, "item": {"type": "message", "message": {"role": "assistant", "content": []}}},
        *blocks,
        {"event": "item_end", "index": 0},
        {"event": "finish", "finish_reason": finish},
    ]
    if usage is not None:
        events.append({"event": "usage", "usage": usage})
    return events + (tail if tail is not None else [{"event": "done"}])


def sdk(index: int, **part: Any) -> dict[str, Any]:
    return {"delta": {"index": index, "part": part}}


# One stream of each format with text, two tool calls (split arguments, interleaved), usage.
SAMPLES: dict[str, list[dict[str, Any]]] = {
    "sparktide": [
        spark("text.delta", text="Let me "),
        spark("text.delta", text="check."),
        spark("tool.delta", index=0, id="call_a", name="lookup", arguments='{"q":'),
        spark("tool.delta", index=1, id="call_b", name="now"),
        spark("tool.delta", index=0, arguments='"x"}'),
        spark("tool.delta", index=1, arguments="{}"),
        spark("usage", usage={"prompt_tokens": 5, "completion_tokens": 7, "total_tokens": 12}),
        spark("model.completed", finishReason="TOOL_CALLS"),
    ],
    "lux": lux_stream(
        {"event": "block_start", "index": 0, "block_type": "thinking"},
        {"event": "block_delta", "index": 0, "delta": {"type": "thinking", "text": "hmm"}},
        {"event": "block_end", "index": 0},
        {"event": "block_start", "index": 1, "block_type": "text"},
        lux_text(1, "Let me "), lux_text(1, "check."),
        {"event": "block_end", "index": 1},
        lux_tool(2, "call_a"), lux_args(2, '{"q":'), lux_args(2, '"x"}'), {"event": "block_end", "index": 2},
        lux_tool(3, "call_b", "now"), {"event": "block_end", "index": 3},
        finish="tool_calls",
        usage={"prompt_tokens": 5, "completion_tokens": 7, "total_tokens": 12},
    ),
    "llm-sdk": [
        sdk(0, type="text", text="Let me "),
        sdk(1, type="tool-call", toolCallId="call_a", toolName="lookup", args='{"q":'),
        sdk(0, type="text", text="check."),
        sdk(2, type="tool-call", toolCallId="call_b", toolName="now"),
        sdk(1, type="tool-call", args='"x"}'),
    ],
}


def convert(events: Any, source: str, target: str, **options: Any) -> tuple[list[Any], list[Any]]:
    if "context" in options:  # as much of it as this conversion reads: lucent refuses any other key
        options["context"] = read_by(options["context"], source, target, "stream")
    conversion = streams.convert_stream(events, source, target, **options)
    out = list(conversion)
    return out, conversion.diagnostics


def tags(events: list[Any]) -> list[dict[str, Any]]:
    return [msgspec.to_builtins(e) for e in events]


def sse(events: list[Any]) -> bytes:
    return b"".join(streams.encode_sse(events))


# ------------------------------------------------------------------------ every pair, every input


@pytest.mark.parametrize("source,target", PAIRS)
def test_each_pair_assembles_to_the_converted_document(source: str, target: str) -> None:
    check(SAMPLES[source], source, target)


@pytest.mark.parametrize("source,target", PAIRS)
def test_async_conversion_yields_the_same_events_as_sync(source: str, target: str) -> None:
    async def chunks() -> AsyncIterator[bytes]:
        body = sse(SAMPLES[source])  # type: ignore[arg-type]
        for i in range(0, len(body), 7):
            yield body[i : i + 7]

    async def run() -> tuple[list[Any], list[Any]]:
        conversion = streams.aconvert_stream(chunks(), source, target, context=read_by(CONTEXT, source, target, "stream"))
        return [e async for e in conversion], conversion.diagnostics

    assert asyncio.run(run()) == convert(SAMPLES[source], source, target, context=CONTEXT)


@pytest.mark.parametrize("source,target", PAIRS)
def test_sse_bytes_chunks_split_anywhere_structs_and_dicts_convert_alike(source: str, target: str) -> None:
    events = SAMPLES[source]
    body = sse(events)  # type: ignore[arg-type]
    expected = convert(events, source, target, context=CONTEXT)
    structs = list(streams.iter_events(events, source))
    assert convert(body, source, target, context=CONTEXT) == expected
    assert convert(structs, source, target, context=CONTEXT) == expected
    for cut in range(1, len(body), 5):
        assert convert([body[:cut], body[cut:]], source, target, context=CONTEXT) == expected, cut


@pytest.mark.parametrize("fmt", FORMATS)
def test_same_format_passes_the_events_unchanged_and_still_checks_them(fmt: str) -> None:
    events = list(streams.iter_events(SAMPLES[fmt], fmt))
    assert convert(events, fmt, fmt) == (events, [])
    partial_usage = [spark("usage", usage={"prompt_tokens": 1}), spark("model.completed", finishReason="STOP")]
    part_ids = [sdk(0, type="text", text="x", id="p1")]
    assert convert(partial_usage, "sparktide", "sparktide")[1] == convert(part_ids, "llm-sdk", "llm-sdk")[1] == []
    if fmt != "llm-sdk":  # llm-sdk has no terminal event to repeat
        with pytest.raises(StreamError) as info:
            list(streams.convert_stream(events + events[-1:], fmt, fmt))
        assert info.value.code == "duplicate_terminal"


def test_the_sparktide_document_example_converts_to_every_format() -> None:
    for target in ("lux", "llm-sdk"):
        check(list(streams.iter_events(STREAM_SSE.read_bytes(), "sparktide")), "sparktide", target)


# ------------------------------------------------------------------------ tool indexes


def test_lux_to_sparktide_counts_tool_calls_only() -> None:
    out, _ = convert(SAMPLES["lux"], "lux", "sparktide")
    assert [(e["index"], e.get("id")) for e in tags(out) if e["type"] == "tool.delta"] == [
        (0, "call_a"), (0, None), (0, None), (1, "call_b"), (1, None),
    ]


@pytest.mark.parametrize("before", [0, 1, 3])
def test_lux_to_sparktide_tool_index_does_not_depend_on_the_blocks_before_it(before: int) -> None:
    blocks: list[dict[str, Any]] = []
    for b in range(before):
        blocks += [{"event": "block_start", "index": b, "block_type": ["text", "thinking", "refusal"][b % 3]},
                   {"event": "block_delta", "index": b, "delta": {"type": ["text", "thinking", "refusal"][b % 3], "text": "x"}},
                   {"event": "block_end", "index": b}]
    blocks += [lux_tool(before, "call_1"), lux_args(before, '{"q":1}'), {"event": "block_end", "index": before}]
    out, _ = convert(lux_stream(*blocks, finish="tool_calls"), "lux", "sparktide")
    assert {e["index"] for e in tags(out) if e["type"] == "tool.delta"} == {0}


def test_lux_to_llm_sdk_numbers_parts_without_the_dropped_thinking() -> None:
    out, _ = convert(SAMPLES["lux"], "lux", "llm-sdk")
    assert [(e["delta"]["index"], e["delta"]["part"]["type"]) for e in tags(out)] == [
        (0, "text"), (0, "text"), (1, "tool-call"), (1, "tool-call"), (1, "tool-call"), (2, "tool-call"),
    ]


def test_sparktide_to_lux_puts_text_at_block_0_and_tool_n_at_block_n_plus_1() -> None:
    out, _ = convert(SAMPLES["sparktide"], "sparktide", "lux", context=CONTEXT)
    starts = [(e["index"], e["block_type"]) for e in tags(out) if e["event"] == "block_start"]
    assert starts == [(0, "text"), (1, {"type": "tool_call", "id": "call_a", "name": "lookup"}), (2, {"type": "tool_call", "id": "call_b", "name": "now"})]


def test_sparktide_to_llm_sdk_numbers_text_and_tool_calls_as_parts() -> None:
    out, _ = convert(SAMPLES["sparktide"], "sparktide", "llm-sdk")
    assert sorted({(e["delta"]["index"], e["delta"]["part"]["type"]) for e in tags(out)}) == [(0, "text"), (1, "tool-call"), (2, "tool-call")]


def test_llm_sdk_to_sparktide_counts_tool_calls_only() -> None:
    out, _ = convert(SAMPLES["llm-sdk"], "llm-sdk", "sparktide")
    assert sorted({e["index"] for e in tags(out) if e["type"] == "tool.delta"}) == [0, 1]


def test_a_tool_call_without_arguments_gets_an_empty_object_in_sparktide() -> None:
    out, _ = convert([sdk(0, type="tool-call", toolCallId="call_9", toolName="now")], "llm-sdk", "sparktide")
    assert streams.assemble(out, "sparktide").message.tool_calls[0].function.arguments == "{}"
    out, _ = convert(lux_stream(lux_tool(0, "call_9", "now"), {"event": "block_end", "index": 0}), "lux", "sparktide")
    assert streams.assemble(out, "sparktide").message.tool_calls[0].function.arguments == "{}"


def test_blank_llm_sdk_args_are_no_args() -> None:
    partials = [sdk(0, type="tool-call", toolCallId="c", toolName="now", args=" "), sdk(0, type="tool-call", args="\n")]
    out, _ = convert(partials, "llm-sdk", "lux", context=CONTEXT)
    assert streams.assemble(out, "lux").choices[0].message.content[0].tool_use.arguments == "{}"


def test_a_tool_call_whose_id_arrives_late_starts_when_id_and_name_are_known() -> None:
    frames = [spark("tool.delta", index=0, arguments='{"a":'), spark("tool.delta", index=0, name="lookup"),
              spark("tool.delta", index=0, id="c1", arguments="1}"), spark("model.completed", finishReason="TOOL_CALLS")]
    out, _ = convert(frames, "sparktide", "lux", context=CONTEXT)
    events = tags(out)
    start = next(i for i, e in enumerate(events) if e["event"] == "block_start")
    assert events[start]["block_type"]["id"] == "c1"
    assert streams.assemble(out, "lux").choices[0].message.content[0].tool_use.arguments == '{"a":1}'


def test_tool_calls_that_start_out_of_order_are_numbered_as_they_start_and_reported() -> None:
    events = lux_stream(lux_tool(1, "c1"), lux_tool(0, "c0"), {"event": "block_end", "index": 1}, {"event": "block_end", "index": 0}, finish="tool_calls")
    out, diagnostics = convert(events, "lux", "sparktide")
    assert [e["id"] for e in tags(out) if e["type"] == "tool.delta" and "id" in e] == ["c1", "c0"]
    assert [(d.field, d.status) for d in diagnostics if "starts after" in d.detail] == [("$[3]", "Degraded")]


# ------------------------------------------------------------------------ text


def test_lux_text_blocks_are_joined_with_a_newline_in_sparktide_as_in_documents() -> None:
    events = lux_stream({"event": "block_start", "index": 0, "block_type": "text"}, lux_text(0, "a"), {"event": "block_end", "index": 0},
                        {"event": "block_start", "index": 1, "block_type": "text"}, {"event": "block_end", "index": 1},
                        {"event": "block_start", "index": 2, "block_type": "refusal"},
                        {"event": "block_delta", "index": 2, "delta": {"type": "refusal", "text": "no"}}, {"event": "block_end", "index": 2})
    out, diagnostics = convert(events, "lux", "sparktide")
    assert streams.assemble(out, "sparktide").message.content == "a\n\nno"
    assert any(d.status == "Degraded" and "refusal" in d.detail for d in diagnostics)


def test_text_of_a_block_that_waits_for_an_open_one_keeps_its_order() -> None:
    events = lux_stream({"event": "block_start", "index": 0, "block_type": "text"}, {"event": "block_start", "index": 1, "block_type": "text"},
                        lux_text(1, "B1"), lux_text(0, "A1"), lux_text(1, "B2"), lux_text(0, "A2"),
                        {"event": "block_end", "index": 0}, lux_text(1, "B3"), {"event": "block_end", "index": 1})
    out, _ = convert(events, "lux", "sparktide")
    texts = [e["text"] for e in tags(out) if e["type"] == "text.delta"]
    assert texts == ["A1", "A2", "\n", "B1B2", "B3"]


def test_interleaved_llm_sdk_text_parts_come_out_in_part_order() -> None:
    partials = [sdk(0, type="text", text="a"), sdk(1, type="text", text="b"), sdk(0, type="text", text="c"), sdk(1, type="text", text="d")]
    out, diagnostics = convert(partials, "llm-sdk", "sparktide")
    assert streams.assemble(out, "sparktide").message.content == "ac\nbd"
    assert lucent.convert(streams.assemble(partials, "llm-sdk"), "llm-sdk", "sparktide", kind="response").value.message.content == "ac\nbd"


def test_an_empty_response_is_one_empty_text_everywhere() -> None:
    out, _ = convert([spark("model.completed", finishReason="STOP")], "sparktide", "llm-sdk")
    assert streams.assemble(out, "llm-sdk").content[0].text == ""
    check([spark("model.completed", finishReason="STOP")], "sparktide", "lux")
    check([], "llm-sdk", "sparktide")
    check(lux_stream(), "lux", "sparktide")


# ------------------------------------------------------------------------ order, terminal, [DONE]


@pytest.mark.parametrize("source,target", PAIRS)
def test_exactly_one_terminal_event_last_and_no_done_sentinel(source: str, target: str) -> None:
    out, _ = convert(SAMPLES[source], source, target, context=CONTEXT)
    check_target_stream(out, target)
    assert b"[DONE]" not in sse(out)


def test_sparktide_gets_usage_before_the_terminal_frame() -> None:
    out, _ = convert(SAMPLES["lux"], "lux", "sparktide")
    assert [e["type"] for e in tags(out)][-2:] == ["usage", "model.completed"]


def test_lux_gets_finish_then_usage_then_done() -> None:
    out, _ = convert(SAMPLES["sparktide"], "sparktide", "lux", context=CONTEXT)
    assert [e["event"] for e in tags(out)][-3:] == ["finish", "usage", "done"]


def test_sparktide_usage_split_over_frames_arrives_as_one_lux_usage() -> None:
    frames = [spark("usage", usage={"prompt_tokens": 3}), spark("text.delta", text="hi"),
              spark("usage", usage={"completion_tokens": 2, "total_tokens": 5}), spark("model.completed", finishReason="STOP")]
    out, _ = convert(frames, "sparktide", "lux", context=CONTEXT)
    assert [e["usage"] for e in tags(out) if e["event"] == "usage"] == [{"prompt_tokens": 3, "completion_tokens": 2, "total_tokens": 5}]


@pytest.mark.parametrize("reason,lux", [("STOP", "stop"), ("TOOL_CALLS", "tool_calls"), ("LENGTH", "length")])
def test_the_sparktide_finish_reason_is_carried_to_lux(reason: str, lux: str) -> None:
    out, diagnostics = convert([spark("text.delta", text="x"), spark("model.completed", finishReason=reason)], "sparktide", "lux", context=CONTEXT)
    assert streams.assemble(out, "lux").choices[0].finish_reason == lux
    assert diagnostics == []


@pytest.mark.parametrize("reason,tools,expected", [
    ("stop", False, "STOP"), ("tool_calls", True, "TOOL_CALLS"), ("length", False, "LENGTH"),
    ("length", True, "TOOL_CALLS"), ("content_filter", False, "STOP"), ("malformed_tool_call", True, "TOOL_CALLS"),
])
def test_lux_finish_reasons_become_sparktide_ones_and_the_others_are_reported(reason: str, tools: bool, expected: str) -> None:
    blocks = [lux_tool(0, "c"), {"event": "block_end", "index": 0}] if tools else []
    out, diagnostics = convert(lux_stream(*blocks, finish=reason), "lux", "sparktide")
    assert tags(out)[-1] == {"type": "model.completed", "protocolVersion": "1.0", "finishReason": expected}
    lossy = [d for d in diagnostics if d.field.endswith("finish_reason")]
    assert (lossy != []) == (reason not in ("stop", "tool_calls", "length") or (reason == "length" and tools))


def test_a_sparktide_model_error_becomes_a_lux_error_and_done() -> None:
    frames = [spark("text.delta", text="par"), spark("model.error", code="MODEL_RATE_LIMITED")]
    out, _ = convert(frames, "sparktide", "lux", context=CONTEXT)
    assert [e["event"] for e in tags(out)][-4:] == ["item_end", "finish", "error", "done"]
    expected, _ = sparktide_to_lux_error(RemoteModelFailure(error=RemoteModelFailureError(code="MODEL_RATE_LIMITED")))
    assert [e.error for e in out if isinstance(e, LucentStreamEventError)] == [expected]
    with pytest.raises(StreamError) as info:
        streams.assemble(out, "lux")
    assert info.value.code == "model_error"


def test_a_lux_error_becomes_the_one_sparktide_terminal_frame() -> None:
    events = lux_stream({"event": "block_start", "index": 0, "block_type": "text"}, lux_text(0, "x"), {"event": "block_end", "index": 0},
                        finish="error", usage={"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
                        tail=[{"event": "error", "error": {"kind": "rate_limit", "message": "slow down"}}, {"event": "done"}])
    out, diagnostics = convert(events, "lux", "sparktide")
    assert [e["type"] for e in tags(out)] == ["text.delta", "usage", "model.error"]
    assert tags(out)[-1]["code"] == "MODEL_RATE_LIMITED"
    assert ("$[8].error.message", "Unsupported") in [(d.field, d.status) for d in diagnostics]


def test_a_model_error_to_llm_sdk_raises_after_the_partials_before_it() -> None:
    frames = [spark("text.delta", text="par"), spark("usage", usage={"prompt_tokens": 4}), spark("model.error", code="MODEL_TIMED_OUT")]
    conversion = streams.convert_stream(frames, "sparktide", "llm-sdk")
    assert isinstance(next(conversion), PartialModelResponse)
    with pytest.raises(StreamError) as info:
        next(conversion)
    assert (info.value.code, info.value.path, info.value.error.kind) == ("model_error", "$[2]", "server_error")
    assert info.value.usage.prompt_tokens == 4


# ------------------------------------------------------------------------ diagnostics and strict


def test_losses_are_reported_once_where_they_first_appear() -> None:
    _, diagnostics = convert(SAMPLES["lux"], "lux", "sparktide")
    assert [(d.field, d.status) for d in diagnostics] == [
        ("$[0].meta.id", "Degraded"), ("$[0].meta.model", "Degraded"), ("$[2].block_type", "Unsupported"),
    ]


def test_llm_sdk_targets_report_usage_and_finish() -> None:
    _, diagnostics = convert(SAMPLES["sparktide"], "sparktide", "llm-sdk")
    assert [(d.field, d.status) for d in diagnostics] == [("$[6].usage", "Unsupported"), ("$[7].finishReason", "Degraded")]


def test_lux_usage_counts_sparktide_lacks_are_reported_as_the_document_converter_reports_them() -> None:
    usage = {"prompt_tokens": 9000, "completion_tokens": 10, "total_tokens": 9010, "cached_tokens": 6000, "reasoning_tokens": 4}
    out, diagnostics = convert(lux_stream(usage=usage), "lux", "sparktide")
    assert tags(out)[-2]["usage"] == {"prompt_tokens": 9000, "completion_tokens": 10, "total_tokens": 9010}
    assert {(d.field, d.status) for d in diagnostics} >= {("$[4].usage.cached_tokens", "Unsupported"), ("$[4].usage.reasoning_tokens", "Unsupported")}


def test_a_partial_sparktide_usage_cannot_be_a_lux_usage_and_is_reported() -> None:
    out, diagnostics = convert([spark("usage", usage={"prompt_tokens": 3}), spark("model.completed", finishReason="STOP")], "sparktide", "lux", context=CONTEXT)
    assert not [e for e in tags(out) if e["event"] == "usage"]
    assert [(d.field, d.status) for d in diagnostics] == [("$[0].usage", "Unsupported")]


def test_a_lux_target_needs_id_and_model_from_the_context() -> None:
    out, diagnostics = convert(SAMPLES["sparktide"], "sparktide", "lux")
    assert [(d.field, d.status) for d in diagnostics] == [("target:$.id", "Invalid"), ("target:$.model", "Invalid")]
    with pytest.raises(StreamError) as info:
        streams.assemble(out, "lux")
    assert info.value.code == "missing_meta"


def test_strict_raises_before_the_lossy_event_is_yielded() -> None:
    conversion = streams.convert_stream(SAMPLES["lux"], "lux", "sparktide", strict=True)
    with pytest.raises(ConversionError) as info:
        next(conversion)  # the thinking block comes before any text
    assert info.value.path == "$[2].block_type"
    assert [d.field for d in info.value.diagnostics] == ["$[0].meta.id", "$[0].meta.model", "$[2].block_type"]
    assert [e for e in streams.convert_stream(SAMPLES["sparktide"], "sparktide", "lux", context=CONTEXT, strict=True)]


def test_discarding_a_block_already_written_is_invalid_and_one_not_written_is_exact() -> None:
    events = lux_stream({"event": "block_start", "index": 0, "block_type": "text"}, {"event": "block_start", "index": 1, "block_type": "text"},
                        lux_text(1, "waiting"), {"event": "block_discard", "index": 1}, lux_text(0, "kept"), {"event": "block_end", "index": 0},
                        lux_tool(2, "c"), {"event": "block_discard", "index": 2})
    out, diagnostics = convert(events, "lux", "sparktide")
    response = streams.assemble(out, "sparktide")  # the tool call stays, closed with {}
    assert response.message.content == "kept" and response.message.tool_calls[0].function.arguments == "{}"
    assert [(d.field, d.status) for d in diagnostics if "take" in d.detail] == [("$[9]", "Invalid")]


def test_a_second_choice_is_dropped_and_reported() -> None:
    events = lux_stream(tail=[])[:-1] + [{"event": "item_start", "index": 1, "item": {"type": "message", "message": {"role": "assistant", "content": []}}},
                                        {"event": "block_start", "index": 0, "block_type": "text"}, lux_text(0, "other"),
                                        {"event": "block_end", "index": 0}, {"event": "item_end", "index": 1},
                                        {"event": "finish", "finish_reason": "stop"}, {"event": "done"}]
    for target in ("sparktide", "llm-sdk"):
        out, diagnostics = convert(events, "lux", target)
        assert "other" not in json.dumps(tags(out))
        assert ("$[3]", "Unsupported") in [(d.field, d.status) for d in diagnostics]


def test_initial_item_content_comes_before_the_blocks() -> None:
    events = lux_stream(lux_text(0, "b"), tail=None)
    events[1]["item"]["message"]["content"] = [{"type": "text", "text": "a"}]
    events.insert(2, {"event": "block_start", "index": 0, "block_type": "text"})
    events.insert(4, {"event": "block_end", "index": 0})
    for target in ("sparktide", "llm-sdk"):
        check(events, "lux", target)


# ------------------------------------------------------------------------ the source's own rules


INVALID: list[tuple[str, list[dict[str, Any]]]] = [
    ("sparktide", [spark("text.delta", text="x")]),
    ("sparktide", [spark("model.completed", finishReason="STOP"), spark("model.completed", finishReason="STOP")]),
    ("sparktide", [spark("model.completed", finishReason="STOP"), spark("text.delta", text="x")]),
    ("sparktide", [spark("tool.delta", index=0, id="a", name="n", arguments="{}"), spark("tool.delta", index=0, id="b"), spark("model.completed", finishReason="TOOL_CALLS")]),
    ("sparktide", [spark("tool.delta", index=0, id="a", name="n", arguments="{}"), spark("tool.delta", index=1, id="a", name="n"), spark("model.completed", finishReason="TOOL_CALLS")]),
    ("sparktide", [spark("tool.delta", index=0, id="a", arguments="{}"), spark("model.completed", finishReason="TOOL_CALLS")]),
    ("sparktide", [spark("tool.delta", index=0, id="a", name="n", arguments='{"q":'), spark("model.completed", finishReason="TOOL_CALLS")]),
    ("sparktide", [spark("tool.delta", index=0, id="a", name="n"), spark("model.completed", finishReason="TOOL_CALLS")]),
    ("sparktide", [spark("tool.delta", index=0, id="a", name="n", arguments="{}"), spark("model.completed", finishReason="LENGTH")]),
    ("llm-sdk", [sdk(0, type="text", text="x"), sdk(0, type="tool-call", toolCallId="c")]),
    ("llm-sdk", [sdk(0, type="tool-call", toolCallId="c", toolName="n"), sdk(0, type="tool-call", toolName="m")]),
    ("llm-sdk", [sdk(0, type="tool-call", toolCallId="c")]),
    ("llm-sdk", [sdk(0, type="tool-call", toolCallId="c", toolName="n", args="[1]")]),
    ("llm-sdk", [sdk(0, type="text", text="x", id="p"), sdk(0, type="text", text="y", id="q")]),
    ("llm-sdk", [sdk(0, type="audio", audioData="AAA")]),
    ("lux", lux_stream(tail=[])),
    ("lux", lux_stream()[1:]),
    ("lux", lux_stream()[:1] + lux_stream()),
    ("lux", lux_stream({"event": "block_start", "index": 0, "block_type": "text"})),
    ("lux", lux_stream({"event": "block_start", "index": 0, "block_type": "image"}, {"event": "block_end", "index": 0})),
    ("lux", lux_stream({"event": "block_start", "index": 0, "block_type": "text"}, lux_args(0, "{}"), {"event": "block_end", "index": 0})),
    ("lux", lux_stream(lux_text(3, "x"))),
    ("lux", lux_stream()[:-1] + [{"event": "finish", "finish_reason": "stop"}, {"event": "done"}]),
    ("lux", lux_stream()[:-2] + [{"event": "done"}]),
    ("lux", lux_stream() + [{"event": "done"}]),
]


@pytest.mark.parametrize("source,events", INVALID)
@pytest.mark.parametrize("target", FORMATS)
def test_a_broken_source_fails_with_the_code_and_path_assemble_gives(source: str, events: list[dict[str, Any]], target: str) -> None:
    with pytest.raises(StreamError) as assembled:
        streams.assemble(events, source)
    with pytest.raises(StreamError) as converted:
        list(streams.convert_stream(events, source, target, context=read_by(CONTEXT, source, target, "stream")))
    assert (converted.value.code, converted.value.path) == (assembled.value.code, assembled.value.path)


def test_undeclared_tools_are_rejected_as_assemble_rejects_them() -> None:
    for source in FORMATS:
        with pytest.raises(StreamError) as info:
            list(streams.convert_stream(SAMPLES[source], source, "lux" if source != "lux" else "sparktide", context=read_by(CONTEXT, source, "lux", "stream"), tools=["lookup"]))
        assert info.value.code == "tool_name_not_declared"


def test_a_cut_stream_raises_interrupted_with_the_usage_received_and_no_terminal() -> None:
    body = sse(SAMPLES["sparktide"])  # type: ignore[arg-type]
    conversion = streams.convert_stream(body[:-30], "sparktide", "lux", context=CONTEXT)
    out = []
    with pytest.raises(StreamError) as info:
        for event in conversion:
            out.append(event)
    assert info.value.code == "interrupted" and info.value.usage.total_tokens == 12
    assert not [e for e in out if isinstance(e, LucentStreamEventDone)]


def test_wrong_calls_fail_at_once() -> None:
    with pytest.raises(UsageError) as info:
        streams.convert_stream([], "sparktide", "openai")
    assert info.value.code == "unknown_format"
    with pytest.raises(UsageError) as info:
        streams.convert_stream("data: {}\n\n", "sparktide", "lux")  # type: ignore[arg-type]
    assert info.value.code == "invalid_input_type"
    with pytest.raises(UsageError) as info:
        streams.convert_stream([], "sparktide", "lux", context=[("id", "x")])  # type: ignore[arg-type]
    assert info.value.code == "invalid_context"


# ------------------------------------------------------------------------ constant memory


def long_stream(source: str, frames: int) -> Iterator[bytes]:
    """A stream of about ``frames`` events as SSE chunks, made as it is read."""
    text = {
        "sparktide": b'data: {"protocolVersion":"1.0","type":"text.delta","text":"word "}\n\n',
        "lux": b'data: {"event":"block_delta","index":0,"delta":{"type":"text","text":"word "}}\n\n',
        "llm-sdk": b'data: {"delta":{"index":0,"part":{"type":"text","text":"word "}}}\n\n',
    }[source]
    head = {
        "sparktide": [],
        "lux": [e for e in sse(lux_stream()[:2]).split(b"\n\n") if e] + [b'data: {"event":"block_start","index":0,"block_type":"text"}'],
        "llm-sdk": [],
    }[source]
    tail = {
        "sparktide": [b'data: {"protocolVersion":"1.0","type":"model.completed","finishReason":"STOP"}'],
        "lux": [b'data: {"event":"block_end","index":0}', b'data: {"event":"item_end","index":0}',
                b'data: {"event":"finish","finish_reason":"stop"}', b'data: {"event":"done"}'],
        "llm-sdk": [],
    }[source]
    for line in head:
        yield line + b"\n\n"
    for _ in range(frames // 100):
        yield text * 100
    for line in tail:
        yield line + b"\n\n"


def peak(source: str, target: str, frames: int) -> int:
    gc.collect()
    tracemalloc.start()
    try:
        count = 0
        for _ in streams.convert_stream(long_stream(source, frames), source, target, context=read_by(CONTEXT, source, target, "stream")):
            count += 1
        _, high = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert count >= frames // 2
    return high


@pytest.mark.parametrize("source,target", PAIRS)
def test_memory_stays_constant_for_a_100k_frame_stream(source: str, target: str) -> None:
    # A SparkTide stream is at most 4 MiB: about 60,000 of the smallest frames, so 50,000.
    # Kept, its text alone (100,000 str objects) would take over 5 MB; the converter holds one
    # frame and the state of the open blocks (about 60 KB measured).
    frames = 50_000 if source == "sparktide" else 100_000
    assert peak(source, target, frames) < 1_000_000


# ------------------------------------------------------------------------ the command line


def test_cli_converts_a_stream_file_to_the_target_sse(tmp_path: Path, capsysbinary: pytest.CaptureFixture[bytes]) -> None:
    from lucent.cli import main

    path = tmp_path / "lux.sse"
    path.write_bytes(sse(SAMPLES["lux"]))  # type: ignore[arg-type]
    assert main(["convert", "--kind", "stream", "--from", "lux", "--to", "sparktide", "--diagnostics", str(tmp_path / "d.json"), str(path)]) == 0
    captured = capsysbinary.readouterr()
    assert captured.out == sse(convert(SAMPLES["lux"], "lux", "sparktide")[0])
    assert b"Unsupported $[2].block_type:" in captured.err
    report = json.loads((tmp_path / "d.json").read_text(encoding="utf-8"))
    assert report["kind"] == "stream" and len(report["diagnostics"]) == 3


def test_cli_stream_conversion_reports_a_broken_stream_and_strict_losses(tmp_path: Path, capsysbinary: pytest.CaptureFixture[bytes]) -> None:
    from lucent.cli import main

    path = tmp_path / "cut.sse"
    path.write_bytes(sse(SAMPLES["sparktide"])[:-30])  # type: ignore[arg-type]
    assert main(["convert", "--kind", "stream", "--from", "sparktide", "--to", "lux", "--context", json.dumps(CONTEXT), str(path)]) == 1
    err = capsysbinary.readouterr().err
    assert b"[interrupted]" in err and b"usage received:" in err
    path.write_bytes(sse(SAMPLES["lux"]))  # type: ignore[arg-type]
    assert main(["convert", "--kind", "stream", "--strict", "--from", "lux", "--to", "llm-sdk", str(path)]) == 1
    assert b"[conversion_lossy]" in capsysbinary.readouterr().err


def test_a_sparktide_target_that_grows_past_4_mib_is_reported_invalid() -> None:
    text = "x" * 1000
    events = lux_stream({"event": "block_start", "index": 0, "block_type": "text"}, *[lux_text(0, text)] * 4300, {"event": "block_end", "index": 0})
    conversion = streams.convert_stream(events, "lux", "sparktide")
    out = list(conversion)
    frame = len(b"data: " + lucent.encode(out[0]) + b"\n\n")
    first_over = 4 * 1024 * 1024 // frame  # the text deltas start at event 3
    assert [(d.field, d.status) for d in conversion.diagnostics if "4194304" in d.detail] == [(f"$[{3 + first_over}]", "Invalid")]
    with pytest.raises(StreamError) as info:
        streams.assemble(sse(out), "sparktide")
    assert info.value.code == "stream_too_large"
