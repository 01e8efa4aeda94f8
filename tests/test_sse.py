"""lucent.sse: the event-stream parser (HTML Living Standard 9.2.6) and the writer."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lucent.errors import EncodeError, StreamError, UsageError
from lucent.sse import SSEEvent, SSEParser, aparse, encode_comment, encode_event, parse


def run(*chunks: bytes, errors: str = "replace") -> tuple[list[SSEEvent], SSEParser]:
    parser = SSEParser(errors=errors)  # type: ignore[arg-type]
    events: list[SSEEvent] = []
    for chunk in chunks:
        events += parser.feed(chunk)
    events += parser.close()
    return events, parser


def data(*chunks: bytes) -> list[str]:
    return [e.data for e in run(*chunks)[0]]


# ---------------------------------------------------------------- the standard's examples (9.2.6)


def test_spec_example_stock_ticker_joins_data_lines_with_lf() -> None:
    assert data(b"data: YHOO\ndata: +2\ndata: 10\n\n") == ["YHOO\n+2\n10"]


def test_spec_example_comment_ids_and_leading_space() -> None:
    stream = b": test stream\n\ndata: first event\nid: 1\n\ndata:second event\nid\n\ndata:  third event\n\n"
    events, _ = run(stream)
    assert [(e.data, e.id) for e in events] == [("first event", "1"), ("second event", ""), (" third event", "")]


def test_spec_example_empty_data_and_the_unterminated_last_block() -> None:
    events, parser = run(b"data\n\ndata\ndata\n\ndata:")
    assert [e.data for e in events] == ["", "\n"]
    assert parser.truncated  # the last block has no blank line after it: discarded


def test_spec_example_one_space_after_the_colon_is_dropped() -> None:
    assert data(b"data:test\n\ndata: test\n\n") == ["test", "test"]


def test_spec_example_event_types() -> None:
    events, _ = run(b"event: add\ndata: 73857293\n\nevent: remove\ndata: 2153\n\nevent: add\ndata: 113411\n\n")
    assert [(e.event, e.data) for e in events] == [("add", "73857293"), ("remove", "2153"), ("add", "113411")]


# ---------------------------------------------------------------- line ends, comments, fields


@pytest.mark.parametrize("end", ["\n", "\r", "\r\n"], ids=["LF", "CR", "CRLF"])
def test_every_line_end_gives_the_same_events(end: str) -> None:
    text = end.join(["event: x", "data: a", "data: b", "", "data: c", "", ""])
    events, parser = run(text.encode())
    assert [(e.event, e.data) for e in events] == [("x", "a\nb"), ("message", "c")]
    assert not parser.truncated


def test_mixed_line_ends_in_one_stream() -> None:
    assert data(b"data: a\r\ndata: b\rdata: c\n\r\ndata: d\r\r") == ["a\nb\nc", "d"]


def test_cr_then_lf_in_the_next_chunk_is_one_line_end() -> None:
    assert data(b"data: a\r", b"\ndata: b\r", b"\r") == ["a\nb"]


def test_cr_cr_is_two_line_ends() -> None:
    assert data(b"data: a\r\r") == ["a"]


def test_comments_are_ignored_anywhere() -> None:
    events, parser = run(b": hi\ndata: a\n: between\ndata: b\n\n:\n: keep-alive\n")
    assert [e.data for e in events] == ["a\nb"]
    assert not parser.truncated  # a trailing comment is not an unfinished event


def test_fields_other_than_data_event_id_retry_are_ignored() -> None:
    events, parser = run(b"foo: bar\ndata: a\nDATA: b\n data: c\nretry: 10x\n\n")
    assert [e.data for e in events] == ["a"]
    assert parser.retry is None


def test_a_field_without_colon_has_an_empty_value() -> None:
    assert data(b"data\ndata\n\n") == ["\n"]


def test_only_one_leading_space_is_dropped_from_a_value() -> None:
    assert data(b"data:   x \n\n") == ["  x "]


def test_an_event_without_data_is_not_dispatched_and_its_type_is_reset() -> None:
    events, _ = run(b"event: ping\n\ndata: x\n\n")
    assert [(e.event, e.data) for e in events] == [("message", "x")]


def test_id_persists_and_an_id_with_nul_is_ignored() -> None:
    events, parser = run(b"id: 7\ndata: a\n\ndata: b\n\nid: x\0y\ndata: c\n\nid\ndata: d\n\n")
    assert [e.id for e in events] == ["7", "7", "7", ""]
    assert parser.last_event_id == ""


def test_an_id_alone_still_sets_the_last_event_id() -> None:
    events, parser = run(b"id: 3\n\n")
    assert events == [] and parser.last_event_id == "3"


def test_retry_takes_ascii_digits_only() -> None:
    _, parser = run(b"retry: 1500\n\nretry: 12a\n\nretry: \xd9\xa3\n\n")
    assert parser.retry == 1500


# ---------------------------------------------------------------- BOM (9.2.6: UTF-8 decode drops one BOM)


def test_a_leading_bom_is_dropped() -> None:
    assert data(b"\xef\xbb\xbfdata: a\n\n") == ["a"]


def test_a_bom_split_across_chunks_is_dropped() -> None:
    assert data(b"\xef", b"\xbb", b"\xbfdata: a\n\n") == ["a"]


def test_only_one_bom_is_dropped() -> None:
    # The second BOM starts the field name "\ufeffdata", which is not a known field.
    assert data(b"\xef\xbb\xbf\xef\xbb\xbfdata: a\n\ndata: b\n\n") == ["b"]


def test_a_bom_after_the_start_is_not_dropped() -> None:
    assert data(b"data: a\n\n\xef\xbb\xbfdata: b\n\n") == ["a"]


# ---------------------------------------------------------------- fragmentation

STREAM = (
    "\ufeff: comment\r\n"
    "event: tür\r\n"
    "data: 正在查询 😀\r"
    "data: second line\n"
    "id: 42\n"
    "\r\n"
    "data:{\"k\":\"é\"}\n"
    "retry: 300\n"
    "\n"
    "data: \u00e9\u20ac\r\r"
).encode("utf-8")


def whole() -> list[SSEEvent]:
    events, parser = run(STREAM)
    assert not parser.truncated
    return events


def test_the_fragmentation_stream_has_what_the_tests_expect() -> None:
    events = whole()
    assert [(e.event, e.data, e.id) for e in events] == [
        ("tür", "正在查询 😀\nsecond line", "42"),
        ("message", '{"k":"é"}', "42"),
        ("message", "é€", "42"),
    ]


@pytest.mark.parametrize("cut", range(1, len(STREAM)))
def test_a_split_at_every_byte_offset_gives_the_same_events(cut: int) -> None:
    events, parser = run(STREAM[:cut], STREAM[cut:], errors="strict")
    assert events == whole()
    assert parser.retry == 300 and not parser.truncated


def test_every_pair_of_split_points_gives_the_same_events() -> None:
    expected = whole()
    n = len(STREAM)
    for i in range(1, n):
        for j in range(i, n):
            assert run(STREAM[:i], STREAM[i:j], STREAM[j:], errors="strict")[0] == expected, (i, j)


def test_one_byte_at_a_time_and_empty_chunks() -> None:
    chunks = [b""] + [STREAM[i : i + 1] for i in range(len(STREAM))] + [b""]
    assert run(*chunks, errors="strict")[0] == whole()


def test_events_are_returned_by_the_chunk_that_completes_them() -> None:
    parser = SSEParser()
    assert parser.feed(b"data: a\n") == []
    assert parser.feed(b"\ndata: b") == [SSEEvent(data="a")]
    assert parser.feed(b"\n\n") == [SSEEvent(data="b")]


# ---------------------------------------------------------------- invalid UTF-8 and truncation


def test_invalid_utf8_is_replaced_by_default() -> None:
    assert data(b"data: a\xffb\n\n") == ["a\ufffdb"]


def test_invalid_utf8_split_across_chunks_is_replaced_once() -> None:
    assert data(b"data: a\xe6\xad", b"b\n\n") == ["a\ufffdb"]


def test_strict_mode_returns_earlier_events_then_raises_with_the_offset() -> None:
    parser = SSEParser(errors="strict")
    assert parser.feed(b"data: ok\n\ndata: a\xffb\n\n") == [SSEEvent(data="ok")]
    with pytest.raises(StreamError) as info:
        parser.close()
    assert (info.value.code, info.value.offset) == ("invalid_utf8", 17)
    with pytest.raises(StreamError):
        parser.feed(b"data: more\n\n")


def test_strict_offset_counts_bytes_held_from_the_previous_chunk() -> None:
    parser = SSEParser(errors="strict")
    parser.feed(b"data: \xe6\xad")
    with pytest.raises(StreamError) as info:
        parser.feed(b"x\n\n")
        parser.close()
    assert info.value.offset == 6


@pytest.mark.parametrize(
    "stream",
    [b"data: a", b"data: a\n", b"data: a\r\n", b"event: x\n", b"data: a\n\ndata: \xe6\xad"],
    ids=["unterminated-line", "no-blank-line", "no-blank-line-crlf", "fields-only", "inside-utf8"],
)
def test_a_stream_that_ends_inside_an_event_is_truncated(stream: bytes) -> None:
    _, parser = run(stream, errors="strict")
    assert parser.truncated


def test_a_stream_that_ends_on_a_cr_is_not_truncated() -> None:
    events, parser = run(b"data: a\r\r")
    assert [e.data for e in events] == ["a"] and not parser.truncated


def test_an_unknown_errors_mode_is_a_usage_error() -> None:
    with pytest.raises(UsageError):
        SSEParser(errors="ignore")  # type: ignore[arg-type]


# ---------------------------------------------------------------- writer


@pytest.mark.parametrize(
    "text", ["", "plain", " leading space", "a\nb", "a\r\nb\rc", "trailing\n", "正在查询 😀", ":not a comment", "data: x"]
)
def test_encode_event_round_trips_through_the_parser(text: str) -> None:
    written = encode_event(text, event="kind", id="7", retry=250)
    events, parser = run(written)
    expected = text.replace("\r\n", "\n").replace("\r", "\n")
    assert events == [SSEEvent(data=expected, event="kind", id="7")]
    assert parser.retry == 250


def test_encode_event_writes_one_data_line_per_line() -> None:
    assert encode_event("a\nb") == b"data: a\ndata: b\n\n"


def test_encode_comment_is_ignored_by_readers() -> None:
    assert encode_comment("keep\nalive") == b": keep\n: alive\n"
    assert data(encode_comment("x") + encode_event("y") + encode_comment()) == ["y"]


@pytest.mark.parametrize(
    "kwargs", [{"event": "a\nb"}, {"id": "a\rb"}, {"id": "a\0b"}, {"retry": -1}], ids=["event-lf", "id-cr", "id-nul", "retry"]
)
def test_encode_event_refuses_fields_a_reader_would_misread(kwargs: dict[str, object]) -> None:
    with pytest.raises(UsageError) as info:
        encode_event("x", **kwargs)  # type: ignore[arg-type]
    assert info.value.code == "invalid_sse_field"


def test_encode_event_refuses_a_lone_surrogate() -> None:
    with pytest.raises(EncodeError):
        encode_event("\ud800")


@settings(max_examples=200, deadline=None)
@given(
    texts=st.lists(st.text(st.characters(exclude_categories=["Cs"])), min_size=1, max_size=5),
    cuts=st.lists(st.integers(min_value=0, max_value=10_000), max_size=6),
)
def test_written_events_survive_any_split(texts: list[str], cuts: list[int]) -> None:
    stream = b"".join(encode_event(t) for t in texts)
    points = sorted({c % (len(stream) + 1) for c in cuts})
    chunks = [stream[a:b] for a, b in zip([0, *points], [*points, len(stream)])]
    events, parser = run(*chunks, errors="strict")
    assert [e.data for e in events] == [t.replace("\r\n", "\n").replace("\r", "\n") for t in texts]
    assert not parser.truncated


# ---------------------------------------------------------------- parse / aparse


def test_parse_reads_an_iterable_of_chunks() -> None:
    assert [e.data for e in parse([b"data: a\n", b"\ndata: b\n\n"])] == ["a", "b"]


def test_aparse_reads_an_async_iterable_of_chunks() -> None:
    async def chunks() -> AsyncIterator[bytes]:
        for i in range(len(STREAM)):
            yield STREAM[i : i + 1]

    async def collect() -> list[SSEEvent]:
        return [e async for e in aparse(chunks(), errors="strict")]

    assert asyncio.run(collect()) == whole()
