"""Which keyword sites of a schema the mutations broke.

A keyword site is one assertion keyword at one place in a schema document,
named by the JSON pointer of the subschema that holds it and the keyword
(``("/$defs/RemoteModelRequest/properties/appId", "pattern")``). `universe`
lists the sites reachable from a top-level kind; `site_of` names the site of
the error jsonschema's ``best_match`` picks for a refused mutation.
"""

from __future__ import annotations

from typing import Any

from jsonschema.exceptions import ValidationError  # type: ignore[import-untyped]

from .oracle import Oracle

__all__ = ["BREAKABLE", "Site", "error_sites", "site_of", "universe"]

Site = tuple[str, str]

BREAKABLE = frozenset(
    {
        "required",
        "additionalProperties",
        "type",
        "enum",
        "const",
        "pattern",
        "minLength",
        "maxLength",
        "minimum",
        "maximum",
        "exclusiveMinimum",
        "exclusiveMaximum",
        "minItems",
        "maxItems",
        "format",
        "not",
        "anyOf",
        "oneOf",
    }
)
"""Keywords a single mutation can break (``additionalProperties`` only when false)."""


def _resolve(oracle: Oracle, schema: str, ref: str) -> tuple[str, Any]:
    node: Any = oracle.document(schema)
    for part in ref[2:].split("/") if ref != "#" else []:
        node = node[part.replace("~1", "/").replace("~0", "~")]
    return ref[1:], node


def universe(oracle: Oracle, schema: str, definition: str | None) -> set[Site]:
    """Every breakable keyword site reachable from a definition.

    Subschemas under ``if`` and inside ``not`` are conditions, not rules, so
    their keywords are not sites; the ``not`` itself is.
    """
    found: set[Site] = set()
    seen: set[str] = set()
    stack: list[tuple[str, Any]] = [(oracle.pointer(schema, definition), oracle.subschema(schema, definition))]
    while stack:
        pointer, node = stack.pop()
        if not isinstance(node, dict) or pointer in seen:
            continue
        seen.add(pointer)
        for keyword in BREAKABLE & set(node):
            if keyword == "additionalProperties" and node[keyword] is not False:
                continue
            if keyword == "required" and not node[keyword]:
                continue  # an empty list cannot be broken
            found.add((pointer, keyword))
        if "$ref" in node:
            stack.append(_resolve(oracle, schema, node["$ref"]))
        for key in ("allOf", "anyOf", "oneOf"):
            stack.extend((f"{pointer}/{key}/{i}", sub) for i, sub in enumerate(node.get(key, ())))
        for key in ("then", "else", "items", "additionalProperties"):
            if isinstance(node.get(key), dict):
                stack.append((f"{pointer}/{key}", node[key]))
        for name, sub in node.get("properties", {}).items():
            stack.append((f"{pointer}/properties/{name.replace('~', '~0').replace('/', '~1')}", sub))
    return found


def site_of(oracle: Oracle, schema: str, definition: str | None, error: ValidationError) -> Site:
    """The keyword site of a jsonschema error, references followed."""
    pointer = oracle.pointer(schema, definition)
    node: Any = oracle.subschema(schema, definition)
    path = list(error.absolute_schema_path)
    for part in path[:-1]:
        if part == "$ref":
            pointer, node = _resolve(oracle, schema, node["$ref"])
            continue
        while isinstance(node, dict) and part not in node and "$ref" in node:
            # jsonschema leaves some reference steps out of the path.
            pointer, node = _resolve(oracle, schema, node["$ref"])
        node = node[part]
        pointer += "/" + str(part).replace("~", "~0").replace("/", "~1")
    keyword = str(path[-1]) if path else ""
    while isinstance(node, dict) and keyword not in node and "$ref" in node:
        pointer, node = _resolve(oracle, schema, node["$ref"])
    return pointer, keyword


def error_sites(oracle: Oracle, schema: str, definition: str | None, errors: list[ValidationError]) -> set[Site]:
    """The keyword sites of every error, including those inside ``anyOf``/``oneOf`` contexts."""
    found: set[Site] = set()
    stack = list(errors)
    while stack:
        error = stack.pop()
        found.add(site_of(oracle, schema, definition, error))
        stack.extend(error.context or ())
    return found
