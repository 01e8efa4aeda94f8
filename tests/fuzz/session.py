"""The fuzz session's parts: seeds, hypothesis, atheris, the hostile sizes, the patterns.

Each part runs inputs through a :class:`~tests.fuzz.harness.Harness` and adds to its counts;
:func:`report` prints what was run and found. ``python -m tests.fuzz --help`` runs them.
"""

from __future__ import annotations

import hashlib
import json
import os
import random
import re
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from .harness import Harness
from .hostile import DOCUMENT_ATTACKS, STREAM_ATTACKS
from .patterns import backtracking_hazards, patterns, search_time, worst_shapes
from .stream_shapes import events_of, mutate_events, sse
from .targets import Target, targets
from .timing import MAX_RATIO, ratio

__all__ = ["Findings", "report", "run_atheris", "run_hostile", "run_hypothesis", "run_patterns", "run_seeds", "run_sidecars", "run_suspects"]

TOKENS = [
    b'"', b"\\", b"[", b"]", b"{", b"}", b",", b":", b"\x00", b"\xff", b"\xc3", b"\xef\xbb\xbf",
    b"\\ud800", b"\\udc00", b"\\u0000", b"1e999", b"-1e400", b"NaN", b"Infinity", b"-0",
    b"9223372036854775808", b"18446744073709551616", b"1" * 40, b"null", b"true", b"\r", b"\n",
    b"\n\n", b"\r\n", b"data: ", b"data:{}\n\n", b"event: x\n", b": c\n", b"[DONE]", b'{"a":1,"a":2}',
    b'"type":"x"', b"[" * 50, b"{" * 50,
]
"""Bytes that break JSON and SSE in interesting ways, for insertion."""

HOSTILE_VALUES: list[Any] = [
    None, True, False, 0, -1, 1.5, 2**63 - 1, 2**63, -(2**63) - 1, 2**64, 1e308, "", "x" * 300,
    "\ud800", "\u0000", "\ufeff", "{}", '{"a":1,"a":2}', "[" * 30, [], {}, [None], {"": None},
    {"type": "text"}, {"role": "tool"}, ["x"] * 40, {"\u0000": 1},
]
"""JSON values that break schemas: wrong types, out of range, empty, surrogates, NUL."""


@dataclass
class Findings:
    """What a session measured besides the harness counts."""

    engines: dict[str, int] = field(default_factory=dict)
    sidecar_shapes: int = 0
    hang: list[dict[str, Any]] = field(default_factory=list)
    patterns: list[dict[str, Any]] = field(default_factory=list)
    seconds: dict[str, float] = field(default_factory=dict)


# ------------------------------------------------------------------ seeds


def run_seeds(harness: Harness, seeds: dict[str, list[bytes]], findings: Findings) -> None:
    """Every seed through its target (and calibrate the hang check on them)."""
    start, before = time.perf_counter(), harness.executions
    for target in targets():
        valid = seeds.get(target.name, [])
        for data in valid:
            harness.run(target, data)
        harness.calibrate(target, valid)
    findings.engines["seeds"] = harness.executions - before
    findings.seconds["seeds"] = time.perf_counter() - start


# ------------------------------------------------------------------ hypothesis


def _json_nodes(value: Any) -> list[tuple[Any, Any]]:
    out: list[tuple[Any, Any]] = []
    stack = [value]
    while stack:
        node = stack.pop()
        items = list(node.items()) if isinstance(node, dict) else list(enumerate(node)) if isinstance(node, list) else []
        for key, item in items:
            out.append((node, key))
            stack.append(item)
    return out


@st.composite
def _mutated(draw: Any, seeds: list[bytes]) -> bytes:
    """A seed with a few byte-level, JSON-level or (an SSE stream of JSON events) event-level
    edits (:func:`tests.fuzz.stream_shapes.mutate_events`: indexes, item ids, event kinds,
    repeated and moved events)."""
    data = draw(st.sampled_from(seeds)) if seeds else b""
    events = events_of(data) if data.startswith(b"data: ") else None
    if events is not None and draw(st.booleans()):
        for _ in range(draw(st.integers(1, 3))):
            events = mutate_events(events, lambda n: draw(st.integers(0, n - 1)))
        return sse(events)
    if draw(st.booleans()):
        try:
            doc = json.loads(data)
        except ValueError:
            doc = None
        nodes = _json_nodes(doc) if doc is not None else []
        if nodes:
            for _ in range(draw(st.integers(1, 3))):
                node, key = nodes[draw(st.integers(0, len(nodes) - 1))]
                action = draw(st.sampled_from(["replace", "delete", "copy"]))
                if action == "replace":
                    node[key] = json.loads(json.dumps(draw(st.sampled_from(HOSTILE_VALUES))))
                elif action == "delete":
                    del node[key]
                elif isinstance(node, list):
                    node.append(json.loads(json.dumps(node[key])))
                else:
                    node[f"{key}_"] = node[key]
                nodes = _json_nodes(doc)
                if not nodes:
                    break
            data = json.dumps(doc, ensure_ascii=draw(st.booleans())).encode("utf-8", "surrogatepass")
            return data
    buf = bytearray(data)
    for _ in range(draw(st.integers(1, 4))):
        at = draw(st.integers(0, len(buf)))
        action = draw(st.sampled_from(["token", "byte", "delete", "duplicate", "truncate"]))
        if action == "token":
            buf[at:at] = draw(st.sampled_from(TOKENS))
        elif action == "byte":
            buf[at:at + 1] = bytes([draw(st.integers(0, 255))])
        elif action == "delete":
            del buf[at:at + draw(st.integers(1, 16))]
        elif action == "duplicate":
            buf[at:at] = buf[at:at + draw(st.integers(1, 64))]
        else:
            del buf[at:]
    return bytes(buf)


def run_hypothesis(harness: Harness, seeds: dict[str, list[bytes]], findings: Findings, examples: int, seed: int | None, select: Callable[[Target], bool] = lambda t: True) -> None:
    """``examples`` mutated inputs per target, drawn by hypothesis from its seeds."""
    start, before = time.perf_counter(), harness.executions
    for target in targets():
        if not select(target):
            continue
        valid = seeds.get(target.name) or [b"{}"]

        @settings(
            max_examples=examples, database=None, deadline=None, phases=[Phase.generate],
            suppress_health_check=list(HealthCheck), derandomize=seed is not None,
        )
        @given(_mutated(valid))
        def check(data: bytes) -> None:
            harness.run(target, data)

        check()
    findings.engines["hypothesis"] = harness.executions - before
    findings.seconds["hypothesis"] = time.perf_counter() - start


# ------------------------------------------------------------------ side-car types


def run_sidecars(harness: Harness, documents: list[tuple[str, str | None, bytes]], findings: Findings, limit: int | None = None) -> None:
    """Each side-car entry of the Lux documents converted from `documents` (and of the Lux
    documents among them) in each wrong JSON type (:mod:`tests.fuzz.sidecars`), converted from
    Lux to every target: an exception other than a LucentError is a crash, a value dropped
    without a diagnostic a loss (``lost side-car <shape>``). Each (kind, shape, type) is tried
    once; `limit` caps the Lux documents read."""
    from .sidecars import lux_documents, silent_drops
    from .targets import CONTEXT, convert_pairs

    start, before = time.perf_counter(), harness.executions
    targets = {kind: [t for s, t, k in convert_pairs() if s == "lux" and k == kind and t != "lux"] for kind in ("request", "response")}
    seen: set[tuple[str, str, str]] = set()

    def counted(_where: str, _texts: list[str]) -> None:
        harness.executions += 1
        harness.by_family["sidecar"] += 1

    for n, (kind, doc) in enumerate(lux_documents(documents)):
        if limit is not None and n >= limit:
            break
        target = Target("sidecar", f"sidecar:lux:{kind}", lambda data: None)
        data = json.dumps(doc).encode()
        try:
            for name, where, type_name in silent_drops(doc, kind, targets[kind], "sk-live-fuzz-sidecar", CONTEXT, seen, counted):
                harness._record(Target("sidecar", f"convert:lux:{name}:{kind}", lambda data: None), "lost", f"lost side-car {where} ({type_name})",
                                f"{where} = a JSON {type_name} (the input is the Lux document before that change): in no output value, named by no diagnostic", data)
        except Exception as exc:  # noqa: BLE001 - a crash is what we look for
            harness._crash(target, "exception", exc, data)
    findings.engines["sidecars"] = harness.executions - before
    findings.seconds["sidecars"] = time.perf_counter() - start
    findings.sidecar_shapes = len(seen)


# ------------------------------------------------------------------ atheris


def _prefix(index: int) -> bytes:
    return index.to_bytes(2, "big")


def run_atheris(harness: Harness, seeds: dict[str, list[bytes]], findings: Findings, executions: int, corpus: Path, finish: Callable[[], int], max_len: int = 8192, per_target: int = 16, seconds: float | None = None) -> None:
    """libFuzzer (atheris) for ``executions`` more inputs (or ``seconds``, whichever ends
    first), then ``finish()`` and exit.

    An input's first two bytes pick the target (modulo their count), the rest is its data;
    the corpus folder starts with up to ``per_target`` seeds of each target so prefixed. atheris never returns: the process
    exits with ``finish()``'s status once the budget is spent.
    """
    import atheris  # type: ignore[import-not-found]

    all_targets = targets()
    corpus.mkdir(parents=True, exist_ok=True)
    for index, target in enumerate(all_targets):
        fitting = sorted((d for d in seeds.get(target.name, []) if len(d) + 2 <= max_len), key=len)
        step = max(len(fitting) / per_target, 1)  # a spread of sizes, so no target crowds the others
        for number in range(min(per_target, len(fitting))):
            (corpus / f"seed-{index:04d}-{number:03d}").write_bytes(_prefix(index) + fitting[int(number * step)])
    start, before = time.perf_counter(), harness.executions
    budget = harness.executions + executions
    deadline = start + seconds if seconds else float("inf")

    def one_input(data: bytes) -> None:
        index = int.from_bytes(data[:2], "big") % len(all_targets)
        harness.run(all_targets[index], data[2:])
        if harness.executions >= budget or (harness.executions % 256 == 0 and time.perf_counter() > deadline):
            findings.engines["atheris"] = harness.executions - before
            findings.seconds["atheris"] = time.perf_counter() - start
            sys.stdout.flush()
            os._exit(finish())

    atheris.Setup([sys.argv[0], f"-max_len={max_len}", "-timeout=60", "-rss_limit_mb=4096", "-print_final_stats=0", str(corpus)], one_input)
    atheris.Fuzz()


# ------------------------------------------------------------------ hostile sizes


def run_hostile(harness: Harness, seeds: dict[str, list[bytes]], findings: Findings, size: int, per_family: int, rng: random.Random) -> None:
    """Every attack of :mod:`tests.fuzz.hostile` at ``size`` bytes on ``per_family`` targets of
    each family (always the roots and the convert sources), timed against valid input of the same
    size; then the slowest inputs the other engines kept."""
    start, before = time.perf_counter(), harness.executions
    by_family: dict[str, list[Target]] = {}
    for target in targets():
        by_family.setdefault(target.family, []).append(target)
    chosen: list[Target] = []
    for family, members in by_family.items():
        roots = [t for t in members if family != "decode" or t.definition is None]
        others = [t for t in members if t not in roots]
        chosen.extend(roots[:per_family] + rng.sample(others, min(len(others), max(per_family - len(roots), 0))))
    for target in chosen:
        valid = seeds.get(target.name, [])
        if not valid:
            continue
        attacks = STREAM_ATTACKS if target.stream is not None else DOCUMENT_ATTACKS
        seed = max(valid, key=len)
        for name, build in attacks.items():
            data = build(seed, size)
            harness.run(target, data)
            _measure(findings, target, f"{name} ({size} bytes)", data, valid)
    findings.engines["hostile"] = harness.executions - before
    findings.seconds["hostile"] = time.perf_counter() - start


def run_suspects(harness: Harness, seeds: dict[str, list[bytes]], findings: Findings) -> None:
    """The slowest inputs the engines kept (per target, by time over the time its seeds
    predict), each timed against a valid input of its size."""
    start = time.perf_counter()
    for target, data in harness.suspects():
        _measure(findings, target, "slowest fuzz input", data, seeds.get(target.name, []))
    findings.seconds["slowest"] = time.perf_counter() - start


def _measure(findings: Findings, target: Target, attack: str, data: bytes, valid: list[bytes]) -> None:
    try:
        found = ratio(target, data, valid)
    except Exception:  # noqa: BLE001 - a crash is recorded by the harness run
        return
    if found is not None:
        value, size = found
        findings.hang.append({"target": target.name, "family": target.family, "attack": attack, "bytes": len(data), "valid_bytes": size, "ratio": round(value, 2), "data": data})
        if value > MAX_RATIO / 5:  # as it is found, so that a long run that is stopped still tells
            print(f"slow: {target.name} {attack}: {value:.1f}x a valid input of {size} bytes", file=sys.stderr)


# ------------------------------------------------------------------ patterns


def run_patterns(findings: Findings, n: int = 500_000, factor: int = 8) -> None:
    """Each schema pattern: the static hazards, and the time of its worst inputs at ``n`` and
    ``factor * n`` characters (linear: about ``factor``; quadratic: ``factor ** 2``). Both sizes
    are past the CPU caches, which would otherwise make the larger one look superlinear."""
    for found in patterns():
        compiled = re.compile(found.pattern)
        shapes = worst_shapes(found.pattern)
        small = sum(search_time(compiled, [prefix + char * n + suffix]) for prefix, char, suffix in shapes)
        large = sum(search_time(compiled, [prefix + char * (factor * n) + suffix]) for prefix, char, suffix in shapes)
        findings.patterns.append({
            "schema": found.schema, "pattern": found.pattern, "maxLength": found.max_length,
            "hazards": backtracking_hazards(found.pattern), "n": n, "factor": factor,
            "ratio": round(large / small, 2),
        })


# ------------------------------------------------------------------ report


def report(harness: Harness, findings: Findings, crashes_dir: Path, retime: list[str] | None = None) -> int:
    """Print the counts and findings; 0 when nothing crashed, lost, hung or backtracks.

    ``retime``: when atheris instrumented lucent in this process, the options the seeds were
    drawn with; each input over the bound is then timed again by ``tests.fuzz.retime`` in a
    process without the instrumentation, and that time is the one judged (the instrumented
    ratio stays in the row as ``instrumented_ratio``)."""
    slow = crashes_dir.parent / "slow"
    slow.mkdir(parents=True, exist_ok=True)
    for row in findings.hang:
        data = row.pop("data", b"")
        if row["ratio"] > MAX_RATIO / 5:
            row["input"] = str(slow / f"{hashlib.sha1(data).hexdigest()[:16]}.bin")
            Path(row["input"]).write_bytes(data)
    for row in findings.hang if retime is not None else []:
        if row["ratio"] > MAX_RATIO:
            again = subprocess.run([sys.executable, "-m", "tests.fuzz.retime", row["target"], row["input"], *retime], capture_output=True, text=True)
            found = json.loads(again.stdout.splitlines()[-1]) if again.returncode == 0 and again.stdout.strip() else {}
            if found.get("ratio") is not None:
                row["instrumented_ratio"], row["ratio"] = row["ratio"], found["ratio"]
    worst: dict[str, dict[str, Any]] = {}
    for row in findings.hang:
        key = row["family"]
        if key not in worst or row["ratio"] > worst[key]["ratio"]:
            worst[key] = row
    over = [row for row in findings.hang if row["ratio"] > MAX_RATIO]
    hazards = [p for p in findings.patterns if p["hazards"] or p["ratio"] > 3 * p["factor"]]
    summary = {
        "executions": harness.executions,
        "by_engine": findings.engines,
        "sidecar_shapes": findings.sidecar_shapes,
        "by_family": dict(harness.by_family),
        "accepted_by_family": dict(harness.accepted),
        "seconds": {k: round(v, 1) for k, v in findings.seconds.items()},
        "targets": len(targets()),
        "crashes": [
            {"target": c.target, "kind": c.kind, "signature": c.signature, "count": c.count, "input": str(c.save(crashes_dir)), "detail": c.detail[-600:]}
            for c in harness.crashes.values()
        ],
        "hang_check": {"measured": len(findings.hang), "bound": MAX_RATIO, "worst_by_family": worst, "over_bound": over},
        "patterns": findings.patterns,
    }
    print(json.dumps(summary, indent=2, ensure_ascii=False))
    return 1 if harness.crashes or over or hazards else 0
