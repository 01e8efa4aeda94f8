"""codegen/vendor.py: the vendors' specs translated into JSON Schema draft 2020-12."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from codegen import vendor
from jsonschema import Draft202012Validator  # type: ignore[import-untyped]

VENDOR_DIR = Path(__file__).resolve().parent.parent / "schemas" / "vendor"


@pytest.mark.parametrize("name", list(vendor.VENDORS))
def test_each_extracted_schema_is_draft_2020_12_and_names_its_source(name: str) -> None:
    schema = json.loads((VENDOR_DIR / f"{name}.json").read_text(encoding="utf-8"))
    Draft202012Validator.check_schema(schema)
    source = schema["x-lucent-source"]
    assert source["spec"].startswith("shared/specs/") and len(source["sha256"]) == 64 and source["version"]
    assert schema["$id"].endswith(f"/vendor/{name}.json") and source["version"] in schema["$comment"]
    assert [b["$ref"] for b in schema["anyOf"]] == [f"#/$defs/{r}" for r in vendor.VENDORS[name].roots]
    keywords = set(_keywords(schema))
    assert not keywords & {"nullable", "discriminator", "example", "$recursiveRef", "$recursiveAnchor", "xml", "externalDocs"}
    assert not [k for k in keywords if k.startswith("x-") and k != "x-lucent-source"]
    assert "#/components/" not in json.dumps(schema)


def _keywords(schema: Any) -> Any:
    """Every keyword used in a schema (property names are not keywords)."""
    if not isinstance(schema, dict):
        return
    for key, value in schema.items():
        yield key
        if key in ("properties", "$defs", "patternProperties"):
            for sub in value.values():
                yield from _keywords(sub)
        elif key in ("allOf", "anyOf", "oneOf", "prefixItems"):
            for sub in value:
                yield from _keywords(sub)
        elif key in ("items", "not", "additionalProperties", "propertyNames", "if", "then", "else", "contains"):
            yield from _keywords(value)


def test_the_recorded_spec_versions() -> None:
    versions = {n: json.loads((VENDOR_DIR / f"{n}.json").read_text(encoding="utf-8"))["x-lucent-source"]["version"] for n in vendor.VENDORS}
    assert versions == {
        "openai-chat": "2.3.0",
        "openai-responses": "2.3.0",
        "anthropic": "d2deb0fef6a15bf53cc6c53f07973a54",
        "gemini": "v1beta revision 20260717",
    }


def openapi(schemas: dict[str, Any], *roots: str) -> dict[str, Any]:
    return vendor._extract_openapi({"components": {"schemas": schemas}}, roots)


def test_openapi_keywords_become_json_schema() -> None:
    defs = openapi(
        {
            "A": {
                "type": "object",
                "x-oaiMeta": {"name": "A"},
                "discriminator": {"propertyName": "kind"},
                "example": {"n": 1},
                "properties": {
                    "n": {"type": "integer", "nullable": True, "format": "int32"},
                    "e": {"type": "string", "enum": ["a"], "nullable": True, "x-stainless-const": True},
                    "r": {"$ref": "#/components/schemas/B", "nullable": True, "description": "d"},
                    "t": {"$ref": "#/components/schemas/B", "type": "object"},
                    "self": {"type": "array", "items": {"oneOf": [{"$ref": "#/components/schemas/B"}, {"$recursiveRef": "#"}]}},
                },
                "$recursiveAnchor": True,
            },
            "B": {"type": "object", "properties": {}},
            "Unused": {"type": "string"},
        },
        "A",
    )
    assert set(defs) == {"A", "B"}
    a = defs["A"]
    assert "x-oaiMeta" not in a and "discriminator" not in a and "$recursiveAnchor" not in a
    assert a["examples"] == [{"n": 1}]
    assert a["properties"]["n"] == {"type": ["integer", "null"], "format": "int32", "minimum": -(2**31), "maximum": 2**31 - 1}
    assert a["properties"]["e"] == {"type": ["string", "null"], "enum": ["a", None]}
    assert a["properties"]["r"] == {"description": "d", "anyOf": [{"$ref": "#/$defs/B"}, {"type": "null"}]}
    assert a["properties"]["t"] == {"$ref": "#/$defs/B"}  # B is an object already
    assert a["properties"]["self"]["items"]["oneOf"][1] == {"$ref": "#/$defs/A"}


def test_an_openapi_30_boolean_exclusive_bound_is_refused() -> None:
    with pytest.raises(vendor.SpecError):
        openapi({"A": {"type": "number", "minimum": 0, "exclusiveMinimum": True}}, "A")


def test_discovery_types_and_formats_become_json_schema() -> None:
    document = {
        "schemas": {
            "Req": {
                "id": "Req",
                "type": "object",
                "properties": {
                    "n": {"type": "integer", "format": "int32"},
                    "big": {"type": "string", "format": "int64"},
                    "any": {"type": "any", "description": "x"},
                    "kind": {"type": "string", "enum": ["A", "B"], "enumDescriptions": ["a", "b"]},
                    "parts": {"type": "array", "items": {"$ref": "Part"}},
                    "meta": {"type": "object", "additionalProperties": {"type": "string"}},
                    "res": {"$ref": "Missing"},
                },
            },
            "Part": {"id": "Part", "type": "object", "properties": {"data": {"type": "string", "format": "byte"}}},
        }
    }
    defs, missing = vendor._extract_discovery(document, ("Req",))
    assert missing == ["Missing"] and "$comment" in defs["Missing"]
    props = defs["Req"]["properties"]
    assert props["n"] == {"type": "integer", "format": "int32", "minimum": -(2**31), "maximum": 2**31 - 1}
    assert props["big"] == {"type": ["integer", "string"], "format": "int64", "minimum": -(2**63), "maximum": 2**63 - 1}
    assert props["any"] == {"description": "x"}
    assert props["kind"] == {"type": "string", "enum": ["A", "B"]}
    assert props["parts"] == {"type": "array", "items": {"$ref": "#/$defs/Part"}}
    assert defs["Part"]["properties"]["data"] == {"type": "string", "format": "byte"}
    assert "required" not in defs["Req"] and "additionalProperties" not in defs["Req"]


@pytest.mark.skipif(not vendor.DEFAULT_SPECS.is_dir(), reason="../shared/specs is not beside the repository")
def test_the_committed_vendor_schemas_match_the_specs() -> None:
    assert vendor.main(["--check"]) == 0
