"""Server-sent events: an incremental ``text/event-stream`` parser and a writer.

The parser follows the HTML Living Standard, section 9.2.6 "Interpreting an event stream": the
stream is UTF-8 and one leading BOM is dropped; lines end with CRLF, LF or CR; a line starting
with ``:`` is a comment; ``data`` lines accumulate and are joined with LF; ``event``, ``id`` and
``retry`` are processed as the standard says and every other field is ignored; a blank line
dispatches the event, and an event with no data is not dispatched; at the end of the stream an
unfinished event is discarded (:attr:`SSEParser.truncated` tells that it happened). Input may be
split anywhere, including inside a CRLF pair or a UTF-8 character.

Why not a library: the candidates on PyPI each miss a requirement. ``sseclient``/``sseclient-py``
are sync-only readers of a blocking response; ``httpx-sse`` and ``aiohttp-sse-client`` are
bound to (and depend on) their HTTP clients, and their line splitting is the client's;
``sse-starlette`` is a server. None is a sans-IO byte-fragment parser usable from both sync and
async code with no runtime dependency but msgspec, so lucent keeps its own (about 150 lines,
tested against the standard's examples and every split point).

Examples
--------
>>> parser = SSEParser()
>>> parser.feed(b"data: he") + parser.feed(b"llo\\r\\n\\r\\n")
[SSEEvent(data='hello', event='message', id='')]
>>> encode_event("a\\nb", event="note")
b'event: note\\ndata: a\\ndata: b\\n\\n'
"""

from __future__ import annotations

from collections.abc import AsyncIterable, AsyncIterator, Iterable, Iterator
from typing import Any, Literal

from lucent._limits import DEFAULT_MAX_STREAM_BYTES, Limits, limits_of
from lucent._stream_sse import SSEEvent, SSEParser, encode_comment, encode_event
from lucent.errors import LucentError, StreamError, UsageError

__all__ = ["SSEEvent", "SSEParser", "aparse", "encode_comment", "encode_event", "parse"]


def parse(
    chunks: Iterable[bytes | bytearray | memoryview] | bytes | bytearray | memoryview,
    *,
    errors: Literal["replace", "strict"] = "replace",
    limits: Limits | None = None,
) -> Iterator[SSEEvent]:
    """Events from an iterable of byte chunks, split anywhere.

    Parameters
    ----------
    chunks : Iterable[bytes] or bytes
        The stream's bytes, in pieces of any size (one bytes object is one chunk).
    errors : {"replace", "strict"}
        See :class:`SSEParser`.
    limits : lucent.Limits, optional
        ``max_stream_bytes`` caps the whole stream, in bytes on the wire (default
        ``lucent._limits.DEFAULT_MAX_STREAM_BYTES``, 67,108,864: an SSE stream states no format),
        checked as each chunk arrives: the bytes past the cap are never parsed, so an endless
        line costs at most the cap (SECURITY.md). The parser holds the unfinished line and
        event, so memory is bounded by the cap too.

    Yields
    ------
    SSEEvent
        Each dispatched event, as soon as its blank line has been read.

    Raises
    ------
    StreamError
        ``stream_too_large`` (over ``max_stream_bytes``; ``.path`` ``$[n]`` is the event being
        read, ``.offset`` the cap; the events completed before the cap are yielded first);
        ``invalid_utf8`` with ``errors="strict"``; ``interrupted``: ``chunks`` raised while
        being read (a reset connection, a timeout).
    UsageError
        ``invalid_input_type``: ``chunks`` is not an iterable of bytes (``str`` is refused), or
        a chunk is a released memoryview; ``invalid_errors``: ``errors`` is neither value;
        ``invalid_limits``: ``limits`` is not a :class:`lucent.Limits`.
    """
    cap = _Cap(limits)
    parser = SSEParser(errors=errors)
    iterator: Iterator[Any]
    if isinstance(chunks, (bytes, bytearray, memoryview)):
        iterator = iter((chunks,))
    elif isinstance(chunks, str) or not isinstance(chunks, Iterable):
        raise UsageError(f"SSE input is an iterable of bytes chunks, not {type(chunks).__name__}", code="invalid_input_type")
    else:
        try:
            iterator = iter(chunks)
        except LucentError:
            raise
        except Exception as exc:  # its __iter__ raised
            raise _interrupted(parser, exc) from exc
    while True:
        try:
            chunk = next(iterator)
        except StopIteration:
            break
        except LucentError:
            raise
        except Exception as exc:
            raise _interrupted(parser, exc) from exc
        events, fault = cap.feed(parser, chunk)
        yield from events
        if fault is not None:
            raise fault
    parser.close()


async def aparse(
    chunks: AsyncIterable[bytes | bytearray | memoryview],
    *,
    errors: Literal["replace", "strict"] = "replace",
    limits: Limits | None = None,
) -> AsyncIterator[SSEEvent]:
    """:func:`parse` for an async iterable of byte chunks (an HTTP response body, a socket),
    with the same stream cap.

    Cancellation propagates unchanged.
    """
    cap = _Cap(limits)
    parser = SSEParser(errors=errors)
    if not isinstance(chunks, AsyncIterable):
        raise UsageError(f"SSE input is an async iterable of bytes chunks, not {type(chunks).__name__}", code="invalid_input_type")
    try:
        iterator = aiter(chunks)
    except LucentError:
        raise
    except Exception as exc:  # its __aiter__ raised
        raise _interrupted(parser, exc) from exc
    while True:
        try:
            chunk = await anext(iterator)
        except StopAsyncIteration:
            break
        except LucentError:
            raise
        except Exception as exc:
            raise _interrupted(parser, exc) from exc
        events, fault = cap.feed(parser, chunk)
        for event in events:
            yield event
        if fault is not None:
            raise fault
    parser.close()


class _Cap:
    """The stream cap of :func:`parse`: each chunk is cut at the cap before it is parsed."""

    def __init__(self, limits: Limits | None) -> None:
        cap = limits_of(limits).max_stream_bytes
        self.bytes = DEFAULT_MAX_STREAM_BYTES if cap is None else cap
        self.events = 0

    def feed(self, parser: SSEParser, chunk: Any) -> tuple[list[SSEEvent], StreamError | None]:
        """The events of ``chunk`` up to the cap, and the error to raise after them past it."""
        size = _size(chunk)
        over = parser.bytes_read + size > self.bytes
        if over:  # cut without copying the chunk: it may be the endless line itself
            view = memoryview(chunk)
            view = (view if view.c_contiguous else memoryview(bytes(view))).cast("B")
            chunk = view[: max(self.bytes - parser.bytes_read, 0)]
        events = parser.feed(chunk)
        self.events += len(events)
        if not over:
            return events, None
        try:
            parser.feed(b"")  # a fault found before the cap (invalid UTF-8) comes first
        except StreamError as exc:
            return events, exc
        return events, StreamError(
            f"the stream is larger than {self.bytes} bytes, the limit (Limits.max_stream_bytes)",
            code="stream_too_large",
            path=f"$[{self.events}]",
            offset=self.bytes,
        )


def _size(chunk: Any) -> int:
    """The bytes of a chunk; 0 for what is not bytes (SSEParser.feed refuses it)."""
    if isinstance(chunk, (bytes, bytearray)):
        return len(chunk)
    if isinstance(chunk, memoryview):
        try:
            return chunk.nbytes
        except ValueError:  # released: SSEParser.feed says so
            return 0
    return 0


def _interrupted(parser: SSEParser, cause: Any) -> StreamError:
    return StreamError(
        f"the stream was interrupted after byte {parser.bytes_read}: {type(cause).__name__}",
        code="interrupted",
        offset=parser.bytes_read,
    )
