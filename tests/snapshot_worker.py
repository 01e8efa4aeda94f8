"""One of two processes recording and restoring at once on one store (tests/test_snapshot_processes.py).

``python -m tests.snapshot_worker URL WORKER CHAINS TURNS RACES FOLDER``: waits for
``FOLDER/go``, then

* records ``race-<i>`` for each i (one scope and one id for both workers, each its own reply)
  and notes whether it won or met ``snapshot_conflict``;
* takes turn t of each chain when ``t % 2 == WORKER`` (so the two processes alternate on every
  chain): it waits until the other process has recorded turn t - 1, restores it, and records the
  reply under ``chain-<c>-<t>``.

Prints one JSON object: ``{"races": {"<i>": "won" | "conflict"}}``.
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path
from typing import Any

from lucent.errors import StoreError
from lucent.snapshots import SnapshotStore


def reply(text: str, response_id: str) -> dict[str, Any]:
    return {"schema_version": "v1", "id": response_id, "model": "m",
            "choices": [{"index": 0, "message": {"role": "assistant", "content": [{"type": "text", "text": text}]}, "finish_reason": "stop"}]}


def wait_for(store: SnapshotStore, response_id: str, scope: str) -> None:
    deadline = time.monotonic() + 60
    while True:
        try:
            store.get(response_id, scope=scope)
            return
        except StoreError as error:
            if error.code != "previous_response_not_found" or time.monotonic() > deadline:
                raise
        time.sleep(0.002)


def main(url: str, worker: int, chains: int, turns: int, races: int, folder: str) -> None:
    store = SnapshotStore(url)
    go = Path(folder) / "go"
    (Path(folder) / f"ready-{worker}").touch()
    while not go.exists():
        time.sleep(0.005)
    results: dict[str, str] = {}
    for race in range(races):  # both processes, the same ids in the same order, at once
        restored = store.restore({"model": "m", "input": f"race {race}"}, scope="shared")
        try:
            store.record(restored.value, reply(f"worker {worker}", f"race-{race}"), scope="shared")
            results[str(race)] = "won"
        except StoreError as error:
            results[str(race)] = error.code
    for step in range(turns):
        for chain in range(chains):
            if step % 2 != worker:
                continue
            scope = f"tenant-{chain % 3}"
            request: dict[str, Any] = {"model": "m", "input": f"chain {chain} turn {step} asks"}
            if step:
                request["previous_response_id"] = f"chain-{chain}-{step - 1}"
                wait_for(store, request["previous_response_id"], scope)
            restored = store.restore(request, scope=scope)
            response_id = f"chain-{chain}-{step}"
            store.record(restored.value, reply(f"chain {chain} turn {step} answered by worker {worker}", response_id), scope=scope)
    store.close()
    print(json.dumps({"races": results}))


if __name__ == "__main__":
    main(sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5]), sys.argv[6])
