"""The SparkTide REMOTE 1.0 front: every rule of ../shared/corpus/sparktide-docs/SOURCE.md, and
each failure class produced by an upstream (issue 19, acceptance 2)."""

from __future__ import annotations

import json
import threading
import time

import pytest

import lucent
from lucent import streams
from tests.server.harness import DIRS, OTHER_PLATFORM_KEY, UPSTREAM_KEYS, recorded, sse_of
from tests.server.remote_client import call, failure_code, frames, invocation


def _expected_document(fmt: str) -> dict:
    reply = recorded("toolCallRequest", fmt, "response.json")
    return json.loads(lucent.encode(lucent.convert(json.dumps(reply), fmt, "sparktide", "response").value))


@pytest.mark.parametrize("fmt", list(DIRS))
def test_a_document_reply_is_message_and_usage_as_lucent_converts_it(gateway, calls, fmt) -> None:
    answer = call(gateway.url, invocation(f"toolCallRequest.1.{fmt}"))
    assert answer.status_code == 200, answer.text
    assert answer.json() == _expected_document(fmt)
    lucent.decode(answer.content, "sparktide-remote-1.0", "RemoteModelResponse")
    assert len(calls) == 1


@pytest.mark.parametrize("fmt", list(DIRS))
def test_a_stream_is_complete_json_frames_ending_in_one_terminal(gateway, calls, fmt) -> None:
    answer = call(gateway.url, invocation(f"toolCallRequest.1.{fmt}", stream=True))
    got = frames(answer)
    assert got[-1]["type"] == "model.completed" and [f["type"] for f in got].count("model.completed") == 1
    assert "[DONE]" not in answer.text
    events = recorded("toolCallRequest", fmt, "response-streaming.json")
    expected = streams.assemble(streams.convert_stream(sse_of(events, fmt), fmt, "sparktide", tools=["get_weather"]), "sparktide")
    assert streams.assemble(answer.content, "sparktide", tools=["get_weather"]) == expected
    assert [(c["format"], c["stream"]) for c in calls] == [(fmt, True)]


def test_no_upstream_usage_is_an_empty_usage_never_zeros(gateway, calls) -> None:
    answer = call(gateway.url, invocation("nousage.1.openai-chat"))
    assert answer.json() == {"message": {"role": "assistant", "content": "hello"}, "usage": {}}


@pytest.mark.parametrize("key", [None, "wrong-key", "sparktide-platform-ke"])
def test_a_missing_or_wrong_bearer_key_is_auth_failed(gateway, calls, key) -> None:
    answer = call(gateway.url, invocation(), key=key)
    assert answer.status_code == 401 and failure_code(answer) == "MODEL_AUTH_FAILED"
    assert calls == []


@pytest.mark.parametrize("idempotency_key", [None, "model_other"])
def test_the_idempotency_key_must_be_the_invocation_id(gateway, calls, idempotency_key) -> None:
    answer = call(gateway.url, invocation(), idempotency_key=idempotency_key)
    assert answer.status_code == 400 and failure_code(answer) == "MODEL_REQUEST_REJECTED"
    assert calls == []


def _raw(body: dict, tail: str = "", **replace: str) -> bytes:
    text = json.dumps(body)
    for old, new in replace.items():
        text = text.replace(old, new)
    return (text[:-1] + tail + "}").encode() if tail else text.encode()


@pytest.mark.parametrize(("change", "lucent_code"), [
    ("unknown field", "additionalProperties"),
    ("wrong version", "enum"),
    ("duplicate property", "duplicate_key"),
    ("trailing JSON", "malformed_json"),
])
def test_a_refused_request_never_reaches_the_upstream(gateway, calls, change, lucent_code) -> None:
    body = invocation()
    if change == "unknown field":
        raw = _raw(body, ', "temperatures": 1')
    elif change == "wrong version":
        raw = _raw(body, **{'"protocolVersion": "1.0"': '"protocolVersion": "1.1"'})
    elif change == "duplicate property":
        raw = _raw(body, ', "stream": false')
    else:
        raw = json.dumps(body).encode() + b' {"more": 1}'
    answer = call(gateway.url, raw, idempotency_key=body["invocationId"])
    assert answer.status_code == 400 and failure_code(answer) == "MODEL_REQUEST_REJECTED"
    assert answer.headers["lucent-error"].split()[0] == lucent_code
    assert calls == []


def test_an_input_over_1_mib_is_refused_before_parsing(gateway, calls) -> None:
    body = invocation(messages=[{"role": "user", "content": "x" * (1024 * 1024)}])
    answer = call(gateway.url, body)
    assert answer.status_code == 413 and failure_code(answer) == "MODEL_REQUEST_REJECTED"
    assert calls == []


def test_a_deadline_already_past_is_timed_out_without_an_upstream_call(gateway, calls) -> None:
    answer = call(gateway.url, invocation(deadline_s=-1))
    assert answer.status_code == 504 and failure_code(answer) == "MODEL_TIMED_OUT"
    assert calls == []


def test_a_stream_past_its_deadline_ends_with_a_timed_out_frame(gateway, calls) -> None:
    started = time.monotonic()
    answer = call(gateway.url, invocation("fault-slow.1.openai-chat", stream=True, deadline_s=1.5))
    assert time.monotonic() - started < 10
    got = frames(answer)
    assert got[0] == {"protocolVersion": "1.0", "type": "text.delta", "text": "thinking"}
    assert got[-1] == {"protocolVersion": "1.0", "type": "model.error", "code": "MODEL_TIMED_OUT"}


def test_a_stream_over_4_mib_ends_with_a_protocol_error_within_4_mib(gateway, calls) -> None:
    answer = call(gateway.url, invocation("fault-big.1.openai-chat", stream=True))
    assert len(answer.content) <= 4 * 1024 * 1024
    assert frames(answer)[-1] == {"protocolVersion": "1.0", "type": "model.error", "code": "MODEL_PROTOCOL_ERROR"}


def test_a_stream_cut_upstream_keeps_the_usage_received_before_it(gateway, calls) -> None:
    answer = call(gateway.url, invocation("fault-usage-cut.1.anthropic", stream=True))
    got = frames(answer)
    usage = recorded("toolCallRequest", "anthropic", "response-streaming.json")[0]["message"]["usage"]
    assert got[-2] == {"protocolVersion": "1.0", "type": "usage", "usage": {"prompt_tokens": usage["input_tokens"], "completion_tokens": usage["output_tokens"]}}
    assert got[-1] == {"protocolVersion": "1.0", "type": "model.error", "code": "MODEL_UNAVAILABLE"}


@pytest.mark.parametrize("fmt", list(DIRS))
def test_an_upstream_that_stops_mid_stream_is_unavailable(gateway, calls, fmt) -> None:
    got = frames(call(gateway.url, invocation(f"fault-cut.1.{fmt}", stream=True)))
    assert got[-1] == {"protocolVersion": "1.0", "type": "model.error", "code": "MODEL_UNAVAILABLE"}


def test_a_changed_tool_identity_is_a_protocol_error(gateway, calls) -> None:
    body = invocation("fault-identity.1.openai-chat", stream=True, tools=[{"type": "function", "function": {"name": "tool_0"}}])
    got = frames(call(gateway.url, body))
    assert got[-1] == {"protocolVersion": "1.0", "type": "model.error", "code": "MODEL_PROTOCOL_ERROR"}


def test_a_tool_the_request_did_not_declare_is_a_protocol_error(gateway, calls) -> None:
    answer = call(gateway.url, invocation("toolCallRequest.1.anthropic", tools=[]))
    assert answer.status_code == 502 and failure_code(answer) == "MODEL_PROTOCOL_ERROR"
    got = frames(call(gateway.url, invocation("toolCallRequest.1.anthropic", stream=True, tools=[])))
    assert got[-1]["code"] == "MODEL_PROTOCOL_ERROR"


@pytest.mark.parametrize("stream", [False, True])
@pytest.mark.parametrize(("scenario", "status", "code"), [("fault-500", 500, "MODEL_UNAVAILABLE"), ("fault-429", 429, "MODEL_RATE_LIMITED")])
def test_an_upstream_error_status_is_a_failure_without_the_upstream_key(gateway, calls, scenario, status, code, stream) -> None:
    answer = call(gateway.url, invocation(f"{scenario}.1.openai-chat", stream=stream))
    assert answer.status_code == status and failure_code(answer) == code
    assert all(key not in answer.text for key in UPSTREAM_KEYS.values())


def test_a_repeated_invocation_id_returns_the_first_result_without_a_second_call(gateway, calls) -> None:
    for stream in (False, True):
        body = invocation("toolCallRequest.1.gemini", stream=stream)
        first = call(gateway.url, body)
        second = call(gateway.url, body)
        assert first.status_code == second.status_code == 200
        assert second.content == first.content
    assert len(calls) == 2


def test_a_concurrent_repeat_waits_for_the_first(gateway, calls) -> None:
    body = invocation("slow-ok.1.anthropic")
    answers: list = []
    threads = [threading.Thread(target=lambda: answers.append(call(gateway.url, body))) for _ in range(3)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(20)
    assert [a.status_code for a in answers] == [200, 200, 200]
    assert len({a.content for a in answers}) == 1
    assert len(calls) == 1


def test_a_repeat_with_another_body_is_refused(gateway, calls) -> None:
    body = invocation("toolCallRequest.1.openai-chat")
    assert call(gateway.url, body).status_code == 200
    changed = dict(body, max_completion_tokens=65)
    answer = call(gateway.url, changed)
    assert answer.status_code == 422 and failure_code(answer) == "MODEL_REQUEST_REJECTED"
    assert len(calls) == 1


def test_another_platform_key_never_gets_the_first_result(gateway, calls) -> None:
    body = invocation("toolCallRequest.1.openai-chat")
    assert call(gateway.url, body).status_code == 200
    assert call(gateway.url, body, key=OTHER_PLATFORM_KEY).status_code == 200
    assert len(calls) == 2


def test_a_protocol_error_is_kept_and_an_unavailable_upstream_is_tried_again(gateway, calls) -> None:
    protocol = invocation("toolCallRequest.1.anthropic", tools=[])
    assert [failure_code(call(gateway.url, protocol)) for _ in range(2)] == ["MODEL_PROTOCOL_ERROR"] * 2
    assert len(calls) == 1
    unavailable = invocation("fault-500.1.openai-chat")
    assert [failure_code(call(gateway.url, unavailable)) for _ in range(2)] == ["MODEL_UNAVAILABLE"] * 2
    assert len(calls) == 3
