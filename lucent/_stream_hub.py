"""The hub of stream conversion: what every stream reader and writer shares.

A *reader* (:class:`_Reader`) turns one format's events into Lux events, each with the source
path it stands for (:data:`Hub`), checking the source stream's rules across frames (the codes of
its assembler); a *writer* (:class:`_Writer`) turns each Lux event into the target's events.
Each format's reader and writer live in ``lucent/formats/<name>/stream.py`` and are named by the
format registry (:class:`lucent.formats.Stream`); the pipeline that runs them is
:mod:`lucent._stream_convert`. Diagnostics go to a :class:`_Sink` (strict mode raises there).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal

from msgspec import UNSET

from lucent.errors import ConversionError, StreamError
from lucent._validation import printable
from lucent.generated.lucent_diagnostics_v1 import ConversionDiagnostic
from lucent.generated.lux_ir_v1 import (
    LucentBlockDeltaText,
    LucentBlockDeltaToolArguments,
    LucentConversationItemMessage,
    LucentConversationMeta,
    LucentMessage,
    LucentResponse,
    LucentStreamEventBlockDelta,
    LucentStreamEventItemStart,
)

Status = Literal["Exact", "Degraded", "Unsupported", "Invalid"]
Hub = list[tuple[Any, str]]  # Lux events, each with the source path it stands for
Key = int | str  # a block: its Lux index, or "initial<i>" for an item's initial content

_LOSSY = ("Unsupported", "Invalid")


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


    def report_content(self, where: str, status: Status, detail: str) -> None:
        """:meth:`report` of a loss that depends on the content, even on an envelope member
        (:class:`lucent._stream_envelope.EnvelopeSink` passes it on: the envelope's document has
        its content emptied, so its diagnostics cannot say it)."""
        self.report(where, status, detail)


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
    padding: frozenset[str] = frozenset()
    """Members of its events (at the top of an event) that only pad the event's size and hold no
    value of the response: the assembled response has no place for them, so a conversion drops
    them without a report, as the assembler does (``obfuscation`` of the OpenAI Responses events)."""
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

    def _failed(self, code: str, message: str, path: str) -> StreamError:
        """The error a broken stream rule raises, with the usage received so far."""
        return _fail(code, message, path, self.usage)

    def _declared(self, name: str, path: str, what: str) -> None:
        if self._tools is not None and name not in self._tools:
            raise self._failed("tool_name_not_declared", f"{what} names a tool that the request did not declare", path)



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

