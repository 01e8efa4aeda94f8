"""OpenAI Responses stream events -> ``Response``.

Source: schemas/vendor/openai-responses.json ``#/$defs/ResponseStreamEvent`` and
``#/$defs/Response`` (OpenAI OpenAPI 3.1, "Streaming events"). The flow::

    response.created response.in_progress?
      ( response.output_item.added
          ( response.content_part.added  (output_text.delta | refusal.delta | annotation.added)*
            (output_text.done | refusal.done)  response.content_part.done
          | function_call_arguments.delta* function_call_arguments.done
          | reasoning_summary_part.added reasoning_summary_text.delta* ... .done
          | reasoning_text.delta* reasoning_text.done | custom_tool_call_input.delta* ... | ... )*
        response.output_item.done )*
    (response.completed | response.incomplete | response.failed | error)

``sequence_number`` counts the events from 0 (``sequence_out_of_order`` otherwise: an event
lost, repeated or reordered on the way). The
terminal event carries the whole ``Response``: it is the assembled result, after checking that
the deltas agree with it (``delta_mismatch``, a typed error naming the terminal event's field):
each ``*.done`` event's full text must be the concatenation of its deltas, each
``output_item.done`` item must hold the texts its deltas built, and the terminal response's
``output`` must hold the ``output_item.done`` items' texts (text, refusal, summary, arguments,
input, code; other members may differ: the API encrypts ``encrypted_content`` again for the
final response). ``response.failed`` and ``error`` end the
stream with ``StreamError(code="model_error")`` (``.error``: the event); ``response.incomplete``
is a result (``status: "incomplete"``, ``incomplete_details.reason``).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

import msgspec

from lucent._stream_base import Assembler
from lucent.generated.openai_responses import (
    Response,
    ResponseCompletedEvent,
    ResponseCreatedEvent,
    ResponseErrorEvent,
    ResponseFailedEvent,
    ResponseIncompleteEvent,
    ResponseInProgressEvent,
    ResponseQueuedEvent,
    ResponseUsage,
)

TERMINAL = (ResponseCompletedEvent, ResponseIncompleteEvent, ResponseFailedEvent, ResponseErrorEvent)
ENVELOPE = (ResponseCreatedEvent, ResponseInProgressEvent, ResponseQueuedEvent)

# event type -> (what the delta builds, the member of the delta, the member of the .done event)
DELTAS: dict[str, tuple[str, str]] = {
    "response.output_text.delta": ("content", "delta"),
    "response.refusal.delta": ("content", "delta"),
    "response.reasoning_text.delta": ("content", "delta"),
    "response.reasoning_summary_text.delta": ("summary", "delta"),
    "response.function_call_arguments.delta": ("arguments", "delta"),
    "response.custom_tool_call_input.delta": ("input", "delta"),
    "response.code_interpreter_call_code.delta": ("code", "delta"),
    "response.mcp_call_arguments.delta": ("arguments", "delta"),
}
DONES: dict[str, tuple[str, str]] = {
    "response.output_text.done": ("content", "text"),
    "response.refusal.done": ("content", "refusal"),
    "response.reasoning_text.done": ("content", "text"),
    "response.reasoning_summary_text.done": ("summary", "text"),
    "response.function_call_arguments.done": ("arguments", "arguments"),
    "response.custom_tool_call_input.done": ("input", "input"),
    "response.code_interpreter_call_code.done": ("code", "code"),
    "response.mcp_call_arguments.done": ("arguments", "arguments"),
}


def item_texts(item: dict[str, Any]) -> Iterator[tuple[tuple[str, int], str, str]]:
    """The texts of an output item that deltas build: ((what, index), relative path, text)."""
    for i, part in enumerate(item.get("content") or []):
        if isinstance(part, dict):
            for name in ("text", "refusal"):
                if isinstance(part.get(name), str):
                    yield ("content", i), f".content[{i}].{name}", part[name]
    for i, part in enumerate(item.get("summary") or []):
        if isinstance(part, dict) and isinstance(part.get("text"), str):
            yield ("summary", i), f".summary[{i}].text", part["text"]
    for name in ("arguments", "input", "code"):
        if isinstance(item.get(name), str):
            yield (name, 0), f".{name}", item[name]


@dataclass
class ResponsesItem:
    """An output item: the pieces its deltas sent, by (what, index)."""

    first: int
    pieces: dict[tuple[str, int], list[str]] = field(default_factory=dict)
    done: dict[str, Any] | None = None
    done_at: int = -1


class OpenAIResponsesAssembler(Assembler):
    """ResponseStreamEvent events -> Response (see :mod:`lucent.streams`)."""

    format = "openai-responses"

    def __init__(self, *, tools: Iterable[str] | None = None) -> None:
        super().__init__(tools=tools)
        self._items: dict[int, ResponsesItem] = {}
        self._terminal: tuple[int, Any] | None = None
        self._usage: ResponseUsage | None = None
        self._sequence: int | None = None
        self._started = False

    @property
    def usage(self) -> ResponseUsage | None:
        return self._usage

    def _push(self, event: object, index: int) -> None:
        at = f"$[{index}]"
        if self._terminal is not None:
            code = "duplicate_terminal" if isinstance(event, TERMINAL) else "data_after_terminal"
            raise self._fail(code, f"event {index} comes after the terminal event {self._terminal[0]}", at)
        tag = getattr(type(event), "__struct_config__", None)
        kind = tag.tag if tag is not None else None
        if not isinstance(kind, str) or not hasattr(event, "sequence_number"):
            raise self._unknown(event, index)
        number = int(event.sequence_number)
        expected = 0 if self._sequence is None else self._sequence + 1
        if number != expected:
            raise self._fail("sequence_out_of_order", f"event {index} has sequence_number {number}; {expected} comes next", f"{at}.sequence_number")
        self._sequence = number
        if isinstance(event, ENVELOPE):
            self._started = True
            self._response_usage(event.response)
            return
        if not self._started:
            raise self._fail("missing_response_created", f"event {index} comes before response.created", at)
        if isinstance(event, TERMINAL):
            self._terminal = (index, event)
            if not isinstance(event, ResponseErrorEvent):
                self._response_usage(event.response)
            return
        tree = msgspec.to_builtins(event)
        if kind == "response.output_item.added":
            n = int(tree["output_index"])
            if n in self._items:
                raise self._fail("duplicate_item_index", f"event {index} adds output item {n} a second time", f"{at}.output_index")
            self._items[n] = ResponsesItem(first=index)
            item = tree["item"]
            if item.get("type") == "function_call":
                self._check_declared(item.get("name", ""), f"{at}.item.name", f"output item {n}")
            return
        n = tree.get("output_index")
        if n is None:
            return  # no output item to build (an event this assembler has nothing to take from)
        item = self._items.get(int(n))
        if item is None or item.done is not None:
            raise self._fail("item_not_open", f"event {index} names output item {n}, which is not open", f"{at}.output_index")
        slot = tree.get("content_index", tree.get("summary_index", 0))
        if kind in DELTAS:
            what, member = DELTAS[kind]
            item.pieces.setdefault((what, int(slot)), []).append(tree[member])
        elif kind in DONES:
            what, member = DONES[kind]
            built = "".join(item.pieces.get((what, int(slot)), []))
            if (what, int(slot)) in item.pieces and tree[member] != built:
                raise self._fail("delta_mismatch", f"{kind} holds a text that its deltas do not build", f"{at}.{member}")
        elif kind == "response.output_item.done":
            item.done = tree["item"]
            item.done_at = index
            for key, where, text in item_texts(item.done):
                if key in item.pieces and "".join(item.pieces[key]) != text:
                    raise self._fail("delta_mismatch", f"output item {n} holds a text that its deltas do not build", f"{at}.item{where}")

    def _response_usage(self, response: Response) -> None:
        if response.usage is not msgspec.UNSET and response.usage is not None:
            self._usage = response.usage

    def _close(self, count: int) -> Response:
        if self._terminal is None:
            raise self._fail("missing_terminal", f"the stream ended after {count} events without response.completed, .incomplete, .failed or error", f"$[{count}]")
        index, event = self._terminal
        at = f"$[{index}]"
        if isinstance(event, (ResponseErrorEvent, ResponseFailedEvent)):
            raise self._fail("model_error", f"the stream ended with {type(event).__struct_config__.tag}", at, error=event)
        response: Response = event.response
        output = msgspec.to_builtins(response.output)
        still = [n for n, item in self._items.items() if item.done is None]
        if still:
            raise self._fail("item_not_closed", f"the response ends while output item {min(still)} is open (no output_item.done)", at)
        if len(output) != len(self._items):
            raise self._fail("delta_mismatch", f"the final response has {len(output)} output items; the stream built {len(self._items)}", f"{at}.response.output")
        for n, item in sorted(self._items.items()):
            assert item.done is not None
            built = {key: (where, text) for key, where, text in item_texts(item.done)}
            final = {key: (where, text) for key, where, text in item_texts(output[n])}
            for key in built.keys() | final.keys():
                if built.get(key, (None, None))[1] != final.get(key, (None, None))[1]:
                    where = (final.get(key) or built[key])[0]
                    raise self._fail("delta_mismatch", f"output item {n} of the final response holds a text that differs from its output_item.done (event {item.done_at})", f"{at}.response.output[{n}]{where}")
        return response
