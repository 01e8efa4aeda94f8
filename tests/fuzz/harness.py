"""Running inputs through the targets: only lucent errors, nothing slow, nothing lost.

:class:`Harness` runs one input on one target and records

* a **crash**: any exception that is not a :class:`lucent.errors.LucentError` (RecursionError and
  MemoryError included), kept once per (target family, exception type, raising line) with the
  first input that raised it;
* a **loss**: a ``convert`` target that accepted its input but lost a value without a
  diagnostic (``tests.conservation.lost_values``, checked with the output converted back, as
  ``tests.convert_conformance`` checks its inputs);
* the **slowest inputs** of each target, by time over the time the target's seeds predict for
  that size; :meth:`Harness.hang_ratios` measures each again against a valid document of the
  same size (:mod:`tests.fuzz.timing`).
"""

from __future__ import annotations

import hashlib
import heapq
import json
import time
import traceback
from collections import Counter
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any

import msgspec

import lucent
from lucent._context import read_by
from lucent.errors import LucentError
from tests.conservation import lost_values

from .sidecars import is_spelling
from .targets import CONTEXT, Target, targets

__all__ = ["Crash", "Harness"]

KEEP_SLOWEST = 4
"""How many of the slowest inputs each target keeps for the hang check."""


@dataclass
class Crash:
    """One distinct crash (or loss) and the first input that showed it."""

    target: str
    kind: str  # "exception" or "lost"
    signature: str
    detail: str
    data: bytes
    count: int = 1

    def save(self, folder: Path) -> Path:
        """Write the input as ``<folder>/<kind>-<sha1>.bin`` (the target name is in the log)."""
        folder.mkdir(parents=True, exist_ok=True)
        path = folder / f"{self.kind}-{hashlib.sha1(self.data).hexdigest()[:16]}.bin"
        path.write_bytes(self.data)
        return path


@dataclass
class Harness:
    """Runs inputs and keeps the findings; ``executions`` counts every run."""

    conservation: bool = True
    executions: int = 0
    by_family: Counter[str] = field(default_factory=Counter)
    accepted: Counter[str] = field(default_factory=Counter)
    crashes: dict[tuple[str, str], Crash] = field(default_factory=dict)
    slowest: dict[str, list[tuple[float, int, bytes]]] = field(default_factory=dict)
    _cost: dict[str, tuple[float, float]] = field(default_factory=dict)
    _conserved: set[bytes] = field(default_factory=set)

    def run(self, target: Target, data: bytes) -> Any:
        """Run ``data`` on ``target``; returns lucent's result, or None when it refused."""
        self.executions += 1
        self.by_family[target.family] += 1
        start = time.perf_counter()
        try:
            result = target.run(data)
        except LucentError:
            result = None
        except Exception as exc:  # noqa: BLE001 - a crash is what we look for
            self._crash(target, "exception", exc, data)
            return None
        elapsed = time.perf_counter() - start
        self._time(target, data, elapsed)
        if result is not None:
            self.accepted[target.family] += 1
            if self.conservation and target.family == "convert":
                self._conserve(target, data, result)
        return result

    # ------------------------------------------------------------------ crashes

    def _crash(self, target: Target, kind: str, exc: BaseException, data: bytes) -> None:
        frames = traceback.extract_tb(exc.__traceback__)
        where = f"{Path(frames[-1].filename).name}:{frames[-1].lineno}" if frames else "?"
        signature = f"{type(exc).__name__} at {where}"
        self._record(target, kind, signature, "".join(traceback.format_exception(exc, limit=-6)), data)

    def _record(self, target: Target, kind: str, signature: str, detail: str, data: bytes) -> None:
        key = (target.family, signature)
        found = self.crashes.get(key)
        if found is None:
            self.crashes[key] = Crash(target.name, kind, signature, detail, data)
        else:
            found.count += 1
            if len(data) < len(found.data):  # keep the smallest input that shows it
                found.data, found.target = data, target.name

    # ------------------------------------------------------------------ conservation

    def _conserve(self, target: Target, data: bytes, result: Any) -> None:
        _, source, destination, kind = target.name.split(":")
        key = target.name.encode() + b"\0" + data
        if source == destination or key in self._conserved:
            return
        self._conserved.add(key)
        try:
            doc = json.loads(data)
            out = msgspec.to_builtins(result.value)
            try:
                # the Struct itself: an output that breaks the target schema would not decode
                back_result = lucent.convert(result.value, destination, source, kind, context=read_by(CONTEXT, destination, source, kind))
                back: Any = msgspec.to_builtins(back_result.value)
            except LucentError:
                back = None
            spelled = partial(is_spelling, kind) if source == "lux" else None
            lost = lost_values(doc, out, result.diagnostics, back, spelled) if back is not None else lost_values(doc, out, result.diagnostics, spelling=spelled)
        except Exception as exc:  # noqa: BLE001 - the check itself failed: a fault of the test code
            self._crash(target, "checker", exc, data)
            return
        if lost:
            path, value = lost[0]
            shape = "".join("[]" if part.isdigit() else part for part in path.replace("[", " ").replace("]", " ").split())
            self._record(target, "lost", f"lost {shape}", f"{path} = {json.dumps(value)[:80]}: in no output value, named by no diagnostic", data)

    # ------------------------------------------------------------------ time

    def calibrate(self, target: Target, valid: list[bytes]) -> None:
        """Fit the target's cost, seconds = a + b * bytes, from its valid seeds."""
        points = []
        for data in valid:
            start = time.perf_counter()
            try:
                target.run(data)
            except Exception:  # noqa: BLE001 - the run itself records crashes
                continue
            points.append((len(data), time.perf_counter() - start))
        if not points:
            self._cost[target.name] = (1e-5, 1e-8)
            return
        small = min(points)
        large = max(points)
        per_byte = (large[1] - small[1]) / (large[0] - small[0]) if large[0] > small[0] else small[1] / max(small[0], 1)
        self._cost[target.name] = (max(small[1], 1e-6), max(per_byte, 1e-9))

    def _time(self, target: Target, data: bytes, elapsed: float) -> None:
        a, b = self._cost.get(target.name, (1e-5, 1e-8))
        score = elapsed / (a + b * len(data))
        heap = self.slowest.setdefault(target.name, [])
        item = (score, self.executions, data)
        if len(heap) < KEEP_SLOWEST:
            heapq.heappush(heap, item)
        elif score > heap[0][0]:
            heapq.heapreplace(heap, item)

    def suspects(self) -> list[tuple[Target, bytes]]:
        """The slowest inputs kept, with their target."""
        by_name = {t.name: t for t in targets()}
        return [(by_name[name], data) for name, heap in self.slowest.items() for _, _, data in heap]
