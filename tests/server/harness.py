"""The gateway tests' loopback servers: uvicorn in a thread on 127.0.0.1, a fake upstream that
answers with the recorded corpus (tests/data/lingua/snapshots) or with a fault, and the gateway
configuration that routes to it.

The fake upstream reads the model name ``<scenario>.<turn>.<format>``: ``toolCallRequest.1.anthropic``
serves ``toolCallRequest/anthropic/response.json`` (turn 2: ``followup-response.json``; a stream:
``response-streaming.json`` as SSE). Fault scenarios: ``fault-500``, ``fault-429``,
``fault-cut`` (a stream closed mid-event), ``fault-big`` (a stream of 5 MiB of text),
``nousage`` (a Chat reply without usage), ``slow-ok`` (the recorded reply after 0.5 s),
``fault-slow`` (a stream that sends one event, then waits 30 s: the deadline and disconnect
tests), ``fault-identity`` (a Chat stream whose tool call changes its id), ``fault-usage-cut``
(an Anthropic stream cut after its message_start, which carries usage). Each call is counted in
``app.state.calls``; a stream the gateway stopped reading is counted in ``app.state.closed``.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import uvicorn
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse
from starlette.routing import Route

import lucent

SNAPSHOTS = Path(__file__).resolve().parents[1] / "data" / "lingua" / "snapshots"
DIRS = {"openai-chat": "chat-completions", "openai-responses": "responses", "anthropic": "anthropic", "gemini": "google"}
UPSTREAM_KEYS = {fmt: f"upstream-secret-{fmt}-7f3a" for fmt in DIRS}
GATEWAY_KEY = "gateway-test-key-1"
OTHER_KEY = "gateway-test-key-2"
PLATFORM_KEY = "sparktide-platform-key"
OTHER_PLATFORM_KEY = "sparktide-platform-key-2"
VENDOR_FRONTS = ("openai-chat", "openai-responses", "anthropic", "gemini")
_REQUESTS = {"openai-chat": "CreateChatCompletionRequest", "openai-responses": "CreateResponse",
             "anthropic": "CreateMessageParams", "gemini": "GenerateContentRequest"}


def recorded(scenario: str, fmt: str, name: str) -> Any:
    return json.loads((SNAPSHOTS / scenario / DIRS[fmt] / name).read_text(encoding="utf-8"))


def sse_of(events: list[Any], fmt: str, done: bool = True) -> bytes:
    """Recorded events as the vendor writes them on the wire."""
    out = []
    for event in events:
        data = json.dumps(event, ensure_ascii=False, separators=(",", ":"))
        if fmt in ("anthropic", "openai-responses"):
            out.append(f"event: {event['type']}\ndata: {data}\n\n")
        else:
            out.append(f"data: {data}\n\n")
    if fmt == "openai-chat" and done:
        out.append("data: [DONE]\n\n")
    return "".join(out).encode()


def upstream_app() -> Starlette:
    """The fake upstream (see the module docstring)."""

    async def answer(request: Request, fmt: str, model: str | None = None, stream: bool | None = None) -> Response:
        body = await request.body()
        key = {"anthropic": request.headers.get("x-api-key"), "gemini": request.headers.get("x-goog-api-key")}.get(
            fmt, request.headers.get("authorization", "")[7:])
        if key != UPSTREAM_KEYS[fmt]:
            return JSONResponse({"error": {"message": "bad upstream key"}}, status_code=401)
        try:
            lucent.decode(body, fmt, _REQUESTS[fmt])
        except lucent.errors.LucentError as error:
            return JSONResponse({"error": {"message": f"lucent refused the gateway's request: {error}"}}, status_code=400)
        document = json.loads(body)
        model = model or document["model"]
        stream = document.get("stream") is True if stream is None else stream
        request.app.state.calls.append({"format": fmt, "model": model, "stream": stream, "body": document})
        scenario, _, rest = model.partition(".")
        turn = rest.split(".")[0]
        if scenario == "fault-500":
            return JSONResponse({"error": {"message": f"internal failure; key {UPSTREAM_KEYS[fmt]}", "type": "server_error"}}, status_code=500)
        if scenario == "fault-429":
            return JSONResponse({"error": {"message": "slow down"}}, status_code=429)
        if scenario == "nousage":  # a Chat reply without usage
            return JSONResponse({"id": "c1", "object": "chat.completion", "created": 1, "model": "m", "choices": [
                {"index": 0, "message": {"role": "assistant", "content": "hello", "refusal": None}, "finish_reason": "stop", "logprobs": None}]})
        if scenario == "slow-ok":  # half a second, then the recorded reply
            await asyncio.sleep(0.5)
            scenario = "toolCallRequest"
        elif scenario.startswith("fault-"):
            return StreamingResponse(_fault(request, scenario, fmt), media_type="text/event-stream")
        if not (SNAPSHOTS / scenario).is_dir():  # any other model: the simplest recorded exchange
            scenario, turn = "simpleRequest", "1"
        name = ("response" if turn == "1" else "followup-response") + ("-streaming.json" if stream else ".json")
        reply = recorded(scenario, fmt, name)
        if stream:
            return Response(sse_of(reply, fmt), media_type="text/event-stream")
        return JSONResponse(reply)

    async def chat(request: Request) -> Response:
        return await answer(request, "openai-chat")

    async def responses(request: Request) -> Response:
        return await answer(request, "openai-responses")

    async def messages(request: Request) -> Response:
        return await answer(request, "anthropic")

    async def gemini(request: Request) -> Response:
        model, _, action = request.path_params["target"].rpartition(":")
        return await answer(request, "gemini", model, action == "streamGenerateContent")

    app = Starlette(routes=[
        Route("/openai/v1/chat/completions", chat, methods=["POST"]),
        Route("/openai/v1/responses", responses, methods=["POST"]),
        Route("/anthropic/v1/messages", messages, methods=["POST"]),
        Route("/gemini/v1beta/models/{target:path}", gemini, methods=["POST"]),
    ])
    app.state.calls = []
    app.state.closed = []
    return app


async def _fault(request: Request, scenario: str, fmt: str) -> Any:
    try:
        if scenario == "fault-cut":
            events = sse_of(recorded("toolCallRequest", fmt, "response-streaming.json"), fmt)
            yield events[: len(events) // 2]
            await asyncio.sleep(0.05)
            raise ConnectionResetError("the upstream stopped mid-stream")  # uvicorn drops the connection
        if scenario == "fault-usage-cut":
            events = recorded("toolCallRequest", "anthropic", "response-streaming.json")
            yield sse_of(events[:3], "anthropic")
            await asyncio.sleep(0.05)
            raise ConnectionResetError("the upstream stopped mid-stream")
        if scenario == "fault-identity":
            chunks = _chat_chunks([{"index": 0, "id": "call_1", "type": "function", "function": {"name": "tool_0", "arguments": "{\"a\":"}},
                                   {"index": 0, "id": "call_2", "function": {"arguments": "1}"}}])
            yield sse_of(chunks, "openai-chat")
            return
        if scenario == "fault-big":
            piece = "x" * 65536
            yield sse_of([_chat_chunk({"role": "assistant", "content": piece})], "openai-chat", done=False)
            for _ in range(80):  # 5 MiB of text deltas
                yield sse_of([_chat_chunk({"content": piece})], "openai-chat", done=False)
            yield sse_of([_chat_chunk({}, finish="stop")], "openai-chat")
            return
        if scenario == "fault-slow":
            yield sse_of([_chat_chunk({"role": "assistant", "content": "thinking"})], "openai-chat", done=False)
            await asyncio.sleep(30)
            yield sse_of([_chat_chunk({}, finish="stop")], "openai-chat")
            return
    finally:
        request.app.state.closed.append(scenario)


def _chat_chunk(delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
    return {"id": "chatcmpl-f", "object": "chat.completion.chunk", "created": 1, "model": "m",
            "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}


def _chat_chunks(calls: list[dict[str, Any]], text: str | None = None) -> list[dict[str, Any]]:
    chunks = [_chat_chunk({"role": "assistant", "content": text})]
    chunks += [_chat_chunk({"tool_calls": [call]}) for call in calls]
    chunks.append(_chat_chunk({}, finish="tool_calls" if calls else "stop"))
    return chunks


def gateway_config(upstream_url: str, store: str = "sqlite::memory:") -> dict[str, Any]:
    """A configuration with every front and one upstream per format, routed by the model's
    last dotted part (``*.anthropic`` -> the anthropic upstream)."""
    base = {"openai-chat": f"{upstream_url}/openai/v1", "openai-responses": f"{upstream_url}/openai/v1",
            "anthropic": f"{upstream_url}/anthropic", "gemini": f"{upstream_url}/gemini"}
    return {
        "gateway": {"store": store, "timeout": 20},
        "fronts": {**{front: {"keys_env": ["GW_KEY", "GW_KEY_2"]} for front in VENDOR_FRONTS}, "sparktide": {"keys_env": ["PLATFORM_KEY", "PLATFORM_KEY_2"]}},
        "upstreams": {f"up-{fmt}": {"format": fmt, "base_url": base[fmt], "key_env": f"UP_KEY_{i}"} for i, fmt in enumerate(DIRS)},
        "routes": [{"model": f"*.{fmt}", "upstream": f"up-{fmt}"} for fmt in DIRS] + [{"model": "internal-model", "upstream": "up-openai-chat", "upstream_model": "toolCallRequest.1.openai-chat"}],
    }


def environ() -> dict[str, str]:
    env = {"GW_KEY": GATEWAY_KEY, "GW_KEY_2": OTHER_KEY, "PLATFORM_KEY": PLATFORM_KEY, "PLATFORM_KEY_2": OTHER_PLATFORM_KEY}
    env.update({f"UP_KEY_{i}": UPSTREAM_KEYS[fmt] for i, fmt in enumerate(DIRS)})
    return env


class Served:
    """An ASGI app served by uvicorn in a thread on a loopback port; ``url``; ``stop()``."""

    def __init__(self, app: Any) -> None:
        self.app = app
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.sock.bind(("127.0.0.1", 0))
        self.port = self.sock.getsockname()[1]
        self.url = f"http://127.0.0.1:{self.port}"
        self.server = uvicorn.Server(uvicorn.Config(app, log_level="warning", lifespan="on", timeout_graceful_shutdown=2))
        self.thread = threading.Thread(target=self.server.run, kwargs={"sockets": [self.sock]}, daemon=True)
        self.thread.start()
        deadline = time.monotonic() + 20
        while not self.server.started:
            if time.monotonic() > deadline or not self.thread.is_alive():
                raise RuntimeError("the loopback server did not start")
            time.sleep(0.01)

    def stop(self) -> None:
        self.server.should_exit = True
        self.thread.join(10)
        self.sock.close()


@contextlib.contextmanager
def served(app: Any) -> Iterator[Served]:
    server = Served(app)
    try:
        yield server
    finally:
        server.stop()


def toml_of(config: dict[str, Any]) -> str:
    """A configuration mapping of :func:`gateway_config`'s shape as TOML text."""

    def value(v: Any) -> str:
        if isinstance(v, bool):
            return "true" if v else "false"
        if isinstance(v, (int, float)):
            return repr(v)
        if isinstance(v, str):
            return json.dumps(v)
        if isinstance(v, list):
            return "[" + ", ".join(value(x) for x in v) + "]"
        return "{ " + ", ".join(f"{json.dumps(k)} = {value(x)}" for k, x in v.items()) + " }"

    lines = ["[gateway]"] + [f"{k} = {value(v)}" for k, v in config.get("gateway", {}).items()]
    lines += ["", "[fronts]"] + [f"{json.dumps(k)} = {value(v)}" for k, v in config["fronts"].items()]
    for name, upstream in config["upstreams"].items():
        lines += ["", f"[upstreams.{json.dumps(name)}]"] + [f"{k} = {value(v)}" for k, v in upstream.items()]
    for route in config["routes"]:
        lines += ["", "[[routes]]"] + [f"{k} = {value(v)}" for k, v in route.items()]
    return "\n".join(lines) + "\n"


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])
