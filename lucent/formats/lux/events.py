"""Lux stream events built from Lux documents, shared by every stream writer.

An ``item_start`` event may carry a message whose content is already there (schemas/lux-ir-v1.json
``LucentStreamEvent`` item_start, ``LucentConversationItem``). A writer writes that content as if
it had streamed: :func:`initial_events` gives the block events one block stands for, so that every
writer reads initial content the same way.
"""

from __future__ import annotations

from typing import Any

from msgspec import UNSET

from lucent.generated.lux_ir_v1 import (
    LucentBlockDeltaRefusal,
    LucentBlockDeltaSignature,
    LucentBlockDeltaText,
    LucentBlockDeltaThinking,
    LucentBlockDeltaToolArguments,
    LucentBlockTypeToolCall,
    LucentContent,
    LucentContentRefusal,
    LucentContentText,
    LucentContentThinking,
    LucentContentToolUse,
    LucentStreamEventAnnotations,
    LucentStreamEventBlockDelta,
    LucentStreamEventBlockEnd,
    LucentStreamEventBlockStart,
)

__all__ = ["initial_events"]


def initial_events(content: LucentContent, index: int) -> list[Any] | None:
    """The block events that stand for one block of an item's initial content, at block
    ``index``: ``block_start``, its deltas (text, refusal, thinking text then signature, or tool
    arguments), its ``annotations`` (text), ``block_end``. None for a block kind no stream block
    carries (``LucentBlockType``: text, thinking, refusal, tool calls): the writer reports it."""
    deltas: list[Any]
    if isinstance(content, LucentContentText):
        kind: Any = "text"
        deltas = [LucentBlockDeltaText(text=content.text)]
    elif isinstance(content, LucentContentRefusal):
        kind = "refusal"
        deltas = [LucentBlockDeltaRefusal(text=content.refusal)]
    elif isinstance(content, LucentContentThinking):
        kind = "thinking"
        deltas = [LucentBlockDeltaThinking(text=content.thinking.text)]
        if content.thinking.signature is not UNSET:
            deltas.append(LucentBlockDeltaSignature(signature=content.thinking.signature))
    elif isinstance(content, LucentContentToolUse):
        kind = LucentBlockTypeToolCall(id=content.tool_use.id, name=content.tool_use.name)
        deltas = [LucentBlockDeltaToolArguments(arguments=content.tool_use.arguments)]
    else:
        return None
    events: list[Any] = [LucentStreamEventBlockStart(index=index, block_type=kind)]
    events += [LucentStreamEventBlockDelta(index=index, delta=delta) for delta in deltas]
    if isinstance(content, LucentContentText) and content.annotations is not UNSET:
        events.append(LucentStreamEventAnnotations(index=index, annotations=content.annotations))
    events.append(LucentStreamEventBlockEnd(index=index))
    return events
