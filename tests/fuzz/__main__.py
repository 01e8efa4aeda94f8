"""``python -m tests.fuzz``: the fuzz session (``nox -s fuzz`` runs it with the long budget).

Runs, in order: every seed through its target; hypothesis (``--examples`` mutated inputs per
target); the side-car type mutations (each entry of the Lux side-cars the conversions write, and
each one a spec names, in each wrong JSON type, to every target: tests/fuzz/sidecars.py);
atheris (``--execs`` libFuzzer inputs); the hostile inputs at ``--size`` bytes timed
against valid inputs of that size; and the schema patterns' worst inputs at n and 10 n. Prints
a JSON report (executions per engine and family, every crash with its saved input, the worst
time ratio per family, the patterns) and exits 1 on any crash, loss, ratio over 50 or pattern
hazard. An input over 50 in the instrumented process is timed again without atheris's hooks
(``tests.fuzz.retime``), and that ratio is judged. Crashing inputs are written to ``--crashes``; each one found becomes a regression test.

atheris never returns: it runs last among the engines and the hostile and pattern checks run
before it.
"""

from __future__ import annotations

import argparse
import random
import sys
from pathlib import Path


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tests.fuzz", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--execs", type=int, default=1_000_000, help="atheris executions (0: no atheris)")
    parser.add_argument("--seconds", type=float, default=None, help="stop atheris after this long even if --execs is not reached")
    parser.add_argument("--examples", type=int, default=100, help="hypothesis examples per target (0: none)")
    parser.add_argument("--per-definition", type=int, default=2, help="documents drawn from each definition's strategy as seeds")
    parser.add_argument("--size", type=int, default=262_144, help="bytes of each hostile input (0: no hostile check)")
    parser.add_argument("--hostile-targets", type=int, default=6, help="targets per family for the hostile inputs")
    parser.add_argument("--no-shared", action="store_true", help="seed from tests/data only, not ../shared")
    parser.add_argument("--no-conservation", action="store_true", help="skip the conservation check of accepted conversions")
    parser.add_argument("--no-sidecars", action="store_true", help="skip the side-car type mutations (each Lux side-car entry in each wrong JSON type)")
    parser.add_argument("--seed", type=int, default=None, help="derandomize hypothesis and the target sample")
    parser.add_argument("--work", type=Path, default=Path(".fuzz"), help="corpus and crashes folder")
    args = parser.parse_args(argv)

    if args.execs:
        import atheris  # type: ignore[import-not-found]

        with atheris.instrument_imports(include=["lucent"]):
            import lucent  # noqa: F401
            import lucent.generated  # noqa: F401
            import lucent.streams  # noqa: F401

    from .harness import Harness
    from .seeds import seeds
    from .session import Findings, report, run_atheris, run_hostile, run_hypothesis, run_patterns, run_seeds, run_sidecars, run_suspects

    harness = Harness(conservation=not args.no_conservation)
    findings = Findings()
    crashes = args.work / "crashes"
    print(f"seeding (per definition: {args.per_definition}, shared: {not args.no_shared})", file=sys.stderr)
    found = seeds(args.per_definition, shared=not args.no_shared)
    run_seeds(harness, found, findings)
    print(f"seeds: {harness.executions} executions", file=sys.stderr)
    if args.examples:
        run_hypothesis(harness, found, findings, args.examples, args.seed)
        print(f"hypothesis: {findings.engines['hypothesis']} executions", file=sys.stderr)
    if not args.no_sidecars:
        from .seeds import documents

        run_sidecars(harness, list(documents(shared=not args.no_shared)), findings)
        print(f"sidecars: {findings.engines['sidecars']} executions, {findings.sidecar_shapes} shapes", file=sys.stderr)
    run_patterns(findings)
    if args.size:
        run_hostile(harness, found, findings, args.size, args.hostile_targets, random.Random(args.seed or 0))
        print(f"hostile: {findings.engines['hostile']} executions", file=sys.stderr)

    retime = None
    if args.execs:  # atheris instruments lucent: the worst inputs are timed again without it
        retime = ["--per-definition", str(args.per_definition), *(["--no-shared"] if args.no_shared else [])]

    def finish() -> int:
        run_suspects(harness, found, findings)
        return report(harness, findings, crashes, retime)

    if args.execs:
        run_atheris(harness, found, findings, args.execs, args.work / "corpus", finish, seconds=args.seconds)
    return finish()


if __name__ == "__main__":
    sys.exit(main())
