"""lucent.Limits: each limit has its own code, a documented default, and is checked before the
work it protects (SECURITY.md, "Limits")."""

from __future__ import annotations

import json
from typing import Any

import pytest

import lucent
from lucent._context import read_by
from lucent import streams
from lucent._limits import DEFAULT_MAX_BODY_BYTES, DEFAULT_MAX_DEPTH, DEFAULT_MAX_STREAM_BYTES
from lucent._stream_read import FrameReader, spec
from lucent.errors import DecodeError, StreamError, UsageError, ValidationError
from tests.fuzz.seeds import stream_seeds
from tests.test_hostile_json_table import FORMATS, Format, valid

MIB = 1024 * 1024


def test_the_defaults_are_the_documented_ones() -> None:
    assert (DEFAULT_MAX_BODY_BYTES, DEFAULT_MAX_STREAM_BYTES, DEFAULT_MAX_DEPTH) == (32 * MIB, 64 * MIB, 512)
    assert FrameReader(spec("sparktide")).max_bytes == 4 * MIB
    assert {FrameReader(spec(f)).max_bytes for f in streams.FORMATS if f != "sparktide"} == {64 * MIB}
    assert FrameReader(spec("lux"), limits=lucent.Limits(max_stream_bytes=10)).max_bytes == 10


@pytest.mark.parametrize("value", [0, -1, 1.5, "10", True])
def test_a_limit_is_a_positive_int(value: Any) -> None:
    with pytest.raises(UsageError) as raised:
        lucent.Limits(max_depth=value)
    assert raised.value.code == "invalid_limits"


def test_limits_must_be_a_limits_object() -> None:
    for call in (
        lambda: lucent.decode(b"{}", "gemini", limits={"max_depth": 3}),  # type: ignore[arg-type]
        lambda: streams.assemble(b"", "lux", limits=5),  # type: ignore[arg-type]
        lambda: streams.convert_stream(b"", "lux", "sparktide", limits=5),  # type: ignore[arg-type]
    ):
        with pytest.raises(UsageError) as raised:
            call()
        assert raised.value.code == "invalid_limits"


@pytest.mark.parametrize("fmt", FORMATS, ids=str)
def test_every_format_takes_a_body_limit(fmt: Format) -> None:
    body = valid(fmt)
    assert lucent.decode(body, fmt.schema, fmt.definition, limits=lucent.Limits(max_body_bytes=len(body))) is not None
    with pytest.raises(ValidationError) as raised:
        lucent.decode(body, fmt.schema, fmt.definition, limits=lucent.Limits(max_body_bytes=len(body) - 1))
    assert (raised.value.code, raised.value.path) == ("max_body_bytes", "$")


def test_the_body_limit_comes_before_parsing() -> None:
    limits = lucent.Limits(max_body_bytes=100)
    for body in (b"[" * 101, b"\xff" * 101, "\ud800" * 101):  # each would fail otherwise
        with pytest.raises(ValidationError) as raised:
            lucent.decode(body, "lux-ir-v1", "LucentRequest", limits=limits)
        assert raised.value.code == "max_body_bytes"


def test_formats_without_a_protocol_cap_refuse_a_body_over_32_mib_before_parsing() -> None:
    with pytest.raises(ValidationError) as raised:
        lucent.decode(b" " * (32 * MIB + 1), "lux-ir-v1", "LucentRequest")
    assert raised.value.code == "max_body_bytes"
    with pytest.raises(DecodeError) as whitespace:  # at the cap, it is parsed (and is not JSON)
        lucent.decode(b" " * (32 * MIB), "lux-ir-v1", "LucentRequest")
    assert whitespace.value.code == "malformed_json"


def test_the_depth_limit_is_exact_and_configurable() -> None:
    def lux(depth: int) -> bytes:
        return json.dumps({"schema_version": "v1", "model": "m", "conversation": [], "options": {"stream": False}, "extra": {"x": "@"}}).encode().replace(b'"@"', b"[" * (depth - 2) + b"]" * (depth - 2))

    assert lucent.decode(lux(512), "lux-ir-v1", "LucentRequest").extra["x"] is not None
    with pytest.raises(DecodeError) as raised:
        lucent.decode(lux(513), "lux-ir-v1", "LucentRequest")
    assert (raised.value.code, raised.value.message) == ("max_depth", "the document nests deeper than 512 levels, the limit")
    with pytest.raises(DecodeError):
        lucent.decode(lux(10), "lux-ir-v1", "LucentRequest", limits=lucent.Limits(max_depth=9))
    assert lucent.decode(lux(900), "lux-ir-v1", "LucentRequest", limits=lucent.Limits(max_depth=900)) is not None


@pytest.mark.parametrize("fmt", list(streams.FORMATS))
def test_every_stream_format_takes_a_stream_limit_before_parsing(fmt: str) -> None:
    stream = max(stream_seeds()[fmt], key=len)
    limits = lucent.Limits(max_stream_bytes=len(stream) - 1)
    with pytest.raises(StreamError) as raised:
        streams.assemble(stream, fmt, limits=limits)
    assert raised.value.code == "stream_too_large"
    with pytest.raises(StreamError) as chunked:
        streams.assemble([stream[i : i + 7] for i in range(0, len(stream), 7)], fmt, limits=limits)
    assert chunked.value.code == "stream_too_large"
    with pytest.raises(StreamError) as converted:
        list(streams.convert_stream(stream, fmt, "lux", context=read_by({"id": "r", "model": "m"}, fmt, "lux", "stream"), limits=limits))
    assert converted.value.code == "stream_too_large"
    garbage = b"data: " + b"[" * 200 + b"\n\n"  # refused by size, never parsed
    with pytest.raises(StreamError) as unparsed:
        streams.assemble(garbage, fmt, limits=lucent.Limits(max_stream_bytes=100))
    assert unparsed.value.code == "stream_too_large"


@pytest.mark.parametrize("fmt", list(streams.FORMATS))
def test_a_frame_deeper_than_the_limit_is_max_depth(fmt: str) -> None:
    frame = b"data: " + b"[" * 600 + b"]" * 600 + b"\n\n"
    with pytest.raises(StreamError) as raised:
        streams.assemble(frame, fmt)
    assert (raised.value.code, raised.value.path) == ("max_depth", "$[0]")
    with pytest.raises(StreamError) as small:
        list(streams.iter_events(b'data: {"a":[[1]]}\n\n', fmt, limits=lucent.Limits(max_depth=2)))
    assert small.value.code == "max_depth"


def test_convert_takes_limits() -> None:
    body = open("examples/sparktide-request.json", "rb").read()
    with pytest.raises(ValidationError) as raised:
        lucent.convert(body, "sparktide", "lux", limits=lucent.Limits(max_body_bytes=100))
    assert raised.value.code == "max_body_bytes"
    with pytest.raises(DecodeError) as deep:
        lucent.convert(body, "sparktide", "lux", limits=lucent.Limits(max_depth=3))
    assert deep.value.code == "max_depth"
