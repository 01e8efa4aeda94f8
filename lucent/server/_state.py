"""What one gateway process holds: its configuration, the httpx client of its upstream calls
and its record stores (idempotency and snapshots, on the configured backend)."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from typing import Any

import httpx

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
        limits = httpx.Limits(max_connections=1000, max_keepalive_connections=200)
        timeout = httpx.Timeout(self.config.timeout, connect=min(10.0, self.config.timeout))
        self.client = httpx.AsyncClient(timeout=timeout, limits=limits, transport=transport, trust_env=False)
        self.records = open_records(self.config.store, namespace="gateway-idempotency")
        self.snapshots = SnapshotStore(open_records(self.config.store, namespace="snapshots"))

    async def close(self) -> None:
        await self.client.aclose()
        self.records.close()
        self.snapshots.close()
