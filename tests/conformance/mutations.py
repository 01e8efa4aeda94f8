"""Single mutations of valid instances, derived from the schema's keywords.

`sites` walks a valid instance with its schema and yields, for every location,
the subschemas that apply there (following ``$ref``, ``allOf``, the branches of
``anyOf``/``oneOf`` the value matches, and the active ``then``/``else``).
`candidates` turns each keyword of each site into edits that break it, or probe
its boundary:

==================  =========================================================
keyword             edits
==================  =========================================================
required            drop each required property
properties          drop each optional property; add each absent one (this
                    is what breaks ``not``/``then``/``else`` rules)
additionalProperties  add an unknown property (closed and open objects)
type                replace by a value of each other JSON type; integers also
                    as ``7.0`` (valid) and ``7.5``
enum, const         another value, a case-changed value, the values of the
                    other branches' constants (discriminators)
pattern             empty, blank, ECMA/Python whitespace differences,
                    a final newline, a wrong first character, too long
oneOf, anyOf        a value of a type no branch takes
minLength/maxLength one code point short or over; multi-byte and astral
                    characters at the limit
minimum/maximum,    the bound, one past it, and half past it; ``format``
exclusive*, format  ``uint32``/``uint`` at 2**32-1 / 2**32, 2**64-1 / 2**64
minItems/maxItems   one item short or over, and exactly at the limit
anyOf (required)    drop every property the branches name
==================  =========================================================

Each candidate names the keyword and the schema location it targets; whether
the mutation is valid is for the oracle to say.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

from .oracle import Oracle
from .verdict import Path

__all__ = ["Mutation", "Site", "candidates", "example", "sites"]

_WRONG: dict[str, Any] = {
    "null": None,
    "boolean": True,
    "integer": 7,
    "number": 2.5,
    "string": "text",
    "array": [],
    "object": {},
}
_PATTERN_BREAKERS: dict[str, Callable[[str], str]] = {
    "empty": lambda v: "",
    "space": lambda v: " ",
    "tab-newline": lambda v: "\t\n",
    "ideographic-space": lambda v: "\u3000",
    "x1c": lambda v: "\x1c",
    "x85": lambda v: "\x85",
    "ufeff": lambda v: "\ufeff",
    "u180e": lambda v: "\u180e",
    "upper": lambda v: "A",
    "digit": lambda v: "1",
    "dash": lambda v: "-",
    "long": lambda v: "a" * 65,
    "final-newline": lambda v: v + "\n",
    "two-final-newlines": lambda v: v + "\n\n",
    "leading-newline": lambda v: "\n" + v,
    "upper-prefix": lambda v: "A" + v,
    "bang-suffix": lambda v: v + "!",
}
"""Strings that break (or probe) a pattern; each is its own group of mutations."""
_UNKNOWN = "zz_unknown"


@dataclass(frozen=True)
class Site:
    """A subschema that applies at one location of an instance."""

    location: Path
    schema: dict[str, Any]
    pointer: str


@dataclass(frozen=True)
class Mutation:
    """One edit of a valid instance.

    Attributes
    ----------
    op : str
        What the edit does (``"drop"``, ``"wrong-type"``, ``"over-max"``...).
    keyword : str
        The schema keyword it targets.
    pointer : str
        The JSON pointer of the subschema holding that keyword.
    location : tuple
        Where in the document the edit is made.
    edit : callable
        Returns the mutated copy of a document.
    """

    op: str
    keyword: str
    pointer: str
    location: Path
    edit: Callable[[Any], Any] = field(compare=False)

    @property
    def group(self) -> tuple[str, str, str]:
        """Mutations of one group break the same keyword the same way."""
        return (self.pointer, self.keyword, self.op)


def _escape(name: str) -> str:
    return name.replace("~", "~0").replace("/", "~1")


def sites(oracle: Oracle, schema: str, pointer: str, node: Any, value: Any, location: Path = ()) -> Iterator[Site]:
    """Every (location, subschema) pair that applies to *value* under *node*."""
    if not isinstance(node, dict):
        return
    yield Site(location, node, pointer)
    ref = node.get("$ref")
    if isinstance(ref, str) and ref.startswith("#"):
        target = oracle.document(schema)
        for part in ref[2:].split("/") if ref != "#" else []:
            target = target[part.replace("~1", "/").replace("~0", "~")]
        yield from sites(oracle, schema, ref[1:], target, value, location)
    for i, sub in enumerate(node.get("allOf", ())):
        yield from sites(oracle, schema, f"{pointer}/allOf/{i}", sub, value, location)
    for key in ("anyOf", "oneOf"):
        for i, sub in enumerate(node.get(key, ())):
            if oracle.is_valid(schema, sub, value):
                yield from sites(oracle, schema, f"{pointer}/{key}/{i}", sub, value, location)
    if "if" in node:
        branch = "then" if oracle.is_valid(schema, node["if"], value) else "else"
        if branch in node:
            yield from sites(oracle, schema, f"{pointer}/{branch}", node[branch], value, location)
    if isinstance(value, dict):
        properties = node.get("properties", {})
        extra = node.get("additionalProperties")
        for name, item in value.items():
            if name in properties:
                yield from sites(
                    oracle, schema, f"{pointer}/properties/{_escape(name)}", properties[name], item, (*location, name)
                )
            elif isinstance(extra, dict):
                yield from sites(oracle, schema, f"{pointer}/additionalProperties", extra, item, (*location, name))
    if isinstance(value, list) and isinstance(node.get("items"), dict):
        for i, item in enumerate(value):
            yield from sites(oracle, schema, f"{pointer}/items", node["items"], item, (*location, i))


def example(oracle: Oracle, schema: str, node: Any, depth: int = 0) -> Any:
    """A small value meant to be valid against *node* (the oracle checks)."""
    if not isinstance(node, dict) or depth > 6:
        return {}
    if "$ref" in node:
        target = oracle.document(schema)
        for part in node["$ref"][2:].split("/"):
            target = target[part]
        return example(oracle, schema, target, depth + 1)
    if "const" in node:
        return copy.deepcopy(node["const"])
    if "enum" in node:
        return copy.deepcopy(node["enum"][0])
    for key in ("oneOf", "anyOf"):
        if key in node:
            return example(oracle, schema, node[key][0], depth + 1)
    kind = node.get("type", "object" if "properties" in node else None)
    kind = kind[0] if isinstance(kind, list) else kind
    if kind == "string":
        size = max(node.get("minLength", 0), 1)
        return "a" * size
    if kind in ("integer", "number"):
        low = node.get("minimum", node.get("exclusiveMinimum", -1) + 1)
        return max(low, 1) if node.get("maximum", 1) >= 1 else low
    if kind == "boolean":
        return False
    if kind == "null":
        return None
    if kind == "array":
        return [example(oracle, schema, node.get("items", {}), depth + 1) for _ in range(node.get("minItems", 0))]
    if kind == "object":
        properties = node.get("properties", {})
        return {name: example(oracle, schema, properties.get(name, {}), depth + 1) for name in node.get("required", ())}
    return "a"


def _set(location: Path, new: Any) -> Callable[[Any], Any]:
    def edit(document: Any) -> Any:
        if not location:
            return copy.deepcopy(new)
        out = copy.deepcopy(document)
        node = out
        for part in location[:-1]:
            node = node[part]
        node[location[-1]] = copy.deepcopy(new)
        return out

    return edit


def _drop(location: Path, names: tuple[str, ...]) -> Callable[[Any], Any]:
    def edit(document: Any) -> Any:
        out = copy.deepcopy(document)
        node = out
        for part in location:
            node = node[part]
        for name in names:
            node.pop(name, None)
        return out

    return edit


class _Context:
    """What the candidate rules need besides the site: the oracle and the schema."""

    def __init__(self, oracle: Oracle, schema: str) -> None:
        self.oracle = oracle
        self.schema = schema
        self.constants = _constants_by_property(oracle.document(schema))


def _constants_by_property(document: Any) -> dict[str, list[Any]]:
    found: dict[str, list[Any]] = {}

    def visit(node: Any) -> None:
        if isinstance(node, dict):
            for name, sub in node.get("properties", {}).items():
                if isinstance(sub, dict) and "const" in sub and sub["const"] not in found.setdefault(name, []):
                    found[name].append(sub["const"])
            for sub in node.values():
                visit(sub)
        elif isinstance(node, list):
            for sub in node:
                visit(sub)

    visit(document)
    return found


def candidates(oracle: Oracle, schema: str, pointer: str, instance: Any) -> list[Mutation]:
    """Every single mutation of *instance* that the schema's keywords suggest."""
    context = _Context(oracle, schema)
    root = oracle.document(schema)
    node: Any = root
    for part in pointer.split("/")[1:]:
        node = node[part]
    out: list[Mutation] = []
    for site in sites(oracle, schema, pointer, node, instance):
        value = _value(instance, site.location)
        for rule in _RULES:
            out.extend(rule(site, value, context))
    return out


def _value(document: Any, location: Path) -> Any:
    for part in location:
        document = document[part]
    return document


# ---------------------------------------------------------------- rules


def _objects(site: Site, value: Any, context: _Context) -> Iterator[Mutation]:
    node, where = site.schema, site.location
    if not isinstance(value, dict):
        return
    required = node.get("required", ())
    properties = node.get("properties", {})
    for name in value:
        if name in required:
            yield Mutation("drop", "required", site.pointer, where, _drop(where, (name,)))
        elif name in properties:
            yield Mutation("drop-optional", "properties", site.pointer, where, _drop(where, (name,)))
    for name, sub in properties.items():
        if name not in value:
            new = {**value, name: example(context.oracle, context.schema, sub)}
            yield Mutation("add-absent", "properties", site.pointer, where, _set(where, new))
    if "properties" in node or "additionalProperties" in node:
        keyword = "additionalProperties" if node.get("additionalProperties") is False else "open-object"
        yield Mutation("add-unknown", keyword, site.pointer, where, _set(where, {**value, _UNKNOWN: 1}))
    branches = node.get("anyOf", ())
    if branches and all(set(b) == {"required"} for b in branches):
        names = tuple(n for b in branches for n in b["required"])
        yield Mutation("drop-all", "anyOf", site.pointer, where, _drop(where, names))


def _types(site: Site, value: Any, context: _Context) -> Iterator[Mutation]:
    kind = site.schema.get("type")
    if kind is None:
        return
    allowed = {kind} if isinstance(kind, str) else set(kind)
    for name, wrong in _WRONG.items():
        if name not in allowed and not (name == "integer" and "number" in allowed):
            yield Mutation(f"wrong-type-{name}", "type", site.pointer, site.location, _set(site.location, wrong))
    if isinstance(value, int) and not isinstance(value, bool) and abs(value) <= 2**53:
        yield Mutation("integral-float", "type", site.pointer, site.location, _set(site.location, float(value)))
        yield Mutation("fraction", "type", site.pointer, site.location, _set(site.location, value + 0.5))


def _choices(site: Site, value: Any, context: _Context) -> Iterator[Mutation]:
    node, where = site.schema, site.location
    keyword = "enum" if "enum" in node else "const" if "const" in node else None
    if keyword is None:
        return
    allowed = node["enum"] if keyword == "enum" else [node["const"]]
    options: list[tuple[str, Any]] = [("other-allowed", v) for v in allowed if v != value]
    if where and isinstance(where[-1], str):
        # Another branch's discriminator: may be valid (that branch), may not.
        options += [("other-constant", v) for v in context.constants.get(where[-1], ()) if v not in allowed]
    if isinstance(value, str):
        options += [("not-allowed", v) for v in (value.swapcase(), value + "_x", "") if v not in allowed]
    elif isinstance(value, (int, float)) and not isinstance(value, bool):
        options.append(("not-allowed", value + 1))
    for op, option in options:
        yield Mutation(op, keyword, site.pointer, where, _set(where, option))


def _strings(site: Site, value: Any, context: _Context) -> Iterator[Mutation]:
    node, where = site.schema, site.location
    if not isinstance(value, str):
        return
    if "pattern" in node:
        for name, breaker in _PATTERN_BREAKERS.items():
            yield Mutation(f"pattern-{name}", "pattern", site.pointer, where, _set(where, breaker(value)))
    low, high = node.get("minLength"), node.get("maxLength")
    if low:
        yield Mutation("under-min", "minLength", site.pointer, where, _set(where, "a" * (low - 1)))
        yield Mutation("at-min-astral", "minLength", site.pointer, where, _set(where, "\U0001f600" * low))
    if high is not None:
        yield Mutation("over-max", "maxLength", site.pointer, where, _set(where, "b" * (high + 1)))
        yield Mutation("at-max-multibyte", "maxLength", site.pointer, where, _set(where, "é" * high))
        yield Mutation("at-max-astral", "maxLength", site.pointer, where, _set(where, "\U0001f600" * high))
        yield Mutation("over-max-astral", "maxLength", site.pointer, where, _set(where, "\U0001f600" * (high + 1)))


def _numbers(site: Site, value: Any, context: _Context) -> Iterator[Mutation]:
    node, where = site.schema, site.location
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return
    probes: list[tuple[str, str, Any]] = []
    for keyword, step in (("minimum", -1), ("maximum", 1), ("exclusiveMinimum", -1), ("exclusiveMaximum", 1)):
        if keyword in node:
            bound = node[keyword]
            probes += [("at-bound", keyword, bound), ("past-bound", keyword, bound + step)]
            probes += [("half-past-bound", keyword, bound + step / 2), ("float-bound", keyword, float(bound))]
    tops = {"uint32": 2**32 - 1, "uint": 2**64 - 1}
    if node.get("format") in tops:
        top = tops[node["format"]]
        probes += [("at-format-max", "format", top), ("past-format-max", "format", top + 1), ("negative", "format", -1)]
    for op, keyword, number in probes:
        yield Mutation(op, keyword, site.pointer, where, _set(where, number))


def _arrays(site: Site, value: Any, context: _Context) -> Iterator[Mutation]:
    node, where = site.schema, site.location
    if not isinstance(value, list):
        return
    low, high = node.get("minItems"), node.get("maxItems")
    filler = value[0] if value else example(context.oracle, context.schema, node.get("items", {}))
    if low:
        yield Mutation("under-min", "minItems", site.pointer, where, _set(where, value[: low - 1]))
    if high is not None:
        grown = (value + [filler] * (high + 1))[: high + 1]
        yield Mutation("over-max", "maxItems", site.pointer, where, _set(where, grown))
        yield Mutation("at-max", "maxItems", site.pointer, where, _set(where, grown[:high]))


def _unions(site: Site, value: Any, context: _Context) -> Iterator[Mutation]:
    for keyword in ("oneOf", "anyOf"):
        if keyword in site.schema and not all(set(b) == {"required"} for b in site.schema[keyword]):
            for name in ("null", "integer", "string", "array"):
                yield Mutation(
                    f"no-branch-{name}", keyword, site.pointer, site.location, _set(site.location, _WRONG[name])
                )


_RULES = (_objects, _types, _choices, _strings, _numbers, _arrays, _unions)
