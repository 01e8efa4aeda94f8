"""Run the checks on every pair and print the table."""

from __future__ import annotations

import json
import sys
import time
from collections.abc import Iterable

from .checks import Tally, check
from .inputs import Input, inputs
from .pairs import Pair, Side
from .shrink import shrink
from .validity import Validity

__all__ = ["failure_lines", "run", "table"]


def run(pairs: Iterable[Pair], count: int, seed: int = 0, validity: Validity | None = None, progress: bool = False) -> list[Tally]:
    """Check every input of each pair's source kind on that pair; one tally per pair."""
    validity = validity or Validity()
    cache: dict[Side, list[Input]] = {}
    tallies = []
    started = time.perf_counter()
    for pair in pairs:
        if pair.source not in cache:
            cache[pair.source] = inputs(pair.source, count, seed, validity)
        tally = Tally(pair)
        begun = time.perf_counter()
        for item in cache[pair.source]:
            tally.add(item, check(pair, item.doc, validity))
        tally.seconds = time.perf_counter() - begun
        tallies.append(tally)
        if progress:
            print(f"  ... {pair.name} done ({time.perf_counter() - started:.0f} s)", file=sys.stderr)
    return tallies


def _percent(part: int, whole: int) -> str:
    if not whole:
        return "-"
    value = 100 * part / whole
    return "100%" if part == whole else f"{min(value, 99.99):.2f}%"


HEADER = (
    f"{'pair':30} {'inputs':>13} {'valid outputs':>19} {'leaves conserved':>24} "
    f"{'round-trip exact-eligible':>25} {'round-trip equal':>16}  bars"
)


def table(tallies: Iterable[Tally]) -> list[str]:
    """One row per pair: inputs (corpus + generated; distinct documents converted), valid
    outputs, leaves conserved, round trips all Exact and how many came back equal."""
    lines = [HEADER, "-" * len(HEADER)]
    for t in tallies:
        p = t.pair
        inputs = f"{t.inputs} ({t.corpus}c)"
        valid = f"{t.valid}/{t.inputs} {_percent(t.valid, t.inputs):>7}"
        leaves = f"{t.conserved}/{t.leaves} {_percent(t.conserved, t.leaves):>7}"
        eligible = f"{t.eligible}" if p.round_trip else "-"
        equal = f"{t.equal}/{t.eligible}" if p.round_trip else "-"
        name = p.name + ("" if p.direct else " *")
        lines.append(f"{name:30} {inputs:>13} {valid:>19} {leaves:>24} {eligible:>25} {equal:>16}  {'ok' if t.passed else 'FAIL'}")
    lines.append("(* composed through Lux; inputs: corpus + generated, Nc of them from the corpus)")
    return lines


def failure_lines(tally: Tally, validity: Validity, show: int = 3, width: int = 500) -> list[str]:
    """The faults of a pair (check and signature, with how many inputs show each), and for the
    first ``show`` of them the smallest failing input the shrinker finds."""
    lines = [f"{tally.pair.name}: {sum(tally.checks.values())} failures ({', '.join(f'{k} {n}' for k, n in sorted(tally.checks.items()))})"]
    for index, ((check_name, signature), found) in enumerate(tally.failures.items()):
        count = sum(item.weight for item, _ in found)
        lines.append(f"  [{check_name}] {signature}  -- {count} input(s)")
        if index < show:
            item, failure = min(found, key=lambda f: len(json.dumps(f[0].doc)))
            minimal = shrink(tally.pair, item.doc, failure, validity)
            again = [f for f in check(tally.pair, minimal, validity).failures if (f.check, f.signature) == (check_name, signature)]
            detail = again[0].detail if again else failure.detail
            text = json.dumps(minimal, ensure_ascii=False)
            lines.append(f"      minimal input (from {item.name}): {text[:width]}{' ...' if len(text) > width else ''}")
            lines.append(f"      {detail[:width]}")
    return lines
