"""Lux IR stream events (``#/definitions/LucentStreamEvent``) -> LucentResponse.

The lifecycle, as lucent reads the event list of ``#/definitions/LucentStreamEvent``::

    conversation_start
      ( item_start(i, message)
          ( block_start(b, type) (block_delta(b) | annotations(b))* (block_end(b) | block_discard(b)) )*
        item_end(i) )*
      finish  usage*  error?
    done

An item is one choice: ``item_start.index`` is ``LucentChoice.index`` and its ``message`` gives the
role and any content known up front. Block indexes are positions within the item; a block's
content lands at its index, after the item's initial content. ``block_discard`` drops a block
(open or ended) and frees its index. Several blocks may be open at once; items do not nest.
``finish`` applies to every choice; the last ``usage`` wins; ``error`` ends the stream with
``StreamError(code="model_error")`` carrying the ``LucentError``. ``LucentResponse`` has no place
for ``conversation_start.meta.usage_input`` (a ``LucentUsage`` needs all three counts): the input
count arrives again in the ``usage`` event.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from msgspec import UNSET

from lucent._stream_base import Assembler
from lucent.generated.lux_ir_v1 import (
    LucentAnnotation,
    LucentBlockDeltaRefusal,
    LucentBlockDeltaSignature,
    LucentBlockDeltaText,
    LucentBlockDeltaThinking,
    LucentBlockDeltaToolArguments,
    LucentBlockTypeToolCall,
    LucentChoice,
    LucentContent,
    LucentContentRefusal,
    LucentContentText,
    LucentContentThinking,
    LucentContentToolUse,
    LucentConversationItemMessage,
    LucentConversationMeta,
    LucentFinishReason,
    LucentMessage,
    LucentResponse,
    LucentRole,
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
    LucentThinking,
    LucentToolUse,
    LucentUsage,
)
from lucent.generated.lux_ir_v1 import LucentError as LuxError

# Which delta types each block type takes.
_DELTAS: dict[str, tuple[type, ...]] = {
    "text": (LucentBlockDeltaText,),
    "thinking": (LucentBlockDeltaThinking, LucentBlockDeltaSignature),
    "refusal": (LucentBlockDeltaRefusal,),
    "tool_call": (LucentBlockDeltaToolArguments,),
}


@dataclass
class _Block:
    kind: str  # text, thinking, refusal or tool_call
    pieces: list[str] = field(default_factory=list)
    signature: str | None = None
    annotations: list[LucentAnnotation] | None = None
    tool_id: str = ""
    tool_name: str = ""

    def content(self) -> LucentContent:
        text = "".join(self.pieces)
        if self.kind == "text":
            return LucentContentText(text=text, annotations=self.annotations if self.annotations is not None else UNSET)
        if self.kind == "thinking":
            signature = self.signature if self.signature is not None else UNSET
            return LucentContentThinking(thinking=LucentThinking(text=text, signature=signature, redacted=False))
        if self.kind == "refusal":
            return LucentContentRefusal(refusal=text)
        # A tool call that streamed no arguments takes none: "{}", never "" (no JSON text).
        return LucentContentToolUse(tool_use=LucentToolUse(id=self.tool_id, name=self.tool_name, arguments=text or "{}"))


@dataclass
class _Item:
    index: int
    role: LucentRole
    initial: list[LucentContent]
    open: dict[int, _Block] = field(default_factory=dict)
    ended: dict[int, _Block] = field(default_factory=dict)


class LuxAssembler(Assembler):
    """LucentStreamEvent events -> LucentResponse (see :mod:`lucent.streams`)."""

    format = "lux"

    def __init__(self, *, tools: Iterable[str] | None = None) -> None:
        super().__init__(tools=tools)
        self._meta: LucentConversationMeta | None = None
        self._item: _Item | None = None
        self._choices: dict[int, LucentMessage] = {}
        self._finish: LucentFinishReason | None = None
        self._usage: LucentUsage | None = None
        self._error: tuple[int, LuxError] | None = None
        self._done: int | None = None
        self._result: LucentResponse | None = None

    @property
    def usage(self) -> LucentUsage | None:
        return self._usage

    def _push(self, event: object, index: int) -> None:
        at = f"$[{index}]"
        if self._done is not None:
            if isinstance(event, LucentStreamEventDone):
                raise self._fail("duplicate_terminal", f"event {index} is a second done; event {self._done} ended the stream", at)
            raise self._fail("data_after_terminal", f"event {index} comes after done (event {self._done})", at)
        if isinstance(event, LucentStreamEventConversationStart):
            if self._meta is not None:
                raise self._fail("duplicate_conversation_start", f"event {index} starts the conversation a second time", at)
            self._meta = event.meta
            return
        if self._meta is None:
            raise self._fail("missing_conversation_start", f"event {index} comes before conversation_start", at)
        if isinstance(event, LucentStreamEventItemStart):
            self._item_start(event, index)
        elif isinstance(event, LucentStreamEventItemEnd):
            self._item_end(event, index)
        elif isinstance(event, LucentStreamEventBlockStart):
            self._block_start(event, index)
        elif isinstance(event, LucentStreamEventBlockDelta):
            self._block_delta(event, index)
        elif isinstance(event, LucentStreamEventBlockEnd):
            item = self._open_item(index)
            block = self._open_block(item, event.index, index)
            del item.open[event.index]
            item.ended[event.index] = block
        elif isinstance(event, LucentStreamEventBlockDiscard):
            item = self._open_item(index)
            if item.open.pop(event.index, None) is None and item.ended.pop(event.index, None) is None:
                raise self._fail("block_not_open", f"event {index} discards block {event.index}, which item {item.index} does not hold", f"{at}.index")
        elif isinstance(event, LucentStreamEventAnnotations):
            self._annotations(event, index)
        elif isinstance(event, LucentStreamEventFinish):
            if self._finish is not None:
                raise self._fail("duplicate_finish", f"event {index} is a second finish", at)
            self._finish = event.finish_reason
        elif isinstance(event, LucentStreamEventUsage):
            self._usage = event.usage
        elif isinstance(event, LucentStreamEventError):
            if self._error is not None:
                raise self._fail("duplicate_error", f"event {index} is a second error; event {self._error[0]} reported one", at)
            self._error = (index, event.error)
        elif isinstance(event, LucentStreamEventDone):
            self._done = index
            if self._error is None:
                self._result = self._build(index)
        else:
            raise self._unknown(event, index)

    # ------------------------------------------------------------------ items and blocks

    def _open_item(self, index: int) -> _Item:
        if self._item is None:
            raise self._fail("item_not_open", f"event {index} needs an open item, and none is open", f"$[{index}]")
        return self._item

    def _open_block(self, item: _Item, block: int, index: int) -> _Block:
        found = item.open.get(block)
        if found is None:
            raise self._fail("block_not_open", f"event {index} names block {block}, which is not open in item {item.index}", f"$[{index}].index")
        return found

    def _item_start(self, event: LucentStreamEventItemStart, index: int) -> None:
        if self._item is not None:
            raise self._fail("item_not_closed", f"event {index} starts an item while item {self._item.index} is open", f"$[{index}]")
        if event.index in self._choices:
            raise self._fail("duplicate_item_index", f"event {index} starts item {event.index} a second time", f"$[{index}].index")
        if not isinstance(event.item, LucentConversationItemMessage):
            raise self._fail("unsupported_item", f"event {index} starts an item that is not a message; a LucentResponse choice holds a message", f"$[{index}].item.type")
        message = event.item.message
        self._item = _Item(index=event.index, role=message.role, initial=list(message.content))

    def _item_end(self, event: LucentStreamEventItemEnd, index: int) -> None:
        item = self._item
        if item is None or item.index != event.index:
            raise self._fail("item_not_open", f"event {index} ends item {event.index}, which is not open", f"$[{index}].index")
        if item.open:
            raise self._fail("block_not_closed", f"event {index} ends item {item.index} while block {min(item.open)} is open", f"$[{index}]")
        content = item.initial + [item.ended[b].content() for b in sorted(item.ended)]
        self._choices[item.index] = LucentMessage(role=item.role, content=content)
        self._item = None

    def _block_start(self, event: LucentStreamEventBlockStart, index: int) -> None:
        item = self._open_item(index)
        if event.index in item.open or event.index in item.ended:
            raise self._fail("duplicate_block_index", f"event {index} starts block {event.index} of item {item.index} a second time", f"$[{index}].index")
        kind = event.block_type
        if isinstance(kind, LucentBlockTypeToolCall):
            self._check_declared(kind.name, f"$[{index}].block_type.name", f"block {event.index}")
            item.open[event.index] = _Block("tool_call", tool_id=kind.id, tool_name=kind.name)
        elif kind in _DELTAS:
            item.open[event.index] = _Block(kind)
        else:
            raise self._fail("unsupported_block", f"event {index} starts a media block; no block_delta carries media, so its content cannot arrive", f"$[{index}].block_type")

    def _block_delta(self, event: LucentStreamEventBlockDelta, index: int) -> None:
        item = self._open_item(index)
        block = self._open_block(item, event.index, index)
        delta = event.delta
        if not isinstance(delta, _DELTAS[block.kind]):
            raise self._fail("delta_type_mismatch", f"event {index} sends a delta that a {block.kind} block does not take", f"$[{index}].delta.type")
        if isinstance(delta, LucentBlockDeltaSignature):
            block.signature = delta.signature  # a signature replaces the previous one
        elif isinstance(delta, LucentBlockDeltaToolArguments):
            block.pieces.append(delta.arguments)
        else:
            block.pieces.append(delta.text)

    def _annotations(self, event: LucentStreamEventAnnotations, index: int) -> None:
        item = self._open_item(index)
        block = item.open.get(event.index) or item.ended.get(event.index)
        if block is None:
            raise self._fail("block_not_open", f"event {index} annotates block {event.index}, which item {item.index} does not hold", f"$[{index}].index")
        if block.kind != "text":
            raise self._fail("delta_type_mismatch", f"event {index} annotates a {block.kind} block; annotations belong to text", f"$[{index}]")
        if block.annotations is None:
            block.annotations = []
        block.annotations.extend(event.annotations)  # in place: linear in the number of events

    # ------------------------------------------------------------------ the end

    def _build(self, index: int) -> LucentResponse:
        if self._item is not None:
            raise self._fail("item_not_closed", f"done arrives while item {self._item.index} is open", f"$[{index}]")
        if self._finish is None:
            raise self._fail("missing_finish", "the stream is done without a finish event", f"$[{index}]")
        meta = self._meta
        assert meta is not None
        if meta.id is UNSET or meta.model is UNSET:
            missing = " and ".join(n for n, v in (("id", meta.id), ("model", meta.model)) if v is UNSET)
            raise self._fail("missing_meta", f"conversation_start gave no {missing}, which a LucentResponse requires", "$[0].meta")
        # No item: one empty assistant choice still carries the finish reason.
        messages = self._choices or {0: LucentMessage(role="assistant", content=[])}
        choices = [LucentChoice(index=i, message=messages[i], finish_reason=self._finish) for i in sorted(messages)]
        usage: Any = self._usage if self._usage is not None else UNSET
        return LucentResponse(schema_version="v1", id=meta.id, model=meta.model, choices=choices, usage=usage)

    def _close(self, count: int) -> LucentResponse:
        if self._error is not None:
            index, error = self._error
            raise self._fail("model_error", f"the stream reported an error of kind {error.kind}", f"$[{index}]", error=error)
        if self._done is None:
            raise self._fail("missing_terminal", f"the stream ended after {count} events without done", f"$[{count}]")
        assert self._result is not None
        return self._result
