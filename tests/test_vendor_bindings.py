"""Bindings for the patterns the vendor schemas use, each checked against jsonschema.

Small schemas, compiled and rendered in memory the way ``python -m codegen`` does it:
one-value ``enum`` tags, unions msgspec cannot tell apart (dispatched), ``oneOf`` branches that
overlap, ``allOf`` composition of objects, ``required`` names outside ``properties``, integers
inside lists, integer bounds beyond int64, ``enum`` with ``null``. For every instance the
generated module accepts exactly what jsonschema accepts.
"""

from __future__ import annotations

import itertools
import json
import sys
import types
from pathlib import Path
from typing import Any

import msgspec
import pytest

pytest.importorskip("datamodel_code_generator")

from jsonschema import Draft202012Validator  # type: ignore[import-untyped]  # noqa: E402

from codegen import emit  # noqa: E402
from codegen.bindings import BindingCompiler  # noqa: E402
from codegen.schema import SchemaDocument  # noqa: E402
from lucent._validation import RuleViolation  # noqa: E402

_COUNTER = itertools.count()


def compiled(defs: dict[str, Any]) -> types.ModuleType:
    """The generated module for a schema of these definitions, loaded as lucent.generated._t<N>."""
    raw = {"$schema": "https://json-schema.org/draft/2020-12/schema", "$defs": defs}
    model = BindingCompiler(SchemaDocument(path=Path("t.json"), stem="t", raw=raw, text="")).compile()
    name = f"lucent.generated._t{next(_COUNTER)}"
    module = types.ModuleType(name)
    module.__package__ = "lucent.generated"
    sys.modules[name] = module
    exec(compile(emit.render_module(model), name, "exec"), module.__dict__)  # noqa: S102 - our own rendering
    return module


def accepts(module: types.ModuleType, definition: str, value: Any) -> bool:
    """Decode ``value`` as lucent.decode does (DECODE_TYPES, then DECODE_CHECKS)."""
    try:
        decoded = msgspec.json.decode(json.dumps(value).encode(), type=module.DECODE_TYPES[definition])
        check = module.DECODE_CHECKS.get(definition)
        if check is not None:
            check(decoded)
    except (msgspec.ValidationError, RuleViolation):
        return False
    return True


def agree(defs: dict[str, Any], definition: str, instances: list[Any]) -> types.ModuleType:
    module = compiled(defs)
    oracle = Draft202012Validator({"$defs": defs, "$ref": f"#/$defs/{definition}"})
    verdicts = [(value, oracle.is_valid(value), accepts(module, definition, value)) for value in instances]
    assert [v for v in verdicts if v[1] != v[2]] == []
    assert {v[1] for v in verdicts} == {True, False}, "the instances should include valid and invalid ones"
    return module


def obj(tag: str, *required: str, **props: Any) -> dict[str, Any]:
    return {
        "type": "object",
        "properties": {"type": {"type": "string", "enum": [tag]}, **props},
        "required": ["type", *required],
    }


def test_a_one_value_enum_is_a_type_tag() -> None:
    defs = {"U": {"oneOf": [{"$ref": "#/$defs/A"}, {"$ref": "#/$defs/B"}]}, "A": obj("a", "x", x={"type": "string"}), "B": obj("b")}
    module = agree(defs, "U", [{"type": "a", "x": "1"}, {"type": "b"}, {"type": "a"}, {"type": "c"}, {}, {"type": "b", "x": 1}, []])
    assert module.A.__struct_config__.tag == "a"
    assert "U" not in module.DECODE_CHECKS  # a msgspec tagged union, no dispatch


def test_tags_with_two_values_and_a_branch_without_its_tag_are_dispatched() -> None:
    custom = {"type": "object", "properties": {"type": {"anyOf": [{"type": "null"}, {"const": "custom"}]}, "name": {"type": "string"}}, "required": ["name"]}
    defs = {
        "Tool": {"oneOf": [{"$ref": "#/$defs/Custom"}, {"$ref": "#/$defs/Search"}, {"$ref": "#/$defs/Bash"}]},
        "Custom": custom,
        "Search": {**obj("web_search"), "properties": {"type": {"type": "string", "enum": ["web_search", "web_search_2025"]}}},
        "Bash": obj("bash", "cmd", cmd={"type": "string"}),
    }
    instances = [
        {"name": "f"}, {"type": None, "name": "f"}, {"type": "custom", "name": "f"}, {"type": "custom"},
        {"type": "web_search"}, {"type": "web_search_2025"}, {"type": "web_search_2026"},
        {"type": "bash", "cmd": "ls"}, {"type": "bash"}, {"type": "bash", "cmd": "ls", "name": "x"}, "x", None, [],
    ]
    module = agree(defs, "Tool", instances)
    assert "Tool" in module.DECODE_CHECKS
    decoded = msgspec.json.decode(b'{"type": "web_search_2025"}', type=module.DECODE_TYPES["Tool"])
    assert type(module.DECODE_CHECKS["Tool"](decoded)).__name__ == "Search"


def test_overlapping_one_of_branches_count_their_matches() -> None:
    defs = {
        "Model": {"anyOf": [{"type": "string"}, {"type": "string", "enum": ["gpt-4o", "o3"]}]},
        "Exclusive": {"oneOf": [{"type": "string"}, {"type": "string", "enum": ["gpt-4o", "o3"]}]},
        "Number": {"oneOf": [{"type": "integer"}, {"type": "number", "maximum": 10}]},
    }
    agree(defs, "Model", ["gpt-4o", "other", 1, None])
    agree(defs, "Exclusive", ["gpt-4o", "other", 1, None])
    agree(defs, "Number", [1, 1.0, 2.5, 11, 11.5, "1", True])


def test_all_of_objects_are_merged_into_one_struct() -> None:
    defs = {
        "Base": {"type": "object", "properties": {"id": {"type": "string"}, "n": {"anyOf": [{"type": "integer", "minimum": 0}, {"type": "null"}]}}},
        "Item": {
            "allOf": [
                {"$ref": "#/$defs/Base"},
                {"type": "object", "properties": {"id": {"type": "string", "maxLength": 3}, "n": {"type": "integer", "maximum": 5}, "kind": {"type": "string"}}, "required": ["id", "kind"]},
            ]
        },
    }
    instances = [
        {"id": "abc", "kind": "k"}, {"id": "abcd", "kind": "k"}, {"id": "a"}, {"id": "a", "kind": "k", "n": 3},
        {"id": "a", "kind": "k", "n": 6}, {"id": "a", "kind": "k", "n": -1}, {"id": "a", "kind": "k", "n": None}, {"id": "a", "kind": "k", "n": 2.0},
    ]
    module = agree(defs, "Item", instances)
    assert isinstance(module.Item, type) and issubclass(module.Item, msgspec.Struct)


def test_a_required_name_outside_properties_must_be_present() -> None:
    defs = {"A": {"type": "object", "properties": {"id": {"type": "string"}}, "required": ["id", "call_id"]}}
    agree(defs, "A", [{"id": "x", "call_id": None}, {"id": "x", "call_id": [1]}, {"id": "x"}, {"call_id": 1}])


def test_integers_in_lists_and_maps_are_integers() -> None:
    defs = {
        "A": {
            "type": "object",
            "properties": {
                "indices": {"type": "array", "items": {"type": "integer", "format": "int32", "minimum": -(2**31), "maximum": 2**31 - 1}},
                "counts": {"type": "object", "additionalProperties": {"type": "integer", "minimum": 0}},
            },
        }
    }
    module = agree(defs, "A", [{"indices": [1, 2.0, 3]}, {"indices": [1.5]}, {"indices": [2**31]}, {"counts": {"a": 1.0}}, {"counts": {"a": -1.0}}])
    decoded = msgspec.json.decode(b'{"indices": [2.0], "counts": {"a b": 3.0}}', type=module.A)
    assert decoded.indices == [2] and type(decoded.indices[0]) is int
    assert decoded.counts == {"a b": 3} and type(decoded.counts["a b"]) is int


def test_integer_bounds_beyond_int64_are_exact() -> None:
    # OpenAI's `seed` bounds are written as -9223372036854776000 .. 9223372036854776000.
    defs = {"A": {"type": "object", "properties": {"seed": {"type": "integer", "minimum": -9223372036854776000, "maximum": 9223372036854776000}}}}
    agree(defs, "A", [{"seed": 2**63}, {"seed": 9223372036854776000}, {"seed": 9223372036854776001}, {"seed": -(2**63)}, {"seed": 1.0}])


def test_an_enum_with_null() -> None:
    defs = {"A": {"type": ["string", "null"], "enum": ["stop", "length", None]}}
    agree(defs, "A", ["stop", None, "other", 1])


def test_unions_msgspec_cannot_build_are_dispatched() -> None:
    a = {"type": "object", "properties": {"a": {"type": "string"}}, "required": ["a"], "additionalProperties": False}
    defs = {
        "Lists": {"anyOf": [{"type": "array", "items": {"type": "string"}}, {"type": "array", "items": {"type": "integer"}}]},
        "Objects": {"anyOf": [a, {"type": "object", "additionalProperties": {"type": "integer"}}, {"type": "null"}]},
        "Nested": {"type": "array", "items": {"anyOf": [{"$ref": "#/$defs/Objects"}, {"type": "boolean"}]}},
    }
    agree(defs, "Lists", [["a"], [1], [1.0], ["a", 1], [], "a"])
    agree(defs, "Objects", [{"a": "x"}, {"b": 1}, {"a": 1}, {"a": "x", "b": 1}, None, 1])
    agree(defs, "Nested", [[{"a": "x"}, True, None, {"b": 2}], [{"a": 2}], [1]])


def test_a_map_bounds_its_size_and_its_keys() -> None:
    # OpenAI's VectorStoreFileAttributes.
    defs = {
        "Attributes": {
            "type": "object",
            "maxProperties": 2,
            "propertyNames": {"type": "string", "maxLength": 3},
            "additionalProperties": {"oneOf": [{"type": "string", "maxLength": 4}, {"type": "number"}, {"type": "boolean"}]},
        }
    }
    instances = [{}, {"a": "x", "b": 1}, {"a": 1, "b": 2, "c": 3}, {"abcd": 1}, {"a": "xxxxx"}, {"a": None}, {"a": True}, {"a": 1.5}]
    agree(defs, "Attributes", instances)


@pytest.mark.parametrize(
    "schema",
    [
        {"type": "array", "uniqueItems": True},
        {"type": "number", "multipleOf": 2},
        {"type": "object", "patternProperties": {"x": {}}},
        {"type": "object", "propertyNames": {"enum": ["a"]}},
        {"allOf": [{"type": "object", "properties": {"a": {}}}, {"type": "object", "additionalProperties": False}]},
    ],
    ids=["uniqueItems", "multipleOf", "patternProperties", "propertyNames-enum", "allOf-with-a-closed-branch"],
)
def test_a_keyword_the_bindings_cannot_honour_fails_the_build(schema: dict[str, Any]) -> None:
    from codegen.schema import SchemaError

    with pytest.raises(SchemaError):
        compiled({"A": schema})
