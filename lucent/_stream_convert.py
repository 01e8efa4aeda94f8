"""Stream conversion: SparkTide frames, Lux events and llm-sdk partials, event by event.

Every pair goes source -> Lux events -> target (Lux is the hub): a *reader* checks the rules of
the source stream across frames (the codes of its assembler) and turns each source event into
Lux events; a *writer* turns each Lux event into the target's events. Nothing accumulates but the
state of the blocks that are still open (a tool call's arguments, kept to check them when the
call ends; text that waits behind an earlier text block), so memory stays constant for a stream
of any length.

Each target gets what its format expects:

* **SparkTide**: text arrives as ``text.delta`` (text blocks joined with ``"\\n"``, as the
  document converter joins them); each tool call as ``tool.delta`` frames at its own index,
  counting tool calls only (0, 1, ... in the order they start); then one ``usage`` frame, then
  exactly one terminal frame, ``model.completed`` or ``model.error``, last. No ``[DONE]``.
* **Lux**: ``conversation_start``, one ``item_start``/``item_end`` per message, blocks at their
  index within the item, then ``finish``, ``usage``, ``error`` (a failure), and one ``done``.
  From SparkTide, the text block is block 0 and tool call ``n`` is block ``n + 1`` (content
  order is text first, as in the documents); from llm-sdk, part ``n`` is block ``n``.
* **llm-sdk**: ``PartialModelResponse`` values whose ``delta.index`` counts the parts of the one
  response (0, 1, ... in the order they start). The format has no usage, finish reason, error or
  terminal value: the stream simply ends, and a model error raises
  ``StreamError(code="model_error")`` after the partials before it.

``source == target`` passes the events unchanged, with the source's rules checked. Against
converting the assembled response, a stream conversion differs only where a stream says more
or less than a document, and each difference is reported: a SparkTide stream's finish reason is
carried (a RemoteModelResponse has none, so the document converter derives one); an llm-sdk
stream has no usage; a block that starts before a lower-indexed one is numbered as it starts
(Degraded); an empty Lux text next to tool calls reads as null content in SparkTide (Degraded);
tool arguments keep the model's text as it came (a document conversion writes llm-sdk args as
compact JSON); a SparkTide target past 4 MiB is Invalid.

Where a stream field mirrors a document field, the document converters' own transforms decide
it (``lucent.formats.sparktide.transforms``, the generated response and error converters): usage,
error codes, derived finish reasons, the closed-object check of tool arguments.

Diagnostics: a conversion object exposes ``.diagnostics`` (``ConversionDiagnostic`` Structs,
growing as the stream is read, complete once it is exhausted). ``field`` names the value in the
*source stream*: ``$[3]`` is the fourth source event, ``$[3].delta.text`` a field of it (for a
Lux source, a field of the Lux event), or ``target:$.id`` for a value the target needs and the
source lacks. Each loss is reported once, where it first appears (a dropped thinking block at
its ``block_start``, not at every delta). A member of a Lux source event that the schema does
not define is Unsupported at its own path (``$[0].meta.x``), whatever the target: the event
Structs do not keep it.

The *envelope* of a vendor stream (its members outside the content blocks and output items:
ids, model, usage, service tier, status, created, the request settings a Responses stream
repeats) gets the document converter's diagnostics, not restated ones: once the stream has
delivered it, the reader gives it as a document with its content emptied, :func:`lucent.convert`
converts it source -> target, and each diagnostic on an envelope member is reported at the event
member that carried it (:mod:`lucent._stream_envelope`); the reader's and the writer's own reports
on envelope members, and those of the writer on the source while it writes ``conversation_start``
or ``usage``, are left out (the writer's Invalid ones are kept: a value the stream writes and
the document does not, such as a ``created_at`` of 0 when the context does not give it). A Lux target has no ``created_at`` and no ``provider_payload`` in its stream: what
the Lux document keeps there is Unsupported.

With ``strict=True`` the first Unsupported or Invalid diagnostic raises
:class:`~lucent.errors.ConversionError` before any target event that carries the loss is
yielded; for the envelope, before the target events of the source event that completes it (a
Responses terminal event, Anthropic ``message_stop``, the end of a chat or Gemini stream), after
the target events written before it (the first of them carries the id and model).
"""

from __future__ import annotations

import base64
import binascii
from collections import deque
from collections.abc import AsyncIterator, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any, Generic, Literal, TypeVar, cast

import msgspec
from msgspec import UNSET

from lucent._limits import Limits, limits_of
from lucent._stream_base import context_of, flag, parse_arguments, tool_names
from lucent.formats.llm_sdk.tables import AUDIO_FIELDS, PART_KIND
from lucent.formats.lux.assembler import _DELTAS as _LUX_DELTAS
from lucent.formats.lux.events import initial_events
from lucent._stream_read import _check_source, aframes, frames, spec
from lucent.formats.sparktide.assembler import MAX_TOOL_CALLS
from lucent.errors import ConversionError, StreamError
from lucent._context import DeclaredContext, reader_keys, refuse_unknown, stream_keys
from lucent._conversion import Cx
from lucent._transforms import json_object_problem
from lucent._validation import RuleViolation, check_json_object_text, described, printable
from lucent.formats import FORMATS as _REGISTRY
from lucent.formats.sparktide.transforms import derived_finish_reason, usage_to_lux
from lucent.generated.convert_lux_sparktide_error import lux_to_sparktide_error
from lucent.generated.convert_lux_sparktide_response import lux_to_sparktide_response
from lucent.generated.convert_sparktide_lux_error import sparktide_to_lux_error
from lucent.generated.llm_sdk import (
    AudioPartDelta,
    ContentDelta,
    PartialModelResponse,
    TextPartDelta,
    ToolCallPartDelta,
)
from lucent.generated.lucent_diagnostics_v1 import ConversionDiagnostic
from lucent.generated.lux_ir_v1 import (
    LucentBlockDeltaRefusal,
    LucentBlockDeltaSignature,
    LucentBlockDeltaText,
    LucentBlockDeltaThinking,
    LucentBlockDeltaToolArguments,
    LucentBlockTypeToolCall,
    LucentConversationItemMessage,
    LucentConversationMeta,
    LucentFinishReason,
    LucentMessage,
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
from lucent.generated.sparktide_remote_1_0 import PROTOCOL as SPARKTIDE_PROTOCOL
from lucent.generated.sparktide_remote_1_0 import (
    RemoteModelCompleted,
    RemoteModelError,
    RemoteModelFailure,
    RemoteModelFailureError,
    RemoteModelTextDelta,
    RemoteModelToolDelta,
    RemoteModelUsage,
    RemoteModelUsageDelta,
)

Status = Literal["Exact", "Degraded", "Unsupported", "Invalid"]
SparkTideFinish = Literal["STOP", "TOOL_CALLS", "LENGTH"]
Hub = list[tuple[Any, str]]  # Lux events, each with the source path it stands for
Key = int | str  # a block: its Lux index, or "initial<i>" for an item's initial content

_LOSSY = ("Unsupported", "Invalid")

UNKNOWN_MEMBER = "a property the schema does not define (its object allows more); the event Structs do not keep it, so it is dropped"
"""The detail of the Unsupported diagnostic for a member of a source event (a Lux event: its
objects are open) that the schema does not define; ``lucent.convert`` reports such members of
a document the same way."""

FINISH_FROM_SPARKTIDE: dict[str, LucentFinishReason] = {"STOP": "stop", "TOOL_CALLS": "tool_calls", "LENGTH": "length"}
"""SparkTide ``model.completed.finishReason`` -> Lux finish reason. Only streams carry a SparkTide
finish reason (a RemoteModelResponse has none), so no document mapping holds this table."""

FINISH_TO_SPARKTIDE: dict[str, SparkTideFinish] = {"stop": "STOP", "tool_calls": "TOOL_CALLS", "length": "LENGTH"}
"""Lux finish reason -> SparkTide; any other Lux reason becomes the one a reader derives."""


# ---------------------------------------------------------------------------------- diagnostics


class _Sink:
    """The diagnostics of one conversion; each (field, status, detail) once; strict raises."""

    def __init__(self, strict: bool) -> None:
        self.items: list[ConversionDiagnostic] = []
        self.strict = strict
        self._seen: set[tuple[str, str, str]] = set()

    def report(self, where: str, status: Status, detail: str) -> None:
        key = (where, status, detail)
        if key in self._seen:
            return
        self._seen.add(key)
        where, detail = printable(where), printable(detail)
        self.items.append(ConversionDiagnostic(field=where, status=status, detail=detail))
        if self.strict and status in _LOSSY:
            raise ConversionError(
                f"strict stream conversion: {status} at {where}: {detail}",
                code="conversion_lossy",
                path=where,
                diagnostics=self.items,
            )


class _Unreported(_Sink):
    """Where a reader reports when the events pass unchanged (source == target): nothing is lost."""

    def report(self, where: str, status: Status, detail: str) -> None:
        return


def _fail(code: str, message: str, path: str, usage: Any) -> StreamError:
    return StreamError(message, code=code, path=path, usage=usage)


def _lux_text(index: int, text: str) -> LucentStreamEventBlockDelta:
    return LucentStreamEventBlockDelta(index=index, delta=LucentBlockDeltaText(text=text))


def _lux_arguments(index: int, text: str) -> LucentStreamEventBlockDelta:
    return LucentStreamEventBlockDelta(index=index, delta=LucentBlockDeltaToolArguments(arguments=text))


def _assistant_item() -> LucentStreamEventItemStart:
    return LucentStreamEventItemStart(index=0, item=LucentConversationItemMessage(message=LucentMessage(role="assistant", content=[])))


def _meta(context: Mapping[str, Any], sink: _Sink, source: str, needed: bool) -> LucentConversationMeta:
    """conversation_start.meta from the caller's context (Lux needs id and model, the source has neither)."""
    if not needed:
        return LucentConversationMeta()
    found: dict[str, Any] = {}
    for key in ("id", "model"):
        value = context.get(key, UNSET)
        if isinstance(value, str):
            found[key] = value
        elif value is UNSET:
            sink.report(f"target:$.{key}", "Invalid", f"required by the target (LucentResponse.{key}) and not in a {source} stream; supply context[{key!r}]")
        else:
            sink.report(f"target:$.{key}", "Invalid", f"context[{key!r}] is not a string; ignored")
    return LucentConversationMeta(**found)


# ------------------------------------------------------------------------------------ readers


class _Reader:
    """Source events -> Lux events; enforces the source stream's rules across frames."""

    context_keys: tuple[str, ...] = ()
    """The context keys it reads (lucent._context: the pipeline refuses any other, and a read of
    another raises)."""
    context_keys_to_lux: tuple[str, ...] = ()
    """The context keys it reads when the target is Lux (besides ``context_keys``)."""
    envelope: Any = None
    """A vendor reader's :class:`lucent._stream_envelope.Envelope`, set when the stream has
    delivered it (the pipeline reports the document converter's diagnostics on it, then clears it)."""

    def __init__(self, sink: _Sink, context: Mapping[str, Any], tools: frozenset[str] | None, lux_target: bool) -> None:
        self._sink = sink
        self._context = context
        self._tools = tools
        self._lux_target = lux_target

    def seen(self, event: Any, index: int) -> None:
        """Called with each source event before the unknown members of it are reported and
        before :meth:`push` (a reader that tells envelope events apart by kind notes it here)."""

    def in_envelope(self, where: str) -> bool | None:
        """Whether stream path ``where`` is a member of the envelope (:mod:`lucent._stream_envelope`),
        whose diagnostics the document converter gives; None: this reader has no envelope."""
        return None

    @property
    def usage(self) -> Any:
        """The source's usage received so far (kept on a StreamError)."""
        return None

    def push(self, event: Any, index: int) -> Hub:
        raise NotImplementedError

    def close(self, count: int) -> Hub:
        raise NotImplementedError

    def _declared(self, name: str, path: str, what: str) -> None:
        if self._tools is not None and name not in self._tools:
            raise _fail("tool_name_not_declared", f"{what} names a tool that the request did not declare", path, self.usage)


@dataclass
class _SparkCall:
    first: int  # the frame that opened this tool call
    last: int  # the last frame that added to its arguments
    id: str | None = None
    name: str | None = None
    arguments: list[str] = field(default_factory=list)  # kept until the terminal frame checks them
    started: bool = False  # its Lux block has started (id and name known)


class SparkTideReader(_Reader):
    """RemoteModelStreamFrame -> Lux events, with the rules of :class:`SparkTideAssembler`."""
    context_keys_to_lux = ("id", "model")  # conversation_start.meta: a SparkTide stream has neither

    def __init__(self, sink: _Sink, context: Mapping[str, Any], tools: frozenset[str] | None, lux_target: bool) -> None:
        super().__init__(sink, context, tools, lux_target)
        self._begun = False
        self._item = False
        self._text = False
        self._calls: dict[int, _SparkCall] = {}
        self._ids: dict[str, int] = {}
        self._usage: dict[str, int] | None = None
        self._usage_at = "$"
        self._terminal: int | None = None

    @property
    def usage(self) -> RemoteModelUsage | None:
        return None if self._usage is None else RemoteModelUsage(**self._usage)

    def push(self, frame: Any, index: int) -> Hub:
        at = f"$[{index}]"
        if self._terminal is not None:
            if isinstance(frame, (RemoteModelCompleted, RemoteModelError)):
                raise _fail("duplicate_terminal", f"frame {index} is a second terminal frame; frame {self._terminal} ended the stream", at, self.usage)
            raise _fail("data_after_terminal", f"frame {index} comes after the terminal frame {self._terminal}", at, self.usage)
        out: Hub = []
        if not self._begun:
            self._begun = True
            out.append((LucentStreamEventConversationStart(meta=_meta(self._context, self._sink, "SparkTide", self._lux_target)), at))
        if isinstance(frame, RemoteModelTextDelta):
            if frame.text:  # an empty delta adds nothing (and must not open a text block)
                self._open_item(out, at)
                if not self._text:
                    self._text = True
                    out.append((LucentStreamEventBlockStart(index=0, block_type="text"), at))
                out.append((_lux_text(0, frame.text), f"{at}.text"))
        elif isinstance(frame, RemoteModelToolDelta):
            self._tool(frame, index, out)
        elif isinstance(frame, RemoteModelUsageDelta):
            received = {name: getattr(frame.usage, name) for name in frame.usage.__struct_fields__}
            self._usage = {**(self._usage or {}), **{k: v for k, v in received.items() if v is not UNSET}}
            self._usage_at = f"{at}.usage"
        elif isinstance(frame, RemoteModelCompleted):
            self._complete(frame, index, out)
        elif isinstance(frame, RemoteModelError):
            self._error(frame, index, out)
        else:
            raise _fail("unknown_frame", f"event {index} is not a sparktide stream event ({type(frame).__name__})", at, self.usage)
        return out

    def _open_item(self, out: Hub, at: str) -> None:
        if not self._item:
            self._item = True
            out.append((_assistant_item(), at))

    def _tool(self, frame: RemoteModelToolDelta, index: int, out: Hub) -> None:
        at = f"$[{index}]"
        n = frame.index
        call = self._calls.get(n)
        if call is None:
            if not 0 <= n < MAX_TOOL_CALLS or len(self._calls) >= MAX_TOOL_CALLS:
                raise _fail("too_many_tool_calls", f"frame {index} opens tool call index {n}; at most {MAX_TOOL_CALLS} are allowed (index 0..{MAX_TOOL_CALLS - 1})", f"{at}.index", self.usage)
            call = self._calls[n] = _SparkCall(first=index, last=index)
        if frame.id is not UNSET:
            if call.id is None:
                other = self._ids.get(frame.id)
                if other is not None:
                    raise _fail("duplicate_call_id", f"tool call index {n} reuses the id of tool call index {other}", f"{at}.id", self.usage)
                call.id = frame.id
                self._ids[frame.id] = n
            elif frame.id != call.id:
                raise _fail("tool_identity_changed", f"tool call index {n} changed its id (set in frame {call.first}); id and name are stable identities", f"{at}.id", self.usage)
        if frame.name is not UNSET:
            if call.name is None:
                self._declared(frame.name, f"{at}.name", f"tool call index {n}")
                call.name = frame.name
            elif frame.name != call.name:
                raise _fail("tool_identity_changed", f"tool call index {n} changed its name; id and name are stable identities", f"{at}.name", self.usage)
        if frame.arguments is not UNSET:
            call.arguments.append(frame.arguments)
            call.last = index
            if call.started and frame.arguments:
                out.append((_lux_arguments(n + 1, frame.arguments), f"{at}.arguments"))
        if not call.started and call.id is not None and call.name is not None:
            call.started = True
            self._open_item(out, at)
            out.append((LucentStreamEventBlockStart(index=n + 1, block_type=LucentBlockTypeToolCall(id=call.id, name=call.name)), at))
            pending = "".join(call.arguments)
            if pending:
                out.append((_lux_arguments(n + 1, pending), f"{at}.arguments"))

    def _check_calls(self, frame: RemoteModelCompleted, index: int) -> None:
        """The assembler's checks at model.completed, in its order."""
        if frame.finishReason == "LENGTH" and self._calls:
            indexes = ", ".join(str(n) for n in sorted(self._calls))
            raise _fail("length_with_tool_calls", f"LENGTH cannot finish a result that has tool calls (index {indexes})", f"$[{index}].finishReason", self.usage)
        for n in sorted(self._calls):
            call = self._calls[n]
            if call.id is None or call.name is None:
                missing = " and ".join(x for x, v in (("id", call.id), ("name", call.name)) if v is None)
                raise _fail("incomplete_tool_call", f"tool call index {n} never received its {missing}", f"$[{call.first}]", self.usage)
            try:
                check_json_object_text("".join(call.arguments), "")
            except RuleViolation as exc:
                raise _fail("malformed_arguments", f"the arguments of tool call index {n}, concatenated, {exc.message.removeprefix('arguments ')}", f"$[{call.last}].arguments", self.usage) from None

    def _close_item(self, out: Hub, at: str) -> None:
        if self._text:
            out.append((LucentStreamEventBlockEnd(index=0), at))
        for n in sorted(self._calls):
            if self._calls[n].started:
                out.append((LucentStreamEventBlockEnd(index=n + 1), at))
        self._calls = {}
        if self._item:
            out.append((LucentStreamEventItemEnd(index=0), at))

    def _usage_event(self, out: Hub) -> None:
        if not self._usage:  # none, or {}: "no provider receipt", never zeros
            return
        cx = Cx(None)
        usage = usage_to_lux(RemoteModelUsage(**self._usage), self._usage_at, cx)
        if isinstance(usage, LucentUsage):
            out.append((LucentStreamEventUsage(usage=usage), self._usage_at))
        else:
            self._sink.report(self._usage_at, "Unsupported", "a partial usage receipt: a Lux usage event needs prompt, completion and total tokens; dropped")

    def _complete(self, frame: RemoteModelCompleted, index: int, out: Hub) -> None:
        at = f"$[{index}]"
        self._terminal = index
        self._check_calls(frame, index)
        self._open_item(out, at)
        if not self._text and not self._calls:
            # Neither text nor tool calls: the message content is "", one empty text block.
            self._text = True
            out.append((LucentStreamEventBlockStart(index=0, block_type="text"), at))
        self._close_item(out, at)
        out.append((LucentStreamEventFinish(finish_reason=FINISH_FROM_SPARKTIDE[frame.finishReason]), f"{at}.finishReason"))
        self._usage_event(out)
        out.append((LucentStreamEventDone(), at))

    def _error(self, frame: RemoteModelError, index: int, out: Hub) -> None:
        at = f"$[{index}]"
        self._terminal = index
        self._close_item(out, at)
        out.append((LucentStreamEventFinish(finish_reason="error"), at))
        self._usage_event(out)
        error, found = sparktide_to_lux_error(RemoteModelFailure(error=RemoteModelFailureError(code=frame.code)))
        for d in found:
            self._sink.report(at + d.field.removeprefix("$.error").removeprefix("$"), d.status, d.detail if isinstance(d.detail, str) else "")
        out.append((LucentStreamEventError(error=error), at))
        out.append((LucentStreamEventDone(), at))

    def close(self, count: int) -> Hub:
        if self._terminal is None:
            raise _fail("missing_terminal", f"the stream ended after {count} frames without model.completed or model.error", f"$[{count}]", self.usage)
        return []




@dataclass
class _SdkPart:
    kind: str
    first: int  # the partial that opened the part
    last: int = -1  # the last partial that added args or audio data
    fields: dict[str, Any] = field(default_factory=dict)  # set-once fields: id, toolCallId, ...
    arguments: list[str] = field(default_factory=list)  # tool args, kept until the stream ends
    started: bool = False  # its Lux block has started
    forwarded: bool = False  # args text that is not white space went out (blank args are {})
    carry: str = ""  # base64 characters not yet making a 4-character group


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
        n = partial.delta.index
        delta = partial.delta.part
        kind = PART_KIND[type(delta)]
        part = self._parts.get(n)
        if part is None:
            part = self._parts[n] = _SdkPart(kind=kind, first=index)
        elif part.kind != kind:
            raise _fail("part_type_changed", f"the part at index {n} was {part.kind} and partial {index} sends {kind}", f"{at}.delta.part.type", None)
        where = f"{at}.delta.part"
        if self._set_once(part, "id", delta.id, n, where):
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

    def _set_once(self, part: _SdkPart, name: str, value: Any, n: int, where: str, *, code: str = "part_field_changed") -> bool:
        """Record a set-once field; True when this partial set it first."""
        if value is UNSET:
            return False
        known = part.fields.get(name, UNSET)
        if known is UNSET:
            part.fields[name] = value
            return True
        if known != value:
            what = "id and name are stable identities" if code == "tool_identity_changed" else "it is set once"
            raise _fail(code, f"the {part.kind} part at index {n} changed its {name}; {what}", f"{where}.{name}", None)
        return False

    def _tool(self, part: _SdkPart, delta: ToolCallPartDelta, n: int, index: int, out: Hub) -> None:
        at = f"$[{index}]"
        where = f"{at}.delta.part"
        self._set_once(part, "toolCallId", delta.toolCallId, n, where, code="tool_identity_changed")
        if delta.toolName is not UNSET and "toolName" not in part.fields:
            self._declared(delta.toolName, f"{where}.toolName", f"the tool call at index {n}")
        self._set_once(part, "toolName", delta.toolName, n, where, code="tool_identity_changed")
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
            self._set_once(part, name, getattr(delta, name), n, where)
        if delta.audioData is not UNSET:
            text = part.carry + delta.audioData
            whole = len(text) - len(text) % 4
            try:
                base64.b64decode(text[:whole], validate=True)
            except (binascii.Error, ValueError):
                raise _fail("malformed_audio", f"the audio data of the part at index {n} is not base64", f"{where}.audioData", None) from None
            part.carry = text[whole:]
            part.last = index

    def close(self, count: int) -> Hub:
        out: Hub = []
        self._begin(out, f"$[{count}]")
        for n in sorted(self._parts):
            part = self._parts[n]
            if part.kind == "tool-call":
                call_id, name = part.fields.get("toolCallId"), part.fields.get("toolName")
                if call_id is None or name is None:
                    missing = " and ".join(x for x, v in (("toolCallId", call_id), ("toolName", name)) if v is None)
                    raise _fail("incomplete_tool_call", f"the tool call at index {n} never received its {missing}", f"$[{part.first}].delta.part", None)
                text = "".join(part.arguments)
                if text.strip():
                    try:
                        parse_arguments(text)
                    except ValueError as exc:
                        raise _fail("malformed_arguments", f"the args of the tool call at index {n}, concatenated, {exc}", f"$[{part.last}].delta.part.args", None) from None
            elif part.kind == "audio" and part.carry:
                raise _fail("malformed_audio", f"the audio data of the part at index {n} ends inside a base64 group", f"$[{part.last}].delta.part.audioData", None)
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


# ------------------------------------------------------------------------------------ writers


class _Writer:
    """Lux events -> target events, appended to ``out``."""

    context_keys: tuple[str, ...] = ()
    """The context keys it reads (a writer that takes the context: lucent._context)."""

    def __init__(self, sink: _Sink, exact: bool) -> None:
        self._sink = sink
        self._exact = exact  # the source is Lux: a diagnostic may name a field of the Lux event
        self.origin = "$"  # the source path of the Lux event being written (set by the pipeline)

    def at(self, origin: str, suffix: str) -> str:
        """The source path of a Lux field: the field itself for a Lux source, else its origin."""
        return origin + suffix if self._exact else origin

    def push(self, event: Any, origin: str, out: list[Any]) -> None:
        raise NotImplementedError


class LuxWriter(_Writer):
    """The hub itself: Lux events pass unchanged."""

    def push(self, event: Any, origin: str, out: list[Any]) -> None:
        out.append(event)


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


_ALWAYS_ASSISTANT: dict[str, Status] = {r: "Degraded" for r in ("model", "user", "system", "tool", "developer")}


class SparkTideWriter(_OneMessageWriter):
    """Lux events -> RemoteModelStreamFrame.

    Text blocks (and refusals) become one text: ``text.delta`` frames, a ``"\\n"`` between two
    blocks, each block's text in the order the blocks start (a block that starts while another
    is still open waits, buffered, for its turn). A tool block becomes ``tool.delta`` frames at
    the next SparkTide index: id and name at once, each arguments piece as it comes, ``"{}"``
    for a call without arguments. At ``done``: the usage frame, then ``model.completed``; an
    ``error`` event is the usage frame and ``model.error`` at once.
    """

    target = "SparkTide"
    a_target = "a SparkTide"
    role_status = _ALWAYS_ASSISTANT
    no_meta = "the platform pairs the reply with its request by invocationId and knows the model"

    LIMIT = int(SPARKTIDE_PROTOCOL["max_stream_bytes"])
    """A SparkTide stream is at most 4 MiB of SSE (RemoteModelStreamFrame's description; read
    from the binding, not from SPECS: a module body builds nothing lazily, lucent._first_use)."""

    def __init__(self, sink: _Sink, exact: bool) -> None:
        super().__init__(sink, exact)
        self._size = 0
        self._encoder = msgspec.json.Encoder()
        self._texts: deque[_Block] = deque()  # text blocks not yet written out, in start order
        self._texts_begun = 0
        self._text_written = False
        self._tools = 0
        self._tool_ids: set[str] = set()
        self._terminal = False

    def push(self, event: Any, origin: str, out: list[Any]) -> None:
        first = len(out)
        super().push(event, origin, out)
        if self.LIMIT is not None and self._size <= self.LIMIT:
            self._size += sum(len(self._encoder.encode(frame)) + 8 for frame in out[first:])  # data: ...\n\n
            if self._size > self.LIMIT:
                self._sink.report(self.at(origin, ""), "Invalid", f"the SparkTide stream grows past {self.LIMIT} bytes here, the protocol's limit: a SparkTide reader rejects it")

    # ------------------------------------------------------------ text

    def _start_text(self, block: _Block, key: Key, out: list[Any]) -> None:
        self._in_order("text", key, block.origin)
        self._texts.append(block)

    def _begin(self, block: _Block, out: list[Any]) -> None:
        """The block takes its place in the joined text: a newline after the text before it."""
        if not block.begun:
            block.begun = True
            if self._texts_begun:
                block.sent = True
                out.append(RemoteModelTextDelta(protocolVersion="1.0", text="\n"))
            self._texts_begun += 1

    def _write_text(self, block: _Block, text: str, out: list[Any]) -> None:
        self._begin(block, out)
        if text:
            block.sent = True
            self._text_written = True
            out.append(RemoteModelTextDelta(protocolVersion="1.0", text=text))

    def _advance(self, out: list[Any]) -> None:
        """Write out the head of the text queue: its waiting text, and the next if it ended."""
        while self._texts:
            head = self._texts[0]
            if head.buffer:
                text, head.buffer = "".join(head.buffer), []
                self._write_text(head, text, out)
            if not head.ended:
                return
            self._begin(head, out)
            self._texts.popleft()

    # ------------------------------------------------------------ tools

    def _start_tool(self, block: _Block, key: Key, kind: LucentBlockTypeToolCall, where: str, out: list[Any]) -> None:
        frame = RemoteModelToolDelta(protocolVersion="1.0", index=min(self._tools, MAX_TOOL_CALLS - 1), id=kind.id, name=kind.name)
        problem = None
        if self._tools >= MAX_TOOL_CALLS:
            problem = f"SparkTide allows at most {MAX_TOOL_CALLS} tool calls"
        elif kind.id in self._tool_ids:
            problem = "a SparkTide stream rejects a second tool call with the same id"
        else:
            try:  # the schema's own rule for ids and names (1-128 characters, not only white space)
                msgspec.json.decode(msgspec.json.encode(frame), type=RemoteModelToolDelta)
            except msgspec.ValidationError as exc:
                problem = f"the tool call breaks the SparkTide schema ({described(exc)})"
        if problem is not None:
            block.kind = "drop"
            self._sink.report(where, "Invalid", f"{problem}; dropped")
            return
        self._in_order("tool", key, block.origin)
        block.index = self._tools
        self._tools += 1
        self._tool_ids.add(kind.id)
        block.sent = True
        out.append(frame)

    # ------------------------------------------------------------ blocks

    def _piece(self, block: _Block, key: Key, text: str, origin: str, out: list[Any]) -> None:
        if block.kind == "tool":
            block.arguments.append(text)
            if text:
                out.append(RemoteModelToolDelta(protocolVersion="1.0", index=block.index, arguments=text))
        elif self._texts and self._texts[0] is block:
            self._write_text(block, text, out)
        elif text:
            block.buffer.append(text)

    def _end(self, block: _Block, key: Key, out: list[Any]) -> None:
        if block.kind == "tool":
            if not any(block.arguments):  # a call without arguments takes none: {}
                out.append(RemoteModelToolDelta(protocolVersion="1.0", index=block.index, arguments="{}"))
            problem = self._tool_problem(block)
            if problem is not None:
                self._sink.report(block.origin, "Invalid", f"SparkTide tool arguments must be a complete, closed JSON object; found {problem}; carried verbatim")
        else:
            self._advance(out)

    def _discard(self, block: _Block, key: Key, where: str, out: list[Any]) -> None:
        if block.sent:
            self._sink.report(where, "Invalid", "the block was written already, and a SparkTide stream cannot take it back; it stays")
            if block.kind == "tool" and not any(block.arguments):
                out.append(RemoteModelToolDelta(protocolVersion="1.0", index=block.index, arguments="{}"))
            return
        if block.kind == "text":
            if block.begun:
                self._texts_begun -= 1
            self._texts.remove(block)
            self._advance(out)

    # ------------------------------------------------------------ the end

    def _got_usage(self, usage: LucentUsage, origin: str) -> None:
        if self._terminal:
            self._sink.report(self.at(origin, ""), "Unsupported", "usage after the stream's error: SparkTide takes no frame after the terminal frame; dropped")
        super()._got_usage(usage, origin)

    def _write_usage(self, out: list[Any]) -> None:
        if self._usage is None:
            if self._usage_input is not None:
                self._sink.report(self._usage_input, "Unsupported", "no usage event follows: the input count alone is dropped")
            return
        usage, origin = self._usage
        # The document converter's own usage rules (counts 0..10^9; reasoning, cached and
        # cache-creation counts Unsupported): a response that is only this usage.
        value, found = lux_to_sparktide_response(LucentResponse(schema_version="v1", id="", model="", choices=[], usage=usage))
        for d in found:
            if d.field.startswith("$.usage"):
                self._sink.report(self.at(origin, d.field[1:]), d.status, d.detail if isinstance(d.detail, str) else "")
        if any(getattr(value.usage, name) is not UNSET for name in value.usage.__struct_fields__):
            out.append(RemoteModelUsageDelta(protocolVersion="1.0", usage=value.usage))

    def _error(self, event: LucentStreamEventError, origin: str, out: list[Any]) -> None:
        failure, found = lux_to_sparktide_error(event.error)
        for d in found:
            self._sink.report(self.at(origin, ".error" + d.field[1:]), d.status, d.detail if isinstance(d.detail, str) else "")
        if self._finish is not None and self._finish[0] != "error":
            self._sink.report(self._finish[1], "Unsupported", "the stream ends with model.error, which has no finish reason; dropped")
        self._write_usage(out)
        self._terminal = True
        out.append(RemoteModelError(protocolVersion="1.0", code=failure.error.code))

    def _done(self, origin: str, out: list[Any]) -> None:
        if self._terminal:
            return
        assert self._finish is not None  # the Lux reader checked it
        reason, where = self._finish
        code = FINISH_TO_SPARKTIDE.get(reason)
        if code is None or (code == "LENGTH" and self._tools):
            code = "TOOL_CALLS" if self._tools else "STOP"
            self._sink.report(where, "Unsupported", f"SparkTide finishes with STOP, TOOL_CALLS or LENGTH, and LENGTH never with tool calls; {reason} is written as {code}")
        if not self._texts_begun and not self._tools:
            self._sink.report(self.at(origin, ""), "Degraded", 'neither text nor tool calls; the message content reads as ""')
        elif self._texts_begun and not self._text_written and self._tools:
            self._sink.report(self.at(origin, ""), "Degraded", 'the text is empty, and next to tool calls a SparkTide stream cannot tell content "" from no content: it reads as null')
        self._write_usage(out)
        self._terminal = True
        out.append(RemoteModelCompleted(protocolVersion="1.0", finishReason=code))


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


# ------------------------------------------------------------------------------------ the pipeline

# Format name -> its stream reader and writer: those of this module here, the others' once registered
# (lucent._stream_convert_vendor.register); lucent.formats names each format's classes.
_BUILT_IN = [(name, prefix) for name, f in _REGISTRY.items() if f.stream is not None
             for module, _, prefix in [f.stream.converter.partition(":")] if module == __name__]
_READERS: dict[str, type[_Reader]] = {name: globals()[f"{prefix}Reader"] for name, prefix in _BUILT_IN}
_WRITERS: dict[str, type[_Writer]] = {name: globals()[f"{prefix}Writer"] for name, prefix in _BUILT_IN}


_ENVELOPE_EVENTS = (LucentStreamEventConversationStart, LucentStreamEventUsage)
"""The Lux events that carry envelope values (id, model, usage): what a writer reports while
writing them is left out when the reader has an envelope, whose diagnostics are
the document converter's (:mod:`lucent._stream_envelope`); its Invalid ones are kept."""


class _Pipeline:
    """One conversion: source event -> reader -> Lux events -> writer -> target events."""

    def __init__(self, source: str, target: str, context: Mapping[str, Any] | None, strict: bool, tools: Iterable[str] | None) -> None:
        spec(source)
        spec(target)
        context = context_of(context)
        refuse_unknown(context, stream_keys(source, target), f"{source} streams to {target}")
        names = tool_names(tools)
        strict = flag(strict, "strict")
        self.sink = _Sink(strict)
        self.source, self.target, self.context = source, target, dict(context)
        lux_target = target == "lux" and source != "lux"
        reader_type = _READERS[source]
        self.envelopes: Any = None  # the sink that leaves out the reports on envelope members
        shared: _Sink = self.sink
        if source != target and reader_type.in_envelope is not _Reader.in_envelope:
            from lucent._stream_envelope import EnvelopeSink

            shared = self.envelopes = EnvelopeSink(self.sink, lambda where: bool(self.reader.in_envelope(where)))
        self.reported = shared  # where the reader, the writer and unknown members report
        checks_only = _Unreported(strict) if source == target else shared
        # source == target: the events pass unchanged, and no value of the context reaches them
        given = DeclaredContext(context if source != target else {}, reader_keys(reader_type, lux_target), f"the {source} stream reader")
        self.reader = reader_type(checks_only, given, names, lux_target)
        # source == target: the events pass unchanged, checked by the reader.
        writer = _WRITERS[target]
        if source == target:
            self.writer: _Writer | None = None
        elif getattr(writer, "takes_context", False):  # the vendor writers: envelope values from the context
            self.writer = writer(shared, exact=source == "lux", context=DeclaredContext(context, writer.context_keys, f"the {target} stream writer"))  # type: ignore[call-arg]
        else:
            self.writer = writer(shared, exact=source == "lux")
        self.count = 0
        self._unknown: list[str] = []  # the unknown members of the event being decoded

    def push(self, event: Any) -> list[Any]:
        index = self.count
        self.count += 1
        if self.envelopes is not None:
            self.reader.seen(event, index)
        if self._unknown:
            found, self._unknown = self._unknown, []
            for path in found:
                self.reported.report(path, "Unsupported", UNKNOWN_MEMBER)
        hub = self.reader.push(event, index)
        if self.writer is None:
            return [event]
        return self._write(hub)

    def close(self) -> list[Any]:
        hub = self.reader.close(self.count)
        if self.writer is None:
            return []
        return self._write(hub)

    def _write(self, hub: Hub) -> list[Any]:
        """The target events of ``hub``; first the document converter's diagnostics on the
        envelope, if the reader has just completed it (so that strict raises before them)."""
        envelopes = self.envelopes
        out: list[Any] = []
        writer = self.writer
        assert writer is not None
        if envelopes is not None and self.reader.envelope is not None:
            from lucent._stream_envelope import report

            envelope, self.reader.envelope = self.reader.envelope, None
            report(self.sink, envelope, self.source, self.target, self.context)
        for lux, origin in hub:
            writer.origin = origin
            if envelopes is not None:
                envelopes.writing_envelope = isinstance(lux, _ENVELOPE_EVENTS)
            writer.push(lux, origin, out)
        if envelopes is not None:
            envelopes.writing_envelope = False
        return out

    def unknown(self, path: str) -> None:
        """A member of a source event that its (open) schema object does not define: the event
        Struct drops it, so it reaches no target, not even the source format itself (a member of
        the envelope: the assembler drops it too, and the envelope's diagnostics are the
        document converter's, :mod:`lucent._stream_envelope`): reported with the event, once
        the reader has seen its kind (:meth:`_Reader.seen`)."""
        if self.envelopes is None:
            self.reported.report(path, "Unsupported", UNKNOWN_MEMBER)
        else:
            self._unknown.append(path)

    def failed(self, exc: StreamError) -> StreamError:
        if exc.usage is None:
            exc.usage = self.reader.usage
        return exc


_E = TypeVar("_E")
"""The target format's event type (``lucent.streams.convert_stream``'s overloads name it)."""


class StreamConversion(Iterator[_E], Generic[_E]):
    """The events of a stream converted to another format; iterate it once.

    Returned by :func:`lucent.streams.convert_stream`. Iterating reads the source as far as the
    next target event needs.

    Attributes
    ----------
    source, target : str
        The format names.
    diagnostics : list[ConversionDiagnostic]
        Every loss so far (see :mod:`lucent._stream_convert`); complete once iteration ends.
    """

    def __init__(self, events: Any, source: str, target: str, *, context: Mapping[str, Any] | None = None, strict: bool = False, tools: Iterable[str] | None = None, limits: Limits | None = None) -> None:
        _check_source(events)
        self.source = source
        self.target = target
        self._pipeline = _Pipeline(source, target, context, strict, tools)
        self._events = self._run(frames(events, spec(source), self._pipeline.unknown, limits_of(limits)))

    @property
    def diagnostics(self) -> list[ConversionDiagnostic]:
        return self._pipeline.sink.items

    @property
    def usage(self) -> Any:
        """The source usage received so far (``RemoteModelUsage``, ``LucentUsage`` or None)."""
        return self._pipeline.reader.usage

    def _run(self, source: Iterator[Any]) -> Iterator[Any]:
        pipeline = self._pipeline
        try:
            for event in source:
                yield from pipeline.push(event)
            yield from pipeline.close()
        except StreamError as exc:
            pipeline.failed(exc)
            raise

    def __iter__(self) -> StreamConversion[_E]:
        return self

    def __next__(self) -> _E:
        return cast("_E", next(self._events))


class AsyncStreamConversion(AsyncIterator[_E], Generic[_E]):
    """:class:`StreamConversion` for an async source; ``async for`` it once."""

    def __init__(self, events: Any, source: str, target: str, *, context: Mapping[str, Any] | None = None, strict: bool = False, tools: Iterable[str] | None = None, limits: Limits | None = None) -> None:
        _check_source(events)
        self.source = source
        self.target = target
        self._pipeline = _Pipeline(source, target, context, strict, tools)
        self._events = self._run(aframes(events, spec(source), self._pipeline.unknown, limits_of(limits)))

    @property
    def diagnostics(self) -> list[ConversionDiagnostic]:
        return self._pipeline.sink.items

    @property
    def usage(self) -> Any:
        """The source usage received so far (``RemoteModelUsage``, ``LucentUsage`` or None)."""
        return self._pipeline.reader.usage

    async def _run(self, source: AsyncIterator[Any]) -> AsyncIterator[Any]:
        pipeline = self._pipeline
        try:
            async for event in source:
                for out in pipeline.push(event):
                    yield out
            for out in pipeline.close():
                yield out
        except StreamError as exc:
            pipeline.failed(exc)
            raise

    def __aiter__(self) -> AsyncStreamConversion[_E]:
        return self

    async def __anext__(self) -> _E:
        return cast("_E", await anext(self._events))
