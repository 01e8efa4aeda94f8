"""What one gateway process holds: its configuration, the httpx client of its upstream calls
and its record stores (idempotency and snapshots, on the configured backend)."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from typing import Any

import httpx

from lucent.errors import StoreError
from lucent.records import Records, open_records
from lucent.server._config import Config
from lucent.snapshots import SnapshotStore

__all__ = ["Gateway"]


@dataclass
class Gateway:
    """The gateway's state; :meth:`open` at start-up (the app's lifespan), :meth:`close` at the end."""

    config: Config
    client: httpx.AsyncClient = field(init=False, repr=False)
    records: Records = field(init=False, repr=False)
    snapshots: SnapshotStore = field(init=False, repr=False)
    running: dict[tuple[str, str], asyncio.Event] = field(default_factory=dict, repr=False)
    """The invocations this process is running, by (scope, invocationId): a repeat waits on it."""

    def open(self, transport: Any = None) -> None:
        self.records = open_records(self.config.store, namespace="gateway-idempotency")
        self.snapshots = SnapshotStore(open_records(self.config.store, namespace="snapshots"))
        try:
            check_store(self.records)  # StoreError store_unavailable: the app does not start
        except StoreError:
            self.records.close()
            self.snapshots.close()
            raise
        limits = httpx.Limits(max_connections=1000, max_keepalive_connections=200)
        timeout = httpx.Timeout(self.config.timeout, connect=min(10.0, self.config.timeout))
        self.client = httpx.AsyncClient(timeout=timeout, limits=limits, transport=transport, trust_env=False)

    async def close(self) -> None:
        await self.client.aclose()
        self.records.close()
        self.snapshots.close()


def check_store(records: Records) -> None:
    """Read one record, so that a store that cannot be reached (a Redis server down, an SQLite
    file that cannot be opened) fails at start-up, not after a request's upstream call.

    Raises StoreError ``store_unavailable``, at ``$.gateway.store``."""
    try:
        records.get("gateway-start-up", "probe")
    except StoreError as exc:
        raise StoreError(exc.message, code=exc.code, path="$.gateway.store") from None
