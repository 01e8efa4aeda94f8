"""The caller's context: which keys each conversion reads, and the refusal of any other.

One declaration per reader of the context, and nothing else to keep in step:

* a document converter's keys are ``CONTEXT`` of its generated module, listed again by
  ``lucent.generated.convert_registry.CONTEXT`` under (source, target, kind). codegen derives them
  from the mapping spec: every ``context = "key"`` rule, and the keys each transform the
  converter calls declares with ``@reads("key")`` (:func:`lucent._conversion.reads`);
* a stream reader's or writer's keys are its class's ``context_keys`` (a reader's
  ``context_keys_to_lux`` too, read only when the target is Lux).

Each of them is given the context as a :class:`DeclaredContext`, which raises ``RuntimeError``
when a key it did not declare is read: a read the declaration misses fails every test that
reaches it, and a key the declaration names is one the caller may give.

:func:`document_keys` and :func:`stream_keys` are the keys a conversion reads (both hops of a
conversion through Lux); :func:`refuse_unknown` raises ``UsageError(code="invalid_context")`` for
any other key, naming it and the keys read; :func:`listing` is the table ``lucent convert
--help`` and the README print.
"""

from __future__ import annotations

import functools
import textwrap
from collections.abc import Iterable, Mapping
from typing import Any

from lucent.errors import UsageError

__all__ = ["DeclaredContext", "document_keys", "listing", "read_by", "refuse_unknown", "stream_keys"]


class DeclaredContext(dict[str, Any]):
    """The caller's context as one converter, stream reader or writer sees it: a ``dict`` whose
    ``[key]``, ``get`` and ``in`` raise ``RuntimeError`` for a key outside ``declared`` (the
    reader's declaration is incomplete: a programming error, never the caller's)."""

    __slots__ = ("declared", "reader")

    def __init__(self, values: Mapping[str, Any] | None, declared: Iterable[str], reader: str) -> None:
        super().__init__(values or {})
        self.declared = frozenset(declared)
        self.reader = reader

    def _check(self, key: object) -> None:
        if key not in self.declared:
            raise RuntimeError(f"{self.reader} reads context[{key!r}], which it does not declare (declared: {', '.join(sorted(self.declared)) or 'none'})")

    def __getitem__(self, key: str) -> Any:
        self._check(key)
        return super().__getitem__(key)

    def get(self, key: str, default: Any = None) -> Any:
        self._check(key)
        return super().get(key, default)

    def __contains__(self, key: object) -> bool:
        self._check(key)
        return super().__contains__(key)


@functools.cache
def document_keys(source: str, target: str, kind: str) -> tuple[str, ...]:
    """The context keys ``lucent.convert(data, source, target, kind)`` reads, sorted: its
    converter's, or both hops' through Lux; none when ``source == target`` (the document is
    returned as decoded) or when no converter exists."""
    from lucent.generated.convert_registry import CONTEXT

    if source == target:
        return ()
    if (source, target, kind) in CONTEXT:
        return CONTEXT[(source, target, kind)]
    return tuple(sorted(set(CONTEXT.get((source, "lux", kind), ())) | set(CONTEXT.get(("lux", target, kind), ()))))


def _stream_classes(source: str, target: str) -> tuple[Any, Any]:
    from lucent import _stream_convert as convert

    convert.register((source, target))
    return convert._READERS[source], convert._WRITERS[target]


def reader_keys(reader: Any, lux_target: bool) -> tuple[str, ...]:
    """The keys a stream reader class reads (its ``context_keys``, and ``context_keys_to_lux``
    when the target is Lux)."""
    return tuple(reader.context_keys) + (tuple(reader.context_keys_to_lux) if lux_target else ())


def stream_keys(source: str, target: str) -> tuple[str, ...]:
    """The context keys ``lucent.streams.convert_stream(events, source, target)`` reads, sorted:
    the source reader's and the target writer's; none when ``source == target`` (the events pass
    unchanged)."""
    if source == target:
        return ()
    reader, writer = _stream_classes(source, target)
    return tuple(sorted(set(reader_keys(reader, target == "lux")) | set(writer.context_keys)))


def read_by(context: Mapping[str, Any] | None, source: str, target: str, kind: str = "request") -> dict[str, Any]:
    """The members of ``context`` that the conversion of ``kind`` (``"stream"``: a stream
    conversion) from ``source`` to ``target`` reads, for a caller that holds values for many
    conversions (the gateway) and gives each only its own."""
    keys = stream_keys(source, target) if kind == "stream" else document_keys(source, target, kind)
    return {key: value for key, value in (context or {}).items() if key in keys}


def refuse_unknown(context: Mapping[str, Any], keys: tuple[str, ...], conversion: str) -> None:
    """Raise ``UsageError(code="invalid_context")`` when ``context`` has a key outside ``keys``:
    ``.path`` is the first such key's JSON path in the context (``$.max_tokenz``), the message
    names every such key and the keys the conversion (``conversion``: "openai-chat to anthropic
    requests") reads."""
    unknown = [key for key in context if key not in keys]
    if not unknown:
        return
    from lucent._validation import member

    named = ", ".join(repr(key) for key in unknown)
    reads = ", ".join(keys) if keys else "none"
    raise UsageError(
        f"context key{'s' if len(unknown) > 1 else ''} {named} not read by a conversion of {conversion}; the keys it reads: {reads}",
        code="invalid_context",
        path=member("$", unknown[0]),
    )


def listing() -> str:
    """The context keys each conversion reads: one line per target (format and kind; its
    converter from Lux, its stream writer), then one per source that reads keys of its own (its
    converter to Lux, its stream reader). A conversion through Lux reads both lines' keys. The
    text of ``lucent convert --help`` and of the README's "The caller's context" section."""
    from lucent.formats import FORMATS
    from lucent.generated.convert_registry import CONTEXT

    def line(name: str, kind: str, keys: Iterable[str]) -> str:
        return textwrap.fill(f"{name} {kind}: {', '.join(keys) or '-'}", 88, initial_indent="  ", subsequent_indent="      ")

    to, since = [], []
    for name, fmt in FORMATS.items():
        reader, writer = _stream_classes(name, name) if fmt.stream is not None else (None, None)  # Any: the classes
        if name != "lux":
            to += [line(name, kind, CONTEXT[("lux", name, kind)]) for kind in fmt.kinds]
            since += [line(name, kind, CONTEXT[(name, "lux", kind)]) for kind in fmt.kinds if CONTEXT[(name, "lux", kind)]]
        if writer is not None:
            to.append(line(name, "stream", sorted(writer.context_keys)))
        if reader is not None and reader.context_keys:
            since.append(line(name, "stream", sorted(reader.context_keys)))
        if reader is not None and reader.context_keys_to_lux:
            since.append(line(name, "stream (to lux)", sorted(reader.context_keys_to_lux)))
    return "\n".join([
        "Context keys (--context) a conversion reads; any other key is refused (invalid_context).",
        "A target reads (its converter from Lux, its stream writer):", *to,
        "A source reads too (its converter to Lux, its stream reader; to lux, these alone):", *since,
    ]) + "\n"
