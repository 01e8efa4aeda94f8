"""The case runner: runs one case of tests/data/cases and checks every expectation it states.

A case (see tests/data/cases/README.md) names an ``operation`` and an ``expect`` object. :func:`run`
performs ``convert`` and ``round_trip`` through :func:`lucent.convert`; :func:`check` then asserts
each expectation it knows, and fails on one it does not (so no expectation is skipped silently).
``notes`` are requirements in words: each test states them as code of its own.
"""

from __future__ import annotations

import json
import pathlib
from dataclasses import dataclass, field
from typing import Any

import jsonschema
import pytest

import lucent
from lucent._context import read_by
from lucent.errors import ConversionError
from lucent.generated.lucent_diagnostics_v1 import ConversionDiagnostic

CASES = pathlib.Path(__file__).parent / "data" / "cases"
SCHEMAS = pathlib.Path(__file__).resolve().parents[1] / "schemas"

# format -> (schema file, draft); kind -> the definition a document of that kind is
FORMATS = {
    "lux": ("lux-ir-v1.json", jsonschema.Draft202012Validator),
    "sparktide": ("sparktide-remote-1.0.json", jsonschema.Draft202012Validator),
    "htmlp": ("htmlp-model-request.json", jsonschema.Draft202012Validator),
    "llm-sdk": ("llm-sdk.json", jsonschema.Draft7Validator),
}
DEFINITIONS = {
    ("lux", "request"): "LucentRequest",
    ("lux", "response"): "LucentResponse",
    ("sparktide", "request"): "RemoteModelRequest",
    ("sparktide", "response"): "RemoteModelResponse",
    ("llm-sdk", "request"): "LanguageModelInput",
    ("llm-sdk", "response"): "ModelResponse",
    ("htmlp", "request"): None,  # the schema root is the document
}
HANDLED = {
    "valid_against_target_schema", "output_contains", "diagnostics_include", "strict_raises",
    "round_trip_equal", "system_prompt_contains_in_order", "notes",
}


def load(case_id: str) -> dict[str, Any]:
    """The case whose file name starts with ``case_id`` (``"01"``)."""
    (path,) = CASES.glob(f"{case_id}-*.json")
    case: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return case


def validator(fmt: str, kind: str) -> Any:
    """A jsonschema validator for documents of ``fmt`` and ``kind`` (the schema's own draft)."""
    name, cls = FORMATS[fmt]
    schema = json.loads((SCHEMAS / name).read_text(encoding="utf-8"))
    definition = DEFINITIONS[(fmt, kind)]
    if definition is not None:
        defs = "$defs" if "$defs" in schema else "definitions"
        schema = {k: v for k, v in schema.items() if k not in ("oneOf", "$ref")}
        schema["$ref"] = f"#/{defs}/{definition}"
    return cls(schema)


def contains(actual: Any, expected: Any) -> bool:
    """Subset semantics: an object has these keys with (subsets of) these values; an array has
    these items in this order (a subsequence), each a subset of its match; a scalar is equal."""
    if isinstance(expected, dict):
        return isinstance(actual, dict) and all(k in actual and contains(actual[k], v) for k, v in expected.items())
    if isinstance(expected, list):
        if not isinstance(actual, list):
            return False
        items = iter(actual)
        return all(any(contains(item, want) for item in items) for want in expected)
    if isinstance(expected, (int, float)) and not isinstance(expected, bool):
        return isinstance(actual, (int, float)) and not isinstance(actual, bool) and actual == expected
    return type(actual) is type(expected) and actual == expected


def as_json(value: Any) -> Any:
    return json.loads(lucent.encode(value))


@dataclass
class Outcome:
    """What running a case gave: the output document and the diagnostics of every step."""

    output: Any
    diagnostics: list[ConversionDiagnostic] = field(default_factory=list)
    steps: list[Any] = field(default_factory=list)  # the intermediate documents (round trips)


def convert(case: dict[str, Any], source: str, target: str, data: Any, *, strict: bool = False) -> Any:
    # the case's context, as much of it as this step reads (a round trip's steps read other keys)
    context = read_by(case.get("context"), source, target, case["kind"]) if "context" in case else None
    return lucent.convert(json.dumps(data), source, target, kind=case["kind"], context=context, strict=strict)


def run(case: dict[str, Any]) -> Outcome:
    """Perform the case's operation (``convert`` or ``round_trip``)."""
    if case["operation"] == "convert":
        result = convert(case, case["source"], case["target"], case["input"])
        return Outcome(as_json(result.value), list(result.diagnostics))
    if case["operation"] == "round_trip":
        there = convert(case, case["source"], case["via"], case["input"])
        middle = as_json(there.value)
        back = convert(case, case["via"], case["source"], middle)
        return Outcome(as_json(back.value), list(there.diagnostics) + list(back.diagnostics), [middle])
    raise AssertionError(f"the case runner does not perform {case['operation']!r}")


def check(case: dict[str, Any]) -> Outcome:
    """Run the case and assert every expectation of ``expect``; returns the outcome for the notes."""
    expect = case["expect"]
    unknown = set(expect) - HANDLED
    assert not unknown, f"the case runner does not check {sorted(unknown)}"
    outcome = run(case)
    fields = [(d.field, d.status) for d in outcome.diagnostics]
    target = case.get("target", case["source"])
    if expect.get("valid_against_target_schema"):
        errors = sorted(validator(target, case["kind"]).iter_errors(outcome.output), key=lambda e: list(e.absolute_path))
        assert not errors, f"{errors[0].json_path}: {errors[0].message}"
    if "output_contains" in expect:
        assert contains(outcome.output, expect["output_contains"]), json.dumps(outcome.output)
    for want in expect.get("diagnostics_include", []):
        assert any(d.status in want["status"] and want["field_contains"] in d.field for d in outcome.diagnostics), (want, fields)
    if expect.get("strict_raises"):
        with pytest.raises(ConversionError) as raised:
            convert(case, case["source"], target, case["input"], strict=True)
        assert raised.value.code == "conversion_lossy"
        assert [(d.field, d.status) for d in raised.value.diagnostics] == fields
    if expect.get("round_trip_equal"):
        assert outcome.output == case["input"], (outcome.output, fields)
    if "system_prompt_contains_in_order" in expect:
        prompt = outcome.output.get("systemPrompt", "")
        at = 0
        for text in expect["system_prompt_contains_in_order"]:
            found = prompt.find(text, at)
            assert found >= 0, (text, prompt)
            at = found + len(text)
    return outcome
