"""openai-responses stream events <-> Lux stream events.

Reading (events -> Lux), with the rules of
:class:`~lucent.formats.openai_responses.assembler.OpenAIResponsesAssembler` (the item and part rules are
one object, :class:`~lucent.formats.openai_responses.stream_items.OutputItems`, in both): ``response.created`` is
``conversation_start`` (``meta.id``/``meta.model`` of its response) and ``item_start`` of item 0,
the one message that the response's output items make in Lux: a ``reasoning`` item is a thinking
block (its summary text deltas are thinking deltas, the parts of a summary joined by a blank
line, Degraded; ``encrypted_content`` is its signature), each ``output_text`` / ``refusal``
content part of a ``message`` item a text / refusal block, a ``function_call`` item a tool
block (``call_id`` and ``name``; arguments deltas). Other output items (server-side tools:
``web_search_call``, ``code_interpreter_call``, ``custom_tool_call``, ...) are
Unsupported, each once where it starts, their events skipped (after the rules checked them).
The annotations of an ``output_text`` part go out with the item's ``output_item.done`` (the
text they cite is whole then) as one Lux ``annotations`` event of its text block, as the
document converter reads them (url_citation -> url, file_citation -> file_citation; title and
filename Degraded, other kinds Unsupported).
The ``*.done`` events are checked against the deltas (``delta_mismatch``) and end nothing by
themselves, but a function call's arguments that come whole in its ``.done`` event or
``output_item.done`` item (no delta) go out as one arguments delta; ``output_item.done`` ends
its blocks. ``response.failed`` is an error as it stands: its output items are not checked
(nor by the assembler, which raises ``model_error``). ``response.completed`` / ``.incomplete`` are ``item_end``, ``finish`` (``stop``, or
``tool_calls`` when a function call came; incomplete: ``max_output_tokens`` -> ``length``,
``content_filter`` -> ``content_filter``), ``usage`` (``input_tokens`` is inclusive of
``input_tokens_details.cached_tokens``, like Lux) and ``done``; ``response.failed`` and ``error``
are ``finish: error``, ``error`` and ``done``. The response's envelope (the request settings that
``response.created`` repeats, ``created_at``, ...) is converted by the document converter at the
terminal event (its ``response``, ``output`` emptied), which gives its diagnostics
(:mod:`lucent._stream_envelope`); a Responses writer takes it back through ``context["response"]``.

Writing (Lux -> events) produces the API's shape: ``response.created`` and
``response.in_progress`` (the envelope from ``context["response"]``, a Response object whose
members other than ``id``, ``model``, ``status``, ``output`` and ``usage`` are taken as they
are; without it, the defaults of an empty request, Degraded ``target:$``), then per
Lux block an output item: ``output_item.added``, its part and delta events, the ``*.done``
events and ``output_item.done`` (consecutive text and refusal blocks are the content parts of
one message item, as the document converter writes them; a thinking block is a ``reasoning`` item
whose text is its ``reasoning_text`` content, ``reasoning_text.delta`` / ``.done``, with
``summary: []``, and its signature the ``encrypted_content``, Degraded, as the document converter
writes it); at ``done`` one ``response.completed`` (or
``response.incomplete`` for ``length``, ``content_filter``, ``safety``, ``recitation``, or
``response.failed`` with the ``error`` of :data:`lucent.formats.openai_responses.tables.FAILURE_ERROR`
for ``error`` and ``malformed_tool_call``: :data:`lucent.formats.openai_responses.tables.STATUS_FROM_LUX`)
holding every output item and the usage; ``sequence_number`` counts from 0. Item ids, which a Lux stream does not carry, are
``<prefix>_lucent_<n>`` (Degraded; ``rs``, ``msg``, ``fc``, n counting each prefix from 1,
as the document converter makes them). A Responses target keeps each output item until the end:
``response.completed`` repeats the whole output.
"""

from __future__ import annotations

import copy
import typing
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import msgspec
from msgspec import UNSET

from lucent._conversion import Cx
from lucent._stream_hub import Hub, _fail, _Reader, _Sink
from lucent.errors import EncodeError, UsageError
from lucent._stream_convert_vendor import LuxBlocks, VendorWriter, build, item_end, item_start, lux_usage
from lucent._stream_envelope import Envelope, emptied, under
from lucent.formats.openai_responses.assembler import ENVELOPE, TERMINAL
from lucent.formats.openai_responses.stream_items import OutputItems, Part, part_text
from lucent.formats.openai_responses.transforms import lux_response_usage
from lucent.formats.openai_responses.tables import ANNOTATION_LOST, ANNOTATION_TYPES, DEGRADED_FINISH, ERROR_CODE, ERROR_KIND, FAILURE_ERROR, INCOMPLETE_REASON_TO_LUX, MADE_ID_PREFIX, REQUEST_DEFAULTS, SIGNATURE_WRITTEN, STATUS_FROM_LUX, STREAM_PADDING, annotation_lost, item_members_lost, item_status, lux_annotation
from lucent.generated.lux_ir_v1 import (
    LucentAnnotation,
    LucentBlockDeltaRefusal,
    LucentBlockDeltaSignature,
    LucentBlockDeltaText,
    LucentBlockDeltaThinking,
    LucentBlockDeltaToolArguments,
    LucentBlockTypeToolCall,
    LucentContentRefusal,
    LucentContentText,
    LucentContentThinking,
    LucentContentToolUse,
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
from lucent.generated.openai_responses import (
    ResponseErrorCode,
    DECODE_TYPES,
    Response,
    ResponseFunctionCallArgumentsDoneEvent,
    ResponseErrorEvent,
    ResponseFailedEvent,
    ResponseIncompleteEvent,
)

SUMMARY_JOIN = "\n\n"

_RESPONSE_ERROR_CODES = frozenset(typing.get_args(ResponseErrorCode))
"""The codes a Responses ``response.failed`` error may carry (#/$defs/ResponseErrorCode)."""


def _required(kind: type, name: str) -> bool:
    info = msgspec.inspect.type_info(kind)
    assert isinstance(info, msgspec.inspect.StructType)
    return any(f.name == name and f.required for f in info.fields)


DONE_NEEDS_NAME = _required(ResponseFunctionCallArgumentsDoneEvent, "name")
"""The published ResponseFunctionCallArgumentsDoneEvent requires ``name``; the API leaves it out.
The writer sends it only while the schema in use requires it (schemas/vendor patch layer)."""


def usage_to_lux(usage: dict[str, Any]) -> LucentUsage:
    details = usage.get("input_tokens_details") or {}
    out_details = usage.get("output_tokens_details") or {}
    return lux_usage(
        int(usage["input_tokens"]), int(usage["output_tokens"]), int(usage["total_tokens"]),
        reasoning=None if out_details.get("reasoning_tokens") is None else int(out_details["reasoning_tokens"]),
        cached=None if details.get("cached_tokens") is None else int(details["cached_tokens"]),
        cache_creation=None if details.get("cache_write_tokens") is None else int(details["cache_write_tokens"]),
    )


def usage_from_lux(usage: LucentUsage, where: str, sink: _Sink) -> dict[str, Any]:
    """Lux usage as Responses usage, by the document converter's own rule
    (``transforms.lux_response_usage``: a count Lux lacks is written 0, Degraded, since the
    openai SDK's ResponseUsage requires all three), its reports at ``where`` (the usage event)."""
    cx = Cx(None)
    value: dict[str, Any] = lux_response_usage(usage, UNSET, UNSET, "$.usage", cx)
    for d in cx.diagnostics:
        sink.report(where + d.field.removeprefix("$.usage"), d.status, d.detail if isinstance(d.detail, str) else "")
    return value


_LUX_KIND = {"reasoning": "reasoning", "message": "message", "function_call": "function_call"}
"""Output item type -> how a Lux stream carries it; any other type is dropped (Unsupported)."""


class OpenAIResponsesReader(_Reader):
    """ResponseStreamEvent -> Lux events (see the module docstring)."""

    padding = STREAM_PADDING

    def __init__(self, sink: _Sink, context: Mapping[str, Any], tools: frozenset[str] | None, lux_target: bool) -> None:
        super().__init__(sink, context, tools, lux_target)
        self._started = False
        self._blocks = LuxBlocks(0)
        self._items = OutputItems(lambda code, message, path: _fail(code, message, path, self.usage))
        self._kinds: dict[int, str] = {}  # output index -> reasoning, message, function_call or drop
        self._sent: dict[int, int] = {}  # function_call output index -> characters of arguments sent
        self._sequence: int | None = None
        self._usage: Any = None
        self._terminal: int | None = None
        self._envelopes: set[int] = set()  # the events that carry the envelope (their .response)
        self._last: tuple[int, Response] | None = None  # the latest envelope, and its event
        self._incomplete: str | None = None  # the item path of the latest message done "incomplete", until it is known whether it was the last item

    @property
    def usage(self) -> Any:
        return self._usage

    def in_envelope(self, where: str) -> bool:
        """An envelope event itself, or a member of its ``response`` outside ``output`` (only the
        envelope events have one: an unknown member of it is reported before the event is read)."""
        event, _, rest = where.partition("]")
        if not event.startswith("$["):
            return False
        if rest == "":
            return int(event[2:]) in self._envelopes
        return rest == ".response" or rest.startswith(".response.") and not under(rest[len(".response"):], (".output",))

    def _delivered(self, index: int, response: Response | None) -> None:
        """The envelope is complete (a terminal event): the latest response, output emptied."""
        self._envelopes.add(index)
        if response is not None:
            self._last = (index, response)
        if self._last is None:
            return
        at, latest = self._last
        base = f"$[{at}].response"

        def place(field: str) -> str | None:
            rest = field[1:]
            return None if under(rest, (".output",)) else base + rest

        self.envelope = Envelope(emptied(latest, output=[]), place)

    def push(self, event: Any, index: int) -> Hub:
        at = f"$[{index}]"
        if self._terminal is not None:
            code = "duplicate_terminal" if isinstance(event, TERMINAL) else "data_after_terminal"
            raise _fail(code, f"event {index} comes after the terminal event {self._terminal}", at, self.usage)
        config = getattr(type(event), "__struct_config__", None)
        kind = config.tag if config is not None else None
        if not isinstance(kind, str) or not hasattr(event, "sequence_number"):
            raise _fail("unknown_frame", f"event {index} is not an openai-responses stream event ({type(event).__name__})", at, self.usage)
        number = int(event.sequence_number)
        expected = 0 if self._sequence is None else self._sequence + 1
        if number != expected:
            raise _fail("sequence_out_of_order", f"event {index} has sequence_number {number}; {expected} comes next", f"{at}.sequence_number", self.usage)
        self._sequence = number
        out: Hub = []
        if isinstance(event, ENVELOPE):
            self._envelopes.add(index)
            self._last = (index, event.response)
            self._envelope(event.response, at, out)
            return out
        if not self._started:
            raise _fail("missing_response_created", f"event {index} comes before response.created", at, self.usage)
        if isinstance(event, TERMINAL):
            self._delivered(index, getattr(event, "response", None))
            self._end(event, index, out)
            return out
        tree = msgspec.to_builtins(event)
        if kind == "response.output_item.added":
            self._items.add(tree, index)
            self._added(tree, index, out)
            return out
        named = self._items.name(kind, tree, index)
        if named is None:
            return out
        n = tree["output_index"]
        if self._kinds[n] == "drop" and kind != "response.output_item.done":
            return out
        self._event(kind, tree, named.part, n, index, out)
        return out

    def _envelope(self, response: Response, at: str, out: Hub) -> None:
        if response.usage is not UNSET and response.usage is not None:
            self._usage = response.usage
        if self._started:
            return
        self._started = True
        out.append((LucentStreamEventConversationStart(meta=LucentConversationMeta(id=response.id, model=response.model)), at))
        out.append((item_start(0), at))

    def _added(self, tree: dict[str, Any], index: int, out: Hub) -> None:
        at = f"$[{index}]"
        n = tree["output_index"]
        item = tree["item"]
        kind = item.get("type")
        lux = self._kinds[n] = _LUX_KIND.get(kind, "drop")
        if lux != "drop":
            self._incomplete_lost()  # the message before it was not the last item
        if lux == "reasoning":
            # an encrypted_content here is superseded: output_item.done encrypts the reasoning
            # anew, and that one is the Lux signature (as it is the assembled item's)
            self._blocks.start((n, "item"), "thinking", at, out)
            for what in ("summary", "content"):
                for k, part in enumerate(item.get(what) or []):
                    self._part_added(what, k, part, n, f"{at}.item.{what}[{k}]", out)
        elif lux == "message":
            if item.get("role", "assistant") != "assistant":
                self._sink.report(f"{at}.item.role", "Degraded", "an output message is the assistant's")
            for k, part in enumerate(item.get("content") or []):
                self._part_added("content", k, part, n, f"{at}.item.content[{k}]", out)
        elif lux == "function_call":
            self._declared(item["name"], f"{at}.item.name", f"output item {n}")
            self._blocks.start((n, "item"), LucentBlockTypeToolCall(id=item["call_id"], name=item["name"]), at, out)
            self._sent[n] = 0
            self._arguments(n, item["arguments"], f"{at}.item.arguments", out)
        else:
            self._sink.report(f"{at}.item", "Unsupported", f"a Lux stream cannot carry a {kind} output item; dropped with its events")
            return
        self._members({k: v for k, v in item.items() if k != "status"}, f"{at}.item")  # its status is final in output_item.done

    def _members(self, item: dict[str, Any], where: str, status: str = "completed") -> None:
        """Report the members of an output item that its Lux block does not carry (`status`: the
        item status the Lux finish gives back, tables.item_status)."""
        for name in item_members_lost(item, status):
            self._sink.report(f"{where}.{name}", "Unsupported", f"a Lux block has no place for the {name} of a {item.get('type')} item; dropped")

    def _incomplete_lost(self, response_status: str | None = None) -> None:
        """The held "incomplete" status of a message item: given back by the Lux finish when the
        message is the last item of an incomplete response (tables.item_status), else reported."""
        where, self._incomplete = self._incomplete, None
        if where is not None and item_status("message", True, response_status) != "incomplete":
            self._members({"type": "message", "status": "incomplete"}, where)

    def _part_added(self, what: str, k: int, part: dict[str, Any], n: int, at: str, out: Hub) -> None:
        """A content or summary part (the rules checked that the item holds its type)."""
        text = part_text(part) or ""
        if self._kinds[n] == "reasoning":  # summary and reasoning text: the one thinking block
            if what == "summary" and k > 0:
                self._sink.report(at, "Degraded", "a Lux thinking block is one text: the parts of the summary are joined by a blank line")
                self._blocks.delta((n, "item"), LucentBlockDeltaThinking(text=SUMMARY_JOIN), at, out)
            if text:
                self._blocks.delta((n, "item"), LucentBlockDeltaThinking(text=text), f"{at}.part.text", out)
            return
        block = "text" if part["type"] == "output_text" else "refusal"
        self._blocks.start((n, k), block, at, out)
        if text:
            delta = LucentBlockDeltaText(text=text) if block == "text" else LucentBlockDeltaRefusal(text=text)
            self._blocks.delta((n, k), delta, f"{at}.part.{part['type'] if block == 'refusal' else 'text'}", out)
        for a, note in enumerate(part.get("annotations") or []):
            self._annotation_read(note, f"{at}.part.annotations[{a}]")

    def _event(self, kind: str, tree: dict[str, Any], part: Part | None, n: int, index: int, out: Hub) -> None:
        at = f"$[{index}]"
        if kind in ("response.content_part.added", "response.reasoning_summary_part.added"):
            what = "content" if "content_index" in tree else "summary"
            self._part_added(what, tree[f"{what}_index"], tree["part"], n, at, out)
        elif kind in ("response.output_text.delta", "response.refusal.delta"):
            k = tree["content_index"]
            if tree["delta"]:
                delta = LucentBlockDeltaText(text=tree["delta"]) if kind == "response.output_text.delta" else LucentBlockDeltaRefusal(text=tree["delta"])
                self._blocks.delta((n, k), delta, f"{at}.delta", out)
            if tree.get("logprobs"):
                self._sink.report(f"{at}.logprobs", "Unsupported", "a Lux stream has no log probabilities; dropped")
        elif kind in ("response.reasoning_summary_text.delta", "response.reasoning_text.delta"):
            if tree["delta"]:
                self._blocks.delta((n, "item"), LucentBlockDeltaThinking(text=tree["delta"]), f"{at}.delta", out)
            if kind == "response.reasoning_text.delta":
                self._sink.report(f"{at}", "Degraded", "the reasoning text is a thinking delta, like the summary: a Lux stream does not tell them apart")
        elif kind == "response.function_call_arguments.delta":
            if tree["delta"]:
                self._sent[n] += len(tree["delta"])
                self._blocks.delta((n, "item"), LucentBlockDeltaToolArguments(arguments=tree["delta"]), f"{at}.delta", out)
        elif kind == "response.function_call_arguments.done":
            self._arguments(n, tree["arguments"], f"{at}.arguments", out)
        elif kind == "response.output_text.annotation.added":
            self._annotation_read(tree["annotation"], f"{at}.annotation")
        elif kind == "response.output_item.done":
            self._item_done(tree["item"], n, at, out)
        # the *.done events end nothing by themselves: the rules checked their texts

    def _annotation_read(self, note: Any, at: str) -> None:
        """Report what a Lux annotation does not carry of a Responses one (it goes out with the
        item's output_item.done, where the text it cites is whole: :meth:`_annotations`)."""
        if not isinstance(note, dict) or lux_annotation(note, "") is None:
            kind = note.get("type") if isinstance(note, dict) else None
            what = f"a {kind}" if kind in ANNOTATION_TYPES else "this"
            self._sink.report(at, "Unsupported", f"Lux has no {what} annotation; dropped")
        elif annotation_lost(note) is not None:
            self._sink.report(f"{at}.{annotation_lost(note)}", "Degraded", f"{ANNOTATION_LOST}; dropped")

    def _annotations(self, done: dict[str, Any], n: int, at: str, out: Hub) -> None:
        """The annotations of each output_text part of a message item as one Lux annotations
        event of its text block, as the document converter reads them (tables.lux_annotation)."""
        for k, part in enumerate(done.get("content") or []):
            if not isinstance(part, dict) or part.get("type") != "output_text" or (n, k) not in self._blocks.open:
                continue
            found = [lux_annotation(note, part.get("text", "")) for note in part.get("annotations") or [] if isinstance(note, dict)]
            notes = [LucentAnnotation(**members) for members in found if members is not None]
            if notes:
                out.append((LucentStreamEventAnnotations(index=self._blocks.open[(n, k)], annotations=notes), f"{at}.item.content[{k}].annotations"))

    def _arguments(self, n: int, text: str, at: str, out: Hub) -> None:
        """The arguments of a function call as an event holds them whole: what was not sent yet
        (the rules checked that they start with what was)."""
        rest = text[self._sent[n]:]
        if rest:
            self._sent[n] = len(text)
            self._blocks.delta((n, "item"), LucentBlockDeltaToolArguments(arguments=rest), at, out)

    def _item_done(self, done: dict[str, Any], n: int, at: str, out: Hub) -> None:
        kind = self._kinds[n]
        if kind == "drop":
            return
        if kind == "message" and done.get("status") == "incomplete":
            self._incomplete = f"{at}.item"  # whether the finish gives it back: at the next item or the terminal event
            self._members(done, f"{at}.item", "incomplete")
        else:
            self._members(done, f"{at}.item")
        if kind == "function_call":
            self._arguments(n, done["arguments"], f"{at}.item.arguments", out)
        if kind == "message":
            self._annotations(done, n, at, out)
        if kind == "reasoning":
            if done.get("encrypted_content"):
                self._blocks.delta((n, "item"), LucentBlockDeltaSignature(signature=done["encrypted_content"]), f"{at}.item.encrypted_content", out)
            if done.get("content"):
                self._sink.report(f"{at}.item.content", "Degraded", "the reasoning content came as thinking deltas")
        for key in sorted((k for k in self._blocks.open if k[0] == n), key=self._blocks.open.__getitem__):
            self._blocks.end(key, at, out)

    def _end(self, event: Any, index: int, out: Hub) -> None:
        at = f"$[{index}]"
        self._terminal = index
        self._incomplete_lost("incomplete" if isinstance(event, ResponseIncompleteEvent) else None)
        if isinstance(event, ResponseErrorEvent):
            self._blocks.end_all(at, out)
            out.append((item_end(0), at))
            out.append((LucentStreamEventFinish(finish_reason="error"), at))
            code = event.code if isinstance(event.code, str) else None
            if event.param is not None:
                self._sink.report(f"{at}.param", "Unsupported", "a Lux error has no parameter it names; dropped")
            out.append((LucentStreamEventError(error=LucentError(kind=ERROR_KIND.get(code or "", "server_error"), message=event.message, provider_code=code if code is not None else UNSET)), at))  # type: ignore[arg-type]
            out.append((LucentStreamEventDone(), at))
            return
        response: Response = event.response
        if response.usage is not UNSET and response.usage is not None:
            self._usage = response.usage
        if isinstance(event, ResponseFailedEvent):
            # The model failed: its items may be cut off (the assembler, too, reads the error only).
            self._blocks.end_all(at, out)
            out.append((item_end(0), at))
            out.append((LucentStreamEventFinish(finish_reason="error"), at))
            error = msgspec.to_builtins(response.error) if response.error is not None else {}
            code = error.get("code") if isinstance(error, dict) else None
            out.append((LucentStreamEventError(error=LucentError(kind=ERROR_KIND.get(code or "", "server_error"), message=str(error.get("message", "")), provider_code=code if isinstance(code, str) else UNSET)), f"{at}.response.error"))  # type: ignore[arg-type]
        else:
            self._items.final(msgspec.to_builtins(response.output), index)
            out.append((item_end(0), at))
            reason = "tool_calls" if "function_call" in self._kinds.values() else "stop"
            where = f"{at}.response.status"
            if isinstance(event, ResponseIncompleteEvent):
                details = msgspec.to_builtins(response.incomplete_details) or {}
                reason = INCOMPLETE_REASON_TO_LUX.get(details.get("reason"), "length")
                where = f"{at}.response.incomplete_details"
            out.append((LucentStreamEventFinish(finish_reason=reason), where))  # type: ignore[arg-type]
        if response.usage is not UNSET and response.usage is not None:
            usage = msgspec.to_builtins(response.usage)
            out.append((LucentStreamEventUsage(usage=usage_to_lux(usage)), f"{at}.response.usage"))
        out.append((LucentStreamEventDone(), at))

    def close(self, count: int) -> Hub:
        if self._terminal is None:
            raise _fail("missing_terminal", f"the stream ended after {count} events without response.completed, .incomplete, .failed or error", f"$[{count}]", self.usage)
        return []


@dataclass
class _Out:
    kind: str  # reasoning, text, refusal, call, drop
    index: int  # output_index
    id: str
    text: list[str] = field(default_factory=list)
    signature: str | None = None
    call: LucentBlockTypeToolCall | None = None
    part: int = 0  # content_index of a text or refusal block in its message item
    before: list[dict[str, Any]] = field(default_factory=list)  # the message's parts before it


class OpenAIResponsesWriter(VendorWriter):
    """Lux events -> ResponseStreamEvent (see the module docstring)."""
    context_keys = ("created_at", "id", "model", "response")  # the response envelope

    target = "Responses"

    def __init__(self, sink: _Sink, exact: bool, context: Mapping[str, Any] | None = None) -> None:
        super().__init__(sink, exact, context)
        self._sequence = 0
        self._envelope: dict[str, Any] = {}
        self._blocks: dict[int, _Out] = {}
        self._output: list[dict[str, Any]] = []
        self._count = 0  # output items started
        self._made = dict.fromkeys(MADE_ID_PREFIX.values(), 0)  # ids made, per prefix
        self._held_done: dict[str, Any] | None = None
        self._state = "before"
        self._finish: tuple[str, str] | None = None
        self._usage: LucentUsage | None = None
        self._usage_at = "$"  # where the usage event came from
        self._ended = False
        self._event_type: Any = DECODE_TYPES["ResponseStreamEvent"]
        template = self.context.get("response")
        if template is not None:
            if isinstance(template, Response):
                template = msgspec.to_builtins(template)
            if not isinstance(template, Mapping):
                raise UsageError("context['response'] is a Response object (a mapping)", code="invalid_context")
            check = {k: v for k, v in template.items() if k not in ("output", "usage", "status")}
            check.update(id=check.get("id", ""), model=check.get("model", ""), status="in_progress", output=[], usage=None)
            try:
                build({"type": "response.created", "response": check, "sequence_number": 0}, self._event_type)
            except EncodeError as exc:
                raise UsageError(f"context['response'] is not a Response envelope: {exc.message}", code="invalid_context") from None

    def _emit(self, value: dict[str, Any], out: list[Any]) -> None:
        value["sequence_number"] = self._sequence
        self._sequence += 1
        event = self.written(value, self._event_type)
        if event is not None:
            out.append(event)

    def _response(self, status: str, *, output: list[Any] | None = None, usage: Any = None) -> dict[str, Any]:
        response = dict(self._envelope)
        response["status"] = status
        response["output"] = output if output is not None else []
        response["usage"] = usage
        return response

    def push(self, event: Any, origin: str, out: list[Any]) -> None:
        if isinstance(event, LucentStreamEventConversationStart):
            self._start(event.meta, origin, out)
        elif isinstance(event, LucentStreamEventItemStart):
            if self._state != "before":
                self._sink.report(self.at(origin, ""), "Unsupported", f"a Responses output is one turn; item {event.index} is dropped")
                self._state = "skip"
                return
            self._state = "in"
            assert isinstance(event.item, LucentConversationItemMessage)
            message = event.item.message
            if message.role != "assistant":
                self._sink.report(self.at(origin, ".item.message.role"), "Degraded", "Responses output messages are the assistant's")
            for i, content in enumerate(message.content):
                self._initial(-1 - i, content, self.at(origin, f".item.message.content[{i}]"), out)
        elif isinstance(event, LucentStreamEventItemEnd):
            self._state = "after"
        elif isinstance(event, (LucentStreamEventBlockStart, LucentStreamEventBlockDelta, LucentStreamEventBlockEnd, LucentStreamEventBlockDiscard, LucentStreamEventAnnotations)):
            if self._state == "in":
                self._block(event, origin, out)
        elif isinstance(event, LucentStreamEventFinish):
            self._finish = (event.finish_reason, self.at(origin, ".finish_reason"))
        elif isinstance(event, LucentStreamEventUsage):
            self._usage = event.usage
            self._usage_at = self.at(origin, ".usage")
        elif isinstance(event, LucentStreamEventError):
            self._flush_done(out)
            self._ended = True
            error = event.error
            code = ERROR_CODE.get(error.kind, "server_error")
            if error.provider_code is not UNSET and error.provider_code in _RESPONSE_ERROR_CODES:
                code = error.provider_code
            elif error.provider_code is not UNSET:
                self._sink.report(self.at(origin, ".error.provider_code"), "Degraded", f"not a Responses error code; written as {code}, from the error's kind")
            elif error.kind not in ERROR_CODE:
                self._sink.report(self.at(origin, ".error.kind"), "Degraded", "Responses has no error code for this kind; written as server_error")
            self._emit({"type": "response.failed", "response": {**self._response("failed", output=self._output, usage=None if self._usage is None else usage_from_lux(self._usage, self._usage_at, self._sink)), "error": {"code": code, "message": error.message}}}, out)
        elif isinstance(event, LucentStreamEventDone):
            self._done(out)

    def _start(self, meta: LucentConversationMeta, origin: str, out: list[Any]) -> None:
        template = self.context.get("response")
        envelope: dict[str, Any] = {}
        if isinstance(template, Response):
            template = msgspec.to_builtins(template)
        if isinstance(template, Mapping):
            envelope = {k: v for k, v in template.items() if k not in ("output", "usage", "status")}
        else:
            self._sink.report("target:$", "Degraded", "a Responses stream repeats the request's settings in its response envelope, which a Lux stream does not carry; written as an empty request's defaults (supply context['response'])")
            created = self.context.get("created_at")
            if not isinstance(created, int):
                self._sink.report("target:$.created_at", "Invalid", "a Response has its creation time (created_at), which a Lux stream does not carry; written as 0 (supply context['created_at'])")
                created = 0
            envelope = {"object": "response", "created_at": created, "incomplete_details": None, **copy.deepcopy(REQUEST_DEFAULTS)}
        for key in ("id", "model"):
            value = getattr(meta, key)
            if value is UNSET:
                value = envelope.get(key, self.context.get(key))
                if not isinstance(value, str):
                    self._sink.report(f"target:$.{key}", "Invalid", f"a Response has an {key}, and the Lux stream has none; written as \"\"")
                    value = ""
            envelope[key] = value
        if meta.usage_input is not UNSET:
            self._sink.report(self.at(origin, ".meta.usage_input"), "Degraded", "the input count comes with the usage of response.completed")
        self._envelope = envelope
        self._emit({"type": "response.created", "response": self._response("in_progress")}, out)
        self._emit({"type": "response.in_progress", "response": self._response("in_progress")}, out)

    def _initial(self, key: int, content: Any, origin: str, out: list[Any]) -> None:
        if isinstance(content, LucentContentText):
            self._block(LucentStreamEventBlockStart(index=key, block_type="text"), origin, out)
            self._block(LucentStreamEventBlockDelta(index=key, delta=LucentBlockDeltaText(text=content.text)), origin, out)
        elif isinstance(content, LucentContentRefusal):
            self._block(LucentStreamEventBlockStart(index=key, block_type="refusal"), origin, out)
            self._block(LucentStreamEventBlockDelta(index=key, delta=LucentBlockDeltaRefusal(text=content.refusal)), origin, out)
        elif isinstance(content, LucentContentThinking):
            self._block(LucentStreamEventBlockStart(index=key, block_type="thinking"), origin, out)
            self._block(LucentStreamEventBlockDelta(index=key, delta=LucentBlockDeltaThinking(text=content.thinking.text)), origin, out)
            if content.thinking.signature is not UNSET:
                self._block(LucentStreamEventBlockDelta(index=key, delta=LucentBlockDeltaSignature(signature=content.thinking.signature)), origin, out)
        elif isinstance(content, LucentContentToolUse):
            call = content.tool_use
            self._block(LucentStreamEventBlockStart(index=key, block_type=LucentBlockTypeToolCall(id=call.id, name=call.name)), origin, out)
            self._block(LucentStreamEventBlockDelta(index=key, delta=LucentBlockDeltaToolArguments(arguments=call.arguments)), origin, out)
        else:
            self._sink.report(origin, "Unsupported", "a Responses stream cannot carry this content; dropped")
            return
        self._block(LucentStreamEventBlockEnd(index=key), origin, out)

    def _block(self, event: Any, origin: str, out: list[Any]) -> None:
        if isinstance(event, LucentStreamEventBlockStart):
            self._start_block(event, origin, out)
            return
        block = self._blocks.get(event.index)
        if block is None or block.kind == "drop":
            return
        common = {"item_id": block.id, "output_index": block.index}
        if isinstance(event, LucentStreamEventBlockDelta):
            delta = event.delta
            if isinstance(delta, LucentBlockDeltaSignature):
                block.signature = delta.signature
                self._sink.report(self.at(origin, ".delta.signature"), "Degraded", SIGNATURE_WRITTEN)
                return
            text = delta.arguments if isinstance(delta, LucentBlockDeltaToolArguments) else delta.text
            if not text:
                return
            block.text.append(text)
            if block.kind == "reasoning":  # the thinking text is the item's reasoning_text content, as the document converter writes it
                self._emit({"type": "response.reasoning_text.delta", **common, "content_index": 0, "delta": text}, out)
            elif block.kind == "text":
                self._emit({"type": "response.output_text.delta", **common, "content_index": block.part, "delta": text, "logprobs": []}, out)
            elif block.kind == "refusal":
                self._emit({"type": "response.refusal.delta", **common, "content_index": block.part, "delta": text}, out)
            else:
                self._emit({"type": "response.function_call_arguments.delta", **common, "delta": text}, out)
        elif isinstance(event, LucentStreamEventBlockEnd):
            self._end_block(block, out)
        elif isinstance(event, LucentStreamEventBlockDiscard):
            self._sink.report(self.at(origin, ""), "Invalid", "the output item was written already, and a Responses stream cannot take it back; it stays")
            self._end_block(block, out)
        else:
            self._sink.report(self.at(origin, ".annotations"), "Unsupported", "Lux annotations are not written as Responses annotations; dropped")

    def _continued(self, event: LucentStreamEventBlockStart, origin: str, out: list[Any]) -> bool:
        """A text or refusal block right after one (the message item's output_item.done still
        held, no block open): the next content part of that message item, as the document
        converter makes one message item of consecutive text and refusal blocks."""
        held = self._held_done
        if event.block_type not in ("text", "refusal") or held is None or held["item"].get("type") != "message":
            return False
        if any(b.kind != "drop" for b in self._blocks.values()):
            return False
        self._held_done = None
        item = held["item"]
        block = _Out(str(event.block_type), held["output_index"], item["id"], part=len(item["content"]), before=list(item["content"]))
        self._blocks[event.index] = block
        part = {"type": "output_text", "annotations": [], "logprobs": [], "text": ""} if block.kind == "text" else {"type": "refusal", "refusal": ""}
        self._emit({"type": "response.content_part.added", "item_id": block.id, "output_index": block.index, "content_index": block.part, "part": part}, out)
        return True

    def _start_block(self, event: LucentStreamEventBlockStart, origin: str, out: list[Any]) -> None:
        if self._continued(event, origin, out):
            return
        self._flush_done(out)
        kind = event.block_type
        n = self._count
        if kind == "thinking":
            block = _Out("reasoning", n, self._made_id(MADE_ID_PREFIX["reasoning"]))
            item: dict[str, Any] = {"id": block.id, "type": "reasoning", "summary": []}
        elif kind in ("text", "refusal"):
            block = _Out(str(kind), n, self._made_id(MADE_ID_PREFIX["message"]))
            item = {"id": block.id, "type": "message", "status": "in_progress", "content": [], "role": "assistant"}
        elif isinstance(kind, LucentBlockTypeToolCall):
            block = _Out("call", n, self._made_id(MADE_ID_PREFIX["function_call"]), call=kind)
            item = {"id": block.id, "type": "function_call", "status": "in_progress", "arguments": "", "call_id": kind.id, "name": kind.name}
        else:
            self._blocks[event.index] = _Out("drop", -1, "")
            self._sink.report(self.at(origin, ".block_type"), "Unsupported", f"a Responses stream cannot carry a {kind} block; dropped")
            return
        self._sink.report(self.at(origin, ""), "Degraded", f"a Lux block has no output item id: written as {block.kind}-kind id <prefix>_lucent_<n>")
        self._blocks[event.index] = block
        self._count += 1
        self._emit({"type": "response.output_item.added", "output_index": n, "item": item}, out)
        if block.kind in ("text", "refusal"):
            part = {"type": "output_text", "annotations": [], "logprobs": [], "text": ""} if block.kind == "text" else {"type": "refusal", "refusal": ""}
            self._emit({"type": "response.content_part.added", "item_id": block.id, "output_index": n, "content_index": 0, "part": part}, out)

    def _made_id(self, prefix: str) -> str:
        """``<prefix>_lucent_<n>``, n counting the ids of the prefix from 1 (the document
        converter's ids: ``lucent.formats.openai_responses.transforms._made_id``)."""
        self._made[prefix] += 1
        return f"{prefix}_lucent_{self._made[prefix]}"

    def _end_block(self, block: _Out, out: list[Any]) -> None:
        common = {"item_id": block.id, "output_index": block.index}
        text = "".join(block.text)
        item: dict[str, Any]
        part: dict[str, Any]
        if block.kind == "reasoning":
            item = {"id": block.id, "type": "reasoning", "summary": []}
            if block.text:
                self._emit({"type": "response.reasoning_text.done", **common, "content_index": 0, "text": text}, out)
                item["content"] = [{"type": "reasoning_text", "text": text}]
            if block.signature is not None:
                item["encrypted_content"] = block.signature
        elif block.kind in ("text", "refusal"):
            if block.kind == "text":
                self._emit({"type": "response.output_text.done", **common, "content_index": block.part, "text": text, "logprobs": []}, out)
                part = {"type": "output_text", "annotations": [], "logprobs": [], "text": text}
            else:
                self._emit({"type": "response.refusal.done", **common, "content_index": block.part, "refusal": text}, out)
                part = {"type": "refusal", "refusal": text}
            self._emit({"type": "response.content_part.done", **common, "content_index": block.part, "part": part}, out)
            item = {"id": block.id, "type": "message", "status": "completed", "content": [*block.before, part], "role": "assistant"}
        else:
            assert block.call is not None
            if not text:  # a Lux tool call that streamed no arguments takes none: "{}", as the Lux assembler
                text = "{}"
                self._emit({"type": "response.function_call_arguments.delta", **common, "delta": text}, out)
            done: dict[str, Any] = {"type": "response.function_call_arguments.done", **common, "arguments": text}
            if DONE_NEEDS_NAME:
                done["name"] = block.call.name
            self._emit(done, out)
            item = {"id": block.id, "type": "function_call", "status": "completed", "arguments": text, "call_id": block.call.id, "name": block.call.name}
        block.kind = "drop"
        block.text = []
        while len(self._output) <= block.index:
            self._output.append({})
        self._output[block.index] = item
        # The last item's output_item.done waits for the finish: a truncated message is
        # "incomplete" (the API's status), which only the Lux finish says.
        self._flush_done(out)
        self._held_done = {"type": "response.output_item.done", "output_index": block.index, "item": item}

    def _flush_done(self, out: list[Any], reason: str | None = None) -> None:
        held = self._held_done
        if held is None:
            return
        self._held_done = None
        if reason is not None and held["item"].get("type") == "message":
            held["item"]["status"] = item_status("message", True, STATUS_FROM_LUX[reason][0])
        self._emit(held, out)

    def _done(self, out: list[Any]) -> None:
        if self._ended:
            return
        usage = None if self._usage is None else usage_from_lux(self._usage, self._usage_at, self._sink)
        reason, where = self._finish if self._finish is not None else ("stop", "$")
        self._flush_done(out, reason)
        status, incomplete = STATUS_FROM_LUX[reason]
        if status == "incomplete":
            if reason in DEGRADED_FINISH:
                self._sink.report(where, "Degraded", f"Responses has no {reason} finish; written as status incomplete")
            response = self._response("incomplete", output=self._output, usage=usage)
            response["incomplete_details"] = {"reason": incomplete}
            self._emit({"type": "response.incomplete", "response": response}, out)
            return
        if status == "failed":  # the document's rule (transforms.lux_error): a failed response states its error
            if reason in DEGRADED_FINISH:
                self._sink.report(where, "Degraded", f"Responses has no {reason} finish; written as status failed")
            self._emit({"type": "response.failed", "response": {**self._response("failed", output=self._output, usage=usage), "error": dict(FAILURE_ERROR[reason])}}, out)
            return
        self._emit({"type": "response.completed", "response": self._response("completed", output=self._output, usage=usage)}, out)
