"""anthropic stream events <-> Lux stream events.

Reading (events -> Lux), with the rules of :class:`~lucent.formats.anthropic.assembler.AnthropicAssembler`:
``message_start`` is ``conversation_start`` (``meta.id``, ``meta.model``, ``meta.usage_input``
= ``input_tokens + cache_read_input_tokens + cache_creation_input_tokens``: Lux counts input
inclusively) and ``item_start`` of item 0; content block ``i`` is a Lux block (numbered in start
order): ``text`` -> text, ``thinking`` -> thinking (``thinking_delta`` -> thinking delta,
``signature_delta`` -> signature delta), ``tool_use`` -> tool call (``input_json_delta`` pieces
-> arguments deltas; a block without pieces gets its start ``input`` as JSON text when that is
not ``{}``); ``content_block_stop`` ends it. Blocks a Lux stream cannot carry (``redacted_thinking``,
server tool use and results, citations) are Unsupported and dropped, each once where it starts.
``message_delta`` gives the finish reason (``end_turn``/``stop_sequence`` -> ``stop``,
``max_tokens`` -> ``length``, ``tool_use`` -> ``tool_calls``, ``refusal`` -> ``content_filter``,
``model_context_window_exceeded`` -> ``length``, ``pause_turn`` -> ``stop``) and the
cumulative usage; ``message_stop`` is ``item_end``, ``finish``, ``usage``
(``prompt_tokens`` = input + cache reads + cache writes, ``cached_tokens`` = cache reads,
``cache_creation_tokens`` = cache writes, ``completion_tokens`` = ``output_tokens``) and ``done``.
An ``error`` event ends the Lux stream with ``finish: error``, ``error`` and ``done``. The
envelope (``message_start.message`` but its content, merged with ``message_delta``) is
converted by the document converter at ``message_stop``, which gives its diagnostics (the stop
reason, the usage members Lux has no count for, ...: :mod:`lucent._stream_envelope`).

Writing (Lux -> events) produces the API's current shape: ``message_start`` with ``content: []``,
null ``stop_reason``/``stop_sequence``/``stop_details`` and the input count Lux gives up front
(``meta.usage_input``; the split into cache reads and writes is known only at the end); each
Lux block a ``content_block_start`` (``{"type": "text", "text": ""}``, ``{"type": "thinking",
"thinking": "", "signature": ""}``, ``{"type": "tool_use", "id", "name", "input": {}}``), one
``content_block_delta`` per Lux delta and ``content_block_stop``, block indexes counted in start
order. A thinking block waits for its signature (an Anthropic thinking block carries the one
Anthropic issued): one that ends without is dropped, Unsupported, as the document converter
drops it; another block starting first writes it as it is, so that the blocks keep their order; then one ``message_delta`` (``stop_reason`` from the Lux finish, the usage split back:
``input_tokens`` = prompt - cached - cache writes) and ``message_stop``. A Lux ``error`` becomes
an ``error`` event. Only item 0 fits an Anthropic message; other items are Unsupported. A tool
call's arguments go out piece by piece as they come; when, whole, they are not what an Anthropic
reader takes as a ``tool_use`` input (one JSON object, or nothing: ``read_input_json``, the
assembler's rule), the call is Invalid at its ``block_start``: carried verbatim, so the stream
does not assemble (``malformed_arguments``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import msgspec
from msgspec import UNSET

from lucent.formats.anthropic.assembler import read_input_json
from lucent._stream_hub import Hub, _fail, _Reader, _Sink
from lucent._stream_envelope import MEMBER as _MEMBER, Envelope, under
from lucent._stream_convert_vendor import LuxBlocks, VendorWriter, context_value, item_end, item_start, lux_usage
from lucent.formats.anthropic.events import AnthropicErrorBody, AnthropicErrorEvent, AnthropicPingEvent
from lucent.formats.anthropic.tables import DIRECT_CALLER, ERROR_KIND, ERROR_TYPE, STOP_REASON_FROM_LUX, STOP_REASON_TO_LUX, finish_reason_exact, usage_members
from lucent.generated.anthropic import (
    CitationsDelta,
    ContentBlockDeltaEvent,
    ContentBlockStartEvent,
    ContentBlockStopEvent,
    MessageDeltaEvent,
    MessageStartEvent,
    MessageStopEvent,
    InputJsonContentBlockDelta,
    Message,
    SignatureContentBlockDelta,
    TextContentBlockDelta,
    ThinkingContentBlockDelta,
)
from lucent.formats.lux.events import initial_events
from lucent.generated.lux_ir_v1 import (
    LucentBlockDeltaSignature,
    LucentBlockDeltaText,
    LucentBlockDeltaThinking,
    LucentBlockDeltaToolArguments,
    LucentBlockTypeToolCall,
    LucentConversationItemMessage,
    LucentConversationMeta,
    LucentError,
    LucentStreamEventAnnotations,
    LucentStreamEventBlockDelta,
    LucentStreamEventBlockDiscard,
    LucentStreamEventBlockEnd,
    LucentStreamEventBlockStart,
    LucentStreamEventConversationStart,
    LucentStreamEventDone,
    LucentStreamEventError,
    LucentStreamEventFinish,
    LucentStreamEventItemEnd,
    LucentStreamEventItemStart,
    LucentStreamEventUsage,
    LucentUsage,
)

def anthropic_usage_to_lux(usage: Mapping[str, Any]) -> LucentUsage:
    """Anthropic counts (input excludes cache reads and writes) -> Lux (inclusive); the thinking
    tokens of ``output_tokens_details`` (inside ``output_tokens``) are Lux ``reasoning_tokens``."""
    read = int(usage.get("cache_read_input_tokens") or 0)
    write = int(usage.get("cache_creation_input_tokens") or 0)
    prompt = int(usage.get("input_tokens") or 0) + read + write
    details = usage.get("output_tokens_details")
    thinking = details.get("thinking_tokens") if isinstance(details, dict) else None
    return lux_usage(prompt, int(usage.get("output_tokens") or 0), cached=read, cache_creation=write, reasoning=None if thinking is None else int(thinking))


class AnthropicReader(_Reader):
    """MessageStreamEvent -> Lux events (see the module docstring)."""

    def __init__(self, sink: _Sink, context: Mapping[str, Any], tools: frozenset[str] | None, lux_target: bool) -> None:
        super().__init__(sink, context, tools, lux_target)
        self._started = False
        self._blocks = LuxBlocks(0)
        self._kinds: dict[int, str] = {}  # anthropic index -> kind (text, thinking, tool, drop), while open
        self._known: set[int] = set()
        self._json: dict[int, tuple[list[str], int, Any]] = {}  # tool blocks: pieces, last event, start input
        self._usage: dict[str, Any] = {}
        self._usage_at = "$"
        self._finish: tuple[str, str] | None = None
        self._ended: int | None = None
        self._envelopes: set[int] = set()  # message_start and message_delta events
        self._message: dict[str, Any] | None = None  # the envelope as the assembler builds it
        self._places: dict[str, str] = {}  # its member -> the stream path that gave it
        self._usage_places: dict[str, str] = {}  # its usage member -> the stream path
        self._kinds_seen: dict[str, dict[str, Any]] = {}  # block type -> its first content_block_start block

    def seen(self, event: Any, index: int) -> None:
        if isinstance(event, (MessageStartEvent, MessageDeltaEvent)):
            self._envelopes.add(index)

    def in_envelope(self, where: str) -> bool:
        """message_start (but its content) and message_delta: the envelope."""
        event, _, rest = where.partition("]")
        if not event.startswith("$[") or int(event[2:]) not in self._envelopes:
            return False
        return not under(rest, (".message.content",))

    def _delivered(self, index: int) -> None:
        """message_stop (or an error): the envelope as the assembler builds it, its content the
        first block of each type as content_block_start gave it (so that a rule on the kinds of
        content, a finish reason that a tool call decides, reads the same; the blocks' own
        diagnostics are the stream's)."""
        message = self._message
        if message is None:
            return
        try:
            document = msgspec.convert({**message, "content": list(self._kinds_seen.values())}, type=Message)
        except msgspec.ValidationError:  # the assembler refuses it too
            return
        places, usage_places = dict(self._places), dict(self._usage_places)
        start = places["$"]
        usage_at = self._usage_at

        def place(field: str) -> str | None:
            if field == "$":
                return start
            found = _MEMBER.match(field)
            if found is None or found.group(1) == "content":
                return None
            name, rest = found.groups()
            if name == "usage":
                inner = _MEMBER.match("$" + rest)
                if inner is None:
                    return usage_at + rest
                return usage_places.get(inner.group(1), f"{start}.usage.{inner.group(1)}") + inner.group(2)
            return places.get(name, f"{start}.{name}") + rest

        self.envelope = Envelope(document, place)

    @property
    def usage(self) -> Any:
        return dict(self._usage) if self._usage else None

    def push(self, event: Any, index: int) -> Hub:
        at = f"$[{index}]"
        if self._ended is not None:
            code = "duplicate_terminal" if isinstance(event, (MessageStopEvent, AnthropicErrorEvent)) else "data_after_terminal"
            raise _fail(code, f"event {index} comes after the stream ended (event {self._ended})", at, self.usage)
        out: Hub = []
        if isinstance(event, AnthropicPingEvent):
            return out
        if isinstance(event, AnthropicErrorEvent):
            self._ended = index
            self._delivered(index)
            self._blocks.end_all(at, out)
            if self._started:
                out.append((item_end(0), at))
            else:
                out.append((LucentStreamEventConversationStart(meta=LucentConversationMeta()), at))
            out.append((LucentStreamEventFinish(finish_reason="error"), at))
            kind = ERROR_KIND.get(event.error.type, "server_error")
            out.append((LucentStreamEventError(error=LucentError(kind=kind, message=event.error.message, provider_code=event.error.type)), f"{at}.error"))  # type: ignore[arg-type]
            out.append((LucentStreamEventDone(), at))
            return out
        if isinstance(event, MessageStartEvent):
            if self._started:
                raise _fail("duplicate_message_start", f"event {index} starts the message a second time", at, self.usage)
            self._start(event, at, out)
            return out
        if not self._started:
            raise _fail("missing_message_start", f"event {index} comes before message_start", at, self.usage)
        if isinstance(event, ContentBlockStartEvent):
            self._block_start(event, index, out)
        elif isinstance(event, ContentBlockDeltaEvent):
            self._delta(event, index, out)
        elif isinstance(event, ContentBlockStopEvent):
            self._stop(int(event.index), index, out)
        elif isinstance(event, MessageDeltaEvent):
            if self._kinds:
                raise _fail("block_not_closed", f"message_delta arrives while block {min(self._kinds)} is open", at, self.usage)
            delta = msgspec.to_builtins(event.delta)
            assert self._message is not None
            for name, value in delta.items():
                self._message[name] = value
                self._places[name] = f"{at}.delta.{name}"
            for name, value in msgspec.to_builtins(event.usage).items():
                if value is not None:
                    self._message["usage"][name] = value
                    self._usage_places[name] = f"{at}.usage.{name}"
            reason = delta.get("stop_reason")
            if reason is not None:
                self._finish = (reason, f"{at}.delta.stop_reason")
            # what Lux lacks of the envelope (stop_sequence, container, usage members) is the
            # document converter's to say (lucent._stream_envelope)
            for name, value in msgspec.to_builtins(event.usage).items():
                if value is not None:
                    self._usage[name] = value
            self._usage_at = f"{at}.usage"
        elif isinstance(event, MessageStopEvent):
            if self._kinds:
                raise _fail("block_not_closed", f"message_stop arrives while block {min(self._kinds)} is open", at, self.usage)
            self._ended = index
            self._delivered(index)
            out.append((item_end(0), at))
            if self._finish is None:
                out.append((LucentStreamEventFinish(finish_reason="stop"), at))
                self._sink.report(at, "Degraded", "no message_delta gave a stop_reason: the Lux stream finishes with stop")
            else:
                reason, where = self._finish
                lux = STOP_REASON_TO_LUX.get(reason, "stop")  # how exact: the envelope's diagnostics
                out.append((LucentStreamEventFinish(finish_reason=lux), where))  # type: ignore[arg-type]
            out.append((LucentStreamEventUsage(usage=anthropic_usage_to_lux(self._usage)), self._usage_at))
            out.append((LucentStreamEventDone(), at))
        else:
            raise _fail("unknown_frame", f"event {index} is not an anthropic stream event ({type(event).__name__})", at, self.usage)
        return out

    def _start(self, event: MessageStartEvent, at: str, out: Hub) -> None:
        self._started = True
        message = msgspec.to_builtins(event.message)
        self._message = {**message, "content": [], "usage": dict(message.get("usage") or {})}
        self._places = {"$": f"{at}.message", **{name: f"{at}.message.{name}" for name in message}}
        self._usage_places = {name: f"{at}.message.usage.{name}" for name in self._message["usage"]}
        usage = message.get("usage") or {}
        self._usage = {k: v for k, v in usage.items() if v is not None}
        self._usage_at = f"{at}.message.usage"
        prompt = anthropic_usage_to_lux(usage).prompt_tokens
        out.append((LucentStreamEventConversationStart(meta=LucentConversationMeta(id=message["id"], model=message["model"], usage_input=prompt)), at))
        if message.get("content"):
            self._sink.report(f"{at}.message.content", "Unsupported", "message_start content is empty in the API's streams; this content is dropped")
        out.append((item_start(0), at))

    def _block_start(self, event: ContentBlockStartEvent, index: int, out: Hub) -> None:
        at = f"$[{index}]"
        n = int(event.index)
        if n in self._known:
            raise _fail("duplicate_block_index", f"event {index} starts block {n} a second time", f"{at}.index", self.usage)
        self._known.add(n)
        block = msgspec.to_builtins(event.content_block)
        kind = block.get("type")
        self._kinds_seen.setdefault(str(kind), block)
        where = f"{at}.content_block"
        if kind == "text":
            self._kinds[n] = "text"
            self._blocks.start(n, "text", at, out)
            if block.get("text"):
                self._blocks.delta(n, LucentBlockDeltaText(text=block["text"]), f"{where}.text", out)
            if block.get("citations"):
                self._sink.report(f"{where}.citations", "Unsupported", "a Lux stream carries no citations; dropped")
        elif kind == "thinking":
            self._kinds[n] = "thinking"
            self._blocks.start(n, "thinking", at, out)
            if block.get("thinking"):
                self._blocks.delta(n, LucentBlockDeltaThinking(text=block["thinking"]), f"{where}.thinking", out)
            if block.get("signature"):
                self._blocks.delta(n, LucentBlockDeltaSignature(signature=block["signature"]), f"{where}.signature", out)
        elif kind == "tool_use":
            self._declared(block["name"], f"{where}.name", f"block {n}")
            self._kinds[n] = "tool"
            self._json[n] = ([], index, block.get("input"))
            self._blocks.start(n, LucentBlockTypeToolCall(id=block["id"], name=block["name"]), at, out)
            if block.get("caller") not in (None, DIRECT_CALLER):
                self._sink.report(f"{where}.caller", "Unsupported", "a Lux tool block does not say who called the tool; dropped")
        else:
            self._kinds[n] = "drop"
            self._sink.report(where, "Unsupported", f"a Lux stream cannot carry a {kind} block; dropped")

    def _delta(self, event: ContentBlockDeltaEvent, index: int, out: Hub) -> None:
        at = f"$[{index}]"
        n = int(event.index)
        kind = self._kinds.get(n)
        if kind is None:
            raise _fail("block_not_open", f"event {index} names block {n}, which is not open", f"{at}.index", self.usage)
        delta = event.delta
        tag = type(delta).__struct_config__.tag
        allowed = {"text": ("text_delta", "citations_delta"), "thinking": ("thinking_delta", "signature_delta"), "tool": ("input_json_delta",)}
        if kind != "drop" and tag not in allowed[kind]:
            raise _fail("delta_type_mismatch", f"event {index} sends a {tag} to a {kind} block", f"{at}.delta.type", self.usage)
        where = f"{at}.delta"
        if kind == "drop":
            return  # the block was reported where it started
        if isinstance(delta, TextContentBlockDelta):
            if delta.text:
                self._blocks.delta(n, LucentBlockDeltaText(text=delta.text), f"{where}.text", out)
        elif isinstance(delta, CitationsDelta):
            self._sink.report(f"$[{index}].delta.citation", "Unsupported", "a Lux stream carries no citations; dropped")
        elif isinstance(delta, ThinkingContentBlockDelta):
            if delta.thinking:
                self._blocks.delta(n, LucentBlockDeltaThinking(text=delta.thinking), f"{where}.thinking", out)
        elif isinstance(delta, SignatureContentBlockDelta):
            self._blocks.delta(n, LucentBlockDeltaSignature(signature=delta.signature), f"{where}.signature", out)
        elif isinstance(delta, InputJsonContentBlockDelta):
            pieces, _, start = self._json[n]
            pieces.append(delta.partial_json)
            self._json[n] = (pieces, index, start)
            # An empty piece too: the API sends one first, and the round trip keeps it.
            self._blocks.delta(n, LucentBlockDeltaToolArguments(arguments=delta.partial_json), f"{where}.partial_json", out)

    def _stop(self, n: int, index: int, out: Hub) -> None:
        at = f"$[{index}]"
        kind = self._kinds.pop(n, None)
        if kind is None:
            raise _fail("block_not_open", f"event {index} names block {n}, which is not open", f"{at}.index", self.usage)
        if kind == "tool":
            pieces, last, start = self._json.pop(n)
            text = "".join(pieces)
            _, problem = read_input_json(text)
            if problem is not None:
                raise _fail("malformed_arguments", f"the input_json_delta pieces of block {n}, concatenated, {problem}", f"$[{last}].delta.partial_json", self.usage)
            if not text.strip() and start:  # no pieces: the start's input is the call's arguments
                self._blocks.delta(n, LucentBlockDeltaToolArguments(arguments=msgspec.json.encode(start).decode()), at, out)
        self._blocks.end(n, at, out)


    def close(self, count: int) -> Hub:
        if self._ended is None:
            raise _fail("missing_terminal", f"the stream ended after {count} events without message_stop", f"$[{count}]", self.usage)
        return []


class AnthropicWriter(VendorWriter):
    """Lux events -> MessageStreamEvent (see the module docstring)."""
    context_keys = ("id", "model")  # message_start's id and model when the Lux stream has none

    target = "Anthropic"

    def __init__(self, sink: _Sink, exact: bool, context: Mapping[str, Any] | None = None) -> None:
        super().__init__(sink, exact, context)
        self._meta = LucentConversationMeta()
        self._meta_at = "$"
        self._state = "before"  # "in" item 0, "skip" another, "after"
        self._index: dict[int, int] = {}  # Lux block -> anthropic index
        self._kind: dict[int, str] = {}
        self._arguments: dict[int, tuple[list[str], str]] = {}  # tool block -> its pieces, where it started
        self._held: dict[int, list[tuple[Any, str]]] = {}  # thinking block -> its events, until its signature
        self._next = 0
        self._finish: tuple[str, str] | None = None
        self._usage: LucentUsage | None = None
        self._usage_origin = "$"
        self._started = False
        self._ended = False

    def _emit(self, value: dict[str, Any], kind: Any, out: list[Any]) -> None:
        event = self.written(value, kind)
        if event is not None:
            out.append(event)

    def push(self, event: Any, origin: str, out: list[Any]) -> None:
        if isinstance(event, LucentStreamEventConversationStart):
            self._meta = event.meta
            self._meta_at = origin
        elif isinstance(event, LucentStreamEventItemStart):
            if self._state != "before":
                self._sink.report(self.at(origin, ""), "Unsupported", f"an Anthropic message is one turn; item {event.index} is dropped")
                self._state = "skip"
                return
            self._state = "in"
            self._message_start(event, origin, out)
        elif isinstance(event, LucentStreamEventItemEnd):
            self._state = "after" if self._state in ("in", "skip") else self._state
        elif isinstance(event, (LucentStreamEventBlockStart, LucentStreamEventBlockDelta, LucentStreamEventBlockEnd, LucentStreamEventBlockDiscard, LucentStreamEventAnnotations)):
            if self._state == "in":
                self._block(event, origin, out)
        elif isinstance(event, LucentStreamEventFinish):
            self._finish = (event.finish_reason, self.at(origin, ".finish_reason"))
        elif isinstance(event, LucentStreamEventUsage):
            self._usage = event.usage
            self._usage_origin = self.at(origin, ".usage.prompt_tokens")
        elif isinstance(event, LucentStreamEventError):
            error = event.error
            self._ended = True
            written = ERROR_TYPE[error.kind]
            if error.provider_code is not UNSET and error.provider_code in ERROR_KIND:
                written = error.provider_code  # the Anthropic type it came from
            elif error.provider_code is not UNSET:
                self._sink.report(self.at(origin, ".error.provider_code"), "Degraded", f"not an Anthropic error type; written as {written}, from the error's kind")
            if ERROR_KIND.get(written) != error.kind:
                self._sink.report(self.at(origin, ".error.kind"), "Degraded", f"written as the Anthropic error type {written}, which reads back as {ERROR_KIND.get(written, 'server_error')}")
            out.append(AnthropicErrorEvent(error=AnthropicErrorBody(type=written, message=error.message)))
        elif isinstance(event, LucentStreamEventDone):
            self._done(origin, out)

    def _message_start(self, event: LucentStreamEventItemStart, origin: str, out: list[Any]) -> None:
        meta = self._meta
        values: dict[str, str] = {}
        for key in ("id", "model"):
            value = getattr(meta, key)
            if value is UNSET:
                value = context_value(self.context, key, str, self._sink, "Invalid", f"an Anthropic message has {'an' if key[0] in 'aeiou' else 'a'} {key}, and the Lux stream has none")
            values[key] = value if isinstance(value, str) else ""
        usage: dict[str, Any] = {"input_tokens": 0, "output_tokens": 0}
        if meta.usage_input is not UNSET:
            usage["input_tokens"] = meta.usage_input
            self._sink.report(self.at(self._meta_at, ".meta.usage_input"), "Degraded", "message_start states input_tokens before the split into cache reads and writes is known: the Lux input count, inclusive, stands there; message_delta restates it split")
        self._started = True
        self._emit({"type": "message_start", "message": {"id": values["id"], "type": "message", "role": "assistant", "content": [], "model": values["model"], "stop_reason": None, "stop_sequence": None, "stop_details": None, "usage": usage}}, MessageStartEvent, out)
        assert isinstance(event.item, LucentConversationItemMessage)
        message = event.item.message
        if message.role != "assistant":
            self._sink.report(self.at(origin, ".item.message.role"), "Degraded", "an Anthropic response message is the assistant's")
        for i, content in enumerate(message.content):
            where = self.at(origin, f".item.message.content[{i}]")
            events = initial_events(content, -1 - i)  # initial content: indexes no Lux block takes
            if events is None:
                self._sink.report(where, "Unsupported", "an Anthropic stream cannot carry this content; dropped")
                continue
            for initial in events:
                self._block(initial, where, out)

    def _block(self, event: Any, origin: str, out: list[Any]) -> None:
        if isinstance(event, LucentStreamEventBlockStart):
            self._release(out)
            if event.block_type == "thinking":
                self._held[event.index] = [(event, origin)]  # until its signature
                return
            self._open(event, origin, out)
            return
        held = self._held.get(event.index)
        if held is not None:
            if isinstance(event, LucentStreamEventBlockDelta) and not isinstance(event.delta, LucentBlockDeltaSignature):
                held.append((event, origin))
                return
            if isinstance(event, (LucentStreamEventBlockEnd, LucentStreamEventBlockDiscard)):
                del self._held[event.index]
                if isinstance(event, LucentStreamEventBlockEnd):
                    self._sink.report(self.at(held[0][1], ""), "Unsupported", "an Anthropic thinking block carries the signature Anthropic issued, and this one has none; dropped")
                return
            self._release(out)
        self._written_block(event, origin, out)

    def _release(self, out: list[Any]) -> None:
        """Write the thinking blocks held for their signature as they are (a signature came, or
        another block starts: the blocks keep their order)."""
        held = [e for events in self._held.values() for e in events]
        self._held.clear()
        for event, origin in held:
            if isinstance(event, LucentStreamEventBlockStart):
                self._open(event, origin, out)
            else:
                self._written_block(event, origin, out)

    def _open(self, event: LucentStreamEventBlockStart, origin: str, out: list[Any]) -> None:
        kind = event.block_type
        where = self.at(origin, ".block_type")
        name = kind if isinstance(kind, str) else "tool"
        if kind == "text":
            block: dict[str, Any] = {"type": "text", "text": ""}
        elif kind == "thinking":
            block = {"type": "thinking", "thinking": "", "signature": ""}
        elif isinstance(kind, LucentBlockTypeToolCall):
            block = {"type": "tool_use", "id": kind.id, "name": kind.name, "input": {}}
            self._arguments[event.index] = ([], self.at(origin, ""))
        elif kind == "refusal":
            self._sink.report(where, "Degraded", "Anthropic has no refusal block; the refusal is written as text (stop_reason refusal says it)")
            block = {"type": "text", "text": ""}
            name = "text"
        else:
            self._sink.report(where, "Unsupported", f"an Anthropic stream has no {kind} block; dropped")
            self._kind[event.index] = "drop"
            return
        n = self._index[event.index] = self._next
        self._next += 1
        self._kind[event.index] = name
        self._emit({"type": "content_block_start", "index": n, "content_block": block}, ContentBlockStartEvent, out)

    def _written_block(self, event: Any, origin: str, out: list[Any]) -> None:
        """A delta, end, discard or annotations event of a block written already (or dropped)."""
        if self._kind.get(event.index, "drop") == "drop":
            return
        n = self._index[event.index]
        if isinstance(event, LucentStreamEventBlockDelta):
            delta = event.delta
            if isinstance(delta, LucentBlockDeltaToolArguments):
                value: dict[str, Any] = {"type": "input_json_delta", "partial_json": delta.arguments}
                if event.index in self._arguments:
                    self._arguments[event.index][0].append(delta.arguments)
            elif isinstance(delta, LucentBlockDeltaThinking):
                value = {"type": "thinking_delta", "thinking": delta.text}
            elif isinstance(delta, LucentBlockDeltaSignature):
                value = {"type": "signature_delta", "signature": delta.signature}
            else:
                value = {"type": "text_delta", "text": delta.text}
            self._emit({"type": "content_block_delta", "index": n, "delta": value}, ContentBlockDeltaEvent, out)
        elif isinstance(event, LucentStreamEventBlockEnd):
            self._check_arguments(event.index)
            self._emit({"type": "content_block_stop", "index": n}, ContentBlockStopEvent, out)
        elif isinstance(event, LucentStreamEventBlockDiscard):
            self._arguments.pop(event.index, None)
            self._sink.report(self.at(origin, ""), "Invalid", "the block was written already, and an Anthropic stream cannot take it back; it stays")
        else:
            self._sink.report(self.at(origin, ".annotations"), "Unsupported", "Lux annotations are not Anthropic citations; dropped")

    def _check_arguments(self, index: int) -> None:
        """A tool call's arguments, whole: what an Anthropic reader takes as its input (one JSON
        object, or nothing); else Invalid, since the pieces went out as they came."""
        pieces, where = self._arguments.pop(index, ([], ""))
        _, problem = read_input_json("".join(pieces))
        if problem is not None:
            self._sink.report(where, "Invalid", f"Anthropic tool_use input is one JSON object; the arguments text {problem}; carried verbatim, so the Anthropic stream does not assemble")

    def _done(self, origin: str, out: list[Any]) -> None:
        if self._ended:
            return
        reason = "end_turn"
        if self._finish is not None:
            lux, where = self._finish
            reason = STOP_REASON_FROM_LUX.get(lux, "end_turn")
            if not finish_reason_exact(lux):
                self._sink.report(where, "Degraded", f"Anthropic has no stop reason {lux}; written as {reason}")
        usage: dict[str, Any] = {"input_tokens": 0, "output_tokens": 0}
        if self._usage is not None:
            u = self._usage
            known = [None if n is UNSET else n for n in (u.cached_tokens, u.cache_creation_tokens, u.reasoning_tokens)]
            usage = usage_members(u.prompt_tokens, u.completion_tokens, *known)
            if u.prompt_tokens < (known[0] or 0) + (known[1] or 0):
                self._sink.report(self._usage_origin, "Invalid", "prompt_tokens is less than cached_tokens + cache_creation_tokens, which Lux counts inside it; input_tokens written as 0")
        else:
            self._sink.report("target:$.usage", "Invalid", "message_delta needs usage, and the Lux stream has none: the counts say 0")
        if not self._started:
            self._sink.report(self.at(origin, ""), "Invalid", "the Lux stream has no item: the Anthropic stream has no message")
            return
        self._emit({"type": "message_delta", "delta": {"stop_reason": reason, "stop_sequence": None, "stop_details": None}, "usage": usage}, MessageDeltaEvent, out)
        self._emit({"type": "message_stop"}, MessageStopEvent, out)
