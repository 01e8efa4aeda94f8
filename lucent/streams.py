"""Streams: read a streamed response and assemble it into the format's final response.

Seven formats, each with its own event Struct (generated, in ``lucent.generated``):

* ``sparktide``: ``RemoteModelStreamFrame`` (sparktide-remote-1.0
  ``#/$defs/RemoteModelStreamFrame``) -> ``RemoteModelResponse``;
* ``llm-sdk``: ``PartialModelResponse`` (llm-sdk ``#/definitions/PartialModelResponse``) ->
  ``ModelResponse``;
* ``lux``: ``LucentStreamEvent`` (lux-ir-v1 ``#/definitions/LucentStreamEvent``) ->
  ``LucentResponse``;
* ``openai-chat``: ``CreateChatCompletionStreamResponse`` (schemas/vendor/openai-chat.json) ->
  ``CreateChatCompletionResponse``; the SSE stream ends with ``data: [DONE]``
  (:mod:`lucent.formats.openai_chat.assembler`);
* ``openai-responses``: ``ResponseStreamEvent`` -> ``Response``, the terminal event's response
  checked against the deltas (:mod:`lucent.formats.openai_responses.assembler`);
* ``anthropic``: ``MessageStreamEvent`` (and the ``ping``/``error`` events the published union
  lacks, :mod:`lucent.formats.anthropic.events`) -> ``Message`` (:mod:`lucent.formats.anthropic.assembler`);
* ``gemini``: ``GenerateContentResponse`` chunks (``alt=sse``) -> ``GenerateContentResponse``
  (:mod:`lucent.formats.gemini.assembler`).

The vendor specs state no size cap: the 4 MiB cap is SparkTide's alone.

A source is any of: the whole ``text/event-stream`` as bytes; the whole stream as the bytes of
one JSON array of events (the form of lingua's ``*-streaming.json`` recordings: bytes whose
first character, after a byte order mark and whitespace, is ``[``); an iterable (or, for the
async functions, an async iterable) of byte chunks split anywhere; an iterable of events, either
generated Structs or JSON objects (``dict``). On the wire each event is one SSE event whose
``data`` is the event's JSON; other SSE fields (``event``, ``id``, ``retry``) and comments are
ignored. An event object is read as its JSON text would be: one that nests too deeply to
write is ``malformed_frame``, and NaN or infinity in it is ``invalid_frame`` (msgspec would
write ``null``, a silent change). Memory stays constant but for the content being assembled: the SSE parser holds one
unfinished line and event (see :mod:`lucent.sse`).

Errors are :class:`~lucent.errors.StreamError` with ``.code``, ``.path`` (``$[3]`` is the fourth
frame/event, ``$[3].arguments`` a field of it) and ``.usage`` (the usage received before the
failure, kept). The codes, one per class of failure:

* reading, any format: ``interrupted`` (the source raised, or ended inside a frame),
  ``invalid_utf8`` (``.offset``), ``done_sentinel`` (a ``[DONE]`` frame; for openai-chat it is
  the terminator instead: ``missing_terminal`` when an SSE stream ends without it,
  ``data_after_terminal`` / ``duplicate_terminal`` after it), ``malformed_frame``
  (not one JSON object, or an event object too deep to write; for SparkTide also an event with several
  ``data:`` lines),
  ``unknown_frame`` (a type tag the schema does not define), ``invalid_frame`` (the schema
  rejects the frame: unknown field, wrong ``protocolVersion``, ...); the limits
  (:class:`lucent.Limits`, checked before the bytes are parsed): ``stream_too_large`` (over
  ``max_stream_bytes``: SparkTide's 4 MiB, else 64 MiB), ``max_depth`` (a frame nesting deeper
  than ``max_depth``, 512);
* sparktide (``RemoteModelStreamFrame``'s description and sparktide-docs/SOURCE.md):
  ``stream_too_large`` (over 4 MiB), ``too_many_tool_calls`` (index above 15),
  ``duplicate_terminal``, ``data_after_terminal``, ``missing_terminal``, ``duplicate_call_id``,
  ``tool_identity_changed``, ``tool_name_not_declared`` (with ``tools``), ``incomplete_tool_call``
  (no id or name), ``malformed_arguments`` (the concatenation is not one closed JSON object, as
  ``lucent.decode`` reads it: a number out of range such as ``1e999``, nesting deeper than
  ``lucent._validation.MAX_JSON_TEXT_DEPTH`` or a lone surrogate is refused too),
  ``length_with_tool_calls``, ``model_error`` (a ``model.error`` frame; ``.error`` is the frame);
* llm-sdk: ``part_type_changed``, ``tool_identity_changed``, ``part_field_changed`` (a part id or
  audio format field changed), ``tool_name_not_declared``, ``incomplete_tool_call``,
  ``malformed_arguments`` (as for SparkTide, but ``null`` is allowed: ``args`` are never read
  as ``inf``, which has no JSON text), ``malformed_audio`` (not base64);
* lux, whose lifecycle lucent reads from ``#/definitions/LucentStreamEvent`` as
  ``conversation_start (item_start (block_start (block_delta | annotations)* (block_end |
  block_discard))* item_end)* finish usage* error? done``, one item per choice (a ``message``
  item; ``item_start.index`` is the choice index), blocks at their index within the item (after
  the item's initial content), a signature delta replacing the signature, a tool block with no
  arguments getting ``"{}"``: ``missing_conversation_start``,
  ``duplicate_conversation_start``, ``item_not_open``, ``item_not_closed``,
  ``duplicate_item_index``, ``unsupported_item`` (not a message), ``block_not_open``,
  ``block_not_closed``, ``duplicate_block_index``, ``unsupported_block`` (a media block),
  ``delta_type_mismatch``, ``duplicate_finish``, ``missing_finish``, ``missing_meta``,
  ``duplicate_error``, ``tool_name_not_declared``, ``duplicate_terminal``,
  ``data_after_terminal``, ``missing_terminal`` (no ``done``), ``model_error`` (an ``error``
  event; ``.error`` is the ``LucentError``);
* openai-chat: ``response_identity_changed`` (a chunk changes ``id``, ``model`` or a choice's
  role), ``data_after_finish`` / ``duplicate_finish`` (a choice gets content or a second
  ``finish_reason`` after its ``finish_reason``), ``missing_finish`` (a choice never finished),
  ``tool_identity_changed``, ``duplicate_call_id``, ``incomplete_tool_call`` (an index that never
  got its id or function name), ``tool_name_not_declared``, ``missing_terminal`` (no chunk);
  arguments are kept as the model wrote them (the spec: "may not be valid JSON");
* openai-responses: ``sequence_out_of_order`` (``sequence_number`` is not the previous + 1),
  ``missing_response_created``, ``duplicate_item_index``, ``index_out_of_order`` (an
  ``output_index``, ``content_index``, ``summary_index``, ``annotation_index`` or
  ``partial_image_index`` that adds an entry is not the next: 0, 1, 2, ...), ``item_not_open``
  (an event names an output item never added, or done), ``item_type_mismatch`` (an event of
  another kind of item, e.g. ``reasoning_summary_text.delta`` naming a ``message``; an
  ``output_item.done`` of another type), ``item_id_mismatch`` (``item_id`` is not the named
  item's ``id``), ``duplicate_part_index``, ``part_not_open`` (a content or summary part never
  added, or done), ``part_type_mismatch`` (``output_text.delta`` to a ``refusal`` part, a part
  the item cannot hold), ``item_not_closed``, ``delta_mismatch`` (a ``*.done`` event, a
  ``*_part.done`` part, an ``output_item.done`` item or the terminal response holds a text that
  the deltas do not build, or a part that was not added), ``tool_name_not_declared``,
  ``duplicate_terminal``, ``data_after_terminal``, ``missing_terminal``, ``model_error``
  (``response.failed`` or ``error``; ``.error`` is the event); the rules are
  :mod:`lucent.formats.openai_responses.stream_items`'s, shared by ``assemble`` and ``convert_stream``;
* anthropic: ``missing_message_start``, ``duplicate_message_start``, ``duplicate_block_index``,
  ``block_not_open``, ``block_not_closed`` (``message_delta``/``message_stop`` with a block
  open), ``delta_type_mismatch`` (e.g. ``text_delta`` to a ``tool_use`` block),
  ``malformed_arguments`` (the ``input_json_delta`` pieces are not one JSON object),
  ``tool_name_not_declared``, ``duplicate_terminal``, ``data_after_terminal``,
  ``missing_terminal`` (no ``message_stop``), ``model_error`` (an ``error`` event; ``.error``);
* gemini: ``response_identity_changed`` (``responseId``, ``modelVersion``, a candidate's role),
  ``missing_finish`` (a candidate without ``finishReason``: the stream was cut off),
  ``data_after_finish`` (parts or a second ``finishReason`` after it), ``incomplete_tool_call`` (a ``functionCall`` without
  ``name``, in a conversion), ``tool_name_not_declared``, ``missing_terminal`` (no chunk).

:func:`convert_stream` converts a stream to another format event by event (source -> Lux
events -> target), in constant memory but for the blocks still open; :func:`iter_events` reads
and validates one frame at a time, an :class:`Assembler` checks the rules across frames, and
:func:`encode_sse` writes events back as SSE.
"""

from __future__ import annotations

from collections.abc import AsyncIterable, AsyncIterator, Iterable, Iterator, Mapping
from typing import TYPE_CHECKING, Any, Literal, overload

import msgspec

from lucent._first_use import imported
from lucent._limits import Limits
from lucent._stream_base import Assembler
from lucent._stream_read import aframes, frames, non_finite_path, spec
from lucent.errors import EncodeError, LucentError, StreamError, UsageError
from lucent.formats import FORMATS as _REGISTRY

if TYPE_CHECKING:
    from lucent._stream_convert import AsyncStreamConversion, StreamConversion
    from lucent.formats.anthropic.events import AnthropicErrorEvent, AnthropicPingEvent
    from lucent.generated.anthropic import Message, MessageStreamEvent
    from lucent.generated.gemini import GenerateContentResponse  # also one chunk of a Gemini stream
    from lucent.generated.llm_sdk import ModelResponse, PartialModelResponse
    from lucent.generated.lux_ir_v1 import LucentResponse, LucentStreamEvent
    from lucent.generated.openai_chat import CreateChatCompletionResponse, CreateChatCompletionStreamResponse
    from lucent.generated.openai_responses import Response, ResponseStreamEvent
    from lucent.generated.sparktide_remote_1_0 import RemoteModelResponse, RemoteModelStreamFrame

__all__ = [
    "FORMATS",
    "Assembler",
    "AsyncStreamConversion",
    "StreamConversion",
    "aconvert_stream",
    "aiter_events",
    "assemble",
    "assemble_async",
    "assembler",
    "convert_stream",
    "encode_sse",
    "iter_events",
]

FORMATS: tuple[str, ...] = tuple(name for name, f in _REGISTRY.items() if f.stream is not None)
"""The stream format names: the formats of :data:`lucent.formats.FORMATS` that stream."""

_ASSEMBLERS: dict[str, tuple[str, str]] = {
    name: (module, cls) for name, f in _REGISTRY.items() if f.stream is not None for module, _, cls in [f.stream.assembler.partition(":")]
}
"""Format name -> (module, class) of its Assembler; the module (and the format's bindings) is
imported when the first stream of that format is read."""


def __getattr__(name: str) -> Any:
    # The stream converter imports converters of every format: only when first used.
    if name in ("StreamConversion", "AsyncStreamConversion"):
        return getattr(imported("lucent._stream_convert"), name)
    raise AttributeError(f"module 'lucent.streams' has no attribute {name!r}")


def _register(*formats: str) -> None:
    """Load the stream readers and writers of ``formats`` (lucent.formats names their modules)."""
    imported("lucent._stream_convert").register(formats)


Source = bytes | bytearray | memoryview | Iterable[Any]
"""SSE bytes (or the bytes of a JSON array of events), an iterable of byte chunks, or an iterable
of events (Structs or JSON objects)."""

AsyncSource = Source | AsyncIterable[Any]
"""A :data:`Source`, or an async iterable of byte chunks or events."""


def assembler(format: str, *, tools: Iterable[str] | None = None, limits: Limits | None = None) -> Assembler:
    """A fresh :class:`Assembler` for one stream of ``format``.

    Parameters
    ----------
    format : {"sparktide", "llm-sdk", "lux", "openai-chat", "openai-responses", "anthropic", "gemini"}
    tools : Iterable[str], optional
        Tool names the request declared; a call to any other is ``tool_name_not_declared``.

    Raises
    ------
    UsageError
        ``unknown_format``; ``invalid_input_type``: ``tools`` is not an iterable of ``str``.
    """
    spec(format)
    module, name = _ASSEMBLERS[format]
    cls: type[Assembler] = getattr(imported(module), name)
    return cls(tools=tools)


@overload
def assemble(source: Source, format: Literal["sparktide"], *, tools: Iterable[str] | None = None, limits: Limits | None = None) -> RemoteModelResponse: ...
@overload
def assemble(source: Source, format: Literal["llm-sdk"], *, tools: Iterable[str] | None = None, limits: Limits | None = None) -> ModelResponse: ...
@overload
def assemble(source: Source, format: Literal["lux"], *, tools: Iterable[str] | None = None, limits: Limits | None = None) -> LucentResponse: ...
@overload
def assemble(source: Source, format: Literal["openai-chat"], *, tools: Iterable[str] | None = None, limits: Limits | None = None) -> CreateChatCompletionResponse: ...
@overload
def assemble(source: Source, format: Literal["openai-responses"], *, tools: Iterable[str] | None = None, limits: Limits | None = None) -> Response: ...
@overload
def assemble(source: Source, format: Literal["anthropic"], *, tools: Iterable[str] | None = None, limits: Limits | None = None) -> Message: ...
@overload
def assemble(source: Source, format: Literal["gemini"], *, tools: Iterable[str] | None = None, limits: Limits | None = None) -> GenerateContentResponse: ...
@overload
def assemble(source: Source, format: str, *, tools: Iterable[str] | None = None, limits: Limits | None = None) -> Any: ...
def assemble(source: Source, format: str, *, tools: Iterable[str] | None = None, limits: Limits | None = None) -> Any:
    """Read a whole stream and return its final response.

    Parameters
    ----------
    source : bytes, Iterable[bytes] or Iterable[event]
        The ``text/event-stream`` bytes, or the bytes of a JSON array of events; byte chunks
        split anywhere (inside a line, a CRLF pair or a UTF-8 character); or events (generated
        Structs, or JSON objects, validated as if decoded). ``str`` is refused: encode the text.
    format : {"sparktide", "llm-sdk", "lux", "openai-chat", "openai-responses", "anthropic", "gemini"}
    tools : Iterable[str], optional
        The tool names the request declared (SparkTide: "tool names must come from
        request.tools"); checked in every format when given.
    limits : lucent.Limits, optional
        ``max_stream_bytes`` (default: SparkTide 4 MiB, other formats 64 MiB) and ``max_depth``
        of one frame (default 512), each checked before the bytes it protects are parsed.

    Returns
    -------
    Struct
        ``lucent.generated.sparktide_remote_1_0.RemoteModelResponse`` (content ``null`` when the
        reply is only tool calls; ``usage`` is ``{}`` when none arrived),
        ``lucent.generated.llm_sdk.ModelResponse``, ``lucent.generated.lux_ir_v1.LucentResponse``,
        ``lucent.generated.openai_chat.CreateChatCompletionResponse`` (``usage`` only with
        ``stream_options.include_usage``), ``lucent.generated.openai_responses.Response`` (the
        terminal event's), ``lucent.generated.anthropic.Message`` or
        ``lucent.generated.gemini.GenerateContentResponse``.

    Raises
    ------
    StreamError
        The stream broke a rule; the codes are listed in the module docstring. ``.usage`` holds
        the usage received before the failure. ``stream_too_large`` and ``max_depth``: a limit.
    UsageError
        ``unknown_format``, ``invalid_input_type`` (also: ``tools`` is not an iterable of ``str``;
        a chunk, or ``source`` itself, is a released memoryview), ``invalid_limits``. A source
        that raises while read, its ``__iter__`` included, is ``StreamError`` ``interrupted``.
    """
    parts = assembler(format, tools=tools)
    try:
        for event in frames(source, spec(format), limits=limits, keep=True):
            parts.push(event)
        return parts.close()
    except StreamError as exc:
        exc.usage = parts.usage
        raise


@overload
async def assemble_async(source: AsyncSource, format: Literal["sparktide"], *, tools: Iterable[str] | None = None, limits: Limits | None = None) -> RemoteModelResponse: ...
@overload
async def assemble_async(source: AsyncSource, format: Literal["llm-sdk"], *, tools: Iterable[str] | None = None, limits: Limits | None = None) -> ModelResponse: ...
@overload
async def assemble_async(source: AsyncSource, format: Literal["lux"], *, tools: Iterable[str] | None = None, limits: Limits | None = None) -> LucentResponse: ...
@overload
async def assemble_async(source: AsyncSource, format: Literal["openai-chat"], *, tools: Iterable[str] | None = None, limits: Limits | None = None) -> CreateChatCompletionResponse: ...
@overload
async def assemble_async(source: AsyncSource, format: Literal["openai-responses"], *, tools: Iterable[str] | None = None, limits: Limits | None = None) -> Response: ...
@overload
async def assemble_async(source: AsyncSource, format: Literal["anthropic"], *, tools: Iterable[str] | None = None, limits: Limits | None = None) -> Message: ...
@overload
async def assemble_async(source: AsyncSource, format: Literal["gemini"], *, tools: Iterable[str] | None = None, limits: Limits | None = None) -> GenerateContentResponse: ...
@overload
async def assemble_async(source: AsyncSource, format: str, *, tools: Iterable[str] | None = None, limits: Limits | None = None) -> Any: ...
async def assemble_async(source: AsyncSource, format: str, *, tools: Iterable[str] | None = None, limits: Limits | None = None) -> Any:
    """:func:`assemble` for an async source (an HTTP response body, a socket reader).

    ``source`` may also be any sync source. An exception raised by the source while reading
    (a reset connection, a timeout) becomes ``StreamError(code="interrupted")`` with the usage
    received so far; cancellation propagates unchanged.
    """
    parts = assembler(format, tools=tools)
    try:
        async for event in aframes(source, spec(format), limits=limits, keep=True):
            parts.push(event)
        return parts.close()
    except StreamError as exc:
        exc.usage = parts.usage
        raise


def iter_events(source: Source, format: str, *, limits: Limits | None = None) -> Iterator[Any]:
    """The validated events of a stream, one at a time, without assembling them.

    Each event has passed the per-frame rules (UTF-8, no ``[DONE]``, one JSON object, the
    schema, the SparkTide byte cap); the rules across frames are the :class:`Assembler`'s.

    Yields
    ------
    RemoteModelStreamFrame, PartialModelResponse or LucentStreamEvent

    Raises
    ------
    StreamError
        The reading codes (``interrupted``, ``invalid_utf8``, ``done_sentinel``,
        ``malformed_frame``, ``unknown_frame``, ``invalid_frame``, ``stream_too_large``,
        ``max_depth``, ``too_many_tool_calls``); ``limits`` as for :func:`assemble`.
    UsageError
        ``unknown_format``, ``invalid_input_type``.
    """
    return frames(source, spec(format), limits=limits)


def aiter_events(source: AsyncSource, format: str, *, limits: Limits | None = None) -> AsyncIterator[Any]:
    """:func:`iter_events` for an async (or sync) source."""
    return aframes(source, spec(format), limits=limits)


def encode_sse(events: Iterable[Any], format: str | None = None) -> Iterator[bytes]:
    """Each event as one SSE event: ``data: <compact JSON>`` and a blank line (UTF-8).

    The JSON of an event never holds a raw line end, so each frame is one ``data:`` line, as
    SparkTide requires. No ``[DONE]`` is written, except as the format's own terminator:

    Parameters
    ----------
    events : Iterable[event]
    format : str, optional
        The stream format, for what its wire adds around the events: ``"openai-chat"`` ends with
        ``data: [DONE]`` (the Chat Completions terminator); ``"anthropic"`` and
        ``"openai-responses"`` put the event's ``type`` in an ``event:`` field before its data,
        as those APIs do (their SDKs dispatch on it). Other formats (and None) add nothing.

    Raises
    ------
    EncodeError
        ``unencodable``: an event that has no JSON form (NaN and infinity included: msgspec
        would write them as ``null``); ``max_depth``: an event that nests too deeply to write.
    StreamError
        ``interrupted``: ``events`` raised something other than a lucent error while being read
        (lucent errors, such as those of a :class:`StreamConversion`, propagate unchanged).
    UsageError
        ``invalid_input_type``: ``events`` is not an iterable of events.
    """
    if isinstance(events, (str, bytes, bytearray, memoryview, Mapping, msgspec.Struct)) or not isinstance(events, Iterable):
        raise UsageError(f"encode_sse takes an iterable of events, not {type(events).__name__}", code="invalid_input_type")
    if format is not None:
        spec(format)
    try:
        iterator = iter(events)
    except LucentError:
        raise
    except Exception as exc:  # its __iter__ raised
        raise StreamError(f"the events could not be read: {type(exc).__name__}", code="interrupted", path="$[0]") from exc
    return _encode_sse(iterator, format)


_NAMED_EVENTS = frozenset(name for name, f in _REGISTRY.items() if f.stream is not None and f.stream.named_events)
"""The formats whose SSE events carry an ``event:`` line naming their type."""


def _encode_sse(events: Iterator[Any], format: str | None = None) -> Iterator[bytes]:
    named = format in _NAMED_EVENTS
    encoder = msgspec.json.Encoder()
    index = 0
    while True:
        try:
            event = next(events)
        except StopIteration:
            if format == "openai-chat":
                yield b"data: [DONE]\n\n"
            return
        except LucentError:
            raise
        except Exception as exc:
            raise StreamError(f"the events were interrupted before event {index}: {type(exc).__name__}", code="interrupted", path=f"$[{index}]") from exc
        try:
            body = encoder.encode(event)
        except RecursionError:
            raise EncodeError(f"event {index} nests too deeply to encode", code="max_depth", path=f"$[{index}]") from None
        except (msgspec.EncodeError, TypeError, ValueError, OverflowError) as exc:
            raise EncodeError(f"cannot encode event {index}: {exc}", code="unencodable", path=f"$[{index}]") from None
        if b"null" in body:
            found = non_finite_path(event)
            if found is not None:
                raise EncodeError(f"event {index} holds NaN or an infinite number, which JSON cannot carry", code="unencodable", path=f"$[{index}]{found}")
        index += 1
        if named:
            tag = getattr(type(event), "__struct_config__", None)
            name = tag.tag if tag is not None and isinstance(tag.tag, str) else None
            if name is not None:
                yield b"event: " + name.encode() + b"\ndata: " + body + b"\n\n"
                continue
        yield b"data: " + body + b"\n\n"


# The target's event type, for a type checker (held to lucent._stream_read.spec by
# tests/test_convert_typed_values.py).
@overload
def convert_stream(events: Source, source: str, target: Literal["sparktide"], *, context: Mapping[str, Any] | None = None, strict: bool = False, tools: Iterable[str] | None = None, limits: Limits | None = None) -> StreamConversion[RemoteModelStreamFrame]: ...
@overload
def convert_stream(events: Source, source: str, target: Literal["llm-sdk"], *, context: Mapping[str, Any] | None = None, strict: bool = False, tools: Iterable[str] | None = None, limits: Limits | None = None) -> StreamConversion[PartialModelResponse]: ...
@overload
def convert_stream(events: Source, source: str, target: Literal["lux"], *, context: Mapping[str, Any] | None = None, strict: bool = False, tools: Iterable[str] | None = None, limits: Limits | None = None) -> StreamConversion[LucentStreamEvent]: ...
@overload
def convert_stream(events: Source, source: str, target: Literal["openai-chat"], *, context: Mapping[str, Any] | None = None, strict: bool = False, tools: Iterable[str] | None = None, limits: Limits | None = None) -> StreamConversion[CreateChatCompletionStreamResponse]: ...
@overload
def convert_stream(events: Source, source: str, target: Literal["openai-responses"], *, context: Mapping[str, Any] | None = None, strict: bool = False, tools: Iterable[str] | None = None, limits: Limits | None = None) -> StreamConversion[ResponseStreamEvent]: ...
@overload
def convert_stream(events: Source, source: str, target: Literal["anthropic"], *, context: Mapping[str, Any] | None = None, strict: bool = False, tools: Iterable[str] | None = None, limits: Limits | None = None) -> StreamConversion[MessageStreamEvent | AnthropicPingEvent | AnthropicErrorEvent]: ...
@overload
def convert_stream(events: Source, source: str, target: Literal["gemini"], *, context: Mapping[str, Any] | None = None, strict: bool = False, tools: Iterable[str] | None = None, limits: Limits | None = None) -> StreamConversion[GenerateContentResponse]: ...
@overload
def convert_stream(events: Source, source: str, target: str, *, context: Mapping[str, Any] | None = None, strict: bool = False, tools: Iterable[str] | None = None, limits: Limits | None = None) -> StreamConversion[Any]: ...
def convert_stream(
    events: Source,
    source: str,
    target: str,
    *,
    context: Mapping[str, Any] | None = None,
    strict: bool = False,
    tools: Iterable[str] | None = None,
    limits: Limits | None = None,
) -> StreamConversion[Any]:
    """Convert a stream to another format, event by event, through Lux stream events.

    Parameters
    ----------
    events : bytes, Iterable[bytes] or Iterable[event]
        What :func:`assemble` takes: the ``text/event-stream`` bytes, byte chunks split anywhere,
        or events (generated Structs or JSON objects) of ``source``.
    source, target : {"sparktide", "llm-sdk", "lux", "openai-chat", "openai-responses", "anthropic", "gemini"}
        ``source == target`` yields the source events (as Structs) unchanged, with the source's
        rules checked. Any pair goes through Lux events.
    context : Mapping[str, Any], optional
        For a Lux target from SparkTide or llm-sdk, ``id`` and ``model`` for
        ``conversation_start.meta`` (the source has neither; missing, each is an Invalid
        diagnostic ``target:$.id``/``target:$.model``, never invented). For a vendor target,
        the envelope values a Lux stream does not carry: openai-chat ``created`` (required;
        without it 0 and Invalid ``target:$.created``), ``system_fingerprint``,
        ``service_tier``; openai-responses ``response`` (a Response object whose envelope
        members, the request settings it repeats, are written as they are; without it an
        empty request's defaults, Degraded) or ``created_at``; ``id``/``model`` when the Lux
        stream has none; a gemini source ``id``/``model`` when its chunks lack
        ``responseId``/``modelVersion``. The names are the ones :func:`lucent.convert` reads
        for the same values (``created`` for openai-chat, ``created_at`` for openai-responses).
        A key the conversion does not read raises ``invalid_context`` at once (its path
        ``$.<key>``; the message names it and the keys read: each reader's and writer's
        ``context_keys``, ``lucent._context``). The vendor readers and writers are described in
        ``lucent.formats.<format>.stream``.
    strict : bool, default False
        Raise :class:`~lucent.errors.ConversionError` (``conversion_lossy``) at the first
        Unsupported or Invalid diagnostic, before the target event that would carry the loss.
    tools : Iterable[str], optional
        The tool names the request declared (``tool_name_not_declared`` otherwise).
    limits : lucent.Limits, optional
        Caps on the source stream, as for :func:`assemble`.

    Returns
    -------
    StreamConversion
        An iterator of target events: ``RemoteModelStreamFrame`` (sparktide-remote-1.0
        ``#/$defs/RemoteModelStreamFrame``), ``LucentStreamEvent`` (lux-ir-v1
        ``#/definitions/LucentStreamEvent``) or ``PartialModelResponse`` (llm-sdk
        ``#/definitions/PartialModelResponse``) Structs, or the vendor format's events; write
        them with :func:`encode_sse` (``format=target`` for a vendor target).
        ``.diagnostics`` lists every loss (``ConversionDiagnostic``; ``field`` is a path in the
        source stream, ``$[3]`` its fourth event), complete once the iterator is exhausted. A
        member of a Lux source event that the schema does not define (Lux objects are open) is
        Unsupported at its path, for every target, Lux included: the event Structs drop it, as
        :func:`lucent.convert` reports for documents. (:func:`assemble` drops such members
        without a report: it has no diagnostics; convert the stream to see them.)
        A target event that the target schema refuses although the source was valid (an
        Anthropic tool name ``""`` or an id outside its pattern, a negative count) is an
        Invalid diagnostic at the source event, naming the member and the rule, and is written
        as it is, as :func:`lucent.convert` returns a document its target schema refuses.

        Each target gets what its format expects: tool-call indexes counted for the target
        (SparkTide counts tool calls only, llm-sdk all parts, 0, 1, ... in the order they
        start); SparkTide gets its usage frame before exactly one terminal frame, last; Lux
        ``finish``, ``usage``, then one ``done``; llm-sdk has no usage, finish or terminal value
        (reported), so its stream just ends. No ``[DONE]`` is ever written.

    Raises
    ------
    StreamError
        While iterating: the source breaks a rule of its stream (the codes of :func:`assemble`,
        at the event that breaks it, after the target events before it); ``model_error`` for an
        llm-sdk target when the source reports a model error (SparkTide and Lux targets get the
        error as their own error event instead). ``.usage`` is the source usage received.
    ConversionError
        While iterating, with ``strict=True``: a loss (``.diagnostics`` holds all so far).
    UsageError
        At once: ``unknown_format``, ``invalid_input_type`` (also: ``tools`` is not an iterable
        of ``str``, ``strict`` has no truth value), ``invalid_context`` (not a mapping, one
        that raises while read, or a key the conversion does not read). While iterating: ``invalid_input_type`` for a chunk that is
        not bytes or is a released memoryview.
    """
    _register(source, target)
    conversion: type[StreamConversion[Any]] = imported("lucent._stream_convert").StreamConversion
    return conversion(events, source, target, context=context, strict=strict, tools=tools, limits=limits)



# The target's event type, for a type checker (held to lucent._stream_read.spec by
# tests/test_convert_typed_values.py).
@overload
def aconvert_stream(events: AsyncSource, source: str, target: Literal["sparktide"], *, context: Mapping[str, Any] | None = None, strict: bool = False, tools: Iterable[str] | None = None, limits: Limits | None = None) -> AsyncStreamConversion[RemoteModelStreamFrame]: ...
@overload
def aconvert_stream(events: AsyncSource, source: str, target: Literal["llm-sdk"], *, context: Mapping[str, Any] | None = None, strict: bool = False, tools: Iterable[str] | None = None, limits: Limits | None = None) -> AsyncStreamConversion[PartialModelResponse]: ...
@overload
def aconvert_stream(events: AsyncSource, source: str, target: Literal["lux"], *, context: Mapping[str, Any] | None = None, strict: bool = False, tools: Iterable[str] | None = None, limits: Limits | None = None) -> AsyncStreamConversion[LucentStreamEvent]: ...
@overload
def aconvert_stream(events: AsyncSource, source: str, target: Literal["openai-chat"], *, context: Mapping[str, Any] | None = None, strict: bool = False, tools: Iterable[str] | None = None, limits: Limits | None = None) -> AsyncStreamConversion[CreateChatCompletionStreamResponse]: ...
@overload
def aconvert_stream(events: AsyncSource, source: str, target: Literal["openai-responses"], *, context: Mapping[str, Any] | None = None, strict: bool = False, tools: Iterable[str] | None = None, limits: Limits | None = None) -> AsyncStreamConversion[ResponseStreamEvent]: ...
@overload
def aconvert_stream(events: AsyncSource, source: str, target: Literal["anthropic"], *, context: Mapping[str, Any] | None = None, strict: bool = False, tools: Iterable[str] | None = None, limits: Limits | None = None) -> AsyncStreamConversion[MessageStreamEvent | AnthropicPingEvent | AnthropicErrorEvent]: ...
@overload
def aconvert_stream(events: AsyncSource, source: str, target: Literal["gemini"], *, context: Mapping[str, Any] | None = None, strict: bool = False, tools: Iterable[str] | None = None, limits: Limits | None = None) -> AsyncStreamConversion[GenerateContentResponse]: ...
@overload
def aconvert_stream(events: AsyncSource, source: str, target: str, *, context: Mapping[str, Any] | None = None, strict: bool = False, tools: Iterable[str] | None = None, limits: Limits | None = None) -> AsyncStreamConversion[Any]: ...
def aconvert_stream(
    events: AsyncSource,
    source: str,
    target: str,
    *,
    context: Mapping[str, Any] | None = None,
    strict: bool = False,
    tools: Iterable[str] | None = None,
    limits: Limits | None = None,
) -> AsyncStreamConversion[Any]:
    """:func:`convert_stream` for an async (or sync) source: ``async for`` the target events.

    An exception raised by the source while reading becomes ``StreamError(code="interrupted")``;
    cancellation propagates unchanged.
    """
    _register(source, target)
    conversion: type[AsyncStreamConversion[Any]] = imported("lucent._stream_convert").AsyncStreamConversion
    return conversion(events, source, target, context=context, strict=strict, tools=tools, limits=limits)
