"""Stream conversion, event by event: the pipeline source -> Lux events -> target.

Every pair goes source -> Lux events -> target (Lux is the hub): a *reader* checks the rules of
the source stream across frames (the codes of its assembler) and turns each source event into
Lux events; a *writer* turns each Lux event into the target's events. Nothing accumulates but the
state of the blocks that are still open (a tool call's arguments, kept to check them when the
call ends; text that waits behind an earlier text block), so memory stays constant for a stream
of any length.

Each format's reader and writer are in ``lucent/formats/<name>/stream.py`` (the format registry,
:class:`lucent.formats.Stream`, names them; their shared base is :mod:`lucent._stream_hub`), and
its module docstring says what a target of that format gets.

``source == target`` passes the events unchanged, with the source's rules checked. Against
converting the assembled response, a stream conversion differs only where a stream says more
or less than a document, and each difference is reported: a SparkTide stream's finish reason is
carried (a RemoteModelResponse has none, so the document converter derives one); an llm-sdk
stream has no usage; a block that starts before a lower-indexed one is numbered as it starts
(Degraded); the others are named in the format's stream module.

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

from __future__ import annotations

import re
from collections.abc import AsyncIterator, Iterable, Iterator, Mapping
from typing import Any, Generic, TypeVar, cast

from lucent._context import DeclaredContext, reader_keys, refuse_unknown, stream_keys
from lucent._first_use import LOCK, imported
from lucent._limits import Limits, limits_of
from lucent._stream_base import context_of, flag, tool_names
from lucent._stream_hub import Hub, _Reader, _Sink, _Unreported, _Writer
from lucent._stream_read import _check_source, aframes, frames, spec
from lucent.errors import StreamError
from lucent.formats import FORMATS as _REGISTRY
from lucent.generated.lucent_diagnostics_v1 import ConversionDiagnostic
from lucent.generated.lux_ir_v1 import LucentStreamEventConversationStart, LucentStreamEventUsage

UNKNOWN_MEMBER = "a property the schema does not define (its object allows more); the event Structs do not keep it, so it is dropped"
"""The detail of the Unsupported diagnostic for a member of a source event (a Lux event: its
objects are open) that the schema does not define; ``lucent.convert`` reports such members of
a document the same way."""


# ------------------------------------------------------------------------------------ the pipeline

_READERS: dict[str, type[_Reader]] = {}
"""Format name -> its stream reader class, once :func:`register` has loaded it."""
_WRITERS: dict[str, type[_Writer]] = {}
"""Format name -> its stream writer class, once :func:`register` has loaded it."""

_MODULES: dict[str, tuple[str, str]] = {
    name: (module, prefix) for name, f in _REGISTRY.items() if f.stream is not None
    for module, _, prefix in [f.stream.converter.partition(":")]
}
"""Format name -> (module, class prefix) of its stream ``<Prefix>Reader`` and ``<Prefix>Writer``
(lucent.formats: ``lucent.formats.<name>.stream``)."""


def register(formats: Iterable[str]) -> None:
    """Load the stream readers and writers of these formats into the pipeline (idempotent; each
    format's module is imported when first needed, under lucent._first_use.LOCK: a format's
    writer is registered before its reader, which other threads test for)."""
    for name in formats:
        if not isinstance(name, str) or name in _READERS or name not in _MODULES:
            continue  # not a format name: refused by the caller's check of its names
        with LOCK:
            if name in _READERS:
                continue
            module, prefix = _MODULES[name]
            loaded = imported(module)
            _WRITERS[name] = getattr(loaded, f"{prefix}Writer")
            _READERS[name] = getattr(loaded, f"{prefix}Reader")


_EVENT = re.compile(r"\$\[\d+\]")
"""The path of a source event."""

_ENVELOPE_EVENTS = (LucentStreamEventConversationStart, LucentStreamEventUsage)
"""The Lux events that carry envelope values (id, model, usage): what a writer reports while
writing them is left out when the reader has an envelope, whose diagnostics are
the document converter's (:mod:`lucent._stream_envelope`); its Invalid ones are kept."""


class _Pipeline:
    """One conversion: source event -> reader -> Lux events -> writer -> target events."""

    def __init__(self, source: str, target: str, context: Mapping[str, Any] | None, strict: bool, tools: Iterable[str] | None) -> None:
        spec(source)
        spec(target)
        register((source, target))
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
        head, _, name = path.rpartition(".")
        if name in self.reader.padding and _EVENT.fullmatch(head):
            return
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
        self._events = self._run(frames(events, spec(source), self._pipeline.unknown, limits_of(limits), keep=True))

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
        self._events = self._run(aframes(events, spec(source), self._pipeline.unknown, limits_of(limits), keep=True))

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
