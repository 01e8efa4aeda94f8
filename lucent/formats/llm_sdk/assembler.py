"""llm-sdk ``PartialModelResponse`` values -> ``ModelResponse``.

Each partial carries one ``ContentDelta``; deltas with the same ``index`` build one part, and the
parts come out in index order. Text concatenates; a tool call's ``toolCallId`` and ``toolName``
are stable identities (an identical repeat is a no-op, a change is an error), its ``args``
concatenate and are parsed once the stream ends (no args -> ``{}``); audio concatenates its
bytes (each ``audioData`` is base64, a split may fall anywhere) and its transcript, and keeps
its format fields, which must not change. A part's ``type`` must not change at an index.
``PartialModelResponse`` has no usage and no terminal value, so the stream ends with its source.
"""

from __future__ import annotations

import base64
import binascii
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any, TypeVar

from msgspec import UNSET

from lucent._stream_base import Assembler, parse_arguments
from lucent.formats.llm_sdk.tables import AUDIO_FIELDS, PART_KIND
from lucent.generated.llm_sdk import (
    AudioPart,
    ModelResponse,
    PartialModelResponse,
    TextPart,
    TextPartDelta,
    ToolCallPart,
    ToolCallPartDelta,
)



@dataclass
class SdkPart:
    """One part being merged from its partials (the assembler's, and the stream reader's)."""

    kind: str
    first: int  # the partial that opened the part
    last: int = -1  # the last partial that added args (tool calls) or audio data
    fields: dict[str, Any] = field(default_factory=dict)  # set-once fields: id, toolCallId, ...
    carry: str = ""  # base64 characters not yet making a 4-character group


@dataclass
class _Part(SdkPart):
    pieces: list[str] = field(default_factory=list)  # text, args or transcript
    audio: bytearray = field(default_factory=bytearray)


P = TypeVar("P", bound=SdkPart)


class PartRules:
    """The rules of an llm-sdk stream's partials, one place for the assembler and the stream
    reader: a part keeps its type (``part_type_changed``), its fields are set once
    (``part_field_changed``; a tool call's toolCallId and toolName: ``tool_identity_changed``,
    the name one the request declared), audio data is base64 (``malformed_audio``), and a tool
    call ends with its id, its name and args that are a JSON object (``incomplete_tool_call``,
    ``malformed_arguments``). `fail(code, message, path)` makes the error raised."""

    __slots__ = ("_declared", "_fail")

    def __init__(self, fail: Callable[[str, str, str], Exception], declared: Callable[[str, str, str], None]) -> None:
        self._fail = fail
        self._declared = declared

    def part(self, parts: dict[int, P], partial: PartialModelResponse, index: int, opened: Callable[[str, int], P]) -> tuple[P, int, Any]:
        """The part partial `index` adds to (`opened(kind, index)` makes a new one), its index and delta."""
        n = partial.delta.index
        delta = partial.delta.part
        kind = PART_KIND[type(delta)]
        part = parts.get(n)
        if part is None:
            part = parts[n] = opened(kind, index)
        elif part.kind != kind:
            raise self._fail("part_type_changed", f"the part at index {n} was {part.kind} and partial {index} sends {kind}", f"$[{index}].delta.part.type")
        return part, n, delta

    def set_once(self, part: SdkPart, name: str, value: Any, n: int, at: str, *, code: str = "part_field_changed") -> bool:
        """Record a set-once field of the part at `at`; True when this partial set it first."""
        if value is UNSET:
            return False
        known = part.fields.get(name, UNSET)
        if known is UNSET:
            part.fields[name] = value
            return True
        if known != value:
            what = "id and name are stable identities" if code == "tool_identity_changed" else "it is set once"
            raise self._fail(code, f"the {part.kind} part at index {n} changed its {name}; {what}", f"{at}.{name}")
        return False

    def tool(self, part: SdkPart, delta: ToolCallPartDelta, n: int, at: str) -> None:
        """The identity of a tool call part: toolCallId, then toolName (declared by the request)."""
        self.set_once(part, "toolCallId", delta.toolCallId, n, at, code="tool_identity_changed")
        if delta.toolName is not UNSET and "toolName" not in part.fields:
            self._declared(delta.toolName, f"{at}.toolName", f"the tool call at index {n}")
        self.set_once(part, "toolName", delta.toolName, n, at, code="tool_identity_changed")

    def audio(self, part: SdkPart, data: str, n: int, at: str) -> bytes:
        """The bytes of the whole base64 groups that `data` completes (the rest is carried)."""
        text = part.carry + data
        whole = len(text) - len(text) % 4
        try:
            decoded = base64.b64decode(text[:whole], validate=True)
        except (binascii.Error, ValueError):
            raise self._fail("malformed_audio", f"the audio data of the part at index {n} is not base64", at) from None
        part.carry = text[whole:]
        return decoded

    def audio_ended(self, part: SdkPart, n: int) -> None:
        """The stream ended: the audio data of the part does not stop inside a base64 group."""
        if part.carry:
            raise self._fail("malformed_audio", f"the audio data of the part at index {n} ends inside a base64 group", f"$[{part.last}].delta.part.audioData")

    def tool_call(self, part: SdkPart, n: int, text: str) -> tuple[str, str, dict[str, Any] | None]:
        """The stream ended: the tool call part's toolCallId, toolName and args (`text`, its args
        concatenated; blank args are ``{}``, never a parse of "")."""
        call_id, name = part.fields.get("toolCallId"), part.fields.get("toolName")
        if call_id is None or name is None:
            missing = " and ".join(x for x, v in (("toolCallId", call_id), ("toolName", name)) if v is None)
            raise self._fail("incomplete_tool_call", f"the tool call at index {n} never received its {missing}", f"$[{part.first}].delta.part")
        if not text.strip():
            return call_id, name, {}
        try:
            return call_id, name, parse_arguments(text)
        except ValueError as exc:
            raise self._fail("malformed_arguments", f"the args of the tool call at index {n}, concatenated, {exc}", f"$[{part.last}].delta.part.args") from None


class LlmSdkAssembler(Assembler):
    """PartialModelResponse events -> ModelResponse (see :mod:`lucent.streams`)."""

    format = "llm-sdk"

    def __init__(self, *, tools: Iterable[str] | None = None) -> None:
        super().__init__(tools=tools)
        self._parts: dict[int, _Part] = {}
        self._rules = PartRules(self._fail, self._check_declared)

    def _push(self, partial: object, index: int) -> None:
        if not isinstance(partial, PartialModelResponse):
            raise self._unknown(partial, index)
        part, n, delta = self._rules.part(self._parts, partial, index, lambda kind, first: _Part(kind=kind, first=first))
        at = f"$[{index}].delta.part"
        self._rules.set_once(part, "id", delta.id, n, at)
        if isinstance(delta, TextPartDelta):
            part.pieces.append(delta.text)
        elif isinstance(delta, ToolCallPartDelta):
            self._rules.tool(part, delta, n, at)
            if delta.args is not UNSET:
                part.pieces.append(delta.args)
                part.last = index
        else:
            for name in AUDIO_FIELDS:
                self._rules.set_once(part, name, getattr(delta, name), n, at)
            if delta.transcript is not UNSET:
                part.pieces.append(delta.transcript)
            if delta.audioData is not UNSET:
                part.audio += self._rules.audio(part, delta.audioData, n, f"{at}.audioData")
                part.last = index

    def _close(self, count: int) -> ModelResponse:
        content: list[TextPart | ToolCallPart | AudioPart] = []
        for n in sorted(self._parts):
            part = self._parts[n]
            part_id = part.fields.get("id", UNSET)
            if part.kind == "text":
                content.append(TextPart(text="".join(part.pieces), id=part_id))
            elif part.kind == "tool-call":
                content.append(self._tool_call(part, n, part_id))
            else:
                self._rules.audio_ended(part, n)
                fields = {name: part.fields.get(name, UNSET) for name in AUDIO_FIELDS}
                transcript = "".join(part.pieces) if part.pieces else UNSET
                content.append(AudioPart(audioData=base64.b64encode(bytes(part.audio)).decode("ascii"), transcript=transcript, id=part_id, **fields))
        return ModelResponse(content=content)

    def _tool_call(self, part: _Part, n: int, part_id: Any) -> ToolCallPart:
        call_id, name, args = self._rules.tool_call(part, n, "".join(part.pieces))
        return ToolCallPart(toolCallId=call_id, toolName=name, args=args, id=part_id)
