"""The work per event of every assembler and stream conversion does not grow with the stream, and
the work per item of a document conversion does not grow with the document (issue 14, class 6:
Chat logprobs were rebuilt per chunk, ``(old or []) + list(new)``).

No clock: tests/stream_work.py counts the Python lines run and the bytes allocated per event, in
a stream and in one 16 times longer of the same shape (figures: ``bench/stream_linearity.py``).
"""

from __future__ import annotations

import json
import sys
import tracemalloc
from collections.abc import Iterator
from typing import Any

import pytest

import lucent
from lucent import streams
from tests import stream_work

CASES = [(fmt, name) for fmt in streams.FORMATS for name in stream_work.shapes(fmt)]


@pytest.mark.parametrize(("fmt", "shape"), CASES, ids=[f"{f}-{s}" for f, s in CASES])
def test_the_work_per_event_does_not_grow_with_the_stream(fmt: str, shape: str) -> None:
    make = stream_work.shapes(fmt)[shape]
    small, large = make(stream_work.SMALL), make(stream_work.SMALL * stream_work.FACTOR)
    grew = {}
    for name, run in stream_work.runs(fmt).items():
        a, b = stream_work.work_per_event(small, run), stream_work.work_per_event(large, run)
        assert a.lines > 0 and a.allocated > 0, name  # the window was measured
        if stream_work.grows(a, b):
            grew[name] = (a, b)
    assert grew == {}


def test_the_shapes_cover_every_format_and_the_chat_logprobs() -> None:
    assert {fmt for fmt, _ in CASES} == set(streams.FORMATS)
    assert ("openai-chat", "logprobs") in CASES and ("openai-chat", "refusal logprobs") in CASES
    events = stream_work.chat_logprobs(stream_work.SMALL)
    tokens = sum(len(c["logprobs"]["content"]) for e in events for c in e["choices"] if c.get("logprobs"))
    assert tokens == stream_work.SMALL
    response = streams.assemble(events, "openai-chat")
    assert len(response.choices[0].logprobs.content) == stream_work.SMALL


def _copying(source: Iterator[Any]) -> list[Any]:
    held: list[Any] = []
    for event in source:
        held = held + [event]  # the fault class
    return held


def _appending(source: Iterator[Any]) -> list[Any]:
    held: list[Any] = []
    for event in source:
        held.append(event)
    return held


def test_the_meter_tells_a_copying_fold_from_an_appending_one() -> None:
    make = stream_work.shapes("lux")["text"]
    small, large = make(stream_work.SMALL), make(stream_work.SMALL * stream_work.FACTOR)
    assert stream_work.grows(stream_work.work_per_event(small, _copying), stream_work.work_per_event(large, _copying))
    assert not stream_work.grows(stream_work.work_per_event(small, _appending), stream_work.work_per_event(large, _appending))


def _per_item(count: int) -> float:
    """Bytes allocated per tool_call item converting a Lux request of ``count`` of them (one
    assistant turn, then the calls) to Chat; summed line by line as stream_work does."""
    doc = {
        "schema_version": "v1", "model": "m", "options": {"stream": False},
        "conversation": [{"type": "message", "message": {"role": "assistant", "content": [{"type": "text", "text": "calls"}]}}]
        + [{"type": "tool_call", "tool_call": {"id": f"c{k}", "name": "f", "arguments": "{}"}} for k in range(count)],
    }
    body = json.dumps(doc).encode()
    allocated = 0
    live = 0

    def trace(frame: Any, event: str, arg: Any) -> Any:
        nonlocal allocated, live
        current, peak = tracemalloc.get_traced_memory()
        allocated += max(peak - live, 0)
        tracemalloc.reset_peak()
        live = tracemalloc.get_traced_memory()[0]
        return trace

    tracemalloc.start()
    live = tracemalloc.get_traced_memory()[0]
    sys.settrace(trace)
    try:
        result = lucent.convert(body, "lux", "openai-chat", "request")
    finally:
        sys.settrace(None)
        tracemalloc.stop()
    assert len(result.value.messages[0].tool_calls) == count
    return allocated / count


def test_a_run_of_tool_call_items_converts_to_chat_in_work_linear_in_the_calls() -> None:
    """The Chat request converter appended each tool_call item by copying the message's list
    (8 bytes per call before it: about 5,600 bytes more per item at 1,600 calls than at 200)."""
    _per_item(10)  # first use builds the converters' state: not per item
    small, large = _per_item(200), _per_item(1600)
    accumulated = (1600 - 200) / 2  # more calls before an item, on average
    assert large - small < max(2 * accumulated, 0.04 * small), (small, large)
