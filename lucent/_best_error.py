"""Pick the error that JSON Schema's reference validator would name first.

msgspec stops at the first fault in document order. ``jsonschema.exceptions.best_match``
names the *shallowest* fault (the shortest path), and among equally deep faults prefers one that
is not a weak ``anyOf``/``oneOf`` failure. This module runs only after a failure: it walks the
ancestors of the first fault, checks each ancestor object's own keys (``required``,
``additionalProperties``) and every sibling item of each ancestor array, and returns the best
fault found, so that a document's reported path does not depend on which fault came first.
"""

from __future__ import annotations

import json
import re
import typing
from typing import Any, Callable

import msgspec

from lucent.errors import ValidationError

_SEGMENT = re.compile(r'\.([A-Za-z_][A-Za-z0-9_]*)|\[(\d+)\]|\[("(?:[^"\\]|\\.)*")\]')
_WEAK = {"anyOf", "oneOf"}


def segments(path: str) -> list[str | int]:
    """``$.a[0]["b c"]`` -> ``["a", 0, "b c"]``."""
    found: list[str | int] = []
    for name, index, quoted in _SEGMENT.findall(path[1:]):
        found.append(name if name else int(index) if index else json.loads(quoted))
    return found


def _depth(error: ValidationError) -> int:
    return len(segments(error.path))


def _relevance(error: ValidationError) -> tuple[Any, ...]:
    # jsonschema.exceptions.relevance: shallower first, then the greater path among siblings
    # (best_match takes the max), then a keyword that is not a weak anyOf/oneOf.
    path = [(isinstance(s, str), s) for s in segments(error.path)]
    return (-len(path), path, error.code not in _WEAK)


def _better(candidate: ValidationError, best: ValidationError) -> bool:
    return _relevance(candidate) > _relevance(best)


def _members(tp: Any) -> list[Any]:
    while typing.get_origin(tp) is typing.Annotated:
        tp = typing.get_args(tp)[0]
    if typing.get_origin(tp) in (typing.Union, getattr(__import__("types"), "UnionType")):
        result: list[Any] = []
        for arg in typing.get_args(tp):
            result += _members(arg)
        return result
    return [tp]


def _struct_for(tp: Any, node: Any) -> type[msgspec.Struct] | None:
    if not isinstance(node, dict):
        return None
    structs = [m for m in _members(tp) if isinstance(m, type) and issubclass(m, msgspec.Struct)]
    for struct in structs:
        config = struct.__struct_config__
        if config.tag_field is None or node.get(config.tag_field) == config.tag:
            return struct
    return None


def _item_type(tp: Any) -> Any:
    for member in _members(tp):
        if typing.get_origin(member) is list:
            return typing.get_args(member)[0]
    return None


def _own_keys_error(node: dict[str, Any], struct: type[msgspec.Struct], path: str) -> ValidationError | None:
    fields = msgspec.structs.fields(struct)
    names = {f.encode_name for f in fields}
    config = struct.__struct_config__
    if config.tag_field:
        names.add(config.tag_field)
    missing = [f.encode_name for f in fields if f.required and f.encode_name not in node]
    if missing:
        return ValidationError(f"Object missing required field `{missing[0]}`", code="required", path=path)
    if config.forbid_unknown_fields and set(node) - names:
        return ValidationError("Object contains unknown field", code="additionalProperties", path=path)
    return None


def _child_path(path: str, key: str | int) -> str:
    if isinstance(key, int):
        return f"{path}[{key}]"
    return f"{path}.{key}" if key.isidentifier() else f"{path}[{json.dumps(key)}]"


def _check_child(
    value: Any,
    tp: Any,
    path: str,
    best: ValidationError,
    translate: Callable[[msgspec.ValidationError, str], ValidationError],
) -> ValidationError:
    try:
        msgspec.convert(value, tp)
    except msgspec.ValidationError as exc:
        found = shallowest(value, tp, translate(exc, path), translate, path)
        if _better(found, best):
            return found
    return best


def shallowest(
    value: Any,
    tp: Any,
    first: ValidationError,
    translate: Callable[[msgspec.ValidationError, str], ValidationError],
    base: str = "$",
) -> ValidationError:
    """The best error for ``value`` (a plain JSON tree) against ``tp``, given the first one found."""
    best = first
    node, node_tp, path = value, tp, base
    relative = "$" + first.path[len(base):] if first.path.startswith(base) else first.path
    for key in segments(relative):
        struct = _struct_for(node_tp, node)
        if struct is not None:
            own = _own_keys_error(node, struct, path)
            if own is not None and _better(own, best):
                best = own
            for field in msgspec.structs.fields(struct):
                if field.encode_name != key and field.encode_name in node:
                    best = _check_child(node[field.encode_name], field.type, _child_path(path, field.encode_name), best, translate)
        item_tp = _item_type(node_tp) if isinstance(node, list) else None
        if item_tp is not None:
            for index, item in enumerate(node):
                if index == key:
                    continue
                best = _check_child(item, item_tp, _child_path(path, index), best, translate)
        # descend one level along the first error's path
        if isinstance(node, list) and isinstance(key, int) and key < len(node):
            node, node_tp = node[key], item_tp
        elif isinstance(node, dict) and isinstance(key, str) and key in node and struct is not None:
            on_path = next((f for f in msgspec.structs.fields(struct) if f.encode_name == key), None)
            if on_path is None:
                break
            node, node_tp = node[key], on_path.type
        else:
            break
        if node_tp is None:
            break
        path = _child_path(path, key)
    return best
