"""Scoped, expiring, atomic key -> JSON records: the backend layer of :mod:`lucent.snapshots`.

A record is the JSON text (``bytes``) stored under a ``(scope, key)`` pair of one store's
``namespace``. The scope is the caller's tenant or key: a record is found only under the scope
it was written with, and the store holds the scope's SHA-256, never the scope itself (a bearer
key used as a scope is not written to disk or to Redis). Every record may expire (a TTL in
seconds, enforced by the store: an expired record is absent). Each operation is atomic on its
own, across threads and processes sharing the backend:

* :meth:`Records.get`: the record, or ``None`` when it is absent or expired;
* :meth:`Records.put`: write or replace;
* :meth:`Records.put_if_absent`: write only where no live record is (first writer wins: what an
  idempotency key needs); ``True`` when this call wrote it;
* :meth:`Records.delete`: remove; ``True`` when a live record was removed.

Backends: :class:`MemoryRecords` (one process, for tests), :class:`SQLiteRecords` (the
standard library's ``sqlite3``; a file shared by processes on one machine, or ``:memory:``) and
:class:`RedisRecords` (a Redis server shared by several processes and machines; needs the
``redis`` client: ``pip install 'lucent[redis]'``). :func:`open_records` opens one from a URL.
The store does not parse a record: the layer above checks it (a snapshot against
``ConversationSnapshot``, on the way in and out). docs/decisions/0003-record-store.md says why.

Errors: :class:`~lucent.errors.UsageError` for a wrong call (``invalid_scope``, ``invalid_key``,
``invalid_ttl``, ``invalid_input_type``, ``invalid_namespace``, ``invalid_store_url``,
``missing_dependency``), :class:`~lucent.errors.StoreError` ``store_unavailable`` when the
backend fails. Messages never repeat a scope, key or value.
"""

from __future__ import annotations

import hashlib
import math
import re
import threading
import time
from typing import TYPE_CHECKING, Any, Callable

from lucent.errors import UsageError

if TYPE_CHECKING:
    from lucent._records_redis import RedisRecords
    from lucent._records_sqlite import SQLiteRecords

__all__ = ["MAX_KEY_BYTES", "MemoryRecords", "Records", "RedisRecords", "SQLiteRecords", "open_records"]

MAX_KEY_BYTES = 1024
"""Longest key, and longest scope, in bytes of UTF-8."""

_NAMESPACE = re.compile(r"[a-z0-9_-]{1,64}")


class Records:
    """The record interface; a backend implements the four ``_``-methods.

    Parameters
    ----------
    namespace : str
        What the records are (``"snapshots"``, ``"idempotency"``): 1-64 characters of
        ``[a-z0-9_-]``. Stores of different namespaces on one backend never see each other's
        records.
    default_ttl : float or None
        Seconds a record lives when a write names no ``ttl``; ``None`` or ``math.inf``: forever.

    Every method takes ``scope`` (a non-empty ``str``, at most :data:`MAX_KEY_BYTES` of UTF-8:
    else ``UsageError`` ``invalid_scope``) and ``key`` (the same rule: ``invalid_key``). A write
    takes ``value`` (``bytes``: JSON text; else ``invalid_input_type``) and ``ttl`` (seconds, a
    positive number; ``None``: the store's ``default_ttl``; ``math.inf``: forever; else
    ``invalid_ttl``).
    """

    def __init__(self, *, namespace: str = "records", default_ttl: float | None = None) -> None:
        if not isinstance(namespace, str) or not _NAMESPACE.fullmatch(namespace):
            raise UsageError("a namespace is 1-64 characters of a-z, 0-9, _ and -", code="invalid_namespace")
        self.namespace = namespace
        self.default_ttl = _checked_ttl(default_ttl, None)

    def get(self, scope: str, key: str) -> bytes | None:
        """The record under ``(scope, key)``; ``None`` when there is none or it has expired."""
        return self._get(_scope_id(scope), _checked_key(key))

    def put(self, scope: str, key: str, value: bytes, *, ttl: float | None = None) -> None:
        """Write ``value`` under ``(scope, key)``, replacing any record there, to live ``ttl`` s."""
        self._put(_scope_id(scope), _checked_key(key), _checked_value(value), self._expiry(ttl))

    def put_if_absent(self, scope: str, key: str, value: bytes, *, ttl: float | None = None) -> bool:
        """Write ``value`` unless a live record is under ``(scope, key)``, atomically (first writer
        wins); ``True`` when this call wrote it, ``False`` when the stored record was kept."""
        return self._put_if_absent(_scope_id(scope), _checked_key(key), _checked_value(value), self._expiry(ttl))

    def delete(self, scope: str, key: str) -> bool:
        """Remove the record under ``(scope, key)``; ``True`` when a live record was removed."""
        return self._delete(_scope_id(scope), _checked_key(key))

    def close(self) -> None:
        """Release the backend's connection (the records stay)."""

    def __enter__(self) -> Records:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _expiry(self, ttl: float | None) -> float | None:
        """Seconds the record lives, or None for forever."""
        return _checked_ttl(ttl, self.default_ttl)

    # A backend's part: scope is the scope's SHA-256 (hex), ttl seconds or None (forever).
    def _get(self, scope: str, key: str) -> bytes | None:
        raise NotImplementedError

    def _put(self, scope: str, key: str, value: bytes, ttl: float | None) -> None:
        raise NotImplementedError

    def _put_if_absent(self, scope: str, key: str, value: bytes, ttl: float | None) -> bool:
        raise NotImplementedError

    def _delete(self, scope: str, key: str) -> bool:
        raise NotImplementedError


class MemoryRecords(Records):
    """Records in a dict of this process (tests, one-process tools); thread-safe.

    ``clock`` gives the time in seconds (default ``time.monotonic``); a test may pass its own.
    """

    def __init__(self, *, namespace: str = "records", default_ttl: float | None = None, clock: Callable[[], float] = time.monotonic) -> None:
        super().__init__(namespace=namespace, default_ttl=default_ttl)
        self._clock = clock
        self._lock = threading.Lock()
        self._records: dict[tuple[str, str], tuple[bytes, float | None]] = {}

    def _live(self, slot: tuple[str, str], now: float) -> bytes | None:
        found = self._records.get(slot)
        if found is None:
            return None
        if found[1] is not None and found[1] <= now:
            del self._records[slot]
            return None
        return found[0]

    def _get(self, scope: str, key: str) -> bytes | None:
        with self._lock:
            return self._live((scope, key), self._clock())

    def _put(self, scope: str, key: str, value: bytes, ttl: float | None) -> None:
        with self._lock:
            now = self._clock()
            self._records[(scope, key)] = (value, None if ttl is None else now + ttl)

    def _put_if_absent(self, scope: str, key: str, value: bytes, ttl: float | None) -> bool:
        with self._lock:
            now = self._clock()
            if self._live((scope, key), now) is not None:
                return False
            self._records[(scope, key)] = (value, None if ttl is None else now + ttl)
            return True

    def _delete(self, scope: str, key: str) -> bool:
        with self._lock:
            live = self._live((scope, key), self._clock()) is not None
            self._records.pop((scope, key), None)
            return live


def open_records(url: str, *, namespace: str = "records", default_ttl: float | None = None) -> Records:
    """A store from a URL.

    ``memory:`` is :class:`MemoryRecords`; ``sqlite:PATH`` (``sqlite::memory:`` for an in-memory
    database) is :class:`SQLiteRecords`; ``redis://``, ``rediss://`` and ``unix://`` URLs are
    :class:`RedisRecords` (``redis.Redis.from_url``). Anything else: ``UsageError``
    ``invalid_store_url``.
    """
    if not isinstance(url, str):
        raise UsageError(f"a store URL is a str, not {type(url).__name__}", code="invalid_store_url")
    if url == "memory:":
        return MemoryRecords(namespace=namespace, default_ttl=default_ttl)
    if url.startswith("sqlite:") and len(url) > len("sqlite:"):
        from lucent._records_sqlite import SQLiteRecords

        return SQLiteRecords(url[len("sqlite:"):], namespace=namespace, default_ttl=default_ttl)
    if url.startswith(("redis://", "rediss://", "unix://")):
        from lucent._records_redis import RedisRecords

        return RedisRecords(url, namespace=namespace, default_ttl=default_ttl)
    raise UsageError("a store URL is memory:, sqlite:PATH or a redis:// URL", code="invalid_store_url")


def _scope_id(scope: str) -> str:
    """The SHA-256 (hex) of a checked scope: what the backends store."""
    return hashlib.sha256(_utf8(scope, "scope", "invalid_scope")).hexdigest()


def _checked_key(key: str) -> str:
    _utf8(key, "key", "invalid_key")
    return key


def _utf8(text: str, name: str, code: str) -> bytes:
    if not isinstance(text, str) or not text:
        raise UsageError(f"a {name} is a non-empty str", code=code)
    try:
        data = text.encode("utf-8")
    except UnicodeEncodeError:
        raise UsageError(f"a {name} is text without lone surrogates", code=code) from None
    if len(data) > MAX_KEY_BYTES:
        raise UsageError(f"a {name} is at most {MAX_KEY_BYTES} bytes of UTF-8", code=code)
    return data


def _checked_value(value: bytes) -> bytes:
    if isinstance(value, (bytearray, memoryview)):
        return bytes(value)
    if not isinstance(value, bytes):
        raise UsageError(f"a record is bytes (JSON text), not {type(value).__name__}", code="invalid_input_type")
    return value


def _checked_ttl(ttl: Any, default: float | None) -> float | None:
    """A TTL in seconds (None: forever); ``None`` given is ``default``."""
    if ttl is None:
        return default
    if isinstance(ttl, bool) or not isinstance(ttl, (int, float)) or math.isnan(ttl) or ttl <= 0:
        raise UsageError("a ttl is a positive number of seconds (math.inf: forever)", code="invalid_ttl")
    return None if math.isinf(ttl) else float(ttl)


def __getattr__(name: str) -> Any:
    # the SQLite and Redis backends load on first use (Redis needs the `redis` extra)
    if name == "SQLiteRecords":
        from lucent._records_sqlite import SQLiteRecords

        return SQLiteRecords
    if name == "RedisRecords":
        from lucent._records_redis import RedisRecords

        return RedisRecords
    raise AttributeError(f"module 'lucent.records' has no attribute {name!r}")
