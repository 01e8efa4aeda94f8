"""``python -m codegen vendor``: extract JSON Schemas from the vendors' published API specs.

The specs (OpenAI and Anthropic OpenAPI 3.1 documents, Google's discovery document for Gemini)
live outside this repository, in ``../shared/specs`` (``--specs DIR`` names another place). For
each vendor format this step follows the ``$ref`` closure of its root definitions, translates
every schema into JSON Schema draft 2020-12 and writes ``schemas/vendor/<format>.json``, which is
committed. The normal ``python -m codegen`` reads only ``schemas/`` and never the specs.

Translation (every step keeps the set of accepted documents the same, except where noted):

OpenAPI 3.1 (``components.schemas``)
    ``$ref: #/components/schemas/X`` -> ``#/$defs/X``; ``nullable: true`` -> ``null`` added to
    ``type`` (and to ``enum``), or ``anyOf: [<schema>, {type: null}]`` when there is no ``type``;
    ``example`` -> ``examples``; ``$recursiveRef: "#"`` (with ``$recursiveAnchor``) -> a ``$ref``
    to the definition that holds it; ``discriminator``, ``externalDocs``, ``xml`` and ``x-*``
    dropped (annotations: the variants carry their own tags); a ``$ref`` beside ``type``, when
    the referenced schema already implies that type, loses the redundant ``type``.
Google discovery (``schemas``)
    ``$ref: X`` -> ``#/$defs/X``; ``type: any`` -> ``{}``; ``enumDescriptions``,
    ``enumDeprecated`` and ``id`` dropped; an ``int64``/``uint64`` (a string in discovery
    documents) becomes ``type: [integer, string]`` with the integer bounds: the proto3 JSON
    mapping writes such a value as a string and reads a string or a number, and recorded Gemini
    requests send numbers; other formats stay as annotations. Discovery documents mark
    nothing ``required`` (it is written in the descriptions) and do not close their objects,
    so the extracted objects are open and have no required members, as published. A ``$ref`` to
    a schema the document does not define becomes a definition that accepts any value, with a
    ``$comment`` saying so.
Integers
    ``format: int32``/``int64``/``uint32``/``uint64`` on an integer adds the same bounds
    explicitly, so that a JSON Schema validator that treats ``format`` as an annotation
    (draft 2020-12's default) accepts what lucent accepts.

The root of each output is an ``anyOf`` of the root definitions (the roots of one vendor are
not mutually exclusive: a Gemini request and response have no required member, so ``{}`` is
both; lucent decodes a root document as the first definition that accepts it, so the most
constrained come first where the order matters), ``$defs`` holds the closure, and
``x-lucent-source`` (with ``$comment`` and ``$id``) records the spec and its version.

Patches
    After extraction, the format's patches from ``codegen/vendor_patches.toml`` are applied
    (``codegen.vendor_patches``): each documented change (reason and recorded corpus evidence)
    that makes the schema accept real traffic the published spec refuses. The output's
    ``$comment`` and ``x-lucent-source.patches`` name them, and each changed subschema carries a
    ``$comment`` naming its patch; ``--check`` compares against extraction + patches.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from codegen import vendor_patches
from lucent.formats import FORMATS as REGISTRY

ROOT = Path(__file__).resolve().parent.parent
VENDOR_DIR = ROOT / "schemas" / "vendor"
DEFAULT_SPECS = ROOT.parent / "shared" / "specs"
DRAFT = "https://json-schema.org/draft/2020-12/schema"

__all__ = ["VENDORS", "Vendor", "extract", "main", "render_all"]


@dataclass(frozen=True)
class Vendor:
    """One vendor format: the spec it comes from and the definitions that are its documents."""

    name: str
    title: str
    spec: str
    kind: str  # "openapi" or "discovery"
    roots: tuple[str, ...]


VENDORS: dict[str, Vendor] = {
    f.schema: Vendor(f.schema, f.title, f.vendor.spec, f.vendor.kind, f.vendor.roots) for f in REGISTRY.values() if f.vendor is not None
}
"""Format name (the schema file stem) -> its source."""

INTEGER_BOUNDS = {"int32": (-(2**31), 2**31 - 1), "uint32": (0, 2**32 - 1), "int64": (-(2**63), 2**63 - 1), "uint64": (0, 2**64 - 1)}

# JSON Schema keywords by the shape of their value.
_SUBSCHEMA = {"items", "not", "additionalProperties", "propertyNames", "contains", "if", "then", "else", "unevaluatedProperties", "unevaluatedItems"}
_SUBSCHEMA_LISTS = {"allOf", "anyOf", "oneOf", "prefixItems"}
_SUBSCHEMA_MAPS = {"properties", "patternProperties", "dependentSchemas"}
_VALUES = {
    "type", "enum", "const", "required", "format", "pattern",
    "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf",
    "minLength", "maxLength", "minItems", "maxItems", "uniqueItems", "minProperties", "maxProperties",
    "title", "description", "default", "examples", "deprecated", "readOnly", "writeOnly", "$comment",
}
_ANNOTATIONS = {"title", "description", "default", "examples", "deprecated", "readOnly", "writeOnly", "$comment"}
_OPENAPI_DROPPED = {"discriminator", "externalDocs", "xml", "$recursiveAnchor"}


class SpecError(Exception):
    """The spec holds something the extraction cannot translate exactly."""


# --------------------------------------------------------------------------- loading
def _load(path: Path) -> Any:
    text = path.read_text(encoding="utf-8")
    if path.suffix == ".json":
        return json.loads(text)
    import yaml

    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    return yaml.load(text, Loader=loader)  # noqa: S506 - a safe loader


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


# --------------------------------------------------------------------------- OpenAPI
class _OpenAPI:
    def __init__(self, document: dict[str, Any]) -> None:
        self.schemas: dict[str, Any] = document["components"]["schemas"]
        self.queue: list[str] = []
        self.current = ""

    def ref(self, ref: str) -> str:
        prefix = "#/components/schemas/"
        if not ref.startswith(prefix):
            raise SpecError(f"{self.current}: unsupported $ref {ref!r}")
        name = ref[len(prefix):]
        if name not in self.schemas:
            raise SpecError(f"{self.current}: $ref {ref!r} names no schema")
        self.queue.append(name)
        return f"#/$defs/{name}"

    def schema(self, node: Any, where: str) -> Any:
        if isinstance(node, bool):
            return node
        if not isinstance(node, dict):
            raise SpecError(f"{where}: a schema must be an object")
        out: dict[str, Any] = {}
        nullable = False
        for key, value in node.items():
            if key.startswith("x-") or key in _OPENAPI_DROPPED:
                continue
            if key == "nullable":
                nullable = bool(value)
            elif key == "example":
                out.setdefault("examples", []).insert(0, value)
            elif key == "examples":
                out.setdefault("examples", []).extend(value if isinstance(value, list) else [value])
            elif key == "$ref":
                out["$ref"] = self.ref(value)
            elif key == "$recursiveRef":
                if value != "#":
                    raise SpecError(f"{where}: $recursiveRef {value!r}")
                self.queue.append(self.current)
                out["$ref"] = f"#/$defs/{self.current}"
            elif key in _SUBSCHEMA:
                out[key] = self.schema(value, f"{where}/{key}")
            elif key in _SUBSCHEMA_LISTS:
                out[key] = [self.schema(v, f"{where}/{key}/{i}") for i, v in enumerate(value)]
            elif key in _SUBSCHEMA_MAPS:
                out[key] = {k: self.schema(v, f"{where}/{key}/{k}") for k, v in value.items()}
            elif key in ("exclusiveMinimum", "exclusiveMaximum") and isinstance(value, bool):
                raise SpecError(f"{where}: OpenAPI 3.0 boolean {key}")
            elif key in _VALUES:
                out[key] = value
            else:
                raise SpecError(f"{where}: unknown keyword {key!r}")
        if "$ref" in out and "type" in out and self._implies(out["$ref"], out["type"]):
            del out["type"]
        _integer_bounds(out)
        return _nullable(out) if nullable else out

    def _implies(self, ref: str, json_type: Any) -> bool:
        """Whether every value the referenced schema accepts has ``json_type``."""
        seen: set[str] = set()

        def types(node: Any) -> set[str] | None:
            if not isinstance(node, dict):
                return None
            if "$ref" in node:
                name = node["$ref"].rsplit("/", 1)[-1]
                if name in seen:
                    return None
                seen.add(name)
                return types(self.schemas[name])
            if isinstance(node.get("type"), str):
                return {node["type"]}
            for key in ("oneOf", "anyOf"):
                if key in node:
                    found: set[str] = set()
                    for variant in node[key]:
                        inner = types(variant)
                        if inner is None:
                            return None
                        found |= inner
                    return found
            return None

        found = types({"$ref": ref})
        return isinstance(json_type, str) and found == {json_type}


def _nullable(out: dict[str, Any]) -> dict[str, Any]:
    """OpenAPI ``nullable: true`` in JSON Schema terms."""
    if set(out) <= _ANNOTATIONS:
        return out  # accepts null already
    if "type" in out and "const" not in out:
        types = out["type"] if isinstance(out["type"], list) else [out["type"]]
        if "null" not in types:
            out["type"] = [*types, "null"]
        if "enum" in out and None not in out["enum"]:
            out["enum"] = [*out["enum"], None]
        return out
    notes = {k: v for k, v in out.items() if k in ("title", "description", "default", "deprecated")}
    rest = {k: v for k, v in out.items() if k not in notes}
    return {**notes, "anyOf": [rest, {"type": "null"}]}


def _integer_bounds(out: dict[str, Any]) -> None:
    """An integer's format made explicit as bounds (kept as ``format`` too)."""
    types = out.get("type")
    if "integer" not in (types if isinstance(types, list) else [types]):
        return
    bounds = INTEGER_BOUNDS.get(out.get("format", ""))
    if bounds is None:
        return
    low, high = bounds
    out["minimum"] = max(out.get("minimum", low), low)
    out["maximum"] = min(out.get("maximum", high), high)


def _extract_openapi(document: dict[str, Any], roots: tuple[str, ...]) -> dict[str, Any]:
    reader = _OpenAPI(document)
    reader.queue.extend(roots)
    defs: dict[str, Any] = {}
    while reader.queue:
        name = reader.queue.pop()
        if name in defs:
            continue
        if name not in reader.schemas:
            raise SpecError(f"root {name!r} is not in components.schemas")
        reader.current = name
        defs[name] = {}  # placeholder against cycles
        defs[name] = reader.schema(reader.schemas[name], name)
    return defs


# --------------------------------------------------------------------------- discovery
_DISCOVERY_DROPPED = {"id", "enumDescriptions", "enumDeprecated", "annotations", "location", "repeated"}
_DISCOVERY_VALUES = {"description", "enum", "pattern", "readOnly", "deprecated", "default"}


class _Discovery:
    def __init__(self, document: dict[str, Any]) -> None:
        self.schemas: dict[str, Any] = document["schemas"]
        self.queue: list[str] = []
        self.missing: set[str] = set()

    def ref(self, name: str) -> str:
        if name in self.schemas:
            self.queue.append(name)
        else:
            self.missing.add(name)
        return f"#/$defs/{name}"

    def schema(self, node: Any, where: str) -> dict[str, Any]:
        if not isinstance(node, dict):
            raise SpecError(f"{where}: a schema must be an object")
        out: dict[str, Any] = {}
        json_type = node.get("type")
        fmt = node.get("format")
        for key, value in node.items():
            if key in _DISCOVERY_DROPPED or key in ("type", "format"):
                continue
            if key == "$ref":
                out["$ref"] = self.ref(value)
            elif key == "properties":
                out["properties"] = {k: self.schema(v, f"{where}/properties/{k}") for k, v in value.items()}
            elif key in ("items", "additionalProperties"):
                out[key] = self.schema(value, f"{where}/{key}")
            elif key in ("minimum", "maximum"):
                out[key] = json.loads(value) if isinstance(value, str) else value
            elif key in _DISCOVERY_VALUES:
                out[key] = value
            else:
                raise SpecError(f"{where}: unknown discovery keyword {key!r}")
        if json_type is None:
            if "$ref" not in out:
                raise SpecError(f"{where}: neither type nor $ref")
        elif json_type == "any":
            pass  # any JSON value
        elif json_type in ("string", "integer", "number", "boolean", "object", "array", "null"):
            out = {"type": json_type, **out}
        else:
            raise SpecError(f"{where}: unknown discovery type {json_type!r}")
        if fmt is not None:
            out["format"] = fmt
            if json_type == "string" and fmt in ("int64", "uint64"):
                # The proto3 JSON mapping writes a 64-bit integer as a string and reads either a
                # string or a number (recorded Gemini requests send numbers).
                out["type"] = ["integer", "string"]
            _integer_bounds(out)
        return out


def _extract_discovery(document: dict[str, Any], roots: tuple[str, ...]) -> tuple[dict[str, Any], list[str]]:
    reader = _Discovery(document)
    reader.queue.extend(roots)
    defs: dict[str, Any] = {}
    while reader.queue:
        name = reader.queue.pop()
        if name in defs:
            continue
        defs[name] = reader.schema(reader.schemas[name], name)
    for name in sorted(reader.missing):
        defs[name] = {
            "$comment": f"The discovery document refers to {name} but does not define it: any JSON value is accepted here."
        }
    return defs, sorted(reader.missing)


# --------------------------------------------------------------------------- output
def _source(vendor: Vendor, specs: Path, document: dict[str, Any]) -> dict[str, Any]:
    path = specs / vendor.spec
    source: dict[str, Any] = {"spec": f"shared/specs/{vendor.spec}", "sha256": _sha256(path), "roots": list(vendor.roots)}
    if vendor.kind == "openapi":
        source["openapi"] = str(document.get("openapi", ""))
        if "version" in document.get("info", {}):
            source["version"] = str(document["info"]["version"])
    stats = path.parent / ".stats.yml"
    if stats.is_file():
        for line in stats.read_text(encoding="utf-8").splitlines():
            key, _, value = line.partition(":")
            if key.strip() in ("openapi_spec_hash", "config_hash"):
                source[key.strip()] = value.strip()
        source["version"] = source.get("openapi_spec_hash", "")
    if vendor.kind == "discovery":
        source["version"] = f"{document.get('version', '')} revision {document.get('revision', '')}"
        source["revision"] = str(document.get("revision", ""))
        source["discovery_id"] = str(document.get("id", ""))
    return source


def extract(
    vendor: Vendor,
    specs: Path = DEFAULT_SPECS,
    documents: dict[str, Any] | None = None,
    patches: list[vendor_patches.Patch] | None = None,
) -> dict[str, Any]:
    """The JSON Schema document for one vendor format: its spec's closure, then its patches
    (``patches`` defaults to ``codegen/vendor_patches.toml``; ``[]`` gives the published spec as
    extracted)."""
    cache = documents if documents is not None else {}
    if vendor.spec not in cache:
        cache[vendor.spec] = _load(specs / vendor.spec)
    document = cache[vendor.spec]
    note = ""
    if vendor.kind == "openapi":
        defs = _extract_openapi(document, vendor.roots)
    else:
        defs, missing = _extract_discovery(document, vendor.roots)
        if missing:
            note = f" The discovery document does not define {', '.join(missing)}, which it refers to; it accepts any value here."
    source = _source(vendor, specs, document)
    mine = [p for p in (vendor_patches.load() if patches is None else patches) if p.format == vendor.name]
    if mine:
        source["patches"] = [p.id for p in mine]
        note += (
            f" Then patched by {vendor_patches.PATCHES_NAME} ({len(mine)} patch{'es' if len(mine) > 1 else ''}: "
            f"{', '.join(p.id for p in mine)}); each changed subschema has a $comment naming its patch."
        )
    out = {
        "$schema": DRAFT,
        "$id": f"https://lucent.dev/schemas/vendor/{vendor.name}.json",
        "title": vendor.title,
        "description": (
            f"{vendor.title}: the JSON Schema subset of {vendor.spec} ({source['version']}) reachable from "
            f"{', '.join(vendor.roots)}. A document is any one of them."
        ),
        "$comment": (
            f"Extracted by `python -m codegen vendor` from shared/specs/{vendor.spec} "
            f"(version {source['version']}, sha256 {source['sha256'][:16]}); do not edit.{note}"
        ),
        "x-lucent-source": source,
        "anyOf": [{"$ref": f"#/$defs/{root}"} for root in vendor.roots],
        "$defs": {name: defs[name] for name in sorted(defs)},
    }
    return vendor_patches.apply(out, mine)


def render_all(specs: Path = DEFAULT_SPECS) -> dict[Path, str]:
    """Every file of schemas/vendor/, by path."""
    cache: dict[str, Any] = {}
    return {
        VENDOR_DIR / f"{name}.json": json.dumps(extract(vendor, specs, cache), indent=2, ensure_ascii=False) + "\n"
        for name, vendor in VENDORS.items()
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m codegen vendor", description=__doc__.split("\n\n")[0])
    parser.add_argument("--specs", type=Path, default=DEFAULT_SPECS, help=f"the specs folder (default {DEFAULT_SPECS})")
    parser.add_argument("--check", action="store_true", help="write nothing; exit 1 if schemas/vendor/ is stale")
    args = parser.parse_args(argv)
    if not args.specs.is_dir():
        print(f"codegen vendor: no specs folder at {args.specs} (pass --specs DIR)", file=sys.stderr)
        return 2
    started = time.perf_counter()
    try:
        files = render_all(args.specs)
    except (SpecError, vendor_patches.PatchError) as exc:
        print(f"codegen vendor: {exc}", file=sys.stderr)
        return 1
    stale = sorted(p for p, text in files.items() if not p.is_file() or p.read_text(encoding="utf-8") != text)
    elapsed = time.perf_counter() - started
    if args.check:
        for path in stale:
            print(f"stale: {path.relative_to(ROOT)}", file=sys.stderr)
        print(f"codegen vendor --check: {len(files)} files, {len(stale)} differ ({elapsed:.2f} s)")
        return 1 if stale else 0
    for path in stale:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(files[path], encoding="utf-8")
    print(f"codegen vendor: {len(files)} files, {len(stale)} written ({elapsed:.2f} s); now run `python -m codegen`")
    return 0
