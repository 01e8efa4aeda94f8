"""``python -m tests.convert_conformance --count N [--seed S] [--pair SRC:TGT:KIND]``.

Prints, per pair: the inputs, the outputs valid against the target schema, the outputs with no
valid image (invalid only at target paths the spec declares unreachable, each named by an Invalid
diagnostic), the source leaves conserved, the round trips whose every diagnostic is Exact and how
many of them came back equal; then, per pair that misses a bar, its faults and the smallest
failing inputs. Exits 1 when any bar is missed (valid + no valid image = every input, 100% of
leaves conserved, every exact round trip equal, no conversion raising).
"""

from __future__ import annotations

import argparse
import sys
import time

from .pairs import pairs
from .run import failure_lines, run, table
from .validity import Validity


def main(argv: list[str] | None = None) -> int:
    """Run the session; 0 when every pair meets every bar."""
    parser = argparse.ArgumentParser(prog="python -m tests.convert_conformance", description=__doc__)
    parser.add_argument("--count", type=int, default=1000, help="generated documents per source kind (default 1000)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--pair", action="append", metavar="SRC:TGT:KIND", help="only this pair (repeatable)")
    parser.add_argument("--show", type=int, default=3, help="minimal failing inputs per pair (default 3)")
    args = parser.parse_args(argv)
    chosen = pairs()
    if args.pair:
        known = {p.name: p for p in chosen}
        unknown = [name for name in args.pair if name not in known]
        if unknown:
            parser.error(f"unsupported pair(s) {', '.join(unknown)}; supported: {', '.join(known)}")
        chosen = [known[name] for name in args.pair]
    started = time.perf_counter()
    validity = Validity()
    tallies = run(chosen, args.count, args.seed, validity, progress=True)
    lines = [f"conversion conformance: {len(tallies)} pairs, {args.count} generated inputs per source kind, seed {args.seed}", ""]
    lines += table(tallies)
    failing = [t for t in tallies if not t.passed]
    for tally in failing:
        lines += ["", *failure_lines(tally, validity, args.show)]
    elapsed = time.perf_counter() - started
    lines += ["", f"{sum(t.inputs for t in tallies)} conversions judged in {elapsed:.0f} s: {len(failing)} of {len(tallies)} pairs miss a bar"]
    print("\n".join(lines))
    return 1 if failing else 0


if __name__ == "__main__":
    sys.exit(main())
