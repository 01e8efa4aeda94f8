"""RedisRecords: :class:`lucent.records.Records` on a Redis server (the ``redis`` client, an extra).

One Redis string per record, under ``<prefix>:<namespace>:<scope SHA-256>:<key, percent-encoded>``
(the scope is hex of a fixed length and the key has no ``:`` left, so two pairs never share a
name). Redis runs each command alone, so each operation is atomic across every process using the
server: ``put`` is ``SET key value [PX ms]``, ``put_if_absent`` is ``SET key value NX [PX ms]``
(the first writer wins; Redis drops an expired key itself), ``get`` is ``GET`` and ``delete`` is
``DEL``. The TTL is kept by the server's clock, in milliseconds (a fraction is rounded up).
"""

from __future__ import annotations

import math
from typing import Any
from urllib.parse import quote

from lucent.errors import StoreError, UsageError
from lucent.records import Records

__all__ = ["RedisRecords"]



class RedisRecords(Records):
    """Records on a Redis server, shared by every process that uses it.

    Parameters
    ----------
    url : str, optional
        A ``redis://``, ``rediss://`` or ``unix://`` URL (``redis.Redis.from_url``).
    client : redis.Redis, optional
        A client of the caller's instead of ``url`` (exactly one of the two).
    namespace, default_ttl
        As for :class:`lucent.records.Records`.
    prefix : str
        The first part of every Redis key (default ``"lucent"``).

    Raises
    ------
    UsageError
        ``missing_dependency``: the ``redis`` package is not installed
        (``pip install 'lucent[redis]'``); ``invalid_store_url``: neither or both of ``url`` and
        ``client``.
    StoreError
        ``store_unavailable`` (from each operation): the server cannot be reached or refused the
        command.
    """

    def __init__(
        self,
        url: str | None = None,
        *,
        client: Any = None,
        namespace: str = "records",
        default_ttl: float | None = None,
        prefix: str = "lucent",
    ) -> None:
        super().__init__(namespace=namespace, default_ttl=default_ttl)
        try:
            import redis
        except ImportError:
            raise UsageError("RedisRecords needs the redis client: pip install 'lucent[redis]'", code="missing_dependency") from None
        if (url is None) == (client is None):
            raise UsageError("RedisRecords takes a url or a client (one of the two)", code="invalid_store_url")
        self._errors = redis.RedisError
        if client is None:
            assert url is not None
            try:
                client = redis.Redis.from_url(url)
            except (ValueError, redis.RedisError):
                raise UsageError("not a Redis URL (redis://, rediss:// or unix://)", code="invalid_store_url") from None
        self._client = client
        self._prefix = f"{prefix}:{namespace}:"

    def close(self) -> None:
        self._call(self._client.close)

    def _name(self, scope: str, key: str) -> str:
        return f"{self._prefix}{scope}:{quote(key, safe='')}"

    def _get(self, scope: str, key: str) -> bytes | None:
        value = self._call(self._client.get, self._name(scope, key))
        return value.encode("utf-8") if isinstance(value, str) else value  # a client made with decode_responses

    def _put(self, scope: str, key: str, value: bytes, ttl: float | None) -> None:
        self._call(self._client.set, self._name(scope, key), value, px=_milliseconds(ttl))

    def _put_if_absent(self, scope: str, key: str, value: bytes, ttl: float | None) -> bool:
        return bool(self._call(self._client.set, self._name(scope, key), value, px=_milliseconds(ttl), nx=True))

    def _delete(self, scope: str, key: str) -> bool:
        return int(self._call(self._client.delete, self._name(scope, key))) == 1

    def _call(self, command: Any, *args: Any, **kwargs: Any) -> Any:
        try:
            return command(*args, **kwargs)
        except self._errors as exc:
            raise StoreError(f"the Redis store failed: {type(exc).__name__}", code="store_unavailable") from None


def _milliseconds(ttl: float | None) -> int | None:
    return None if ttl is None else max(1, math.ceil(ttl * 1000))
