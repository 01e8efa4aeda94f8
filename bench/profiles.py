"""``python -m bench.profiles``: pyinstrument profiles of the cases whose targets are missed.

Issue 6: where a target is missed, the profile shows why. Each profile runs one case of
``python -m bench`` (the same workload and call) in a loop for about ``--seconds`` and writes
the call tree, as text, to ``bench/results/profiles/<case>.txt``, headed by the time of one
call against ``orjson`` on the same document (measured in the same process, interleaved), so
that a profile reads as a share of the target's budget.
"""

from __future__ import annotations

import argparse
import json
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import orjson

import lucent
from bench import workloads
from bench.__main__ import CONTEXT, RESULTS
from bench.harness import Case, measure


def _decode(name: str, size: str) -> tuple[bytes, Callable[[], Any]]:
    schema, definition = workloads.DOCUMENTS[name]
    body = workloads.document(name, size)
    return body, lambda: lucent.decode(body, schema, definition)


def _convert(source: str, target: str, size: str) -> tuple[bytes, Callable[[], Any]]:
    body = workloads.document(source, size)
    return body, lambda: lucent.encode(lucent.convert(body, source=source, target=target, kind="request", context=CONTEXT).value)


CASES: dict[str, Callable[[], tuple[bytes, Callable[[], Any]]]] = {
    "decode-sparktide-20KB": lambda: _decode("sparktide", "20KB"),
    "decode-openai-responses-1KB": lambda: _decode("openai-responses", "1KB"),
    "decode-anthropic-1KB": lambda: _decode("anthropic", "1KB"),
    "decode-gemini-1KB": lambda: _decode("gemini", "1KB"),
    "decode-diagnostics-20KB": lambda: _decode("diagnostics", "20KB"),
    "convert-openai-chat-anthropic-13KB": lambda: _convert("openai-chat", "anthropic", "13KB"),
    "convert-openai-responses-anthropic-1KB": lambda: _convert("openai-responses", "anthropic", "1KB"),
    "convert-lux-openai-chat-20KB": lambda: _convert("lux", "openai-chat", "20KB"),
}
"""Profile name -> (the document, the call profiled): the worst case of each missed target."""


def profile(name: str, seconds: float) -> str:
    from pyinstrument import Profiler

    body, call = CASES[name]()
    floor = (lambda: orjson.dumps(orjson.loads(body))) if name.startswith("convert") else (lambda: orjson.loads(body))
    case = measure(Case(name, len(body), {"lucent": call, "orjson": floor}, budget=1.0), rounds=50, min_time=0.002)
    calls = 0
    profiler = Profiler(interval=0.0001)
    profiler.start()
    started = time.perf_counter()
    while time.perf_counter() - started < seconds:
        call()
        calls += 1
    profiler.stop()
    what = "orjson.loads + orjson.dumps" if name.startswith("convert") else "orjson.loads"
    head = (
        f"# {name}: {len(body):,} bytes; one call = {case.ratio('lucent', 'orjson'):.2f}x {what} "
        f"({case.per_call('lucent') * 1e6:.1f} us against {case.per_call('orjson') * 1e6:.1f} us, CPU time, "
        f"median of {len(case.samples['lucent'])} interleaved rounds); {calls:,} calls profiled\n"
    )
    return head + profiler.output_text(unicode=False, color=False, show_all=False)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("names", nargs="*", help=f"profiles to make (default: all): {', '.join(CASES)}")
    parser.add_argument("--seconds", type=float, default=3.0, help="time each profile runs its case")
    parser.add_argument("--out", type=Path, default=RESULTS / "profiles")
    args = parser.parse_args(argv)
    unknown = sorted(set(args.names) - set(CASES))
    if unknown:
        parser.error(f"unknown profile {', '.join(unknown)}; known: {', '.join(CASES)}")
    args.out.mkdir(parents=True, exist_ok=True)
    index = {}
    for name in args.names or CASES:
        text = profile(name, args.seconds)
        (args.out / f"{name}.txt").write_text(text)
        index[name] = text.splitlines()[0]
        print(index[name], flush=True)
    (args.out / "index.json").write_text(json.dumps(index, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
