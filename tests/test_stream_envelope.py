"""The envelope of a vendor stream gets the document converter's diagnostics (lucent._stream_envelope).

A stream conversion reports what it loses of the envelope (ids, model, usage, service tier,
status, created, the request settings a Responses stream repeats) as ``lucent.convert`` reports
it for the assembled document, at the event member that carried it: ``$.created`` of a chat
completion is ``$[0].created``, ``$.temperature`` of a Response the terminal event's
``$[t].response.temperature``.
"""

from __future__ import annotations

from typing import Any

import pytest

import lucent
from lucent import streams
from lucent.errors import ConversionError
from lucent._context import read_by
from tests.stream_conformance import CONTENT_ROOTS, commutation_context, compared
from tests.vendor_streams import corpus_streams

VENDORS = ("openai-responses", "anthropic", "openai-chat", "gemini")
TARGETS = streams.FORMATS

STREAMS = {
    "openai-responses": "anthropicOpus5AdaptiveThinkingMaxEffortParam/responses/response-streaming.json",
    "anthropic": "codeInterpreterToolParam/anthropic/response-streaming.json",
    "openai-chat": "bedrockAnthropicOpus48SamplingParam/chat-completions/response-streaming.json",
    "gemini": "toolCallRequest/google/response-streaming.json",
}
"""A recorded stream per vendor format whose envelope has members some target cannot hold."""

_CORPUS = {s.file: s for s in corpus_streams()}


def _events(name: str) -> list[Any]:
    return list(_CORPUS[name].events)


def _sample(source: str, count: int = 4) -> list[str]:
    """The first ``count`` recorded streams of ``source`` that assemble, by file name."""
    found = []
    for name in sorted(_CORPUS):
        recorded = _CORPUS[name]
        if recorded.format != source:
            continue
        try:
            streams.assemble(list(recorded.events), source)
        except lucent.errors.StreamError:
            continue
        found.append(name)
    return found[:count]


def _envelope(statuses: dict[str, str], source: str) -> dict[str, str]:
    """The statuses of the envelope members (every member outside the format's content)."""
    roots = CONTENT_ROOTS[source]
    return {m: s for m, s in statuses.items() if not any(m == r or m.startswith((r + ".", r + "[")) for r in roots)}


@pytest.mark.parametrize("source", VENDORS)
def test_envelope_statuses_are_the_document_converters(source: str) -> None:
    """For recorded streams and every target: the same status for each envelope member."""
    for name in _sample(source):
        for target in TARGETS:
            if target == source:
                continue
            _, _, streamed, converted = compared(_events(name), source, target)
            assert _envelope(streamed, source) == _envelope(converted, source), (name, target)


def test_chat_envelope_detail_is_the_document_converters() -> None:
    """Same detail text as the document converter, at the first chunk's member."""
    name = STREAMS["openai-chat"]
    events = _events(name)
    context = commutation_context("openai-chat")
    conversion = streams.convert_stream(events, "openai-chat", "anthropic", context=read_by(context, "openai-chat", "anthropic", "stream"))
    list(conversion)
    document = lucent.convert(streams.assemble(events, "openai-chat"), "openai-chat", "anthropic", kind="response", context=read_by(context, "openai-chat", "anthropic", "response"))
    by_field = {d.field: (d.status, d.detail) for d in document.diagnostics}
    streamed = {d.field: (d.status, d.detail) for d in conversion.diagnostics}
    assert streamed["$[0].created"] == by_field["$.created"] == ("Unsupported", "an Anthropic message has no creation time")
    assert streamed["$[0].service_tier"][0] == by_field["$.service_tier"][0] == "Unsupported"
    assert streamed["target:$.usage"][0] == by_field["target:$.usage"][0] == "Invalid"  # the chunks have no usage


def test_responses_envelope_is_reported_at_the_terminal_event() -> None:
    name = STREAMS["openai-responses"]
    events = _events(name)
    terminal = len(events) - 1
    assert events[terminal]["type"] == "response.completed"
    conversion = streams.convert_stream(events, "openai-responses", "anthropic", context=read_by(commutation_context("openai-responses"), "openai-responses", "anthropic", "stream"))
    list(conversion)
    fields = {(d.field, d.status) for d in conversion.diagnostics}
    for member in ("temperature", "service_tier", "created_at"):
        assert (f"$[{terminal}].response.{member}", "Unsupported") in fields
    # status completed and tools [] are what the way back writes (the finish reason, the default): no loss
    assert events[terminal]["response"]["status"] == "completed" and events[terminal]["response"]["tools"] == []
    assert not [f for f in fields if f[0] in (f"$[{terminal}].response.status", f"$[{terminal}].response.tools")]
    # response.created and response.in_progress repeat the envelope: nothing is said of them
    assert not [d for d in conversion.diagnostics if d.field.startswith(("$[0]", "$[1]"))]


def test_anthropic_envelope_members_are_named_where_they_came() -> None:
    """message_start gives id, model and the first usage; message_delta the stop reason and the
    final usage counts."""
    name = STREAMS["anthropic"]
    events = _events(name)
    delta = next(i for i, e in enumerate(events) if e["type"] == "message_delta")
    conversion = streams.convert_stream(events, "anthropic", "gemini", context=read_by(commutation_context("anthropic"), "anthropic", "gemini", "stream"))
    list(conversion)
    fields = {(d.field, d.status) for d in conversion.diagnostics}
    assert ("$[0].message.usage.service_tier", "Unsupported") in fields
    # 0 cache writes: nothing Gemini, which reports none, loses
    assert events[delta]["usage"]["cache_creation_input_tokens"] == 0
    assert not [f for f in fields if f[0] == f"$[{delta}].usage.cache_creation_input_tokens"]
    # the stop reason: the call's tool_use reads as tool_calls and Gemini writes STOP with the
    # function call, as the document converter does (the envelope keeps the first block of each type)
    assert not [d for d in conversion.diagnostics if d.field.startswith(f"$[{delta}].delta.stop_reason")]


@pytest.mark.parametrize(
    ("source", "member"),
    [
        ("gemini", "$[1].usageMetadata.promptTokensDetails"),
        ("anthropic", "$[0].message.usage.service_tier"),
        ("openai-chat", "$[0].system_fingerprint"),
    ],
)
def test_what_a_lux_document_keeps_in_provider_payload_a_lux_stream_drops(source: str, member: str) -> None:
    """The document converter keeps it in provider_payload (Degraded); a Lux stream has none."""
    events = _events(STREAMS[source])
    conversion = streams.convert_stream(events, source, "lux", context=read_by(commutation_context(source), source, "lux", "stream"))
    list(conversion)
    found = {d.field: d for d in conversion.diagnostics}
    assert found[member].status == "Unsupported"
    assert "a Lux stream has no provider_payload" in found[member].detail


def test_a_responses_stream_to_lux_drops_created_at() -> None:
    events = _events(STREAMS["openai-responses"])
    conversion = streams.convert_stream(events, "openai-responses", "lux")
    list(conversion)
    found = {d.field: d for d in conversion.diagnostics}
    lost = found[f"$[{len(events) - 1}].response.created_at"]
    assert lost.status == "Unsupported" and "a Lux stream has no created_at" in lost.detail


def test_strict_raises_for_the_envelope_before_the_last_events() -> None:
    """strict=True: the chat envelope is complete when the stream ends (its usage comes last);
    its first Unsupported or Invalid raises then, before the target events of the end
    (message_delta, message_stop), after the content that went out already."""
    events = _events(STREAMS["openai-chat"])
    context = commutation_context("openai-chat")
    lenient = streams.convert_stream(events, "openai-chat", "anthropic", context=read_by(context, "openai-chat", "anthropic", "stream"))
    list(lenient)
    lossy = [d.field for d in lenient.diagnostics if d.status in ("Unsupported", "Invalid")]
    assert lossy and all(f.startswith(("$[0].", "target:")) for f in lossy)  # the envelope's only
    conversion = streams.convert_stream(events, "openai-chat", "anthropic", context=read_by(context, "openai-chat", "anthropic", "stream"), strict=True)
    written = []
    with pytest.raises(ConversionError) as caught:
        for event in conversion:
            written.append(event)
    assert caught.value.code == "conversion_lossy" and caught.value.path == lossy[0]
    kinds = [type(e).__struct_config__.tag for e in written]
    assert kinds[0] == "message_start" and "content_block_delta" in kinds
    assert "message_delta" not in kinds and "message_stop" not in kinds


def test_the_envelope_holds_no_content() -> None:
    """Bounded: the Anthropic envelope keeps one block per type, the Responses one no output."""
    from lucent._stream_convert import _Pipeline

    text = [{"type": "content_block_start", "index": i, "content_block": {"type": "text", "text": ""}} for i in range(50)]
    events: list[dict[str, Any]] = [
        {"type": "message_start", "message": {"id": "msg_1", "type": "message", "role": "assistant", "model": "m", "content": [], "stop_reason": None, "stop_sequence": None, "usage": {"input_tokens": 1, "output_tokens": 0}}},
    ]
    for i, start in enumerate(text):
        events += [start, {"type": "content_block_delta", "index": i, "delta": {"type": "text_delta", "text": "x" * 100}}, {"type": "content_block_stop", "index": i}]
    events += [{"type": "message_delta", "delta": {"stop_reason": "end_turn", "stop_sequence": None}, "usage": {"output_tokens": 5}}, {"type": "message_stop"}]
    conversion = streams.convert_stream(events, "anthropic", "openai-chat", context=read_by(commutation_context("anthropic"), "anthropic", "openai-chat", "stream"))
    pipeline: _Pipeline = conversion._pipeline
    list(conversion)
    reader: Any = pipeline.reader
    assert list(reader._kinds_seen) == ["text"] and reader._kinds_seen["text"]["text"] == ""


def test_a_value_the_writer_writes_and_the_document_does_not_is_still_invalid() -> None:
    """The chat chunks say ``created``; a Lux stream does not carry it, so without
    ``context['created_at']`` the Responses writer writes 0 (the document converter writes the
    chunks' time): the writer's Invalid stays, though it writes the envelope."""
    events = _events(STREAMS["openai-chat"])
    conversion = streams.convert_stream(events, "openai-chat", "openai-responses")
    written = list(conversion)
    found = {(d.field, d.status) for d in conversion.diagnostics}
    assert ("target:$.created_at", "Invalid") in found
    assert written[0].response.created_at == 0
    document = lucent.convert(streams.assemble(events, "openai-chat"), "openai-chat", "openai-responses", kind="response")
    assert document.value.created_at == events[0]["created"]
