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
from lucent._context import read_by
from bench import baselines, workloads
from bench.__main__ import CONTEXT, RESULTS, SMALL_REQUEST
from bench.harness import Case, measure


def _decode(name: str, size: str) -> tuple[bytes, Callable[[], Any]]:
    schema, definition = workloads.DOCUMENTS[name]
    body = workloads.document(name, size)
    return body, lambda: lucent.decode(body, schema, definition)


def _convert(source: str, target: str, size: str) -> tuple[bytes, Callable[[], Any]]:
    body = workloads.document(source, size)
    context = read_by(CONTEXT, source, target)  # only the keys this conversion reads: lucent refuses any other
    return body, lambda: lucent.encode(lucent.convert(body, source=source, target=target, kind="request", context=context).value)


def _litellm_small() -> tuple[bytes, Callable[[], Any]]:
    body = SMALL_REQUEST  # what the LiteLLM case converts, as it converts it (no context)
    return body, lambda: lucent.encode(lucent.convert(body, source="openai-chat", target="anthropic").value)


CASES: dict[str, tuple[str, Callable[[], tuple[bytes, Callable[[], Any]]]]] = {
    "decode-openai-chat-1KB": ("decode openai-chat <= 1.3x orjson.loads (worst size)", lambda: _decode("openai-chat", "1KB")),
    "decode-anthropic-1KB": ("decode anthropic <= 1.3x orjson.loads (worst size)", lambda: _decode("anthropic", "1KB")),
    "decode-openai-responses-1KB": ("decode openai-responses <= 1.3x orjson.loads (worst size)", lambda: _decode("openai-responses", "1KB")),
    "decode-gemini-1KB": ("decode gemini <= 1.3x orjson.loads (worst size)", lambda: _decode("gemini", "1KB")),
    "decode-sparktide-1KB": ("decode sparktide <= 2x orjson.loads (worst size)", lambda: _decode("sparktide", "1KB")),
    "decode-sparktide-1MB": ("decode >= 10x faster than pydantic (least case)", lambda: _decode("sparktide", "1MB")),
    "decode-diagnostics-1MB": ("decode >= 100x faster than jsonschema (least case)", lambda: _decode("diagnostics", "1MB")),
    "convert-openai-responses-anthropic-1KB": ("conversion <= 3x orjson.loads+dumps (worst pair)", lambda: _convert("openai-responses", "anthropic", "1KB")),
    "convert-openai-chat-anthropic-13KB": ("lucent >= 15x faster than LiteLLM (13 KB request)", lambda: _convert("openai-chat", "anthropic", "13KB")),
    "convert-openai-chat-anthropic-small": ("lucent >= 100x faster than LiteLLM (small request)", _litellm_small),
}
"""Profile name -> (the missed target it explains, the case: its document and the call profiled);
each is the case the full run names for that target (bench/results/targets.md)."""


def _baselines(name: str, body: bytes) -> dict[str, Callable[[], Any]]:
    """The baseline a target is stated against, where it is not orjson (timed in the same rounds)."""
    if name == "decode-sparktide-1MB":
        validate = baselines.pydantic_validate("sparktide-remote-1.0", "RemoteModelRequest")
        return {"pydantic": lambda: validate(body)}
    if name == "decode-diagnostics-1MB":
        validator = baselines.jsonschema_validator("lucent-diagnostics-v1", "ConversionResult")
        return {"jsonschema": lambda: validator.is_valid(json.loads(body))}
    if name.startswith("convert-openai-chat-anthropic"):
        return {"litellm": lambda t=baselines.litellm_anthropic(): t(body)}
    return {}


def profile(name: str, seconds: float) -> str:
    from pyinstrument import Profiler

    target, make = CASES[name]
    body, call = make()
    floor = (lambda: orjson.dumps(orjson.loads(body))) if name.startswith("convert") else (lambda: orjson.loads(body))
    functions = {"lucent": call, "orjson": floor, **_baselines(name, body)}
    case = measure(Case(name, len(body), functions, budget=1.0), rounds=50, min_time=0.002)
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
        f"# {name} (for the target: {target}): {len(body):,} bytes; one call = {case.ratio('lucent', 'orjson'):.2f}x {what} "
        f"({case.per_call('lucent') * 1e6:.1f} us against {case.per_call('orjson') * 1e6:.1f} us, CPU time, "
        f"median of {len(case.samples['lucent'])} interleaved rounds); {calls:,} calls profiled\n"
    )
    for other in functions.keys() - {"lucent", "orjson"}:
        head += f"# {other} on the same document: {case.ratio(other, 'orjson'):.2f}x {what}, {case.ratio(other, 'lucent'):.2f}x lucent\n"
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
