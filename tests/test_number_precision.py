"""A JSON integer in a member the schema types ``number`` keeps every digit (issue 14, class 12).

Read as a float, 9007199254740993 (2**53 + 1) becomes 9007199254740992 with no diagnostic. Every
``number`` position of every generated binding decodes as ``int | float`` (a JSON integer stays
an ``int``); the tests check the class on the bindings' types, then decode and conversions on
the members that exposed it (Responses ``created_at`` / ``completed_at``, Gemini
``temperature``, a Gemini schema bound such as ``minimum``).
"""

from __future__ import annotations

import importlib
import json
from pathlib import Path
from typing import Any

import msgspec
import pytest

import lucent
from lucent._decode import SCHEMAS

BIG = 2**53 + 1  # the first integer a double cannot hold
ROUNDED = str(BIG - 1).encode()
ROOT = Path(__file__).resolve().parent.parent


def _float_positions(tp: Any) -> list[str]:
    """Every place under ``tp`` where msgspec would read a JSON integer as a float: a float
    type that is not a member of a union holding an int type too."""
    found: list[str] = []
    seen: set[type] = set()
    stack: list[tuple[Any, str, bool]] = [(msgspec.inspect.type_info(tp), "$", False)]
    while stack:
        info, where, int_beside = stack.pop()
        if isinstance(info, msgspec.inspect.FloatType) and not int_beside:
            found.append(where)
        elif isinstance(info, msgspec.inspect.StructType):
            if info.cls in seen:
                continue
            seen.add(info.cls)
            stack.extend((f.type, f"{info.cls.__name__}.{f.encode_name}", False) for f in info.fields)
        elif isinstance(info, msgspec.inspect.UnionType):
            has_int = any(isinstance(t, msgspec.inspect.IntType) for t in info.types)
            stack.extend((t, where, has_int) for t in info.types)
        elif isinstance(info, (msgspec.inspect.ListType, msgspec.inspect.VarTupleType)):
            stack.append((info.item_type, where + "[]", False))
        elif isinstance(info, msgspec.inspect.DictType):
            stack.append((info.value_type, where + "{}", False))
    return found


@pytest.mark.parametrize("schema", sorted(SCHEMAS))
def test_no_number_member_of_any_binding_reads_an_integer_as_a_float(schema: str) -> None:
    module = importlib.import_module(f"lucent.generated.{SCHEMAS[schema]}")
    types = [module.ROOT, *module.DECODE_TYPES.values()] if module.ROOT is not None else list(module.DECODE_TYPES.values())
    structs = [v for v in vars(module).values() if isinstance(v, type) and issubclass(v, msgspec.Struct) and v.__module__ == module.__name__]
    positions = sorted({p for tp in types + structs for p in _float_positions(tp)})
    assert positions == []


def _responses_response() -> dict[str, Any]:
    path = ROOT / "tests/data/lingua/snapshots/anthropicOpus5AdaptiveThinkingMaxEffortParam/responses/response.json"
    doc: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    doc["created_at"] = BIG
    doc["completed_at"] = BIG + 2
    return doc


def test_responses_created_at_and_completed_at_keep_a_big_integer_in_decode_and_encode() -> None:
    text = json.dumps(_responses_response()).encode()
    response = lucent.decode(text, "openai-responses", "Response")
    assert (response.created_at, type(response.created_at)) == (BIG, int)
    assert (response.completed_at, type(response.completed_at)) == (BIG + 2, int)
    written = lucent.encode(response)
    assert str(BIG).encode() in written and str(BIG + 2).encode() in written and ROUNDED not in written


def test_a_number_written_with_a_fraction_stays_a_float() -> None:
    doc = _responses_response()
    doc["created_at"] = 1.5
    assert lucent.decode(json.dumps(doc).encode(), "openai-responses", "Response").created_at == 1.5
    doc["created_at"] = 2.0
    created = lucent.decode(json.dumps(doc).encode(), "openai-responses", "Response").created_at
    assert (created, type(created)) == (2.0, float)


@pytest.mark.parametrize("target", ["lux", "openai-chat"])
def test_responses_created_at_keeps_a_big_integer_through_conversion(target: str) -> None:
    result = lucent.convert(json.dumps(_responses_response()).encode(), source="openai-responses", target=target, kind="response")
    written = lucent.encode(result.value)
    assert str(BIG).encode() in written and ROUNDED not in written


def _gemini_request() -> dict[str, Any]:
    schema = {"type": "OBJECT", "properties": {"n": {"type": "INTEGER", "minimum": BIG, "maximum": BIG + 2}}}
    return {
        "contents": [{"role": "user", "parts": [{"text": "hi"}]}],
        "generationConfig": {"temperature": BIG},
        "tools": [{"functionDeclarations": [{"name": "f", "description": "d", "parameters": schema}]}],
    }


def test_gemini_temperature_and_schema_bounds_keep_a_big_integer_in_decode() -> None:
    request = lucent.decode(json.dumps(_gemini_request()).encode(), "gemini", "GenerateContentRequest")
    assert (request.generationConfig.temperature, type(request.generationConfig.temperature)) == (BIG, int)
    bound = request.tools[0].functionDeclarations[0].parameters.properties["n"]
    assert (bound.minimum, bound.maximum) == (BIG, BIG + 2)
    assert all(type(v) is int for v in (bound.minimum, bound.maximum))


@pytest.mark.parametrize("target", ["lux", "llm-sdk"])
def test_gemini_temperature_and_schema_bounds_keep_a_big_integer_through_conversion(target: str) -> None:
    result = lucent.convert(json.dumps(_gemini_request()).encode(), source="gemini", target=target, kind="request")
    written = lucent.encode(result.value)
    assert written.count(str(BIG).encode()) == 2  # temperature and the bound
    assert str(BIG + 2).encode() in written and ROUNDED not in written


@pytest.mark.parametrize("target", ["gemini", "llm-sdk", "openai-responses", "openai-chat", "anthropic", "sparktide", "htmlp"])
def test_lux_temperature_keeps_a_big_integer_to_a_format_that_carries_it(target: str) -> None:
    lux = lucent.encode(lucent.convert(json.dumps(_gemini_request()).encode(), source="gemini", target="lux", kind="request", context={"model": "m", "stream": False}).value)
    result = lucent.convert(lux, source="lux", target=target, kind="request")
    written = lucent.encode(result.value)
    assert ROUNDED not in written
    assert str(BIG).encode() in written or any(d.field == "$.options.temperature" for d in result.diagnostics)


@pytest.mark.parametrize(
    ("schema", "instances"),
    [
        # a fractional bound: the integers take the integer bound that admits the same integers
        ({"type": "number", "minimum": 1.5, "maximum": 7.5}, [1, 2, 1.5, 1.49, 7, 7.5, 8, 7.6, BIG]),
        ({"type": "number", "exclusiveMinimum": 1.5, "exclusiveMaximum": 7.5}, [1, 2, 1.5, 1.6, 7, 7.5, 8]),
        # a bound a double rounds (2**53 + 1 is 2**53 as a float): compared exactly
        ({"type": "number", "maximum": BIG}, [BIG, BIG + 1, BIG - 1, 2.0**53, 2.0**53 + 2]),
        ({"type": "number", "exclusiveMinimum": BIG}, [BIG, BIG + 1, 2.0**53, 2.0**53 + 2]),
        # beyond int64
        ({"type": "number", "minimum": 2**70}, [2**70, 2**70 - 1, 2.0**70, 2.0**69, 1e30]),
        ({"type": ["integer", "number", "null"]}, [BIG, 1.5, None, "1"]),
        ({"type": "array", "items": {"type": "number", "maximum": BIG}}, [[BIG, 1.5], [BIG + 1], [2.0**53 + 2]]),
    ],
    ids=["fraction", "exclusive-fraction", "rounded-bound", "rounded-exclusive", "beyond-int64", "type-list", "items"],
)
def test_number_bounds_are_exact_and_an_integer_keeps_its_digits(schema: dict[str, Any], instances: list[Any]) -> None:
    from tests.test_vendor_bindings import agree

    from jsonschema import Draft202012Validator  # type: ignore[import-untyped]

    module = agree({"N": schema}, "N", instances)
    for value in (v for v in instances if Draft202012Validator(schema).is_valid(v)):
        decoded = msgspec.json.decode(json.dumps(value).encode(), type=module.DECODE_TYPES["N"])
        assert decoded == value and type(decoded) is type(value)
