"""Compile one JSON Schema into a module of msgspec Structs and their validation rules.

The mapping from JSON Schema (draft 2020-12, and draft-07 for llm-sdk) to msgspec:

* an object with ``properties`` becomes a ``Struct`` (``kw_only``); ``additionalProperties: false``
  becomes ``forbid_unknown_fields=True``; an optional property defaults to ``UNSET`` (absent), so
  ``None`` always means JSON ``null``;
* an open object without properties (or ``JsonValue``/``true``) becomes ``dict[str, Any]``/``Any``;
* a ``oneOf``/``anyOf`` of objects told apart by a required ``const`` (or one-value ``enum``,
  OpenAPI's way of writing it) property becomes a msgspec tagged union (variants named
  ``<Union><Tag>``); a lone tagged Struct is decoded through a union with a sentinel so that the
  tag stays required, as the schema says;
* a union that msgspec cannot decode exactly as the schema says (``oneOf`` branches that
  overlap, objects without such a tag, two list types, a Struct beside a map) is *dispatched*:
  typed as the union for mypy and as ``Any`` for msgspec, and converted branch by branch in
  ``__post_init__`` (``DECODE_CHECKS`` for a definition decoded on its own);
* an ``allOf`` of objects that is a whole definition becomes one Struct (their properties and
  ``required`` merged);
* a ``required`` name outside ``properties`` (of an open object) is a required ``Any`` field;
* string ``enum``/``const`` become ``Literal``; lengths, bounds, item counts and ``pattern``
  (translated from ECMA-262) become ``msgspec.Meta``;
* ``integer`` accepts a number with a zero fractional part and normalises it to ``int`` (inside
  lists and maps too); integer bounds beyond int64 are checked in ``__post_init__``;
* every other keyword (``allOf``, ``anyOf``, ``oneOf``, ``not``, ``if``/``then``/``else``,
  ``format``) is compiled by :mod:`codegen.rules` into ``__post_init__`` code.

A keyword that cannot be compiled exactly raises :class:`codegen.schema.SchemaError`.
"""

from __future__ import annotations

import keyword
import math
import re
from dataclasses import dataclass, field
from typing import Any

from codegen import rules
from codegen.ecma_regex import translate
from datamodel_code_generator.parser.jsonschema import JsonSchemaObject

from codegen.schema import Node, SchemaDocument, SchemaError

ANNOTATION_KEYS = {
    "description", "title", "$dynamicAnchor", "$anchor", "examples", "default", "$comment", "$schema", "$id",
    "deprecated", "readOnly", "writeOnly", "x-lucent-source", "x-lucent-type-parameter",
}
DEFINITION_KEYS = {"$defs", "definitions"}
ANNOTATION_FORMATS = {"unixtime"}
"""Integer formats that only annotate (draft 2020-12's default for a format): OpenAI's `unixtime`.
Any other format that INTEGER_FORMATS does not know fails the build."""
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
    type_params: list[str] = field(default_factory=list)  # Generic[...] parameters (x-lucent-type-parameter)

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
class DispatchDef:
    """A union decoded by converting a plain JSON value to each branch (see BindingCompiler.dispatch)."""

    name: str
    branches: list[str]
    one_of: bool
    table: tuple[str, dict[Any, list[int]], list[int], list[int]] | None = None  # key, by tag value, default, non-objects


@dataclass
class ModuleModel:
    document: SchemaDocument
    structs: dict[str, StructDef] = field(default_factory=dict)
    type_params: set[str] = field(default_factory=set)  # TypeVars of Generic Structs (x-lucent-type-parameter)
    aliases: dict[str, AliasDef] = field(default_factory=dict)
    literal_aliases: dict[str, AliasDef] = field(default_factory=dict)
    int_aliases: dict[str, tuple[str, str]] = field(default_factory=dict)
    int_bounds: dict[str, dict[str, int | float]] = field(default_factory=dict)
    int_formats: dict[str, set[str]] = field(default_factory=dict)  # formats the bounds do not imply
    int_wide: dict[str, dict[str, int | float]] = field(default_factory=dict)  # bounds beyond int64
    num_aliases: dict[str, tuple[str, str]] = field(default_factory=dict)  # JSON Schema numbers: (mypy, msgspec)
    num_bounds: dict[str, dict[str, int | float]] = field(default_factory=dict)
    num_exact: dict[str, dict[str, int | float]] = field(default_factory=dict)  # bounds msgspec.Meta cannot hold exactly
    decode_types: dict[str, str] = field(default_factory=dict)
    root_type: str | None = None
    root_one_of: list[str] = field(default_factory=list)
    root_any_of: list[str] = field(default_factory=list)
    protocol: dict[str, Any] = field(default_factory=dict)
    protocol_checks: dict[str, list[str]] = field(default_factory=dict)
    definition_kinds: dict[str, str] = field(default_factory=dict)
    dispatches: dict[str, DispatchDef] = field(default_factory=dict)


class BindingCompiler:
    """Walks one schema document and fills a :class:`ModuleModel`."""

    def __init__(self, document: SchemaDocument, protocol: dict[str, Any] | None = None) -> None:
        self.doc = document
        self.model = ModuleModel(document)
        self.model.protocol = dict(protocol or {})
        self._def_types: dict[str, str] = {}
        self._in_progress: set[str] = set()
        self._def_of: dict[str, str] = {}  # Python name -> definition name
        self._def_nodes: dict[str, Node] = {}
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
        elif keys == {"anyOf"} and all(set(v) - ANNOTATION_KEYS == {"$ref"} for v in root.raw["anyOf"]):
            # An anyOf of definitions (the vendor schemas: a request, a response or a stream
            # event): the first definition that accepts the document gives its type.
            self.model.root_any_of = [self.doc.resolve(v["$ref"])[0] for v in root.raw["anyOf"]]
        else:
            name = pascal(str(root.raw.get("title", self.doc.stem)))
            self.model.root_type = self.decode_type_for(self.type_of(root, name, doc_name=name))
            self.model.decode_types.setdefault(name, self.model.root_type)

    # ------------------------------------------------------------- definitions
    def definition_type(self, name: str) -> str:
        if name in self._def_types:
            return self._def_types[name]
        py = name if name.isidentifier() and not keyword.iskeyword(name) else re.sub(r"\W", "_", name).strip("_") + "_"
        self._def_of[py] = name
        if py in self._in_progress:
            return py  # a recursive reference: the class or alias is named after the definition
        self._in_progress.add(py)
        node = self.definition_node(name)
        if name in self._tags:
            expr = self.struct(node, py, self._tags[name])
        else:
            expr = self.type_of(node, py, doc_name=py)
        if expr != py:
            self.add_alias(py, expr, node.get("description"))
            expr = py
        self._def_types[name] = expr
        self._in_progress.discard(py)
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
            # `number` takes in every integer: with both, the integer branch would be a second int type.
            listed = [t for t in types if not (t == "integer" and "number" in types)]
            return " | ".join(self.scalar_type(node, t, name_hint) for t in listed)
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
        types = node.get("type")
        if types is not None:
            allowed = set(types) if isinstance(types, list) else {types}
            values = [v for v in values if ("null" if v is None else "string" if isinstance(v, str) else "other") in allowed]
        strings = [v for v in values if isinstance(v, str)]
        if len(strings) + values.count(None) != len(values):
            raise SchemaError(f"{node.pointer}: only string and null enum/const values are supported")
        parts = (["Literal[" + ", ".join(_py_str(v) for v in strings) + "]"] if strings else []) + (["None"] if None in values else [])
        if not parts:
            raise SchemaError(f"{node.pointer}: an enum that allows no value")
        return " | ".join(parts)

    def scalar_type(self, node: Node, json_type: str, name_hint: str) -> str:
        """A single JSON type; constraint keywords are read from the parsed JsonSchemaObject."""
        parsed = node.parsed
        assert parsed is not None
        if json_type == "object":
            return self.object_type(node, name_hint)
        if json_type == "array":
            unsupported = set(node.raw) & {"uniqueItems", "contains", "prefixItems", "minContains", "maxContains", "unevaluatedItems"}
            if unsupported:
                raise SchemaError(f"{node.pointer}: unsupported array keywords {sorted(unsupported)}")
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
            # JsonSchemaObject reads bounds as float, which would round a large integer bound:
            # take them from the document itself.
            "ge": _number(node.raw.get("minimum")),
            "le": _number(node.raw.get("maximum")),
            "gt": _number(node.raw.get("exclusiveMinimum")),
            "lt": _number(node.raw.get("exclusiveMaximum")),
        }
        if "multipleOf" in node.raw:
            raise SchemaError(f"{node.pointer}: multipleOf is not supported")
        if json_type == "integer":
            return self.integer_alias(bounds, parsed.format)
        if json_type == "number":
            return self.number_alias(bounds)
        if json_type == "boolean":
            return "bool"
        if json_type == "null":
            return "None"
        raise SchemaError(f"{node.pointer}: unknown type {json_type!r}")

    def integer_alias(self, bounds: dict[str, Any], fmt: str | None) -> str:
        """``int`` for mypy; ``int | float`` (the bounds on the int) for msgspec.

        JSON Schema counts 1.0 as an integer; __post_init__ normalises it to ``int``.
        """
        bounds = {k: v for k, v in bounds.items() if v is not None}
        name = "JsonInt" + "".join(f"_{k}{_num_name(v)}" for k, v in bounds.items())
        # msgspec takes integer bounds within int64 only; a wider one is checked in __post_init__.
        narrow = {k: v for k, v in bounds.items() if not isinstance(v, int) or -(2**63) <= v <= 2**63 - 1}
        # The float branch carries no bound: as_integer (__post_init__) checks that the number is
        # integral first, so that 0.5 under minimum 1 is a `type` fault, as jsonschema names it.
        runtime = f"{_annotated('int', **narrow)} | float"
        self.model.int_aliases[name] = ("int", runtime)
        self.model.int_bounds[name] = bounds
        if narrow != bounds:
            self.model.int_wide[name] = {k: v for k, v in bounds.items() if k not in narrow}
        if fmt is not None and fmt not in INTEGER_FORMATS and fmt not in ANNOTATION_FORMATS:
            raise SchemaError(f"format {fmt!r} on an integer is not supported")
        formats = self.model.int_formats.setdefault(name, set())
        if fmt is not None and fmt in INTEGER_FORMATS:
            low, high = INTEGER_FORMATS[fmt]
            if not (bounds.get("ge", low - 1) >= low and bounds.get("le", high + 1) <= high):
                formats.add(fmt)
        return name

    def number_alias(self, bounds: dict[str, Any]) -> str:
        """``float`` for mypy; ``int | float`` (each with the bounds) for msgspec.

        A JSON integer stays an ``int`` (9007199254740993 read as a float would be ...992); a
        number written with a fraction or an exponent is a ``float``. The integer branch takes
        each bound as the integer bound that admits the same integers (``minimum: 1.5`` is
        ``ge=2``); a bound that msgspec.Meta cannot hold exactly (beyond int64 for the integers,
        an integer that a double rounds for the floats) is checked in ``__post_init__``.
        """
        bounds = {k: v for k, v in bounds.items() if v is not None}
        name = "JsonNumber" + "".join(f"_{k}{_num_name(v)}" for k, v in bounds.items())
        on_int: dict[str, int] = {}
        on_float: dict[str, int | float] = {}
        exact: dict[str, int | float] = {}
        for key, bound in bounds.items():
            whole = _integer_bound(key, bound)
            if -(2**63) <= whole <= 2**63 - 1:
                on_int[key] = whole
            else:
                exact[key] = bound
            if isinstance(bound, float) or (abs(bound) < 2**1023 and float(bound) == bound):
                on_float[key] = bound
            else:
                exact[key] = bound
        runtime = f"{_annotated('int', **on_int)} | {_annotated('float', **on_float)}"
        self.model.num_aliases[name] = ("float", runtime)
        self.model.num_bounds[name] = bounds
        if exact:
            self.model.num_exact[name] = exact
        return name

    def object_type(self, node: Node, name_hint: str) -> str:
        raw = node.raw
        properties = raw.get("properties")
        additional = raw.get("additionalProperties", True)
        unsupported = set(raw) & {"patternProperties", "dependentRequired", "dependentSchemas", "unevaluatedProperties"}
        if unsupported:
            raise SchemaError(f"{node.pointer}: unsupported object keywords {sorted(unsupported)}")
        if not properties:
            key = "str"
            if "propertyNames" in raw:
                names = node.child("propertyNames")
                if set(names.raw) - ANNOTATION_KEYS - {"type", "minLength", "maxLength", "pattern"} or names.get("type", "string") != "string":
                    raise SchemaError(f"{node.pointer}: propertyNames beyond a string's length and pattern")
                key = self.scalar_type(names, "string", name_hint + "Key")
            bounds = {"min_length": raw.get("minProperties"), "max_length": raw.get("maxProperties")}
            if additional is True or additional == {}:
                return _annotated(f"dict[{key}, Any]", **bounds)
            if isinstance(additional, dict):
                value = self.type_of(node.child("additionalProperties"), name_hint + "Value")
                return _annotated(f"dict[{key}, {self.field_type(value)}]", **bounds)
            raise SchemaError(f"{node.pointer}: closed object without properties")
        return self.struct(node, name_hint)

    # ---------------------------------------------------------------- structs
    def struct(self, node: Node, name: str, tag: tuple[str, str] | None = None) -> str:
        raw = node.raw
        if name not in self._in_progress:
            name = self._free_name(name)  # not a definition's own class: never take a definition's name
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
            parameter = prop_node.raw.get("x-lucent-type-parameter") if isinstance(prop_node.raw, dict) else None
            if parameter is not None:
                annotation = self.type_parameter(prop_node, struct, parameter, annotation)
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
        for prop in sorted(missing):
            # A required name outside `properties` on an open object: any JSON value, but present.
            struct.fields.append(
                FieldDef(
                    attr=_attr_name(prop), json_name=prop, annotation="Any", required=True, doc=None,
                    schema=Node(f"{node.pointer}/required", True, None),
                )
            )
        struct.checks = rules.struct_checks(self, struct)
        return name

    def type_parameter(self, node: Node, struct: StructDef, parameter: Any, annotation: str) -> str:
        """``x-lucent-type-parameter: "T"`` on a property that takes any JSON value: the property
        is typed ``T`` and its Struct is ``Generic[T]``, so that a caller (``lucent.convert``'s
        ``ConversionResult[CreateMessageParams]``) can say what it holds; at run time msgspec
        reads an unbound ``T`` as ``Any``."""
        if not (isinstance(parameter, str) and re.fullmatch(r"[A-Z][A-Za-z0-9]*", parameter)):
            raise SchemaError(f"{node.pointer}: x-lucent-type-parameter is a type variable name, not {parameter!r}")
        if annotation != "Any":
            raise SchemaError(f"{node.pointer}: x-lucent-type-parameter on a property that is not any JSON value ({annotation})")
        if parameter not in struct.type_params:
            struct.type_params.append(parameter)
        self.model.type_params.add(parameter)
        return parameter

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
        """A ``oneOf``/``anyOf``: a msgspec union where msgspec tells the branches apart exactly
        as JSON Schema does, else a dispatch (see :meth:`dispatch`)."""
        raw = node.raw
        extra = set(raw) - ANNOTATION_KEYS - {key}
        if extra - {"type"}:
            raise SchemaError(f"{node.pointer}: {key} beside {sorted(extra)}")
        variants = [node.child(key, i) for i in range(len(raw[key]))]
        resolved = [self._deref(v) for v in variants]
        if "type" in raw:
            # `type` beside the union: every branch must already be of those types.
            allowed = set(raw["type"]) if isinstance(raw["type"], list) else {raw["type"]}
            for branch in resolved:
                types = branch.get("type")
                found = set(types) if isinstance(types, list) else {types} if types else {"object"} if _is_object(branch.raw) else None
                if found is None or not found <= allowed | ({"integer"} if "number" in allowed else set()):
                    raise SchemaError(f"{node.pointer}: `type` beside {key} narrows a branch")
        objects = [i for i, r in enumerate(resolved) if _is_object(r.raw)]
        branch: dict[int, str] = {}  # the type of each branch on its own
        hints = 0
        for i, variant in enumerate(variants):
            if i not in objects:
                hint = name_hint if hints == 0 else f"{name_hint}{hints}"
                branch[i] = self.type_of(variant, hint)
                hints += not _is_literal_type(branch[i])
        tag_field = _discriminator([resolved[i].raw for i in objects]) if objects else None
        structs: list[str] = []
        native = True
        if len(objects) == 1 and not tag_field:
            lone_raw = resolved[objects[0]].raw
            suffix = "".join(pascal(p) for p in lone_raw.get("required", [])[:1]) or "Object"
            branch[objects[0]] = self.type_of(variants[objects[0]], (doc_name or name_hint) + suffix)
            structs.append(branch[objects[0]])
        elif objects and tag_field is None:
            kinds = {_open_kind(resolved[i].raw) for i in objects}
            native = len(objects) == len(kinds) and None not in kinds
            if native:
                for i in objects:
                    branch[i] = self.type_of(variants[i], name_hint)
                    structs.append(branch[i])
        elif objects:
            for i in objects:
                tag = tag_value(resolved[i].raw["properties"][tag_field])
                assert tag is not None and tag_field is not None
                if "$ref" in variants[i].raw:
                    ref_name = self.doc.resolve(variants[i].raw["$ref"])[0]
                    branch[i] = self.definition_type(ref_name)
                else:
                    branch[i] = self.struct(variants[i], (doc_name or name_hint) + pascal(tag), (tag_field, tag))
                structs.append(branch[i])
            if len(structs) == 1 and self.model.structs.get(structs[0]) is not None and self.model.structs[structs[0]].tag_field:
                # a lone tagged Struct (an untagged definition keeps its tag as a required field)
                structs = [self.tag_required(structs[0])]
        if native:
            ordered = self._merge([branch[i] for i in range(len(variants)) if i not in objects], structs, key)
            if self._exact_union(ordered, key == "oneOf"):
                return " | ".join(ordered) if ordered else "Any"
        for i in objects:
            if i not in branch:
                title = resolved[i].raw.get("title") or "".join(pascal(p) for p in resolved[i].raw.get("required", [])[:1])
                branch[i] = self.type_of(variants[i], self._free_name((doc_name or name_hint) + (pascal(str(title)) or f"Option{i}")))
        return self.dispatch(node, key, [self.field_type(branch[i]) for i in range(len(variants))], resolved, name_hint, doc_name)

    def _merge(self, others: list[str], structs: list[str], key: str) -> list[str]:
        """The members of a native union: string literals merged (dropped beside a plain ``str``
        in an anyOf), ``None`` last."""
        parts: list[str] = []
        literals: list[str] = []
        for expr in others:
            for part in (p.strip() for p in rules._split_union(expr)):
                if part.startswith("Literal[") and part not in self.model.literal_aliases:
                    literals.append(part[len("Literal["):-1])
                else:
                    parts.append(part)
        if literals and not (key == "anyOf" and "str" in parts):
            parts.insert(0, "Literal[" + ", ".join(literals) + "]")
        if key == "anyOf" and ("float" in parts or "JsonNumber" in parts):
            parts = [p for p in parts if not p.startswith("JsonInt")]
        merged = []
        for part in parts + structs:
            if part not in merged:
                merged.append(part)
        return [p for p in merged if p != "None"] + (["None"] if "None" in merged else [])

    def _exact_union(self, parts: list[str], one_of: bool) -> bool:
        """Whether msgspec decodes ``parts`` as one union exactly as the JSON Schema says: it
        can build the union, and (for a ``oneOf``) no two members accept the same value."""
        if len(parts) <= 1:
            return not (parts and parts[0] in self.model.dispatches)
        kinds = [k for p in parts for k in self._kinds(p)]
        if "dispatch" in kinds:
            return False
        if "any" in kinds:
            return not one_of
        seen: dict[str, list[str]] = {}
        for kind in kinds:
            seen.setdefault(kind.split(":")[0], []).append(kind)
        objects = seen.get("object", []) + seen.get("tagged", [])
        if len(seen.get("array", [])) > 1 or len(seen.get("bool", [])) > 1:
            return False
        if seen.get("object") and len(objects) > 1:
            return False
        if len({k.split(":")[1] for k in seen.get("tagged", [])}) > 1:
            return False
        strings = seen.get("str", [])
        if len([k for k in strings if k != "str:literal"]) > 1 or ("str:constrained" in strings and "str:literal" in strings):
            return False
        numbers = seen.get("int", []) + seen.get("float", []) + seen.get("number", [])
        if seen.get("number") and len(numbers) > 1:
            return False  # a number is int | float at run time: beside it, a second int or float
        if len(numbers) > 1 and (one_of or any(k.endswith(":constrained") for k in numbers) or len(seen.get("int", [])) > 1):
            return False
        if one_of and (len(strings) > 1 or len(objects) > 1 and seen.get("object")):
            return False
        return True

    def _kinds(self, part: str, depth: int = 0) -> list[str]:
        """The msgspec kinds of one union member (an alias of a union has several):
        ``str:plain``, ``tagged:type``, ``int:constrained``, ..."""
        part = part.strip()
        if part in self.model.dispatches or depth > 20:
            return ["dispatch"]
        if part in self._in_progress and part not in self.model.structs:
            return ["dispatch"]  # a definition not compiled yet: not trusted
        if part in self.model.int_aliases:
            return ["int:constrained" if self.model.int_bounds.get(part) else "int:plain"]
        if part in self.model.num_aliases:
            return ["number:constrained" if self.model.num_bounds.get(part) else "number:plain"]
        alias = self.model.aliases.get(part) or self.model.literal_aliases.get(part)
        if alias is not None:
            return [k for p in rules._split_union(alias.runtime_expr or alias.expr) for k in self._kinds(p, depth + 1)]
        struct = self.model.structs.get(part)
        if struct is not None:
            if part.startswith("_Missing"):
                return []
            return [f"tagged:{struct.tag_field}" if struct.tag_field else "object"]
        return [self._kind(part)]

    def _kind(self, part: str) -> str:
        if part == "Any":
            return "any"
        if part == "None":
            return "null"
        if part == "bool":
            return "bool"
        if part.startswith("Literal["):
            return "str:literal"
        if part in ("str", "float"):
            return f"{part}:plain"
        if part.startswith("Annotated[str"):
            return "str:constrained"
        if part.startswith("Annotated[float"):
            return "float:constrained"
        if part.startswith(("list[", "Annotated[list[")):
            return "array"
        if part.startswith(("dict[", "Annotated[dict[")):
            return "object"
        return "dispatch"  # unknown: do not trust msgspec with it

    def _free_name(self, name: str) -> str:
        taken = set(self.model.structs) | set(self.model.aliases) | set(self.model.literal_aliases) | set(self.doc.definitions)
        candidate, n = name, 2
        while candidate in taken:
            candidate, n = f"{name}{n}", n + 1
        return candidate

    def dispatch(self, node: Node, key: str, branches: list[str], resolved: list[Node], name_hint: str, doc_name: str | None) -> str:
        """A union that msgspec cannot decode as the schema says: the position is decoded as a
        plain JSON value, and the enclosing Struct (or lucent.decode) converts it to each branch
        in turn with ``msgspec.convert``: the first that accepts it wins (``anyOf``), or exactly
        one must accept it (``oneOf``). A tag table (from a property that the object branches
        fix to a few values, such as ``type``) picks the branches worth trying."""
        own = doc_name is not None and node.pointer == f"#/{self.doc.definitions_key}/{self._def_of.get(doc_name, doc_name)}"
        name = doc_name if own and doc_name is not None else self._free_name(name_hint + ("" if name_hint.endswith("Item") else "Union"))
        table = _dispatch_table([r.raw for r in resolved], lambda ref: self.definition_node(self.doc.resolve(ref)[0]).raw)
        self.model.dispatches[name] = DispatchDef(name, branches, key == "oneOf", table)
        mypy_expr = " | ".join(dict.fromkeys(branches))
        self.add_alias(name, mypy_expr, node.get("description") if not own else None, runtime_expr="Any")
        return name

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
                refs = [v for v in raw.get(key, []) if isinstance(v, dict) and set(v) - ANNOTATION_KEYS == {"$ref"}]
                targets = [self.doc.resolve(v["$ref"])[0] for v in refs]
                objects = [(n, self.definition_node(n).raw) for n in targets if _is_object(self.definition_node(n).raw)]
                tag_field = _discriminator([o for _, o in objects]) if len(objects) > 1 else None
                for name, obj in objects if tag_field else []:
                    tag = (tag_field, str(tag_value(obj["properties"][tag_field])))
                    if tags.setdefault(name, tag) != tag:
                        raise SchemaError(f"{self.doc.stem}: {name} is tagged two ways")
            for value in raw.values():
                walk(value)

        walk(self.doc.raw)
        return tags

    def _deref(self, node: Node) -> Node:
        if isinstance(node.raw, dict) and "$ref" in node.raw:
            return self.definition_node(self.doc.resolve(node.raw["$ref"])[0])
        return node

    def definition_node(self, name: str) -> Node:
        """A definition's node; an ``allOf`` of objects is merged into one object (see
        :meth:`_merge_all_of`)."""
        if name not in self._def_nodes:
            node = self.doc.definition(name)
            self._def_nodes[name] = self._merge_all_of(node) or node
        return self._def_nodes[name]

    def _merge_all_of(self, node: Node) -> Node | None:
        """An ``allOf`` whose branches are all objects (OpenAPI's composition of a schema from
        shared parts) as one object schema: the properties of every branch (a property named by
        two branches must meet both: ``allOf`` of the two, the narrower first), the union of their
        ``required``, and every branch's own ``anyOf``/``oneOf``/``not``/``if`` kept as rules.
        None when a branch is not an object (the ``allOf`` is then a narrowing)."""
        raw = node.raw
        if not isinstance(raw, dict) or "allOf" not in raw or set(raw) - ANNOTATION_KEYS - {"allOf", "type"}:
            return None
        branches: list[dict[str, Any]] = []

        def flatten(schema: Any, depth: int) -> bool:
            if not isinstance(schema, dict) or depth > 16:
                return False
            if "$ref" in schema:
                if set(schema) - ANNOTATION_KEYS != {"$ref"}:
                    return False
                schema = self.doc.resolve(schema["$ref"])[1].raw
                if not isinstance(schema, dict):
                    return False
            if "allOf" in schema:
                rest = {k: v for k, v in schema.items() if k != "allOf" and k not in ANNOTATION_KEYS}
                return all(flatten(b, depth + 1) for b in schema["allOf"]) and (not rest or flatten(rest, depth + 1))
            branches.append(schema)
            return True

        if not all(flatten(b, 0) for b in raw["allOf"]):
            return None
        rule_keys = {"anyOf", "oneOf", "not", "if", "then", "else"}
        objects = [b for b in branches if b.get("type") == "object" or "properties" in b]
        if raw.get("type", "object") != "object" or not objects:
            return None
        for branch in branches:
            keys = set(branch) - ANNOTATION_KEYS
            if branch not in objects and not keys <= rule_keys:
                return None
            if keys - rule_keys - {"type", "properties", "required", "additionalProperties"}:
                raise SchemaError(f"{node.pointer}: allOf branch with {sorted(keys)}")
            if branch.get("additionalProperties", True) not in (True, {}):
                raise SchemaError(f"{node.pointer}: allOf of objects where one branch closes or bounds its members")
        properties: dict[str, Any] = {}
        required: list[str] = []
        for branch in objects:
            for name, schema in branch.get("properties", {}).items():
                if name in properties and _strip_notes(properties[name]) != _strip_notes(schema):
                    first, second = sorted((properties[name], schema), key=_breadth)
                    schema = {"allOf": [first, second]}
                properties[name] = schema
            required += [r for r in branch.get("required", []) if r not in required]
        merged: dict[str, Any] = {k: v for k, v in raw.items() if k in ANNOTATION_KEYS}
        merged.update(type="object", properties=properties)
        if required:
            merged["required"] = required
        rules_ = [{k: v for k, v in b.items() if k in rule_keys} for b in branches if set(b) & rule_keys]
        if rules_:
            merged["allOf"] = rules_
        return Node(node.pointer, merged, JsonSchemaObject.model_validate(merged))

    # --------------------------------------------------------------- protocol
    def _compile_protocol(self) -> None:
        self.model.protocol_checks = rules.protocol_checks(self)


def tag_value(prop: Any) -> str | None:
    """The one string a property schema allows, as a ``const`` or a one-value ``enum``
    (OpenAPI's way of writing a type tag), when nothing else constrains it."""
    if not isinstance(prop, dict) or set(prop) - ANNOTATION_KEYS - {"const", "enum", "type"} or prop.get("type", "string") != "string":
        return None
    if "const" in prop and "enum" not in prop:
        return prop["const"] if isinstance(prop["const"], str) else None
    if "enum" in prop and "const" not in prop and len(prop["enum"]) == 1:
        return prop["enum"][0] if isinstance(prop["enum"][0], str) else None
    return None


def _discriminator(objects: list[dict[str, Any]]) -> str | None:
    """The property that every object requires with a distinct string ``const`` (or one-value
    ``enum``)."""
    if not objects:
        return None
    candidates = None
    for obj in objects:
        props = obj.get("properties", {})
        names = {p for p in obj.get("required", []) if tag_value(props.get(p)) is not None}
        candidates = names if candidates is None else candidates & names
    # `type` first: a definition in two unions must be tagged the same way in both.
    for name in sorted(candidates or (), key=lambda n: (n != "type", n)):
        values = [tag_value(o["properties"][name]) for o in objects]
        if len(set(values)) == len(values):
            return name
    return None


_ABSENT = "\x00absent"  # the tag table's key for a tag property that is not there


def _dispatch_table(
    branches: list[Any], resolve: Any
) -> tuple[str, dict[Any, list[int]], list[int], list[int]] | None:
    """For a dispatch: the property (``type``, ...) whose value tells which object branches can
    accept a value, as (key, {tag value: branches}, branches for any other value, branches for a
    value that is not an object). Branches that are not plain objects are always tried."""
    objects = {i: b for i, b in enumerate(branches) if _is_object(b)}
    non_objects = [i for i in range(len(branches)) if i not in objects]
    best = None
    for key in ("type", "role", "object"):
        allowed: dict[int, set[Any] | None] = {}
        for i, obj in objects.items():
            allowed[i] = _tag_values(obj, key, resolve)
        fixed = [a for a in allowed.values() if a is not None]
        if len(fixed) >= 2:
            best = (key, allowed)
            break
    if best is None:
        return None
    key, allowed = best
    values = sorted({v for a in allowed.values() if a for v in a}, key=lambda v: (v is None, str(v)))
    free = [i for i in range(len(branches)) if i in non_objects or allowed.get(i) is None]
    table = {v: sorted(set(free) | {i for i, a in allowed.items() if a is not None and v in a}) for v in values}
    return key, table, free, non_objects


def _tag_values(obj: dict[str, Any], key: str, resolve: Any) -> set[Any] | None:
    """The values (strings, None, _ABSENT) property ``key`` may take in an object schema, or
    None when they are not a few listed values."""
    props = obj.get("properties", {})
    required = key in obj.get("required", [])
    if key not in props:
        return {_ABSENT} if obj.get("additionalProperties", True) is False else None
    values = _finite_values(props[key], resolve)
    if values is None:
        return None
    return values if required else values | {_ABSENT}


def _finite_values(schema: Any, resolve: Any, depth: int = 0) -> set[Any] | None:
    if not isinstance(schema, dict) or depth > 8:
        return None
    if "$ref" in schema and set(schema) - ANNOTATION_KEYS == {"$ref"}:
        return _finite_values(resolve(schema["$ref"]), resolve, depth + 1)
    if "const" in schema:
        return {schema["const"]} if isinstance(schema["const"], (str, type(None))) else None
    if "enum" in schema:
        return set(schema["enum"]) if all(isinstance(v, (str, type(None))) for v in schema["enum"]) else None
    for key in ("anyOf", "oneOf"):
        if key in schema and set(schema) - ANNOTATION_KEYS == {key}:
            found: set[Any] = set()
            for branch in schema[key]:
                if branch == {"type": "null"}:
                    found.add(None)
                    continue
                inner = _finite_values(branch, resolve, depth + 1)
                if inner is None:
                    return None
                found |= inner
            return found
    return None


def _strip_notes(schema: Any) -> Any:
    return {k: v for k, v in schema.items() if k not in ANNOTATION_KEYS} if isinstance(schema, dict) else schema


def _breadth(schema: Any) -> int:
    """Narrower schemas first: a union (or one that admits null) after a plain type."""
    if not isinstance(schema, dict):
        return 2
    return int("anyOf" in schema or "oneOf" in schema) + int("null" in str(schema.get("type", "")))


def _is_literal_type(expr: str) -> bool:
    return expr.startswith("Literal[")


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


def _integer_bound(key: str, bound: int | float) -> int:
    """The integer bound (same ``key``) that admits exactly the integers ``bound`` admits."""
    if isinstance(bound, int) or bound.is_integer():
        return int(bound)
    return math.ceil(bound) if key in ("ge", "lt") else math.floor(bound)


def _num_name(value: Any) -> str:
    return str(value).replace("-", "m").replace(".", "p").replace("+", "")


def _py_str(value: str) -> str:
    return repr(value)


def _annotated(base: str, **meta: Any) -> str:
    items = [f"{k}={v!r}" for k, v in meta.items() if v is not None]
    if not items:
        return base
    return f"Annotated[{base}, Meta({', '.join(items)})]"
