"""Conformance on generated documents: a small budget per top-level kind.

``python -m tests.conformance --count 2000`` (``nox -s conformance``) runs the
full session; this runs 200 valid documents and 200 mutations per kind.
"""

from __future__ import annotations

import json

import pytest

from tests.conformance.kinds import KINDS, Kind, kinds_of
from tests.conformance.oracle import Oracle
from tests.conformance.runner import Runner, Tally
from tests.conformance.subject import Subject

BUDGET = 200
ORACLE = Oracle()


@pytest.fixture(scope="module")
def runner() -> Runner:
    return Runner(ORACLE, Subject(oracle=ORACLE), Subject("schema"), seed=0)


def describe(tally: Tally) -> str:
    lines = []
    for f in (*tally.drawn_invalid, *tally.findings)[:5]:
        c = f.case
        lines.append(f"{f.source} {f.op}: oracle {c.oracle} / lucent {c.subject}: {c.data[:300]!r}")
    return "\n".join(lines)


@pytest.mark.parametrize("kind", KINDS, ids=[f"{k.schema}:{k.label}" for k in KINDS])
def test_lucent_agrees_with_the_oracle_on_generated_documents(runner: Runner, kind: Kind) -> None:
    tally = runner.run_kind(kind, BUDGET, BUDGET)
    assert tally.valid == BUDGET
    assert not tally.drawn_invalid, describe(tally)
    assert not tally.findings, describe(tally)
    assert tally.agree + sum(tally.listed.values()) == tally.judged
    assert tally.mutations >= 90  # RemoteModelFailure has few distinct mutations; the others reach the budget
    assert tally.refused >= tally.mutations // 3
    assert tally.hit & tally.reachable
    assert not runner.subject.round_trip_failures, runner.subject.round_trip_failures[:3]


def test_every_schema_has_a_top_level_kind() -> None:
    assert {k.schema for k in KINDS} == set(ORACLE.documents)
    assert [k.label for k in kinds_of("htmlp-model-request")] == ["<root>"]
    for kind in KINDS:
        assert ORACLE.subschema(kind.schema, kind.definition)


@pytest.mark.parametrize(
    "text",
    ["9223372036854775808", "9.223372036854776e18", "9223372036854775808.0", "92233720368547758080e-1"],
)
def test_integer_bounds_compare_exact_values(text: str) -> None:
    # 2**63 is past deadline's maximum 2**63 - 1, however it is written, although a
    # double cannot tell the two apart.
    request = json.dumps(
        {
            "protocolVersion": "1.0",
            "invocationId": "i",
            "deadline": 1,
            "purpose": "SYNTHETIC_PROBE",
            "appId": "a",
            "model": "m",
            "messages": [{"role": "user", "content": "x"}],
            "max_completion_tokens": 1,
            "stream": False,
        }
    ).replace('"deadline": 1', f'"deadline": {text}')
    oracle = ORACLE.judge("sparktide-remote-1.0", "RemoteModelRequest", request)
    subject = Subject().judge("sparktide-remote-1.0", "RemoteModelRequest", request.encode())
    assert (oracle.code, oracle.json_path) == ("maximum", "$.deadline")
    assert (subject.valid, subject.json_path) == (False, "$.deadline")


@pytest.mark.parametrize("text", ["7", "7.0", "7e0", "70E-1", "0.7e1"])
def test_an_integer_may_be_written_with_a_zero_fraction_or_an_exponent(text: str) -> None:
    usage = f'{{"inputTokens": {text}, "outputTokens": 0}}'
    response = f'{{"content": [], "usage": {usage}}}'
    assert ORACLE.judge("llm-sdk", "ModelResponse", response).valid
    assert Subject().judge("llm-sdk", "ModelResponse", response.encode()).valid


@pytest.mark.parametrize(
    ("text", "valid"), [("4294967295", True), ("4294967296", False), ("-1", False), ("1.5", False)]
)
def test_uint32_format_is_an_assertion(text: str, valid: bool) -> None:
    request = f'{{"fragments": [], "tools": [], "model": "m", "thinking_level": "off", "max_output_tokens": {text}}}'
    oracle = ORACLE.judge("htmlp-model-request", None, request)
    subject = Subject().judge("htmlp-model-request", None, request.encode())
    assert oracle.valid is valid and subject.valid is valid
    if not valid:
        assert subject.json_path == oracle.json_path == "$.max_output_tokens"
