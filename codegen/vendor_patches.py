"""The vendor patch layer: documented changes applied to the extracted vendor schemas.

``codegen/vendor_patches.toml`` (hand-written; its header is the format) lists each change
with its format, target (a JSON pointer into the extracted schema), operation, reason and the
recorded corpus documents it makes valid. ``python -m codegen vendor`` applies the patches of a
format right after extraction (``codegen.vendor.extract``), so ``schemas/vendor/<format>.json``
is always *extraction + patches* and ``--check`` verifies both.

Operations (each leaves a ``$comment`` naming the patch on every subschema it changes):

``optional``
    Drops members from ``required``: the listed ``members`` of the object at ``target``, or,
    with ``where``, in every object schema at or below ``target``, each required member whose
    schema meets a condition (``accepts-null``: accepts JSON null, following ``$ref``;
    ``has-default``: declares a ``default`` and is not a ``const`` tag).
``nullable``
    The schema at ``target`` accepts null too (OpenAPI's ``nullable: true``, translated as the
    extraction translates it).
``any-of``
    The ``oneOf`` at ``target`` becomes an ``anyOf`` with the same branches.

A patch that changes nothing raises ``PatchError``: the spec changed under it and it must be
revisited (or removed).
"""

from __future__ import annotations

import tomllib
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

PATCHES = Path(__file__).resolve().parent / "vendor_patches.toml"
PATCHES_NAME = "codegen/vendor_patches.toml"

__all__ = ["PATCHES", "PATCHES_NAME", "Patch", "PatchError", "apply", "load"]

_SCHEMA_MAPS = ("properties", "$defs", "patternProperties", "dependentSchemas")
OPERATIONS = ("optional", "nullable", "any-of")
CONDITIONS = ("accepts-null", "has-default")


class PatchError(Exception):
    """A patch that is malformed, or that no longer changes the extracted schema."""


@dataclass(frozen=True)
class Patch:
    """One entry of vendor_patches.toml."""

    id: str
    format: str
    target: str
    op: str
    reason: str
    evidence: tuple[str, ...]
    members: tuple[str, ...] = ()
    where: tuple[str, ...] = ()

    def note(self, members: list[str] | None = None) -> str:
        """The ``$comment`` left on what the patch changes (``members``: those it unrequired)."""
        if self.op == "optional":
            why = f" ({' or '.join(self.where)})" if self.where else ""
            what = f"{', '.join(members or self.members)} not required{why}"
        else:
            what = {"nullable": "accepts null", "any-of": "oneOf -> anyOf"}[self.op]
        return f"Patched ({PATCHES_NAME}, {self.id}): {what}."


def load(path: Path = PATCHES) -> list[Patch]:
    """Every patch of the file, checked for shape."""
    entries = tomllib.loads(path.read_text(encoding="utf-8")).get("patch", [])
    patches: list[Patch] = []
    seen: set[str] = set()
    for entry in entries:
        known = {"id", "format", "target", "op", "reason", "evidence", "members", "where"}
        if set(entry) - known or not {"id", "format", "target", "op", "reason", "evidence"} <= set(entry):
            raise PatchError(f"{entry.get('id', entry)}: keys must be {sorted(known)} (members/where optional)")
        patch = Patch(
            entry["id"], entry["format"], entry["target"], entry["op"], entry["reason"].strip(),
            tuple(entry["evidence"]), tuple(entry.get("members", ())), tuple(entry.get("where", ())),
        )
        if patch.id in seen:
            raise PatchError(f"{patch.id}: the id is used twice")
        seen.add(patch.id)
        if patch.op not in OPERATIONS:
            raise PatchError(f"{patch.id}: unknown op {patch.op!r} (one of {', '.join(OPERATIONS)})")
        if not patch.target.startswith("#"):
            raise PatchError(f"{patch.id}: target must be a JSON pointer fragment '#/...'")
        if patch.op == "optional" and bool(patch.members) == bool(patch.where):
            raise PatchError(f"{patch.id}: optional takes either members or where")
        if patch.op != "optional" and (patch.members or patch.where):
            raise PatchError(f"{patch.id}: members/where belong to op optional")
        if set(patch.where) - set(CONDITIONS):
            raise PatchError(f"{patch.id}: unknown condition in where (known: {', '.join(CONDITIONS)})")
        if not patch.reason or not patch.evidence:
            raise PatchError(f"{patch.id}: a patch needs a reason and evidence")
        patches.append(patch)
    return patches


def apply(schema: dict[str, Any], patches: list[Patch]) -> dict[str, Any]:
    """Apply ``patches`` to an extracted schema document in place; returns it."""
    for patch in patches:
        parent, key = _resolve(schema, patch)
        node = parent[key]
        if patch.op == "nullable":
            parent[key] = _with_note(_nullable(node, patch), patch)
        elif patch.op == "any-of":
            if not isinstance(node, dict) or "oneOf" not in node:
                raise PatchError(f"{patch.id}: no oneOf at {patch.target}")
            node["anyOf"] = node.pop("oneOf")
            _with_note(node, patch)
        elif patch.members:
            missing = [m for m in patch.members if m not in node.get("required", [])]
            if missing:
                raise PatchError(f"{patch.id}: {', '.join(missing)} not required at {patch.target}")
            _unrequire(node, set(patch.members), patch)
        else:
            test = _condition(schema, patch.where)
            changed = 0
            # A target that is a map of schemas ($defs, properties) stands for all of them.
            scope = list(node.values()) if key in _SCHEMA_MAPS and isinstance(node, dict) else node
            for obj in _objects(scope):
                drop = {m for m in obj.get("required", []) if m in obj.get("properties", {}) and test(obj["properties"][m])}
                if drop:
                    _unrequire(obj, drop, patch)
                    changed += 1
            if not changed:
                raise PatchError(f"{patch.id}: no required member under {patch.target} meets {patch.where}")
    return schema


# --------------------------------------------------------------------------- helpers
def _resolve(schema: dict[str, Any], patch: Patch) -> tuple[Any, Any]:
    """(container, key) of the node ``patch.target`` names."""
    tokens = [t.replace("~1", "/").replace("~0", "~") for t in patch.target.removeprefix("#").split("/")[1:]]
    if not tokens:
        raise PatchError(f"{patch.id}: the target cannot be the document itself")
    node: Any = schema
    for token in tokens[:-1]:
        node = _step(node, token, patch)
    _step(node, tokens[-1], patch)
    return node, (int(tokens[-1]) if isinstance(node, list) else tokens[-1])


def _step(node: Any, token: str, patch: Patch) -> Any:
    try:
        return node[int(token)] if isinstance(node, list) else node[token]
    except (KeyError, IndexError, ValueError, TypeError):
        raise PatchError(f"{patch.id}: {patch.target} does not resolve (at {token!r})") from None


def _with_note(node: dict[str, Any], patch: Patch, members: list[str] | None = None) -> dict[str, Any]:
    note, mine = node.get("$comment"), patch.note(members)
    node["$comment"] = mine if not note else f"{note} {mine}"
    return node


def _unrequire(obj: dict[str, Any], members: set[str], patch: Patch) -> None:
    dropped = [m for m in obj["required"] if m in members]
    obj["required"] = [m for m in obj["required"] if m not in members]
    if not obj["required"]:
        del obj["required"]
    _with_note(obj, patch, dropped)


def _nullable(node: Any, patch: Patch) -> dict[str, Any]:
    from codegen.vendor import _nullable as translate

    if not isinstance(node, dict):
        raise PatchError(f"{patch.id}: {patch.target} is not a schema object")
    if _accepts_null({}, node):
        raise PatchError(f"{patch.id}: {patch.target} accepts null already")
    return translate(dict(node))


def _condition(schema: dict[str, Any], where: tuple[str, ...]) -> Callable[[Any], bool]:
    defs = schema.get("$defs", {})

    def test(member: Any) -> bool:
        if "accepts-null" in where and _accepts_null(defs, member):
            return True
        return "has-default" in where and isinstance(member, dict) and "default" in member and "const" not in member

    return test


def _accepts_null(defs: dict[str, Any], node: Any, seen: frozenset[str] = frozenset()) -> bool:
    """Whether ``node`` accepts JSON null (type, const, enum, $ref, anyOf/oneOf; allOf: every
    branch). Conservative: keywords it does not read cannot refuse null here (they apply to
    other types)."""
    if isinstance(node, bool):
        return node
    if not isinstance(node, dict):
        return False
    if "$ref" in node:
        name = node["$ref"].rsplit("/", 1)[-1]
        if name in seen or name not in defs or not _accepts_null(defs, defs[name], seen | {name}):
            return False
    if "type" in node and "null" not in (node["type"] if isinstance(node["type"], list) else [node["type"]]):
        return False
    if "const" in node and node["const"] is not None:
        return False
    if "enum" in node and None not in node["enum"]:
        return False
    if "not" in node:
        return False
    for key in ("anyOf", "oneOf"):
        if key in node and not any(_accepts_null(defs, b, seen) for b in node[key]):
            return False
    return all(_accepts_null(defs, b, seen) for b in node.get("allOf", []))


def _objects(node: Any) -> Iterator[dict[str, Any]]:
    """Every schema object at or below ``node`` that has ``required`` (subschemas and $defs)."""
    if isinstance(node, list):
        for item in node:
            yield from _objects(item)
        return
    if not isinstance(node, dict):
        return
    if isinstance(node.get("required"), list):
        yield node
    for key, value in node.items():
        if key in _SCHEMA_MAPS:
            for sub in value.values():
                yield from _objects(sub)
        elif key in ("allOf", "anyOf", "oneOf", "prefixItems"):
            yield from _objects(value)
        elif key in ("items", "not", "additionalProperties", "contains", "if", "then", "else", "propertyNames"):
            yield from _objects(value)
