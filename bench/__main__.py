"""``python -m bench [--quick] [--only GROUP...]``: the benchmark suite (issue 6); ``nox -s bench``.

Every figure is a ratio of times measured in the same process, in interleaved rounds
(:mod:`bench.harness`): lucent against ``orjson.loads``, ``json.loads``, jsonschema and pydantic
(decoding); against ``orjson.loads`` + ``orjson.dumps`` (conversion, bytes to bytes); against
LiteLLM (Chat Completions -> Anthropic); a stream against ten times its frames (linearity).
Import time is the one absolute figure (the target is stated in ms), from interleaved runs of
fresh interpreters.

Writes ``bench/results/results.json`` (every case, ratio and target), ``bench/results/pyperf.json``
(per-call times as pyperf benchmarks) and ``bench/results/throughput.png``, and prints each target
with its measured figure. ``--quick`` (a few minutes) times fewer rounds, skips the 1 MB
jsonschema and pydantic runs and stops streams at 10,000 frames; exit status 1 when a target is
missed in a full run (0 with ``--quick``: its figures are indicative).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from importlib import metadata
from pathlib import Path
from typing import Any


import lucent
from lucent._context import read_by
from bench import baselines, workloads
from bench.harness import Case, measure, pyperf_suite
from lucent import streams
from lucent._limits import DEFAULT_MAX_DEPTH
from lucent.errors import UsageError
from lucent._convert import _check_target, _decode_source
from lucent._decode import _prescan, _prescan_python
from lucent.generated.convert_registry import CONVERTERS, DOCUMENTS

RESULTS = Path(__file__).resolve().parent / "results"
GROUPS = ("import", "decode", "convert", "streams", "litellm")

SEED_DECODE = ("lux", "llm-sdk", "htmlp", "diagnostics")
VENDOR_DECODE = ("openai-chat", "anthropic", "openai-responses", "gemini")
PYDANTIC_CLASS = {"htmlp": "ModelRequest"}  # datamodel-code-generator names the htmlp root after its title

CONTEXT: dict[str, Any] = {**workloads.SPARKTIDE_CONTEXT, "id": "resp_bench", "created_at": 1893456000}
"""What any pair's target needs and its source does not carry (unused keys are ignored)."""


# --- decoding ---------------------------------------------------------------------------

def decode_cases(quick: bool) -> list[Case]:
    import orjson  # the bench extra; the bars' logic (litellm_bars, targets) runs without it

    cases = []
    for name, (schema, definition) in workloads.DOCUMENTS.items():
        for size in workloads.SIZES:
            body = workloads.document(name, size)
            functions: dict[str, Callable[[], Any]] = {
                "lucent": lambda b=body, s=schema, d=definition: lucent.decode(b, s, d),
                "orjson": lambda b=body: orjson.loads(b),
                "json": lambda b=body: json.loads(b),
                # the profile of lucent.decode: msgspec's parse into the generated types alone
                # (no size, depth or UTF-8 check, no protocol rule), and the depth and UTF-8
                # check alone (lucent._prescan, and the same check in Python where it is not built)
                "typed-parse": lambda b=body, parse=baselines.typed_parse(schema, definition): parse(b),
                "prescan-python": lambda b=body: _prescan_python(b, DEFAULT_MAX_DEPTH, True),
            }
            if _prescan is not None:
                functions["prescan"] = lambda b=body, check=_prescan: check(b, DEFAULT_MAX_DEPTH, True)
            if name == "sparktide":  # the protocol rules' share
                functions["lucent-schema-only"] = lambda b=body, s=schema, d=definition: lucent.decode(b, s, d, rules="schema")
            if not (quick and size == "1MB"):
                validate = baselines.pydantic_validate(schema, PYDANTIC_CLASS.get(name, definition or ""))
                validator = baselines.jsonschema_validator(schema, definition)
                functions["pydantic"] = lambda b=body, v=validate: v(b)
                functions["jsonschema"] = lambda b=body, v=validator: v.is_valid(json.loads(b))
            cases.append(Case(f"decode/{name}/{size}", len(body), functions, budget=0.5 if quick else 2.0))
    return cases


# --- conversion -------------------------------------------------------------------------

def _formats(kind: str) -> list[str]:
    return sorted({f for (f, k) in DOCUMENTS if k == kind})


def convertible(source: str, target: str, kind: str) -> bool:
    """A converter exists: direct, or composed through Lux."""
    return (source, target, kind) in CONVERTERS or ((source, "lux", kind) in CONVERTERS and ("lux", target, kind) in CONVERTERS)


def _response(fmt: str) -> bytes | None:
    """A realistic response of ``fmt``: the one its stream workload assembles into."""
    if fmt not in streams.FORMATS:
        return None
    return lucent.encode(streams.assemble(workloads.stream_sse(fmt, 2_000), fmt))


def convert_cases(quick: bool) -> list[Case]:
    import orjson  # the bench extra; the bars' logic (litellm_bars, targets) runs without it

    cases = []
    sizes = ("1KB", "20KB") if quick else tuple(workloads.SIZES)
    for kind in ("request", "response"):
        for source in _formats(kind):
            for target in _formats(kind):
                if source == target or not convertible(source, target, kind):
                    continue
                if kind == "request":
                    if source not in workloads.DOCUMENTS:
                        continue
                    bodies = [(size, workloads.document(source, size)) for size in sizes]
                else:
                    response = _response(source)
                    bodies = [] if response is None else [(f"{len(response) // 1000}KB", response)]
                for size, body in bodies:
                    def run(b: bytes = body, s: str = source, t: str = target, k: str = kind, c: dict[str, Any] = read_by(CONTEXT, source, target, kind)) -> bytes:
                        return lucent.encode(lucent.convert(b, source=s, target=t, kind=k, context=c).value)

                    functions = {"lucent": run, "orjson": lambda b=body: orjson.dumps(orjson.loads(b)), "ends": _ends(body, source, target, kind)}
                    cases.append(Case(f"convert/{kind}/{source}->{target}/{size}", len(body), functions, budget=0.5 if quick else 1.5))
    return cases


def _ends(body: bytes, source: str, target: str, kind: str) -> Callable[[], Any]:
    """What a conversion costs before any converter runs: decoding and checking the source
    (``_decode_source``), and writing and checking the target document the conversion gives
    (``_check_target``), with no conversion between them. A conversion that validates both ends
    costs at least this."""
    value = lucent.convert(body, source=source, target=target, kind=kind, context=read_by(CONTEXT, source, target, kind)).value
    (s_schema, s_definition), (t_schema, t_definition) = DOCUMENTS[source, kind], DOCUMENTS[target, kind]

    def ends() -> Any:
        _decode_source(body, s_schema, s_definition)
        return _check_target(value, t_schema, t_definition)

    return ends


# --- streams ----------------------------------------------------------------------------

def stream_cases(quick: bool) -> list[Case]:
    """One case per (format, operation): every frame count in it, so that the ratio for 10x the
    frames is measured in the same rounds."""
    import orjson  # the bench extra; the bars' logic (litellm_bars, targets) runs without it

    largest = 10_000 if quick else 100_000
    cases = []
    for fmt in (*streams.FORMATS, "openai-chat+logprobs"):  # +logprobs: every chunk has its token's
        counts = [n for n in (10, 100, 1_000, 10_000, 100_000) if n <= largest]
        if fmt == "sparktide":  # a SparkTide stream is at most 4 MiB: about 60,000 small frames
            counts = [n for n in counts if n <= 10_000] + ([50_000] if largest >= 50_000 else [])
        bodies = {n: workloads.stream_sse(fmt, n) for n in counts}
        assemble: dict[str, Callable[[], Any]] = {}
        source = fmt.split("+")[0]
        for n, body in bodies.items():
            assemble[f"assemble@{n}"] = lambda b=body, f=source: streams.assemble(b, f)
            # the floor: split the SSE bytes into events and parse each event's JSON
            assemble[f"orjson@{n}"] = lambda b=body: [orjson.loads(e[6:]) for e in b.split(b"\n\n") if e and e != b"data: [DONE]"]
        # a full run's round takes about a second (100,000 frames): 10 s gives ~10 rounds a case
        cases.append(Case(f"streams/{fmt}/assemble", max(bodies), assemble, budget=2.0 if quick else 10.0))
        for target in streams.FORMATS:
            if target == source or source != fmt:
                continue
            run = {f"convert@{n}": lambda b=body, f=fmt, t=target, c=read_by({"id": "r", "model": "m"}, fmt, target, "stream"): sum(1 for _ in streams.convert_stream(b, f, t, context=c))
                   for n, body in bodies.items()}
            cases.append(Case(f"streams/{fmt}->{target}/convert", max(bodies), run, budget=2.0 if quick else 10.0))
    return cases


# --- LiteLLM ----------------------------------------------------------------------------

SMALL_REQUEST = json.dumps({
    "model": "gpt-4o", "messages": [{"role": "system", "content": "Brief."}, {"role": "user", "content": "What's the capital of France?"}],
    "max_tokens": 256, "temperature": 0.2,
}, separators=(",", ":")).encode()
"""A small Chat Completions request (161 bytes, as in the issue)."""


def lucent_openai_to_anthropic() -> Callable[[bytes], bytes] | None:
    """lucent's openai-chat -> anthropic request conversion, when this build has it."""
    try:
        lucent.convert(SMALL_REQUEST, source="openai-chat", target="anthropic")
    except UsageError as exc:
        print(f"  lucent openai-chat -> anthropic: not available in this build ({exc.code}: {exc})")
        return None
    return lambda b: lucent.encode(lucent.convert(b, source="openai-chat", target="anthropic").value)


def litellm_cases(quick: bool) -> list[Case]:
    import orjson  # the bench extra; the bars' logic (litellm_bars, targets) runs without it

    translate = baselines.litellm_anthropic()
    ours = lucent_openai_to_anthropic()
    cases = []
    for label, body in (("small", SMALL_REQUEST), ("13KB", workloads.document("openai-chat", "13KB"))):
        functions: dict[str, Callable[[], Any]] = {
            "litellm": lambda b=body: translate(b),
            "orjson": lambda b=body: orjson.dumps(orjson.loads(b)),
        }
        if ours is not None:
            functions["lucent"] = lambda b=body: ours(b)
            functions["ends"] = _ends(body, "openai-chat", "anthropic", "request")
        # 6 s: each sample is preceded by a collection of a heap that holds LiteLLM (0.2 s on the 2-core machine),
        # so 2 s gave 3 rounds; the issue 16 bars are read from these rounds' median
        cases.append(Case(f"litellm/{label}", len(body), functions, budget=0.5 if quick else 6.0))
    return cases


ISSUE_16_BARS = (("13KB", 4), ("small", 10))
"""Issue 16 §6: lucent's openai-chat -> anthropic (decoding and checking both ends) at least this
many times faster than LiteLLM's translation, on the 13 KB conversation and the small request,
the two measured in one run (the same ``litellm/<label>`` cases as the issue 6 targets)."""


def calls_per_conversion(body: bytes) -> int:
    """How many calls (Python functions and builtins, as cProfile counts them) one lucent
    openai-chat -> anthropic conversion of `body` makes, encoding included: its fixed cost."""
    import cProfile
    import pstats

    run = lambda: lucent.encode(lucent.convert(body, source="openai-chat", target="anthropic").value)  # noqa: E731
    run()
    profiler = cProfile.Profile()
    profiler.runcall(run)
    return sum(entry[1] for entry in pstats.Stats(profiler).stats.values()) - 1  # runcall's own call


def litellm_bars(cases: dict[str, Case]) -> list[dict[str, Any]]:
    """The issue 16 bars: the ratio LiteLLM / lucent on each LiteLLM case of this run, whether
    it holds, and what bounds it (the ratio with lucent's two ends alone, the calls one
    conversion makes)."""
    out = []
    for label, limit in ISSUE_16_BARS:
        case = cases.get(f"litellm/{label}")
        if case is None or "lucent" not in case.samples:
            continue
        body = SMALL_REQUEST if label == "small" else workloads.document("openai-chat", "13KB")
        out.append(_target(
            f"issue 16: lucent >= {limit}x faster than LiteLLM ({label} request, openai-chat -> anthropic)", case.ratio("litellm", "lucent"), limit, False, "x faster",
            f"median of {len(case.samples['lucent'])} interleaved rounds (best samples: {case.best_ratio('litellm', 'lucent'):.2f}x); "
            f"lucent {case.per_call('lucent') * 1e6:.0f} us, LiteLLM {case.per_call('litellm') * 1e6:.0f} us; "
            f"both ends alone {case.ratio('litellm', 'ends'):.1f}x faster than LiteLLM; {calls_per_conversion(body):,} calls per conversion",
        ))
    return out


# --- import -----------------------------------------------------------------------------

def import_times(rounds: int) -> dict[str, dict[str, float]]:
    """CPU time (ms; best and median of ``rounds``) of fresh interpreters: ``pass``,
    ``import msgspec``, ``import lucent``, interleaved round by round, run outside the
    repository (so the installed lucent is used)."""
    commands = {"python -c pass": "pass", "import msgspec": "import msgspec", "import lucent": "import lucent"}
    times: dict[str, list[float]] = {name: [] for name in commands}
    with tempfile.TemporaryDirectory() as cwd:
        for _ in range(rounds):
            for name, code in commands.items():
                # the child's CPU time (user + system): on a shared machine its wall time
                # mostly measures the other work
                before = resource.getrusage(resource.RUSAGE_CHILDREN)
                subprocess.run([sys.executable, "-c", code], cwd=cwd, check=True)
                after = resource.getrusage(resource.RUSAGE_CHILDREN)
                times[name].append((after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime) * 1000)
    return {name: {"best": min(values), "median": statistics.median(values)} for name, values in times.items()}


# --- targets ----------------------------------------------------------------------------

def _target(name: str, measured: float, limit: float, at_most: bool, unit: str, detail: str) -> dict[str, Any]:
    met = measured <= limit if at_most else measured >= limit
    return {"target": name, "measured": round(measured, 3), "limit": limit, "at_most": at_most, "unit": unit, "met": met, "detail": detail}


def _growth(small: Case, large: Case, function: str) -> float:
    """How much more a byte costs in the large document than in the small one."""
    return large.per_call(function) / small.per_call(function) / (large.size / small.size)


def targets(cases: dict[str, Case], imports: dict[str, dict[str, float]] | None) -> list[dict[str, Any]]:
    out = []

    def worst(prefixes: tuple[str, ...], num: str, den: str, *, invert: bool = False) -> tuple[float, str] | None:
        found = [(c.ratio(den, num) if invert else c.ratio(num, den), n) for n, c in cases.items()
                 if n.startswith(prefixes) and num in c.samples and den in c.samples]
        return (min if invert else max)(found) if found else None

    def add(name: str, found: tuple[float, str] | None, limit: float, at_most: bool, unit: str, label: str) -> None:
        if found is not None:  # a group that was not run has no figure
            out.append(_target(name, found[0], limit, at_most, unit, f"{label}: {found[1]}"))

    decoders = tuple(f"decode/{n}/" for n in (*SEED_DECODE, *VENDOR_DECODE))
    for name in (*SEED_DECODE, *VENDOR_DECODE, "sparktide"):
        limit = 2.0 if name == "sparktide" else 1.3
        found = worst((f"decode/{name}/",), "lucent", "orjson")
        add(f"decode {name} with full validation <= {limit}x orjson.loads", found, limit, True, "x", "worst size")
        parse = worst((f"decode/{name}/",), "typed-parse", "orjson")
        if found is not None and parse is not None:  # the profile: msgspec's typed parse alone
            out[-1]["detail"] += f"; msgspec's typed parse alone: {parse[0]:.2f}x at worst ({parse[1]})"
    all_decoders = (*decoders, "decode/sparktide/")
    for baseline, limit in (("pydantic", 10), ("jsonschema", 100)):
        least = worst(all_decoders, "lucent", baseline, invert=True)
        what = "pydantic model_validate_json" if baseline == "pydantic" else baseline
        add(f"decode >= {limit}x faster than {what}", least, limit, False, "x faster", "least")
        if least is not None:  # the bound: a decoder as fast as orjson.loads would be this much faster
            floor = cases[least[1]].ratio(baseline, "orjson")
            out[-1]["detail"] += f"; there {baseline} costs {floor:.1f}x orjson.loads, so a decoder at orjson's speed would be {floor:.1f}x faster"
    add("conversion bytes->bytes <= 3x orjson.loads+dumps", worst(("convert/",), "lucent", "orjson"), 3, True, "x", "worst pair")
    ends = worst(("convert/",), "ends", "orjson")
    if ends is not None and out and out[-1]["target"].startswith("conversion"):
        least_ends = min((c.ratio("ends", "orjson"), n) for n, c in cases.items() if n.startswith("convert/") and "ends" in c.samples)
        out[-1]["detail"] += (f"; decoding and checking both ends alone, with no converter between them: {least_ends[0]:.1f}x "
                              f"at best ({least_ends[1]}), {ends[0]:.1f}x at worst ({ends[1]})")
    out += litellm_bars(cases)
    for label, limit in (("13KB", 15), ("small", 100)):
        case = cases.get(f"litellm/{label}")
        if case is not None:
            floor = case.ratio("litellm", "orjson")
            if "lucent" in case.samples:
                out.append(_target(f"lucent >= {limit}x faster than LiteLLM ({label} request)", case.ratio("litellm", "lucent"), limit, False, "x faster",
                                   f"LiteLLM = {floor:.0f}x the orjson floor; lucent decoding and checking both ends alone, "
                                   f"with no converter between them: {case.ratio('litellm', 'ends'):.1f}x faster than LiteLLM"))
            else:
                out.append({"target": f"lucent >= {limit}x faster than LiteLLM ({label} request)", "measured": None, "limit": limit, "met": None,
                            "detail": f"lucent openai-chat -> anthropic not available; LiteLLM = {floor:.0f}x the orjson loads+dumps floor"})
    # linear cost: time(1 MB) / time(1 KB) against bytes(1 MB) / bytes(1 KB)
    linear = []
    for name in workloads.DOCUMENTS:
        small, large = cases.get(f"decode/{name}/1KB"), cases.get(f"decode/{name}/1MB")
        if small and large:
            linear.append((_growth(small, large, "lucent"), f"{name} (orjson.loads itself: {_growth(small, large, 'orjson'):.2f}x)"))
    add("decode time ratio 1 MB / 1 KB within 1.2x of the byte ratio", max(linear) if linear else None, 1.2, True, "x", "worst")
    steps = []
    for name, case in cases.items():
        if name.startswith("streams/"):
            keys = [k for k in case.samples if not k.startswith("orjson@")]
            for a, b in zip(keys, keys[1:]):
                na, nb = int(a.split("@")[1]), int(b.split("@")[1])
                if na >= 1000:
                    steps.append((case.ratio(b, a) * 10 / (nb / na), f"{name} {na}->{nb}"))
    add("10x the stream frames costs <= 12x the time (from 1,000 frames)", max(steps) if steps else None, 12, True, "x", "worst")
    if imports:
        best = {k: v["best"] for k, v in imports.items()}
        out.append(_target("python -c 'import lucent' <= 80 ms", best["import lucent"], 80, True, "ms",
                           f"best of the runs; bare interpreter {best['python -c pass']:.0f} ms, import msgspec {best['import msgspec']:.0f} ms; "
                           f"lucent's own share {best['import lucent'] - best['python -c pass']:.0f} ms; medians "
                           + ", ".join(f"{k} {v['median']:.0f} ms" for k, v in imports.items())))
    return out


# --- report -----------------------------------------------------------------------------

def versions() -> dict[str, str]:
    found = {"python": platform.python_version(), "machine": f"{platform.machine()}, {os.cpu_count()} cores"}
    try:  # the commit measured, when the bench runs in a checkout
        found["commit"] = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=Path(__file__).parent, capture_output=True, text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        found["commit"] = "unknown"
    for package in ("lucent", "msgspec", "orjson", "pydantic", "jsonschema", "datamodel-code-generator", "litellm", "pyperf"):
        try:
            found[package] = metadata.version(package)
        except metadata.PackageNotFoundError:
            found[package] = "not installed"
    return found


def case_record(case: Case) -> dict[str, Any]:
    record: dict[str, Any] = {"name": case.name, "bytes": case.size, "rounds": len(next(iter(case.samples.values())))}
    record["per_call_us"] = {k: round(case.per_call(k) * 1e6, 2) for k in case.samples}
    if "lucent" in case.samples:
        # four significant figures: lucent / jsonschema is a small number (0.002) read as its inverse
        record["ratios"] = {f"lucent/{k}": float(f"{case.ratio('lucent', k):.4g}") for k in case.samples if k != "lucent"}
        record["best_sample_ratios"] = {f"lucent/{k}": float(f"{case.best_ratio('lucent', k):.4g}") for k in case.samples if k != "lucent"}
    return record


def targets_markdown(found: list[dict[str, Any]], command: str) -> str:
    """The targets as the README's table: target, figure measured, met or not, where."""
    rows = ["| target | measured | | worst case / note |", "| --- | --- | --- | --- |"]
    for t in found:
        mark = {True: "met", False: "**missed**", None: "n/a"}[t["met"]]
        measured = "-" if t["measured"] is None else f"{t['measured']:.3g}{' ' if t.get('unit') == 'ms' else ''}{t.get('unit', '')}"
        rows.append(f"| {t['target']} | {measured} | {mark} | {t['detail']} |")
    return f"Measured by `{command}`:\n\n" + "\n".join(rows) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer rounds and sizes (a few minutes)")
    parser.add_argument("--only", nargs="+", choices=GROUPS, default=list(GROUPS), help="groups to run")
    parser.add_argument("--out", type=Path, default=RESULTS, help="results folder (default bench/results)")
    args = parser.parse_args(argv)
    rounds, min_time = (200, 0.002) if args.quick else (1000, 0.003)  # rounds: at most; the budget decides
    started = time.perf_counter()
    imports = import_times(7 if args.quick else 21) if "import" in args.only else None
    builders = {"decode": decode_cases, "convert": convert_cases, "streams": stream_cases, "litellm": litellm_cases}
    cases: dict[str, Case] = {}
    for group in args.only:
        if group == "import":
            continue
        print(f"{group}: building workloads ...", flush=True)
        for case in builders[group](args.quick):
            measure(case, rounds=rounds, min_time=min_time)
            cases[case.name] = case
            ratios = case_record(case).get("ratios") or {k: f"{v}us" for k, v in case_record(case)["per_call_us"].items()}
            print(f"  {case.name:48s} {ratios}", flush=True)
    found = targets(cases, imports)
    args.out.mkdir(parents=True, exist_ok=True)
    report = {
        "command": "python -m bench" + (" --quick" if args.quick else ""), "versions": versions(),
        "seconds": round(time.perf_counter() - started, 1), "import_ms": imports, "targets": found,
        "cases": [case_record(c) for c in cases.values()],
    }
    suffix = "-quick" if args.quick else ""
    (args.out / f"results{suffix}.json").write_text(json.dumps(report, indent=1, ensure_ascii=False) + "\n")
    if cases:
        pyperf_suite(list(cases.values())).dump(str(args.out / f"pyperf{suffix}.json"), replace=True)
        from bench.plot import throughput_plot

        throughput_plot(cases, args.out / f"throughput{suffix}.png")
    (args.out / f"targets{suffix}.md").write_text(targets_markdown(found, report["command"]))
    print("\ntargets:")
    for t in found:
        mark = {True: "met ", False: "MISS", None: "n/a "}[t["met"]]
        measured = "-" if t["measured"] is None else f"{t['measured']}{t.get('unit', '')}"
        print(f"  [{mark}] {t['target']}: {measured} ({t['detail']})")
    print(f"\n{len(cases)} cases in {report['seconds']} s; results in {args.out}")
    return 0 if args.quick or all(t["met"] is not False for t in found) else 1


if __name__ == "__main__":
    sys.exit(main())
