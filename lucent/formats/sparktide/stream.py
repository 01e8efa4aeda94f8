"""SparkTide stream frames (``RemoteModelStreamFrame``) <-> Lux stream events.

Reading (frames -> Lux), with the rules of :class:`~lucent.formats.sparktide.assembler.SparkTideAssembler`:
the text block is Lux block 0 and tool call ``n`` is block ``n + 1`` (content order is text
first, as in the documents); ``model.completed`` gives ``finish`` (its ``finishReason``:
only streams carry one, a RemoteModelResponse has none), then ``usage`` and ``done``.

Writing (Lux -> frames): text arrives as ``text.delta`` (text blocks joined with ``"\\n"``, as
the document converter joins them); each tool call as ``tool.delta`` frames at its own index,
counting tool calls only (0, 1, ... in the order they start); then one ``usage`` frame, then
exactly one terminal frame, ``model.completed`` or ``model.error``, last. No ``[DONE]``. An
empty Lux text next to tool calls reads as null content in SparkTide (Degraded); a SparkTide
target past 4 MiB is Invalid.

Usage, error codes and derived finish reasons are the document converters' own
(``lucent.formats.sparktide.transforms``, the generated response and error converters).
"""

from __future__ import annotations

from collections import deque
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import msgspec
from msgspec import UNSET

from lucent._conversion import Cx
from lucent._stream_hub import Hub, Key, Status, _assistant_item, _fail, _lux_arguments, _lux_text, _meta, _Reader, _Sink
from lucent._stream_one_message import _Block, _OneMessageWriter
from lucent._validation import RuleViolation, check_json_object_text, described
from lucent._stream_base import CallIdentities
from lucent.formats.sparktide.assembler import MAX_TOOL_CALLS, SparkCall, completed_arguments, tool_delta
from lucent.formats.sparktide.tables import FINISH_FROM_SPARKTIDE, FINISH_TO_SPARKTIDE, JOINED_TEXT, NO_DOCUMENT_FINISH
from lucent.formats.sparktide.transforms import usage_to_lux
from lucent.generated.convert_lux_sparktide_error import lux_to_sparktide_error
from lucent.generated.convert_lux_sparktide_response import lux_to_sparktide_response
from lucent.generated.convert_sparktide_lux_error import sparktide_to_lux_error
from lucent.generated.lux_ir_v1 import (
    LucentBlockTypeToolCall,
    LucentResponse,
    LucentStreamEventBlockEnd,
    LucentStreamEventBlockStart,
    LucentStreamEventConversationStart,
    LucentStreamEventDone,
    LucentStreamEventError,
    LucentStreamEventFinish,
    LucentStreamEventItemEnd,
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


@dataclass
class _SparkCall(SparkCall):
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
        self._identities = CallIdentities(self._failed, self._declared)
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
        call = tool_delta(frame, index, self._calls, lambda first: _SparkCall(first=first, last=first), self._identities, self._failed)
        if frame.arguments is not UNSET:
            if call.started and frame.arguments:
                out.append((_lux_arguments(n + 1, frame.arguments), f"{at}.arguments"))
        if not call.started and call.id is not None and call.name is not None:
            call.started = True
            self._open_item(out, at)
            out.append((LucentStreamEventBlockStart(index=n + 1, block_type=LucentBlockTypeToolCall(id=call.id, name=call.name)), at))
            pending = "".join(call.arguments)
            if pending:
                out.append((_lux_arguments(n + 1, pending), f"{at}.arguments"))

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
        completed_arguments(frame, index, self._calls, self._identities, self._failed)
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
        self._first_text: str | None = None  # where the first text block began (joined when another follows)
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
                if self._texts_begun == 1 and self._first_text is not None:  # the text before it is joined too
                    self._sink.report(self._first_text, "Degraded", JOINED_TEXT)
                self._sink.report(block.origin, "Degraded", JOINED_TEXT)
                out.append(RemoteModelTextDelta(protocolVersion="1.0", text="\n"))
            else:
                self._first_text = block.origin
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
        if code == "LENGTH" and self._tools:
            code = "TOOL_CALLS"
            # what the content makes of the finish: the envelope's document, content emptied, cannot say it
            self._sink.report_content(where, "Unsupported", f"SparkTide finishes with STOP, TOOL_CALLS or LENGTH, and LENGTH never with tool calls; {reason} is written as {code}")
        elif code is None:
            code = "TOOL_CALLS" if self._tools else "STOP"
            self._sink.report(where, "Unsupported", f"SparkTide finishes with STOP, TOOL_CALLS or LENGTH, and LENGTH never with tool calls; {reason} is written as {code}")
        message = self._message_at if self._message_at is not None else self.at(origin, "")  # as the document names it
        if not self._texts_begun and not self._tools:
            self._sink.report(message, "Degraded", 'neither text nor tool calls; the message content reads as ""')
        elif self._texts_begun and not self._text_written and self._tools:
            self._sink.report(message, "Degraded", 'the text is empty, and next to tool calls a SparkTide stream cannot tell content "" from no content: it reads as null')
        self._write_usage(out)
        self._terminal = True
        out.append(RemoteModelCompleted(protocolVersion="1.0", finishReason=code))


def stream_view(found: list[tuple[str, str, str]], reason: str | None, tool_calls: bool) -> list[tuple[str, str, str]]:
    """The diagnostics (field, status, detail) of converting a response to a SparkTide *document*,
    as a SparkTide *stream* has them: a RemoteModelResponse has no finish reason
    (:data:`~lucent.formats.sparktide.tables.NO_DOCUMENT_FINISH`), while a stream states the Lux
    ``reason`` in ``model.completed`` when it is STOP, TOOL_CALLS or LENGTH without
    ``tool_calls``; then that diagnostic names no loss (any other reason the stream writer
    reports itself, as the document does)."""
    if reason not in FINISH_TO_SPARKTIDE or (reason == "length" and tool_calls):
        return found
    return [(f, s, d) for f, s, d in found if d != NO_DOCUMENT_FINISH]
