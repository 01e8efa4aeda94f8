"""Errors each front's clients understand, security and operations (issue 19): a refused
document is the API's own 400 with lucent's code and path; an upstream error status is relayed
in the front's shape without the upstream key; a stream cut upstream ends with the front's error
event (no ``[DONE]`` after a Chat error); keys; body caps; the log line; health; a client that
goes away cancels the upstream call."""

from __future__ import annotations

import json
import logging
import time

import httpx
import pytest

from tests.server.harness import GATEWAY_KEY, OTHER_KEY, UPSTREAM_KEYS, VENDOR_FRONTS, recorded
from tests.server.sdk_clients import anthropic_client, ask, gemini_client, openai_client

_PATHS = {"openai-chat": "/v1/chat/completions", "openai-responses": "/v1/responses", "anthropic": "/v1/messages"}


def _path(front: str, model: str, stream: bool = False) -> str:
    if front == "gemini":
        return f"/v1beta/models/{model}:" + ("streamGenerateContent?alt=sse" if stream else "generateContent")
    return _PATHS[front]


def _request(front: str, model: str) -> dict:
    request = recorded("toolCallRequest", front, "request.json")
    request["model"] = model
    return request


def _sdk_error(front: str, url: str, request: dict, stream: bool = False) -> Exception:
    with pytest.raises(Exception) as caught:
        ask(front, url, request, stream)
    return caught.value


def test_a_refused_chat_document_is_openais_400_with_lucents_code_and_path(gateway, calls) -> None:
    import openai

    with pytest.raises(openai.BadRequestError) as caught:
        openai_client(gateway.url).chat.completions.create(model="toolCallRequest.1.anthropic", messages=[{"role": "wizard", "content": "hi"}])
    error = caught.value.body
    assert (error["type"], error["code"], error["param"]) == ("invalid_request_error", "const", "$.messages[0].role")
    assert calls == []


def test_a_refused_responses_document_is_openais_400(gateway, calls) -> None:
    import openai

    with pytest.raises(openai.BadRequestError) as caught:
        openai_client(gateway.url).responses.create(model="toolCallRequest.1.anthropic", input=[{"type": "message", "role": "user", "content": 5}])
    assert caught.value.body["param"].startswith("$.input[0]")
    assert calls == []


def test_a_refused_messages_document_is_anthropics_400(gateway, calls) -> None:
    import anthropic

    with pytest.raises(anthropic.BadRequestError) as caught:
        anthropic_client(gateway.url).messages.create(model="toolCallRequest.1.openai-chat", max_tokens=-3, messages=[{"role": "user", "content": "hi"}])
    body = caught.value.body
    assert body["type"] == "error" and body["error"]["type"] == "invalid_request_error"
    assert (body["error"]["code"], body["error"]["path"]) == ("minimum", "$.max_tokens")
    assert calls == []


def test_a_refused_gemini_document_is_googles_400(gateway, calls) -> None:
    from google.genai import errors

    client = gemini_client(gateway.url)  # held: a collected Client closes its connection pool
    document = {"contents": [{"role": "user", "parts": [{"text": 5}]}]}  # the SDK's types would refuse it before sending
    with pytest.raises(errors.ClientError) as caught:
        client._api_client.request("post", "models/toolCallRequest.1.openai-chat:generateContent", document)
    assert caught.value.code == 400 and caught.value.status == "INVALID_ARGUMENT"
    info = caught.value.details["error"]["details"][0]
    assert (info["domain"], info["reason"], info["metadata"]["path"]) == ("lucent", "type", "$.contents[0].parts[0].text")
    assert calls == []


@pytest.mark.parametrize("stream", [False, True])
@pytest.mark.parametrize("front", VENDOR_FRONTS)
def test_an_upstream_500_is_relayed_in_the_fronts_shape_without_the_upstream_key(gateway, calls, front, stream) -> None:
    error = _sdk_error(front, gateway.url, _request(front, "fault-500.1.anthropic"), stream)
    status = getattr(error, "status_code", None) or getattr(error, "code", None)
    assert status == 500, repr(error)
    assert not any(key in str(error) or key in repr(getattr(error, "body", None)) or key in repr(getattr(error, "details", None)) for key in UPSTREAM_KEYS.values())
    assert "[upstream key]" in str(error) or "[upstream key]" in repr(getattr(error, "body", "")) + repr(getattr(error, "details", ""))


@pytest.mark.parametrize("front", VENDOR_FRONTS)
def test_a_stream_cut_upstream_ends_with_the_fronts_error_event(gateway, calls, front) -> None:
    answer = httpx.post(gateway.url + _path(front, "fault-cut.1.anthropic", stream=True), json=_request(front, "fault-cut.1.anthropic") | ({} if front == "gemini" else {"stream": True}),
                        headers={"authorization": f"Bearer {GATEWAY_KEY}"}, timeout=20)
    assert answer.status_code == 200
    events = [e for e in answer.text.split("\n\n") if e]
    last = events[-1]
    data = json.loads(last.split("data: ", 1)[1])
    if front == "openai-chat":
        assert "error" in data and "[DONE]" not in answer.text
    elif front == "openai-responses":
        assert last.startswith("event: response.failed") and data["response"]["status"] == "failed"
        sequence = [json.loads(e.split("data: ", 1)[1])["sequence_number"] for e in events]
        assert sequence == list(range(sequence[0], sequence[0] + len(sequence)))
    elif front == "anthropic":
        assert last.startswith("event: error") and data["type"] == "error"
    else:
        assert data["error"]["status"] == "UNAVAILABLE"


@pytest.mark.parametrize("front", VENDOR_FRONTS)
def test_each_sdk_raises_on_the_error_event_of_a_cut_stream(gateway, calls, front) -> None:
    if front == "openai-responses":  # the stream helper yields response.failed; its final response is missing
        import openai

        with openai_client(gateway.url).responses.stream(**_request(front, "fault-cut.1.gemini")) as events:
            kinds = [event.type for event in events]
        assert kinds[-1] == "response.failed"
        return
    error = _sdk_error(front, gateway.url, _request(front, "fault-cut.1.gemini"), stream=True)
    assert "upstream" in str(error)


@pytest.mark.parametrize("front", VENDOR_FRONTS)
def test_every_front_needs_a_key_of_the_gateway(gateway, calls, front) -> None:
    for headers in ({}, {"authorization": "Bearer nope"}, {"x-api-key": "nope"}, {"authorization": f"Bearer {UPSTREAM_KEYS['anthropic']}"}):
        answer = httpx.post(gateway.url + _path(front, "toolCallRequest.1.anthropic"), json=_request(front, "toolCallRequest.1.anthropic"), headers=headers)
        assert answer.status_code == 401
    assert calls == []


def test_each_front_takes_the_key_as_its_sdk_sends_it(gateway, calls) -> None:
    ask("anthropic", gateway.url, _request("anthropic", "toolCallRequest.1.anthropic"), False)  # x-api-key
    ask("gemini", gateway.url, _request("gemini", "toolCallRequest.1.gemini"), False)  # x-goog-api-key
    assert len(calls) == 2


def test_a_body_over_the_cap_is_refused_before_it_is_parsed(upstream, calls) -> None:
    from lucent.server import create_app, parse_config
    from tests.server.harness import environ, gateway_config, served

    config = gateway_config(upstream.url)
    config["gateway"]["max_body_bytes"] = 4096
    with served(create_app(parse_config(config, environ()))) as small:
        answer = httpx.post(small.url + "/v1/messages", content=b"{" + b" " * 5000 + b"}", headers={"x-api-key": GATEWAY_KEY})
        assert answer.status_code == 413 and answer.json()["error"]["type"] == "request_too_large"
        answer = httpx.post(small.url + "/v1/messages", content=(b"[" * 3000), headers={"x-api-key": GATEWAY_KEY})  # not even read as JSON
        assert answer.status_code == 400
    assert calls == []


def test_an_unrouted_model_is_not_found(gateway, calls) -> None:
    import openai

    with pytest.raises(openai.NotFoundError) as caught:
        openai_client(gateway.url).chat.completions.create(model="nobody-serves-this", messages=[{"role": "user", "content": "hi"}])
    assert caught.value.body["code"] == "model_not_found"


def test_health(gateway) -> None:
    answer = httpx.get(gateway.url + "/health")
    assert answer.status_code == 200 and answer.json()["status"] == "ok"


def test_one_log_line_per_request_without_content_or_keys(gateway, calls, caplog) -> None:
    caplog.set_level(logging.INFO, logger="lucent.server")
    ask("openai-chat", gateway.url, _request("openai-chat", "toolCallRequest.1.anthropic"), False)
    ask("anthropic", gateway.url, _request("anthropic", "toolCallRequest.1.gemini"), True)
    _sdk_error("openai-chat", gateway.url, _request("openai-chat", "fault-500.1.openai-chat"))
    deadline = time.monotonic() + 5
    while len([r for r in caplog.records if r.name == "lucent.server"]) < 3 and time.monotonic() < deadline:
        time.sleep(0.02)
    lines = [json.loads(r.getMessage()) for r in caplog.records if r.name == "lucent.server"]
    assert [(l["front"], l["upstream"], l["model"], l["stream"], l["status"]) for l in lines] == [
        ("openai-chat", "up-anthropic", "toolCallRequest.1.anthropic", False, 200),
        ("anthropic", "up-gemini", "toolCallRequest.1.gemini", True, 200),
        ("openai-chat", "up-openai-chat", "fault-500.1.openai-chat", False, 500),
    ]
    assert all(set(l) == {"front", "upstream", "model", "stream", "status", "duration_ms", "diagnostics", "error"} for l in lines)
    assert lines[0]["diagnostics"] and all(isinstance(n, int) for n in lines[0]["diagnostics"].values())
    text = " ".join(r.getMessage() for r in caplog.records)
    assert "San Francisco" not in text and GATEWAY_KEY not in text and not any(k in text for k in UPSTREAM_KEYS.values())


def test_a_client_that_disconnects_mid_stream_cancels_the_upstream_call(gateway, upstream, calls) -> None:
    with httpx.stream("POST", gateway.url + "/v1/chat/completions", json=_request("openai-chat", "fault-slow.1.openai-chat") | {"stream": True},
                      headers={"authorization": f"Bearer {GATEWAY_KEY}"}, timeout=20) as answer:
        first = next(answer.iter_raw())
        assert b"thinking" in first
    deadline = time.monotonic() + 10
    while "fault-slow" not in upstream.app.state.closed and time.monotonic() < deadline:
        time.sleep(0.05)
    assert upstream.app.state.closed == ["fault-slow"]


def test_another_callers_key_never_continues_a_stored_conversation(gateway, calls) -> None:
    first = ask("openai-responses", gateway.url, _request("openai-responses", "toolCallRequest.1.anthropic"), False)
    call_id = next(item["call_id"] for item in first["output"] if item["type"] == "function_call")
    second = {"model": "toolCallRequest.2.anthropic", "previous_response_id": first["id"], "tools": _request("openai-responses", "m")["tools"],
              "input": [{"type": "function_call_output", "call_id": call_id, "output": "71 degrees"}]}
    got = ask("openai-responses", gateway.url, second, False)
    assert got["output"]
    sent = calls[-1]["body"]
    assert [m["role"] for m in sent["messages"]] == ["user", "assistant", "user"]
    assert sent["messages"][2]["content"][0]["tool_use_id"] == call_id
    import openai

    other = openai.OpenAI(base_url=f"{gateway.url}/v1", api_key=OTHER_KEY, max_retries=0)
    with pytest.raises(openai.BadRequestError) as caught:
        other.responses.create(**second)
    assert caught.value.body["code"] == "previous_response_not_found"
    assert len(calls) == 2


def test_a_streamed_responses_reply_is_continued_too(gateway, calls) -> None:
    from tests.server.sdk_clients import openai_client

    client = openai_client(gateway.url)
    with client.responses.stream(**_request("openai-responses", "toolCallRequest.1.gemini")) as events:
        first = events.get_final_response()
    assert first.id.startswith("resp_") and len(first.id) == 37
    call_id = next(item.call_id for item in first.output if item.type == "function_call")
    second = {"model": "toolCallRequest.2.gemini", "previous_response_id": first.id, "tools": _request("openai-responses", "m")["tools"],
              "input": [{"type": "function_call_output", "call_id": call_id, "output": "71 degrees"}]}
    with client.responses.stream(**second) as events:
        assert events.get_final_response().output
    sent = calls[-1]["body"]
    assert [c["role"] for c in sent["contents"]] == ["user", "model", "user"]
    assert sent["contents"][2]["parts"][0]["functionResponse"]["id"] == call_id
