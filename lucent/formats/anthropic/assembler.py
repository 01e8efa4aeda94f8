"""Anthropic Messages stream events -> ``Message``.

Source: schemas/vendor/anthropic.json ``#/$defs/MessageStreamEvent`` and ``#/$defs/Message``
(Anthropic OpenAPI), and the "Streaming Messages" documentation for the event flow and the
``ping``/``error`` events the union lacks (:mod:`lucent.formats.anthropic.events`)::

    message_start (content_block_start content_block_delta* content_block_stop)* message_delta+ message_stop

``message_start.message`` is the message with empty content; its ``usage`` holds the input
counts (``input_tokens``, ``cache_creation_input_tokens``, ``cache_read_input_tokens``) and a
first ``output_tokens``. Block ``i`` of ``content_block_start`` is ``content[i]``; its deltas:
``text_delta`` appends to ``text``, ``citations_delta`` appends its ``citation`` to
``citations``, ``thinking_delta`` appends to ``thinking``, ``signature_delta`` sets
``signature``, ``input_json_delta`` pieces concatenate into the JSON text of a ``tool_use`` (or
``server_tool_use``) block's ``input``, parsed at ``content_block_stop`` (no piece, or only
``""``: the start's ``input``, ``{}``). ``message_delta`` sets ``stop_reason``,
``stop_sequence`` (and ``stop_details``, ``container`` when sent) and its usage is cumulative:
each count it gives replaces the one before (``output_tokens`` from the last
``message_delta``; ``input_tokens`` and the cache counts stay those of ``message_start`` unless
a delta restates them). ``message_stop`` ends the stream; a ``ping`` is nothing; an ``error``
event ends it with ``StreamError(code="model_error")``.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

import msgspec

from lucent._stream_base import Assembler, parse_arguments
from lucent.formats.anthropic.events import AnthropicErrorEvent, AnthropicPingEvent
from lucent._validation import described
from lucent.generated.anthropic import (
    ContentBlockDeltaEvent,
    ContentBlockStartEvent,
    ContentBlockStopEvent,
    Message,
    MessageDeltaEvent,
    MessageStartEvent,
    MessageStopEvent,
)

DELTA_FIELD = {"text_delta": "text", "thinking_delta": "thinking", "signature_delta": "signature", "input_json_delta": "partial_json", "citations_delta": "citation"}
"""Delta type -> the member that holds its content."""

BLOCK_DELTAS = {
    "text": ("text_delta", "citations_delta"),
    "thinking": ("thinking_delta", "signature_delta"),
    "tool_use": ("input_json_delta",),
    "server_tool_use": ("input_json_delta",),
}
"""Block type -> the delta types it takes (other blocks arrive whole and take none)."""


@dataclass
class AnthropicBlock:
    """A content block being assembled (a JSON object, as the API sends it)."""

    first: int
    value: dict[str, Any]
    json: list[str] = field(default_factory=list)  # input_json_delta pieces
    last: int = -1
    open: bool = True
    pieces: dict[str, list[str]] = field(default_factory=dict)  # text / thinking deltas, joined once

    def append(self, key: str, text: str) -> None:
        """Add a delta to ``value[key]`` (a str), in linear time: joined by :meth:`settle`."""
        found = self.pieces.get(key)
        if found is None:
            start = self.value.get(key, "")
            found = self.pieces[key] = [start] if isinstance(start, str) else []
        found.append(text)

    def settle(self) -> dict[str, Any]:
        """``value`` with the deltas joined."""
        for key, found in self.pieces.items():
            self.value[key] = "".join(found)
        self.pieces = {}
        return self.value


class AnthropicAssembler(Assembler):
    """MessageStreamEvent events -> Message (see :mod:`lucent.streams`)."""

    format = "anthropic"

    def __init__(self, *, tools: Iterable[str] | None = None) -> None:
        super().__init__(tools=tools)
        self._message: dict[str, Any] | None = None
        self._blocks: dict[int, AnthropicBlock] = {}
        self._usage: dict[str, Any] | None = None
        self._start_usage: Any = None
        self._stopped: int | None = None
        self._error: tuple[int, AnthropicErrorEvent] | None = None

    @property
    def usage(self) -> Any:
        """The usage so far (``Usage``: message_start's, updated by each message_delta)."""
        if self._usage is None:
            return None
        try:
            return msgspec.convert(self._usage, type=type(self._start_usage))
        except msgspec.ValidationError:  # pragma: no cover - a count the schema refuses
            return self._start_usage

    def _push(self, event: object, index: int) -> None:
        at = f"$[{index}]"
        if self._stopped is not None or self._error is not None:
            ended = self._stopped if self._stopped is not None else self._error[0]  # type: ignore[index]
            if isinstance(event, (MessageStopEvent, AnthropicErrorEvent)):
                raise self._fail("duplicate_terminal", f"event {index} ends the stream a second time; event {ended} ended it", at)
            raise self._fail("data_after_terminal", f"event {index} comes after the stream ended (event {ended})", at)
        if isinstance(event, AnthropicPingEvent):
            return
        if isinstance(event, AnthropicErrorEvent):
            self._error = (index, event)
            return
        if isinstance(event, MessageStartEvent):
            if self._message is not None:
                raise self._fail("duplicate_message_start", f"event {index} starts the message a second time", at)
            self._message = msgspec.to_builtins(event.message)
            self._start_usage = event.message.usage
            self._usage = dict(self._message["usage"])
            self._message["content"] = list(self._message.get("content") or [])
            return
        if self._message is None:
            raise self._fail("missing_message_start", f"event {index} comes before message_start", at)
        if isinstance(event, ContentBlockStartEvent):
            n = int(event.index)
            if n in self._blocks:
                raise self._fail("duplicate_block_index", f"event {index} starts block {n} a second time", f"{at}.index")
            block = msgspec.to_builtins(event.content_block)
            if block.get("type") == "tool_use":
                self._check_declared(block.get("name", ""), f"{at}.content_block.name", f"block {n}")
            self._blocks[n] = AnthropicBlock(first=index, value=block)
        elif isinstance(event, ContentBlockDeltaEvent):
            block = self._open(int(event.index), index)
            self._delta(block, event.delta, index)
        elif isinstance(event, ContentBlockStopEvent):
            block = self._open(int(event.index), index)
            self._stop(block, int(event.index))
        elif isinstance(event, MessageDeltaEvent):
            still = [n for n, b in self._blocks.items() if b.open]
            if still:
                raise self._fail("block_not_closed", f"message_delta arrives while block {min(still)} is open", at)
            for name, value in msgspec.to_builtins(event.delta).items():
                self._message[name] = value
            for name, value in msgspec.to_builtins(event.usage).items():
                if value is not None:
                    self._usage[name] = value  # type: ignore[index]
        elif isinstance(event, MessageStopEvent):
            still = [n for n, b in self._blocks.items() if b.open]
            if still:
                raise self._fail("block_not_closed", f"message_stop arrives while block {min(still)} is open", at)
            self._stopped = index
        else:
            raise self._unknown(event, index)

    def _open(self, n: int, index: int) -> AnthropicBlock:
        block = self._blocks.get(n)
        if block is None or not block.open:
            raise self._fail("block_not_open", f"event {index} names block {n}, which is not open", f"$[{index}].index")
        return block

    def _delta(self, block: AnthropicBlock, delta: Any, index: int) -> None:
        kind = block.value.get("type", "")
        tag = type(delta).__struct_config__.tag
        if tag not in BLOCK_DELTAS.get(kind, ()):
            raise self._fail("delta_type_mismatch", f"event {index} sends a {tag} to a {kind} block", f"$[{index}].delta.type")
        value = block.value
        if tag == "text_delta":
            block.append("text", delta.text)
        elif tag == "thinking_delta":
            block.append("thinking", delta.thinking)
        elif tag == "signature_delta":
            value["signature"] = delta.signature
        elif tag == "citations_delta":
            citations = value.get("citations")
            if not isinstance(citations, list):
                citations = value["citations"] = []
            citations.append(msgspec.to_builtins(delta.citation))
        else:
            block.json.append(delta.partial_json)
            block.last = index

    def _stop(self, block: AnthropicBlock, n: int) -> None:
        block.open = False
        block.settle()
        text = "".join(block.json)
        block.json = []
        parsed, problem = read_input_json(text)
        if problem is not None:
            raise self._fail("malformed_arguments", f"the input_json_delta pieces of block {n}, concatenated, {problem}", f"$[{block.last}].delta.partial_json")
        if parsed is not None:
            block.value["input"] = parsed

    def _close(self, count: int) -> Message:
        if self._error is not None:
            index, event = self._error
            raise self._fail("model_error", "the stream ended with an error event (its type and message: .error.error)", f"$[{index}]", error=event)
        if self._message is None or self._stopped is None:
            raise self._fail("missing_terminal", f"the stream ended after {count} events without message_stop", f"$[{count}]")
        message = dict(self._message)
        message["content"] = list(message["content"]) + [self._blocks[n].settle() for n in sorted(self._blocks)]
        message["usage"] = self._usage
        try:
            return msgspec.convert(message, type=Message)
        except msgspec.ValidationError as exc:
            raise self._fail("invalid_frame", f"the assembled message breaks the Message schema: {described(exc)}", "$") from None


def read_input_json(text: str) -> tuple[dict[str, Any] | None, str | None]:
    """The ``input_json_delta`` pieces of a tool_use block, concatenated -> (its input, None),
    or (None, why it is not one: "is not one complete JSON value", ...). White space alone is
    (None, None): no pieces, the start's ``input`` stands. The one rule of the assembler, the
    stream reader and the writer (which reports Invalid where its stream would break it)."""
    if not text.strip():
        return None, None
    try:
        parsed = parse_arguments(text)
    except ValueError as exc:
        return None, str(exc)
    if parsed is None:
        return None, "is null, not a JSON object"
    return parsed, None
