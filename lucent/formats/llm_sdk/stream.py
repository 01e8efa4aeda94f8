"""llm-sdk stream partials (``PartialModelResponse``) <-> Lux stream events.

Reading (partials -> Lux), with the rules of :class:`~lucent.formats.llm_sdk.assembler.LlmSdkAssembler`:
the whole stream is one item (choice 0) and part ``n`` is Lux block ``n``.

Writing (Lux -> partials): ``PartialModelResponse`` values whose ``delta.index`` counts the
parts of the one response (0, 1, ... in the order they start). The format has no usage, finish
reason, error or terminal value: the stream simply ends, and a model error raises
``StreamError(code="model_error")`` after the partials before it. Tool arguments keep the
model's text as it came (a document conversion writes llm-sdk args as compact JSON).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from msgspec import UNSET

from lucent._conversion import Cx
from lucent._stream_base import parse_arguments
from lucent._stream_hub import Hub, Key, _assistant_item, _fail, _lux_arguments, _lux_text, _meta, _Reader, _Sink
from lucent._stream_one_message import _Block, _OneMessageWriter
from lucent.errors import StreamError
from lucent.formats.llm_sdk.assembler import PartRules, SdkPart
from lucent.formats.llm_sdk.tables import AUDIO_FIELDS
from lucent.formats.sparktide.transforms import derived_finish_reason
from lucent.generated.llm_sdk import (
    AudioPartDelta,
    ContentDelta,
    PartialModelResponse,
    TextPartDelta,
    ToolCallPartDelta,
)
from lucent.generated.lux_ir_v1 import (
    LucentBlockTypeToolCall,
    LucentStreamEventBlockEnd,
    LucentStreamEventBlockStart,
    LucentStreamEventConversationStart,
    LucentStreamEventDone,
    LucentStreamEventError,
    LucentStreamEventFinish,
    LucentStreamEventItemEnd,
    LucentUsage,
)


@dataclass
class _SdkPart(SdkPart):
    arguments: list[str] = field(default_factory=list)  # tool args, kept until the stream ends
    started: bool = False  # its Lux block has started
    forwarded: bool = False  # args text that is not white space went out (blank args are {})


class LlmSdkReader(_Reader):
    """PartialModelResponse -> Lux events, with the rules of :class:`LlmSdkAssembler`.

    The whole stream is one item (choice 0); part ``n`` is Lux block ``n``. A part has no end
    of its own, so every block ends when the source ends; then come finish (derived as the
    document converter derives it: tool_calls when a tool call came, else stop) and done.
    """
    context_keys_to_lux = ("id", "model")  # conversation_start.meta: an llm-sdk stream has neither

    def __init__(self, sink: _Sink, context: Mapping[str, Any], tools: frozenset[str] | None, lux_target: bool) -> None:
        super().__init__(sink, context, tools, lux_target)
        self._begun = False
        self._parts: dict[int, _SdkPart] = {}
        self._rules = PartRules(lambda code, message, path: _fail(code, message, path, None), self._declared)

    def _begin(self, out: Hub, at: str) -> None:
        if not self._begun:
            self._begun = True
            out.append((LucentStreamEventConversationStart(meta=_meta(self._context, self._sink, "llm-sdk", self._lux_target)), at))
            out.append((_assistant_item(), at))

    def push(self, partial: Any, index: int) -> Hub:
        at = f"$[{index}]"
        if not isinstance(partial, PartialModelResponse):
            raise _fail("unknown_frame", f"event {index} is not a llm-sdk stream event ({type(partial).__name__})", at, None)
        out: Hub = []
        self._begin(out, at)
        part, n, delta = self._rules.part(self._parts, partial, index, lambda kind, first: _SdkPart(kind=kind, first=first))
        where = f"{at}.delta.part"
        if self._rules.set_once(part, "id", delta.id, n, where):
            self._sink.report(f"{where}.id", "Unsupported", "a Lux stream block has no part id; dropped")
        if isinstance(delta, TextPartDelta):
            if not part.started:
                part.started = True
                out.append((LucentStreamEventBlockStart(index=n, block_type="text"), at))
            if delta.text:
                out.append((_lux_text(n, delta.text), f"{where}.text"))
        elif isinstance(delta, ToolCallPartDelta):
            self._tool(part, delta, n, index, out)
        else:
            self._audio(part, delta, n, index)
        return out

    def _tool(self, part: _SdkPart, delta: ToolCallPartDelta, n: int, index: int, out: Hub) -> None:
        at = f"$[{index}]"
        where = f"{at}.delta.part"
        self._rules.tool(part, delta, n, where)
        if delta.args is not UNSET:
            part.arguments.append(delta.args)
            part.last = index
            if part.started:
                self._forward(part, n, delta.args, f"{where}.args", out)
        call_id, name = part.fields.get("toolCallId"), part.fields.get("toolName")
        if not part.started and call_id is not None and name is not None:
            part.started = True
            out.append((LucentStreamEventBlockStart(index=n, block_type=LucentBlockTypeToolCall(id=call_id, name=name)), at))
            if part.arguments:
                self._forward(part, n, "".join(part.arguments), f"{where}.args", out)

    def _forward(self, part: _SdkPart, n: int, piece: str, where: str, out: Hub) -> None:
        """Args go out as they come, but blank args are no args ({}): white space waits until
        text that is not white space follows it."""
        if part.forwarded:
            if piece:
                out.append((_lux_arguments(n, piece), where))
        elif piece.strip():
            part.forwarded = True
            out.append((_lux_arguments(n, "".join(part.arguments)), where))

    def _audio(self, part: _SdkPart, delta: AudioPartDelta, n: int, index: int) -> None:
        where = f"$[{index}].delta.part"
        if index == part.first:
            self._sink.report(where, "Unsupported", "a Lux stream carries no media (no block delta holds audio); the audio part is dropped")
        for name in AUDIO_FIELDS:
            self._rules.set_once(part, name, getattr(delta, name), n, where)
        if delta.audioData is not UNSET:
            self._rules.audio(part, delta.audioData, n, f"{where}.audioData")
            part.last = index

    def close(self, count: int) -> Hub:
        out: Hub = []
        self._begin(out, f"$[{count}]")
        for n in sorted(self._parts):
            part = self._parts[n]
            if part.kind == "tool-call":
                self._rules.tool_call(part, n, "".join(part.arguments))
            elif part.kind == "audio":
                self._rules.audio_ended(part, n)
        at = f"$[{count}]"
        for n in sorted(self._parts):
            if self._parts[n].started:
                out.append((LucentStreamEventBlockEnd(index=n), at))
        out.append((LucentStreamEventItemEnd(index=0), at))
        calls = [n for n, part in self._parts.items() if part.kind == "tool-call"]
        reason = derived_finish_reason(calls or UNSET, "$", Cx(None))
        out.append((LucentStreamEventFinish(finish_reason=reason), at))
        out.append((LucentStreamEventDone(), at))
        self._parts = {}
        return out


class LlmSdkWriter(_OneMessageWriter):
    """Lux events -> PartialModelResponse.

    Each text block (a refusal too) and each tool block is one part, numbered 0, 1, ... in the
    order the blocks start: text deltas as they come (a block with no text sends ``""`` when it
    ends, so that the part exists), a tool call's id and name at once and its arguments pieces
    as they come. Usage, finish reason and meta have no place (reported). An ``error`` event
    raises ``StreamError(code="model_error")``: llm-sdk streams fail by raising.
    """

    target = "llm-sdk"
    a_target = "an llm-sdk"
    role_status = {r: ("Degraded" if r == "model" else "Unsupported") for r in ("model", "user", "system", "tool", "developer")}
    no_meta = "the caller pairs the reply with its request and knows the model"

    def __init__(self, sink: _Sink, exact: bool) -> None:
        super().__init__(sink, exact)
        self._parts = 0
        self._tools = 0
        self._reported_usage = False

    def _send(self, block: _Block, part: Any, out: list[Any]) -> None:
        block.sent = True
        out.append(PartialModelResponse(delta=ContentDelta(index=block.index, part=part)))

    def _start_text(self, block: _Block, key: Key, out: list[Any]) -> None:
        self._in_order("part", key, block.origin)
        block.index = self._parts
        self._parts += 1

    def _start_tool(self, block: _Block, key: Key, kind: LucentBlockTypeToolCall, where: str, out: list[Any]) -> None:
        self._in_order("part", key, block.origin)
        block.index = self._parts
        self._parts += 1
        self._tools += 1
        self._send(block, ToolCallPartDelta(toolCallId=kind.id, toolName=kind.name), out)

    def _piece(self, block: _Block, key: Key, text: str, origin: str, out: list[Any]) -> None:
        if block.kind == "tool":
            block.arguments.append(text)
            if text:
                self._send(block, ToolCallPartDelta(args=text), out)
        elif text:
            self._send(block, TextPartDelta(text=text), out)

    def _end(self, block: _Block, key: Key, out: list[Any]) -> None:
        if block.kind == "tool":
            text = "".join(block.arguments)
            block.arguments = []
            if text.strip():
                try:
                    parse_arguments(text)
                except ValueError as exc:
                    self._sink.report(block.origin, "Invalid", f"llm-sdk args are a JSON object (or null); the arguments text {exc}; carried verbatim, so the llm-sdk stream does not assemble")
        elif not block.sent:
            self._send(block, TextPartDelta(text=""), out)

    def _discard(self, block: _Block, key: Key, where: str, out: list[Any]) -> None:
        if block.sent:
            self._sink.report(where, "Invalid", "the part was written already, and an llm-sdk stream cannot take it back; it stays")
        elif block.index == self._parts - 1:
            self._parts -= 1  # nothing went out under its index: the next part takes it
        else:
            self._sink.report(where, "Degraded", f"the part index {block.index} it took stays unused")

    def _got_usage(self, usage: LucentUsage, origin: str) -> None:
        if not self._reported_usage:
            self._reported_usage = True
            self._sink.report(self.at(origin, ".usage"), "Unsupported", "an llm-sdk stream (PartialModelResponse) carries no usage; dropped")

    def _error(self, event: LucentStreamEventError, origin: str, out: list[Any]) -> None:
        raise StreamError(f"the stream reported an error of kind {event.error.kind}", code="model_error", path=origin, error=event.error)

    def _done(self, origin: str, out: list[Any]) -> None:
        self._finish_status("tool_calls" if self._tools else "stop")
        if self._usage_input is not None and not self._reported_usage:
            self._sink.report(self._usage_input, "Unsupported", "an llm-sdk stream (PartialModelResponse) carries no usage; dropped")
