"""Compile one JSON Schema into a module of msgspec Structs and their validation rules.

The mapping from JSON Schema (draft 2020-12, and draft-07 for llm-sdk) to msgspec:

* an object with ``properties`` becomes a ``Struct`` (``kw_only``); ``additionalProperties: false``
  becomes ``forbid_unknown_fields=True``; an optional property defaults to ``UNSET`` (absent), so
  ``None`` always means JSON ``null``;
* an open object without properties (or ``JsonValue``/``true``) becomes ``dict[str, Any]``/``Any``;
* a ``oneOf``/``anyOf`` of objects told apart by a required ``const`` property becomes a msgspec
  tagged union (variants named ``<Union><Tag>``); a lone tagged Struct is decoded through a union
  with a sentinel so that the tag stays required, as the schema says;
* string ``enum``/``const`` become ``Literal``; lengths, bounds, item counts and ``pattern``
  (translated from ECMA-262) become ``msgspec.Meta``;
* ``integer`` accepts a number with a zero fractional part and normalises it to ``int``;
* every other keyword (``allOf``, ``anyOf``, ``oneOf``, ``not``, ``if``/``then``/``else``,
  ``format``) is compiled by :mod:`codegen.rules` into ``__post_init__`` code.

A keyword that cannot be compiled exactly raises :class:`codegen.schema.SchemaError`.
"""

from __future__ import annotations

import keyword
import re
from dataclasses import dataclass, field
from typing import Any

from codegen import rules
from codegen.ecma_regex import translate
from codegen.schema import Node, SchemaDocument, SchemaError

ANNOTATION_KEYS = {"description", "title", "$dynamicAnchor", "$anchor", "examples", "default", "$comment", "$schema", "$id"}
DEFINITION_KEYS = {"$defs", "definitions"}
INTEGER_FORMATS = {"uint32": (0, 2**32 - 1), "uint": (0, 2**64 - 1), "uint64": (0, 2**64 - 1), "int32": (-(2**31), 2**31 - 1), "int64": (-(2**63), 2**63 - 1)}


def pascal(text: str) -> str:
    parts = re.split(r"[^0-9a-zA-Z]+", text)
    return "".join(p[:1].upper() + p[1:] for p in parts if p)


def snake(text: str) -> str:
    text = re.sub(r"(?<=[a-z0-9])([A-Z])", r"_\1", text)
    return re.sub(r"[^0-9a-zA-Z]+", "_", text).strip("_").lower()


@dataclass
class FieldDef:
    attr: str
    json_name: str
    annotation: str
    required: bool
    doc: str | None
    schema: Node
    integer: bool = False
    nullable_default: bool = False

    @property
    def rename(self) -> str | None:
        return self.json_name if self.attr != self.json_name else None


@dataclass
class StructDef:
    name: str
    pointer: str
    doc: str | None
    forbid_unknown: bool
    fields: list[FieldDef] = field(default_factory=list)
    tag_field: str | None = None
    tag: str | None = None
    checks: list[str] = field(default_factory=list)
    node: Node | None = None

    def field_by_json(self, name: str) -> FieldDef | None:
        return next((f for f in self.fields if f.json_name == name), None)


@dataclass
class AliasDef:
    name: str
    expr: str
    doc: str | None
    runtime_expr: str | None = None  # differs from expr only where msgspec needs more than mypy
    order: int = 0


@dataclass
class ModuleModel:
    document: SchemaDocument
    structs: dict[str, StructDef] = field(default_factory=dict)
    aliases: dict[str, AliasDef] = field(default_factory=dict)
    literal_aliases: dict[str, AliasDef] = field(default_factory=dict)
    int_aliases: dict[str, tuple[str, str]] = field(default_factory=dict)
    decode_types: dict[str, str] = field(default_factory=dict)
    root_type: str | None = None
    root_one_of: list[str] = field(default_factory=list)
    protocol: dict[str, Any] = field(default_factory=dict)
    protocol_checks: dict[str, list[str]] = field(default_factory=dict)
    definition_kinds: dict[str, str] = field(default_factory=dict)


class BindingCompiler:
    """Walks one schema document and fills a :class:`ModuleModel`."""

    def __init__(self, document: SchemaDocument, protocol: dict[str, Any] | None = None) -> None:
        self.doc = document
        self.model = ModuleModel(document)
        self.model.protocol = dict(protocol or {})
        self._def_types: dict[str, str] = {}
        self._in_progress: set[str] = set()
        self._alias_counter = 0
        self._tags = self._collect_tags()

    # ------------------------------------------------------------------ entry
    def compile(self) -> ModuleModel:
        for name in self.doc.definitions:
            self.definition_type(name)
        for name in self.doc.definitions:
            self.model.decode_types[name] = self.decode_type_for(self._def_types[name])
        self._compile_root()
        self._compile_protocol()
        return self.model

    def decode_type_for(self, type_expr: str) -> str:
        struct = self.model.structs.get(type_expr)
        if struct is not None and struct.tag_field is not None:
            return self.tag_required(type_expr)
        return type_expr

    def _compile_root(self) -> None:
        root = self.doc.root()
        keys = set(root.raw) - ANNOTATION_KEYS - {self.doc.definitions_key}
        if not keys:
            self.model.root_type = "Any"
        elif "$ref" in keys and keys <= {"$ref", "type"} and root.raw.get("type", "object") == "object":
            name, _ = self.doc.resolve(root.raw["$ref"])
            self.model.root_type = self.model.decode_types[name]
        elif keys == {"oneOf"} and all(set(v) == {"$ref"} for v in root.raw["oneOf"]):
            # An untagged oneOf of definitions: each variant is decoded in turn and exactly one
            # must accept the document (the variants' required and closed properties exclude
            # each other); see lucent._decode.
            self.model.root_one_of = [self.doc.resolve(v["$ref"])[0] for v in root.raw["oneOf"]]
        else:
            name = pascal(str(root.raw.get("title", self.doc.stem)))
            self.model.root_type = self.decode_type_for(self.type_of(root, name, doc_name=name))
            self.model.decode_types.setdefault(name, self.model.root_type)

    # ------------------------------------------------------------- definitions
    def definition_type(self, name: str) -> str:
        if name in self._def_types:
            return self._def_types[name]
        if name in self._in_progress:
            return name  # a recursive reference: the class or alias is named after the definition
        self._in_progress.add(name)
        node = self.doc.definition(name)
        if name in self._tags:
            expr = self.struct(node, name, self._tags[name])
        else:
            expr = self.type_of(node, name, doc_name=name)
        if expr != name:
            self.add_alias(name, expr, node.get("description"))
            expr = name
        self._def_types[name] = expr
        self._in_progress.discard(name)
        return expr

    def add_alias(self, name: str, expr: str, doc: str | None, runtime_expr: str | None = None) -> None:
        self._alias_counter += 1
        pure_literal = expr.startswith("Literal[") and len(rules._split_union(expr)) == 1
        target = self.model.literal_aliases if pure_literal and runtime_expr is None else self.model.aliases
        target[name] = AliasDef(name, expr, doc, runtime_expr, self._alias_counter)

    # --------------------------------------------------------------- the walk
    def type_of(self, node: Node, name_hint: str, doc_name: str | None = None) -> str:
        """The Python annotation for ``node``; registers classes and aliases on the way."""
        if node.is_true:
            return "Any"
        raw = node.raw
        if "$ref" in raw:
            extra = set(raw) - ANNOTATION_KEYS - {"$ref"}
            if extra:
                raise SchemaError(f"{node.pointer}: $ref beside {sorted(extra)}")
            ref_name, _ = self.doc.resolve(raw["$ref"])
            return self.definition_type(ref_name)
        if "allOf" in raw and set(raw) - ANNOTATION_KEYS == {"allOf"}:
            # allOf narrowing: the first branch gives the type, the others are rules that the
            # enclosing object checks (see StructDef.checks).
            return self.type_of(node.child("allOf", 0), name_hint)
        for key in ("oneOf", "anyOf"):
            if key in raw and not self._is_object_schema(raw):
                return self.union_of(node, key, name_hint, doc_name)
        if "const" in raw:
            return self.literal([raw["const"]], node)
        if "enum" in raw:
            return self.literal(list(raw["enum"]), node)
        types = raw.get("type")
        if isinstance(types, list):
            return " | ".join(self.scalar_type(node, t, name_hint) for t in types)
        if types is None and ("properties" in raw or "additionalProperties" in raw or "required" in raw):
            types = "object"
        if types is None:
            if set(raw) - ANNOTATION_KEYS <= {"allOf", "anyOf", "oneOf", "not", "if", "then", "else"}:
                return "Any"
            raise SchemaError(f"{node.pointer}: no type in {sorted(raw)}")
        return self.scalar_type(node, types, name_hint)

    @staticmethod
    def _is_object_schema(raw: dict[str, Any]) -> bool:
        return raw.get("type") == "object" and "properties" in raw

    def literal(self, values: list[Any], node: Node) -> str:
        if not all(isinstance(v, str) for v in values):
            raise SchemaError(f"{node.pointer}: only string enum/const values are supported")
        return "Literal[" + ", ".join(_py_str(v) for v in values) + "]"

    def scalar_type(self, node: Node, json_type: str, name_hint: str) -> str:
        """A single JSON type; constraint keywords are read from the parsed JsonSchemaObject."""
        parsed = node.parsed
        assert parsed is not None
        if json_type == "object":
            return self.object_type(node, name_hint)
        if json_type == "array":
            items = node.child("items") if "items" in node.raw else None
            item_type = self.type_of(items, name_hint + "Item") if items is not None else "Any"
            item_type = self.field_type(item_type)
            return _annotated(f"list[{item_type}]", min_length=parsed.minItems, max_length=parsed.maxItems)
        if json_type == "string":
            return _annotated(
                "str",
                min_length=parsed.minLength,
                max_length=parsed.maxLength,
                pattern=translate(parsed.pattern) if parsed.pattern is not None else None,
            )
        bounds = {
            "ge": _number(parsed.minimum),
            "le": _number(parsed.maximum),
            # JsonSchemaObject reads the exclusive bounds as float, which would round a large
            # integer bound: take them from the document itself.
            "gt": _number(node.raw.get("exclusiveMinimum")),
            "lt": _number(node.raw.get("exclusiveMaximum")),
        }
        if json_type == "integer":
            return self.integer_alias(bounds, parsed.format)
        if json_type == "number":
            return _annotated("float", **bounds)
        if json_type == "boolean":
            return "bool"
        if json_type == "null":
            return "None"
        raise SchemaError(f"{node.pointer}: unknown type {json_type!r}")

    def integer_alias(self, bounds: dict[str, Any], fmt: str | None) -> str:
        """``int`` for mypy; ``int | float`` (with the bounds on both) for msgspec.

        JSON Schema counts 1.0 as an integer; __post_init__ normalises it to ``int``.
        """
        if fmt is not None and fmt not in INTEGER_FORMATS:
            raise SchemaError(f"format {fmt!r} on an integer is not supported")
        bounds = {k: v for k, v in bounds.items() if v is not None}
        name = "JsonInt" + "".join(f"_{k}{_num_name(v)}" for k, v in bounds.items())
        runtime = " | ".join(_annotated(t, **bounds) for t in ("int", "float"))
        self.model.int_aliases[name] = ("int", runtime)
        return name

    def object_type(self, node: Node, name_hint: str) -> str:
        raw = node.raw
        properties = raw.get("properties")
        additional = raw.get("additionalProperties", True)
        if not properties:
            if additional is True or additional == {}:
                return "dict[str, Any]"
            if isinstance(additional, dict):
                value = self.type_of(node.child("additionalProperties"), name_hint + "Value")
                return f"dict[str, {self.field_type(value)}]"
            raise SchemaError(f"{node.pointer}: closed object without properties")
        return self.struct(node, name_hint)

    # ---------------------------------------------------------------- structs
    def struct(self, node: Node, name: str, tag: tuple[str, str] | None = None) -> str:
        raw = node.raw
        if name in self.model.structs:
            raise SchemaError(f"{node.pointer}: class name {name} is taken")
        additional = raw.get("additionalProperties", True)
        if additional not in (True, False) and additional != {}:
            raise SchemaError(f"{node.pointer}: additionalProperties with a schema beside properties")
        unsupported = set(raw) - ANNOTATION_KEYS - DEFINITION_KEYS - {
            "type", "properties", "required", "additionalProperties", "allOf", "anyOf", "oneOf", "not", "if", "then", "else",
        }
        if unsupported:
            raise SchemaError(f"{node.pointer}: unsupported object keywords {sorted(unsupported)}")
        struct = StructDef(name=name, pointer=node.pointer, doc=raw.get("description"), forbid_unknown=additional is False, node=node)
        self.model.structs[name] = struct
        if tag is not None:
            struct.tag_field, struct.tag = tag
        required = set(raw.get("required", []))
        properties = raw.get("properties", {})
        missing = required - set(properties) - ({tag[0]} if tag else set())
        if missing and additional is False:
            raise SchemaError(f"{node.pointer}: required {sorted(missing)} can never be present")
        for prop in properties:
            if tag is not None and prop == tag[0]:
                continue
            prop_node = node.child("properties", prop)
            annotation = self.field_type(self.type_of(prop_node, name + pascal(prop)))
            struct.fields.append(
                FieldDef(
                    attr=_attr_name(prop),
                    json_name=prop,
                    annotation=annotation,
                    required=prop in required,
                    doc=prop_node.get("description"),
                    schema=prop_node,
                    integer=annotation.startswith("JsonInt") or "JsonInt" in annotation.split(" | ")[0],
                )
            )
        if missing:
            # required names outside `properties` on an open object: any JSON value is accepted
            # but it must be present; msgspec cannot see unknown keys, so this is unsupported.
            raise SchemaError(f"{node.pointer}: required {sorted(missing)} not among properties")
        struct.checks = rules.struct_checks(self, struct)
        return name

    def field_type(self, type_expr: str) -> str:
        """A lone tagged Struct in a field position still needs its tag: use the tag-required alias."""
        struct = self.model.structs.get(type_expr)
        if struct is not None and struct.tag_field is not None:
            return self.tag_required(type_expr)
        return type_expr

    def tag_required(self, class_name: str) -> str:
        struct = self.model.structs[class_name]
        alias = class_name + "Tagged"
        if alias not in self.model.aliases:
            sentinel = self.tag_sentinel(struct.tag_field or "")
            self.add_alias(
                alias,
                class_name,
                f"{class_name} where the `{struct.tag_field}` tag must be present (msgspec reads it as the union tag).",
                runtime_expr=f"{class_name} | {sentinel}",
            )
        return alias

    def tag_sentinel(self, tag_field: str) -> str:
        name = "_Missing" + pascal(tag_field) + "Tag"
        if name not in self.model.structs:
            self.model.structs[name] = StructDef(
                name=name,
                pointer="",
                doc=f"Never decoded: it makes the `{tag_field}` tag required where one tagged Struct stands alone.",
                forbid_unknown=False,
                tag_field=tag_field,
                tag="\x00lucent:no-tag",
                checks=[f"raise RuleViolation('const', 'the `{tag_field}` tag has no allowed value here')"],
            )
        return name

    # ----------------------------------------------------------------- unions
    def union_of(self, node: Node, key: str, name_hint: str, doc_name: str | None) -> str:
        raw = node.raw
        extra = set(raw) - ANNOTATION_KEYS - {key}
        if extra - {"type"}:
            raise SchemaError(f"{node.pointer}: {key} beside {sorted(extra)}")
        variants = [node.child(key, i) for i in range(len(raw[key]))]
        resolved = [self._deref(v) for v in variants]
        object_variants = [(v, r) for v, r in zip(variants, resolved) if _is_object(r.raw)]
        others = [(v, r) for v, r in zip(variants, resolved) if not _is_object(r.raw)]
        if key == "anyOf" and object_variants and len(object_variants) > 1:
            tag = _discriminator([r.raw for _, r in object_variants])
            if tag is None:
                raise SchemaError(f"{node.pointer}: anyOf of objects without a discriminator")
        parts: list[str] = []
        literals: list[str] = []
        for variant, _ in others:
            expr = self.type_of(variant, name_hint)
            if expr.startswith("Literal[") and expr not in self.model.literal_aliases:
                literals.append(expr[len("Literal["):-1])
            else:
                parts.append(expr)
        if literals:
            parts.insert(0, "Literal[" + ", ".join(literals) + "]")
        structs: list[str] = []
        if len(object_variants) == 1 and not _discriminator([object_variants[0][1].raw]):
            lone, lone_raw = object_variants[0][0], object_variants[0][1].raw
            suffix = "".join(pascal(p) for p in lone_raw.get("required", [])[:1]) or "Object"
            structs.append(self.type_of(lone, (doc_name or name_hint) + suffix))
        elif object_variants:
            tag_field = _discriminator([r.raw for _, r in object_variants])
            if tag_field is None:
                kinds = {_open_kind(r.raw) for _, r in object_variants}
                if len(object_variants) == len(kinds) and None not in kinds:
                    structs.extend(self.type_of(v, name_hint) for v, _ in object_variants)
                else:
                    raise SchemaError(f"{node.pointer}: {key} of objects without a const discriminator")
            else:
                for variant, target in object_variants:
                    tag_value = target.raw["properties"][tag_field]["const"]
                    if "$ref" in variant.raw:
                        structs.append(self.definition_type(self.doc.resolve(variant.raw["$ref"])[0]))
                    else:
                        structs.append(self.struct(variant, (doc_name or name_hint) + pascal(tag_value), (tag_field, tag_value)))
                if len(structs) == 1:
                    structs = [self.tag_required(structs[0])]
        ordered = [p for p in parts + structs if p != "None"] + (["None"] if "None" in parts else [])
        return " | ".join(ordered) if ordered else "Any"

    def _collect_tags(self) -> dict[str, tuple[str, str]]:
        """Definitions that a discriminated union names by ``$ref``, with their tag."""
        tags: dict[str, tuple[str, str]] = {}

        def walk(raw: Any) -> None:
            if isinstance(raw, list):
                for item in raw:
                    walk(item)
                return
            if not isinstance(raw, dict):
                return
            for key in ("oneOf", "anyOf"):
                refs = [v for v in raw.get(key, []) if isinstance(v, dict) and set(v) == {"$ref"}]
                targets = [(self.doc.resolve(v["$ref"])) for v in refs]
                objects = [(n, t.raw) for n, t in targets if _is_object(t.raw)]
                tag_field = _discriminator([o for _, o in objects]) if len(objects) > 1 else None
                for name, obj in objects if tag_field else []:
                    tag = (tag_field, obj["properties"][tag_field]["const"])
                    if tags.setdefault(name, tag) != tag:
                        raise SchemaError(f"{self.doc.stem}: {name} is tagged two ways")
            for value in raw.values():
                walk(value)

        walk(self.doc.raw)
        return tags

    def _deref(self, node: Node) -> Node:
        if isinstance(node.raw, dict) and "$ref" in node.raw:
            return self.doc.resolve(node.raw["$ref"])[1]
        return node

    # --------------------------------------------------------------- protocol
    def _compile_protocol(self) -> None:
        self.model.protocol_checks = rules.protocol_checks(self)


def _discriminator(objects: list[dict[str, Any]]) -> str | None:
    """The property that every object requires with a distinct string ``const``."""
    if not objects:
        return None
    candidates = None
    for obj in objects:
        props = obj.get("properties", {})
        names = {
            p for p in obj.get("required", [])
            if isinstance(props.get(p), dict) and isinstance(props[p].get("const"), str)
        }
        candidates = names if candidates is None else candidates & names
    for name in sorted(candidates or ()):
        values = [o["properties"][name]["const"] for o in objects]
        if len(set(values)) == len(values):
            return name
    return None


def _is_object(raw: Any) -> bool:
    return isinstance(raw, dict) and (raw.get("type") == "object" or "properties" in raw)


def _open_kind(raw: dict[str, Any]) -> str | None:
    if "properties" not in raw and raw.get("additionalProperties", True) in (True, {}):
        return "dict"
    return None


def _attr_name(prop: str) -> str:
    name = prop if prop.isidentifier() else snake(prop)
    if keyword.iskeyword(name) or name in {"self", "UNSET"}:
        name += "_"
    if not name.isidentifier():
        raise SchemaError(f"property {prop!r} has no Python name")
    return name


def _number(value: Any) -> int | float | None:
    """A bound as a plain number (JsonSchemaObject wraps them in UnionIntFloat)."""
    if value is None or isinstance(value, bool):
        return None
    value = getattr(value, "value", value)
    if not isinstance(value, (int, float)):
        raise SchemaError(f"bound {value!r} is not a number")
    return value


def _num_name(value: Any) -> str:
    return str(value).replace("-", "m").replace(".", "p")


def _py_str(value: str) -> str:
    return repr(value)


def _annotated(base: str, **meta: Any) -> str:
    items = [f"{k}={v!r}" for k, v in meta.items() if v is not None]
    if not items:
        return base
    return f"Annotated[{base}, Meta({', '.join(items)})]"
