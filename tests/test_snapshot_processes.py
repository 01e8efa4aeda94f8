"""Two processes recording and restoring at once on the same SQLite file and the same Redis
server lose nothing: every turn of chains the two take in turns is restored, in order, and each
id both record is won by exactly one of them, whose snapshot is the one stored."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

import lucent
from lucent.snapshots import SnapshotStore

ROOT = Path(__file__).resolve().parents[1]
CHAINS, TURNS, RACES = 12, 6, 40


@pytest.mark.parametrize("backend", ["sqlite", "redis"])
def test_two_processes_on_one_store_lose_nothing(backend: str, tmp_path: Path, request: pytest.FixtureRequest) -> None:
    url = f"sqlite:{tmp_path / 'shared.db'}" if backend == "sqlite" else request.getfixturevalue("redis_db")
    SnapshotStore(url).close()  # the table exists before the race
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    workers = [
        subprocess.Popen([sys.executable, "-m", "tests.snapshot_worker", url, str(n), str(CHAINS), str(TURNS), str(RACES), str(tmp_path)],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=ROOT, env=env, text=True)
        for n in (0, 1)
    ]
    deadline = time.monotonic() + 60
    while not all((tmp_path / f"ready-{n}").exists() for n in (0, 1)):
        assert time.monotonic() < deadline and all(w.poll() is None for w in workers), [w.communicate() for w in workers]
        time.sleep(0.01)
    (tmp_path / "go").touch()
    outputs = [worker.communicate(timeout=300) for worker in workers]
    assert [worker.returncode for worker in workers] == [0, 0], outputs
    races = [json.loads(out)["races"] for out, _err in outputs]

    store = SnapshotStore(url)
    for race in range(RACES):
        outcomes = sorted(races[n][str(race)] for n in (0, 1))
        assert outcomes == ["snapshot_conflict", "won"], (race, outcomes)
        winner = next(n for n in (0, 1) if races[n][str(race)] == "won")
        assert store.get(f"race-{race}", scope="shared").response_text == f"worker {winner}"
    for chain in range(CHAINS):
        last = store.get(f"chain-{chain}-{TURNS - 1}", scope=f"tenant-{chain % 3}")
        texts = [block["text"] for item in json.loads(lucent.encode(last.request))["conversation"] for block in item["message"]["content"]]
        assert texts == [text for step in range(TURNS) for text in (
            f"chain {chain} turn {step} asks", f"chain {chain} turn {step} answered by worker {step % 2}")]
    store.close()
