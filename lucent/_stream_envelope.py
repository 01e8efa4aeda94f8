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

from lucent._stream_hub import Status, _Sink
from msgspec import UNSET as UNSET_

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
    (``inside(where)``), and a Degraded or Unsupported report of the writer while it writes a
    Lux event that carries envelope values (``conversation_start``, ``usage``; ``target:`` ones
    too, such as a Responses envelope's request settings written as an empty request's
    defaults, which the document converter writes alike), is left out, since :func:`report`
    gives the document converter's. Every other report goes to ``sink``, the writer's Invalid
    ones included: a value it writes that the document does not (a Responses ``created_at``
    written as 0, when the Lux stream does not bring it and the context does not give it) or an
    event the target schema refuses. Shares ``sink``'s list of diagnostics."""

    def __init__(self, sink: _Sink, inside: Callable[[str], bool]) -> None:
        self.items = sink.items
        self.strict = sink.strict
        self._seen = sink._seen
        self._sink = sink
        self._inside = inside
        self.writing_envelope = False  # set by the pipeline while the writer writes an envelope event

    def report(self, where: str, status: Status, detail: str) -> None:
        if self._inside(where) or (self.writing_envelope and status != "Invalid"):
            return
        self._sink.report(where, status, detail)

    def report_content(self, where: str, status: Status, detail: str) -> None:
        self._sink.report(where, status, detail)


def report(sink: _Sink, envelope: Envelope, source: str, target: str, context: Mapping[str, Any]) -> None:
    """Convert the envelope document source -> target (as :func:`lucent.convert` does, with the
    stream's context) and report each of its diagnostics on an envelope member (and each
    ``target:`` one, a value the target needs and the envelope lacks, unless the writer said it
    with the same status already) at its stream path."""
    from lucent._context import read_by
    from lucent._convert import convert

    try:  # the stream's context holds the stream's keys: give the document conversion its own
        result = convert(envelope.document, source, target, kind="response", context=read_by(context, source, target, "response"))
    except LucentError:  # the document path raises too: no diagnostics to give
        return
    found: list[tuple[str, str, str]] = [(d.field, d.status, d.detail if isinstance(d.detail, str) else "") for d in result.diagnostics]
    if target == "lux":
        found = lux_stream_view(found, envelope.document, source, context)
    elif target == "sparktide":  # a SparkTide stream states its finish reason, a document does not
        found = _sparktide_view(found, envelope.document, source, context)
    elif target == "llm-sdk":  # an llm-sdk document holds the usage, a stream does not
        found = llm_sdk_stream_view(found, envelope.document, source, context)
    said = {(d.field, d.status) for d in sink.items if d.field.startswith("target:")}  # by the writer, once
    for field, status, detail in found:
        where = field if field.startswith("target:") else envelope.place(field)
        if where is not None and (where, status) not in said:
            sink.report(where, status, detail)  # type: ignore[arg-type]


def _sparktide_view(found: list[tuple[str, str, str]], document: Any, source: str, context: Mapping[str, Any]) -> list[tuple[str, str, str]]:
    """:func:`lucent.formats.sparktide.stream.stream_view` of the envelope's diagnostics: its finish
    reason is the Lux one of the envelope."""
    from lucent._context import read_by
    from lucent._convert import convert
    from lucent.formats.sparktide.stream import stream_view

    try:
        lux = document if source == "lux" else convert(document, source, "lux", kind="response", context=read_by(context, source, "lux", "response")).value
    except LucentError:  # pragma: no cover - the conversion to SparkTide raised first
        return found
    choices = getattr(lux, "choices", None) or []
    # the content is emptied: a LENGTH beside tool calls, which SparkTide cannot state, the
    # writer reports itself (report_content)
    return stream_view(found, choices[0].finish_reason if choices else None, False)


NO_USAGE = "an llm-sdk stream (PartialModelResponse) carries no usage: the llm-sdk document keeps it, a stream drops it"


def llm_sdk_stream_view(found: list[tuple[str, str, str]], document: Any, source: str, context: Mapping[str, Any]) -> list[tuple[str, str, str]]:
    """The diagnostics (field, status, detail) of converting ``document`` to an llm-sdk *document*,
    as an llm-sdk *stream* has them: a ModelResponse holds the usage, a PartialModelResponse has
    no place for it, so the source values the Lux usage came from are Unsupported, as a whole
    (one diagnostic each, for the diagnostics inside them too; the first hop's record of where
    the Lux usage came from, :func:`lucent._convert._source_paths`)."""
    from lucent._convert import _source_paths, converter_of
    from lucent._conversion import Origins

    if source == "lux":
        lost = ["$.usage"] if getattr(document, "usage", UNSET_) is not UNSET_ else []
    else:
        converter = converter_of((source, "lux", "response"))
        if converter is None:
            return found
        origins = Origins()
        try:
            lux, _ = converter(document, dict(context), origins)
        except LucentError:  # pragma: no cover - lucent.convert raised first
            return found
        if getattr(lux, "usage", UNSET_) is UNSET_:
            return found
        lost = [p for p in _source_paths("$.usage", origins.paths()) if not p.startswith("target:")]
    if not lost:
        return found
    # the usage is dropped as a whole: one diagnostic at it stands for those inside it
    out = [(field, status, detail) for field, status, detail in found if not any(field == p or field.startswith((p + ".", p + "[")) for p in lost)]
    return out + [(path, "Unsupported", NO_USAGE) for path in lost]


LUX_STREAM_LACKS = ("$.created_at", "$.provider_payload")
"""The members of a Lux response that a Lux stream does not carry (``conversation_start.meta``
has only ``id``, ``model`` and ``usage_input``)."""

_BLOCK_MEMBERS = re.compile(r"\$\.provider_payload\.(?:media|[a-z_]+\.members)(?:[.\[]|$)")
"""Where a Lux document keeps members of its content blocks (``provider_payload.<format>.members``,
``provider_payload.media``): a stream carries its blocks as block events, and its reader reports
the members they do not carry, so such a value is a loss where the document's diagnostic names it
(Degraded, kept: Unsupported in a stream) and is not named otherwise (a spelling); the other
side-car values of content (the Responses output item records:
``provider_payload.openai_responses.output``) a Lux stream has no place for."""

_LOST = "a Lux stream has no {}: the Lux document keeps this value there, a stream drops it"


def lux_stream_view(found: list[tuple[str, str, str]], document: Any, source: str, context: Mapping[str, Any], content: tuple[str, ...] = ()) -> list[tuple[str, str, str]]:
    """The diagnostics (field, status, detail) of converting ``document`` to a Lux *document*,
    as a Lux *stream* has them: each source value that the document converter puts where a Lux
    stream has no place (:data:`LUX_STREAM_LACKS`) is Unsupported, at the diagnostics inside it
    (a Degraded "kept in provider_payload" is a loss in a stream) or, if none names it, at the
    value itself. The places come from the converter's own record of where each Lux value came
    from (:class:`lucent._conversion.Origins`); null values are left out, and so are source
    values inside the ``content`` roots (``$.output``) kept as block members
    (:data:`_BLOCK_MEMBERS`) that no Degraded diagnostic names."""
    from lucent._convert import converter_of
    from lucent._conversion import Origins

    converter = converter_of((source, "lux", "response"))
    if converter is None:
        return found
    origins = Origins()
    try:
        lux, _ = converter(document, dict(context), origins)
    except LucentError:  # pragma: no cover - lucent.convert raised first
        return found
    import msgspec

    tree = msgspec.to_builtins(lux)
    lost: dict[str, str] = {}  # source path -> the Lux member that has no place in a stream
    said: set[str] = set()  # of those, the block members: lost where a diagnostic names them
    carried: set[str] = set()  # source paths that also give a Lux value a stream carries
    for lux_path, source_path in origins.paths().items():
        for lacks in LUX_STREAM_LACKS:
            if lux_path == lacks or lux_path.startswith((lacks + ".", lacks + "[")):
                if _value_at(tree, lux_path) is not None:
                    lost.setdefault(source_path, lacks[2:])
                    if under(source_path, content) and _BLOCK_MEMBERS.match(lux_path):
                        said.add(source_path)
                break
        else:
            carried.add(source_path)
    for path in said & carried:  # kept beside the Lux value it gives (a finish reason): that value is the stream's
        del lost[path]
    said -= carried
    if not lost:
        return found
    out: list[tuple[str, str, str]] = []
    named: set[str] = set()
    for field, status, detail in found:
        owner = next((p for p in lost if field == p or field.startswith((p + ".", p + "["))), None)
        if owner is not None and (owner not in said or status == "Degraded"):
            named.add(owner)
            status, detail = "Unsupported", f"{detail}; {_LOST.format(lost[owner])}"
        out.append((field, status, detail))
    out += [(path, "Unsupported", _LOST.format(what)) for path, what in lost.items() if path not in named and path not in said]
    return out


_STEP = re.compile(r'\.([A-Za-z_0-9]+)|\[(\d+)\]|\["((?:[^"\\]|\\.)*)"\]')


def _value_at(tree: Any, path: str) -> Any:
    """The JSON value at ``path`` in ``tree`` (None when it is absent)."""
    import json

    for name, index, quoted in _STEP.findall(path[1:]):
        key: Any = int(index) if index else (json.loads(f'"{quoted}"') if quoted else name)
        if isinstance(tree, dict) and isinstance(key, str) and key in tree:
            tree = tree[key]
        elif isinstance(tree, list) and isinstance(key, int) and key < len(tree):
            tree = tree[key]
        else:
            return None
    return tree


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
