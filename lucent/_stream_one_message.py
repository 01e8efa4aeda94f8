"""The writer of a target whose response is one assistant message (SparkTide, llm-sdk).

:class:`_OneMessageWriter` handles the Lux items, meta, finish and usage events of such a target
and hands each block to its subclass (``lucent.formats.sparktide.stream``,
``lucent.formats.llm_sdk.stream``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from msgspec import UNSET

from lucent._stream_hub import Key, Status, _Sink, _Writer
from lucent._transforms import json_object_problem
from lucent.formats.lux.events import initial_events
from lucent.generated.lux_ir_v1 import (
    LucentBlockDeltaRefusal,
    LucentBlockDeltaSignature,
    LucentBlockDeltaText,
    LucentBlockDeltaThinking,
    LucentBlockDeltaToolArguments,
    LucentBlockTypeToolCall,
    LucentConversationItemMessage,
    LucentConversationMeta,
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
class _Block:
    kind: str  # text (also a refusal), tool, or drop
    origin: str  # the source path of its start
    index: int = -1  # the target's index: SparkTide tool index, llm-sdk part index
    sent: bool = False  # something of it reached the target
    begun: bool = False  # (SparkTide text) its place in the joined text is taken
    ended: bool = False
    buffer: list[str] = field(default_factory=list)  # (SparkTide text) text waiting its turn
    arguments: list[str] = field(default_factory=list)  # (tool) kept until the block ends
    annotated: bool = False


class _OneMessageWriter(_Writer):
    """A target whose response is one assistant message (SparkTide, llm-sdk).

    The first item is the message; every other item is Unsupported and dropped. Blocks are
    handled by the subclass: ``_start``, ``_piece``, ``_end``, ``_discard``.
    """

    target = ""
    a_target = ""  # "a SparkTide", "an llm-sdk"
    role_status: dict[str, Status] = {}
    no_meta = ""  # why the target has no id and model

    def __init__(self, sink: _Sink, exact: bool) -> None:
        super().__init__(sink, exact)
        self._state = "before"  # before the message, "in" it, "skip"ping a later item, "after" it
        self._blocks: dict[Key, _Block] = {}
        self._finish: tuple[str, str] | None = None
        self._usage: tuple[LucentUsage, str] | None = None
        self._usage_input: str | None = None
        self._last: dict[str, int] = {}  # the highest Lux index started, per ordering group
        self._message_at: str | None = None  # the source path of the message (its item_start)

    def push(self, event: Any, origin: str, out: list[Any]) -> None:
        if isinstance(event, (LucentStreamEventBlockStart, LucentStreamEventBlockDelta, LucentStreamEventBlockEnd, LucentStreamEventBlockDiscard, LucentStreamEventAnnotations)):
            if self._state == "in":
                self._block_event(event, origin, out)
        elif isinstance(event, LucentStreamEventConversationStart):
            self._meta(event.meta, origin)
        elif isinstance(event, LucentStreamEventItemStart):
            self._item_start(event, origin, out)
        elif isinstance(event, LucentStreamEventItemEnd):
            self._state = "after"  # the message ended, or an item after it
            self._blocks = {}
        elif isinstance(event, LucentStreamEventFinish):
            self._finish = (event.finish_reason, self.at(origin, ".finish_reason"))
        elif isinstance(event, LucentStreamEventUsage):
            self._got_usage(event.usage, origin)
        elif isinstance(event, LucentStreamEventError):
            self._error(event, origin, out)
        elif isinstance(event, LucentStreamEventDone):
            self._done(origin, out)

    # ------------------------------------------------------------ the message

    def _meta(self, meta: LucentConversationMeta, origin: str) -> None:
        for key in ("id", "model"):
            if getattr(meta, key) is not UNSET:
                self._sink.report(self.at(origin, f".meta.{key}"), "Degraded", f"{self.a_target} stream has no {key}: {self.no_meta} (give it back as context[{key!r}])")
        if meta.usage_input is not UNSET:
            self._usage_input = self.at(origin, ".meta.usage_input")

    def _item_start(self, event: LucentStreamEventItemStart, origin: str, out: list[Any]) -> None:
        if self._state != "before":
            self._sink.report(self.at(origin, ""), "Unsupported", f"{self.a_target} response is one message; this item (choice {event.index}) is dropped")
            self._state = "skip"
            return
        self._state = "in"
        if self._exact:  # a Lux source: its message is the item's (other readers' items stand for a choice)
            self._message_at = origin + ".item.message"
        assert isinstance(event.item, LucentConversationItemMessage)  # the Lux reader checked it
        message = event.item.message
        if event.index != 0:
            self._sink.report(self.at(origin, ".index"), "Unsupported", f"{self.a_target} response has no choice index")
        status = self.role_status.get(message.role)
        if status is not None:
            self._sink.report(self.at(origin, ".item.message.role"), status, f"{self.a_target} response message is always assistant")
        for i, content in enumerate(message.content):
            self._initial(f"initial{i}", content, self.at(origin, f".item.message.content[{i}]"), out)

    def _initial(self, key: str, content: Any, origin: str, out: list[Any]) -> None:
        """An item's initial content block, as if it streamed (``initial_events``)."""
        events = initial_events(content, 0)
        if events is None:
            self._sink.report(origin, "Unsupported", f"{self.a_target} stream cannot carry this content; dropped")
            return
        for event in events:
            self._block_event(event, origin, out, key)

    def _block_event(self, event: Any, origin: str, out: list[Any], key: Key | None = None) -> None:
        k: Key = event.index if key is None else key
        if isinstance(event, LucentStreamEventBlockStart):
            self._block_start(event, k, origin, out)
            return
        block = self._blocks.get(k)
        if block is None:
            return  # discarded before: the Lux reader checked that it exists
        if isinstance(event, LucentStreamEventBlockDelta):
            delta = event.delta
            if block.kind == "drop" or isinstance(delta, LucentBlockDeltaSignature):
                return
            if isinstance(delta, LucentBlockDeltaToolArguments):
                self._piece(block, k, delta.arguments, origin, out)
            elif isinstance(delta, (LucentBlockDeltaText, LucentBlockDeltaRefusal, LucentBlockDeltaThinking)):
                self._piece(block, k, delta.text, origin, out)
        elif isinstance(event, LucentStreamEventBlockEnd):
            block.ended = True
            if block.kind != "drop":
                self._end(block, k, out)
        elif isinstance(event, LucentStreamEventBlockDiscard):
            del self._blocks[k]
            if block.kind != "drop":
                self._discard(block, k, self.at(origin, ""), out)
        elif isinstance(event, LucentStreamEventAnnotations):
            self._annotations(block, self.at(origin, ".annotations"))

    def _annotations(self, block: _Block, where: str) -> None:
        if not block.annotated:
            block.annotated = True
            self._sink.report(where, "Unsupported", f"{self.target} text has no annotations; dropped")

    def _block_start(self, event: LucentStreamEventBlockStart, key: Key, origin: str, out: list[Any]) -> None:
        kind = event.block_type
        where = self.at(origin, ".block_type")
        block = self._blocks[key] = _Block(kind="drop", origin=self.at(origin, ""))
        if kind == "thinking":
            self._sink.report(where, "Unsupported", f"{self.target} responses have no thinking; dropped")
        elif kind in ("text", "refusal"):
            if kind == "refusal":
                self._sink.report(where, "Degraded", f"{self.target} has no refusal; the refusal is written as text")
            block.kind = "text"
            self._start_text(block, key, out)
        elif isinstance(kind, LucentBlockTypeToolCall):
            block.kind = "tool"
            self._start_tool(block, key, kind, where, out)

    def _in_order(self, group: str, key: Key, where: str) -> None:
        """Target indexes count in the order blocks start; say so when that is not Lux order."""
        if isinstance(key, str):
            return
        last = self._last.get(group)
        if last is not None and key < last:
            self._sink.report(where, "Degraded", f"block {key} starts after block {last}: {self.target} numbers content in the order it starts, so it comes after block {last}")
        self._last[group] = key if last is None else max(last, key)

    def _tool_problem(self, block: _Block) -> str | None:
        """Why a tool call's arguments (all of them, at its end) are not what the target takes."""
        text = "".join(block.arguments)
        block.arguments = []
        if not text:
            return None
        return json_object_problem(text)

    # ------------------------------------------------------------ the end

    def _got_usage(self, usage: LucentUsage, origin: str) -> None:
        self._usage = (usage, origin)

    def _finish_status(self, derived: str) -> None:
        if self._finish is not None:
            reason, where = self._finish
            if reason == derived:
                self._sink.report(where, "Degraded", f"{self.target} responses carry no finish reason; {derived} follows from the content")
            else:
                self._sink.report(where, "Unsupported", f"{self.target} responses carry no finish reason, and only {derived} follows from the content")

    def _start_text(self, block: _Block, key: Key, out: list[Any]) -> None:
        raise NotImplementedError

    def _start_tool(self, block: _Block, key: Key, kind: LucentBlockTypeToolCall, where: str, out: list[Any]) -> None:
        raise NotImplementedError

    def _piece(self, block: _Block, key: Key, text: str, origin: str, out: list[Any]) -> None:
        raise NotImplementedError

    def _end(self, block: _Block, key: Key, out: list[Any]) -> None:
        raise NotImplementedError

    def _discard(self, block: _Block, key: Key, where: str, out: list[Any]) -> None:
        raise NotImplementedError

    def _error(self, event: LucentStreamEventError, origin: str, out: list[Any]) -> None:
        raise NotImplementedError

    def _done(self, origin: str, out: list[Any]) -> None:
        raise NotImplementedError

