"""Load on the gateway (issue 19): N concurrent streaming requests through one ``lucent serve``
process on loopback, against the same requests sent straight to the loopback upstream.

    python -m bench.gateway_load [--requests 200] [--front openai-chat] [--upstream anthropic]

Prints, for the gateway and for the upstream called directly: how many requests completed and
were correct (the client's stream, assembled by ``lucent.streams.assemble``, equals the
conversion of the recorded upstream stream), the latency per request (median, p99; first byte
and whole stream) and the gateway's added latency (the medians' and p99s' differences), the wall
time, and the gateway process's peak resident memory (VmHWM). Also a sequential round (one
request at a time), where the added latency is the gateway's own work with no queueing.

The upstream (tests/server/harness.py's fake, serving tests/data/lingua/snapshots) and the
gateway each run in their own process; every address is 127.0.0.1; every loop is bounded in
count and time (``--timeout``). Nothing here is asserted: the figures are for reading.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.server.harness import (  # noqa: E402
    GATEWAY_KEY,
    UPSTREAM_KEYS,
    environ,
    free_port,
    gateway_config,
    recorded,
    sse_of,
    toml_of,
)

_UPSTREAM_PROCESS = (
    "import sys, uvicorn; sys.path.insert(0, {root!r}); from tests.server.harness import upstream_app; "
    "uvicorn.run(upstream_app(), host='127.0.0.1', port={port}, log_level='warning', access_log=False)"
)
_PATHS = {"openai-chat": "/v1/chat/completions", "openai-responses": "/v1/responses", "anthropic": "/v1/messages"}
_UPSTREAM_PATHS = {"openai-chat": "/openai/v1/chat/completions", "openai-responses": "/openai/v1/responses", "anthropic": "/anthropic/v1/messages"}


def _wait(url: str, process: subprocess.Popen[bytes], timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise SystemExit(f"a server exited: {process.stderr.read().decode() if process.stderr else ''}")
        try:
            httpx.get(url, timeout=1)
            return
        except httpx.HTTPError:
            time.sleep(0.1)
    raise SystemExit("a server did not start")


def _peak_rss_mib(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return float("nan")


async def _one(client: httpx.AsyncClient, url: str, body: bytes, headers: dict[str, str], fmt: str, expected: Any) -> tuple[float, float, bool]:
    from lucent import streams

    started = time.perf_counter()
    first = None
    chunks = []
    async with client.stream("POST", url, content=body, headers=headers) as response:
        async for chunk in response.aiter_raw():
            if first is None:
                first = time.perf_counter() - started
            chunks.append(chunk)
        ok = response.status_code == 200
    total = time.perf_counter() - started
    if ok:
        try:
            ok = _comparable(streams.assemble(b"".join(chunks), fmt)) == expected
        except Exception:
            ok = False
    return first or total, total, ok


async def _round(url: str, body: bytes, headers: dict[str, str], fmt: str, expected: Any, count: int, concurrency: int, timeout: float) -> dict[str, Any]:
    limits = httpx.Limits(max_connections=concurrency, max_keepalive_connections=concurrency)
    async with httpx.AsyncClient(limits=limits, timeout=timeout) as client:
        gate = asyncio.Semaphore(concurrency)

        async def bounded() -> tuple[float, float, bool]:
            async with gate:
                return await _one(client, url, body, headers, fmt, expected)

        started = time.perf_counter()
        results = await asyncio.wait_for(asyncio.gather(*(bounded() for _ in range(count)), return_exceptions=True), timeout)
        wall = time.perf_counter() - started
    done = [r for r in results if isinstance(r, tuple)]
    firsts = sorted(r[0] for r in done)
    totals = sorted(r[1] for r in done)
    return {"completed": len(done), "correct": sum(r[2] for r in done), "wall_s": wall,
            "first_ms": (_median(firsts), _p99(firsts)), "total_ms": (_median(totals), _p99(totals))}


def _comparable(response: Any) -> Any:
    """A final response as JSON, without the time the gateway answered (``created``)."""
    import lucent

    value = json.loads(lucent.encode(response))
    value.pop("created", None)
    value.pop("created_at", None)
    return value


def _median(values: list[float]) -> float:
    return statistics.median(values) * 1000 if values else float("nan")


def _p99(values: list[float]) -> float:
    return values[min(len(values) - 1, int(len(values) * 0.99))] * 1000 if values else float("nan")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=int, default=200)
    parser.add_argument("--sequential", type=int, default=50, help="requests of the one-at-a-time round")
    parser.add_argument("--front", default="openai-chat", choices=sorted(_PATHS))
    parser.add_argument("--upstream", default="anthropic", choices=sorted(_UPSTREAM_PATHS))
    parser.add_argument("--timeout", type=float, default=120.0, help="seconds a round may take in all")
    args = parser.parse_args(argv)

    from lucent import streams
    from lucent._context import read_by

    up_port, gw_port = free_port(), free_port()
    up_url, gw_url = f"http://127.0.0.1:{up_port}", f"http://127.0.0.1:{gw_port}"
    env = {**os.environ, **environ()}
    upstream = subprocess.Popen([sys.executable, "-c", _UPSTREAM_PROCESS.format(root=str(ROOT), port=up_port)], env=env, stderr=subprocess.PIPE)
    with tempfile.TemporaryDirectory() as folder:
        config = Path(folder) / "gateway.toml"
        config.write_text(toml_of(gateway_config(up_url)))
        gateway = subprocess.Popen([sys.executable, "-m", "lucent", "serve", "--config", str(config), "--port", str(gw_port), "--log-level", "warning"],
                                   cwd=ROOT, env=env, stderr=subprocess.PIPE)
        try:
            _wait(up_url + "/", upstream)
            _wait(gw_url + "/health", gateway)
            model = f"toolCallRequest.1.{args.upstream}"
            recorded_stream = sse_of(recorded("toolCallRequest", args.upstream, "response-streaming.json"), args.upstream)
            via = recorded("toolCallRequest", args.front, "request.json") | {"model": model, "stream": True}
            direct = recorded("toolCallRequest", args.upstream, "request.json") | {"model": model, "stream": True}
            envelope = read_by({"created": 0, "created_at": 0}, args.upstream, args.front, "stream")
            expected_via = _comparable(streams.assemble(streams.convert_stream(recorded_stream, args.upstream, args.front, context=envelope), args.front))
            expected_direct = _comparable(streams.assemble(recorded_stream, args.upstream))
            gw_headers = {"authorization": f"Bearer {GATEWAY_KEY}", "x-api-key": GATEWAY_KEY, "content-type": "application/json"}
            up_headers = {"authorization": f"Bearer {UPSTREAM_KEYS[args.upstream]}", "x-api-key": UPSTREAM_KEYS[args.upstream],
                          "content-type": "application/json"}
            via_body, direct_body = json.dumps(via).encode(), json.dumps(direct).encode()
            _warm = asyncio.run(_round(gw_url + _PATHS[args.front], via_body, gw_headers, args.front, None, 5, 5, args.timeout))
            rounds = []
            for name, concurrency, count in (("sequential", 1, args.sequential), ("concurrent", args.requests, args.requests)):
                gw = asyncio.run(_round(gw_url + _PATHS[args.front], via_body, gw_headers, args.front, expected_via, count, concurrency, args.timeout))
                up = asyncio.run(_round(up_url + _UPSTREAM_PATHS[args.upstream], direct_body, up_headers, args.upstream, expected_direct, count, concurrency, args.timeout))
                rounds.append((name, concurrency, count, gw, up))
            peak = _peak_rss_mib(gateway.pid)
        finally:
            gateway.terminate()
            upstream.terminate()
            gateway.wait(10)
            upstream.wait(10)
    print(f"gateway load: {args.front} front -> {args.upstream} upstream, streaming, loopback; one gateway process")
    for name, concurrency, count, gw, up in rounds:
        print(f"\n{name}: {count} requests, {concurrency} at a time")
        print(f"  {'':10} {'completed':>9} {'correct':>8} {'wall s':>7} {'first byte ms (med/p99)':>24} {'whole stream ms (med/p99)':>26}")
        for label, r in (("gateway", gw), ("direct", up)):
            print(f"  {label:10} {r['completed']:>9} {r['correct']:>8} {r['wall_s']:>7.2f} {r['first_ms'][0]:>11.1f} / {r['first_ms'][1]:<10.1f} {r['total_ms'][0]:>12.1f} / {r['total_ms'][1]:<10.1f}")
        print(f"  added by the gateway: median {gw['total_ms'][0] - up['total_ms'][0]:.1f} ms, p99 {gw['total_ms'][1] - up['total_ms'][1]:.1f} ms (whole stream)")
    print(f"\ngateway peak resident memory (VmHWM): {peak:.1f} MiB")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
