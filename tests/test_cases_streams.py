"""The stream cases of shared/cases (02, 04, 07, 09, 14), checked as cases/README.md says.

``assembled_contains``: a subset of the assembled response (objects: these keys with these
values; arrays: these items, in this order, each item a subset). ``error``: it must be rejected;
``error_mentions``: text the error names; ``error_path``: the path it names. ``notes`` are
requirements in words: each has its own test below. Case 03 (stream conversion): its
``frames_in_order`` is a subsequence of the converted frames, each frame a subset.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import msgspec
import pytest

import lucent
from lucent import streams
from lucent.errors import StreamError

CASES = Path(__file__).parent / "data" / "cases"
STREAM_CASES = ["02", "04", "07", "09", "14"]


def case(number: str) -> dict[str, Any]:
    (path,) = CASES.glob(f"{number}-*.json")
    return json.loads(path.read_text(encoding="utf-8"))  # type: ignore[no-any-return]


def source(c: dict[str, Any]) -> Any:
    if "input_sse" in c:
        return c["input_sse"].encode("utf-8")
    return c.get("input_events", c.get("input_partials"))


def contains(actual: Any, expected: Any) -> bool:
    """cases/README.md: objects hold these keys with these values; arrays these items, in order."""
    if isinstance(expected, dict):
        return isinstance(actual, dict) and all(k in actual and contains(actual[k], v) for k, v in expected.items())
    if isinstance(expected, list):
        if not isinstance(actual, list):
            return False
        items = iter(actual)
        return all(any(contains(a, e) for a in items) for e in expected)
    return type(actual) is type(expected) and actual == expected


def test_contains_follows_the_readme() -> None:
    assert contains({"a": 1, "b": [1, 2, 3]}, {"b": [1, 3]})
    assert not contains({"b": [1, 2, 3]}, {"b": [3, 1]})
    assert not contains({"a": 1}, {"a": True})
    assert contains([{"x": 1, "y": 2}], [{"x": 1}])


@pytest.mark.parametrize("number", STREAM_CASES)
def test_stream_case(number: str) -> None:
    c = case(number)
    assert c["operation"] in ("assemble", "assemble_then_convert")
    expect = c["expect"]
    if expect.get("error"):
        with pytest.raises(StreamError) as info:
            streams.assemble(source(c), c["format"])
        for text in expect.get("error_mentions", []):
            assert text in str(info.value)
        if "error_path" in expect:
            assert info.value.path == expect["error_path"]
    else:
        assembled = msgspec.to_builtins(streams.assemble(source(c), c["format"]))
        assert contains(assembled, expect["assembled_contains"])


@pytest.mark.parametrize("number", [n for n in STREAM_CASES if "input_sse" in case(n)])
def test_stream_case_gives_the_same_verdict_at_every_split(number: str) -> None:
    c = case(number)
    body = source(c)
    with pytest.raises(StreamError) as whole:
        streams.assemble(body, c["format"])
    for cut in range(1, len(body)):
        with pytest.raises(StreamError) as split:
            streams.assemble([body[:cut], body[cut:]], c["format"])
        assert (split.value.code, split.value.path) == (whole.value.code, whole.value.path), cut


# ---------------------------------------------------------------- case 02: index collision


def test_case_02_a_changed_id_at_index_0_is_rejected_as_a_changed_identity() -> None:
    c = case("02")
    with pytest.raises(StreamError) as info:
        streams.assemble(source(c), "sparktide")
    assert (info.value.code, info.value.path) == ("tool_identity_changed", "$[1].id")


def test_case_02_never_glues_two_calls_into_one() -> None:
    # Whatever the assembler does with a stream of this class, it never concatenates ids or
    # names, nor arguments from two calls: the assembler never returns for this input.
    c = case("02")
    parts = streams.assembler("sparktide")
    events = list(streams.iter_events(source(c), "sparktide"))
    parts.push(events[0])
    with pytest.raises(StreamError):
        parts.push(events[1])


def test_case_02_class_two_parallel_calls_at_distinct_indexes_are_kept_apart() -> None:
    c = case("02")
    body = source(c).replace(b'"index":0,"id":"call_B"', b'"index":1,"id":"call_B"')
    calls = streams.assemble(body, "sparktide").message.tool_calls
    assert [(t.id, t.function.arguments) for t in calls or []] == [("call_A", '{"q":"x"}'), ("call_B", '{"q":"y"}')]


# ---------------------------------------------------------------- case 04: zero-argument tool call


def test_case_04_a_tool_call_without_args_assembles_to_an_empty_object() -> None:
    c = case("04")
    response = streams.assemble(source(c), "llm-sdk")
    assert response.content[0] == msgspec.convert(c["expect"]["assembled_contains"]["content"][0], type(response.content[0]))


def test_case_04_then_converted_to_sparktide() -> None:
    c = case("04")
    assembled = streams.assemble(source(c), "llm-sdk")
    result = lucent.convert(assembled, "llm-sdk", c["target"], kind=c["kind"])
    assert contains(msgspec.to_builtins(result.value), c["expect"]["converted_contains"])


# ---------------------------------------------------------------- case 07: thinking signature


def test_case_07_the_signature_lands_on_the_thinking_block() -> None:
    c = case("07")
    response = streams.assemble(source(c), "lux")
    thinking = response.choices[0].message.content[0]
    assert msgspec.to_builtins(thinking) == c["expect"]["assembled_contains"]["choices"][0]["message"]["content"][0]


# ---------------------------------------------------------------- case 09: LENGTH with tool calls


def test_case_09_length_never_finishes_a_result_with_tool_calls() -> None:
    c = case("09")
    with pytest.raises(StreamError) as info:
        streams.assemble(source(c), "sparktide")
    assert (info.value.code, info.value.path) == ("length_with_tool_calls", "$[1].finishReason")


def test_case_09_the_arguments_are_also_not_a_closed_object() -> None:
    c = case("09")
    body = source(c).replace(b'"finishReason":"LENGTH"', b'"finishReason":"TOOL_CALLS"')
    with pytest.raises(StreamError) as info:
        streams.assemble(body, "sparktide")
    assert (info.value.code, info.value.path) == ("malformed_arguments", "$[0].arguments")


def test_case_09_class_length_is_rejected_even_when_the_arguments_are_whole() -> None:
    c = case("09")
    body = source(c).replace(b'\\"ab"', b'\\"ab\\"}"')
    with pytest.raises(StreamError) as info:
        streams.assemble(body, "sparktide")
    assert info.value.code == "length_with_tool_calls"


# ---------------------------------------------------------------- case 14: [DONE]


def test_case_14_the_done_sentinel_is_rejected() -> None:
    c = case("14")
    with pytest.raises(StreamError) as info:
        streams.assemble(source(c), "sparktide")
    assert (info.value.code, info.value.path) == ("done_sentinel", "$[2]")


def test_case_14_any_data_after_the_terminal_frame_is_rejected() -> None:
    c = case("14")
    late = b'data: {"protocolVersion":"1.0","type":"text.delta","text":"!"}\n\n'
    body = source(c).replace(b"data: [DONE]\n\n", late)
    with pytest.raises(StreamError) as info:
        streams.assemble(body, "sparktide")
    assert (info.value.code, info.value.path) == ("data_after_terminal", "$[2]")


def test_case_14_without_the_sentinel_the_stream_is_whole() -> None:
    c = case("14")
    body = source(c).replace(b"data: [DONE]\n\n", b"")
    assert streams.assemble(body, "sparktide").message.content == "Hi"


def test_case_14_a_stream_written_by_lucent_has_no_done_and_one_terminal_frame() -> None:
    c = case("14")
    events = list(streams.iter_events(source(c).replace(b"data: [DONE]\n\n", b""), "sparktide"))
    written = b"".join(streams.encode_sse(events))
    assert b"[DONE]" not in written
    assert written.count(b'"type":"model.completed"') == 1 and written.rstrip().endswith(b'"finishReason":"STOP"}')


# ---------------------------------------------------------------- case 03: tool index in a converted stream


def converted_frames(events: Any, source: str = "lux", target: str = "sparktide") -> list[dict[str, Any]]:
    return [msgspec.to_builtins(e) for e in streams.convert_stream(events, source, target)]


def test_case_03_frames_come_in_order() -> None:
    c = case("03")
    assert c["operation"] == "convert_stream"
    frames = converted_frames(source(c), c["source"], c["target"])
    assert contains(frames, c["expect"]["frames_in_order"])


def test_case_03_every_tool_delta_has_index_0_and_its_arguments_concatenate() -> None:
    frames = converted_frames(source(case("03")))
    tools = [f for f in frames if f["type"] == "tool.delta"]
    assert {f["index"] for f in tools} == {0}
    assert "".join(f.get("arguments", "") for f in tools) == '{"q":1}'


def test_case_03_usage_then_one_terminal_frame_last_and_no_done() -> None:
    c = case("03")
    frames = converted_frames(source(c))
    types = [f["type"] for f in frames]
    assert types[-2:] == ["usage", "model.completed"]
    assert types.count("model.completed") + types.count("model.error") == 1
    body = b"".join(streams.encode_sse(streams.convert_stream(source(c), "lux", "sparktide")))
    assert b"[DONE]" not in body
    assert streams.assemble(body, "sparktide").message.tool_calls[0].function.arguments == '{"q":1}'


def _lux_with_blocks(kinds: list[str]) -> list[dict[str, Any]]:
    """Case 03 with these blocks before its tool call, and a second tool call after it."""
    events = json.loads(json.dumps(source(case("03"))))
    head, tail = events[:2], events[-4:]
    blocks: list[dict[str, Any]] = []
    for b, kind in enumerate(kinds):
        delta = {"type": "signature", "signature": "S"} if kind == "thinking" else {"type": kind, "text": "x"}
        blocks += [{"event": "block_start", "index": b, "block_type": kind}, {"event": "block_delta", "index": b, "delta": delta},
                   {"event": "block_end", "index": b}]
    for n, call in enumerate(("call_1", "call_2")):
        b = len(kinds) + n
        blocks += [{"event": "block_start", "index": b, "block_type": {"type": "tool_call", "id": call, "name": "lookup"}},
                   {"event": "block_delta", "index": b, "delta": {"type": "tool_arguments", "arguments": '{"q":1}'}},
                   {"event": "block_end", "index": b}]
    return head + blocks + tail


@pytest.mark.parametrize("kinds", [[], ["text"], ["thinking"], ["thinking", "text"], ["text", "refusal", "text", "thinking"]])
def test_case_03_class_tool_indexes_count_tool_calls_whatever_blocks_come_first(kinds: list[str]) -> None:
    events = _lux_with_blocks(kinds)
    frames = converted_frames(events)
    assert [(f["index"], f["id"]) for f in frames if f["type"] == "tool.delta" and "id" in f] == [(0, "call_1"), (1, "call_2")]
    # llm-sdk counts every part it gets (thinking is dropped): the indexes have no gap.
    parts = converted_frames(events, "lux", "llm-sdk")
    indexes = [p["delta"]["index"] for p in parts]
    assert sorted(set(indexes)) == list(range(len(set(indexes))))
    calls = [p["delta"]["index"] for p in parts if p["delta"]["part"].get("toolCallId")]
    assert calls == [len(set(indexes)) - 2, len(set(indexes)) - 1]


def test_case_03_class_sparktide_tool_indexes_become_lux_blocks_after_the_text_and_back() -> None:
    sparktide = converted_frames(source(case("03")))
    lux = converted_frames(sparktide, "sparktide", "lux")
    assert [(e["index"], e["block_type"]) for e in lux if e["event"] == "block_start"] == [
        (0, "text"), (1, {"type": "tool_call", "id": "call_1", "name": "lookup"})]
    assert [f for f in converted_frames(lux) if f["type"] == "tool.delta"] == [f for f in sparktide if f["type"] == "tool.delta"]
