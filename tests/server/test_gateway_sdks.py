"""Every front to every upstream, document and stream, turn 1 (a tool call) and turn 2 (its
result), driven by the vendors' SDKs: what the SDK parsed matches lucent's conversion of the
recorded upstream reply (issue 19, acceptance 1)."""

from __future__ import annotations

import json
from typing import Any

import msgspec
import pytest

import lucent
from lucent import streams
from lucent._context import read_by
from tests.server.harness import DIRS, VENDOR_FRONTS, recorded, sse_of
from tests.server.sdk_clients import ask

SCENARIO = "toolCallRequest"
_ENVELOPE = ("created", "created_at")  # the time the gateway answered, where the upstream has none


def _request(front: str, turn: int, upstream: str) -> dict[str, Any]:
    request = recorded(SCENARIO, front, "request.json" if turn == 1 else "followup-request.json")
    request["model"] = f"{SCENARIO}.{turn}.{upstream}"
    return request


def _json(value: Any) -> Any:
    return json.loads(lucent.encode(value))


def _without_envelope(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: v for k, v in value.items() if k not in _ENVELOPE}
    return value


def _as_gemini_sdk(value: Any) -> Any:
    """A GenerateContentResponse as google-genai reads it (it keeps only the members it models)."""
    from google.genai import types

    parsed = types.GenerateContentResponse._from_response(response=value, kwargs={})
    return parsed.model_dump(mode="json", exclude_unset=True, by_alias=True)


def expected_document(upstream: str, front: str, turn: int) -> Any:
    reply = recorded(SCENARIO, upstream, "response.json" if turn == 1 else "followup-response.json")
    converted = _json(lucent.convert(json.dumps(reply), upstream, front, "response").value)
    return _as_gemini_sdk(converted) if front == "gemini" else converted


def expected_stream(upstream: str, front: str, turn: int) -> Any:
    events = recorded(SCENARIO, upstream, "response-streaming.json" if turn == 1 else "followup-response-streaming.json")
    converted = list(streams.convert_stream(sse_of(events, upstream), upstream, front, context=read_by({"created": 1, "created_at": 1}, upstream, front, "stream")))
    if front == "gemini":
        return [_as_gemini_sdk(_json(event)) for event in converted]
    return _json(streams.assemble(converted, front))


def _subset(expected: Any, got: Any, path: str = "$") -> None:
    """Every member of ``expected`` is in ``got`` with the same value (an SDK may add members
    with its defaults; it may not change or drop any)."""
    if isinstance(expected, dict):
        assert isinstance(got, dict), f"{path}: {got!r}"
        for name, value in expected.items():
            if value is None and got.get(name) is None:
                continue
            assert name in got, f"{path}.{name} missing"
            _subset(value, got[name], f"{path}.{name}")
    elif isinstance(expected, list):
        assert isinstance(got, list) and len(got) == len(expected), f"{path}: {len(expected)} items expected"
        for i, (a, b) in enumerate(zip(expected, got)):
            _subset(a, b, f"{path}[{i}]")
    else:
        assert expected == got, f"{path}: {expected!r} != {got!r}"


def _matches(expected: Any, got: Any, front: str) -> None:
    """openai and anthropic keep every member they get: the SDK's value holds all of lucent's.
    google-genai keeps only the members it models (it drops ``finishMessage``): each of its
    members is lucent's, and the candidates' content is all there."""
    if front != "gemini":
        _subset(expected, got)
        return
    _subset(got, expected)
    for want, have in zip(expected if isinstance(expected, list) else [expected], got if isinstance(got, list) else [got]):
        assert [c.get("content") for c in want.get("candidates", [])] == [c.get("content") for c in have.get("candidates", [])]


@pytest.mark.parametrize("turn", [1, 2])
@pytest.mark.parametrize("upstream_format", list(DIRS))
@pytest.mark.parametrize("front", VENDOR_FRONTS)
def test_a_document_reply_reaches_the_sdk_as_lucent_converts_it(gateway, calls, front, upstream_format, turn) -> None:
    got = ask(front, gateway.url, _request(front, turn, upstream_format), stream=False)
    expected = _without_envelope(expected_document(upstream_format, front, turn))
    if front == "openai-responses" and upstream_format != "openai-responses":  # a continuation's id is the gateway's
        assert got["id"].startswith("resp_") and len(got["id"]) == 37
        expected.pop("id")
    _matches(expected, got, front)
    assert [call["format"] for call in calls] == [upstream_format]


@pytest.mark.parametrize("turn", [1, 2])
@pytest.mark.parametrize("upstream_format", list(DIRS))
@pytest.mark.parametrize("front", VENDOR_FRONTS)
def test_a_stream_reaches_the_sdk_stream_helper_as_lucent_converts_it(gateway, calls, front, upstream_format, turn) -> None:
    got = ask(front, gateway.url, _request(front, turn, upstream_format), stream=True)
    expected = expected_stream(upstream_format, front, turn)
    if isinstance(expected, dict):
        expected = _without_envelope(expected)
        got = _without_envelope(got)
        if front == "openai-responses" and upstream_format != "openai-responses":  # a continuation's id is the gateway's
            assert got["id"].startswith("resp_") and len(got["id"]) == 37
            expected.pop("id")
    else:
        expected = [_without_envelope(e) for e in expected]
    _matches(expected, got, front)
    assert [(call["format"], call["stream"]) for call in calls] == [(upstream_format, True)]
