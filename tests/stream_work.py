"""The work an assembler or a stream conversion does per event, measured without a clock.

Accumulating by copy (``state = state + [new]``, ``text = text + piece`` on an attribute, a
``"".join`` of everything so far on every event) makes the work per event grow with the stream:
the issue-14 fault, Chat logprobs rebuilt per chunk (160,000 chunks: 32.5 s against 0.86 s
without). :func:`work_per_event` counts, over a window of events a quarter into a stream, the
Python lines run (``sys.settrace``) and the bytes allocated beyond what was live (``tracemalloc``
peaks, reset per event); :func:`growth` compares a stream with 16 times as many events of the
same shape. Linear code does the same work per event in both: the lines are equal and the bytes
differ by the noise of amortized list growth (about 100 bytes), while a copy of the state
allocates at least one byte per accumulated piece (8 per list item). Deterministic: the same
interpreter counts the same lines and allocations on every run, whatever the machine's load.

:data:`SHAPES` builds the streams, per source format: one long block of each kind (text,
thinking, refusal, tool arguments), many short blocks, many items (choices), and each format's own
accumulators (Chat logprobs and tool calls, Responses items and annotations, Anthropic pings and
citations, Gemini parts, llm-sdk audio). A shape a format cannot carry is left out.
"""

from __future__ import annotations

import sys
import tracemalloc
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from types import FrameType
from typing import Any

import msgspec

from lucent import streams
from lucent._context import read_by
from lucent.errors import LucentError
from tests import responses_streams

CONTEXT = {"id": "r", "model": "m", "created": 1}
WINDOW = 100
SMALL = 200
FACTOR = 16


@dataclass(frozen=True)
class Work:
    lines: float  # Python lines per event
    allocated: float  # bytes allocated per event (the rises of traced memory, line by line)
    kinds: dict[str, tuple[int, float, float]] = field(default_factory=dict, compare=False)
    # per kind of event in the window (its type and member names): (events, lines, bytes) per event


def kind(event: Any) -> str:
    """An event's kind: its ``type``/``event`` tag and its members' names and JSON types, what
    decides which code it runs."""
    value = msgspec.to_builtins(event)
    if not isinstance(value, dict):
        return type(value).__name__
    return repr(sorted((k, v if k in ("type", "event") else type(v).__name__) for k, v in value.items()))


def work_per_event(events: list[Any], run: Callable[[Iterator[Any]], object]) -> Work:
    """The work ``run`` does per event, over up to ``WINDOW`` events from the first quarter's
    end (inside the run of deltas of every shape, away from the stream's end).

    The bytes are summed line by line: at each line the trace function reads how far the traced
    memory rose above where it stood at the line before (its peak, which tracemalloc resets),
    so a copy that replaces the state (``a = a + [b]``: the new list is built while the old one
    is live) counts its whole size, even where the event's other temporaries are larger.
    """
    start = len(events) // 4
    end = start + min(WINDOW, len(events) // 4)
    lines = 0
    allocated = 0
    live = 0
    current = ""  # the kind of the event being worked on
    by_kind: dict[str, list[float]] = {}

    def trace(frame: FrameType, event: str, arg: Any) -> Any:
        nonlocal lines, allocated, live
        counts = by_kind.setdefault(current, [0, 0, 0])
        if event == "line":
            lines += 1
            counts[1] += 1
        _, peak = tracemalloc.get_traced_memory()
        allocated += max(peak - live, 0)
        counts[2] += max(peak - live, 0)
        tracemalloc.reset_peak()
        live = tracemalloc.get_traced_memory()[0]
        return trace

    reached = False

    def source() -> Iterator[Any]:
        nonlocal live, reached, current
        for i, event in enumerate(events):
            if start <= i < end:
                this = kind(event)
                by_kind.setdefault(this, [0, 0, 0])[0] += 1
                current = this
            if i == start:
                tracemalloc.start()
                live = tracemalloc.get_traced_memory()[0]
                sys.settrace(trace)
            elif i == end:
                sys.settrace(None)
                tracemalloc.stop()
                reached = True
                return  # the rest of the stream would cost time and tell nothing
            yield event

    try:
        run(source())
    except LucentError:
        pass  # the stream was cut after the window: missing_terminal and the like
    finally:
        sys.settrace(None)
        if tracemalloc.is_tracing():
            tracemalloc.stop()
    assert reached, "the run stopped before the end of the window: the stream is not valid"
    count = max(end - start, 1)
    kinds = {k: (int(n), line / n, alloc / n) for k, (n, line, alloc) in by_kind.items() if n}
    return Work(lines / count, allocated / count, kinds)


def growth(shape: Callable[[int], list[Any]], run: Callable[[Iterator[Any]], object]) -> tuple[Work, Work]:
    """The work per event in a stream of ``shape(SMALL)`` and of ``shape(SMALL * FACTOR)``."""
    return work_per_event(shape(SMALL), run), work_per_event(shape(SMALL * FACTOR), run)


def grows(small: Work, large: Work) -> bool:
    """Whether the work per event grows with the stream: more lines, or more bytes than the
    noise (4 %) by at least two per piece accumulated before the window (a copy of a list of
    the pieces costs eight each).

    Where the two windows hold other mixes of events (a stream of text blocks and tool calls
    a quarter into each length), each kind of event both windows hold at least three times is
    compared on its own: the mix would otherwise read as growth or hide it."""
    accumulated = SMALL * (FACTOR - 1) / 4

    def more(a_lines: float, a_bytes: float, b_lines: float, b_bytes: float) -> bool:
        return b_lines > a_lines * 1.02 + 1 or b_bytes - a_bytes > max(2 * accumulated, 0.04 * a_bytes)

    mix_a = {k: n / sum(v[0] for v in small.kinds.values()) for k, (n, _, _) in small.kinds.items()}
    mix_b = {k: n / sum(v[0] for v in large.kinds.values()) for k, (n, _, _) in large.kinds.items()}
    same_mix = mix_a.keys() == mix_b.keys() and all(abs(mix_a[k] - mix_b[k]) < 0.05 for k in mix_a)
    if same_mix or not small.kinds or not large.kinds:
        return more(small.lines, small.allocated, large.lines, large.allocated)
    shared = [k for k in small.kinds if k in large.kinds and small.kinds[k][0] >= 3 and large.kinds[k][0] >= 3]
    assert shared, "the two windows share no kind of event: the shape cannot be compared"
    return any(more(*small.kinds[k][1:], *large.kinds[k][1:]) for k in shared)


# ------------------------------------------------------------------------------ the shapes


def _message(index: int = 0) -> dict[str, Any]:
    return {"event": "item_start", "index": index, "item": {"type": "message", "message": {"role": "assistant", "content": []}}}


_END = [{"event": "finish", "finish_reason": "stop"}, {"event": "usage", "usage": {"prompt_tokens": 1, "completion_tokens": 2, "total_tokens": 3}}, {"event": "done"}]


def lux_block(kind: str, n: int) -> list[dict[str, Any]]:
    """One block of ``kind`` (text, thinking, refusal, tool) with ``n`` deltas."""
    events: list[dict[str, Any]] = [{"event": "conversation_start", "meta": {"id": "r", "model": "m"}}, _message()]
    if kind == "tool":
        events.append({"event": "block_start", "index": 0, "block_type": {"type": "tool_call", "id": "c1", "name": "f"}})
        pieces = ['{"q":"'] + ["a"] * n + ['"}']
        events += [{"event": "block_delta", "index": 0, "delta": {"type": "tool_arguments", "arguments": p}} for p in pieces]
    else:
        events.append({"event": "block_start", "index": 0, "block_type": kind})
        events += [{"event": "block_delta", "index": 0, "delta": {"type": kind, "text": "w"}} for _ in range(n)]
    return events + [{"event": "block_end", "index": 0}, {"event": "item_end", "index": 0}] + _END


def lux_blocks(n: int) -> list[dict[str, Any]]:
    """``n`` short blocks, text and tool calls in turn, each of one delta."""
    events: list[dict[str, Any]] = [{"event": "conversation_start", "meta": {"id": "r", "model": "m"}}, _message()]
    for b in range(n // 3):
        if b % 2:
            events.append({"event": "block_start", "index": b, "block_type": {"type": "tool_call", "id": f"c{b}", "name": "f"}})
            events.append({"event": "block_delta", "index": b, "delta": {"type": "tool_arguments", "arguments": "{}"}})
        else:
            events.append({"event": "block_start", "index": b, "block_type": "text"})
            events.append({"event": "block_delta", "index": b, "delta": {"type": "text", "text": "w"}})
        events.append({"event": "block_end", "index": b})
    return events + [{"event": "item_end", "index": 0}] + _END


def lux_items(n: int) -> list[dict[str, Any]]:
    """``n // 5`` items (choices), each of one text block."""
    events: list[dict[str, Any]] = [{"event": "conversation_start", "meta": {"id": "r", "model": "m"}}]
    for i in range(n // 5):
        events += [_message(i), {"event": "block_start", "index": 0, "block_type": "text"}, {"event": "block_delta", "index": 0, "delta": {"type": "text", "text": "w"}}, {"event": "block_end", "index": 0}, {"event": "item_end", "index": i}]
    return events + _END


def converted(fmt: str, lux: list[dict[str, Any]]) -> list[Any]:
    """A Lux stream in ``fmt``, as lucent writes it."""
    if fmt == "lux":
        return lux
    return [msgspec.to_builtins(e) for e in streams.convert_stream(lux, "lux", fmt, context=read_by(CONTEXT, "lux", fmt, "stream"))]


def chat_logprobs(n: int, member: str = "content") -> list[Any]:
    """A Chat text (or refusal) stream whose every chunk carries its token's logprobs."""
    events = converted("openai-chat", lux_block("text" if member == "content" else "refusal", n))
    for chunk in events:
        for choice in chunk["choices"]:
            if choice["delta"].get(member):
                token = {"token": "w", "logprob": -0.1, "bytes": [119], "top_logprobs": []}
                choice["logprobs"] = {"content": [token] if member == "content" else None, "refusal": [token] if member == "refusal" else None}
    return events


def chat_tool_calls(n: int) -> list[Any]:
    """One Chat choice with ``n // 2`` tool calls (one chunk starts each, one adds arguments)."""
    events = converted("openai-chat", lux_block("text", 1))
    head = {k: v for k, v in events[0].items() if k != "choices"}
    chunks = [events[0]]  # the role
    for k in range(n // 2):
        call = {"index": k, "id": f"call_{k}", "type": "function", "function": {"name": "f", "arguments": ""}}
        chunks.append(dict(head, choices=[{"index": 0, "delta": {"tool_calls": [call]}, "finish_reason": None}]))
        chunks.append(dict(head, choices=[{"index": 0, "delta": {"tool_calls": [{"index": k, "function": {"arguments": "{}"}}]}, "finish_reason": None}]))
    chunks.append(dict(head, choices=[{"index": 0, "delta": {}, "finish_reason": "tool_calls"}]))
    return chunks


def responses_items(n: int) -> list[Any]:
    """A Responses stream of ``n // 5`` function-call items."""
    events = responses_streams.opening()
    done = []
    for k in range(n // 5):
        mine = responses_streams.item_events("function_call", k)
        events += mine
        done.append(mine[-1]["item"])
    return responses_streams.numbered(events + [responses_streams.completed(done)])


def responses_annotations(n: int) -> list[Any]:
    """One output_text part receiving ``n`` annotations, then its text."""
    message = responses_streams.item_events("message", 0)
    add = next(e for e in message if e["type"] == "response.output_text.annotation.added")
    i = message.index(add)
    annotations = [dict(add, annotation_index=k) for k in range(n)]
    part_done = next(e for e in message if e["type"] == "response.content_part.done")
    part_done["part"]["annotations"] = [add["annotation"]] * n
    message[-1]["item"]["content"][0]["annotations"] = [add["annotation"]] * n
    events = responses_streams.opening() + message[:i] + annotations + message[i + 1 :]
    return responses_streams.numbered(events + [responses_streams.completed([message[-1]["item"]])])


def responses_logprobs(n: int) -> list[Any]:
    """A Responses text stream whose every delta carries logprobs."""
    events = converted("openai-responses", lux_block("text", n))
    for event in events:
        if event["type"] == "response.output_text.delta":
            event["logprobs"] = [{"token": "w", "logprob": -0.1, "bytes": [119], "top_logprobs": []}]
    return events


def anthropic_pings(n: int) -> list[Any]:
    """An Anthropic text stream with a ping after every delta."""
    events = converted("anthropic", lux_block("text", n // 2))
    out: list[Any] = []
    for event in events:
        out.append(event)
        if event["type"] == "content_block_delta":
            out.append({"type": "ping"})
    return out


def anthropic_citations(n: int) -> list[Any]:
    """An Anthropic text block receiving ``n`` citations_delta events."""
    events = converted("anthropic", lux_block("text", 1))
    i = next(k for k, e in enumerate(events) if e["type"] == "content_block_delta")
    citation = {"type": "char_location", "cited_text": "w", "document_index": 0, "document_title": None, "start_char_index": 0, "end_char_index": 1, "file_id": None}
    deltas = [{"type": "content_block_delta", "index": 0, "delta": {"type": "citations_delta", "citation": citation}} for _ in range(n)]
    return events[: i + 1] + deltas + events[i + 1 :]


def llm_sdk_audio(n: int) -> list[Any]:
    """An llm-sdk audio part: ``n`` base64 chunks and transcript pieces."""
    first = {"delta": {"index": 0, "part": {"type": "audio", "audioData": "AAAA", "encoding": "linear16", "sampleRate": 16000, "transcript": "w"}}}
    return [first] + [{"delta": {"index": 0, "part": {"type": "audio", "audioData": "AAAA", "transcript": "w"}}} for _ in range(n)]


def _lux_shapes(fmt: str) -> dict[str, Callable[[int], list[Any]]]:
    shapes: dict[str, Callable[[int], list[Any]]] = {}
    for kind in ("text", "thinking", "refusal", "tool"):
        shapes[kind] = lambda n, kind=kind: converted(fmt, lux_block(kind, n))
    shapes["blocks"] = lambda n: converted(fmt, lux_blocks(n))
    shapes["items"] = lambda n: converted(fmt, lux_items(n))
    return shapes


NATIVE: dict[str, dict[str, Callable[[int], list[Any]]]] = {
    "openai-chat": {"logprobs": chat_logprobs, "refusal logprobs": lambda n: chat_logprobs(n, "refusal"), "tool calls": chat_tool_calls},
    "openai-responses": {"items": responses_items, "annotations": responses_annotations, "logprobs": responses_logprobs},
    "anthropic": {"pings": anthropic_pings, "citations": anthropic_citations},
    "llm-sdk": {"audio": llm_sdk_audio},
}


def shapes(fmt: str) -> dict[str, Callable[[int], list[Any]]]:
    """The stream shapes of a source format whose streams grow (more than a few events at
    ``SMALL``: a shape the format drops, such as thinking in SparkTide, is left out)."""
    found = {**_lux_shapes(fmt), **NATIVE.get(fmt, {})}
    return {name: make for name, make in found.items() if len(make(SMALL)) > SMALL // 4}


def runs(fmt: str) -> dict[str, Callable[[Iterator[Any]], object]]:
    """``assemble`` and ``convert_stream`` to every other format, each consuming a source."""
    found: dict[str, Callable[[Iterator[Any]], object]] = {"assemble": lambda source: streams.assemble(source, fmt)}
    for target in streams.FORMATS:
        if target != fmt:
            found[f"-> {target}"] = lambda source, target=target, context=read_by(CONTEXT, fmt, target, "stream"): sum(1 for _ in streams.convert_stream(source, fmt, target, context=context))
    return found
