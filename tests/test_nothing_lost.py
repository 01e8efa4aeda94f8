"""Nothing lost (issue 7, section 4): a stream that fails keeps the usage it received, in every
stream format and through a stream conversion; a strict conversion that refuses reports every
diagnostic, not only the first. (The conservation check over the fuzz corpus is in
tests/test_fuzz.py and ``python -m tests.fuzz``.)
"""

from __future__ import annotations

import json
from typing import Any

import msgspec
import pytest

import lucent
from lucent._context import read_by
from lucent import streams
from lucent.errors import ConversionError, StreamError
from tests.fuzz.seeds import seeds, stream_seeds
from tests.fuzz.targets import CONTEXT, convert_pairs

STREAMS = stream_seeds()


def frames_of(stream: bytes) -> list[bytes]:
    return [frame + b"\n\n" for frame in stream.split(b"\n\n") if frame.strip()]


def usage_frames(fmt: str) -> list[tuple[bytes, int, dict[str, Any]]]:
    """(stream, index of its usage frame, the usage) of each seed stream of ``fmt`` with usage."""
    found = []
    for stream in STREAMS.get(fmt, []):
        for index, frame in enumerate(frames_of(stream)):
            try:
                event = json.loads(frame.removeprefix(b"data: "))
            except ValueError:  # a seed that breaks the stream rules ([DONE], ...)
                break
            usage = event.get("usage") if isinstance(event, dict) else None
            if isinstance(usage, dict) and event.get("type", event.get("event")) in ("usage", "model.usage"):
                found.append((stream, index, usage))
    return found


@pytest.mark.parametrize("fmt", ["sparktide", "lux"])
def test_every_cut_after_the_usage_keeps_it_on_the_error(fmt: str) -> None:
    cases = usage_frames(fmt)
    assert cases, f"no {fmt} seed stream carries usage"
    for stream, index, usage in cases:
        frames = frames_of(stream)
        for cut in range(index + 1, len(frames)):  # every frame after the usage, the last one too
            with pytest.raises(StreamError) as raised:
                streams.assemble(b"".join(frames[:cut]), fmt)
            assert raised.value.code in ("missing_terminal", "missing_finish", "item_not_closed")
            assert msgspec.to_builtins(raised.value.usage) == usage
            for target in streams.FORMATS:
                with pytest.raises(StreamError) as converted:
                    list(streams.convert_stream(b"".join(frames[:cut]), fmt, target, context=read_by({"id": "r", "model": "m"}, fmt, target, "stream")))
                assert msgspec.to_builtins(converted.value.usage) == usage


@pytest.mark.parametrize("fmt", ["sparktide", "lux"])
def test_a_stream_cut_inside_a_frame_after_the_usage_keeps_it(fmt: str) -> None:
    for stream, index, usage in usage_frames(fmt):
        frames = frames_of(stream)
        head = b"".join(frames[: index + 1])
        with pytest.raises(StreamError) as raised:
            streams.assemble(head + frames[index + 1][:-5], fmt)
        assert raised.value.code == "interrupted"
        assert msgspec.to_builtins(raised.value.usage) == usage


def test_a_sparktide_model_error_after_the_usage_keeps_it() -> None:
    stream, index, usage = usage_frames("sparktide")[0]
    frames = frames_of(stream)
    error = b'data: {"protocolVersion":"1.0","type":"model.error","code":"MODEL_TIMED_OUT"}\n\n'
    with pytest.raises(StreamError) as raised:
        streams.assemble(b"".join(frames[: index + 1]) + error, "sparktide")
    assert raised.value.code == "model_error"
    assert msgspec.to_builtins(raised.value.usage) == usage


def test_a_strict_conversion_reports_every_diagnostic() -> None:
    found = seeds(per_definition=3, shared=False, per_target=6, families=frozenset({"convert"}))
    refused = 0
    for source, target, kind in convert_pairs():
        if source == target:
            continue
        for data in found[f"convert:{source}:{target}:{kind}"]:
            try:
                lenient = lucent.convert(data, source, target, kind, context=read_by(CONTEXT, source, target, kind))
            except lucent.errors.LucentError:
                continue
            lossy = [d for d in lenient.diagnostics if d.status in ("Unsupported", "Invalid")]
            if not lossy:
                assert lucent.convert(data, source, target, kind, context=read_by(CONTEXT, source, target, kind), strict=True).diagnostics == lenient.diagnostics
                continue
            with pytest.raises(ConversionError) as raised:
                lucent.convert(data, source, target, kind, context=read_by(CONTEXT, source, target, kind), strict=True)
            refused += 1
            assert raised.value.diagnostics == lenient.diagnostics
            assert raised.value.path == lossy[0].field
            assert raised.value.message.startswith(f"{len(lossy)} diagnostic(s) are Unsupported or Invalid")
    assert refused >= 10
