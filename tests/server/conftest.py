"""Fixtures of the gateway tests: one fake upstream and one gateway per session, on loopback."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

pytest.importorskip("starlette")
pytest.importorskip("uvicorn")
pytest.importorskip("httpx")

from tests.server.harness import Served, environ, gateway_config, served, upstream_app  # noqa: E402


@pytest.fixture(scope="session")
def upstream() -> Iterator[Served]:
    with served(upstream_app()) as server:
        yield server


@pytest.fixture(scope="session")
def gateway(upstream: Served) -> Iterator[Served]:
    from lucent.server import create_app, parse_config

    with served(create_app(parse_config(gateway_config(upstream.url), environ()))) as server:
        yield server


@pytest.fixture
def calls(upstream: Served) -> list:
    """The upstream's calls, emptied before the test."""
    upstream.app.state.calls.clear()
    upstream.app.state.closed.clear()
    return upstream.app.state.calls
