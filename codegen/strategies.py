"""Render a module of hypothesis strategies from one JSON Schema.

`render` compiles every definition of a schema (``definitions`` or ``$defs``)
and its root into a hypothesis strategy drawing plain JSON values (``dict``,
``list``, ``str``, ``int``, ``float``, ``bool``, ``None``) that the schema
accepts.

The compiler works on a disjunctive normal form. Each subschema becomes a list
of alternatives, and each alternative (a `_Shape`) is a conjunction of simple
constraints: types, a finite set of values, excluded values, bounds, patterns,
and for objects the property schemas, required, forbidden and allowed names.
``allOf`` multiplies the lists, ``anyOf`` and ``oneOf`` join them,
``if``/``then``/``else`` becomes ``(if and then) or (not if and else)`` and
``not`` is pushed down to the keywords it negates. An alternative that cannot
hold (a required property that is also forbidden, a property whose allowed
values are empty) is dropped while rendering, so conditional rules are met by
construction rather than by filtering.

A ``$ref`` that is a whole property or item schema stays a reference to the
named definition (through ``st.deferred``, so recursive schemas work); a
``$ref`` combined with other keywords is inlined.

Strings that must match a ``pattern`` are drawn from the pattern's ECMA-262
meaning (rewritten for Python by `codegen.ecma_regex.translate`, and written
into the module as ``_ECMA_PATTERNS``) and kept only if Python's ``re.search``
with the original pattern also finds it, so the values are valid under both
dialects, and under lucent and jsonschema alike. Arrays are kept short (at
most ``minItems + 4`` items) so that recursive definitions stay small.

Keywords outside the supported set raise `StrategyRenderError` rather than
render a strategy that could draw invalid values.

The strategies the rendered expressions combine (``_integers``, ``_strings``,
``_object``, ``_ref``...) are the hand-written ``lucent/_strategies.py``; a
rendered module binds the ones it uses (`_HELPER_BINDINGS`) and defines only
the functions compiled from its schema.
"""

from __future__ import annotations

import json
import keyword
import math
import re
from dataclasses import dataclass, replace
from typing import Any

from codegen.ecma_regex import UnsupportedPattern, translate

__all__ = ["StrategyRenderError", "render"]

Schema = Any
"""A JSON Schema: a ``dict`` or a ``bool``."""

_TYPES = ("null", "boolean", "integer", "number", "string", "array", "object")
_ANNOTATIONS = frozenset(
    {
        "$schema",
        "$id",
        "$comment",
        "$anchor",
        "$dynamicAnchor",
        "$defs",
        "definitions",
        "title",
        "description",
        "examples",
        "default",
        "deprecated",
        "readOnly",
        "writeOnly",
        "contentMediaType",
        "contentEncoding",
        "x-lucent-source",
        "x-lucent-type-parameter",
    }
)
_SUPPORTED = frozenset(
    {
        "type",
        "const",
        "enum",
        "minLength",
        "maxLength",
        "pattern",
        "format",
        "minimum",
        "maximum",
        "exclusiveMinimum",
        "exclusiveMaximum",
        "items",
        "minItems",
        "maxItems",
        "properties",
        "required",
        "additionalProperties",
        "$ref",
        "allOf",
        "anyOf",
        "oneOf",
        "not",
        "if",
        "then",
        "else",
    }
)
_FORMAT_BOUNDS = {"uint32": (0, 2**32 - 1), "uint": (0, 2**64 - 1), "uint64": (0, 2**64 - 1)}
_ARRAY_SLACK = 4
_MAX_ALTERNATIVES = 512
_LINE = 88


class StrategyRenderError(ValueError):
    """A schema uses a keyword or a combination the renderer cannot honour."""


Bound = tuple[Any, bool]
"""A numeric bound: the value and whether it is exclusive."""


@dataclass(frozen=True)
class _Shape:
    """One alternative: a conjunction of simple constraints on a JSON value."""

    types: frozenset[str] | None = None
    values: tuple[Any, ...] | None = None
    excluded: tuple[Any, ...] = ()
    min_length: int = 0
    max_length: int | None = None
    patterns: tuple[str, ...] = ()
    low: Bound | None = None
    high: Bound | None = None
    items: tuple[Schema, ...] = ()
    min_items: int = 0
    max_items: int | None = None
    properties: tuple[tuple[str, tuple[Schema, ...]], ...] = ()
    required: frozenset[str] = frozenset()
    forbidden: frozenset[str] = frozenset()
    allowed: frozenset[str] | None = None
    additional: tuple[Schema, ...] = ()


_ANY = _Shape()


def _canon(value: Any) -> str:
    """A key equal for equal JSON values (``1`` and ``1.0`` are equal)."""

    def norm(v: Any) -> Any:
        if isinstance(v, float) and v.is_integer():
            return int(v)
        if isinstance(v, list):
            return [norm(x) for x in v]
        if isinstance(v, dict):
            return {k: norm(x) for k, x in v.items()}
        return v

    return json.dumps(norm(value), sort_keys=True)


def _type_of(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int) or (isinstance(value, float) and value.is_integer()):
        return "integer"
    if isinstance(value, float):
        return "number"
    if isinstance(value, str):
        return "string"
    return "array" if isinstance(value, list) else "object"


def _meet_types(a: frozenset[str] | None, b: frozenset[str] | None) -> frozenset[str] | None:
    if a is None or b is None:
        return b if a is None else a
    out = set(a & b)
    if ("number" in a and "integer" in b) or ("integer" in a and "number" in b):
        out.add("integer")
    return frozenset(out)


def _tighter(a: Bound | None, b: Bound | None, *, low: bool) -> Bound | None:
    if a is None or b is None:
        return b if a is None else a
    if a[0] == b[0]:
        return (a[0], a[1] or b[1])
    return max(a, b, key=lambda x: x[0]) if low else min(a, b, key=lambda x: x[0])


def _fits_bounds(shape: _Shape, number: Any) -> bool:
    if shape.low is not None:
        if number < shape.low[0] or (shape.low[1] and number == shape.low[0]):
            return False
    if shape.high is not None:
        if number > shape.high[0] or (shape.high[1] and number == shape.high[0]):
            return False
    return True


def _accepts(shape: _Shape, value: Any) -> bool:
    """Whether a literal value meets the shape's own (shallow) constraints."""
    kind = _type_of(value)
    if shape.types is not None and kind not in shape.types:
        if not (kind == "integer" and "number" in shape.types):
            return False
    if any(_canon(value) == _canon(x) for x in shape.excluded):
        return False
    if kind == "string":
        if len(value) < shape.min_length:
            return False
        if shape.max_length is not None and len(value) > shape.max_length:
            return False
        return all(re.search(p, value) for p in shape.patterns)
    if kind in ("integer", "number"):
        return _fits_bounds(shape, value)
    if kind == "array":
        return shape.min_items <= len(value) <= (shape.max_items if shape.max_items is not None else len(value))
    if kind == "object":
        names = set(value)
        if not shape.required <= names or names & shape.forbidden:
            return False
        return shape.allowed is None or names <= shape.allowed
    return True


def _meet(a: _Shape, b: _Shape) -> _Shape | None:
    """The conjunction of two shapes, or None when it cannot hold."""
    types = _meet_types(a.types, b.types)
    if types is not None and not types:
        return None
    values = a.values if b.values is None else b.values
    if a.values is not None and b.values is not None:
        keys = {_canon(v) for v in b.values}
        values = tuple(v for v in a.values if _canon(v) in keys)
    properties: dict[str, tuple[Schema, ...]] = dict(a.properties)
    for name, schemas in b.properties:
        properties[name] = properties.get(name, ()) + schemas
    allowed = a.allowed if b.allowed is None else b.allowed
    if a.allowed is not None and b.allowed is not None:
        allowed = a.allowed & b.allowed
    shape = _Shape(
        types=types,
        values=values,
        excluded=a.excluded + tuple(x for x in b.excluded if x not in a.excluded),
        min_length=max(a.min_length, b.min_length),
        max_length=_min_opt(a.max_length, b.max_length),
        patterns=a.patterns + tuple(p for p in b.patterns if p not in a.patterns),
        low=_tighter(a.low, b.low, low=True),
        high=_tighter(a.high, b.high, low=False),
        items=a.items + b.items,
        min_items=max(a.min_items, b.min_items),
        max_items=_min_opt(a.max_items, b.max_items),
        properties=tuple(properties.items()),
        required=a.required | b.required,
        forbidden=a.forbidden | b.forbidden,
        allowed=allowed,
        additional=a.additional + b.additional,
    )
    if shape.required & shape.forbidden:
        return None
    if shape.allowed is not None and not shape.required <= shape.allowed:
        return None
    if shape.values is not None:
        kept = tuple(v for v in shape.values if _accepts(shape, v))
        if not kept:
            return None
        shape = replace(shape, values=kept)
    return shape


def _min_opt(a: int | None, b: int | None) -> int | None:
    if a is None or b is None:
        return b if a is None else a
    return min(a, b)


def _ecma_regex(pattern: str) -> str:
    """The Python pattern with the ECMA-262 meaning of *pattern*."""
    try:
        return translate(pattern)
    except UnsupportedPattern as exc:
        raise StrategyRenderError(f"pattern {pattern!r}: {exc}") from exc


# --------------------------------------------------------------------------
# Expressions and their layout
# --------------------------------------------------------------------------


@dataclass(frozen=True)
class _Call:
    """A call ``func(args..., key=value...)`` in the rendered source."""

    func: str
    args: tuple[Any, ...] = ()
    kwargs: tuple[tuple[str, Any], ...] = ()


@dataclass(frozen=True)
class _Dict:
    """A ``{"key": expression}`` literal in the rendered source."""

    items: tuple[tuple[str, Any], ...]


@dataclass(frozen=True)
class _Filter:
    """``inner.filter(predicate)`` in the rendered source."""

    inner: Any
    predicate: Any


def _literal(value: Any) -> str:
    """Python source for a JSON value, with double-quoted strings."""
    if isinstance(value, str):
        text = repr(value)
        if text[0] == "'" and '"' not in value:
            text = '"' + text[1:-1].replace("\\'", "'") + '"'
        return text
    if isinstance(value, (list, tuple)):
        inner = ", ".join(_literal(v) for v in value)
        if isinstance(value, tuple):
            return f"({inner},)" if len(value) == 1 else f"({inner})"
        return f"[{inner}]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{_literal(k)}: {_literal(v)}" for k, v in value.items()) + "}"
    return repr(value)


def _one_of(parts: list[Any]) -> Any:
    if not parts:
        return None
    if len(parts) > 1 and all(isinstance(p, _Call) and p.func == "st.just" for p in parts):
        return _Call("st.sampled_from", ("[" + ", ".join(p.args[0] for p in parts) + "]",))
    return parts[0] if len(parts) == 1 else _Call("st.one_of", tuple(parts))


def _flat(expr: Any) -> str:
    if isinstance(expr, str):
        return expr
    if isinstance(expr, _Filter):
        return f"{_flat(expr.inner)}.filter({_flat(expr.predicate)})"
    if isinstance(expr, _Dict):
        return "{" + ", ".join(f"{_literal(k)}: {_flat(v)}" for k, v in expr.items) + "}"
    args = [_flat(a) for a in expr.args] + [f"{k}={_flat(v)}" for k, v in expr.kwargs]
    return f"{expr.func}({', '.join(args)})"


def _layout(expr: Any, indent: int, column: int) -> str:
    """Lay an expression out in black's style within the line length.

    *indent* is the indentation of the line the expression starts on and
    *column* the column it starts at.
    """
    flat = _flat(expr)
    if column + len(flat) <= _LINE or isinstance(expr, str):
        return flat
    inner = indent + 4
    pad = " " * inner
    if isinstance(expr, _Filter):
        head = _layout(expr.inner, indent, column)
        tail_column = len(head.rsplit("\n", 1)[-1])
        return f"{head}.filter({_layout(expr.predicate, indent, tail_column + 8)})"
    if isinstance(expr, _Dict):
        rows = [f"{pad}{_literal(k)}: {_layout(v, inner, inner + len(_literal(k)) + 2)}," for k, v in expr.items]
        return "{\n" + "\n".join(rows) + "\n" + " " * indent + "}"
    rows = [f"{pad}{_layout(a, inner, inner)}," for a in expr.args]
    rows += [f"{pad}{k}={_layout(v, inner, inner + len(k) + 1)}," for k, v in expr.kwargs]
    return f"{expr.func}(\n" + "\n".join(rows) + "\n" + " " * indent + ")"


# --------------------------------------------------------------------------
# The compiler
# --------------------------------------------------------------------------


class _Compiler:
    """Turns the subschemas of one schema document into strategy expressions."""

    def __init__(self, schema: dict[str, Any]) -> None:
        self.root = schema
        self.draft7 = "draft-07" in str(schema.get("$schema", "")) or "draft-06" in str(schema.get("$schema", ""))
        self.names: dict[str, str] = {}
        for section in ("definitions", "$defs"):
            for name in schema.get(section, {}):
                if name in self.names.values():
                    raise StrategyRenderError(f"definition {name!r} is defined twice")
                self.names[f"#/{section}/{name}"] = name
        self._expanding: list[str] = []
        self.patterns: dict[str, str] = {}
        self.excluded: set[str] = set()  # definitions that draw nothing (lenient rendering)

    # -- references --------------------------------------------------------

    def resolve(self, ref: str) -> Schema:
        if not ref.startswith("#"):
            raise StrategyRenderError(f"only local references are supported, not {ref!r}")
        node: Any = self.root
        for part in ref[1:].split("/")[1:]:
            part = part.replace("~1", "/").replace("~0", "~")
            node = node[int(part)] if isinstance(node, list) else node[part]
        return node

    def ref_name(self, schema: Schema) -> str | None:
        """The definition a schema only refers to, or None."""
        if not isinstance(schema, dict) or "$ref" not in schema:
            return None
        if not self.draft7 and set(schema) - _ANNOTATIONS != {"$ref"}:
            return None
        return self.names.get(schema["$ref"])

    # -- disjunctive normal form -------------------------------------------

    def alternatives(self, schema: Schema) -> list[_Shape]:
        """The alternatives whose union is exactly the values *schema* accepts."""
        if schema is True:
            return [_ANY]
        if schema is False:
            return []
        unknown = set(schema) - _ANNOTATIONS - _SUPPORTED
        if unknown:
            raise StrategyRenderError(f"unsupported keywords {sorted(unknown)}")
        if "$ref" in schema:
            target = self._expand(schema["$ref"])
            if self.draft7:
                return target
            alts = self._product(self._base(schema), target)
        else:
            alts = self._base(schema)
        for sub in schema.get("allOf", ()):
            alts = self._product(alts, self.alternatives(sub))
        if "anyOf" in schema:
            alts = self._product(alts, [a for sub in schema["anyOf"] for a in self.alternatives(sub)])
        if "oneOf" in schema:
            branches = [self.alternatives(sub) for sub in schema["oneOf"]]
            self.check_disjoint(branches)
            alts = self._product(alts, [a for branch in branches for a in branch])
        if "not" in schema:
            alts = self._product(alts, self.negate(schema["not"]))
        if "if" in schema:
            yes = self._product(self.alternatives(schema["if"]), self.alternatives(schema.get("then", True)))
            no = self._product(self.negate(schema["if"]), self.alternatives(schema.get("else", True)))
            alts = self._product(alts, yes + no)
        return alts

    def _expand(self, ref: str) -> list[_Shape]:
        if ref in self._expanding:
            raise StrategyRenderError(f"{ref} refers to itself inside a combination of keywords")
        self._expanding.append(ref)
        try:
            return self.alternatives(self.resolve(ref))
        finally:
            self._expanding.pop()

    def _product(self, left: list[_Shape], right: list[_Shape]) -> list[_Shape]:
        out = [m for a in left for b in right if (m := _meet(a, b)) is not None]
        if len(out) > _MAX_ALTERNATIVES:
            raise StrategyRenderError("the schema expands to too many alternatives")
        return out

    def _base(self, schema: dict[str, Any]) -> list[_Shape]:
        """The single shape of a schema's own (non-combining) keywords."""
        fields: dict[str, Any] = {}
        kind = schema.get("type")
        if kind is not None:
            fields["types"] = frozenset([kind] if isinstance(kind, str) else kind)
        if "const" in schema:
            fields["values"] = (schema["const"],)
        if "enum" in schema:
            values = tuple(schema["enum"])
            if "values" in fields:
                values = tuple(v for v in values if _canon(v) == _canon(schema["const"]))
            fields["values"] = values
        fields["min_length"] = schema.get("minLength", 0)
        fields["max_length"] = schema.get("maxLength")
        if "pattern" in schema:
            fields["patterns"] = (schema["pattern"],)
        low = high = None
        if "minimum" in schema:
            low = (schema["minimum"], False)
        if "exclusiveMinimum" in schema:
            low = _tighter(low, (schema["exclusiveMinimum"], True), low=True)
        if "maximum" in schema:
            high = (schema["maximum"], False)
        if "exclusiveMaximum" in schema:
            high = _tighter(high, (schema["exclusiveMaximum"], True), low=False)
        if schema.get("format") in _FORMAT_BOUNDS:
            lo, hi = _FORMAT_BOUNDS[schema["format"]]
            low, high = _tighter(low, (lo, False), low=True), _tighter(high, (hi, False), low=False)
        fields["low"], fields["high"] = low, high
        if "items" in schema:
            if isinstance(schema["items"], list):
                raise StrategyRenderError("tuple-form items are not supported")
            fields["items"] = (schema["items"],)
        fields["min_items"] = schema.get("minItems", 0)
        fields["max_items"] = schema.get("maxItems")
        properties = schema.get("properties", {})
        fields["properties"] = tuple((name, (sub,)) for name, sub in properties.items())
        fields["required"] = frozenset(schema.get("required", ()))
        extra = schema.get("additionalProperties", True)
        if extra is False:
            fields["allowed"] = frozenset(properties)
        elif extra is not True:
            fields["additional"] = (extra,)
        shape = _meet(_ANY, _Shape(**fields))
        return [] if shape is None else [shape]

    def negate(self, schema: Schema) -> list[_Shape]:
        """The alternatives whose union is exactly the values *schema* rejects."""
        if schema is True:
            return []
        if schema is False:
            return [_ANY]
        out: list[_Shape] = []
        for key, value in schema.items():
            if key not in _ANNOTATIONS:
                out.extend(self._negate_keyword(key, value))
        return out

    def _negate_keyword(self, key: str, value: Any) -> list[_Shape]:
        obj = frozenset({"object"})
        if key == "$ref":
            return self.negate(self.resolve(value))
        if key == "const":
            return [_Shape(excluded=(value,))]
        if key == "enum":
            return [_Shape(excluded=tuple(value))]
        if key == "required":
            return [_Shape(types=obj, forbidden=frozenset({name})) for name in value]
        if key == "properties":
            return [
                _Shape(types=obj, required=frozenset({name}), properties=((name, ({"not": sub},)),))
                for name, sub in value.items()
            ]
        if key == "type":
            named = {value} if isinstance(value, str) else set(value)
            if "integer" in named and "number" not in named:
                raise StrategyRenderError("'not' of type integer is not supported")
            rest = frozenset(t for t in _TYPES if t not in named and not (t == "integer" and "number" in named))
            return [_Shape(types=rest)] if rest else []
        if key == "anyOf":
            alts = [_ANY]
            for sub in value:
                alts = self._product(alts, self.negate(sub))
            return alts
        if key == "allOf":
            return [a for sub in value for a in self.negate(sub)]
        if key == "not":
            return self.alternatives(value)
        bounds = {
            "minItems": lambda n: _Shape(types=frozenset({"array"}), max_items=n - 1),
            "maxItems": lambda n: _Shape(types=frozenset({"array"}), min_items=n + 1),
            "minLength": lambda n: _Shape(types=frozenset({"string"}), max_length=n - 1),
            "maxLength": lambda n: _Shape(types=frozenset({"string"}), min_length=n + 1),
            "minimum": lambda n: _Shape(types=frozenset({"number"}), high=(n, True)),
            "maximum": lambda n: _Shape(types=frozenset({"number"}), low=(n, True)),
            "exclusiveMinimum": lambda n: _Shape(types=frozenset({"number"}), high=(n, False)),
            "exclusiveMaximum": lambda n: _Shape(types=frozenset({"number"}), low=(n, False)),
        }
        if key in bounds:
            if key in ("minItems", "minLength") and value == 0:
                return []
            return [bounds[key](value)]
        raise StrategyRenderError(f"'not' of {key!r} is not supported")

    def check_disjoint(self, branches: list[list[_Shape]]) -> None:
        """Raise unless no value can match two ``oneOf`` branches."""
        for i, left in enumerate(branches):
            for j in range(i + 1, len(branches)):
                for a in left:
                    for b in branches[j]:
                        if not self._disjoint(a, b):
                            raise StrategyRenderError(f"oneOf branches {i} and {j} may overlap")

    def _disjoint(self, a: _Shape, b: _Shape) -> bool:
        both = _meet(a, b)
        if both is None:
            return True
        props = dict(both.properties)
        if both.types is not None and both.types <= {"object"}:
            for name in both.required:
                schemas = props.get(name, ())
                if schemas and not self.alternatives({"allOf": list(schemas)}):
                    return True
        return False

    # -- rendering ---------------------------------------------------------

    def emit(self, schemas: tuple[Schema, ...]) -> Any:
        """An expression for values meeting every schema, or None if none do."""
        if len(schemas) == 1:
            schema = schemas[0]
            name = self.ref_name(schema)
            if name is not None:
                return None if name in self.excluded else _Call("_ref", (_literal(name),))
            if isinstance(schema, dict) and len(set(schema) - _ANNOTATIONS) == 1:
                for key in ("oneOf", "anyOf"):
                    if key in schema:
                        if key == "oneOf":
                            self.check_disjoint([self.alternatives(s) for s in schema[key]])
                        return _one_of([e for s in schema[key] if (e := self.emit((s,))) is not None])
        combined = schemas[0] if len(schemas) == 1 else {"allOf": list(schemas)}
        return _one_of([e for a in self.alternatives(combined) if (e := self._emit_shape(a)) is not None])

    def _emit_shape(self, shape: _Shape) -> Any:
        if shape == _ANY:
            return "_JSON"
        if shape.values is not None:
            values = [v for v in shape.values if _accepts(shape, v)]
            if len(values) == 1:
                return _Call("st.just", (_literal(values[0]),))
            return _Call("st.sampled_from", (_literal(values),)) if values else None
        types = [t for t in _TYPES if shape.types is None or t in shape.types]
        if "number" in types and "integer" in types:
            types.remove("integer")
        expr = _one_of([e for t in types if (e := self._emit_type(shape, t)) is not None])
        if expr is not None and shape.excluded:
            expr = _Filter(expr, _Call("_not_in", (_literal(shape.excluded),)))
        return expr

    def _emit_type(self, shape: _Shape, kind: str) -> Any:
        if kind == "null":
            return "st.none()"
        if kind == "boolean":
            return "st.booleans()"
        if kind == "integer":
            return self._emit_integer(shape)
        if kind == "number":
            return self._emit_number(shape)
        if kind == "string":
            return self._emit_string(shape)
        if kind == "array":
            return self._emit_array(shape)
        return self._emit_object(shape)

    def _emit_integer(self, shape: _Shape) -> Any:
        low = high = None
        if shape.low is not None:
            low = math.ceil(shape.low[0])
            low += 1 if shape.low[1] and low == shape.low[0] else 0
        if shape.high is not None:
            high = math.floor(shape.high[0])
            high -= 1 if shape.high[1] and high == shape.high[0] else 0
        if low is not None and high is not None and low > high:
            return None
        if low is None and high is None:
            return _Call("_integers")
        return _Call("_integers", (repr(low), repr(high)))

    def _emit_number(self, shape: _Shape) -> Any:
        if shape.low is not None and shape.high is not None:
            if shape.low[0] > shape.high[0]:
                return None
            if shape.low[0] == shape.high[0] and (shape.low[1] or shape.high[1]):
                return None
        kwargs = []
        if shape.low is not None and shape.low[1]:
            kwargs.append(("exclude_low", "True"))
        if shape.high is not None and shape.high[1]:
            kwargs.append(("exclude_high", "True"))
        low = None if shape.low is None else shape.low[0]
        high = None if shape.high is None else shape.high[0]
        if low is None and high is None:
            return _Call("_numbers")
        return _Call("_numbers", (repr(low), repr(high)), tuple(kwargs))

    def _emit_string(self, shape: _Shape) -> Any:
        if shape.max_length is not None and shape.min_length > shape.max_length:
            return None
        kwargs: list[tuple[str, Any]] = []
        if shape.min_length:
            kwargs.append(("min_size", repr(shape.min_length)))
        if shape.max_length is not None:
            kwargs.append(("max_size", repr(shape.max_length)))
        for pattern in shape.patterns:
            self.patterns.setdefault(pattern, _ecma_regex(pattern))
        if len(shape.patterns) == 1:
            kwargs.append(("pattern", _literal(shape.patterns[0])))
        elif shape.patterns:
            kwargs.append(("patterns", _literal(shape.patterns)))
        return _Call("_strings", (), tuple(kwargs))

    def _emit_array(self, shape: _Shape) -> Any:
        high = shape.min_items + _ARRAY_SLACK
        if shape.max_items is not None:
            high = min(high, shape.max_items)
        if shape.min_items > high:
            return None
        items = self.emit(shape.items) if shape.items else "_JSON"
        if items is None:
            return "st.builds(list)" if shape.min_items == 0 else None
        kwargs = (("min_size", repr(shape.min_items)), ("max_size", repr(high)))
        return _Call("st.lists", (items,), kwargs)

    def _emit_object(self, shape: _Shape) -> Any:
        required: list[tuple[str, Any]] = []
        optional: list[tuple[str, Any]] = []
        declared = dict(shape.properties)
        for name in [*declared, *sorted(shape.required - set(declared))]:
            if name in shape.forbidden or (shape.allowed is not None and name not in shape.allowed):
                continue
            expr = self.emit(declared[name]) if name in declared else "_JSON"
            if expr is None and name in shape.required:
                return None
            if expr is not None:
                (required if name in shape.required else optional).append((name, expr))
        args: tuple[Any, ...] = (_Dict(tuple(required)),)
        kwargs: list[tuple[str, Any]] = []
        if optional:
            kwargs.append(("optional", _Dict(tuple(optional))))
        extra = None
        if shape.allowed is None:
            extra = self.emit(shape.additional) if shape.additional else "_JSON"
        if extra is not None:
            kwargs.append(("extra", extra))
            reserved = sorted(set(declared) | shape.required | shape.forbidden)
            if reserved:
                kwargs.append(("reserved", _literal(tuple(reserved))))
        return _Call("_object", args, tuple(kwargs))


# --------------------------------------------------------------------------
# The module
# --------------------------------------------------------------------------


# The hand-written helpers the emitted expressions call, in lucent/_strategies.py: each module binds
# them under the private names the expressions use (only those it uses).
_HELPER_BINDINGS: dict[str, str] = {
    "_ref": "_ref = _helpers.References(lambda: STRATEGIES)",
    "_not_in": "_not_in = _helpers.not_in",
    "_integers": "_integers = _helpers.integers",
    "_numbers": "_numbers = _helpers.numbers",
    "_strings": "_strings = _helpers.Strings(_ECMA_PATTERNS)",
    "_object": "_object = _helpers.objects",
    "_JSON": "_JSON = _helpers.JSON",
}


def _helpers_used(functions: list[str]) -> str:
    """The bindings of lucent/_strategies.py helpers that the rendered functions call."""
    text = "\n".join(functions)
    used = [line for name, line in _HELPER_BINDINGS.items() if re.search(rf"(?<![\w.]){re.escape(name)}\b", text)]
    return "\n".join(used) + "\n" if used else ""


def _snake(name: str) -> str:
    words = re.sub(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])", "_", name)
    ident = re.sub(r"\W+", "_", words).strip("_").lower() or "definition"
    if ident[0].isdigit():
        ident = "d_" + ident
    return ident + "_" if keyword.iskeyword(ident) else ident


def _doc(text: str, indent: str) -> str:
    body = text.replace("\\", "\\\\").replace('"""', '\\"\\"\\"').strip()
    lines = [line.rstrip() for line in body.splitlines()]
    return "\n".join((indent + line) if line else "" for line in lines)


def render(module_name: str, schema: dict[str, Any], schema_stem: str, lenient: bool = False) -> str:
    """Render the strategies module for one schema.

    Parameters
    ----------
    module_name : str
        The generated package's name for the schema, e.g. ``"lux_ir_v1"``; the
        module is written as ``generated/<module_name>_strategies.py``.
    schema : dict
        The parsed JSON Schema document (draft 2020-12 or draft-07).
    schema_stem : str
        The schema's file stem, e.g. ``"lux-ir-v1"``, named in the header.

    Returns
    -------
    str
        Python source defining one function per definition (``lucent_request()``
        for ``LucentRequest``), ``root()`` for the schema root, and the mapping
        ``STRATEGIES`` from definition name to strategy. The text depends only
        on the arguments.

    Raises
    ------
    StrategyRenderError
        If the schema uses a keyword or combination the renderer cannot honour
        (for example ``oneOf`` branches it cannot prove disjoint). With ``lenient``
        (the vendor schemas) such a definition draws nothing instead (``st.nothing()``,
        so every value drawn is still valid) and ``UNSUPPORTED`` names it with the reason.
    """
    unsupported: dict[str, str] = {}
    while True:
        compiler = _Compiler(schema)
        compiler.excluded = set(unsupported)
        known = len(unsupported)
        functions, entries, taken, root_expr = _definitions(compiler, unsupported, lenient)
        if len(unsupported) == known:
            break  # a definition left out can make another one fail: render again until none does
    title = schema.get("title", schema_stem)
    functions.append(_function("root", "Values valid against the schema root.", "", root_expr))
    names = ["STRATEGIES", *(["UNSUPPORTED"] if lenient else []), *sorted(taken)]
    header = (
        f'"""Hypothesis strategies for schemas/{schema_stem}.json ({title}).\n\n'
        "This module was generated by `python -m codegen`; do not edit.\n\n"
        "Each function returns a strategy drawing JSON values (dict, list, str, int,\n"
        "float, bool, None) that the schema accepts, conditional rules included;\n"
        "``STRATEGIES`` maps every definition name to its strategy. Example::\n\n"
        f"    from lucent.generated.{module_name}_strategies import STRATEGIES\n\n"
        "It needs hypothesis (``pip install 'lucent[strategies]'``); without it, importing\n"
        "this module raises lucent.errors.UsageError (code ``missing_dependency``).\n"
        '"""\n'
    )
    preamble = (
        header
        + "\nfrom __future__ import annotations\n\n"
        + "from typing import Any\n\n"
        + "try:\n"
        + "    from hypothesis import strategies as st\n"
        + "except ImportError as exc:  # hypothesis is the strategies extra, not a dependency of lucent\n"
        + "    from lucent.errors import UsageError\n\n"
        + f"    raise UsageError(\"lucent.generated.{module_name}_strategies needs hypothesis: pip install 'lucent[strategies]'\", code=\"missing_dependency\") from exc\n\n"
        + "from lucent import _strategies as _helpers\n\n"
        + "__all__ = [\n"
        + "".join(f"    {_literal(n)},\n" for n in names)
        + "]\n"
    )
    mapping = (
        "STRATEGIES: dict[str, st.SearchStrategy[Any]] = {\n"
        + "\n".join(entries)
        + '\n}\n"""Every definition\'s strategy, by definition name."""\n'
    )
    if lenient:
        mapping += (
            "\n\nUNSUPPORTED: dict[str, str] = {\n"
            + "".join(f"    {_literal(k)}: {_literal(v)},\n" for k, v in sorted(unsupported.items()))
            + '}\n"""Definitions whose strategy draws nothing, with the reason (the renderer could not honour them)."""\n'
        )
    patterns = (
        "_ECMA_PATTERNS: dict[str, str] = {\n"
        + "".join(f"    {_literal(k)}: {_literal(v)},\n" for k, v in sorted(compiler.patterns.items()))
        + '}\n"""Each schema pattern with its ECMA-262 meaning in Python syntax (codegen.ecma_regex)."""\n'
    )
    parts = [preamble, patterns + "\n" + _helpers_used(functions), *functions, mapping]
    return "\n\n".join(part.strip("\n") + "\n" for part in parts)


def _definitions(compiler: _Compiler, unsupported: dict[str, str], lenient: bool) -> tuple[list[str], list[str], dict[str, str], Any]:
    """Every definition's function and STRATEGIES entry, and the root's expression; with
    ``lenient``, a definition the renderer cannot honour is added to ``unsupported``."""
    functions: list[str] = []
    entries: list[str] = []
    taken: dict[str, str] = {"root": "(the schema root)"}
    for pointer, name in compiler.names.items():
        func = _snake(name)
        if func in taken:
            raise StrategyRenderError(f"definitions {taken[func]} and {name} share the name {func}")
        taken[func] = name
        sub = compiler.resolve(pointer)
        summary = f"Values valid against ``{pointer}``."
        description = sub.get("description", "") if isinstance(sub, dict) else ""
        if name in unsupported:
            expr, description = None, f"Draws nothing: {unsupported[name]}."
        else:
            try:
                expr = compiler.emit((sub,))
            except StrategyRenderError as exc:
                if not lenient:
                    raise
                unsupported[name] = str(exc)
                expr, description = None, f"Draws nothing: {exc}."
        functions.append(_function(func, summary, description, expr))
        entries.append(f"    {_literal(name)}: st.deferred({func}),")
    root_schema = {k: v for k, v in compiler.root.items() if k not in ("definitions", "$defs")}
    try:
        root_expr = compiler.emit((root_schema,))
    except StrategyRenderError as exc:
        if not lenient:
            raise
        unsupported["(root)"] = str(exc)
        root_expr = None
    return functions, entries, taken, root_expr


def _function(func: str, summary: str, description: str, expr: Any) -> str:
    doc = summary if not description else f"{summary}\n\n{description}\n"
    close = '\n    """' if description else '"""'
    body = "st.nothing()" if expr is None else _layout(expr, 4, 11)
    return f'def {func}() -> st.SearchStrategy[Any]:\n    """{_doc(doc, "    ").lstrip()}{close}\n    return {body}\n'
