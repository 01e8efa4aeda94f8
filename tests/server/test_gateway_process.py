"""``lucent serve`` as a process: a killed and restarted gateway serves a repeated invocationId
from its SQLite store without a second upstream call (issue 19, faults); the configuration's
refusals; the missing extra."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

from tests.server.harness import environ, free_port, gateway_config, toml_of
from tests.server.remote_client import call, invocation

ROOT = Path(__file__).resolve().parents[2]


def _serve(config: Path, port: int) -> subprocess.Popen:
    env = {**os.environ, **environ()}
    process = subprocess.Popen([sys.executable, "-m", "lucent", "serve", "--config", str(config), "--port", str(port), "--log-level", "warning"],
                               cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        try:
            if httpx.get(f"http://127.0.0.1:{port}/health", timeout=1).status_code == 200:
                return process
        except httpx.HTTPError:
            time.sleep(0.05)
        if process.poll() is not None:
            raise AssertionError(process.stderr.read().decode())
    process.kill()
    raise AssertionError("lucent serve did not start")


def test_a_restarted_gateway_serves_a_repeated_invocation_from_its_store(upstream, calls, tmp_path) -> None:
    config = tmp_path / "gateway.toml"
    settings = gateway_config(upstream.url, store=f"sqlite:{tmp_path / 'records.db'}")
    settings["gateway"]["warm_up"] = False  # two starts: each would build every converter
    config.write_text(toml_of(settings))
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    bodies = [invocation("toolCallRequest.1.anthropic"), invocation("toolCallRequest.1.gemini", stream=True)]
    process = _serve(config, port)
    try:
        first = [call(url, body) for body in bodies]
        assert [a.status_code for a in first] == [200, 200]
    finally:
        process.send_signal(signal.SIGKILL)
        process.wait(10)
    process = _serve(config, port)
    try:
        again = [call(url, body) for body in bodies]
    finally:
        process.terminate()
        process.wait(10)
    assert [a.content for a in again] == [a.content for a in first]
    assert len(calls) == 2


def test_a_configuration_error_names_its_path_and_no_key(tmp_path) -> None:
    config = tmp_path / "gateway.toml"
    broken = gateway_config("http://127.0.0.1:9")
    broken["upstreams"]["up-anthropic"]["format"] = "anthropic-v0"
    config.write_text(toml_of(broken))
    out = subprocess.run([sys.executable, "-m", "lucent", "serve", "--config", str(config)], cwd=ROOT, env={**os.environ, **environ()},
                         capture_output=True, text=True, timeout=60)
    assert out.returncode == 2
    assert out.stderr.strip() == "lucent: $.upstreams.up-anthropic.format: an upstream format is one of openai-chat, openai-responses, anthropic, gemini [invalid_config]"


@pytest.mark.parametrize("change, status, line", [
    (lambda c: c["gateway"].update({"typo_key": 1}), 2,
     "lucent: $.gateway.typo_key: an unknown key (allowed: idempotency_ttl, max_body_bytes, store, timeout, warm_up) [invalid_config]"),
    (None, 2, "lucent: /nope.toml: cannot read the configuration file: No such file or directory [invalid_config]"),
    (lambda c: c["gateway"].update({"store": "sqlite:/nonexistent/dir/x.db"}), 1, "lucent: $.gateway.store: the SQLite store failed: "),
    (lambda c: c["gateway"].update({"store": "redis://127.0.0.1:9/0"}), 1, "lucent: $.gateway.store: the Redis store failed: ConnectionError [store_unavailable]"),
])
def test_serve_refusals_are_one_line_with_their_path_before_uvicorn_starts(change, status, line, tmp_path) -> None:
    config = tmp_path / "gateway.toml"
    settings = gateway_config("http://127.0.0.1:9")
    settings["gateway"]["warm_up"] = False
    if change is not None:
        change(settings)
    config.write_text(toml_of(settings))
    out = subprocess.run([sys.executable, "-m", "lucent", "serve", "--config", str(config) if change else "/nope.toml", "--port", str(free_port())],
                         cwd=ROOT, env={**os.environ, **environ()}, capture_output=True, text=True, timeout=60)
    assert out.returncode == status, out.stderr
    assert len(out.stderr.splitlines()) == 1 and out.stderr.startswith(line), out.stderr
    assert out.stderr.rstrip().endswith("]") and "Traceback" not in out.stderr


@pytest.mark.parametrize("config", [{}, None, 5])
def test_create_app_refuses_what_is_neither_a_config_nor_a_path(config) -> None:
    from lucent.errors import UsageError
    from lucent.server import create_app

    with pytest.raises(UsageError) as caught:
        create_app(config)
    assert caught.value.code == "invalid_config"
    assert "parse_config" in caught.value.message


def test_an_unreachable_store_fails_the_start_up_not_a_request() -> None:
    from lucent.errors import StoreError
    from lucent.server import parse_config
    from lucent.server._state import Gateway

    gateway = Gateway(parse_config(gateway_config("http://127.0.0.1:9", store="redis://127.0.0.1:9/0"), environ()))
    with pytest.raises(StoreError) as caught:
        gateway.open()
    assert (caught.value.code, caught.value.path) == ("store_unavailable", "$.gateway.store")


def test_serve_keeps_httpx_request_lines_out_of_the_log(tmp_path, monkeypatch) -> None:
    import argparse
    import logging

    import uvicorn

    from lucent.server._cli import _serve

    config = tmp_path / "gateway.toml"
    config.write_text(toml_of(gateway_config("http://127.0.0.1:9")))
    for name, value in environ().items():
        monkeypatch.setenv(name, value)
    levels: dict[str, int] = {}
    monkeypatch.setattr(uvicorn, "run", lambda *a, **k: levels.update({n: logging.getLogger(n).level for n in ("httpx", "httpcore")}))
    for name in ("httpx", "httpcore"):
        monkeypatch.setattr(logging.getLogger(name), "level", logging.NOTSET)
    args = argparse.Namespace(config=str(config), host="127.0.0.1", port=0, log_level="info")
    assert _serve(args, None) == 0
    assert levels == {"httpx": logging.WARNING, "httpcore": logging.WARNING}


def test_config_refusals() -> None:
    from lucent.errors import UsageError
    from lucent.server import parse_config

    good = gateway_config("http://127.0.0.1:9")
    env = environ()
    parse_config(good, env)
    for change, path in [
        (lambda c: c["fronts"].update({"openai-chat": {"keys_env": ["UNSET_VARIABLE"]}}), "$.fronts.openai-chat.keys_env"),
        (lambda c: c["fronts"].update({"cohere": {"keys_env": ["GW_KEY"]}}), "$.fronts.cohere"),
        (lambda c: c["upstreams"]["up-gemini"].update({"key_env": "UNSET_VARIABLE"}), "$.upstreams.up-gemini.key_env"),
        (lambda c: c["routes"].append({"model": "x", "upstream": "nowhere"}), f"$.routes[{len(good['routes'])}].upstream"),
        (lambda c: c["gateway"].update({"store": "postgres://x"}), "$.gateway.store"),
        (lambda c: c["gateway"].update({"timout": 5}), "$.gateway.timout"),
    ]:
        config = gateway_config("http://127.0.0.1:9")
        change(config)
        with pytest.raises(UsageError) as caught:
            parse_config(config, env)
        assert (caught.value.code, caught.value.path) == ("invalid_config", path)
        assert not any(secret in str(caught.value) for secret in env.values())


def test_a_missing_extra_is_a_typed_error() -> None:
    code = ("import sys; sys.modules['starlette'] = None\n"
            "from lucent.server import create_app\n"
            "from lucent.errors import UsageError\n"
            "try:\n    create_app('gateway.toml')\nexcept UsageError as e:\n    print(e.code)\n")
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert out.stdout.strip() == "missing_dependency", out.stderr


def test_import_lucent_server_imports_no_server_dependency() -> None:
    code = "import sys, lucent, lucent.server; print(sorted(m for m in ('starlette', 'httpx', 'uvicorn') if m in sys.modules))"
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert out.stdout.strip() == "[]", out.stderr


def test_two_gateways_on_one_redis_share_their_invocations(upstream, calls, redis_db) -> None:
    from lucent.server import create_app, parse_config
    from tests.server.harness import served

    config = parse_config(gateway_config(upstream.url, store=redis_db), environ())
    with served(create_app(config)) as one, served(create_app(config)) as two:
        body = invocation("toolCallRequest.1.openai-responses")
        first = call(one.url, body)
        second = call(two.url, body)
        assert first.status_code == 200 and second.content == first.content
        racing = invocation("slow-ok.1.openai-chat")
        import threading

        answers: list = []
        threads = [threading.Thread(target=lambda url=url: answers.append(call(url, racing))) for url in (one.url, two.url)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(20)
        assert len(answers) == 2 and answers[0].content == answers[1].content
    assert len(calls) == 2
