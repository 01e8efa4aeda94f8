"""The SparkTide REMOTE 1.0 front: the model callback a SparkTide platform makes
(seed 001 ``urn:sparktide:remote-model:1.0``; ../shared/corpus/sparktide-docs/SOURCE.md).

Rules, in the order they are checked:

1. ``Authorization: Bearer <key>`` with a key of ``[fronts.sparktide]`` (constant-time compare,
   in the app) -> else 401 ``MODEL_AUTH_FAILED``;
2. the body is at most 1 MiB, read before parsing -> else 413 ``MODEL_REQUEST_REJECTED``;
3. ``lucent.decode(body, "sparktide-remote-1.0", "RemoteModelRequest")``: unknown fields, a wrong
   ``protocolVersion``, duplicate properties and trailing JSON refused -> 400
   ``MODEL_REQUEST_REJECTED`` (lucent's code and path in the ``Lucent-Error`` header: the body
   is ``RemoteModelFailure``, which holds a code only);
4. ``Idempotency-Key`` equal to ``invocationId`` -> else 400 ``MODEL_REQUEST_REJECTED``;
5. the time left: 60 s or until ``deadline`` (UTC ms), whichever is sooner; none left -> 504
   ``MODEL_TIMED_OUT`` with no upstream call;
6. idempotency (:mod:`lucent.server._idempotency`): a kept answer is returned as it was;
7. the upstream call (``[[routes]]`` by ``model``), converted by :func:`lucent.convert` /
   :func:`lucent.streams.aconvert_stream` with the request's tool names declared.

A document reply is ``RemoteModelResponse`` ``{message, usage}`` (``usage`` ``{}`` when the
upstream gave none), checked against its schema and at most 1 MiB. A stream is complete-JSON
``data:`` frames (never ``[DONE]``) of at most 4 MiB in all; a failure after the first byte is a
``model.error`` frame, after a ``usage`` frame with the usage received before it (when any).
Before the first byte a failure is a non-2xx ``{"error": {"code"}}``. Failure classes
(:func:`lucent.server._shapes.sparktide_code`): ``MODEL_UNAVAILABLE`` (the upstream unreachable,
its 5xx, a stream cut off), ``MODEL_TIMED_OUT`` (60 s or the deadline), ``MODEL_RATE_LIMITED``
(429), ``MODEL_AUTH_FAILED``, ``MODEL_REQUEST_REJECTED`` (the upstream's 4xx), ``MODEL_FEATURE_UNSUPPORTED``
(no conversion to the upstream), ``MODEL_PROTOCOL_ERROR`` (the upstream broke its stream's
rules, a changed tool identity, an undeclared tool, output over 1 MiB / 4 MiB): kept for repeats,
so that a protocol error is never turned into a retry.
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
from lucent.errors import LucentError, StreamError
from lucent.server import _idempotency as idempotency
from lucent.server._body import read_body
from lucent.server._events import remote_usage, sse
from lucent.server._log import RequestLog
from lucent.server._relay import upstream_request
from lucent.server._shapes import error_body, sparktide_code
from lucent.server._state import Gateway
from lucent.server._upstream import Failure, call, open_stream

__all__ = ["MAX_INPUT", "MAX_OUTPUT", "MAX_STREAM", "MAX_WAIT", "remote"]

MAX_INPUT = 1024 * 1024
MAX_OUTPUT = 1024 * 1024
MAX_STREAM = 4 * 1024 * 1024
MAX_WAIT = 60.0
_RESERVE = 512
"""Bytes of the 4 MiB kept for the usage and model.error frames that end a failed stream."""
_RETRYABLE = ("MODEL_UNAVAILABLE", "MODEL_TIMED_OUT", "MODEL_RATE_LIMITED")


def failure_response(status: int, code: str, lucent_error: str | None = None) -> Response:
    headers = {"lucent-error": lucent_error} if lucent_error else None
    return Response(msgspec.json.encode(error_body("sparktide", status, code, "")), status_code=status,
                    media_type="application/json", headers=headers)


async def remote(gateway: Gateway, request: Request, log: RequestLog, scope: str) -> Response:
    """Answer one REMOTE callback (see the module docstring)."""
    body = await read_body(request, MAX_INPUT)
    try:
        invocation = lucent.decode(body, "sparktide-remote-1.0", "RemoteModelRequest")
    except LucentError as error:
        log.done(400, error.code)
        return failure_response(400, "MODEL_REQUEST_REJECTED", f"{error.code} {error.path}")
    log.model, log.stream = invocation.model, invocation.stream
    if request.headers.get("idempotency-key") != invocation.invocationId:
        log.done(400, "idempotency_key_mismatch")
        return failure_response(400, "MODEL_REQUEST_REJECTED", "idempotency_key_mismatch $")
    loop = asyncio.get_running_loop()
    budget = min(MAX_WAIT, invocation.deadline / 1000.0 - time.time())
    if budget <= 0:
        log.done(504, "deadline_exceeded")
        return failure_response(504, "MODEL_TIMED_OUT")
    deadline = loop.time() + budget
    print_ = idempotency.fingerprint(body)
    key = invocation.invocationId
    try:
        stored = await idempotency.begin(gateway, scope, key, print_, deadline)
    except Failure as failure:
        log.done(failure.status, failure.code)
        return failure_response(failure.status, sparktide_code(failure.status, failure.code))
    if stored is not None:
        log.done(stored.status, "replayed")
        return Response(stored.body, status_code=stored.status, media_type=stored.media_type)
    try:
        found = gateway.config.route(invocation.model)
        if found is None:
            raise Failure(404, "model_not_found", "no route of the gateway serves this model")
        upstream, upstream_model = found
        log.upstream = upstream.name
        tools = [t["function"]["name"] for t in (invocation.tools or []) if isinstance(t.get("function"), dict) and isinstance(t["function"].get("name"), str)]
        converted, _ = await upstream_request(gateway, "sparktide", upstream.format, upstream_model, invocation, scope, False, upstream.max_tokens)
        log.count(converted.diagnostics)
        upstream_body = msgspec.to_builtins(converted.value)
        async with asyncio.timeout_at(deadline):
            if not invocation.stream:
                reply = await call(gateway.client, upstream, upstream_body, upstream_model, max_bytes=32 * 1024 * 1024)
                out = _reply(reply, upstream.format, tools, log)
                idempotency.finish(gateway, scope, key, print_, idempotency.Stored(200, "application/json", out))
                log.done(200)
                return Response(out, media_type="application/json")
            response = await open_stream(gateway.client, upstream, upstream_body, upstream_model)
    except TimeoutError:
        return _failed(gateway, scope, key, print_, log, 504, "deadline_exceeded")
    except Failure as failure:
        return _failed(gateway, scope, key, print_, log, failure.status, failure.code)
    except BaseException:
        idempotency.finish(gateway, scope, key, print_, None)
        raise
    frames = _frames(gateway, response, upstream.format, tools, deadline, log, (scope, key, print_))
    return StreamingResponse(frames, media_type="text/event-stream", headers={"cache-control": "no-cache"})


def _failed(gateway: Gateway, scope: str, key: str, print_: str, log: RequestLog, status: int, code: str) -> Response:
    remote_code = sparktide_code(status, code)
    answer = failure_response(status, remote_code)
    kept = None if remote_code in _RETRYABLE else idempotency.Stored(status, "application/json", bytes(answer.body))
    idempotency.finish(gateway, scope, key, print_, kept)
    log.done(status, code)
    return answer


def _reply(reply: bytes, upstream: str, tools: list[str], log: RequestLog) -> bytes:
    """The upstream's document reply as a checked ``RemoteModelResponse``, or a Failure."""
    try:
        result = lucent.convert(reply, upstream, "sparktide", "response")
        log.count(result.diagnostics)
        out = lucent.encode(result.value)
        checked = lucent.decode(out, "sparktide-remote-1.0", "RemoteModelResponse")
    except LucentError as error:
        raise Failure(502, "upstream_protocol_error", f"the upstream's reply cannot be a RemoteModelResponse: {error.code}") from None
    for tool_call in checked.message.tool_calls or ():
        if tool_call.function.name not in tools:
            raise Failure(502, "upstream_protocol_error", "the reply calls a tool the request did not declare")
    if len(out) > MAX_OUTPUT:
        raise Failure(502, "output_too_large", "the reply is over 1 MiB")
    return out


async def _frames(gateway: Gateway, response: Any, upstream: str, tools: list[str], deadline: float, log: RequestLog, invocation: tuple[str, str, str]) -> Any:
    """The REMOTE frames, at most 4 MiB, until the deadline; kept for repeats at the end."""
    conversion = streams.aconvert_stream(response.aiter_raw(), upstream, "sparktide", tools=tools)
    written: list[bytes] = []
    size = 0
    usage_sent = False
    code: str | None = None
    status = 502
    kept = False
    try:
        try:
            async with asyncio.timeout_at(deadline):
                async for frame in conversion:
                    data = sse(frame, "sparktide")
                    if size + len(data) > MAX_STREAM - _RESERVE:
                        raise Failure(502, "output_too_large", "the stream is over 4 MiB")
                    usage_sent = usage_sent or getattr(frame, "type", None) == "usage"
                    size += len(data)
                    written.append(data)
                    yield data
            kept = True
        except TimeoutError:
            status, code = 504, "deadline_exceeded"
        except Failure as failure:
            status, code = failure.status, failure.code
        except StreamError as error:
            code = "upstream_interrupted" if error.code in ("interrupted", "missing_terminal") else "upstream_protocol_error"
        except LucentError:
            code = "upstream_protocol_error"
        if code is not None:
            tail = b""
            usage = remote_usage(conversion.usage)
            if usage and not usage_sent:
                tail += sse({"protocolVersion": "1.0", "type": "usage", "usage": usage}, "sparktide")
            remote_code = sparktide_code(status, code)
            tail += sse({"protocolVersion": "1.0", "type": "model.error", "code": remote_code}, "sparktide")
            written.append(tail)
            kept = remote_code not in _RETRYABLE
            yield tail
    finally:
        await response.aclose()
        scope, key, print_ = invocation
        idempotency.finish(gateway, scope, key, print_, idempotency.Stored(200, "text/event-stream", b"".join(written)) if kept else None)
        log.count(conversion.diagnostics)
        log.done(200, code)
