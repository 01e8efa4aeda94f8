"""A user's own schema (not, if/then, allOf narrowing through $ref, patternProperties, a
numeric enum) through codegen.generate.render_schema: it compiles, imports and decodes with
jsonschema's verdicts; a construct codegen cannot compile is one SchemaError naming keyword and
pointer (issue 17)."""

from __future__ import annotations

import json

import jsonschema
import pytest

from codegen.schema import SchemaError
from tests.schema_suite import Compiler

SCHEMA = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "$defs": {"Base": {"type": "object", "properties": {"kind": {"type": "string"}}, "required": ["kind"]}},
    "allOf": [{"$ref": "#/$defs/Base"}, {"properties": {"kind": {"enum": ["a", "b"]}}}],
    "properties": {
        "level": {"enum": [1, 2, 3.5]},
        "id": {"not": {"type": "integer"}},
    },
    "patternProperties": {"^x-": {"type": "string"}},
    "if": {"properties": {"kind": {"const": "a"}}},
    "then": {"required": ["level"]},
}
DOCUMENTS = [
    {"kind": "a", "level": 1},
    {"kind": "a", "level": 1.0},
    {"kind": "a"},
    {"kind": "b"},
    {"kind": "c"},
    {"kind": "b", "level": 4},
    {"kind": "b", "level": 3.5, "id": "x"},
    {"kind": "b", "id": 1},
    {"kind": "b", "id": 1.0},
    {"kind": "b", "x-tag": "t"},
    {"kind": "b", "x-tag": 1},
    {},
    [],
    "a",
]


@pytest.fixture()
def compiler():
    made = Compiler({})
    yield made
    made.close()


def test_a_users_schema_decodes_with_jsonschemas_verdicts(compiler) -> None:
    import lucent
    from lucent.errors import ValidationError

    compiler.compile(SCHEMA, "users_schema")
    for document in DOCUMENTS:
        expected = jsonschema.Draft202012Validator(SCHEMA).is_valid(document)
        try:
            decoded = lucent.decode(json.dumps(document), "users_schema")
        except ValidationError:
            got = False
        else:
            got = True
            assert decoded == document
        assert got == expected, document
    assert lucent.decode(b'{"kind": "b"}', "users_schema", "Base") == {"kind": "b"}
    with pytest.raises(ValidationError) as caught:
        lucent.decode(b'{"kind": "b", "id": 7}', "users_schema")
    assert (caught.value.code, caught.value.path) == ("not", "$.id")


@pytest.mark.parametrize(
    ("schema", "named"),
    [
        ({"pattern": "\\p{Script=Greek}"}, "#/pattern"),
        ({"properties": {"a": {"$ref": "#/$defs/missing"}}}, "#/properties/a/$ref"),
        ({"$schema": "http://json-schema.org/draft-07/schema#"}, "#/$schema"),
        ({"$defs": {"a": {"$ref": "#/$defs/a"}}, "$ref": "#/$defs/a"}, "#/$defs/a"),
        ({"minLength": "2"}, "#/minLength"),
    ],
)
def test_what_cannot_be_compiled_is_one_schema_error(compiler, schema, named: str) -> None:
    with pytest.raises(SchemaError) as caught:
        compiler.compile(schema, "refused_schema")
    assert str(caught.value).startswith(named)
