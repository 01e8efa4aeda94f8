"""Calls to an upstream API over httpx: the URL, headers and body of each format, and the
upstream's failures as :class:`Failure`.

Per format (``base_url`` as the vendor's SDK takes it):

* openai-chat: ``POST {base_url}/chat/completions``, ``Authorization: Bearer``; a stream sets
  ``stream: true`` and ``stream_options.include_usage``;
* openai-responses: ``POST {base_url}/responses``, ``Authorization: Bearer``; ``stream: true``;
* anthropic: ``POST {base_url}/v1/messages``, ``x-api-key``, ``anthropic-version: 2023-06-01``;
  ``stream: true``;
* gemini: ``POST {base_url}/v1beta/models/{model}:generateContent`` (a stream:
  ``:streamGenerateContent?alt=sse``), ``x-goog-api-key``; the model is in the URL only.

Failures (``Failure.code``, HTTP status for the client): ``upstream_unreachable`` (502: no
connection), ``upstream_timeout`` (504), ``upstream_auth_failed`` (502: the upstream refused
the gateway's key, which is not the client's fault), ``upstream_error`` (the upstream's own 4xx
or 5xx status, relayed, with the upstream's message where it has one), ``output_too_large``
(502: a reply over the cap). The upstream key never appears in a message: it is cut out of
relayed text, and httpx's own messages (which hold no headers) are not relayed.
"""

from __future__ import annotations

import json
from typing import Any
from urllib.parse import quote

import httpx

from lucent.server._config import Upstream

__all__ = ["Failure", "call", "open_stream", "prepare"]

_ERROR_TEXT_BYTES = 64 * 1024
"""How much of an upstream's error body is read, to find its message."""


class Failure(Exception):
    """A request that ends in an error answer: HTTP ``status``, gateway ``code``, ``message``,
    and ``path`` (a JSON path in the client's document, for a refusal of it)."""

    def __init__(self, status: int, code: str, message: str, path: str | None = None) -> None:
        super().__init__(message)
        self.status = status
        self.code = code
        self.message = message
        self.path = path


def prepare(upstream: Upstream, body: dict[str, Any], model: str, stream: bool) -> tuple[str, dict[str, str], bytes]:
    """The URL, headers and JSON body of a call to ``upstream``."""
    fmt = upstream.format
    headers = {"content-type": "application/json", "accept": "text/event-stream" if stream else "application/json"}
    if fmt == "gemini":
        body.pop("model", None)
        action = "streamGenerateContent?alt=sse" if stream else "generateContent"
        url = f"{upstream.base_url}/v1beta/models/{quote(model, safe='')}:{action}"
        headers["x-goog-api-key"] = upstream.key
    else:
        body["model"] = model
        if stream:
            body["stream"] = True
        else:
            body.pop("stream", None)
        if fmt == "anthropic":
            url = f"{upstream.base_url}/v1/messages"
            headers["x-api-key"] = upstream.key
            headers["anthropic-version"] = "2023-06-01"
        else:
            url = f"{upstream.base_url}/chat/completions" if fmt == "openai-chat" else f"{upstream.base_url}/responses"
            headers["authorization"] = f"Bearer {upstream.key}"
            if stream and fmt == "openai-chat":
                body["stream_options"] = {**(body.get("stream_options") or {}), "include_usage": True}
            elif fmt == "openai-chat":
                body.pop("stream_options", None)
    return url, headers, json.dumps(body, ensure_ascii=False, separators=(",", ":")).encode()


async def call(client: httpx.AsyncClient, upstream: Upstream, body: dict[str, Any], model: str, *, max_bytes: int) -> bytes:
    """POST a document request; the reply's bytes (at most ``max_bytes``), or :class:`Failure`."""
    url, headers, content = prepare(upstream, body, model, stream=False)
    response = await _send(client, upstream, url, headers, content)
    try:
        await _check_status(response, upstream)
        return await _read(response, max_bytes)
    finally:
        await response.aclose()


async def open_stream(client: httpx.AsyncClient, upstream: Upstream, body: dict[str, Any], model: str) -> httpx.Response:
    """POST a stream request; the open response (2xx; the caller reads ``aiter_raw`` and closes
    it), or :class:`Failure` for an error status."""
    url, headers, content = prepare(upstream, body, model, stream=True)
    response = await _send(client, upstream, url, headers, content)
    try:
        await _check_status(response, upstream)
    except BaseException:
        await response.aclose()
        raise
    return response


async def _send(client: httpx.AsyncClient, upstream: Upstream, url: str, headers: dict[str, str], content: bytes) -> httpx.Response:
    try:
        return await client.send(client.build_request("POST", url, headers=headers, content=content), stream=True)
    except httpx.TimeoutException:
        raise Failure(504, "upstream_timeout", f"the upstream {upstream.name} did not answer in time") from None
    except httpx.HTTPError as exc:
        raise Failure(502, "upstream_unreachable", f"the upstream {upstream.name} could not be reached ({type(exc).__name__})") from None


async def _read(response: httpx.Response, max_bytes: int) -> bytes:
    chunks: list[bytes] = []
    size = 0
    try:
        async for chunk in response.aiter_bytes():
            size += len(chunk)
            if size > max_bytes:
                raise Failure(502, "output_too_large", f"the upstream's reply is over {max_bytes} bytes")
            chunks.append(chunk)
    except httpx.TimeoutException:
        raise Failure(504, "upstream_timeout", "the upstream's reply did not arrive in time") from None
    except httpx.HTTPError as exc:
        raise Failure(502, "upstream_unreachable", f"the upstream's reply was cut off ({type(exc).__name__})") from None
    return b"".join(chunks)


async def _check_status(response: httpx.Response, upstream: Upstream) -> None:
    if response.status_code < 400:
        return
    try:
        text = await _read(response, _ERROR_TEXT_BYTES)
    except Failure:
        text = b""
    message = _message(text, upstream.key)
    status = response.status_code
    if status in (401, 403):
        raise Failure(502, "upstream_auth_failed", f"the upstream {upstream.name} refused the gateway's credentials")
    if status == 408:
        raise Failure(504, "upstream_timeout", f"the upstream {upstream.name} timed out")
    raise Failure(status, "upstream_error", f"the upstream {upstream.name} answered {status}" + (f": {message}" if message else ""))


def _message(text: bytes, key: str) -> str:
    """The ``error.message`` of an upstream's error body (OpenAI, Anthropic and Google all use
    it), printable, at most 300 characters, with the upstream key cut out."""
    try:
        found = json.loads(text)
        message = found["error"]["message"] if isinstance(found, dict) and isinstance(found.get("error"), dict) else None
    except (ValueError, KeyError, TypeError):
        message = None
    if not isinstance(message, str):
        return ""
    if key:
        message = message.replace(key, "[upstream key]")
    message = "".join(c if c.isprintable() else " " for c in message)
    return message[:300]
