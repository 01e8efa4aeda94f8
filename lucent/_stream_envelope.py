"""The envelope of a vendor stream: its diagnostics come from the document converter.

A vendor stream carries, besides its content blocks, the members of the response document that
surround them: ids, model, usage and its details, service tier, status, creation times, the
request settings a Responses stream repeats. These are the stream's *envelope*. A stream
conversion does not restate what the document converter says about them: once the stream has
delivered its envelope, the reader gives it as a source document with its content emptied
(:class:`Envelope`: a Responses ``Response`` with ``output: []``, an Anthropic ``Message`` with
``content: []``, a chat completion with ``choices: []``, a Gemini response without
``candidates``, each built as the format's assembler builds the whole document), and
:func:`report` runs :func:`lucent.convert` on it (source -> target, the stream's context) and
reports each diagnostic on an envelope member at the event member that carried it
(``$.store`` of a Responses stream is ``$[12].response.store``, the terminal event's).

Every other report on an envelope member of the stream is left out (:class:`EnvelopeSink`):
the reader's and the writer's own, and the Unsupported of a member the event schema does not
define (the assembler does not keep it either). So the envelope's diagnostics of a stream
conversion are those of ``convert(assemble(s))`` by construction, whatever the document
converters decide. The envelope is small (its content emptied) and converted once per stream.

Strict mode: an envelope diagnostic is reported when the envelope is complete (Responses: the
terminal event; Anthropic: ``message_stop``; chat and Gemini: the end of the stream, where
their usage comes), before the target events of that moment are yielded; target events written
before it (the target's first event, which carries the id and model) are out already.
"""

from __future__ import annotations

import copy
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from lucent._stream_convert import Status, _Sink
from lucent.errors import LucentError

MEMBER = re.compile(r"\$\.([A-Za-z_0-9]+)(.*)", re.S)
"""A document path's first member and the rest (``$.usage.x`` -> ``usage``, ``.x``)."""

Place = Callable[[str], "str | None"]
"""A document path of the envelope -> the stream path of the event member that carried it, or
None for a member outside the envelope (a content block, an output item)."""


@dataclass
class Envelope:
    """A reader's envelope, once complete: the source document (content emptied) and its places."""

    document: Any
    place: Place


class EnvelopeSink(_Sink):
    """The sink a reader and a writer report to: a report on an envelope member of the stream
    (``inside(where)``), and any report of the writer while it writes a Lux event that carries
    envelope values (``conversation_start``, ``usage``; ``target:`` ones too: what the target
    needs and the envelope lacks), is left out, since :func:`report` gives the document
    converter's; every other report goes to ``sink``. Shares ``sink``'s list of diagnostics."""

    def __init__(self, sink: _Sink, inside: Callable[[str], bool]) -> None:
        self.items = sink.items
        self.strict = sink.strict
        self._seen = sink._seen
        self._sink = sink
        self._inside = inside
        self.writing_envelope = False  # set by the pipeline while the writer writes an envelope event

    def report(self, where: str, status: Status, detail: str) -> None:
        if self.writing_envelope or self._inside(where):
            return
        self._sink.report(where, status, detail)


def report(sink: _Sink, envelope: Envelope, source: str, target: str, context: Mapping[str, Any]) -> None:
    """Convert the envelope document source -> target (as :func:`lucent.convert` does, with the
    stream's context) and report each of its diagnostics on an envelope member (and each
    ``target:`` one, a value the target needs and the envelope lacks) at its stream path."""
    from lucent._convert import convert

    try:
        result = convert(envelope.document, source, target, kind="response", context=dict(context))
    except LucentError:  # the document path raises too: no diagnostics to give
        return
    for diagnostic in result.diagnostics:
        field = diagnostic.field
        where = field if field.startswith("target:") else envelope.place(field)
        if where is not None:
            sink.report(where, diagnostic.status, diagnostic.detail)  # type: ignore[arg-type]


def emptied(document: Any, **members: Any) -> Any:
    """A shallow copy of a document Struct with ``members`` replaced (its content emptied);
    no ``__post_init__`` runs again on members the Struct has already checked."""
    found = copy.copy(document)
    for name, value in members.items():
        setattr(found, name, value)
    return found


def under(field: str, roots: tuple[str, ...]) -> bool:
    """Whether document path ``field`` is one of ``roots`` or inside one (``$.output[0].id``)."""
    return any(field == root or field.startswith((root + ".", root + "[")) for root in roots)
