"""Property 6: ``assemble(convert_stream(s)) == convert(assemble(s))`` (tests/stream_conformance.py).

Under pytest: every stream of the corpus (the SparkTide documentation's stream, the valid streams
of the cases) to every other format, and 50 generated streams per ordered pair;
``python -m tests.stream_conformance --count 500`` runs the corpus and 500 per pair.

Read-back (issue 14): every stream format's output of a conversion is assembled by lucent itself;
a refusal must come with an Invalid diagnostic (generated streams, Lux edge streams, and every
recorded stream, vendor ones included, to every other format).
"""

from __future__ import annotations

import json
from typing import Any

import msgspec
import pytest
from hypothesis import HealthCheck, given, settings

import lucent
from lucent import streams
from lucent._context import read_by
from lucent.errors import StreamError
from lucent.generated.lux_ir_v1 import LucentStreamEventError
from tests.stream_conformance import CONTEXT, FULL_CONTEXT, GENERATORS, PAIRS, TARGETS, check, check_read_back, corpus, lux_edge_streams, run_read_back, vendor_corpus

CORPUS = [(name, fmt, target, events) for name, fmt, events in corpus() for target in ("sparktide", "llm-sdk", "lux") if target != fmt]


@pytest.mark.parametrize("name,source,target,events", CORPUS, ids=[f"{n}:{t}" for n, _, t, _ in CORPUS])
def test_property_holds_for_every_corpus_stream(name: str, source: str, target: str, events: Any) -> None:
    check(events, source, target)


def test_the_corpus_holds_a_stream_of_every_format() -> None:
    assert {fmt for _, fmt, _, _ in CORPUS} == {"sparktide", "llm-sdk", "lux"}


@pytest.mark.parametrize("source,target", PAIRS)
def test_property_holds_for_generated_streams(source: str, target: str) -> None:

    @settings(max_examples=50, deadline=None, database=None, suppress_health_check=list(HealthCheck))
    @given(GENERATORS[source]())
    def one(stream: list[dict[str, Any]]) -> None:
        check(stream, source, target)

    one()


def test_a_failed_stream_fails_alike_and_its_error_converts_as_the_document_does() -> None:
    # The corpus' error frame (sparktide-docs/error-frame.json) as a whole stream.
    frames = [{"protocolVersion": "1.0", "type": "model.error", "code": "MODEL_UNAVAILABLE"}]
    out = list(streams.convert_stream(frames, "sparktide", "lux", context=CONTEXT))
    with pytest.raises(StreamError) as converted:
        streams.assemble(out, "lux")
    with pytest.raises(StreamError) as original:
        streams.assemble(frames, "sparktide")
    assert converted.value.code == original.value.code == "model_error"
    failure = {"error": {"code": original.value.error.code}}
    expected = lucent.convert(json.dumps(failure), "sparktide", "lux", kind="error").value
    assert [e.error for e in out if isinstance(e, LucentStreamEventError)] == [expected]
    back = list(streams.convert_stream(out, "lux", "sparktide"))
    assert msgspec.to_builtins(back) == [{"type": "model.error", "protocolVersion": "1.0", "code": "MODEL_UNAVAILABLE"}]


# ------------------------------------------------------------------ read-back (issue 14, class 14)

READ_BACK_SOURCES = ["sparktide", "llm-sdk", "lux", "lux (edge)"]


@pytest.mark.parametrize("source", READ_BACK_SOURCES)
def test_every_target_reads_back_what_the_conversion_wrote_or_it_said_invalid(source: str) -> None:
    """Generated streams to every stream format, each output assembled by lucent: accepted, or
    refused with an Invalid diagnostic of the conversion."""
    generator = lux_edge_streams if source == "lux (edge)" else None
    tally = run_read_back(source.split(" ")[0], 100 if generator else 30, generator=generator)
    assert tally.get("accepted", 0) > 0
    if generator is not None:  # the edge streams hold arguments other formats refuse
        assert tally.get("refused, with an Invalid diagnostic", 0) > 0


RECORDED = corpus() + vendor_corpus()


@pytest.mark.parametrize("source", streams.FORMATS)
def test_every_recorded_stream_reads_back_in_every_other_format(source: str) -> None:
    mine = [(name, events) for name, fmt, events in RECORDED if fmt == source]
    assert mine, source
    for name, events in mine:
        for target in TARGETS:
            if target != source:
                assert check_read_back(events, source, target) in ("accepted", "refused, with an Invalid diagnostic", "model error"), (name, target)


def _lux_calls(*calls: tuple[str, str]) -> list[dict[str, Any]]:
    events: list[dict[str, Any]] = [{"event": "conversation_start", "meta": {"id": "r", "model": "m"}}, {"event": "item_start", "index": 0, "item": {"type": "message", "message": {"role": "assistant", "content": []}}}]
    for b, (call_id, arguments) in enumerate(calls):
        events += [
            {"event": "block_start", "index": b, "block_type": {"type": "tool_call", "id": call_id, "name": "f"}},
            {"event": "block_delta", "index": b, "delta": {"type": "tool_arguments", "arguments": arguments}},
            {"event": "block_end", "index": b},
        ]
    return events + [{"event": "item_end", "index": 0}, {"event": "finish", "finish_reason": "tool_calls"}, {"event": "usage", "usage": {"prompt_tokens": 1, "completion_tokens": 2, "total_tokens": 3}}, {"event": "done"}]


@pytest.mark.parametrize("arguments", ['{"a":', "[1]", "null", '{"a":1,"a":2}', '{"a":1e999}'])
def test_lux_arguments_anthropic_refuses_are_invalid_at_the_tool_call(arguments: str) -> None:
    events = _lux_calls(("call_1", arguments))
    streams.assemble(events, "lux")  # Lux carries the text as it is
    conversion = streams.convert_stream(events, "lux", "anthropic", context=read_by(FULL_CONTEXT, "lux", "anthropic", "stream"))
    out = list(conversion)
    invalid = [(d.field, d.detail) for d in conversion.diagnostics if d.status == "Invalid"]
    assert [f for f, _ in invalid] == ["$[2]"] and "carried verbatim" in invalid[0][1]
    with pytest.raises(StreamError) as refused:
        streams.assemble(out, "anthropic")
    assert refused.value.code == "malformed_arguments"
    good = streams.convert_stream(_lux_calls(("call_1", '{"a":1}'), ("call_2", "")), "lux", "anthropic", context=read_by(FULL_CONTEXT, "lux", "anthropic", "stream"))
    assert streams.assemble(list(good), "anthropic").content[0].input == {"a": 1}
    assert [d for d in good.diagnostics if d.status == "Invalid"] == []


def test_a_second_tool_call_with_the_same_id_is_dropped_from_chat_as_invalid() -> None:
    conversion = streams.convert_stream(_lux_calls(("call_1", '{"a":1}'), ("call_1", '{"b":2}'), ("call_2", "{}")), "lux", "openai-chat", context=read_by(FULL_CONTEXT, "lux", "openai-chat", "stream"))
    response = streams.assemble(list(conversion), "openai-chat")
    calls = response.choices[0].message.tool_calls
    assert [(c.id, c.function.arguments) for c in calls] == [("call_1", '{"a":1}'), ("call_2", "{}")]
    assert [(d.field, d.status) for d in conversion.diagnostics if d.status == "Invalid"] == [("$[5].block_type", "Invalid")]
