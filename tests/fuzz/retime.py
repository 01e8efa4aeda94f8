"""``python -m tests.fuzz.retime TARGET FILE...``: the hang check of saved inputs, in a process
whose lucent code atheris has not instrumented.

atheris's coverage hooks slow lucent's Python steps (an error search, a converter) but not
msgspec's C parse, so in the fuzzing process an input refused by Python code looks slower against
a valid input, which msgspec reads, than it is. The session times its worst inputs again here,
and the bound applies to these times. Prints one JSON object per input: ``input``, ``ratio``
and ``valid_bytes`` (``null`` when no valid input of the target grows to its size).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from .seeds import seeds
from .targets import targets
from .timing import ratio


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tests.fuzz.retime", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("target", help="a target name, as the session report gives it (decode:anthropic:Message)")
    parser.add_argument("inputs", nargs="+", type=Path, help="saved inputs (the report's slow/*.bin)")
    parser.add_argument("--per-definition", type=int, default=2, help="as the session was run")
    parser.add_argument("--no-shared", action="store_true", help="as the session was run")
    args = parser.parse_args(argv)
    target = {t.name: t for t in targets()}[args.target]
    valid = seeds(args.per_definition, shared=not args.no_shared, families=frozenset({target.family})).get(target.name, [])
    for path in args.inputs:
        found = ratio(target, path.read_bytes(), valid)
        print(json.dumps({"input": str(path), "ratio": None if found is None else round(found[0], 2), "valid_bytes": None if found is None else found[1]}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
