"""Hypothesis profiles for the test suite.

``ci`` (the default) is derandomized: every run draws the same examples, so a CI result depends
only on the code. ``explore`` draws new examples on each run; use it to look for new faults,
e.g. ``HYPOTHESIS_PROFILE=explore python -m pytest tests/formats/llm_sdk/test_convert.py``. A fault it
finds becomes an explicit test.
"""

import os

from hypothesis import settings

settings.register_profile("ci", derandomize=True, database=None)
settings.register_profile("explore", derandomize=False)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))


import pytest  # noqa: E402


@pytest.fixture(scope="session")
def redis_url():  # type: ignore[no-untyped-def]
    """The URL of a real Redis server started for this test session (tests/redis_server.py);
    the tests that take it skip, saying why, when redis-server or the client is missing."""
    from tests.redis_server import redis_server

    with redis_server() as url:
        yield url


@pytest.fixture
def redis_db(redis_url):  # type: ignore[no-untyped-def]
    """``redis_url`` with its database emptied before the test."""
    import redis

    client = redis.Redis.from_url(redis_url)
    client.flushdb()
    client.close()
    return redis_url
