"""First use from many threads, and forks (issue 14, classes 1 and 2; lucent._first_use).

msgspec 0.22 publishes a Struct type's state before it has built it, and a thread that converts
through the type meanwhile crashes the process (NOTES.md, "msgspec's first use"): on 87b5198
the ``threads`` workload below crashed 8 of 24 fresh processes (SIGSEGV). A fork while a
thread imported a converter on first use hung the child in each of the four trials below
(``fork`` workload, delays 0 to 50 ms). Each workload runs in a fresh interpreter (tests/first_use_probe.py),
since first use happens once per process.
"""

from __future__ import annotations

import json
import subprocess
import sys
import threading
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest

import lucent
from lucent import _first_use
from lucent.errors import UsageError

_ROOT = Path(__file__).resolve().parents[1]
_PROCESSES = 24


def _probe(*args: str, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "tests.first_use_probe", *args], capture_output=True, text=True, cwd=_ROOT, timeout=timeout)


def _report(done: subprocess.CompletedProcess[str]) -> dict[str, Any]:
    assert done.returncode == 0, (done.returncode, done.stderr[-2000:])
    found: dict[str, Any] = json.loads(done.stdout.splitlines()[-1])
    return found


def test_eight_threads_using_three_formats_for_the_first_time_at_once_never_crash() -> None:
    # 8 threads x 3 formats x (decode, convert, convert_stream), at sys.setswitchinterval(1e-5),
    # in 24 fresh processes, two at a time (2 cores)
    with ThreadPoolExecutor(2) as pool:
        runs = list(pool.map(lambda _: _probe("threads"), range(_PROCESSES)))
    crashed = [done.returncode for done in runs if done.returncode != 0]
    assert crashed == []  # -11 is SIGSEGV
    for done in runs:
        found = _report(done)
        assert found == {"calls": 72, "differ": [], "unexpected": []}  # every answer as one thread gives it


@pytest.mark.parametrize("delay", [0.0, 0.005, 0.02, 0.05])
def test_a_fork_while_a_thread_imports_on_first_use_does_not_hang_the_child(delay: float) -> None:
    found = _report(_probe("fork", str(delay)))
    assert found == {"hung": False, "exitcode": 0, "same": True}


def test_after_warm_up_forked_pool_workers_import_nothing_and_convert_alike() -> None:
    found = _report(_probe("pool"))
    assert found == {"imported": [], "same": True, "answers": 8}


def test_after_warm_up_no_call_of_any_format_imports_a_module() -> None:
    found = _report(_probe("warm"))
    assert found["imported"] == [] and found["unexpected"] == []
    assert found["answers"] == 90


def test_no_module_body_takes_the_first_use_lock() -> None:
    # A thread holds the lock while every lucent module is imported: a module whose body took it
    # would hang here (and could deadlock a thread that imports under the lock).
    script = """
import importlib, pkgutil, threading
import lucent._first_use as first_use
held = threading.Event()
def hold():
    first_use.LOCK.acquire()
    held.set()
    threading.Event().wait()
threading.Thread(target=hold, daemon=True).start()
held.wait()
import lucent, lucent.generated
# lucent.__path__[0] only: from a source checkout the package path also holds the checkout root
# (for lucent.generated), whose noxfile.py is no lucent module
names = [m.name for m in pkgutil.iter_modules(lucent.__path__[:1], "lucent.") if m.name != "lucent.__main__"]
names += [m.name for m in pkgutil.iter_modules(lucent.generated.__path__, "lucent.generated.") if not m.name.endswith("_strategies")]
for name in names:
    importlib.import_module(name)
print(len(names))
"""
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, cwd=_ROOT, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    assert int(done.stdout) > 60  # every module of lucent and lucent.generated


def test_once_builds_one_value_per_arguments_under_many_threads() -> None:
    built: list[int] = []
    start = threading.Barrier(8)

    @_first_use.once
    def square(n: int) -> int:
        built.append(n)
        threading.Event().wait(0.01)  # another thread would get in here without the lock
        return n * n

    def call() -> None:
        start.wait()
        assert square(3) == 9

    workers = [threading.Thread(target=call) for _ in range(8)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()
    assert built == [3] and square(4) == 16 and built == [3, 4]


def test_once_keeps_no_exception() -> None:
    calls: list[int] = []

    @_first_use.once
    def flaky(n: int) -> int:
        calls.append(n)
        if len(calls) == 1:
            raise UsageError("first call fails", code="invalid_input_type")
        return n

    with pytest.raises(UsageError):
        flaky(1)
    assert flaky(1) == 1 and flaky(1) == 1 and calls == [1, 1]


def test_warm_up_returns_the_formats_it_warmed_lux_always() -> None:
    assert lucent.warm_up(["anthropic"]) == ("lux", "anthropic")
    assert lucent.warm_up(("gemini", "sparktide", "gemini")) == ("lux", "sparktide", "gemini")
    assert lucent.warm_up([]) == ("lux",)
    assert lucent.warm_up() == ("lux", "sparktide", "llm-sdk", "htmlp", "openai-chat", "openai-responses", "anthropic", "gemini")


@pytest.mark.parametrize(
    ("formats", "code"),
    [
        (["anthropic", "claude"], "unknown_format"),
        (["lux-ir-v1"], "unknown_format"),  # a schema name, not a format
        ("anthropic", "invalid_input_type"),  # one str, not a collection of them
        (b"lux", "invalid_input_type"),
        (5, "invalid_input_type"),
        ([None], "invalid_input_type"),
        ([["lux"]], "invalid_input_type"),
    ],
)
def test_warm_up_refuses_what_is_not_a_collection_of_format_names(formats: Any, code: str) -> None:
    with pytest.raises(UsageError) as caught:
        lucent.warm_up(formats)
    assert caught.value.code == code and caught.value.path == "$"
    assert "claude" not in caught.value.message  # the name is not echoed
