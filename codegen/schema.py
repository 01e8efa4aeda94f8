"""Load the JSON Schemas and resolve their references.

datamodel-code-generator is the schema parser: every subschema is read through its
``JsonSchemaObject`` model (so unknown or malformed keywords surface here, at build time), and
field names are made valid Python through its ``ModelResolver``. References are local JSON
Pointers (``#/$defs/X``, ``#/definitions/X``) and are resolved against the document.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from datamodel_code_generator.parser.jsonschema import JsonSchemaObject, get_model_by_path
from datamodel_code_generator.reference import ModelResolver

SCHEMA_DIR = Path(__file__).resolve().parent.parent / "schemas"


class SchemaError(Exception):
    """A schema uses a construct that codegen cannot compile exactly."""


@dataclass
class Node:
    """One subschema: the parsed ``JsonSchemaObject`` plus its JSON Pointer and raw dict."""

    pointer: str
    raw: Any
    parsed: JsonSchemaObject | None

    @property
    def is_true(self) -> bool:
        """``true`` or ``{}`` (annotations only): the schema accepts every JSON value."""
        if self.raw is True:
            return True
        if not isinstance(self.raw, dict):
            return False
        annotations = {
            "description", "title", "$dynamicAnchor", "$anchor", "examples", "default", "$comment",
            "deprecated", "readOnly", "writeOnly",
        }
        return set(self.raw) <= annotations

    def get(self, key: str, default: Any = None) -> Any:
        return self.raw.get(key, default) if isinstance(self.raw, dict) else default

    def child(self, *keys: str | int) -> Node:
        raw = self.raw
        for key in keys:
            raw = raw[key]
        pointer = self.pointer + "".join(f"/{k}" for k in keys)
        return Node(pointer, raw, _parse(raw, pointer))


def _parse(raw: Any, pointer: str) -> JsonSchemaObject | None:
    if isinstance(raw, bool):
        if raw is False:
            raise SchemaError(f"{pointer}: the `false` schema is not supported")
        return None
    if not isinstance(raw, dict):
        raise SchemaError(f"{pointer}: a schema must be an object or a boolean")
    return JsonSchemaObject.model_validate(raw)


@dataclass
class SchemaDocument:
    """One schema file: its stem, Python module name, draft and definitions."""

    path: Path
    stem: str
    raw: dict[str, Any]
    text: str
    definitions_key: str = field(init=False)

    def __post_init__(self) -> None:
        self.definitions_key = "$defs" if isinstance(self.raw, dict) and "$defs" in self.raw else "definitions"

    @property
    def module(self) -> str:
        return re.sub(r"[^0-9a-zA-Z]+", "_", self.stem).strip("_").lower()

    @property
    def draft(self) -> str:
        return str(self.raw.get("$schema", ""))

    @property
    def definitions(self) -> dict[str, Any]:
        return dict(self.raw.get(self.definitions_key, {}))

    def root(self) -> Node:
        return Node("#", self.raw, _parse(self.raw, "#"))

    def definition(self, name: str) -> Node:
        return self.root().child(self.definitions_key, name)

    def resolve(self, ref: str) -> tuple[str, Node]:
        """Resolve a ``$ref`` with datamodel-code-generator's ModelResolver.

        Returns the definition name and its node. Only references to this document's own
        definitions are supported (every schema here is self-contained).
        """
        resolver = ModelResolver(base_path=self.path.parent)
        with resolver.current_root_context([self.path.name]):
            resolved = resolver.resolve_ref(ref)
        document, _, pointer = resolved.partition("#")
        keys = [k for k in pointer.split("/") if k]
        if document != self.path.name or len(keys) != 2 or keys[0] != self.definitions_key:
            raise SchemaError(f"{self.stem}: unsupported $ref {ref!r} (only this document's definitions)")
        try:
            get_model_by_path(self.raw, keys)
        except (KeyError, TypeError):
            raise SchemaError(f"{self.stem}: $ref {ref!r} names no definition") from None
        return keys[1], self.definition(keys[1])


def load_all(schema_dir: Path = SCHEMA_DIR) -> list[SchemaDocument]:
    """Every ``*.json`` in ``schema_dir`` and then in ``schema_dir/vendor`` (the schemas that
    ``python -m codegen vendor`` extracts from the vendors' specs), each sorted by file name."""
    documents = []
    for path in sorted(schema_dir.glob("*.json")) + sorted((schema_dir / "vendor").glob("*.json")):
        text = path.read_text(encoding="utf-8")
        documents.append(SchemaDocument(path=path, stem=path.stem, raw=json.loads(text), text=text))
    return documents
