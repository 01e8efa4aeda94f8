"""``python -m tests.schema_suite [--suite DIR] [--mode root|defs|property] [--keyword FILE]``

Compiles every group's schema of a JSON-Schema-Test-Suite folder with lucent's codegen, decodes
each test's data with ``lucent.decode`` and prints per keyword file: tests, pass, refused (at
build time, a SchemaError), wrong and crash. The last line is ``N passed, M failed`` (failed:
wrong answers and crashes); the exit status is 1 when M > 0.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from tests.schema_suite import MODES, default_tests_dir, run


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tests.schema_suite", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--suite", type=Path, default=None, help="a folder of keyword files (default: the suite's tests/draft2020-12)")
    parser.add_argument("--remotes", type=Path, default=None, help="the suite's remotes/ (default: found above --suite)")
    parser.add_argument("--mode", choices=MODES, default="root")
    parser.add_argument("--structs", action="store_true", help="force the msgspec Structs compiler of the shipped schemas (codegen/bindings.py behind codegen/exact.py)")
    parser.add_argument("--keyword", action="append", default=[], metavar="FILE", help="only this keyword file (repeatable): not, ref.json, ...")
    parser.add_argument("-v", "--verbose", action="count", default=0, help="list wrong answers and crashes (-vv: refusals too)")
    args = parser.parse_args(argv)
    tests_dir = args.suite or default_tests_dir()
    if tests_dir is None or not tests_dir.is_dir():
        parser.error("no suite folder: pass --suite DIR (../shared/json-schema-test-suite/tests/draft2020-12)")
    started = time.perf_counter()
    totals = {"tests": 0, "pass": 0, "refused": 0, "wrong": 0, "crash": 0}
    print(f"{'keyword file':32} {'tests':>6} {'pass':>6} {'refused':>8} {'wrong':>6} {'crash':>6}")
    for result in run(tests_dir, args.mode, args.keyword, args.remotes, args.structs):
        counts = {s: result.count(s) for s in ("pass", "refused", "wrong", "crash")}
        counts["tests"] = len(result.outcomes)
        for key, value in counts.items():
            totals[key] += value
        print(f"{result.file:32} {counts['tests']:6} {counts['pass']:6} {counts['refused']:8} {counts['wrong']:6} {counts['crash']:6}")
        for o in result.outcomes:
            if o.status in ("wrong", "crash") and args.verbose or o.status == "refused" and args.verbose > 1:
                detail = o.detail.strip().splitlines()[-1] if o.status == "crash" else o.detail
                print(f"    {o.status}: {o.group} / {o.test}: {detail}")
    elapsed = time.perf_counter() - started
    print(f"{'total':32} {totals['tests']:6} {totals['pass']:6} {totals['refused']:8} {totals['wrong']:6} {totals['crash']:6}  ({args.mode}, {elapsed:.1f} s)")
    failed = totals["wrong"] + totals["crash"]
    print(f"{totals['pass']} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
