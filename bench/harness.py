"""Interleaved timing: lucent and its baselines in one process, round by round, as ratios.

A :class:`Case` is one workload (a document, a stream) and the functions that process it: the
lucent one and each baseline. :func:`measure` calibrates a loop count per function (so that one
sample takes at least ``min_time``), then runs ``rounds`` rounds; in each round every function
is timed once, in an order that rotates from round to round, so that a change of machine load
hits all of them alike. Times are the thread's CPU time, so a moment the process waits for
the CPU (the machine is shared) is not counted. Samples are short (a few ms) and rounds many (as many as the case's time
budget allows). The figure reported is the median, over rounds, of the ratio of two functions'
times in the same round (:meth:`Case.ratio`); absolute times are kept only as pyperf benchmarks
(``bench/results/pyperf.json``: ``python -m pyperf stats`` / ``compare_to`` read it).
"""

from __future__ import annotations

import gc
import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import pyperf


@dataclass
class Case:
    """One workload: ``name`` (``decode/lux/20KB``), its size and the functions to time."""

    name: str
    size: int  # bytes of the input (or frames, for a stream)
    functions: dict[str, Callable[[], Any]]
    budget: float = 2.0  # seconds this case may take, all rounds together (at least 3 rounds)
    samples: dict[str, list[float]] = field(default_factory=dict)  # seconds per call, per round

    def ratio(self, numerator: str, denominator: str) -> float:
        """Median over rounds of time(numerator) / time(denominator) in the same round."""
        pairs = zip(self.samples[numerator], self.samples[denominator])
        return statistics.median(a / b for a, b in pairs)

    def best_ratio(self, numerator: str, denominator: str) -> float:
        """The ratio of the two functions' least samples (a check on :meth:`ratio`)."""
        return min(self.samples[numerator]) / min(self.samples[denominator])

    def per_call(self, name: str) -> float:
        """Median CPU seconds per call of one function (for the plot's throughput)."""
        return statistics.median(self.samples[name])


def _timed(function: Callable[[], Any], loops: int) -> float:
    """CPU seconds this thread spent on ``loops`` calls (``time.thread_time``): time the process
    waits while other work on the machine runs is not counted, as wall time would."""
    start = time.thread_time()
    for _ in range(loops):
        function()
    return time.thread_time() - start


def _loops(function: Callable[[], Any], min_time: float) -> int:
    """Calls per sample so that a sample takes at least ``min_time`` seconds."""
    loops = 1
    while True:
        elapsed = _timed(function, loops)
        if elapsed >= min_time or loops >= 1 << 20:
            return loops
        loops = max(loops * 2, int(loops * min_time / max(elapsed, 1e-9) * 1.2))


def measure(case: Case, *, rounds: int, min_time: float) -> Case:
    """Fill ``case.samples``: ``rounds`` interleaved rounds (fewer if the budget runs out, never
    under 3), each function ``loops`` calls per round; GC is collected before and paused during
    each sample, as in ``timeit``."""
    names = list(case.functions)
    for name in names:
        case.functions[name]()  # warm up: imports, caches, first-use costs
    loops = {name: _loops(case.functions[name], min_time) for name in names}
    case.samples = {name: [] for name in names}
    started = time.thread_time()
    for r in range(rounds):
        order = names[r % len(names):] + names[:r % len(names)]
        for name in order:
            gc.collect()
            gc.disable()
            try:
                elapsed = _timed(case.functions[name], loops[name])
            finally:
                gc.enable()
            case.samples[name].append(elapsed / loops[name])
        if r >= 2 and time.thread_time() - started > case.budget:
            break
    return case


def pyperf_suite(cases: list[Case]) -> pyperf.BenchmarkSuite:
    """Every function of every case as a pyperf benchmark (``case/function``), one run each,
    its values the per-call seconds of the rounds."""
    import pyperf  # the bench extra; the smoke test runs without it

    benchmarks = []
    for case in cases:
        for name, values in case.samples.items():
            run = pyperf.Run(values, metadata={"name": f"{case.name}/{name}", "loops": 1, "unit": "second"}, collect_metadata=False)
            benchmarks.append(pyperf.Benchmark([run]))
    return pyperf.BenchmarkSuite(benchmarks)
