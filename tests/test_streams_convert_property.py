"""Property 6: ``assemble(convert_stream(s)) == convert(assemble(s))`` (tests/stream_conformance.py).

Under pytest: every stream of the corpus (the SparkTide documentation's stream, the valid streams
of the cases) to every other format, and 50 generated streams per ordered pair;
``python -m tests.stream_conformance --count 500`` runs the corpus and 500 per pair.
"""

from __future__ import annotations

import json
from typing import Any

import msgspec
import pytest
from hypothesis import HealthCheck, given, settings

import lucent
from lucent import streams
from lucent.errors import StreamError
from lucent.generated.lux_ir_v1 import LucentStreamEventError
from tests.stream_conformance import CONTEXT, GENERATORS, PAIRS, check, corpus

CORPUS = [(name, fmt, target, events) for name, fmt, events in corpus() for target in ("sparktide", "llm-sdk", "lux") if target != fmt]


@pytest.mark.parametrize("name,source,target,events", CORPUS, ids=[f"{n}:{t}" for n, _, t, _ in CORPUS])
def test_property_holds_for_every_corpus_stream(name: str, source: str, target: str, events: Any) -> None:
    check(events, source, target)


def test_the_corpus_holds_a_stream_of_every_format() -> None:
    assert {fmt for _, fmt, _, _ in CORPUS} == {"sparktide", "llm-sdk", "lux"}


@pytest.mark.parametrize("source,target", PAIRS)
def test_property_holds_for_generated_streams(source: str, target: str) -> None:

    @settings(max_examples=50, deadline=None, database=None, suppress_health_check=list(HealthCheck))
    @given(GENERATORS[source]())
    def one(stream: list[dict[str, Any]]) -> None:
        check(stream, source, target)

    one()


def test_a_failed_stream_fails_alike_and_its_error_converts_as_the_document_does() -> None:
    # The corpus' error frame (sparktide-docs/error-frame.json) as a whole stream.
    frames = [{"protocolVersion": "1.0", "type": "model.error", "code": "MODEL_UNAVAILABLE"}]
    out = list(streams.convert_stream(frames, "sparktide", "lux", context=CONTEXT))
    with pytest.raises(StreamError) as converted:
        streams.assemble(out, "lux")
    with pytest.raises(StreamError) as original:
        streams.assemble(frames, "sparktide")
    assert converted.value.code == original.value.code == "model_error"
    failure = {"error": {"code": original.value.error.code}}
    expected = lucent.convert(json.dumps(failure), "sparktide", "lux", kind="error").value
    assert [e.error for e in out if isinstance(e, LucentStreamEventError)] == [expected]
    back = list(streams.convert_stream(out, "lux", "sparktide"))
    assert msgspec.to_builtins(back) == [{"type": "model.error", "protocolVersion": "1.0", "code": "MODEL_UNAVAILABLE"}]
