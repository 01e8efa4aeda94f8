"""Property 6 of the stream converters: ``assemble(convert_stream(s)) == convert(assemble(s))``.

For a stream ``s`` of format ``source``, converting it event by event to ``target`` and
assembling the result gives the same response as assembling ``s`` and converting the response
document (``lucent.convert(..., kind="response")``), for every stream in the corpus and for
generated ones. ``python -m tests.stream_conformance --count 500`` checks 500 generated streams
per ordered pair of formats and prints the counts; tests/test_streams_convert_property.py runs a
small budget under pytest.

The equality holds up to what one side's *format* cannot hold, each named below and reported
as a diagnostic by the stream converter (:func:`normalized`):

* a SparkTide stream says its finish reason (``model.completed.finishReason``) and a
  ``RemoteModelResponse`` does not, so the document converter derives one (tool_calls or stop):
  the expected Lux finish reason is the stream's own;
* an llm-sdk stream (``PartialModelResponse``) has no usage and no cost, so the expected
  ``ModelResponse`` has neither.
* an llm-sdk *target* stream has no usage: the source values of the usage the document keeps
  are Unsupported in a stream (``lucent._stream_envelope.llm_sdk_stream_view``, which the
  stream converter applies to a vendor envelope too);
* a SparkTide *target* stream states its finish reason (STOP, TOOL_CALLS, LENGTH without tool
  calls) and a ``RemoteModelResponse`` does not: the document's diagnostic that it has none is
  no loss of such a stream (:func:`sparktide_stream_view`);
* a Lux stream has no ``created_at`` and no ``provider_payload``: an envelope value that the
  Lux document keeps there is Unsupported in a stream to Lux (the document diagnostics are seen
  through ``lucent._stream_envelope.lux_stream_view``, which the stream converter applies too).

The generators (one per source format) make small, valid, realistic streams: text split
anywhere (empty pieces too), tool calls whose JSON arguments are split anywhere and interleaved
with each other, usage (SparkTide also split over two frames), every finish reason the format
allows; Lux adds thinking with signatures, refusals, several text blocks and a second choice.
Tool arguments are compact JSON (``lucent.formats.llm_sdk.transforms.canonical_json``): the document converter
re-serializes llm-sdk ``args`` that way, while a stream carries the model's text as it came.

**Read-back** (:func:`check_read_back`, every target of :data:`TARGETS`, the vendor formats
included): every stream a conversion writes is read back with lucent's own assembler of the
target format. A refusal (a StreamError) is allowed only when the conversion reported an Invalid
diagnostic (it said it could not write a stream that format accepts), or when the source itself
ends with the model's error (``model_error``, which every format reports as such). The sources:
the generated streams above, :func:`lux_edge_streams` (Lux streams that Lux accepts and other
formats may not: tool arguments that are not one JSON object, two tool calls sharing an id) and
the recorded vendor streams of tests/data/lingua (:func:`vendor_corpus`). The context gives every
envelope value a target needs, so that no Invalid diagnostic stands for a missing one.
"""

from __future__ import annotations

import argparse
import itertools
import json
import re
import sys
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

import hypothesis
import msgspec
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import lucent
from lucent import streams
from lucent._context import read_by
from lucent.errors import LucentError, StreamError
from lucent.formats.sparktide.tables import FINISH_FROM_SPARKTIDE
from lucent._stream_envelope import llm_sdk_stream_view, lux_stream_view
from lucent.formats.llm_sdk.transforms import canonical_json
from lucent.generated.lux_ir_v1 import LucentContentToolUse

FORMATS = ("sparktide", "llm-sdk", "lux")
PAIRS = [(s, t) for s in FORMATS for t in FORMATS if s != t]
TARGETS = streams.FORMATS
"""Every stream format: the targets whose output is read back."""
CONTEXT = {"id": "resp_1", "model": "model-1"}
FULL_CONTEXT = {**CONTEXT, "created": 1_700_000_000, "created_at": 1_700_000_000}
"""What every vendor target needs and a Lux stream does not carry (chat ``created``, Responses
``created_at``)."""
NAMES = ("lookup", "get_weather", "now")

# ------------------------------------------------------------------------------ building blocks

TEXT = st.text(st.characters(codec="utf-8", exclude_categories=("Cs",)), min_size=1, max_size=12)
ARGS = st.dictionaries(
    st.sampled_from(["q", "city", "n", "units", "ünï"]),
    st.one_of(st.integers(-1000, 1000), st.text(max_size=6), st.booleans(), st.none(), st.lists(st.integers(0, 9), max_size=3)),
    max_size=3,
)
COUNT = st.integers(0, 100_000)


@st.composite
def pieces(draw: st.DrawFn, text: str) -> list[str]:
    """``text`` split at random places (a repeated cut gives an empty piece)."""
    cuts = sorted(draw(st.lists(st.integers(0, len(text)), max_size=4)))
    bounds = [0, *cuts, len(text)]
    return [text[a:b] for a, b in zip(bounds, bounds[1:])]


@st.composite
def interleave(draw: st.DrawFn, sequences: list[list[Any]]) -> list[Any]:
    """The items of all sequences, each sequence in order, and sequence i starting after i-1."""
    queues = [list(s) for s in sequences if s]
    started = 0
    out: list[Any] = []
    while any(queues):
        ready = [i for i, q in enumerate(queues) if q and i < started + 1]
        i = draw(st.sampled_from(ready))
        if i == started:
            started += 1
        out.append(queues[i].pop(0))
    return out


@st.composite
def tool_calls(draw: st.DrawFn, *, allow_none: bool = False) -> list[tuple[str, str, str | None]]:
    """(id, name, compact JSON arguments or None for a call without arguments)."""
    count = draw(st.integers(0, 3))
    calls = []
    for i in range(count):
        args = None if allow_none and draw(st.integers(0, 5)) == 0 else canonical_json(draw(ARGS))
        calls.append((f"call_{i}", draw(st.sampled_from(NAMES)), args))
    return calls


# ------------------------------------------------------------------------------ the generators


def _frame(kind: str, **fields: Any) -> dict[str, Any]:
    return {"protocolVersion": "1.0", "type": kind, **fields}


@st.composite
def sparktide_streams(draw: st.DrawFn) -> list[dict[str, Any]]:
    """Valid SparkTide frames: text deltas, then tool calls (interleaved), usage, the terminal."""
    frames: list[dict[str, Any]] = []
    text = draw(st.one_of(st.none(), TEXT))
    if text is not None:
        frames += [_frame("text.delta", text=p) for p in draw(pieces(text))]
    calls = draw(tool_calls())
    per_call = []
    for n, (call_id, name, args) in enumerate(calls):
        assert args is not None
        parts = draw(pieces(args))
        first = _frame("tool.delta", index=n, id=call_id, name=name)
        if draw(st.booleans()):
            first["arguments"] = parts.pop(0)
        per_call.append([first] + [_frame("tool.delta", index=n, arguments=p) for p in parts])
    frames += draw(interleave(per_call))
    usage = draw(st.sampled_from(["none", "whole", "split", "empty"]))
    p, c = draw(COUNT), draw(COUNT)
    if usage == "whole":
        frames.append(_frame("usage", usage={"prompt_tokens": p, "completion_tokens": c, "total_tokens": p + c}))
    elif usage == "split":
        frames.append(_frame("usage", usage={"prompt_tokens": p}))
        frames.append(_frame("usage", usage={"completion_tokens": c, "total_tokens": p + c}))
    elif usage == "empty":
        frames.append(_frame("usage", usage={}))
    reasons = ["STOP", "TOOL_CALLS"] + ([] if calls else ["LENGTH"])
    frames.append(_frame("model.completed", finishReason=draw(st.sampled_from(reasons))))
    return frames


@st.composite
def lux_streams(draw: st.DrawFn) -> list[dict[str, Any]]:
    """Valid Lux events: one assistant item of blocks (thinking, text, refusal, tool calls), at
    times a second choice, then finish, usage and done."""
    events: list[dict[str, Any]] = [{"event": "conversation_start", "meta": dict(CONTEXT)}]
    items = 2 if draw(st.integers(0, 9)) == 0 else 1
    calls = itertools.chain(draw(tool_calls(allow_none=True)), itertools.repeat(("call_x", "now", None)))
    for item in range(items):
        events.append({"event": "item_start", "index": item, "item": {"type": "message", "message": {"role": "assistant", "content": []}}})
        kinds = draw(st.lists(st.sampled_from(["thinking", "text", "text", "refusal", "tool", "tool"]), max_size=4))
        for b, kind in enumerate(kinds):
            if kind == "tool":
                call_id, name, args = next(calls)
                call_id = f"{call_id}_{item}_{b}"
                events.append({"event": "block_start", "index": b, "block_type": {"type": "tool_call", "id": call_id, "name": name}})
                for p in draw(pieces(args)) if args is not None else []:
                    events.append({"event": "block_delta", "index": b, "delta": {"type": "tool_arguments", "arguments": p}})
            else:
                events.append({"event": "block_start", "index": b, "block_type": kind})
                for p in draw(pieces(draw(TEXT))):
                    events.append({"event": "block_delta", "index": b, "delta": {"type": kind, "text": p}})
                if kind == "thinking" and draw(st.booleans()):
                    events.append({"event": "block_delta", "index": b, "delta": {"type": "signature", "signature": "SIG"}})
            events.append({"event": "block_end", "index": b})
        events.append({"event": "item_end", "index": item})
    events.append({"event": "finish", "finish_reason": draw(st.sampled_from(["stop", "tool_calls", "length", "content_filter"]))})
    if draw(st.booleans()):
        p, c = draw(COUNT), draw(COUNT)
        usage: dict[str, Any] = {"prompt_tokens": p, "completion_tokens": c, "total_tokens": p + c}
        if draw(st.booleans()):
            usage["cached_tokens"] = min(p, draw(COUNT))
        if draw(st.booleans()):
            usage["reasoning_tokens"] = min(c, draw(COUNT))
        events.append({"event": "usage", "usage": usage})
    events.append({"event": "done"})
    return events


@st.composite
def llm_sdk_streams(draw: st.DrawFn) -> list[dict[str, Any]]:
    """Valid llm-sdk partials: text and tool-call parts (args split anywhere, or none at all),
    the parts' deltas interleaved, each part starting after the one before it."""
    kinds = draw(st.lists(st.sampled_from(["text", "tool"]), max_size=4))
    calls = itertools.chain(draw(tool_calls(allow_none=True)), itertools.repeat(("call_x", "now", None)))
    per_part = []
    for n, kind in enumerate(kinds):
        if kind == "text":
            per_part.append([{"delta": {"index": n, "part": {"type": "text", "text": p}}} for p in draw(pieces(draw(TEXT)))])
        else:
            call_id, name, args = next(calls)
            parts = draw(pieces(args)) if args is not None else []
            first: dict[str, Any] = {"type": "tool-call", "toolCallId": f"{call_id}_{n}", "toolName": name}
            if parts and draw(st.booleans()):
                first["args"] = parts.pop(0)
            per_part.append([{"delta": {"index": n, "part": first}}] + [{"delta": {"index": n, "part": {"type": "tool-call", "args": p}}} for p in parts])
    return draw(interleave(per_part))  # type: ignore[no-any-return]


EDGE_ARGUMENTS = ['{"a":', "[1]", "null", "1", '"x"', " ", '{"a":1,"a":2}', '{"a":1e999}', "[" * 600 + "]" * 600, "{} {}", '{"a":"\\ud800"}']
"""Tool arguments a Lux stream carries as text and other formats may refuse: not one JSON
object, duplicate keys, a number out of range, too deep, a lone surrogate."""


@st.composite
def lux_edge_streams(draw: st.DrawFn) -> list[dict[str, Any]]:
    """Valid Lux events that other formats may not take: a tool call's arguments from
    :data:`EDGE_ARGUMENTS` (split anywhere) or valid JSON, tool calls sharing an id, text."""
    events: list[dict[str, Any]] = [{"event": "conversation_start", "meta": dict(CONTEXT)}]
    events.append({"event": "item_start", "index": 0, "item": {"type": "message", "message": {"role": "assistant", "content": []}}})
    ids = draw(st.lists(st.sampled_from(["call_a", "call_b"]), min_size=1, max_size=3))
    b = 0
    if draw(st.booleans()):
        events += [{"event": "block_start", "index": 0, "block_type": "text"}, {"event": "block_delta", "index": 0, "delta": {"type": "text", "text": draw(TEXT)}}, {"event": "block_end", "index": 0}]
        b = 1
    for k, call_id in enumerate(ids, start=b):
        args = draw(st.one_of(st.sampled_from(EDGE_ARGUMENTS), ARGS.map(canonical_json)))
        events.append({"event": "block_start", "index": k, "block_type": {"type": "tool_call", "id": call_id, "name": draw(st.sampled_from(NAMES))}})
        for p in draw(pieces(args)):
            events.append({"event": "block_delta", "index": k, "delta": {"type": "tool_arguments", "arguments": p}})
        events.append({"event": "block_end", "index": k})
    events.append({"event": "item_end", "index": 0})
    events.append({"event": "finish", "finish_reason": draw(st.sampled_from(["stop", "tool_calls", "length"]))})
    events.append({"event": "usage", "usage": {"prompt_tokens": 3, "completion_tokens": 4, "total_tokens": 7}})
    events.append({"event": "done"})
    return events


GENERATORS: dict[str, Callable[[], st.SearchStrategy[list[dict[str, Any]]]]] = {
    "sparktide": sparktide_streams,
    "lux": lux_streams,
    "llm-sdk": llm_sdk_streams,
}


# ------------------------------------------------------------------------------ the property


def normalized(expected: Any, events: Sequence[Any], source: str, target: str) -> Any:
    """The expected response, without what the target's stream, or the source's document, cannot
    hold (see the module docstring); each is a diagnostic of the stream conversion."""
    if source == "sparktide" and target == "lux":
        parts = streams.assembler("sparktide")
        for event in streams.iter_events(list(events), "sparktide"):
            parts.push(event)
        assert parts.finish_reason is not None
        reason = FINISH_FROM_SPARKTIDE[parts.finish_reason]
        expected = msgspec.structs.replace(expected, choices=[msgspec.structs.replace(c, finish_reason=reason) for c in expected.choices])
    if target == "llm-sdk":
        expected = msgspec.structs.replace(expected, usage=msgspec.UNSET, cost=msgspec.UNSET)
    return expected


def check_target_stream(events: Sequence[Any], target: str) -> None:
    """What every target stream must be: one terminal event, last; no [DONE]; dense indexes."""
    body = b"".join(streams.encode_sse(events))
    assert b"[DONE]" not in body
    tags = [msgspec.to_builtins(e) for e in events]
    if target == "sparktide":
        terminal = [i for i, e in enumerate(tags) if e["type"] in ("model.completed", "model.error")]
        assert terminal == [len(tags) - 1], terminal
        usage = [i for i, e in enumerate(tags) if e["type"] == "usage"]
        assert len(usage) <= 1 and all(i == len(tags) - 2 for i in usage), usage
        indexes = sorted({e["index"] for e in tags if e["type"] == "tool.delta"})
        assert indexes == list(range(len(indexes))), indexes
    elif target == "lux":
        done = [i for i, e in enumerate(tags) if e["event"] == "done"]
        assert done == [len(tags) - 1], done
    else:
        indexes = sorted({e["delta"]["index"] for e in tags})
        assert indexes == list(range(len(indexes))), indexes


_FAILURES = ("error", "malformed_tool_call")
"""Lux finish reasons a target may write as a failed response (Responses ``response.failed``
with an error: lucent.formats.openai_responses.tables.FAILURE_ERROR)."""


def _ends_in_failure(stream: Sequence[Any], source: str) -> bool:
    """True when ``stream`` reads as Lux with a failure finish reason (Gemini ``OTHER``, say)."""
    try:
        lux = streams.convert_stream(stream, source, "lux", context=read_by(FULL_CONTEXT, source, "lux", "stream"))
        response = streams.assemble(list(lux), "lux")
    except LucentError:
        return False
    return any(choice.finish_reason in _FAILURES for choice in response.choices)


def check_read_back(stream: Sequence[Any], source: str, target: str) -> str:
    """Convert ``stream`` to ``target`` and assemble the result with lucent's assembler of the
    target: "accepted", "refused, with an Invalid diagnostic" or "model error". Raises
    AssertionError for a refusal the conversion did not report as Invalid."""
    try:
        streams.assemble(list(stream), source)
        failed = False
    except StreamError as exc:
        failed = exc.code == "model_error"
        assert failed, f"the source stream is not valid: {exc}"
    conversion = streams.convert_stream(stream, source, target, context=read_by(FULL_CONTEXT, source, target, "stream"))
    try:
        events = list(conversion)
    except StreamError as exc:  # the model's error, which some targets raise (chat, llm-sdk)
        assert failed and exc.code == "model_error", f"{source} -> {target}: the conversion raised {exc}"
        return "model error"
    try:
        streams.assemble(events, target)
    except StreamError as exc:
        if exc.code == "model_error" and (failed or _ends_in_failure(stream, source)):
            return "model error"
        invalid = [d for d in conversion.diagnostics if d.status == "Invalid"]
        assert invalid, f"{source} -> {target}: lucent refuses the stream it wrote ({exc.code} at {exc.path}: {exc.message}) with no Invalid diagnostic"
        return "refused, with an Invalid diagnostic"
    return "accepted"


def vendor_corpus() -> list[tuple[str, str, Any]]:
    """(name, format, events) for each recorded vendor stream of tests/data/lingua that
    assembles (or ends with the model's error)."""
    from tests.vendor_streams import corpus_streams

    found = []
    for recorded in corpus_streams():
        try:
            streams.assemble(recorded.events, recorded.format)
        except StreamError as exc:
            if exc.code != "model_error":
                continue
        found.append((recorded.file, recorded.format, recorded.events))
    return found


def run_read_back(source: str, count: int, *, seed: int | None = None, generator: Callable[[], st.SearchStrategy[list[dict[str, Any]]]] | None = None) -> dict[str, int]:
    """Read back ``count`` generated streams of ``source`` converted to every target; returns
    the tally of :func:`check_read_back`'s answers."""
    tally: dict[str, int] = {}

    @settings(max_examples=count, deadline=None, database=None, suppress_health_check=list(HealthCheck))
    @given((generator or GENERATORS[source])())
    def one(stream: list[dict[str, Any]]) -> None:
        for target in TARGETS:
            if target != source:
                answer = check_read_back(stream, source, target)
                tally[answer] = tally.get(answer, 0) + 1

    if seed is not None:
        one = hypothesis.seed(seed)(one)
    one()
    return tally


def check(stream: Sequence[Any], source: str, target: str) -> int:
    """Assert the property for one stream; returns the number of target events."""
    conversion = streams.convert_stream(stream, source, target, context=read_by(CONTEXT, source, target, "stream"))
    events = list(conversion)
    check_target_stream(events, target)
    actual = streams.assemble(events, target)
    expected = lucent.convert(streams.assemble(stream, source), source, target, kind="response", context=read_by(CONTEXT, source, target, "response")).value
    expected = normalized(expected, stream, source, target)
    assert msgspec.to_builtins(actual) == msgspec.to_builtins(expected), (
        json.dumps(msgspec.to_builtins(actual), ensure_ascii=False),
        json.dumps(msgspec.to_builtins(expected), ensure_ascii=False),
    )
    return len(events)


DATA = Path(__file__).parent / "data"


def corpus() -> list[tuple[str, str, Any]]:
    """(name, format, events) for each valid stream in the corpus: the SparkTide documentation's
    stream and the valid streams of the cases (tests/data)."""
    found: list[tuple[str, str, Any]] = [
        ("sparktide-docs/stream.sse", "sparktide", list(streams.iter_events((DATA / "sparktide-docs" / "stream.sse").read_bytes(), "sparktide"))),
    ]
    for path in sorted((DATA / "cases").glob("*.json")):
        case = json.loads(path.read_text(encoding="utf-8"))
        fmt = case.get("format", case.get("source"))
        if case["operation"] not in ("assemble", "assemble_then_convert", "convert_stream") or case["expect"].get("error"):
            continue
        events = case.get("input_events", case.get("input_partials"))
        if events is None:
            events = list(streams.iter_events(case["input_sse"].encode("utf-8"), fmt))
        found.append((path.stem, fmt, events))
    return found


# ------------------------------------------------------------------------------ commutation

COMMUTATION_TARGETS = streams.FORMATS
"""Every target of the commutation table (:func:`commutation`)."""


def without_nulls(value: Any) -> Any:
    """``value`` (a JSON value) with every object member whose value is null left out."""
    if isinstance(value, dict):
        return {k: without_nulls(v) for k, v in value.items() if v is not None}
    if isinstance(value, list):
        return [without_nulls(v) for v in value]
    return value


_INDEX = re.compile(r"\[\d+\]")
_EVENT = re.compile(r"\$\[(\d+)\]")

_DOCUMENT_PREFIX: dict[str, list[tuple[str, str, str]]] = {
    # format -> (event kind, member of the event, what it is in the assembled document)
    "anthropic": [
        ("message_start", ".message", "$"),
        ("message_start", "", "$"),
        ("content_block_start", ".content_block", "$.content[]"),
        ("content_block_start", "", "$.content[]"),
        ("content_block_delta", ".delta.citation", "$.content[].citations"),
        ("content_block_delta", ".delta.partial_json", "$.content[].input"),
        ("content_block_delta", ".delta", "$.content[]"),
        ("content_block_delta", "", "$.content[]"),
        ("content_block_stop", "", "$.content[]"),
        ("message_delta", ".delta", "$"),
        ("message_delta", "", "$"),
        ("*", "", "$"),
    ],
    "openai-chat": [("*", ".choices[].delta", "$.choices[].message"), ("*", "", "$")],
    "openai-responses": [
        ("response.output_item.added", ".item", "$.output[]"),
        ("response.output_item.done", ".item", "$.output[]"),
        ("response.output_item.added", "", "$.output[]"),
        ("response.output_item.done", "", "$.output[]"),
        ("response.content_part.added", ".part", "$.output[].content[]"),
        ("response.content_part.done", ".part", "$.output[].content[]"),
        ("response.content_part.added", "", "$.output[].content[]"),
        ("response.content_part.done", "", "$.output[].content[]"),
        ("response.output_text.annotation.added", ".annotation", "$.output[].content[].annotations[]"),
        ("response.output_text.delta", ".delta", "$.output[].content[].text"),
        ("response.output_text.delta", "", "$.output[].content[]"),
        ("response.refusal.delta", "", "$.output[].content[]"),
        ("response.reasoning_summary_part.added", ".part", "$.output[].summary[]"),
        ("response.reasoning_summary_part.added", "", "$.output[].summary[]"),
        ("response.reasoning_summary_text.delta", "", "$.output[].summary[]"),
        ("response.function_call_arguments.delta", "", "$.output[].arguments"),
        ("*", ".response", "$"),
        ("response.created", "", "$"),
        ("response.in_progress", "", "$"),
        ("response.completed", "", "$"),
        ("response.incomplete", "", "$"),
        ("response.failed", "", "$"),
        ("*", "", "$.output[]"),
    ],
    "gemini": [("*", "", "$")],
    "lux": [
        ("conversation_start", ".meta", "$"),
        ("item_start", ".item.message", "$.choices[].message"),
        ("item_start", "", "$.choices[]"),
        ("item_end", "", "$.choices[]"),
        ("block_start", ".block_type", "$.choices[].message.content[]"),
        ("block_start", "", "$.choices[].message.content[]"),
        ("block_delta", ".delta.signature", "$.choices[].message.content[].thinking.signature"),
        ("block_delta", ".delta", "$.choices[].message.content[]"),
        ("block_delta", "", "$.choices[].message.content[]"),
        ("block_end", "", "$.choices[].message.content[]"),
        ("finish", ".finish_reason", "$.choices[].finish_reason"),
        ("*", "", "$"),
    ],
    "sparktide": [
        ("text.delta", "", "$.message.content"),
        # a RemoteModelResponse has no finish reason: the document converter derives the Lux one
        # from the tool calls, and names them for it
        ("model.completed", ".finishReason", "$.message.tool_calls"),
        ("tool.delta", "", "$.message.tool_calls[]"),
        ("*", "", "$"),
    ],
    "llm-sdk": [("*", ".delta.part", "$.content[]"), ("*", ".delta", "$.content[]"), ("*", "", "$.content[]")],
}
"""Where a member of a source stream event lives in the assembled document, per format: the first
row whose kind (``*`` any) and member prefix match (paths without indexes)."""


def _event_kind(event: Any) -> str:
    tags = msgspec.to_builtins(event) if not isinstance(event, dict) else event
    if isinstance(tags, dict):
        kind = tags.get("type", tags.get("event"))
        if isinstance(kind, str):
            return kind
    return "?"


def document_member(source: str, events: Sequence[Any], field: str) -> str:
    """The member of the assembled document (its path without indexes) that a stream
    diagnostic's ``field`` names: ``$[3].delta.stop_reason`` of an Anthropic stream is
    ``$.stop_reason``. A ``target:`` path and a document path are kept, without indexes."""
    match = _EVENT.match(field)
    if match is None:
        return _INDEX.sub("[]", field)
    n = int(match.group(1))
    kind = _event_kind(events[n]) if n < len(events) else "?"
    rest = _INDEX.sub("[]", field[match.end():])
    for row_kind, member, document in _DOCUMENT_PREFIX[source]:
        if row_kind not in ("*", kind) or (member and rest != member and not rest.startswith(member + ".")):
            continue
        return document + rest[len(member):]
    return "$" + rest


def commutation_context(source: str) -> dict[str, Any]:
    """What the target needs and a ``source`` stream cannot carry: the chat ``created`` and the
    Responses ``created_at`` for every source, ``id`` and ``model`` for SparkTide and llm-sdk
    (whose streams have neither). A context value wins over the source's in a document
    conversion, so a source that has its own id and model gets none."""
    envelope = {"created": FULL_CONTEXT["created"], "created_at": FULL_CONTEXT["created_at"]}
    return {**CONTEXT, **envelope} if source in ("sparktide", "llm-sdk") else envelope


def format_limits(expected: Any, events: Sequence[Any], source: str, target: str) -> Any:
    """The converted document without what the target's *stream* cannot hold: :func:`normalized`
    (a SparkTide stream's own finish reason; no usage or cost in an llm-sdk stream), and a Lux
    stream has no ``created_at`` and no ``provider_payload``."""
    expected = normalized(expected, events, source, target)
    if target == "lux":
        expected = msgspec.structs.replace(expected, created_at=msgspec.UNSET, provider_payload=msgspec.UNSET)
    if target == "anthropic" and expected.usage is msgspec.UNSET:
        # a document without usage is Invalid (target:$.usage); message_delta cannot leave it out
        # either, and says 0 (Invalid too)
        from lucent.generated.anthropic import Usage

        expected = msgspec.structs.replace(expected, usage=Usage(input_tokens=0, output_tokens=0))
    return expected


def arguments_as_json(value: Any) -> Any:
    """``value`` with every ``arguments`` string that is JSON text replaced by the value it
    holds: an Anthropic or Gemini document holds a tool call's input as an object, so its JSON
    text is lucent's serialization, not the model's (a stream carries the model's)."""
    if isinstance(value, dict):
        return {k: _parsed(v) if k == "arguments" and isinstance(v, str) else arguments_as_json(v) for k, v in value.items()}
    if isinstance(value, list):
        return [arguments_as_json(v) for v in value]
    return value


def _parsed(text: str) -> Any:
    try:
        return ("json", json.loads(text))
    except ValueError:
        return text


def value_differences(streamed: Any, converted: Any, path: str = "$") -> list[str]:
    """The paths where two JSON values differ, each with both values (shortened)."""
    if isinstance(streamed, dict) and isinstance(converted, dict):
        return [d for k in sorted(set(streamed) | set(converted)) for d in value_differences(streamed.get(k, "<absent>"), converted.get(k, "<absent>"), f"{path}.{k}")]
    if isinstance(streamed, list) and isinstance(converted, list) and len(streamed) == len(converted):
        return [d for i, (a, b) in enumerate(zip(streamed, converted)) for d in value_differences(a, b, f"{path}[{i}]")]
    if streamed == converted:
        return []
    return [f"{path} stream {json.dumps(streamed, ensure_ascii=False)[:80]} / document {json.dumps(converted, ensure_ascii=False)[:80]}"]


_SEVERITY = {"Degraded": 1, "Unsupported": 2, "Invalid": 3}
_SEGMENT = re.compile(r'\.([^.\[]+)|\[(\d+)\]|\["((?:[^"\\]|\\.)*)"\]')
_MISSING = object()


def value_at(value: Any, path: str) -> Any:
    """The JSON value at ``path`` (``$.a[0].b``, ``$["a b"]``) in ``value``, else a sentinel."""
    for match in _SEGMENT.finditer(path, 1):
        name, index, quoted = match.groups()
        key: Any = int(index) if index is not None else (json.loads(f'"{quoted}"') if quoted is not None else name)
        if isinstance(key, int) and isinstance(value, list) and key < len(value):
            value = value[key]
        elif isinstance(key, str) and isinstance(value, dict) and key in value:
            value = value[key]
        else:
            return _MISSING
    return value


def statuses_by_member(diagnostics: Sequence[Any], member_of: Callable[[str], str], source_value: Callable[[str], Any] | None = None) -> dict[str, str]:
    """Member -> the worst status the diagnostics report for it (Invalid, Unsupported,
    Degraded: a conversion composed through Lux reports a member kept Degraded by one hop and
    dropped Unsupported by the next; what the member became is the worse). A diagnostic on a
    null source value is left out, as null members are left out of the values."""
    found: dict[str, str] = {}
    for d in diagnostics:
        if source_value is not None and source_value(d.field) is None:
            continue
        member = member_of(d.field)
        if _SEVERITY.get(d.status, 0) > _SEVERITY.get(found.get(member, ""), 0):
            found[member] = d.status
    return found


def stream_value(events: Sequence[Any], field: str) -> Any:
    """The value a stream diagnostic's ``field`` (``$[3].delta.stop_reason``) names in ``events``."""
    match = _EVENT.match(field)
    if match is None or int(match.group(1)) >= len(events):
        return _MISSING
    event = events[int(match.group(1))]
    return value_at(event if isinstance(event, dict) else msgspec.to_builtins(event), "$" + field[match.end():])


CONTENT_ROOTS = {
    "openai-responses": ("$.output",),
    "anthropic": ("$.content",),
    "openai-chat": ("$.choices",),
    "gemini": ("$.candidates",),
    "lux": ("$.choices",),
    "sparktide": ("$.message",),
    "llm-sdk": ("$.content",),
}
"""The members of each format's response document that hold its content (the rest is its
envelope, :mod:`lucent._stream_envelope`)."""


class _Diagnostic:
    """A diagnostic's field and status (what :func:`statuses_by_member` reads)."""

    def __init__(self, field: str, status: str) -> None:
        self.field, self.status = field, status


def both_paths(events: Sequence[Any], source: str, target: str) -> tuple[Any, Any]:
    """(assemble(convert_stream(s)), convert(assemble(s))) of one stream, as JSON values without
    nulls, each path given the context keys it reads (for tests that cut a recorded stream)."""
    context = commutation_context(source)
    streamed = streams.assemble(list(streams.convert_stream(events, source, target, context=read_by(context, source, target, "stream"))), target)
    result = lucent.convert(streams.assemble(events, source), source, target, kind="response", context=read_by(context, source, target, "response"))
    converted = format_limits(result.value, events, source, target)
    return without_nulls(msgspec.to_builtins(streamed)), without_nulls(msgspec.to_builtins(converted))


def compared(events: Sequence[Any], source: str, target: str, context: Mapping[str, Any] | None = None) -> tuple[Any, Any, dict[str, str], dict[str, str]]:
    """Both sides of :func:`commutation`: (streamed value, converted value, streamed statuses,
    converted statuses), each status map the worst status per source member
    (:func:`statuses_by_member`; :func:`document_member` names a stream's event member as the
    document member it becomes). A path that raises gives its error code as its value (and no
    diagnostics)."""
    context = commutation_context(source) if context is None else context
    try:
        conversion = streams.convert_stream(events, source, target, context=read_by(context, source, target, "stream"))
        out = list(conversion)
        streamed: Any = without_nulls(msgspec.to_builtins(streams.assemble(out, target)))
        streamed_diagnostics = statuses_by_member(conversion.diagnostics, lambda f: document_member(source, events, f), lambda f: stream_value(events, f))
    except LucentError as exc:
        streamed, streamed_diagnostics = ("raised", exc.code), {}
    try:
        document = streams.assemble(events, source)
        # the caller gives both paths the same values: those the stream conversion reads (a
        # document conversion through Lux may read more, e.g. created_at for the Lux hop)
        same = read_by(read_by(context, source, target, "stream"), source, target, "response")
        result = lucent.convert(document, source, target, kind="response", context=same)
        tree = msgspec.to_builtins(document)
        converted: Any = without_nulls(msgspec.to_builtins(format_limits(result.value, events, source, target)))
        found = [(d.field, d.status, d.detail) for d in result.diagnostics]
        if target == "lux":  # a Lux stream has no created_at and no provider_payload (format_limits)
            found = lux_stream_view(found, document, source, context, CONTENT_ROOTS[source])
        if target == "sparktide":  # a SparkTide stream states its finish reason (normalized)
            found = sparktide_stream_view(found, document, source, same)
        if target == "llm-sdk":  # an llm-sdk stream has no usage (normalized)
            found = llm_sdk_stream_view(found, document, source, context)
        converted_diagnostics = statuses_by_member([_Diagnostic(f, s) for f, s, _ in found], lambda f: _INDEX.sub("[]", f), lambda f: value_at(tree, f))
    except LucentError as exc:
        converted, converted_diagnostics = ("raised", exc.code), {}
    if source in ("anthropic", "gemini"):
        streamed, converted = arguments_as_json(streamed), arguments_as_json(converted)
    return streamed, converted, streamed_diagnostics, converted_diagnostics


def sparktide_stream_view(found: list[tuple[str, str, str]], document: Any, source: str, context: Mapping[str, Any]) -> list[tuple[str, str, str]]:
    """The document's diagnostics as a SparkTide *stream* has them
    (:func:`lucent.formats.sparktide.stream.stream_view`: a stream states the finish reason a
    RemoteModelResponse lacks), the Lux finish reason and tool calls read from the document."""
    from lucent.formats.sparktide.stream import stream_view

    lux = document if source == "lux" else lucent.convert(document, source, "lux", kind="response", context=read_by(context, source, "lux", "response")).value
    choice = lux.choices[0] if lux.choices else None
    if choice is None:
        return found
    return stream_view(found, choice.finish_reason, any(isinstance(block, LucentContentToolUse) for block in choice.message.content))


def commutation(events: Sequence[Any], source: str, target: str, context: Mapping[str, Any] | None = None) -> tuple[bool, bool, str]:
    """Compare ``assemble(convert_stream(s, source, target))`` with
    ``convert(assemble(s, source), source, target)``: (values equal, diagnostics equal, what
    differs). The values are compared as JSON with null members left out; the diagnostics as
    the worst status reported per member of the source (:func:`compared`)."""
    streamed, converted, streamed_diagnostics, converted_diagnostics = compared(events, source, target, context)
    why = []
    if streamed != converted:
        why.append("value: " + ", ".join(value_differences(streamed, converted)[:8]))
    if streamed_diagnostics != converted_diagnostics:
        members = sorted(set(streamed_diagnostics) | set(converted_diagnostics))
        why.append("diagnostics: " + ", ".join(f"{m} {streamed_diagnostics.get(m, '-')}/{converted_diagnostics.get(m, '-')}" for m in members if streamed_diagnostics.get(m) != converted_diagnostics.get(m)))
    return streamed == converted, streamed_diagnostics == converted_diagnostics, "; ".join(why)


def commutation_table(recorded: Sequence[tuple[str, str, Any]], *, verbose: bool = False) -> dict[tuple[str, str], list[int]]:
    """(source, target) -> [streams, value differences, diagnostic differences] over the
    streams that assemble (a stream ending with the model's error has no document)."""
    table: dict[tuple[str, str], list[int]] = {}
    for name, source, events in recorded:
        try:
            streams.assemble(list(events), source)
        except StreamError:
            continue
        for target in COMMUTATION_TARGETS:
            if target == source:
                continue
            same_value, same_diagnostics, why = commutation(events, source, target)
            row = table.setdefault((source, target), [0, 0, 0])
            row[0] += 1
            row[1] += not same_value
            row[2] += not same_diagnostics
            if verbose and why:
                print(f"commutation  {name} {source} -> {target}: {why}")
    return table


def print_commutation(table: dict[tuple[str, str], list[int]], label: str) -> None:
    print(f"commutation ({label}): assemble(convert_stream(s)) against convert(assemble(s))")
    print(f"  {'source':>16} -> {'target':<16} {'streams':>7} {'values':>7} {'diagnostics':>11}")
    total = [0, 0, 0]
    for (source, target), row in sorted(table.items()):
        print(f"  {source:>16} -> {target:<16} {row[0]:>7} {row[1]:>7} {row[2]:>11}")
        total = [a + b for a, b in zip(total, row)]
    print(f"  {'total':>36} {total[0]:>7} {total[1]:>7} {total[2]:>11}")


def generated_streams(source: str, count: int, *, seed: int | None = None) -> list[tuple[str, str, Any]]:
    """``count`` generated streams of ``source`` (:data:`GENERATORS`), as (name, format, events)."""
    found: list[tuple[str, str, Any]] = []

    @settings(max_examples=count, deadline=None, database=None, suppress_health_check=list(HealthCheck))
    @given(GENERATORS[source]())
    def one(stream: list[dict[str, Any]]) -> None:
        found.append((f"generated {source} #{len(found)}", source, stream))

    if seed is not None:
        one = hypothesis.seed(seed)(one)
    one()
    return found


def run_pair(source: str, target: str, count: int, *, seed: int | None = None) -> tuple[int, int]:
    """Check ``count`` generated streams of the pair; returns (streams, target events)."""
    tally = [0, 0]

    @settings(max_examples=count, deadline=None, database=None, suppress_health_check=list(HealthCheck))
    @given(GENERATORS[source]())
    def one(stream: list[dict[str, Any]]) -> None:
        tally[0] += 1
        tally[1] += check(stream, source, target)

    if seed is not None:
        one = hypothesis.seed(seed)(one)
    one()
    return tally[0], tally[1]


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tests.stream_conformance", description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--count", type=int, default=500, help="generated streams per pair (default 500)")
    parser.add_argument("--seed", type=int, default=None)
    parser.add_argument("--corpus-only", action="store_true", help="only the commutation table of the recorded streams (quick)")
    parser.add_argument("--show", action="store_true", help="print what differs for each stream of the commutation table")
    parser.add_argument("--fail-on-difference", action="store_true", help="fail when the commutation table has a difference")
    args = parser.parse_args(argv)
    failed = False
    streams_in_corpus = corpus()
    start = time.perf_counter()
    table = commutation_table(streams_in_corpus + vendor_corpus(), verbose=args.show)
    print_commutation(table, f"recorded streams, {time.perf_counter() - start:.1f}s")
    different = any(row[1] or row[2] for row in table.values())
    if args.corpus_only:
        return 1 if args.fail_on_difference and different else 0
    start = time.perf_counter()
    generated = [s for source in FORMATS for s in generated_streams(source, args.count, seed=args.seed)]
    generated_table = commutation_table(generated, verbose=args.show)
    print_commutation(generated_table, f"{args.count} generated streams per source, {time.perf_counter() - start:.1f}s")
    different = different or any(row[1] or row[2] for row in generated_table.values())
    failed = bool(args.fail_on_difference and different)
    for source, target in PAIRS:
        start = time.perf_counter()
        mine = [(name, events) for name, fmt, events in streams_in_corpus if fmt == source]
        for name, events in mine:
            try:
                check(events, source, target)
            except Exception as exc:  # noqa: BLE001 - printed and counted as a failure
                failed = True
                print(f"{source:>9} -> {target:<9}  FAILED on corpus stream {name}: {type(exc).__name__}: {exc}")
        try:
            checked, events = run_pair(source, target, args.count, seed=args.seed)
        except Exception as exc:  # a counterexample (AssertionError) or an error it raised
            failed = True
            print(f"{source:>9} -> {target:<9}  FAILED: {type(exc).__name__}: {exc}")
            continue
        print(f"{source:>9} -> {target:<9}  {len(mine)} corpus + {checked} generated streams, {events} target events, {time.perf_counter() - start:.1f}s")
    # Read-back: every target's output, assembled by lucent.
    start = time.perf_counter()
    recorded: dict[str, int] = {}
    for name, fmt, events in streams_in_corpus + vendor_corpus():
        for target in TARGETS:
            if target == fmt:
                continue
            try:
                answer = check_read_back(events, fmt, target)
            except Exception as exc:  # noqa: BLE001 - printed and counted as a failure
                failed = True
                print(f"read-back  {fmt:>16} -> {target:<16}  FAILED on corpus stream {name}: {type(exc).__name__}: {exc}")
                continue
            recorded[answer] = recorded.get(answer, 0) + 1
    print(f"read-back  corpus streams to every other format: {_tally(recorded)}, {time.perf_counter() - start:.1f}s")
    for source, generator in [*((f, None) for f in FORMATS), ("lux", lux_edge_streams)]:
        start = time.perf_counter()
        label = "lux (edge)" if generator is not None else source
        try:
            tally = run_read_back(source, args.count, seed=args.seed, generator=generator)
        except Exception as exc:  # a counterexample (AssertionError) or an error it raised
            failed = True
            print(f"read-back  {label:>10} -> every format  FAILED: {type(exc).__name__}: {exc}")
            continue
        print(f"read-back  {label:>10} -> every format  {args.count} generated streams: {_tally(tally)}, {time.perf_counter() - start:.1f}s")
    return 1 if failed else 0


def _tally(tally: dict[str, int]) -> str:
    return ", ".join(f"{n} {answer}" for answer, n in sorted(tally.items())) or "none"


if __name__ == "__main__":
    sys.exit(main())
