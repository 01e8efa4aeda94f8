"""SparkTide REMOTE idempotency: one upstream call per ``invocationId``, within the caller's scope.

Records (namespace ``gateway-idempotency`` of the configured store: SQLite by default, Redis for
several gateway processes) hold, under ``(scope, invocationId)``, JSON:

* ``{"state": "running", "fingerprint"}`` while the first request runs (``put_if_absent``: the
  first writer wins across processes), living as long as that request may (its deadline, at
  most 60 s, plus a margin), so that a killed gateway's invocation can be tried again;
* ``{"state": "done", "fingerprint", "status", "media_type", "body"}`` once it answered: the
  answer a repeat gets as it is (a stream's frames too), for ``idempotency_ttl`` seconds.

``fingerprint`` is the SHA-256 of the request body: a repeat with another body is refused
(``idempotency_key_reused``, 422 ``MODEL_REQUEST_REJECTED``). A repeat that arrives while the
first runs waits for it (an event in this process, polling the store across processes) up to its
own deadline, then gets ``MODEL_TIMED_OUT`` (504): the documented conflict answer. Answers that a
retry may change (``MODEL_UNAVAILABLE``, ``MODEL_TIMED_OUT``, ``MODEL_RATE_LIMITED``, a client
that went away) are not kept: the record is deleted, and a repeat calls the upstream again.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
from dataclasses import dataclass

from lucent.server._state import Gateway
from lucent.server._upstream import Failure

__all__ = ["Stored", "begin", "finish", "fingerprint"]

_POLL = 0.05
"""Seconds between two reads of the store while another process runs the invocation."""


@dataclass(frozen=True)
class Stored:
    """A kept answer."""

    status: int
    media_type: str
    body: bytes


def fingerprint(body: bytes) -> str:
    return hashlib.sha256(body).hexdigest()


async def begin(gateway: Gateway, scope: str, key: str, print_: str, deadline: float) -> Stored | None:
    """The kept answer of ``key``, or None when this request is now the one that runs it.

    ``deadline`` is the loop time by which a wait gives up (``Failure(504, "deadline_exceeded")``).
    """
    loop = asyncio.get_running_loop()
    records = gateway.records
    while True:
        found = await asyncio.to_thread(records.get, scope, key)
        if found is None:
            running = json.dumps({"state": "running", "fingerprint": print_}).encode()
            ttl = max(deadline - loop.time(), 0.0) + 5.0
            if await asyncio.to_thread(records.put_if_absent, scope, key, running, ttl=ttl):
                gateway.running[(scope, key)] = asyncio.Event()
                return None
            continue
        record = json.loads(found)
        if record.get("fingerprint") != print_:
            raise Failure(422, "idempotency_key_reused", "this invocationId was used with another request")
        if record.get("state") == "done":
            return Stored(int(record["status"]), str(record["media_type"]), str(record["body"]).encode())
        left = deadline - loop.time()
        if left <= 0:
            raise Failure(504, "deadline_exceeded", "the first request of this invocationId is still running")
        event = gateway.running.get((scope, key))
        try:
            if event is not None:
                await asyncio.wait_for(event.wait(), left)
            else:
                await asyncio.sleep(min(_POLL, left))
        except TimeoutError:
            pass


def finish(gateway: Gateway, scope: str, key: str, print_: str, answer: Stored | None) -> None:
    """Keep ``answer`` for repeats (None: forget the invocation, so that a repeat runs again).

    Synchronous (one short write), so that it also runs in a task being cancelled."""
    try:
        if answer is None:
            gateway.records.delete(scope, key)
        else:
            record = {"state": "done", "fingerprint": print_, "status": answer.status,
                      "media_type": answer.media_type, "body": answer.body.decode()}
            value = json.dumps(record, ensure_ascii=False).encode()
            gateway.records.put(scope, key, value, ttl=gateway.config.idempotency_ttl)
    finally:
        event = gateway.running.pop((scope, key), None)
        if event is not None:
            event.set()
