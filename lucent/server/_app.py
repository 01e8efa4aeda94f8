"""The gateway as a Starlette ASGI application (see :func:`lucent.server.create_app`).

Routes: ``GET /health``; ``POST /v1/chat/completions`` (openai-chat), ``/v1/responses``
(openai-responses), ``/v1/messages`` (anthropic), ``/v1beta/models/{model}:generateContent`` and
``:streamGenerateContent`` (gemini; ``?alt=sse``), ``/sparktide/remote/1.0`` (the SparkTide
REMOTE callback). A front missing from ``[fronts]`` answers 404.

The caller's key: ``Authorization: Bearer`` (every front), ``x-api-key`` (anthropic),
``x-goog-api-key`` or ``?key=`` (gemini); compared with :func:`hmac.compare_digest` against each
of the front's keys. It is the scope of the caller's idempotency records and snapshots.
"""

from __future__ import annotations

import asyncio
import contextlib
import hmac
from collections.abc import AsyncIterator
from typing import Any

import msgspec
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from lucent.server._config import Config
from lucent.server._log import RequestLog
from lucent.server._relay import relay
from lucent.server._shapes import error_body
from lucent.server._sparktide import failure_response, remote
from lucent.server._state import Gateway
from lucent.server._upstream import Failure

__all__ = ["build_app"]

SPARKTIDE_PATH = "/sparktide/remote/1.0"


def build_app(config: Config, *, transport: Any = None) -> Starlette:
    """The application for ``config``; ``transport`` (an httpx transport) is for tests."""
    gateway = Gateway(config)

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        if config.warm_up:  # the first requests do not pay for building the converters
            import lucent

            await asyncio.to_thread(lucent.warm_up, config.formats())
        gateway.open(transport)
        app.state.gateway = gateway
        try:
            yield
        finally:
            await gateway.close()

    async def health(request: Request) -> Response:
        return JSONResponse({"status": "ok", "fronts": sorted(config.fronts)})

    def front(name: str) -> Any:
        async def endpoint(request: Request) -> Response:
            return await _answer(gateway, name, request)

        return endpoint

    async def gemini(request: Request) -> Response:
        target = request.path_params["target"]
        model, _, action = target.rpartition(":")
        if action not in ("generateContent", "streamGenerateContent") or not model:
            return _error("gemini", RequestLog("gemini"), Failure(404, "not_found", "unknown Gemini method"))
        return await _answer(gateway, "gemini", request, model=model, stream=action == "streamGenerateContent")

    routes = [
        Route("/health", health, methods=["GET"]),
        Route("/v1/chat/completions", front("openai-chat"), methods=["POST"]),
        Route("/v1/responses", front("openai-responses"), methods=["POST"]),
        Route("/v1/messages", front("anthropic"), methods=["POST"]),
        Route("/v1beta/models/{target:path}", gemini, methods=["POST"]),
        Route(SPARKTIDE_PATH, front("sparktide"), methods=["POST"]),
    ]
    app = Starlette(routes=routes, lifespan=lifespan)
    app.state.gateway = gateway
    return app


async def _answer(gateway: Gateway, name: str, request: Request, **route: Any) -> Response:
    log = RequestLog(name)
    spec = gateway.config.fronts.get(name)
    if spec is None:
        return _error(name, log, Failure(404, "front_not_configured", "this gateway does not serve this API"))
    key = _presented(name, request)
    if key is None or not _known(key, spec.keys):
        if name == "sparktide":
            log.done(401, "unauthorized")
            return failure_response(401, "MODEL_AUTH_FAILED")
        return _error(name, log, Failure(401, "unauthorized", "a key of this gateway is required"))
    scope = key.decode("utf-8", "surrogateescape")
    try:
        if name == "sparktide":
            return await remote(gateway, request, log, scope)
        response = await relay(gateway, name, request, log, scope, **route)
    except Failure as failure:
        if name == "sparktide":
            log.done(failure.status, failure.code)
            return failure_response(failure.status, "MODEL_REQUEST_REJECTED" if failure.status < 500 else "MODEL_UNAVAILABLE")
        return _error(name, log, failure)
    return response  # its log line is written by the front (a stream's when it ends)


def _presented(name: str, request: Request) -> bytes | None:
    """The key the caller presented, as its front's clients send it."""
    headers = request.headers
    authorization = headers.get("authorization", "")
    if authorization[:7].lower() == "bearer " and authorization[7:].strip():
        return authorization[7:].strip().encode("utf-8", "surrogateescape")
    if name == "sparktide":
        return None
    if name == "anthropic" and headers.get("x-api-key"):
        return headers["x-api-key"].encode("utf-8", "surrogateescape")
    if name == "gemini":
        found = headers.get("x-goog-api-key") or request.query_params.get("key")
        if found:
            return found.encode("utf-8", "surrogateescape")
    return None


def _known(key: bytes, keys: tuple[bytes, ...]) -> bool:
    """Whether ``key`` is one of ``keys``, each compared in constant time (all of them)."""
    found = False
    for known in keys:
        found |= hmac.compare_digest(key, known)
    return found


def _error(front: str, log: RequestLog, failure: Failure) -> Response:
    log.done(failure.status, failure.code)
    body = error_body(front, failure.status, failure.code, failure.message, failure.path)
    return Response(msgspec.json.encode(body), status_code=failure.status, media_type="application/json")
