"""A SparkTide REMOTE 1.0 client, as a platform calls the model callback (SOURCE.md rules), and
the reader of what the gateway answers."""

from __future__ import annotations

import json
import time
import uuid
from typing import Any

import httpx

import lucent
from tests.server.harness import PLATFORM_KEY

PATH = "/sparktide/remote/1.0"
WEATHER_TOOL = {"type": "function", "function": {"name": "get_weather", "description": "Get the current weather for a location",
                "parameters": {"type": "object", "properties": {"location": {"type": "string"}}, "required": ["location"]}}}


def invocation(model: str = "internal-model", *, stream: bool = False, deadline_s: float = 60.0, **members: Any) -> dict[str, Any]:
    """A BUSINESS RemoteModelRequest with a fresh invocationId (the corpus request's envelope)."""
    body = {
        "protocolVersion": "1.0", "purpose": "BUSINESS", "appId": "monitor", "subjectId": "alice", "tenantId": "team-a",
        "runId": "run_1", "traceId": "tr_1", "invocationId": f"model_{uuid.uuid4().hex}",
        "deadline": int((time.time() + deadline_s) * 1000), "model": model,
        "messages": [{"role": "user", "content": "What's the weather like in San Francisco?"}],
        "max_completion_tokens": 64, "stream": stream, "tools": [WEATHER_TOOL],
    }
    body.update(members)
    return body


def call(url: str, body: dict[str, Any] | bytes, *, key: str | None = PLATFORM_KEY, idempotency_key: str | None = "same", timeout: float = 30) -> httpx.Response:
    """POST the callback; ``idempotency_key="same"`` sends the body's invocationId."""
    content = body if isinstance(body, bytes) else json.dumps(body, ensure_ascii=False).encode()
    headers = {"content-type": "application/json"}
    if key is not None:
        headers["authorization"] = f"Bearer {key}"
    if idempotency_key == "same" and isinstance(body, dict):
        headers["idempotency-key"] = body["invocationId"]
    elif idempotency_key not in (None, "same"):
        headers["idempotency-key"] = idempotency_key
    return httpx.post(url + PATH, content=content, headers=headers, timeout=timeout)


def failure_code(response: httpx.Response) -> str:
    """The code of a non-2xx answer, which must be exactly a RemoteModelFailure."""
    assert response.status_code >= 400
    failure = lucent.decode(response.content, "sparktide-remote-1.0", "RemoteModelFailure")
    return failure.error.code


def frames(response: httpx.Response) -> list[dict[str, Any]]:
    """The stream's frames: each SSE event one ``data:`` line of one complete JSON object, a
    ``RemoteModelStreamFrame``, never ``[DONE]``."""
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("text/event-stream")
    out = []
    for event in response.text.split("\n\n"):
        if not event:
            continue
        lines = event.split("\n")
        assert len(lines) == 1 and lines[0].startswith("data: "), event[:200]
        data = lines[0][len("data: "):]
        assert data != "[DONE]"
        lucent.decode(data.encode(), "sparktide-remote-1.0", "RemoteModelStreamFrame")
        out.append(json.loads(data))
    return out
