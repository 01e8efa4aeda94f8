"""The vendor fronts (openai-chat, openai-responses, anthropic, gemini): a client document to any
upstream and its reply back, through :func:`lucent.convert` (documents) and
:func:`lucent.streams.aconvert_stream` (streams, when the request streams).

A request goes: body read up to ``max_body_bytes`` -> the model routed (``[[routes]]``) ->
``lucent.convert(body, front, upstream.format, "request")`` (a refusal is the front's 400 with
lucent's code and path) -> the upstream call -> ``lucent.convert(reply, upstream.format, front,
"response")``, or for a stream each upstream event converted and written as the front's SSE
as it arrives. A Responses request in front of a stateless upstream goes through the
ConversationSnapshot store (:mod:`lucent.snapshots`, scoped by the caller's key): restored
before the call (``previous_response_id``), recorded after it (documents here, streams by :mod:`lucent.server._continuation`) under a
response id of the gateway's own (``resp_`` and 32 hex digits), which the client gets.

A stream cut or broken upstream ends with the front's error event (:mod:`lucent.server._shapes`);
a client that goes away cancels the upstream call (the response is closed).
"""

from __future__ import annotations

import asyncio
import time
from typing import Any

import msgspec
from starlette.requests import Request
from starlette.responses import Response, StreamingResponse

import lucent
from lucent import streams
from lucent.errors import LucentError, StoreError, StreamError, UsageError
from lucent._context import read_by
from lucent.formats import FORMATS
from lucent.server._body import json_object, read_body, refusal
from lucent.server._continuation import StreamRecord, response_id as new_response_id
from lucent.server._events import sse, tag_of
from lucent.server._log import RequestLog
from lucent.server._shapes import stream_error
from lucent.server._state import Gateway
from lucent.server._upstream import Failure, call, open_stream

__all__ = ["relay", "upstream_request"]

_STATELESS = frozenset(name for name, fmt in FORMATS.items() if fmt.gateway is not None and fmt.gateway.upstream and not fmt.gateway.keeps_conversation)
"""Upstream formats that keep no conversation: a Responses front keeps it in the snapshot store."""


async def relay(gateway: Gateway, front: str, request: Request, log: RequestLog, scope: str, *, model: str | None = None, stream: bool | None = None) -> Response:
    """Answer one request of a vendor front (see the module docstring); every failure is a
    :class:`Failure` for the caller to write in the front's shape."""
    body = await read_body(request, gateway.config.max_body_bytes)
    probe = json_object(body)
    if probe is None:  # not a JSON object: lucent says why, with its code and path
        try:
            lucent.decode(body, front, None)
        except LucentError as error:
            raise refusal(error) from None
        raise Failure(400, "type", "the request is not a JSON object", "$")
    if model is None:
        model = probe.get("model")
        if not isinstance(model, str) or not model:
            raise Failure(400, "required", "the request names no model", "$.model")
    if stream is None:
        stream = probe.get("stream") is True
    log.model, log.stream = model, stream
    found = gateway.config.route(model)
    if found is None:
        raise Failure(404, "model_not_found", "no route of the gateway serves this model", "$.model")
    upstream, upstream_model = found
    log.upstream = upstream.name
    continued = front == "openai-responses" and upstream.format in _STATELESS
    converted, restored = await upstream_request(gateway, front, upstream.format, upstream_model, body, scope, continued, upstream.max_tokens)
    log.count(converted.diagnostics)
    upstream_body = msgspec.to_builtins(converted.value)
    envelope = _envelope(front, upstream.format, upstream_model)
    if not stream:
        reply = await call(gateway.client, upstream, upstream_body, upstream_model, max_bytes=gateway.config.max_body_bytes)
        out = await asyncio.to_thread(_reply, gateway, upstream.format, front, reply, envelope, restored, scope, log)
        log.done(200)
        return Response(out, media_type="application/json")
    response = await open_stream(gateway.client, upstream, upstream_body, upstream_model)
    record = StreamRecord(gateway, restored, scope) if restored is not None else None
    return StreamingResponse(_stream(response, upstream.format, front, envelope, log, model, record), media_type="text/event-stream",
                             headers={"cache-control": "no-cache"})


async def upstream_request(gateway: Gateway, source: str, target: str, model: str, body: bytes | Any, scope: str, continued: bool, max_tokens: int) -> tuple[Any, Any]:
    """The client's request converted for the upstream: ``(ConversionResult, restored)``, where
    ``restored`` is the Lux request a continuation recorded from (or None)."""
    offered: dict[str, Any] = {"model": model} if source == "gemini" else {}
    if target == "anthropic":
        offered["max_tokens"] = max_tokens
    # only the keys the conversion reads: lucent.convert refuses any other (invalid_context)
    context = read_by(offered, "lux" if continued else source, target, "request")
    limits = lucent.Limits(max_body_bytes=max(gateway.config.max_body_bytes, 1))
    try:
        if continued:
            restored = await asyncio.to_thread(gateway.snapshots.restore, body, scope=scope)
            result = lucent.convert(restored.value, "lux", target, "request", context=context or None)
            return result, restored.value
        return lucent.convert(body, source, target, "request", context=context or None, limits=limits), None
    except StoreError as error:
        if error.code == "previous_response_not_found":
            raise Failure(400, error.code, "no stored response has that previous_response_id for this caller", error.path) from None
        raise Failure(503, error.code, "the snapshot store cannot be used now") from None
    except UsageError as error:
        if error.code == "unsupported_conversion":
            raise Failure(400, error.code, f"this request cannot be converted for the upstream: {error.message}") from None
        raise
    except LucentError as error:
        raise refusal(error) from None


def _envelope(front: str, upstream: str, model: str) -> dict[str, Any]:
    """Context values the front's reply needs and the upstream's lacks."""
    now = int(time.time())
    context: dict[str, Any] = {}
    key = _created(front)
    if key is not None and _created(upstream) is None:  # the upstream's reply carries no time
        context[key] = now
    return context


def _created(fmt: str) -> str | None:
    """The context key of ``fmt``'s response creation time (registry: Format.gateway.created)."""
    gateway = FORMATS[fmt].gateway
    return gateway.created if gateway is not None else None


def _reply(gateway: Gateway, upstream: str, front: str, reply: bytes, envelope: dict[str, Any], restored: Any, scope: str, log: RequestLog) -> bytes:
    """The upstream's reply converted for the front (and recorded, for a continuation)."""
    try:
        if restored is None:
            result = lucent.convert(reply, upstream, front, "response", context=envelope or None)
            log.count(result.diagnostics)
            return lucent.encode(result.value)
        lux = lucent.convert(reply, upstream, "lux", "response")
        result = lucent.convert(lux.value, "lux", front, "response", context=envelope or None)
        log.count(lux.diagnostics)
        log.count(result.diagnostics)
    except LucentError as error:
        raise Failure(502, "upstream_protocol_error", f"the upstream's reply breaks its format: {error.code} at {error.path}") from None
    response_id = new_response_id()  # the gateway's own: an upstream id is no Responses id, nor unique to it
    try:
        gateway.snapshots.record(restored, lux.value, scope=scope, response_id=response_id)
    except LucentError as error:
        raise Failure(503, error.code, "the conversation could not be stored for a continuation") from None
    return lucent.encode(msgspec.structs.replace(result.value, id=response_id))


async def _stream(response: Any, upstream: str, front: str, envelope: dict[str, Any], log: RequestLog, model: str, record: StreamRecord | None) -> Any:
    """The front's SSE bytes, event by event; the upstream response is closed at the end, on a
    failure and when the client goes away (the task is cancelled). With ``record`` (a Responses
    continuation), the terminal event is held until the snapshot is stored."""
    state: dict[str, Any] = {"model": model}
    conversion = streams.aconvert_stream(response.aiter_raw(), upstream, front, context=envelope or None)
    status, code = 200, None
    pending: bytes | None = None
    try:
        try:
            async for event in conversion:
                if record is not None:
                    event = record.event(event)
                if front == "openai-responses":
                    _track(event, state)
                if record is None:
                    yield sse(event, front)
                    continue
                if pending is not None:
                    yield pending
                pending = sse(event, front)
            if record is not None:
                try:
                    await asyncio.to_thread(record.save)
                except LucentError as error:
                    code = f"snapshot_not_stored:{error.code}"
            if pending is not None:
                yield pending
                pending = None
            if front == "openai-chat":
                yield b"data: [DONE]\n\n"
        except StreamError as error:
            if pending is not None:
                yield pending
                pending = None
            status, code = 502, ("upstream_interrupted" if error.code in ("interrupted", "missing_terminal") else "upstream_protocol_error")
            if error.code == "model_error":
                code = "upstream_error"
            yield stream_error(front, status, code, f"the upstream stream failed: {error.code} at {error.path}", state)
        except LucentError as error:
            if pending is not None:
                yield pending
                pending = None
            status, code = 502, "upstream_protocol_error"
            yield stream_error(front, status, code, f"the upstream stream could not be converted: {error.code}", state)
    except asyncio.CancelledError:
        status, code = 499, "client_disconnected"
        raise
    finally:
        await response.aclose()
        log.count(conversion.diagnostics)
        log.done(200, code)  # the answer's status was 200; a failed stream names its code


def _track(event: Any, state: dict[str, Any]) -> None:
    """What a Responses ``response.failed`` event needs: the created response, the last number."""
    number = getattr(event, "sequence_number", None)
    if isinstance(number, int):
        state["sequence"] = number
    if tag_of(event) == "response.created":
        state["response"] = msgspec.to_builtins(event.response)

