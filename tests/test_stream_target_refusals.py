"""A target event its schema refuses is an Invalid diagnostic, never an exception (issue 14, 5).

On 87b5198 a Chat tool call named ``""`` converted to Anthropic raised an undocumented
``EncodeError`` mid-stream, without ``.usage``: the vendor writers build each event through the
target schema (``_stream_convert_vendor.build``) and raised when it refused one. Now such an
event is reported Invalid at the source event, naming the member and the rule (never the
value), and written as it is, as :func:`lucent.convert` returns a document its target schema
refuses; ``strict=True`` raises ConversionError before it.
"""

from __future__ import annotations

from typing import Any

import pytest

import lucent
from lucent._context import read_by
from lucent import streams
from lucent.errors import ConversionError, LucentError, StreamError, UsageError


def _lux(*, name: str = "lookup", call_id: str = "call_1", usage: dict[str, int] | None = None) -> list[dict[str, Any]]:
    events: list[dict[str, Any]] = [
        {"event": "conversation_start", "meta": {"id": "r1", "model": "m"}},
        {"event": "item_start", "index": 0, "item": {"type": "message", "message": {"role": "assistant", "content": []}}},
        {"event": "block_start", "index": 0, "block_type": {"type": "tool_call", "id": call_id, "name": name}},
        {"event": "block_delta", "index": 0, "delta": {"type": "tool_arguments", "arguments": "{}"}},
        {"event": "block_end", "index": 0},
        {"event": "item_end", "index": 0},
        {"event": "finish", "finish_reason": "tool_calls"},
        {"event": "usage", "usage": usage or {"prompt_tokens": 3, "completion_tokens": 2, "total_tokens": 5}},
        {"event": "done"},
    ]
    return events


def _chat_tool_call(name: str) -> list[dict[str, Any]]:
    def chunk(delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
        return {"id": "c", "object": "chat.completion.chunk", "created": 1, "model": "m", "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}

    call = {"index": 0, "id": "call_1", "type": "function", "function": {"name": name, "arguments": "{}"}}
    return [chunk({"role": "assistant", "tool_calls": [call]}), chunk({}, "tool_calls")]


# (source events, source format, the event the Anthropic schema refuses, its member, its rule,
# the source value that must not be repeated, where the refused value is in the written event)
REFUSED = {
    "a Chat tool call named ''": (_chat_tool_call(""), "openai-chat", "$[0].choices[0].delta.tool_calls[0]", "$.content_block.name", "minLength", None, ("content_block", "name"), ""),
    "a Lux tool call named ''": (_lux(name=""), "lux", "$[2]", "$.content_block.name", "minLength", None, ("content_block", "name"), ""),
    "a tool call id outside the pattern": (_lux(call_id="call one"), "lux", "$[2]", "$.content_block.id", "pattern", "call one", ("content_block", "id"), "call one"),
}


@pytest.mark.parametrize("case", list(REFUSED))
def test_a_refused_target_event_is_reported_invalid_and_written_as_it_is(case: str) -> None:
    events, source, at, member, rule, secret, where, value = REFUSED[case]
    conversion = streams.convert_stream(events, source, "anthropic")
    out = list(conversion)  # no exception
    refused = [d for d in conversion.diagnostics if d.field == at and d.status == "Invalid"]
    assert len(refused) == 1
    assert f"at {member}" in refused[0].detail and f"({rule})" in refused[0].detail and refused[0].detail.endswith("written as it is")
    if secret is not None:
        assert secret not in refused[0].detail
    written = [e for e in out if type(e).__name__ in ("ContentBlockStartEvent", "MessageDeltaEvent") and _reach(e, where) is not None]
    assert [_reach(e, where) for e in written] == [value]  # the source's value, not a stand-in
    wire = b"".join(streams.encode_sse(out, "anthropic"))
    assert wire.count(b"event: message_stop") == 1  # the stream is whole
    with pytest.raises(StreamError) as reread:  # lucent's own reader refuses it, as reported
        streams.assemble(wire, "anthropic")
    assert reread.value.code == "invalid_frame" and reread.value.path.endswith(member[1:])


def _reach(event: Any, where: tuple[str, ...]) -> Any:
    for name in where:
        event = getattr(event, name, None)
    return event


@pytest.mark.parametrize("case", list(REFUSED))
def test_a_refused_target_event_raises_conversion_error_under_strict_before_it_is_written(case: str) -> None:
    events, source, at, *_ = REFUSED[case]
    conversion = streams.convert_stream(events, source, "anthropic", strict=True)
    written: list[Any] = []
    with pytest.raises(ConversionError) as caught:
        for event in conversion:
            written.append(event)
    assert caught.value.path == at and caught.value.code == "conversion_lossy"
    assert not any(type(e).__name__ == "MessageStopEvent" for e in written)


@pytest.mark.parametrize("target", ["anthropic", "openai-responses", "gemini", "openai-chat", "sparktide", "llm-sdk", "lux"])
@pytest.mark.parametrize("case", list(REFUSED))
def test_every_target_converts_these_streams_with_documented_errors_only(case: str, target: str) -> None:
    events, source, *_ = REFUSED[case]
    try:
        out = list(streams.convert_stream(events, source, target, context=read_by({"created": 1, "created_at": 1}, source, target, "stream")))
    except (StreamError, ConversionError, UsageError) as exc:  # the documented ones
        pytest.fail(f"{target}: {type(exc).__name__} {exc.code}")
    except LucentError as exc:
        pytest.fail(f"{target}: undocumented {type(exc).__name__} {exc.code}")
    assert out  # something was written
    assert lucent.encode(out)  # and every event has a JSON form
