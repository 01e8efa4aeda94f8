"""The forms codegen/bindings.py (msgspec Structs and their rules) is known to get wrong.

:func:`refuse_inexact` walks a document before the Structs compiler sees it and raises one
:class:`codegen.schema.SchemaError` naming the keyword and JSON pointer of the first form that
the JSON-Schema-Test-Suite showed it to compile into a wrong answer or a crash
(``python -m tests.schema_suite --structs``): a boolean schema in an applicator; ``not``,
``if``, ``allOf``, ``properties`` or ``required`` where no ``type: object`` (or a ``$ref``
beside them) makes the value an object; a root or definition that only admits ``null``; a
``$ref`` other than ``#/$defs/NAME`` (or ``#/definitions/NAME``) with a plain name; a property
name with quotes, backslashes or control characters; a pattern codegen.ecma_regex cannot
translate. Any other document compiles through codegen/validators.py instead, which has none
of these limits.
"""

from __future__ import annotations

import re
from typing import Any

from codegen.ecma_regex import UnsupportedPattern, translate
from codegen.schema import SchemaError

_PLAIN_REF = re.compile(r"#/(\$defs|definitions)/[A-Za-z0-9_.\-]+")
_PLAIN_NAME = re.compile(r"[^\"\\\x00-\x1f\x7f]*")
_IN_PLACE = ("allOf", "anyOf", "oneOf")


def refuse_inexact(raw: Any) -> None:
    """Raise SchemaError on the first form of the module docstring in ``raw``."""
    if not isinstance(raw, dict):
        raise SchemaError("#: a boolean root schema is not compiled into Structs")
    _root_like(raw, "#")
    for key in ("$defs", "definitions"):
        for name, sub in (raw.get(key) or {}).items():
            if isinstance(sub, bool):
                raise SchemaError(f"#/{key}/{name}: a boolean definition is not compiled into Structs")
            _root_like(sub, f"#/{key}/{name}")
            _walk(sub, f"#/{key}/{name}", False)
    _walk(raw, "#", False)
    _in_place_cycles(raw)


def _in_place_refs(schema: Any) -> set[str]:
    """The definitions ``schema`` refers to on the same value ($ref, allOf/anyOf/oneOf, not,
    if/then/else), not through a property or an item."""
    found: set[str] = set()
    if not isinstance(schema, dict):
        return found
    if isinstance(schema.get("$ref"), str):
        found.add(schema["$ref"])
    for kw in _IN_PLACE:
        for sub in schema.get(kw) or ():
            found |= _in_place_refs(sub)
    for kw in ("not", "if", "then", "else"):
        found |= _in_place_refs(schema.get(kw))
    return found


def _in_place_cycles(raw: dict[str, Any]) -> None:
    """A definition that refers to itself on the same value never ends: refused."""
    edges: dict[str, set[str]] = {}
    for key in ("$defs", "definitions"):
        for name, sub in (raw.get(key) or {}).items():
            edges[f"#/{key}/{name}"] = _in_place_refs(sub)
    state: dict[str, int] = {}

    def visit(node: str) -> None:
        state[node] = 1
        for nxt in edges.get(node, ()):
            if state.get(nxt) == 1:
                raise SchemaError(f"{nxt}/$ref: the definition refers to itself on the same value, so checking it would never end")
            if nxt not in state:
                visit(nxt)
        state[node] = 2

    for node in edges:
        if node not in state:
            visit(node)


def _root_like(schema: dict[str, Any], pointer: str) -> None:
    if schema.get("type") == "null" or ("const" in schema and schema["const"] is None):
        raise SchemaError(f"{pointer}/type: a root or definition that only admits null is not compiled into Structs")
    for kw in _IN_PLACE:
        branches = schema.get(kw) or ()
        if len(branches) == 1 and isinstance(branches[0], dict):
            _root_like(branches[0], f"{pointer}/{kw}/0")


def _is_object(schema: dict[str, Any]) -> bool:
    kind = schema.get("type")
    return kind == "object" or (isinstance(kind, list) and "object" in kind)


def _walk(schema: Any, pointer: str, in_object: bool) -> None:
    """``in_object``: the value is already known to be an object (an in-place applicator of
    a ``type: object`` schema)."""
    if isinstance(schema, bool):
        return
    if not isinstance(schema, dict):
        raise SchemaError(f"{pointer}: a schema is an object or a boolean")
    narrowed = any(isinstance(b, dict) and "$ref" in b for b in schema.get("allOf") or ())  # allOf: [{$ref}, {...}]
    here = in_object or _is_object(schema) or "$ref" in schema or narrowed
    for kw in ("not", "if", "allOf", "properties", "required"):
        if kw in schema and not here:
            raise SchemaError(f"{pointer}/{kw}: `{kw}` on a value not known to be an object is not compiled into Structs")
    if "$ref" in schema and not (isinstance(schema["$ref"], str) and _PLAIN_REF.fullmatch(schema["$ref"])):
        raise SchemaError(f"{pointer}/$ref: only #/$defs/NAME references are compiled into Structs")
    for kw in ("$dynamicRef", "$anchor", "unevaluatedProperties", "unevaluatedItems", "dependencies"):
        if kw in schema and kw != "$dynamicAnchor":
            raise SchemaError(f"{pointer}/{kw}: `{kw}` is not compiled into Structs")
    if "pattern" in schema:
        _pattern(schema["pattern"], f"{pointer}/pattern")
    for name, sub in (schema.get("properties") or {}).items():
        if not _PLAIN_NAME.fullmatch(name):
            raise SchemaError(f"{pointer}/properties: the property name {name!r} is not compiled into Structs")
        _walk(sub, f"{pointer}/properties/{name}", False)
    for name, sub in (schema.get("patternProperties") or {}).items():
        _pattern(name, f"{pointer}/patternProperties")
        _walk(sub, f"{pointer}/patternProperties/{name}", False)
    for kw in _IN_PLACE:
        for i, sub in enumerate(schema.get(kw) or ()):
            if isinstance(sub, bool):
                raise SchemaError(f"{pointer}/{kw}/{i}: a boolean schema in `{kw}` is not compiled into Structs")
            _walk(sub, f"{pointer}/{kw}/{i}", here)
    for kw in ("not", "if", "then", "else"):
        if kw in schema:
            if isinstance(schema[kw], bool):
                raise SchemaError(f"{pointer}/{kw}: a boolean schema in `{kw}` is not compiled into Structs")
            _walk(schema[kw], f"{pointer}/{kw}", here)
    for kw in ("items", "contains", "propertyNames"):
        if kw in schema:
            if isinstance(schema[kw], bool) and kw != "items":
                raise SchemaError(f"{pointer}/{kw}: a boolean schema in `{kw}` is not compiled into Structs")
            _walk(schema[kw], f"{pointer}/{kw}", False)
    for i, sub in enumerate(schema.get("prefixItems") or ()):
        _walk(sub, f"{pointer}/prefixItems/{i}", False)
    if isinstance(schema.get("additionalProperties"), dict):
        _walk(schema["additionalProperties"], f"{pointer}/additionalProperties", False)


def _pattern(pattern: Any, pointer: str) -> None:
    try:
        translate(pattern)
    except (UnsupportedPattern, TypeError) as exc:
        raise SchemaError(f"{pointer}: the pattern {pattern!r} has no exact Python equivalent ({exc})") from None
