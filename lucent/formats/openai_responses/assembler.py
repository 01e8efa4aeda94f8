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
lost, repeated or reordered on the way). Every event that names an output item or a part of one
(``output_index``, ``item_id``, ``content_index``, ``summary_index``, ``annotation_index``,
``partial_image_index``) is checked against what is open, and the texts its deltas build against
its ``*.done`` events, its ``output_item.done`` item and the terminal response: the rules and
their codes are those of :mod:`lucent.formats.openai_responses.stream_items` (``index_out_of_order``,
``item_not_open``, ``item_type_mismatch``, ``part_not_open``, ``delta_mismatch``, ...), shared
with ``convert_stream``. The terminal event carries the whole ``Response``: it is the assembled
result once it agrees with the deltas (the texts: text, refusal, summary, arguments, input,
code; other members may differ), with one member taken from the items' ``output_item.done``:
a reasoning item's ``encrypted_content``. The API encrypts the reasoning again for the final
response (a Fernet token of the same length, another nonce: either replays); the one of
``output_item.done`` is the one a stream converter can carry as the Lux thinking signature
without holding the thinking block open until the terminal event, so the assembled document
holds that one too (convert(assemble(s)) = assemble(convert_stream(s))). ``response.failed`` and ``error`` end the
stream with ``StreamError(code="model_error")`` (``.error``: the event); ``response.incomplete``
is a result (``status: "incomplete"``, ``incomplete_details.reason``).
"""

from __future__ import annotations

import copy
from collections.abc import Iterable
from typing import Any

import msgspec

from lucent._stream_base import Assembler
from lucent.formats.openai_responses.stream_items import OutputItems
from lucent.generated.openai_responses import (
    ReasoningItem,
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

class OpenAIResponsesAssembler(Assembler):
    """ResponseStreamEvent events -> Response (see :mod:`lucent.streams`)."""

    format = "openai-responses"

    def __init__(self, *, tools: Iterable[str] | None = None) -> None:
        super().__init__(tools=tools)
        self._items = OutputItems(self._fail)
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
            item = self._items.add(tree, index)
            if item.type == "function_call":
                self._check_declared(tree["item"].get("name", ""), f"{at}.item.name", f"output item {tree['output_index']}")
            return
        self._items.name(kind, tree, index)

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
        self._items.final(msgspec.to_builtins(response.output), index)
        return self._sealed_as_streamed(response)

    def _sealed_as_streamed(self, response: Response) -> Response:
        """``response`` with each reasoning item's ``encrypted_content`` as its ``output_item.done``
        held it (see the module docstring); the same object when none differs."""
        output = list(response.output)
        changed = False
        for n, value in enumerate(output):
            sealed = self._items.items[n].sealed
            if isinstance(value, ReasoningItem) and sealed is not None and value.encrypted_content != sealed:
                output[n] = copy.copy(value)  # a shallow copy runs no __post_init__; the event stays as it came
                output[n].encrypted_content = sealed
                changed = True
        if not changed:
            return response
        response = copy.copy(response)
        response.output = output
        return response
