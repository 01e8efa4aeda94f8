"""A real Redis server for the tests: ``redis-server`` started on a free loopback port.

The tests that need Redis take the ``redis_url`` fixture (tests/conftest.py). Without the
``redis-server`` binary (``apt-get install redis-server``) or the ``redis`` client (the ``tests``
extra) they are skipped, and the skip says which is missing; with ``LUCENT_REQUIRE_REDIS=1`` (CI,
``.ci/run``) they fail instead, so that CI never passes without them.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager

import pytest


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _unavailable(reason: str) -> None:
    if os.environ.get("LUCENT_REQUIRE_REDIS") == "1":
        pytest.fail(f"LUCENT_REQUIRE_REDIS=1 but {reason}")
    pytest.skip(reason)


@contextmanager
def redis_server() -> Iterator[str]:
    """Start ``redis-server`` on 127.0.0.1 (no persistence) and yield its URL; stop it after."""
    binary = shutil.which("redis-server")
    if binary is None:
        _unavailable("redis-server is not installed (apt-get install redis-server): the Redis store tests need a real server")
    try:
        import redis
    except ImportError:
        _unavailable("the redis client is not installed (pip install -e '.[tests]'): the Redis store tests need it")
    assert binary is not None
    with tempfile.TemporaryDirectory() as folder:
        for _attempt in range(3):  # a port taken between the probe and the bind: try another
            port = _free_port()
            process = subprocess.Popen(
                [binary, "--port", str(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--dir", folder],
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
            )
            url = f"redis://127.0.0.1:{port}/0"
            client = redis.Redis.from_url(url)
            deadline = time.monotonic() + 10
            try:
                while process.poll() is None and time.monotonic() < deadline:
                    try:
                        client.ping()
                        break
                    except redis.ConnectionError:
                        time.sleep(0.02)
                else:
                    continue
                try:
                    yield url
                finally:
                    client.close()
                return
            finally:
                process.terminate()
                process.wait(timeout=10)
        pytest.fail("redis-server did not start on a free loopback port in three attempts")
