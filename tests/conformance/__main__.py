"""``python -m tests.conformance --count N``: the conformance session.

Prints, per schema and per top-level kind, the valid documents judged and
accepted, the mutations judged and refused, the agreement, the disagreements
explained by a listed departure (``EXCEPTIONS.md``) and the unlisted ones
(with minimal inputs), the keyword sites the mutations broke, and the corpus
verdicts. Exits 1 on any unlisted disagreement, any drawn value the oracle
refuses, any INDEX.json verdict not reproduced, or any decoded document that
``lucent.encode`` writes back invalid.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections import Counter

from . import corpus, report
from .kinds import KINDS, VENDOR_KINDS
from .oracle import Oracle
from .runner import Runner, Tally
from .subject import Subject, available


def main(argv: list[str] | None = None) -> int:
    """Run the session; the exit status is 0 only when nothing is unlisted."""
    parser = argparse.ArgumentParser(prog="python -m tests.conformance", description=__doc__)
    parser.add_argument("--count", type=int, default=2000, help="valid documents per kind (default 2000)")
    parser.add_argument("--mutations", type=int, help="mutations per kind (default: --count)")
    parser.add_argument("--schema", action="append", help="only this schema stem (repeatable; a vendor format too)")
    parser.add_argument("--vendor", action="store_true", help="also the vendor formats (schemas/vendor/)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--show", type=int, default=20, help="unlisted sorts to print")
    parser.add_argument(
        "--independent", type=int, default=0, metavar="N", help="also N documents per kind from hypothesis-jsonschema"
    )
    args = parser.parse_args(argv)
    if not available():
        print("lucent.decode is not importable: pip install -e . first", file=sys.stderr)
        return 2
    oracle = Oracle()
    subject = Subject(oracle=oracle)
    runner = Runner(oracle, subject, Subject("schema"), seed=args.seed)
    started = time.perf_counter()
    tallies: list[Tally] = []
    independent: list[Tally] = []
    for kind in KINDS + VENDOR_KINDS:
        if kind in VENDOR_KINDS and not args.vendor and not (args.schema and kind.schema in args.schema):
            continue
        if args.schema and kind.schema not in args.schema:
            continue
        tallies.append(runner.run_kind(kind, args.count, args.mutations or args.count))
        if args.independent:
            extra = runner.run_independent(kind, args.independent)
            if extra is not None:
                independent.append(extra)
        print(f"  ... {kind.schema} {kind.label} done ({time.perf_counter() - started:.0f} s)", file=sys.stderr)
    documents = [d for d in corpus.documents() if not args.schema or d.schema in args.schema]
    corpus_tally = runner.run_corpus(documents)
    lines = ["conformance: lucent.decode against jsonschema", "", *report.kind_table(tallies)]
    listed: Counter[str] = Counter(corpus_tally.listed)
    by_schema: dict[str, Tally] = {}
    for t in tallies:
        listed.update(t.listed)
        by_schema.setdefault(t.schema, Tally(t.schema, "")).add(t)
    lines += ["keyword sites broken by a mutation the oracle refused:"]
    for t in by_schema.values():
        lines += report.coverage_lines(t)
    if args.independent:
        lines += ["", "independent generator (hypothesis-jsonschema; it cannot resolve the recursive Lux kinds):"]
        for t in independent:
            listed.update(t.listed)
            lines.append(
                f"  {t.schema:22} {t.kind:24} valid {t.valid:5}  accepted {t.accepted:5}  agree {t.agree:5}  "
                f"listed {sum(t.listed.values()):4}  UNLISTED {len(t.findings)}  (skipped {t.skipped} it drew invalid)"
            )
    lines += ["", "corpus:", *report.corpus_lines(corpus_tally, corpus.skipped())]
    lines += ["", "listed departures (EXCEPTIONS.md), disagreements each explained:", *report.departure_lines(listed)]
    findings = [f for t in (*tallies, *independent) for f in (*t.drawn_invalid, *t.findings)] + corpus_tally.findings
    if findings:
        lines += ["", f"UNLISTED disagreements: {len(findings)}", *report.findings_lines(findings, args.show)]
    trips = subject.round_trip_failures
    if trips:
        lines += ["", f"round trip: {len(trips)} decoded documents that lucent.encode wrote back invalid"]
        for schema, definition, data, verdict in trips[: args.show]:
            lines.append(f"  {schema} {definition}: {verdict.code} at {verdict.json_path}: {verdict.message[:120]}")
            lines.append(f"      input: {data.decode('utf-8', 'backslashreplace')[:300]}")
    judged = sum(t.judged for t in (*tallies, *independent)) + corpus_tally.documents
    failed = len(findings) + len(trips) + len(corpus_tally.index_misses)
    lines += [
        "",
        f"{judged} documents judged in {time.perf_counter() - started:.0f} s: "
        f"{sum(listed.values())} listed disagreements, {len(findings)} unlisted, "
        f"{len(corpus_tally.index_misses)} INDEX misses, {len(trips)} round-trip failures",
    ]
    print("\n".join(lines))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
