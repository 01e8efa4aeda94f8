"""The conversation arithmetic of :mod:`lucent.snapshots`: a reply appended to its request, a
stored history joined to a new request, and the check that the new request does not repeat it.

A Lux request keeps values of single objects in side-cars keyed by the object's Lux path
(docs/semantics.md, "Side-cars"): ``extra.media`` and ``extra.<format>.members``. When items
move (a reply becomes the last conversation item; a new request's items follow the stored ones)
those keys move with them, so that an image's bytes or a Gemini thought signature stay with
their block.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import msgspec
from msgspec import UNSET

from lucent.errors import ValidationError
from lucent.formats import FORMATS as _REGISTRY
from lucent.generated.lux_ir_v1 import (
    LucentContentText,
    LucentContentToolResult,
    LucentContentToolUse,
    LucentConversationItem,
    LucentConversationItemAgentAction,
    LucentConversationItemMessage,
    LucentConversationItemReasoning,
    LucentConversationItemToolCall,
    LucentConversationItemToolResult,
    LucentRequest,
    LucentResponse,
)

__all__ = ["continued", "replied", "reply_text"]

_INPUT_SPELLINGS = ("input_string", "input_absent", "previous_response_id")
"""Members of ``extra.openai_responses`` that describe the client's own input (a string input,
no input, a null previous_response_id): the restored conversation is no longer that input."""

_INPUT_FIELD = {name: f.conversation for name, f in _REGISTRY.items() if f.conversation is not None}
"""Where a format's request holds the conversation items, one per Lux item in order."""


def replied(request: LucentRequest, response: LucentResponse) -> tuple[LucentRequest, int]:
    """``request`` with the reply appended to its conversation: the message of the response's
    first choice (``index`` 0 when present) as one message item; its side-car entries
    (``provider_payload.media``, ``provider_payload.<format>.members``) move to the request's
    ``extra`` at the item's path. Returns the request and the position of the reply's choice."""
    position = next((n for n, choice in enumerate(response.choices) if choice.index == 0), 0)
    choice = response.choices[position]
    at = len(request.conversation)
    moved = _moved(response.provider_payload, rf"\$\.choices\[{position}\]\.message", f"$.conversation[{at}].message")
    extra = _joined(request.extra if request.extra is not UNSET else {}, moved)
    conversation = [*request.conversation, LucentConversationItemMessage(message=choice.message)]
    return msgspec.structs.replace(request, conversation=conversation, extra=extra or UNSET), position


def reply_text(response: LucentResponse, position: int) -> str | None:
    """The text blocks of the reply, joined (the snapshot's ``response_text``); None without one."""
    texts = [block.text for block in response.choices[position].message.content if isinstance(block, LucentContentText)]
    return "".join(texts) if texts else None


def continued(history: LucentRequest, new: LucentRequest, source: str) -> LucentRequest:
    """The request to send upstream: ``new`` (its model, instructions, tools, options, reasoning,
    metadata and provider values: the Responses API carries none of the earlier ones over) with
    the stored conversation before its own items, and ``options.previous_response_id`` resolved
    (left out). Side-car entries of the history's items are kept; the history's other side-car
    values (the earlier request's own options) are not.

    Raises ValidationError ``history_repeated`` (path: the first repeated item of the new
    request) when ``new`` repeats the history (see :func:`_repeated`)."""
    repeated = _repeated(history.conversation, new.conversation)
    if repeated is not None:
        raise ValidationError(
            "the input repeats items of the previous response's conversation (a tool call, a tool result "
            "or the turns it ends with); with previous_response_id send only the new items",
            code="history_repeated",
            path=f"$.{_INPUT_FIELD.get(source, 'conversation')}[{repeated}]",
        )
    offset = len(history.conversation)
    kept = _moved(history.extra if history.extra is not UNSET else {}, r"\$\.conversation\[\d+\]", None)
    own = _shifted(new.extra if new.extra is not UNSET else {}, offset)
    extra = _joined(own, kept)
    options = msgspec.structs.replace(new.options, previous_response_id=UNSET)
    return msgspec.structs.replace(new, conversation=[*history.conversation, *new.conversation], options=options, extra=extra or UNSET)


def _path_keyed(side_car: Any) -> Iterator[tuple[tuple[str, ...], dict[str, Any]]]:
    """The side-car objects keyed by Lux paths: ``media`` and ``<format>.members``, each with
    where it sits."""
    if not isinstance(side_car, dict):
        return
    media = side_car.get("media")
    if isinstance(media, dict):
        yield ("media",), media
    for name, car in side_car.items():
        members = car.get("members") if isinstance(car, dict) else None
        if isinstance(members, dict):
            yield (name, "members"), members


def _moved(side_car: Any, prefix: str, into: str | None) -> dict[str, Any]:
    """The path-keyed entries of ``side_car`` whose path starts with the ``prefix`` pattern (at a
    member or item boundary), re-keyed with ``into`` in place of that prefix (None: kept as is),
    as a side-car of their own."""
    pattern = re.compile(prefix + r"(?=$|[.\[])")
    found: dict[str, Any] = {}
    for where, entries in _path_keyed(side_car):
        chosen = {pattern.sub(into, path, count=1) if into is not None else path: value
                  for path, value in entries.items() if isinstance(path, str) and pattern.match(path)}
        if chosen:
            _put(found, where, chosen)
    return found


_CONVERSATION_PATH = re.compile(r"^\$\.conversation\[(\d+)\](?=$|[.\[])")


def _shifted(side_car: dict[str, Any], offset: int) -> dict[str, Any]:
    """``side_car`` (a new request's ``extra``) with every path-keyed entry of a conversation item
    moved ``offset`` items on, and the Responses members that describe the client's own input
    left out. The values themselves are shared, not copied."""
    result = dict(side_car)
    responses = result.get("openai_responses")
    if isinstance(responses, dict) and any(name in responses for name in _INPUT_SPELLINGS):
        result["openai_responses"] = {name: value for name, value in responses.items() if name not in _INPUT_SPELLINGS}
    for where, entries in list(_path_keyed(result)):
        _put(result, where, {_CONVERSATION_PATH.sub(lambda m: f"$.conversation[{int(m.group(1)) + offset}]", path, count=1)
                             if isinstance(path, str) else path: value for path, value in entries.items()})
    return {name: value for name, value in result.items() if value != {}}


def _put(side_car: dict[str, Any], where: tuple[str, ...], entries: dict[str, Any]) -> None:
    """Set ``side_car[where...] = entries``, copying each object on the way (never changing one
    the caller holds)."""
    node = side_car
    for name in where[:-1]:
        node[name] = dict(node[name]) if isinstance(node.get(name), dict) else {}
        node = node[name]
    node[where[-1]] = entries


def _joined(side_car: dict[str, Any], more: dict[str, Any]) -> dict[str, Any]:
    """``side_car`` with the path-keyed entries of ``more`` added (``more`` wins on a key)."""
    result = dict(side_car)
    for where, entries in _path_keyed(more):
        node: Any = result
        for name in where:
            node = node.get(name) if isinstance(node, dict) else None
        _put(result, where, {**(node if isinstance(node, dict) else {}), **entries})
    return result


def _repeated(history: list[LucentConversationItem], new: list[LucentConversationItem]) -> int | None:
    """The position of the first item of ``new`` that repeats the history, or None.

    An item repeats it when it is a tool call whose id the history holds, a result of a call the
    history has answered already, or when ``new`` begins with the turns the history ends with,
    the stored reply included (compared block by block, so that a reply stored as one message
    equals the same reply sent back as separate Responses items)."""
    told, asked = _atoms(history), _atoms(new)
    reply = len(_atoms(history[-1:])) if history else 0
    for length in range(min(len(told), len(asked)), max(reply, 1) - 1, -1):
        if told[len(told) - length][1] == asked[0][1] and [a for _, a in told[len(told) - length:]] == [a for _, a in asked[:length]]:
            return asked[0][0]  # the first item of the new request
    calls = {call for item in history for call in _calls(item)}
    answered = {result for item in history for result in _results(item)}
    for position, item in enumerate(new):
        if any(call in calls for call in _calls(item)) or any(result in answered for result in _results(item)):
            return position
    return None


def _calls(item: LucentConversationItem) -> Iterator[str]:
    if isinstance(item, LucentConversationItemToolCall):
        yield item.tool_call.id
    elif isinstance(item, LucentConversationItemMessage):
        yield from (block.tool_use.id for block in item.message.content if isinstance(block, LucentContentToolUse))


def _results(item: LucentConversationItem) -> Iterator[str]:
    if isinstance(item, LucentConversationItemToolResult):
        yield item.tool_result.tool_use_id
    elif isinstance(item, LucentConversationItemMessage):
        yield from (block.tool_result.tool_use_id for block in item.message.content if isinstance(block, LucentContentToolResult))


_SPEAKER = {"model": "assistant"}


def _atoms(items: list[LucentConversationItem]) -> list[tuple[int, tuple[str, Any]]]:
    """Each block of the conversation as (item position, (speaker, block as JSON)): a tool call,
    reasoning or agent action item is an assistant block, a tool result a tool block."""
    found: list[tuple[int, tuple[str, Any]]] = []
    for position, item in enumerate(items):
        if isinstance(item, LucentConversationItemMessage):
            role = _SPEAKER.get(item.message.role, item.message.role)
            for block in item.message.content:
                speaker = "tool" if isinstance(block, LucentContentToolResult) else role
                found.append((position, (speaker, msgspec.to_builtins(block))))
        elif isinstance(item, LucentConversationItemToolCall):
            found.append((position, ("assistant", {"type": "tool_use", "tool_use": msgspec.to_builtins(item.tool_call)})))
        elif isinstance(item, LucentConversationItemReasoning):
            found.append((position, ("assistant", {"type": "thinking", "thinking": msgspec.to_builtins(item.reasoning)})))
        elif isinstance(item, LucentConversationItemToolResult):
            found.append((position, ("tool", {"type": "tool_result", "tool_result": msgspec.to_builtins(item.tool_result)})))
        elif isinstance(item, LucentConversationItemAgentAction):
            found.append((position, ("assistant", {"type": "agent_action", "agent_action": msgspec.to_builtins(item.agent_action)})))
    return found
