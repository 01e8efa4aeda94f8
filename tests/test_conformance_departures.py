"""One test per listed departure (tests/conformance/EXCEPTIONS.md), and the checks that guard the list."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from tests.conformance.departures import DEPARTURES, MAX_BODY_BYTES, Case, explain
from tests.conformance.oracle import Oracle
from tests.conformance.paths import REPO
from tests.conformance.subject import Subject
from tests.conformance.verdict import Verdict

ORACLE = Oracle()
SPARKTIDE = "sparktide-remote-1.0"
REQUEST: dict[str, Any] = {
    "protocolVersion": "1.0",
    "invocationId": "inv_1",
    "deadline": 1893456000000,
    "purpose": "SYNTHETIC_PROBE",
    "appId": "monitor",
    "model": "m",
    "messages": [{"role": "user", "content": "hi"}],
    "max_completion_tokens": 16,
    "stream": False,
}


def judged(data: bytes | str, schema: str = SPARKTIDE, definition: str | None = "RemoteModelRequest") -> Case:
    raw = data.encode() if isinstance(data, str) else data
    return Case(
        schema,
        definition,
        raw,
        ORACLE.judge(schema, definition, raw),
        Subject().judge(schema, definition, raw),
        Subject("schema").judge(schema, definition, raw),
    )


def compact(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def departure_of(case: Case) -> str | None:
    found = explain(case, ORACLE)
    return None if found is None else found.id


def listed(departure_id: str) -> str:
    """The departure a test expects; every listed departure must be named here once."""
    return departure_id


def request_of_size(size: int) -> str:
    base = len(compact({**REQUEST, "messages": [{"role": "user", "content": ""}]}).encode())
    return compact({**REQUEST, "messages": [{"role": "user", "content": "x" * (size - base)}]})


def test_sparktide_body_over_1_mib_is_refused_before_the_schema() -> None:
    case = judged(request_of_size(MAX_BODY_BYTES + 1))
    assert len(case.data) == 1_048_577
    assert case.oracle.valid and case.schema_only is not None and case.schema_only.valid
    assert (case.subject.valid, case.subject.code, case.subject.json_path) == (False, "max_body_bytes", "$")
    assert departure_of(case) == listed("sparktide-max-body-bytes")


def test_sparktide_body_of_exactly_1_mib_is_accepted_by_both() -> None:
    case = judged(request_of_size(MAX_BODY_BYTES))
    assert len(case.data) == 1_048_576
    assert case.oracle.valid and case.subject.valid


@pytest.mark.parametrize(
    ("text", "path"),
    [
        ('{"protocolVersion":"1.0",' + compact(REQUEST)[1:], "$.protocolVersion"),
        (compact(REQUEST).replace('{"role":"user",', '{"role":"user","role":"user",'), "$.messages[0].role"),
    ],
    ids=["root", "nested"],
)
def test_sparktide_duplicate_property_is_refused_at_the_repeated_name(text: str, path: str) -> None:
    case = judged(text)
    assert case.oracle.valid  # Python's json keeps the last of the two
    assert (case.subject.code, case.subject.json_path) == ("duplicate_key", path)
    assert departure_of(case) == listed("sparktide-duplicate-key")


def test_duplicate_property_outside_sparktide_decodes_like_the_oracle() -> None:
    lux = {"schema_version": "v1", "model": "m", "conversation": [], "options": {"stream": False}}
    case = judged('{"model":"m",' + compact(lux)[1:], "lux-ir-v1", "LucentRequest")
    assert case.oracle.valid and case.subject.valid


@pytest.mark.parametrize("arguments", ['{"a": 1} {"b": 2}', "null", '{"a": 1, "a": 2}', "[]", '{"a": '])
def test_sparktide_tool_arguments_must_be_one_closed_object(arguments: str) -> None:
    call = {"id": "c1", "type": "function", "function": {"name": "f", "arguments": arguments}}
    messages = [{"role": "user", "content": "q"}, {"role": "assistant", "content": None, "tool_calls": [call]}]
    case = judged(compact({**REQUEST, "messages": messages}))
    assert case.oracle.valid and case.schema_only is not None and case.schema_only.valid
    assert (case.subject.code, case.subject.json_path) == (
        "tool_arguments",
        "$.messages[1].tool_calls[0].function.arguments",
    )
    assert departure_of(case) == listed("sparktide-tool-arguments")


def test_dollar_does_not_match_before_a_final_newline() -> None:
    case = judged(compact({**REQUEST, "appId": "monitor\n"}))
    assert re.search("^[a-z][a-z0-9-]{0,63}$", "monitor\n")  # Python's reading of the pattern
    assert case.oracle.valid
    assert (case.subject.code, case.subject.json_path) == ("pattern", "$.appId")
    assert departure_of(case) == listed("regex-dollar-final-newline")


@pytest.mark.parametrize(
    ("text", "oracle_valid"),
    [("\x1c", False), ("\x1f", False), ("\x85", False), ("\ufeff", True)],
    ids=["x1c", "x1f", "x85", "ufeff"],
)
def test_whitespace_class_follows_ecma_262(text: str, oracle_valid: bool) -> None:
    case = judged(compact({**REQUEST, "invocationId": text}))
    assert case.oracle.valid is oracle_valid
    assert case.subject.valid is not oracle_valid
    refusing = case.subject if oracle_valid else case.oracle
    assert (refusing.code, refusing.json_path) == ("pattern", "$.invocationId")
    assert departure_of(case) == listed("regex-whitespace-class")


def test_lone_surrogate_escape_is_a_decode_error() -> None:
    lux = {"schema_version": "v1", "model": "m", "conversation": [], "options": {"stream": False}}
    case = judged(compact(lux).replace('"m"', '"a \\ud800 b"'), "lux-ir-v1", "LucentRequest")
    assert case.oracle.valid
    assert case.subject.code == "lone_surrogate"
    assert departure_of(case) == listed("lone-surrogate-escape")


def test_a_surrogate_pair_escape_is_accepted_by_both() -> None:
    lux = {"schema_version": "v1", "model": "m", "conversation": [], "options": {"stream": False}}
    case = judged(compact(lux).replace('"m"', '"\\ud83d\\ude00"'), "lux-ir-v1", "LucentRequest")
    assert case.oracle.valid and case.subject.valid


def test_no_departure_explains_an_ordinary_disagreement() -> None:
    data = compact(REQUEST).encode()
    refused = Verdict(False, ("model",), "type", "made up")
    assert explain(Case(SPARKTIDE, "RemoteModelRequest", data, Verdict(True), refused), ORACLE) is None
    assert explain(Case("lux-ir-v1", "LucentRequest", data, refused, Verdict(True)), ORACLE) is None


def test_a_protocol_departure_needs_lucent_without_protocol_rules_to_agree() -> None:
    case = judged(request_of_size(MAX_BODY_BYTES + 1))
    disagreeing = Case(case.schema, case.definition, case.data, case.oracle, case.subject, Verdict(False, (), "type"))
    assert explain(disagreeing, ORACLE) is None


def test_every_departure_is_documented_and_tested() -> None:
    document = (REPO / "tests" / "conformance" / "EXCEPTIONS.md").read_text(encoding="utf-8")
    ids = {d.id for d in DEPARTURES}
    assert ids == {
        "sparktide-max-body-bytes",
        "sparktide-duplicate-key",
        "sparktide-tool-arguments",
        "regex-dollar-final-newline",
        "regex-whitespace-class",
        "lone-surrogate-escape",
    }
    assert all(f"`{i}`" in document for i in ids)
    source = Path(__file__).read_text(encoding="utf-8")
    assert all(f'listed("{i}")' in source for i in ids)
