"""Run the checks on every pair and print the table."""

from __future__ import annotations

import json
import sys
import time
from collections.abc import Iterable
from typing import Any

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
        for item in cache[pair.source]:
            tally.add(item, check(pair, item.doc, validity))
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
    f"{'pair':30} {'inputs':>13} {'valid outputs':>19} {'no valid image':>14} {'leaves conserved':>24} "
    f"{'round-trip exact-eligible':>25} {'round-trip equal':>16}  bars"
)


def table(tallies: Iterable[Tally]) -> list[str]:
    """One row per pair: inputs (corpus + generated), valid outputs, the outputs with no valid
    image (invalid only where the spec declares the target unreachable and a diagnostic says so;
    the validity bar is valid + these = inputs), leaves conserved, round trips whose every
    diagnostic is Exact and how many of them came back equal; then the distinct documents behind
    the inputs of each source kind (each is converted once per pair)."""
    lines = [HEADER, "-" * len(HEADER)]
    distinct: dict[str, str] = {}
    for t in tallies:
        distinct.setdefault(t.pair.source.label, f"{t.pair.source.label} {t.distinct}/{t.inputs}")
        p = t.pair
        inputs = f"{t.inputs} ({t.corpus}c)"
        valid = f"{t.valid}/{t.inputs} {_percent(t.valid, t.inputs):>7}"
        unreachable = f"{t.unreachable}" if p.unreachable else "-"
        leaves = f"{t.conserved}/{t.leaves} {_percent(t.conserved, t.leaves):>7}"
        eligible = f"{t.eligible}" if p.round_trip else "-"
        equal = f"{t.equal}/{t.eligible}" if p.round_trip else "-"
        name = p.name + ("" if p.direct else " *")
        lines.append(f"{name:30} {inputs:>13} {valid:>19} {unreachable:>14} {leaves:>24} {eligible:>25} {equal:>16}  {'ok' if t.passed else 'FAIL'}")
    lines.append("(* composed through Lux; inputs: corpus + generated, Nc of them from the corpus)")
    lines.append("(no valid image: invalid only at target paths the spec declares unreachable, each named Invalid; '-': the spec declares none)")
    lines.append(f"(distinct documents per source kind: {', '.join(distinct.values())})")
    return lines


def readable(doc: Any) -> str:
    """Compact JSON with printable characters as they are and the others escaped."""
    text = json.dumps(doc, ensure_ascii=False)
    return "".join(c if c.isprintable() else json.dumps(c)[1:-1] for c in text)


_ORDER = {"raised": 0, "lost": 1, "round-trip": 2, "invalid": 3}


def failure_lines(tally: Tally, validity: Validity, show: int = 3, width: int = 500, minimize: bool = True) -> list[str]:
    """The faults of a pair, one line per check and signature with how many inputs show it
    (silent losses first, then the commonest), and for the first ``show`` of them the smallest
    failing input (shrunk further when ``minimize``)."""
    invalid = tally.inputs - tally.valid - tally.unreachable
    summary = (
        f"{tally.pair.name}: {invalid} invalid outputs ({tally.unnamed} with a fault no diagnostic names; "
        f"{tally.unreachable} more with no valid image, as declared), "
        f"{tally.leaves - tally.conserved} leaves lost, {tally.eligible - tally.equal} exact round trips not equal, "
        f"{tally.checks['raised']} conversions raised"
    )
    lines = [summary]
    groups = sorted(tally.failures.items(), key=lambda g: (_ORDER[g[0][0]], -sum(i.weight for i, _ in g[1])))
    for index, ((check_name, signature), found) in enumerate(groups):
        count = sum(item.weight for item, _ in found)
        unnamed = sum(item.weight for item, f in found if f.unnamed)
        how = f", {unnamed} with no diagnostic naming it" if check_name == "invalid" else ""
        lines.append(f"  [{check_name}] {signature}  -- {count} input(s){how}")
        if index < show:
            item, failure = min(found, key=lambda f: (not f[1].unnamed, len(json.dumps(f[0].doc))))
            minimal = shrink(tally.pair, item.doc, failure, validity) if minimize else item.doc
            again = [f for f in check(tally.pair, minimal, validity).failures if (f.check, f.signature, f.unnamed) == (check_name, signature, failure.unnamed)]
            detail = again[0].detail if again else failure.detail
            text = readable(minimal)
            lines.append(f"      {'minimal' if minimize else 'smallest'} input (from {item.name}): {text[:width]}{' ...' if len(text) > width else ''}")
            lines.append(f"      {detail[:width]}")
    return lines
