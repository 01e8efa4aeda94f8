"""lucent.sse.parse / aparse take the stream cap (issue 14, class 9: a 300 MB line cost 302 MB).

``Limits.max_stream_bytes`` (default ``DEFAULT_MAX_STREAM_BYTES``, 64 MiB) bounds the bytes
parsed, whatever the line structure: an endless line, endless comments, data lines that never
end their event. StreamError ``stream_too_large``, path ``$[n]`` (the event being read), offset
the cap; the events completed before it come first.
"""

from __future__ import annotations

import asyncio
import tracemalloc
from collections.abc import AsyncIterator, Iterable, Iterator

import pytest

from lucent import Limits
from lucent._limits import DEFAULT_MAX_STREAM_BYTES
from lucent.errors import StreamError, UsageError
from lucent.sse import SSEEvent, aparse, parse

TWO = b"data: a\n\ndata: b\n\n"  # 18 bytes, two events
ENDLESS = {
    "one line": b"data: " + b"x" * 200,
    "comments": b": keep-alive\n" * 20,
    "data lines without their blank line": b"data: x\n" * 40,
    "blank lines": b"\n" * 300,
}


def read(chunks: Iterable[bytes] | bytes, **kw: object) -> tuple[list[SSEEvent], StreamError | None]:
    events: list[SSEEvent] = []
    try:
        for event in parse(chunks, **kw):  # type: ignore[arg-type]
            events.append(event)
    except StreamError as exc:
        return events, exc
    return events, None


def aread(chunks: list[bytes], **kw: object) -> tuple[list[SSEEvent], StreamError | None]:
    async def source() -> AsyncIterator[bytes]:
        for chunk in chunks:
            yield chunk

    async def collect() -> tuple[list[SSEEvent], StreamError | None]:
        events: list[SSEEvent] = []
        try:
            async for event in aparse(source(), **kw):  # type: ignore[arg-type]
                events.append(event)
        except StreamError as exc:
            return events, exc
        return events, None

    return asyncio.run(collect())


@pytest.mark.parametrize("tail", list(ENDLESS.values()), ids=list(ENDLESS))
@pytest.mark.parametrize("split", [None, 1, 7])
def test_a_stream_past_the_cap_is_stream_too_large_after_the_events_before_it(tail: bytes, split: int | None) -> None:
    body = TWO + tail
    chunks: list[bytes] = [body] if split is None else [body[i : i + split] for i in range(0, len(body), split)]
    limits = Limits(max_stream_bytes=100)
    for events, error in (read(chunks, limits=limits), aread(chunks, limits=limits)):
        assert [e.data for e in events] == ["a", "b"]
        assert error is not None
        assert (error.code, error.path, error.offset) == ("stream_too_large", "$[2]", 100)


def test_a_stream_of_exactly_the_cap_is_read_whole() -> None:
    events, error = read([TWO[:5], TWO[5:]], limits=Limits(max_stream_bytes=len(TWO)))
    assert error is None and [e.data for e in events] == ["a", "b"]
    _, error = read([TWO, b"\n"], limits=Limits(max_stream_bytes=len(TWO)))
    assert error is not None and error.code == "stream_too_large"


def test_invalid_utf8_before_the_cap_is_reported_before_it() -> None:
    body = b"data: \xff\n\n" + b"x" * 200
    _, error = read(body, errors="strict", limits=Limits(max_stream_bytes=100))
    assert error is not None and (error.code, error.offset) == ("invalid_utf8", 6)


def test_the_default_cap_is_the_stream_default_and_bounds_the_memory() -> None:
    """An endless line in 1 MiB chunks: refused at 64 MiB, with at most the cap held."""
    block = b"x" * (1 << 20)

    def endless() -> Iterator[bytes]:
        yield b"data: "
        while True:
            yield block

    tracemalloc.start()
    try:
        _, error = read(endless())
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert error is not None and (error.code, error.offset) == ("stream_too_large", DEFAULT_MAX_STREAM_BYTES)
    assert peak < 1.2 * DEFAULT_MAX_STREAM_BYTES


def test_a_cut_memoryview_chunk_is_not_copied_whole() -> None:
    """The chunk past the cap is cut before it is parsed (a memoryview, as a socket gives)."""
    body = bytearray(b"data: " + b"x" * 5_000_000)
    tracemalloc.start()
    try:
        _, error = read([memoryview(body)], limits=Limits(max_stream_bytes=1000))
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert error is not None and error.code == "stream_too_large"
    assert peak < 100_000


def test_limits_must_be_a_limits() -> None:
    with pytest.raises(UsageError) as caught:
        list(parse(TWO, limits={"max_stream_bytes": 10}))  # type: ignore[arg-type]
    assert caught.value.code == "invalid_limits"
