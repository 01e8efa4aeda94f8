"""codegen/vendor_patches.toml: the documented patch layer over the extracted vendor schemas."""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any

import pytest

import lucent
from codegen import vendor, vendor_patches
from codegen.vendor_patches import Patch, PatchError, apply
from jsonschema import Draft202012Validator  # type: ignore[import-untyped]
from lucent.errors import LucentError
from tests.vendor_corpus import CORPUS, PROVIDERS, definition_for

VENDOR_DIR = Path(__file__).resolve().parent.parent / "schemas" / "vendor"
PATCHES = vendor_patches.load()
FOLDER = {fmt: folder for folder, (fmt, *_) in PROVIDERS.items()}


def _evidence(patch: Patch, spec: str) -> tuple[str | None, Any]:
    """(definition, document) of one evidence entry (``file`` or ``file[i]``)."""
    file, _, index = spec.partition("[")
    assert file.split("/")[1] == FOLDER[patch.format], f"{patch.id}: {spec} is not a {patch.format} recording"
    value = json.loads((CORPUS / file).read_bytes())
    if index:
        value = value[int(index.rstrip("]"))]
    return definition_for(FOLDER[patch.format], file.rsplit("/", 1)[1]), value


def _validator(document: dict[str, Any], definition: str | None) -> Any:
    root = Draft202012Validator(document)
    return root if definition is None else root.evolve(schema=document["$defs"][definition])


def test_the_patch_file_names_each_patch_once_with_reason_and_evidence() -> None:
    assert len(PATCHES) == 12
    assert len({p.id for p in PATCHES}) == len(PATCHES)
    for patch in PATCHES:
        assert patch.format in vendor.VENDORS and len(patch.reason) > 40 and patch.evidence


@pytest.mark.parametrize("patch", PATCHES, ids=lambda p: p.id)
def test_every_evidence_document_is_valid_under_the_patched_schema(patch: Patch) -> None:
    schema = json.loads((VENDOR_DIR / f"{patch.format}.json").read_text(encoding="utf-8"))
    for spec in patch.evidence:
        definition, value = _evidence(patch, spec)
        assert _validator(schema, definition).is_valid(value), spec
        try:
            lucent.decode(json.dumps(value), patch.format, definition)
        except LucentError as error:  # pragma: no cover - the message is the point
            pytest.fail(f"{spec}: {error.code} at {error.path}: {error}")


@pytest.mark.parametrize("name", list(vendor.VENDORS))
def test_the_committed_schemas_name_the_patch_layer(name: str) -> None:
    schema = json.loads((VENDOR_DIR / f"{name}.json").read_text(encoding="utf-8"))
    mine = [p.id for p in PATCHES if p.format == name]
    assert schema["x-lucent-source"].get("patches", []) == mine
    text = json.dumps(schema)
    for patch_id in mine:
        assert f"(codegen/vendor_patches.toml, {patch_id})" in text
    assert ("codegen/vendor_patches.toml" in schema["$comment"]) == bool(mine)


@cache
def _spec_documents() -> dict[str, Any]:
    return {}


@pytest.mark.skipif(not vendor.DEFAULT_SPECS.is_dir(), reason="../shared/specs is not beside the repository")
@pytest.mark.parametrize("patch", PATCHES, ids=lambda p: p.id)
def test_each_patch_is_needed_by_its_evidence(patch: Patch) -> None:
    """Without this one patch (all others applied), jsonschema refuses each evidence document."""
    others = [p for p in PATCHES if p.id != patch.id]
    schema = vendor.extract(vendor.VENDORS[patch.format], documents=_spec_documents(), patches=others)
    for spec in patch.evidence:
        definition, value = _evidence(patch, spec)
        assert not _validator(schema, definition).is_valid(value), f"{spec} is valid without {patch.id}"


# ------------------------------------------------------------------ the operations
def _patch(op: str, target: str, **more: Any) -> Patch:
    return Patch("p1", "anthropic", target, op, "a reason", ("x.json",), **more)


def _doc(**defs: Any) -> dict[str, Any]:
    return {"$comment": "extracted", "$defs": defs}


def test_optional_by_members() -> None:
    doc = _doc(A={"type": "object", "properties": {"a": {}, "b": {}}, "required": ["a", "b"]})
    apply(doc, [_patch("optional", "#/$defs/A", members=("a",))])
    assert doc["$defs"]["A"]["required"] == ["b"]
    assert doc["$defs"]["A"]["$comment"] == "Patched (codegen/vendor_patches.toml, p1): a not required."


def test_optional_where_reads_null_through_refs_and_defaults_but_not_tags() -> None:
    doc = _doc(
        N={"anyOf": [{"$ref": "#/$defs/O"}, {"type": "null"}]},
        O={
            "type": "object",
            "properties": {
                "tag": {"const": "o", "default": "o", "type": "string"},
                "n": {"$ref": "#/$defs/N"},
                "s": {"type": "string"},
                "d": {"type": "object", "default": {"type": "direct"}},
                "e": {"enum": ["x", None]},
                "inner": {"type": "object", "properties": {"z": {"type": ["integer", "null"]}}, "required": ["z"]},
            },
            "required": ["tag", "n", "s", "d", "e", "inner"],
        },
    )
    apply(doc, [_patch("optional", "#/$defs", where=("accepts-null", "has-default"))])
    obj = doc["$defs"]["O"]
    assert obj["required"] == ["tag", "s", "inner"]
    assert obj["$comment"] == "Patched (codegen/vendor_patches.toml, p1): n, d, e not required (accepts-null or has-default)."
    assert "required" not in obj["properties"]["inner"]
    only_null = _doc(O={"type": "object", "properties": {"d": {"type": "object", "default": {}}}, "required": ["d"]})
    with pytest.raises(PatchError, match="no required member"):
        apply(only_null, [_patch("optional", "#/$defs", where=("accepts-null",))])


def test_nullable_and_any_of() -> None:
    doc = _doc(
        A={"type": "object", "properties": {"s": {"type": "string", "description": "d"}, "r": {"$ref": "#/$defs/B"}}},
        B={"type": "object"},
        U={"oneOf": [{"$ref": "#/$defs/A"}, {"$ref": "#/$defs/B"}]},
    )
    apply(doc, [_patch("nullable", "#/$defs/A/properties/s"), _patch("nullable", "#/$defs/A/properties/r"), _patch("any-of", "#/$defs/U")])
    props = doc["$defs"]["A"]["properties"]
    assert props["s"]["type"] == ["string", "null"] and props["s"]["$comment"].endswith("p1): accepts null.")
    assert props["r"]["anyOf"] == [{"$ref": "#/$defs/B"}, {"type": "null"}]
    assert doc["$defs"]["U"]["anyOf"] == [{"$ref": "#/$defs/A"}, {"$ref": "#/$defs/B"}] and "oneOf" not in doc["$defs"]["U"]
    Draft202012Validator.check_schema(doc)
    assert Draft202012Validator({**doc, "$ref": "#/$defs/A"}).is_valid({"s": None, "r": None})


@pytest.mark.parametrize(
    ("patch", "message"),
    [
        (_patch("optional", "#/$defs/A", members=("b",)), "b not required at"),
        (_patch("optional", "#/$defs/Z", members=("a",)), "does not resolve"),
        (_patch("nullable", "#/$defs/A/properties/n"), "accepts null already"),
        (_patch("any-of", "#/$defs/A"), "no oneOf"),
        (_patch("nullable", "#"), "cannot be the document itself"),
    ],
)
def test_a_patch_that_changes_nothing_stops_the_extraction(patch: Patch, message: str) -> None:
    doc = _doc(A={"type": "object", "properties": {"a": {}, "n": {"type": ["string", "null"]}}, "required": ["a"]})
    with pytest.raises(PatchError, match=message):
        apply(doc, [patch])


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('[[patch]]\nid="a"\nformat="gemini"\ntarget="#/x"\nop="drop"\nreason="r"\nevidence=["f"]', "unknown op"),
        ('[[patch]]\nid="a"\nformat="gemini"\ntarget="#/x"\nop="optional"\nreason="r"\nevidence=["f"]', "either members or where"),
        ('[[patch]]\nid="a"\nformat="gemini"\ntarget="#/x"\nop="nullable"\nmembers=["m"]\nreason="r"\nevidence=["f"]', "belong to op optional"),
        ('[[patch]]\nid="a"\nformat="gemini"\ntarget="#/x"\nop="nullable"\nreason="r"\nevidence=[]', "reason and evidence"),
        ('[[patch]]\nid="a"\nformat="gemini"\ntarget="#/x"\nop="nullable"\nreason="r"', "keys must be"),
        ('[[patch]]\nid="a"\nformat="gemini"\ntarget="#/x"\nop="optional"\nwhere=["odd"]\nreason="r"\nevidence=["f"]', "unknown condition"),
    ],
)
def test_a_malformed_patch_file_is_refused(tmp_path: Path, text: str, message: str) -> None:
    path = tmp_path / "patches.toml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(PatchError, match=message):
        vendor_patches.load(path)
