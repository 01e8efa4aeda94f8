"""Stream conversion for the vendor formats: the pieces their readers and writers share.

Each vendor format has a reader (its events -> Lux events, with the rules of its assembler) and a
writer (Lux events -> its events) in ``lucent/formats/<format>/stream.py``; this module gives them
the Lux side (block numbering within an item, usage in Lux terms) and the building of target
events against the target schema. Writers of vendor formats take the caller's ``context`` for the
envelope values a Lux stream does not carry (``created``, ...); what a Lux stream lacks and the
context does not give is reported, never invented silently.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any, TypeVar, cast

import msgspec

from lucent._best_error import _container, _fields, _struct_for
from lucent._stream_hub import Hub, Status, _Sink, _Writer
from lucent.errors import EncodeError
from lucent._validation import RuleViolation, convert_as, violation
from lucent.generated.lux_ir_v1 import (
    LucentConversationItemMessage,
    LucentMessage,
    LucentStreamEventBlockDelta,
    LucentStreamEventBlockEnd,
    LucentStreamEventBlockStart,
    LucentStreamEventItemEnd,
    LucentStreamEventItemStart,
    LucentUsage,
)


T = TypeVar("T")


class LuxBlocks:
    """The Lux blocks of one item: a source's own block keys -> Lux indexes, in start order."""

    def __init__(self, item: int) -> None:
        self.item = item
        self.next = 0
        self.open: dict[Any, int] = {}

    def start(self, key: Any, block_type: Any, at: str, out: Hub) -> int:
        n = self.open[key] = self.next
        self.next += 1
        out.append((LucentStreamEventBlockStart(index=n, block_type=block_type), at))
        return n

    def delta(self, key: Any, delta: Any, at: str, out: Hub) -> None:
        out.append((LucentStreamEventBlockDelta(index=self.open[key], delta=delta), at))

    def end(self, key: Any, at: str, out: Hub) -> None:
        n = self.open.pop(key, None)
        if n is not None:
            out.append((LucentStreamEventBlockEnd(index=n), at))

    def end_all(self, at: str, out: Hub) -> None:
        for key in sorted(self.open, key=self.open.__getitem__):
            self.end(key, at, out)


def item_start(index: int, role: str = "assistant") -> LucentStreamEventItemStart:
    """``item_start`` of a message item (a choice / candidate), with no initial content."""
    return LucentStreamEventItemStart(index=index, item=LucentConversationItemMessage(message=LucentMessage(role=role, content=[])))  # type: ignore[arg-type]


def item_end(index: int) -> LucentStreamEventItemEnd:
    return LucentStreamEventItemEnd(index=index)


def lux_usage(prompt: int, completion: int, total: int | None = None, *, reasoning: int | None = None, cached: int | None = None, cache_creation: int | None = None) -> LucentUsage:
    """A Lux usage (inclusive counts: docs/semantics.md section 6); ``total`` defaults to the sum."""
    extra: dict[str, int] = {}
    if reasoning is not None:
        extra["reasoning_tokens"] = reasoning
    if cached is not None:
        extra["cached_tokens"] = cached
    if cache_creation is not None:
        extra["cache_creation_tokens"] = cache_creation
    return LucentUsage(prompt_tokens=prompt, completion_tokens=completion, total_tokens=prompt + completion if total is None else total, **extra)


def context_value(context: Mapping[str, Any], key: str, kind: type | tuple[type, ...], sink: _Sink, status: Status, why: str) -> Any:
    """``context[key]`` when it has the right type; else a diagnostic ``target:$.key`` and None."""
    value = context.get(key)
    if isinstance(value, kind) and not isinstance(value, bool):
        return value
    if value is None:
        sink.report(f"target:$.{key}", status, f"{why}; supply context[{key!r}]")
    else:
        sink.report(f"target:$.{key}", "Invalid", f"context[{key!r}] has the wrong type; ignored")
    return None


_MISSING_FIELD = re.compile(r"Object missing required field `([^`]+)`(?: - at `\$((?:\.[A-Za-z_0-9]+|\[\d+\])*)`)?")
_NULL_REFUSED = re.compile(r"Expected `[^`]+`, got `null` - at `\$((?:\.[A-Za-z_0-9]+|\[\d+\])*)\.([A-Za-z_0-9]+)`")
_STEP = re.compile(r"\.([A-Za-z_0-9]+)|\[(\d+)\]")


def build(value: dict[str, Any], kind: type[T]) -> T:
    """A target event from its JSON members, as the API writes it (members without a value left
    out). Where the published schema requires a nullable member that the API leaves out
    (schemas/vendor: Anthropic's ``container``, ``stop_details``, ...), it is written as null,
    the value the schema gives it; where it refuses a null that the API sends (Responses
    ``usage: null`` while a response is in progress), the member is left out. Anything else the
    schema refuses raises EncodeError(code="unencodable"): the writer built a wrong event.
    """
    built = _built(value, kind)
    if isinstance(built, RuleViolation):
        name = kind.__name__ if isinstance(kind, type) else "target"
        raise EncodeError(f"the writer built a {name} event its schema refuses: {built.message} ({built.code})", code="unencodable", path=built.path)
    return built


def _built(value: dict[str, Any], kind: type[T]) -> T | RuleViolation:
    """:func:`build`'s event, or the schema's first fault that filling in cannot mend."""
    for _ in range(64):
        try:
            return cast(T, convert_as(value, kind))  # often a union of events: its type is worked out once
        except msgspec.ValidationError as exc:
            if not _fill(value, str(exc)):
                return violation(exc, "$")  # its message repeats no value
    return RuleViolation("required", "too many members are missing", "$")  # pragma: no cover


def _fill(value: dict[str, Any], message: str) -> bool:
    """Fill in the member a ValidationError message names (see :func:`build`); False if it cannot."""
    found = _MISSING_FIELD.fullmatch(message)
    null = None if found is not None else _NULL_REFUSED.fullmatch(message)
    if found is None and null is None:
        return False
    node: Any = value
    try:
        for name, item in _STEP.findall((found.group(2) or "") if found is not None else null.group(1)):  # type: ignore[union-attr]
            node = node[name] if name else node[int(item)]
    except (KeyError, IndexError, TypeError):
        return False
    if not isinstance(node, dict):
        return False
    if found is not None:
        if found.group(1) in node:
            return False
        node[found.group(1)] = None
        return True
    assert null is not None
    if node.get(null.group(2), 0) is not None:
        return False
    del node[null.group(2)]
    return True


def unchecked_event(value: Any, kind: Any) -> Any:
    """``value`` (JSON) as ``kind`` where the schema refuses one of its values (a tool name ``""``,
    an id outside its pattern, a count below 0): every Struct on the way to the refused value is
    built by its constructor, which checks no ``Meta`` constraint, and the value is kept as it is.
    None when even that fails (a rule its ``__post_init__`` checks, a type that does not fit)."""
    try:
        return convert_as(value, kind)
    except msgspec.ValidationError:
        pass
    if isinstance(value, dict):
        struct = _struct_for(kind, value)
        if struct is not None:
            members: dict[str, Any] = {}
            for info in _fields(struct):
                if info.encode_name in value:
                    member = unchecked_event(value[info.encode_name], info.type)
                    if member is None and value[info.encode_name] is not None:
                        return None
                    members[info.name] = member
            try:
                return struct(**members)
            except (TypeError, ValueError):  # a RuleViolation is a ValueError
                return None
    inner = _container(kind, value)
    if inner is not None:
        items = value.items() if isinstance(value, dict) else enumerate(value)
        built = {key: unchecked_event(item, inner[0]) for key, item in items}
        if any(built[key] is None and item is not None for key, item in items):
            return None
        return built if isinstance(value, dict) else list(built.values())
    return value if isinstance(value, (str, int, float, bool)) else None


class VendorWriter(_Writer):
    """A writer of a vendor format: Lux events -> that format's events; takes the context."""

    takes_context = True
    target = "the target"

    def __init__(self, sink: _Sink, exact: bool, context: Mapping[str, Any] | None = None) -> None:
        super().__init__(sink, exact)
        self.context: Mapping[str, Any] = context if context is not None else {}

    def written(self, value: dict[str, Any], kind: Any) -> Any:
        """The target event of ``value`` (see :func:`build`); one that the target schema refuses
        is an Invalid diagnostic at the source event (the rule and the member, never the value)
        and is written as it is (:func:`unchecked_event`), as :func:`lucent.convert` returns a
        document its target schema refuses; None (nothing written) when it cannot be built."""
        built = _built(value, kind)
        if not isinstance(built, RuleViolation):
            return built
        event = unchecked_event(value, kind)
        name = kind.__name__ if isinstance(kind, type) else "event"
        fate = "written as it is" if event is not None else "not written"
        self._sink.report(self.at(self.origin, ""), "Invalid", f"the {self.target} schema refuses the {name} written here, at {built.path}: {built.message} ({built.code}); {fate}")
        return event
