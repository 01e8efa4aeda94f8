"""``lucent generate`` and ``lucent.decode(data, type=...)`` as the README ("Your own schemas")
tells a newcomer to use them (issue 17.4): a schema of their own, with ``not``, ``if``/``then``,
``allOf`` narrowing through ``$ref``, ``patternProperties`` and a numeric ``enum``, compiles by
the command, imports, and decodes with the schema's verdicts (jsonschema's)."""

from __future__ import annotations

import importlib
import json
import subprocess
import sys
from pathlib import Path

import jsonschema
import pytest

import lucent
from lucent.errors import UsageError, ValidationError

ORDER = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "$defs": {
        "Line": {"type": "object", "properties": {"sku": {"type": "string"}, "qty": {"type": "integer", "minimum": 1}}, "required": ["sku"]},
    },
    "type": "object",
    "allOf": [{"$ref": "#/$defs/Line"}, {"properties": {"sku": {"pattern": "^[A-Z]{3}-[0-9]+$"}}}],
    "properties": {
        "vat": {"enum": [0, 7, 19.5]},
        "note": {"not": {"type": "number"}},
        "express": {"type": "boolean"},
    },
    "patternProperties": {"^meta-": {"type": "string", "maxLength": 8}},
    "if": {"properties": {"express": {"const": True}}, "required": ["express"]},
    "then": {"required": ["vat"]},
}
ORDERS = [
    {"sku": "ABC-1"},
    {"sku": "ABC-1", "qty": 2, "vat": 7},
    {"sku": "ABC-1", "vat": 7.0},
    {"sku": "ABC-1", "vat": 19.5},
    {"sku": "ABC-1", "vat": 8},
    {"sku": "abc-1"},
    {"sku": "ABC-1", "qty": 0},
    {"qty": 1},
    {"sku": "ABC-1", "note": "ring twice"},
    {"sku": "ABC-1", "note": 1.5},
    {"sku": "ABC-1", "express": True},
    {"sku": "ABC-1", "express": True, "vat": 0},
    {"sku": "ABC-1", "express": False},
    {"sku": "ABC-1", "meta-src": "web"},
    {"sku": "ABC-1", "meta-src": "far too long"},
    {"sku": "ABC-1", "meta-src": 3},
    {"sku": "ABC-1", "other": [1]},
    [],
    "ABC-1",
]
POINT = {"type": "object", "properties": {"x": {"type": "integer"}, "y": {"type": "integer", "minimum": 0}}, "required": ["x", "y"], "additionalProperties": False}


def _generate(tmp_path: Path, name: str, schema: object, *extra: str) -> subprocess.CompletedProcess[str]:
    (tmp_path / f"{name}.json").write_text(json.dumps(schema), encoding="utf-8")
    return subprocess.run(
        [sys.executable, "-m", "lucent", "generate", str(tmp_path / f"{name}.json"), "--out", str(tmp_path / "models"), *extra],
        capture_output=True, text=True, timeout=300,
    )


@pytest.fixture()
def models(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.syspath_prepend(str(tmp_path / "models"))
    yield tmp_path
    for name in ("order", "point", "shop_order"):
        sys.modules.pop(name, None)


def _verdict(data: bytes, **how: object) -> bool:
    try:
        lucent.decode(data, **how)
    except ValidationError:
        return False
    return True


def test_a_newcomers_schema_compiles_imports_and_decodes_with_its_verdicts(models: Path) -> None:
    run = _generate(models, "order", ORDER)
    assert run.returncode == 0, run.stderr
    assert (models / "models" / "order.py").is_file()
    order = importlib.import_module("order")
    validator = jsonschema.Draft202012Validator(ORDER)
    for document in ORDERS:
        assert _verdict(json.dumps(document).encode(), type=order) == validator.is_valid(document), document
    assert lucent.decode(b'{"sku": "ABC-1", "vat": 7}', type=order) == {"sku": "ABC-1", "vat": 7}
    with pytest.raises(ValidationError) as caught:
        lucent.decode(b'{"sku": "ABC-1", "note": 2}', type=order)
    assert (caught.value.code, caught.value.path) == ("not", "$.note")
    with pytest.raises(ValidationError) as caught:
        lucent.decode(b'{"sku": "ABC-1", "express": true}', type=order)
    assert (caught.value.code, caught.value.path) == ("required", "$")
    assert lucent.decode(b'{"sku": "lower"}', type=order, definition="Line") == {"sku": "lower"}
    assert not _verdict(b'{"sku": "lower", "qty": 0}', type=order, definition="Line")


def test_a_schema_msgspec_expresses_exactly_becomes_structs(models: Path) -> None:
    run = _generate(models, "point", POINT)
    assert run.returncode == 0, run.stderr
    point = importlib.import_module("point")
    decoded = lucent.decode(b'{"x": 1, "y": 2}', type=point.Point)
    assert isinstance(decoded, point.Point) and (decoded.x, decoded.y) == (1, 2)
    assert lucent.decode(b'{"x": 1, "y": 2}', type=point) == decoded
    with pytest.raises(ValidationError) as caught:
        lucent.decode(b'{"x": 1, "y": -1}', type=point.Point)
    assert (caught.value.code, caught.value.path) == ("minimum", "$.y")
    validator = jsonschema.Draft202012Validator(POINT)
    for document in ({"x": 1, "y": 0}, {"x": 1.0, "y": 0}, {"x": 1}, {"x": 1, "y": 0, "z": 0}, {"x": "1", "y": 0}, []):
        assert _verdict(json.dumps(document).encode(), type=point.Point) == validator.is_valid(document), document


def test_module_name_and_a_refused_schema(models: Path) -> None:
    assert _generate(models, "order", ORDER, "--module", "shop_order").returncode == 0
    assert (models / "models" / "shop_order.py").is_file()
    run = _generate(models, "refused", {"pattern": "\\p{Script=Greek}"})
    assert run.returncode == 2 and "Traceback" not in run.stderr
    assert "#/pattern" in run.stderr and "[schema_refused]" in run.stderr


def test_type_must_be_a_generated_module_or_one_of_its_types() -> None:
    from lucent.generated import lux_ir_v1

    with pytest.raises(UsageError) as caught:
        lucent.decode(b"{}", type=dict)
    assert caught.value.code == "invalid_type"
    with pytest.raises(UsageError) as caught:
        lucent.decode(b"{}", "lux-ir-v1", type=lux_ir_v1)
    assert caught.value.code == "invalid_type"
    tool = b'{"name": "get_weather", "parameters": {"type": "object"}}'
    assert lucent.decode(tool, type=lux_ir_v1.LucentTool) == lucent.decode(tool, "lux-ir-v1", "LucentTool")
    with pytest.raises(ValidationError) as caught:
        lucent.decode(b'{"name": 1}', type=lux_ir_v1.LucentTool)
    assert caught.value.path.startswith("$")


def test_without_the_codegen_extra_it_names_the_extra(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    from lucent._generate import generate

    monkeypatch.setitem(sys.modules, "codegen.generate", None)  # import fails as if not installed
    with pytest.raises(UsageError) as caught:
        generate(tmp_path / "x.json", tmp_path)
    assert caught.value.code == "missing_dependency"
    assert "pip install 'lucent[codegen]'" in caught.value.message
