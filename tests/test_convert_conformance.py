"""Conversion conformance on a small budget: the code of ``python -m tests.convert_conformance``.

Every supported pair, over the corpus and 100 generated documents per source kind: every output
valid against the target schema, every source leaf carried or named by a diagnostic, every round
trip through Lux whose diagnostics are all Exact equal to its source. The full session
(``python -m tests.convert_conformance --count 1000``) prints the table and minimal inputs.
"""

from __future__ import annotations

import pytest
from lucent.generated.convert_registry import CONVERTERS, DOCUMENTS

from tests.convert_conformance.checks import Tally, json_equal
from tests.convert_conformance.pairs import FIXED_CONTEXT, SEED_FORMATS, Pair, context_for, pairs
from tests.convert_conformance.run import failure_lines, run, table
from tests.convert_conformance.validity import Validity

BUDGET = 100
PAIRS = pairs()
VALIDITY = Validity()

# Known converter faults (issue 3 is open; NOTES.md "Converters" lists them with minimal inputs).
# strict=True: the mark fails as soon as a pair passes, so it is removed with the fix.
KNOWN_FAULTS: dict[str, str] = {
}


def _marked(pair: Pair) -> object:
    reason = KNOWN_FAULTS.get(pair.name)
    marks = [pytest.mark.xfail(reason=reason, strict=True)] if reason else []
    return pytest.param(pair, id=pair.name, marks=marks)


@pytest.fixture(scope="module")
def tallies() -> dict[str, Tally]:
    return {t.pair.name: t for t in run(PAIRS, BUDGET, seed=0, validity=VALIDITY)}


@pytest.mark.parametrize("pair", [_marked(p) for p in PAIRS])
def test_every_output_is_valid_loses_nothing_unnamed_and_exact_round_trips_are_equal(tallies: dict[str, Tally], pair: Pair) -> None:
    tally = tallies[pair.name]
    assert tally.inputs >= BUDGET
    if not tally.passed:
        pytest.fail("\n".join([*table([tally]), "", *failure_lines(tally, VALIDITY, show=3, width=300)]), pytrace=False)


def test_the_pairs_are_every_supported_conversion_through_lux() -> None:
    names = {p.name for p in PAIRS}
    # 20 among the seed formats; the vendor formats are checked by tests/test_convert_<vendor>.py
    # and tests/test_vendor_convert_corpus.py (their pairs on generated documents: NOTES.md)
    assert len(names) == len(PAIRS) == 20
    for source, kind in DOCUMENTS:
        for target, other in DOCUMENTS:
            if kind != other or source == target or not {source, target} <= set(SEED_FORMATS):
                continue
            supported = (source, target, kind) in CONVERTERS or (
                (source, "lux", kind) in CONVERTERS and ("lux", target, kind) in CONVERTERS
            )
            assert (f"{source}:{target}:{kind}" in names) == supported
    assert not next(p for p in PAIRS if p.name == "sparktide:llm-sdk:request").direct


def test_the_context_gives_only_what_the_source_lacks_or_the_target_refuses() -> None:
    lux = {"schema_version": "v1", "model": "m", "conversation": [], "options": {"stream": True, "max_output_tokens": 0}}
    sparktide = next(p for p in PAIRS if p.name == "lux:sparktide:request").target
    context = context_for("lux", "request", lux, lambda key, value: VALIDITY.accepts_member(sparktide, key, value), "sparktide")
    assert "model" not in context and "stream" not in context  # the document's own values
    assert context["max_completion_tokens"] == FIXED_CONTEXT["max_completion_tokens"]  # 0 is no SparkTide value
    assert context["invocationId"] == FIXED_CONTEXT["invocationId"]


def test_json_values_compare_numbers_by_value_and_booleans_apart() -> None:
    assert json_equal({"a": [1, 2.0]}, {"a": [1.0, 2]})
    assert not json_equal(True, 1) and not json_equal({"a": 0}, {"a": False}) and not json_equal({"a": None}, {})
