"""warm_up: build on start what lucent otherwise builds on first use."""

from __future__ import annotations

from collections.abc import Iterable

from lucent.streams import FORMATS as STREAM_FORMATS
from lucent.streams import _register, assembler
from lucent._convert import FORMATS, _decodable, converter_of
from lucent._decode import _decoder, _route, _skips_values, _writes_what_it_reads, adds_no_member, schema_module
from lucent._first_use import LOCK, imported
from lucent._stream_read import spec
from lucent.errors import LucentError, UsageError
from lucent.generated.convert_registry import CONVERTERS, DOCUMENTS

__all__ = ["warm_up"]

_HUB = "lux"


def warm_up(formats: Iterable[str] | None = None) -> tuple[str, ...]:
    """Import and build now, once, what the first use of each format would build.

    lucent imports a format's bindings, converters and stream code, and builds each decoder, on
    first use, so that ``import lucent`` stays cheap. All of it is built under one lock and is
    safe to reach from many threads at once; ``warm_up`` moves the cost to start-up, where a
    server wants it, and must run **before a process forks** workers (gunicorn with
    ``preload_app``, multiprocessing's ``fork`` start method) so that no child ever imports a
    module that its parent was importing at the fork (README, "Servers, threads and fork").

    For each format: its schema module (every Struct's msgspec state is built as it is
    imported); the decode route (decoder, protocol checks, pre-parse checks) of each of its
    documents (``lucent.generated.convert_registry.DOCUMENTS``: request, response, error), with
    the protocol rules and without, and of its schema root; the converters to and from Lux of
    each kind, with their support modules; and, for a stream format
    (:data:`lucent.streams.FORMATS`), its assembler, frame reader and stream converter (reader
    and writer). Lux, the hub that every conversion passes through, and ``lucent-diagnostics-v1``
    (the diagnostics of every conversion) are always warmed. Calling it again costs only the
    look-ups.

    Parameters
    ----------
    formats : Iterable[str], optional
        Format names of :func:`lucent.convert` (``lux``, ``sparktide``, ``llm-sdk``, ``htmlp``,
        ``openai-chat``, ``openai-responses``, ``anthropic``, ``gemini``); ``None`` (the
        default) warms all of them.

    Returns
    -------
    tuple[str, ...]
        The format names warmed, Lux included, in :data:`lucent._convert.FORMATS` order.

    Raises
    ------
    UsageError
        ``unknown_format``: a name that is not a format; ``invalid_input_type``: ``formats`` is
        a single ``str``, not an iterable of ``str``, or raised while being read.
    """
    wanted = _formats(formats)
    with LOCK:
        schema_module("lucent-diagnostics-v1")
        for fmt in wanted:
            _documents(fmt)
            _converters(fmt)
            if fmt in STREAM_FORMATS:
                _stream(fmt)
    return wanted


def _formats(formats: Iterable[str] | None) -> tuple[str, ...]:
    if formats is None:
        return tuple(FORMATS)
    if isinstance(formats, (str, bytes, bytearray, memoryview)) or not isinstance(formats, Iterable):
        raise UsageError(f"formats is a collection of format names (str) or None, not {type(formats).__name__}", code="invalid_input_type")
    names: set[str] = {_HUB}
    try:
        given = list(formats)
    except LucentError:
        raise
    except Exception as exc:  # its __iter__ raised
        raise UsageError(f"formats could not be read: {type(exc).__name__}", code="invalid_input_type") from None
    for name in given:
        if not isinstance(name, str):
            raise UsageError(f"a format name is a str, not {type(name).__name__}", code="invalid_input_type")
        if name not in FORMATS:
            raise UsageError(f"unknown format; known: {', '.join(FORMATS)}", code="unknown_format")
        names.add(name)
    return tuple(f for f in FORMATS if f in names)


def _documents(fmt: str) -> None:
    schema = FORMATS[fmt]
    schema_module(schema)
    for rules in ("all", "schema"):
        _route(schema, None, rules, None)
    for (owner, _kind), (_stem, definition) in DOCUMENTS.items():
        if owner != fmt:
            continue
        name = _decodable(schema, definition)
        for rules in ("all", "schema"):
            _route(schema, name, rules, None)
        tp = _decoder(schema, name).type
        _skips_values(tp), adds_no_member(tp), _writes_what_it_reads(tp)


def _converters(fmt: str) -> None:
    for key in CONVERTERS:
        if fmt in key[:2] and _HUB in key[:2]:
            converter_of(key)


def _stream(fmt: str) -> None:
    found = spec(fmt)
    _decoder(found.schema, found.definition)
    assembler(fmt)
    _register(fmt)
