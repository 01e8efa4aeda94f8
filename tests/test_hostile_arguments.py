"""Hostile arguments to every public function raise lucent errors only (issue 14, class 5).

Three classes of fault let plain exceptions out (87b5198): a released memoryview given where
bytes are read (``ValueError``; ``decode`` alone handled it), an iterable or mapping that raises
while being read (``ValueError`` from its ``__iter__``), and an int past Python's int-to-str
limit (4,300 digits) formatted into a message or a field (``ValueError`` from ``str()``). Each
is tested over every entry point it can reach, and all public functions together over every
parameter and every hostile value.
"""

from __future__ import annotations

import asyncio
import inspect
from collections.abc import AsyncIterator, Callable, Iterator, Mapping
from typing import Any

import pytest

import lucent
from lucent import sse, streams
from lucent.errors import LucentError, StreamError, UsageError

HUGE = 10**5000  # past the 4,300 digits Python converts to str


def _released() -> memoryview:
    view = memoryview(b'data: {"event": "done"}\n\n')
    view.release()
    return view


class RaisingIterable:
    """An iterable whose ``__iter__`` (and ``__aiter__``) raise, as a broken source does."""

    def __iter__(self) -> Iterator[Any]:
        raise ValueError("the source failed")

    def __aiter__(self) -> AsyncIterator[Any]:
        raise ValueError("the source failed")


class RaisingMapping(Mapping[str, Any]):
    """A mapping that raises when read."""

    def __getitem__(self, key: str) -> Any:
        raise ValueError("the mapping failed")

    def __iter__(self) -> Iterator[str]:
        raise ValueError("the mapping failed")

    def __len__(self) -> int:
        return 1


def _run(call: Callable[[], Any]) -> Any:
    """Call and consume: an iterator is read to its end, an awaitable or async iterator run."""
    result = call()
    if inspect.isawaitable(result):
        return asyncio.run(result)  # type: ignore[arg-type]
    if hasattr(result, "__anext__"):

        async def drain() -> list[Any]:
            return [item async for item in result]

        return asyncio.run(drain())
    if hasattr(result, "__next__"):
        return list(result)
    return result


# Every public function, with valid arguments; each test replaces one of them.
ENTRY_POINTS: dict[str, tuple[Callable[..., Any], dict[str, Any]]] = {
    "decode": (lucent.decode, {"data": b'{"type": "text", "text": "hi"}', "schema": "llm-sdk", "definition": "TextPart", "rules": "all", "limits": None}),
    "encode": (lucent.encode, {"obj": {"a": 1}}),
    "convert": (lucent.convert, {"data": b'{"model": "m", "messages": [{"role": "user", "content": "Hi"}]}', "source": "openai-chat", "target": "anthropic", "kind": "request", "strict": False, "context": None, "limits": None}),
    "Limits": (lucent.Limits, {"max_body_bytes": None, "max_stream_bytes": None, "max_depth": None}),
    "warm_up": (lucent.warm_up, {"formats": ["lux"]}),
    "assembler": (streams.assembler, {"format": "lux", "tools": None, "limits": None}),
    "assemble": (streams.assemble, {"source": b"", "format": "lux", "tools": None, "limits": None}),
    "assemble_async": (streams.assemble_async, {"source": b"", "format": "lux", "tools": None, "limits": None}),
    "iter_events": (streams.iter_events, {"source": b"", "format": "lux", "limits": None}),
    "aiter_events": (streams.aiter_events, {"source": b"", "format": "lux", "limits": None}),
    "convert_stream": (streams.convert_stream, {"events": b"", "source": "lux", "target": "anthropic", "context": None, "strict": False, "tools": None, "limits": None}),
    "aconvert_stream": (streams.aconvert_stream, {"events": b"", "source": "lux", "target": "anthropic", "context": None, "strict": False, "tools": None, "limits": None}),
    "encode_sse": (streams.encode_sse, {"events": [], "format": "anthropic"}),
    "sse.parse": (sse.parse, {"chunks": b"data: x\n\n", "errors": "replace"}),
    "sse.aparse": (sse.aparse, {"chunks": RaisingIterable(), "errors": "replace"}),
    "SSEParser": (sse.SSEParser, {"errors": "replace"}),
    "SSEParser.feed": (lambda chunk: sse.SSEParser().feed(chunk), {"chunk": b"data: x\n\n"}),
    "encode_event": (sse.encode_event, {"data": "x", "event": None, "id": None, "retry": None}),
    "encode_comment": (sse.encode_comment, {"text": "x"}),
    "Assembler.push": (lambda event: streams.assembler("lux").push(event), {"event": {"event": "done"}}),
}

HOSTILE: dict[str, Callable[[], Any]] = {
    "huge int": lambda: HUGE,
    "huge negative int": lambda: -HUGE,
    "released memoryview": _released,
    "raising iterable": RaisingIterable,
    "raising mapping": RaisingMapping,
    "list of a huge int": lambda: [HUGE],
    "list of a released memoryview": lambda: [_released()],
}


@pytest.mark.parametrize("hostile", list(HOSTILE))
@pytest.mark.parametrize(
    ("entry", "parameter"), [(entry, parameter) for entry, (_, arguments) in ENTRY_POINTS.items() for parameter in arguments]
)
def test_every_parameter_of_every_public_function_takes_hostile_values_with_lucent_errors_only(entry: str, parameter: str, hostile: str) -> None:
    function, arguments = ENTRY_POINTS[entry]
    try:
        _run(lambda: function(**{**arguments, parameter: HOSTILE[hostile]()}))
    except LucentError as exc:
        assert exc.code and exc.path.startswith(("$", "target:$"))
    except Exception as exc:  # noqa: BLE001 - the fault this test exists for
        pytest.fail(f"{entry}({parameter}=<{hostile}>) raised {type(exc).__name__}: {exc}"[:300])


READERS_OF_BYTES: dict[str, Callable[[Any], Any]] = {
    "decode": lambda data: lucent.decode(data, "lux-ir-v1"),
    "convert": lambda data: lucent.convert(data, source="lux", target="anthropic"),
    "assemble": lambda data: streams.assemble(data, "lux"),
    "assemble_async": lambda data: streams.assemble_async(data, "lux"),
    "iter_events": lambda data: streams.iter_events(data, "anthropic"),
    "aiter_events": lambda data: streams.aiter_events(data, "anthropic"),
    "convert_stream": lambda data: streams.convert_stream(data, "openai-chat", "lux"),
    "aconvert_stream": lambda data: streams.aconvert_stream(data, "gemini", "lux"),
    "sse.parse": lambda data: sse.parse(data),
    "SSEParser.feed": lambda data: sse.SSEParser().feed(data),
}


@pytest.mark.parametrize("entry", list(READERS_OF_BYTES))
def test_a_released_memoryview_is_invalid_input_wherever_bytes_are_read(entry: str) -> None:
    with pytest.raises(UsageError) as caught:
        _run(lambda: READERS_OF_BYTES[entry](_released()))
    assert caught.value.code == "invalid_input_type" and caught.value.path == "$"


CHUNKED: dict[str, Callable[[Any], Any]] = {
    "assemble": lambda chunks: streams.assemble(chunks, "lux"),
    "assemble_async": lambda chunks: streams.assemble_async(chunks, "lux"),
    "iter_events": lambda chunks: streams.iter_events(chunks, "openai-responses"),
    "aiter_events": lambda chunks: streams.aiter_events(chunks, "lux"),
    "convert_stream": lambda chunks: streams.convert_stream(chunks, "anthropic", "openai-chat"),
    "aconvert_stream": lambda chunks: streams.aconvert_stream(chunks, "lux", "sparktide"),
    "sse.parse": lambda chunks: sse.parse(chunks),
}


@pytest.mark.parametrize("entry", list(CHUNKED))
def test_a_released_memoryview_among_the_chunks_is_invalid_input(entry: str) -> None:
    with pytest.raises(UsageError) as caught:
        _run(lambda: CHUNKED[entry]([b"data: ", _released()]))
    assert caught.value.code == "invalid_input_type"


SOURCES: dict[str, Callable[[Any], Any]] = {
    **CHUNKED,
    "sse.aparse": lambda chunks: sse.aparse(chunks),
    "encode_sse": lambda events: streams.encode_sse(events, "lux"),
}


@pytest.mark.parametrize("entry", list(SOURCES))
def test_a_source_that_raises_when_iterated_is_an_interrupted_stream(entry: str) -> None:
    with pytest.raises(StreamError) as caught:
        _run(lambda: SOURCES[entry](RaisingIterable()))
    assert caught.value.code == "interrupted" and caught.value.usage is None
    assert caught.value.path in ("$", "$[0]")  # before the first frame; sse.parse names no frame
    assert "the source failed" not in caught.value.message  # the cause's text is not repeated


COLLECTIONS: dict[str, tuple[Callable[[Any], Any], str]] = {
    "warm_up formats": (lambda formats: lucent.warm_up(formats), "invalid_input_type"),
    "assemble tools": (lambda tools: streams.assemble(b"", "lux", tools=tools), "invalid_input_type"),
    "assembler tools": (lambda tools: streams.assembler("anthropic", tools=tools), "invalid_input_type"),
    "convert_stream tools": (lambda tools: streams.convert_stream(b"", "lux", "gemini", tools=tools), "invalid_input_type"),
    "convert context": (lambda context: lucent.convert(b'{"model": "m", "messages": []}', source="openai-chat", target="lux", context=context), "invalid_context"),
    "convert_stream context": (lambda context: streams.convert_stream(b"", "lux", "openai-chat", context=context), "invalid_context"),
    "aconvert_stream context": (lambda context: streams.aconvert_stream(b"", "lux", "openai-chat", context=context), "invalid_context"),
}


@pytest.mark.parametrize("entry", list(COLLECTIONS))
def test_a_collection_argument_that_raises_when_read_is_a_usage_error(entry: str) -> None:
    call, code = COLLECTIONS[entry]
    hostile = RaisingMapping() if "context" in entry else RaisingIterable()
    with pytest.raises(UsageError) as caught:
        _run(lambda: call(hostile))
    assert caught.value.code == code


FORMATTED_INTS: dict[str, tuple[Callable[[Any], Any], str]] = {
    "Limits max_depth": (lambda n: lucent.Limits(max_depth=n), "invalid_limits"),
    "Limits max_body_bytes": (lambda n: lucent.Limits(max_body_bytes=n), "invalid_limits"),
    "Limits max_stream_bytes": (lambda n: lucent.Limits(max_stream_bytes=n), "invalid_limits"),
    "decode rules": (lambda n: lucent.decode(b"{}", "lux-ir-v1", rules=n), "invalid_rules"),
    "decode schema": (lambda n: lucent.decode(b"{}", n), "invalid_input_type"),
    "decode definition": (lambda n: lucent.decode(b"{}", "lux-ir-v1", n), "invalid_input_type"),
    "convert source": (lambda n: lucent.convert(b"{}", source=n, target="lux"), "invalid_input_type"),
    "convert kind": (lambda n: lucent.convert(b"{}", source="lux", target="lux", kind=n), "invalid_input_type"),
    "SSEParser errors": (lambda n: sse.SSEParser(errors=n), "invalid_errors"),
    "sse.parse errors": (lambda n: sse.parse(b"", errors=n), "invalid_errors"),
    "encode_event retry": (lambda n: sse.encode_event("x", retry=n), "invalid_sse_field"),
    "assemble format": (lambda n: streams.assemble(b"", n), "unknown_format"),
    "iter_events format": (lambda n: streams.iter_events(b"", n), "unknown_format"),
    "assembler format": (lambda n: streams.assembler(n), "unknown_format"),
    "convert_stream target": (lambda n: streams.convert_stream(b"", "lux", n), "unknown_format"),
    "encode_sse format": (lambda n: streams.encode_sse([], n), "unknown_format"),
    "warm_up format": (lambda n: lucent.warm_up([n]), "invalid_input_type"),
}


@pytest.mark.parametrize(
    ("entry", "sign"), [(entry, sign) for entry in FORMATTED_INTS for sign in ("+", "-") if not (entry.startswith("Limits") and sign == "+")]
)
def test_an_int_past_the_digit_limit_is_refused_with_the_parameters_code(entry: str, sign: str) -> None:
    call, code = FORMATTED_INTS[entry]
    with pytest.raises(UsageError) as caught:
        _run(lambda: call(HUGE if sign == "+" else -HUGE))
    assert caught.value.code == code
    assert "00000" not in caught.value.message and len(caught.value.message) < 300  # the value is not repeated


def test_a_limit_past_the_digit_limit_is_a_limit_no_input_reaches() -> None:
    limits = lucent.Limits(max_body_bytes=HUGE, max_stream_bytes=HUGE, max_depth=HUGE)
    assert lucent.decode(b'{"type": "text", "text": "hi"}', "llm-sdk", "TextPart", limits=limits).text == "hi"
    assert [type(e).__name__ for e in streams.iter_events(b'data: {"event": "done"}\n\n', "lux", limits=limits)] == ["LucentStreamEventDone"]


def test_the_largest_retry_a_reader_can_read_is_written_and_read_back() -> None:
    largest = 10**4300 - 1  # 4,300 digits
    (event,) = sse.parse(sse.encode_event("x", retry=largest))
    parser = sse.SSEParser()
    parser.feed(sse.encode_event("x", retry=largest))
    assert event.data == "x" and parser.retry == largest
    with pytest.raises(UsageError) as caught:
        sse.encode_event("x", retry=largest + 1)
    assert caught.value.code == "invalid_sse_field"


RETRY_READERS: dict[str, Callable[[bytes], Any]] = {
    "sse.parse": lambda wire: [event.data for event in sse.parse(wire)],
    "iter_events": lambda wire: len(list(streams.iter_events(wire, "openai-chat"))),
    "assemble": lambda wire: streams.assemble(wire, "openai-chat").choices[0].message.content,
    "convert_stream": lambda wire: len(list(streams.convert_stream(wire, "openai-chat", "lux"))),
}


@pytest.mark.parametrize("entry", list(RETRY_READERS))
def test_a_retry_field_past_the_digit_limit_is_ignored_like_a_malformed_one(entry: str) -> None:
    chunk = b'{"id":"c","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"role":"assistant","content":"Hi"},"finish_reason":"stop"}]}'
    plain = b"data: " + chunk + b"\n\ndata: [DONE]\n\n"
    hostile = b"retry: " + b"9" * 5000 + b"\n" + plain
    assert _run(lambda: RETRY_READERS[entry](hostile)) == _run(lambda: RETRY_READERS[entry](plain))
    parser = sse.SSEParser()
    parser.feed(hostile)
    assert parser.retry is None
