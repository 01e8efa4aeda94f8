"""Lux stream events in and out of stream conversion: the hub's own reader and writer.

The reader checks the rules of :class:`~lucent.formats.lux.assembler.LuxAssembler` and passes
each event on unchanged; the writer is the identity. A Lux target gets ``conversation_start``,
one ``item_start``/``item_end`` per message, blocks at their index within the item, then
``finish``, ``usage``, ``error`` (a failure), and one ``done``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from lucent._stream_hub import Hub, _fail, _Reader, _Sink, _Writer
from lucent.formats.lux.assembler import _DELTAS as _LUX_DELTAS
from lucent.generated.lux_ir_v1 import (
    LucentBlockTypeToolCall,
    LucentConversationItemMessage,
    LucentResponse,
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


@dataclass
class _LuxItem:
    index: int
    open: dict[int, str] = field(default_factory=dict)  # block index -> kind
    ended: dict[int, str] = field(default_factory=dict)


class LuxReader(_Reader):
    """Lux events, checked with the rules of :class:`LuxAssembler`, passed on unchanged.

    ``missing_meta`` is not checked: only assembling a LucentResponse needs id and model.
    """

    def __init__(self, sink: _Sink, context: Mapping[str, Any], tools: frozenset[str] | None, lux_target: bool) -> None:
        super().__init__(sink, context, tools, lux_target)
        self._meta = False
        self._item: _LuxItem | None = None
        self._choices: set[int] = set()
        self._finish = False
        self._usage: LucentUsage | None = None
        self._error: int | None = None
        self._done: int | None = None

    @property
    def usage(self) -> LucentUsage | None:
        return self._usage

    def push(self, event: Any, index: int) -> Hub:
        at = f"$[{index}]"
        usage = self._usage
        if self._done is not None:
            if isinstance(event, LucentStreamEventDone):
                raise _fail("duplicate_terminal", f"event {index} is a second done; event {self._done} ended the stream", at, usage)
            raise _fail("data_after_terminal", f"event {index} comes after done (event {self._done})", at, usage)
        if isinstance(event, LucentStreamEventConversationStart):
            if self._meta:
                raise _fail("duplicate_conversation_start", f"event {index} starts the conversation a second time", at, usage)
            self._meta = True
            return [(event, at)]
        if not self._meta:
            raise _fail("missing_conversation_start", f"event {index} comes before conversation_start", at, usage)
        if isinstance(event, LucentStreamEventItemStart):
            if self._item is not None:
                raise _fail("item_not_closed", f"event {index} starts an item while item {self._item.index} is open", at, usage)
            if event.index in self._choices:
                raise _fail("duplicate_item_index", f"event {index} starts item {event.index} a second time", f"{at}.index", usage)
            if not isinstance(event.item, LucentConversationItemMessage):
                raise _fail("unsupported_item", f"event {index} starts an item that is not a message; a LucentResponse choice holds a message", f"{at}.item.type", usage)
            self._item = _LuxItem(event.index)
            self._choices.add(event.index)
        elif isinstance(event, LucentStreamEventItemEnd):
            item = self._item
            if item is None or item.index != event.index:
                raise _fail("item_not_open", f"event {index} ends item {event.index}, which is not open", f"{at}.index", usage)
            if item.open:
                raise _fail("block_not_closed", f"event {index} ends item {item.index} while block {min(item.open)} is open", at, usage)
            self._item = None
        elif isinstance(event, LucentStreamEventBlockStart):
            item = self._open_item(index)
            if event.index in item.open or event.index in item.ended:
                raise _fail("duplicate_block_index", f"event {index} starts block {event.index} of item {item.index} a second time", f"{at}.index", usage)
            kind = event.block_type
            if isinstance(kind, LucentBlockTypeToolCall):
                self._declared(kind.name, f"{at}.block_type.name", f"block {event.index}")
                item.open[event.index] = "tool_call"
            elif kind in _LUX_DELTAS:
                item.open[event.index] = kind
            else:
                raise _fail("unsupported_block", f"event {index} starts a media block; no block_delta carries media, so its content cannot arrive", f"{at}.block_type", usage)
        elif isinstance(event, LucentStreamEventBlockDelta):
            item = self._open_item(index)
            held = self._open_block(item, event.index, index)
            if not isinstance(event.delta, _LUX_DELTAS[held]):
                raise _fail("delta_type_mismatch", f"event {index} sends a delta that a {held} block does not take", f"{at}.delta.type", usage)
        elif isinstance(event, LucentStreamEventBlockEnd):
            item = self._open_item(index)
            item.ended[event.index] = self._open_block(item, event.index, index)
            del item.open[event.index]
        elif isinstance(event, LucentStreamEventBlockDiscard):
            item = self._open_item(index)
            if item.open.pop(event.index, None) is None and item.ended.pop(event.index, None) is None:
                raise _fail("block_not_open", f"event {index} discards block {event.index}, which item {item.index} does not hold", f"{at}.index", usage)
        elif isinstance(event, LucentStreamEventAnnotations):
            item = self._open_item(index)
            annotated = item.open.get(event.index) or item.ended.get(event.index)
            if annotated is None:
                raise _fail("block_not_open", f"event {index} annotates block {event.index}, which item {item.index} does not hold", f"{at}.index", usage)
            if annotated != "text":
                raise _fail("delta_type_mismatch", f"event {index} annotates a {annotated} block; annotations belong to text", at, usage)
        elif isinstance(event, LucentStreamEventFinish):
            if self._finish:
                raise _fail("duplicate_finish", f"event {index} is a second finish", at, usage)
            self._finish = True
        elif isinstance(event, LucentStreamEventUsage):
            self._usage = event.usage
        elif isinstance(event, LucentStreamEventError):
            if self._error is not None:
                raise _fail("duplicate_error", f"event {index} is a second error; event {self._error} reported one", at, usage)
            self._error = index
        elif isinstance(event, LucentStreamEventDone):
            if self._item is not None:
                raise _fail("item_not_closed", f"done arrives while item {self._item.index} is open", at, usage)
            if self._error is None and not self._finish:
                raise _fail("missing_finish", "the stream is done without a finish event", at, usage)
            self._done = index
        else:
            raise _fail("unknown_frame", f"event {index} is not a lux stream event ({type(event).__name__})", at, usage)
        return [(event, at)]

    def _open_item(self, index: int) -> _LuxItem:
        if self._item is None:
            raise _fail("item_not_open", f"event {index} needs an open item, and none is open", f"$[{index}]", self._usage)
        return self._item

    def _open_block(self, item: _LuxItem, block: int, index: int) -> str:
        found = item.open.get(block)
        if found is None:
            raise _fail("block_not_open", f"event {index} names block {block}, which is not open in item {item.index}", f"$[{index}].index", self._usage)
        return found

    def close(self, count: int) -> Hub:
        # An error event ended the stream in the target already (the assembler, too, reports
        # the error before a missing done).
        if self._done is None and self._error is None:
            raise _fail("missing_terminal", f"the stream ended after {count} events without done", f"$[{count}]", self._usage)
        return []


class LuxWriter(_Writer):
    """The hub itself: Lux events pass unchanged."""

    def push(self, event: Any, origin: str, out: list[Any]) -> None:
        out.append(event)
