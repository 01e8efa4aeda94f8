"""Lux IR streams: LucentStreamEvent values accumulated into a LucentResponse."""

from __future__ import annotations

import json
from typing import Any

import msgspec
import pytest
from lucent.generated.lux_ir_v1 import LucentError, LucentResponse, LucentUsage

from lucent import streams
from lucent._context import read_by
from lucent.errors import StreamError

START = {"event": "conversation_start", "meta": {"id": "r1", "model": "model-1"}}
ITEM = {"event": "item_start", "index": 0, "item": {"type": "message", "message": {"role": "assistant", "content": []}}}
ITEM_END = {"event": "item_end", "index": 0}
FINISH = {"event": "finish", "finish_reason": "stop"}
DONE = {"event": "done"}
USAGE = {"prompt_tokens": 5, "completion_tokens": 7, "total_tokens": 12}


def start(index: int, block_type: Any) -> dict[str, Any]:
    return {"event": "block_start", "index": index, "block_type": block_type}


def delta(index: int, type: str, **fields: Any) -> dict[str, Any]:
    return {"event": "block_delta", "index": index, "delta": {"type": type, **fields}}


def end(index: int) -> dict[str, Any]:
    return {"event": "block_end", "index": index}


def discard(index: int) -> dict[str, Any]:
    return {"event": "block_discard", "index": index}


def item(*events: dict[str, Any]) -> list[dict[str, Any]]:
    return [ITEM, *events, ITEM_END]


def stream(*events: dict[str, Any], finish: str = "stop") -> list[dict[str, Any]]:
    return [START, *item(*events), {"event": "finish", "finish_reason": finish}, DONE]


def assemble(events: list[dict[str, Any]], **kw: Any) -> Any:
    result = streams.assemble(events, "lux", **kw)
    assert isinstance(result, LucentResponse)
    return msgspec.to_builtins(result)


def content(events: list[dict[str, Any]], **kw: Any) -> list[Any]:
    return assemble(events, **kw)["choices"][0]["message"]["content"]  # type: ignore[no-any-return]


def fails(events: list[dict[str, Any]], **kw: Any) -> StreamError:
    with pytest.raises(StreamError) as info:
        streams.assemble(events, "lux", **kw)
    return info.value


# ---------------------------------------------------------------- the block lifecycle


def test_text_thinking_and_tool_blocks_become_content_in_block_order() -> None:
    result = assemble(
        stream(
            start(0, "thinking"), delta(0, "thinking", text="pl"), delta(0, "thinking", text="an"), end(0),
            start(1, "text"), delta(1, "text", text="Check"), delta(1, "text", text="ing."), end(1),
            start(2, {"type": "tool_call", "id": "call_1", "name": "lookup"}),
            delta(2, "tool_arguments", arguments='{"q":'), delta(2, "tool_arguments", arguments="1}"), end(2),
            finish="tool_calls",
        )
    )
    assert result == {
        "schema_version": "v1",
        "id": "r1",
        "model": "model-1",
        "choices": [
            {
                "index": 0,
                "finish_reason": "tool_calls",
                "message": {
                    "role": "assistant",
                    "content": [
                        {"type": "thinking", "thinking": {"text": "plan", "redacted": False}},
                        {"type": "text", "text": "Checking."},
                        {"type": "tool_use", "tool_use": {"id": "call_1", "name": "lookup", "arguments": '{"q":1}'}},
                    ],
                },
            }
        ],
    }


def test_a_signature_delta_replaces_the_signature() -> None:
    blocks = content(stream(start(0, "thinking"), delta(0, "signature", signature="S1"), delta(0, "thinking", text="t"), delta(0, "signature", signature="S2"), end(0)))
    assert blocks == [{"type": "thinking", "thinking": {"text": "t", "signature": "S2", "redacted": False}}]


def test_a_tool_block_without_arguments_gets_an_empty_object() -> None:
    blocks = content(stream(start(0, {"type": "tool_call", "id": "c", "name": "now"}), end(0)))
    assert blocks[0]["tool_use"]["arguments"] == "{}"


def test_a_refusal_block_concatenates() -> None:
    assert content(stream(start(0, "refusal"), delta(0, "refusal", text="No"), delta(0, "refusal", text="pe"), end(0))) == [{"type": "refusal", "refusal": "Nope"}]


def test_blocks_land_at_their_index_whatever_order_they_end_in() -> None:
    blocks = content(stream(start(1, "text"), start(0, "text"), delta(1, "text", text="b"), delta(0, "text", text="a"), end(1), end(0)))
    assert [b["text"] for b in blocks] == ["a", "b"]


def test_block_discard_drops_an_open_block_and_frees_its_index() -> None:
    blocks = content(stream(start(0, "text"), delta(0, "text", text="draft"), discard(0), start(0, "text"), delta(0, "text", text="final"), end(0)))
    assert blocks == [{"type": "text", "text": "final"}]


def test_block_discard_drops_an_ended_block() -> None:
    blocks = content(stream(start(0, "text"), delta(0, "text", text="gone"), end(0), start(1, "text"), delta(1, "text", text="kept"), end(1), discard(0)))
    assert blocks == [{"type": "text", "text": "kept"}]


def test_annotations_are_carried_on_their_text_block() -> None:
    note = {"kind": "url", "ref": "https://example.invalid/a", "start": 0, "end": 2}
    events = stream(
        start(0, "text"), delta(0, "text", text="hi"),
        {"event": "annotations", "index": 0, "annotations": [note]}, end(0),
        {"event": "annotations", "index": 0, "annotations": [{"kind": "file_citation", "ref": "f1"}]},
    )
    assert content(events)[0]["annotations"] == [note, {"kind": "file_citation", "ref": "f1"}]


def test_the_item_initial_content_comes_before_its_blocks() -> None:
    first = {"event": "item_start", "index": 0, "item": {"type": "message", "message": {"role": "assistant", "content": [{"type": "text", "text": "pre"}]}}}
    events = [START, first, start(0, "text"), delta(0, "text", text="post"), end(0), ITEM_END, FINISH, DONE]
    assert [b["text"] for b in content(events)] == ["pre", "post"]


def test_each_item_is_a_choice_and_finish_applies_to_every_choice() -> None:
    second = {"event": "item_start", "index": 1, "item": {"type": "message", "message": {"role": "assistant", "content": []}}}
    events = [START, *item(start(0, "text"), delta(0, "text", text="a"), end(0)), second, start(0, "text"), delta(0, "text", text="b"), end(0), {"event": "item_end", "index": 1}, FINISH, DONE]
    choices = assemble(events)["choices"]
    assert [(c["index"], c["message"]["content"][0]["text"], c["finish_reason"]) for c in choices] == [(0, "a", "stop"), (1, "b", "stop")]


def test_a_stream_without_items_has_one_empty_choice_carrying_the_finish_reason() -> None:
    result = assemble([START, {"event": "finish", "finish_reason": "content_filter"}, DONE])
    assert result["choices"] == [{"index": 0, "message": {"role": "assistant", "content": []}, "finish_reason": "content_filter"}]


def test_the_last_usage_event_is_carried() -> None:
    events = stream(start(0, "text"), end(0))
    events[-1:-1] = [{"event": "usage", "usage": {**USAGE, "total_tokens": 1}}, {"event": "usage", "usage": {**USAGE, "cached_tokens": 2}}]
    assert assemble(events)["usage"] == {**USAGE, "cached_tokens": 2}


def test_an_error_event_raises_model_error_with_the_error_and_the_usage() -> None:
    error = {"kind": "server_error", "message": "overloaded", "provider_code": "529"}
    events = [START, ITEM, start(0, "text"), delta(0, "text", text="par"), {"event": "usage", "usage": USAGE}, {"event": "error", "error": error}, DONE]
    failure = fails(events)
    assert (failure.code, failure.path) == ("model_error", "$[5]")
    assert failure.error == LucentError(kind="server_error", message="overloaded", provider_code="529")
    assert failure.usage == LucentUsage(**USAGE)
    assert fails(events[:-1]).code == "model_error"  # done may not follow an error


def test_sse_split_at_every_offset_assembles_the_same() -> None:
    events = stream(start(0, "text"), delta(0, "text", text="正在查询"), end(0))
    body = b"".join(b"data: " + json.dumps(e, ensure_ascii=False).encode() + b"\n\n" for e in events)
    expected = assemble(events)
    for cut in range(len(body) + 1):
        assert msgspec.to_builtins(streams.assemble([body[:cut], body[cut:]], "lux")) == expected, cut


# ---------------------------------------------------------------- lifecycle failures, one code each


TOOL = {"type": "tool_call", "id": "c", "name": "f"}


@pytest.mark.parametrize(
    "events, code, path",
    [
        ([ITEM, ITEM_END, FINISH, DONE], "missing_conversation_start", "$[0]"),
        ([START, START, FINISH, DONE], "duplicate_conversation_start", "$[1]"),
        ([START, start(0, "text"), end(0), FINISH, DONE], "item_not_open", "$[1]"),
        ([START, ITEM, {"event": "item_end", "index": 1}], "item_not_open", "$[2].index"),
        ([START, ITEM, ITEM, ITEM_END, FINISH, DONE], "item_not_closed", "$[2]"),
        ([START, ITEM, FINISH, DONE], "item_not_closed", "$[3]"),
        ([START, ITEM, ITEM_END, ITEM, ITEM_END, FINISH, DONE], "duplicate_item_index", "$[3].index"),
        ([START, {"event": "item_start", "index": 0, "item": {"type": "reasoning", "reasoning": {"text": "x", "redacted": False}}}], "unsupported_item", "$[1].item.type"),
        (stream(delta(0, "text", text="x")), "block_not_open", "$[2].index"),
        (stream(start(0, "text"), end(0), end(0)), "block_not_open", "$[4].index"),
        (stream(discard(3)), "block_not_open", "$[2].index"),
        (stream(start(0, "text")), "block_not_closed", "$[3]"),
        (stream(start(0, "text"), start(0, "text")), "duplicate_block_index", "$[3].index"),
        (stream(start(0, "text"), end(0), start(0, "text")), "duplicate_block_index", "$[4].index"),
        (stream(start(0, "image")), "unsupported_block", "$[2].block_type"),
        (stream(start(0, "text"), delta(0, "thinking", text="x")), "delta_type_mismatch", "$[3].delta.type"),
        (stream(start(0, "text"), delta(0, "signature", signature="s")), "delta_type_mismatch", "$[3].delta.type"),
        (stream(start(0, TOOL), delta(0, "text", text="x")), "delta_type_mismatch", "$[3].delta.type"),
        (stream(start(0, "thinking"), {"event": "annotations", "index": 0, "annotations": []}), "delta_type_mismatch", "$[3]"),
        ([START, FINISH, FINISH, DONE], "duplicate_finish", "$[2]"),
        ([START, DONE], "missing_finish", "$[1]"),
        ([{"event": "conversation_start", "meta": {"id": "r"}}, FINISH, DONE], "missing_meta", "$[0].meta"),
        ([START, {"event": "error", "error": {"kind": "rate_limit", "message": "m"}}, {"event": "error", "error": {"kind": "rate_limit", "message": "m"}}], "duplicate_error", "$[2]"),
        ([START, FINISH, DONE, DONE], "duplicate_terminal", "$[3]"),
        ([START, FINISH, DONE, FINISH], "data_after_terminal", "$[3]"),
        ([START, FINISH], "missing_terminal", "$[2]"),
        ([START, {"event": "nope"}], "unknown_frame", "$[1].event"),
        ([START, {"event": "block_start", "index": 0}], "invalid_frame", "$[1]"),
    ],
    ids=lambda v: v if isinstance(v, str) and not v.startswith("$") else "",
)
def test_each_lifecycle_failure_has_its_own_code(events: list[dict[str, Any]], code: str, path: str) -> None:
    failure = fails(events)
    assert (failure.code, failure.path) == (code, path)


def test_an_undeclared_tool_name_is_rejected_when_tools_are_given() -> None:
    failure = fails(stream(start(0, TOOL), end(0)), tools=["g"])
    assert (failure.code, failure.path) == ("tool_name_not_declared", "$[2].block_type.name")
    assert content(stream(start(0, TOOL), end(0)), tools=["f"])[0]["tool_use"]["name"] == "f"


def test_usage_is_kept_when_a_lifecycle_rule_fails() -> None:
    failure = fails([START, {"event": "usage", "usage": USAGE}, start(0, "text")])
    assert failure.code == "item_not_open" and failure.usage == LucentUsage(**USAGE)


def test_assemble_async_reads_an_async_source_of_events() -> None:
    import asyncio
    from collections.abc import AsyncIterator

    events = stream(start(0, "text"), delta(0, "text", text="hi"), end(0))

    async def source() -> AsyncIterator[dict[str, Any]]:
        for event in events:
            yield event

    result = asyncio.run(streams.assemble_async(source(), "lux"))
    assert msgspec.to_builtins(result) == assemble(events)


_TARGETS = ["anthropic", "gemini", "openai-chat", "openai-responses", "sparktide", "llm-sdk"]
_CONTEXT = {"created": 1700000000, "created_at": 1700000000, "id": "r1", "model": "model-1"}


def _converted(events: list[dict[str, Any]], target: str) -> tuple[Any, list[tuple[str, str]]]:
    conversion = streams.convert_stream(events, "lux", target, context=read_by(_CONTEXT, "lux", target, "stream"))
    out = list(conversion)
    value = msgspec.to_builtins(streams.assemble(out, target))
    statuses = sorted({d.status for d in conversion.diagnostics})
    return value, statuses


@pytest.mark.parametrize("target", _TARGETS)
@pytest.mark.parametrize(
    "block, streamed",
    [
        ({"type": "refusal", "refusal": "no"}, [start(0, "refusal"), delta(0, "refusal", text="no"), end(0)]),
        ({"type": "thinking", "thinking": {"text": "plan", "signature": "SIG", "redacted": False}}, [start(0, "thinking"), delta(0, "thinking", text="plan"), delta(0, "signature", signature="SIG"), end(0)]),
        ({"type": "tool_use", "tool_use": {"id": "c1", "name": "f", "arguments": "{\"a\": 1}"}}, [start(0, {"type": "tool_call", "id": "c1", "name": "f"}), delta(0, "tool_arguments", arguments="{\"a\": 1}"), end(0)]),
    ],
    ids=["refusal", "thinking", "tool_use"],
)
def test_initial_content_is_written_as_the_same_block_streamed(target: str, block: dict[str, Any], streamed: list[dict[str, Any]]) -> None:
    """lucent/formats/lux/events.py: every writer reads an item_start's content as if it streamed."""
    initial = {"event": "item_start", "index": 0, "item": {"type": "message", "message": {"role": "assistant", "content": [block]}}}
    finish = {"event": "finish", "finish_reason": "tool_calls" if block["type"] == "tool_use" else "stop"}
    from_initial = _converted([START, initial, ITEM_END, finish, DONE], target)
    from_blocks = _converted([START, ITEM, *streamed, ITEM_END, finish, DONE], target)
    assert from_initial == from_blocks
