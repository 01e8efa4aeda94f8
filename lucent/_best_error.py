"""Pick the error that JSON Schema's reference validator would name first.

msgspec stops at the first fault in document order. ``jsonschema.exceptions.best_match``
names the *shallowest* fault (the shortest path); among equally deep faults the greatest path
(best_match takes the maximum), and then one that is not a weak ``anyOf``/``oneOf`` failure.
This module runs only after a failure: it walks the ancestors of the first fault, checks each
ancestor's own constraints (``required``, ``additionalProperties``, ``minItems``/``maxItems``)
and the siblings of each ancestor, and returns the best fault found, so that the reported path
does not depend on which fault came first in the document. Work is bounded by the best depth
found so far: nothing deeper than it is examined.
"""

from __future__ import annotations

import functools
import json
import re
import types
import typing
from typing import Any, Callable, TypeVar

import msgspec

from lucent._first_use import LOCK, once
from lucent.errors import ValidationError
from lucent._validation import member, printable

Translate = Callable[[msgspec.ValidationError, str], ValidationError]
_T = TypeVar("_T")

_SEGMENT = re.compile(r'\.([A-Za-z_][A-Za-z0-9_]*)|\[(\d+)\]|\[("(?:[^"\\]|\\.)*")\]|\[(\.\.\.)\]')
_WEAK = {"anyOf", "oneOf"}


class _AnyKey:
    """msgspec's ``[...]``: the key of a dict value, which msgspec does not name."""

    def __repr__(self) -> str:
        return "[...]"


ANY_KEY: Any = _AnyKey()


def segments(path: str) -> list[Any]:
    """``$.a[0]["b c"]`` -> ``["a", 0, "b c"]``; msgspec's ``[...]`` is ``ANY_KEY``."""
    found: list[Any] = []
    for name, index, quoted, anykey in _SEGMENT.findall(path[1:]):
        if anykey:
            found.append(ANY_KEY)
        else:
            found.append(name if name else int(index) if index else json.loads(quoted))
    return found


class _Ranker:
    """jsonschema's relevance key, cached per error."""

    def __init__(self) -> None:
        self._keys: dict[int, tuple[ValidationError, tuple[Any, ...]]] = {}  # held: no id is reused

    def key(self, error: ValidationError) -> tuple[Any, ...]:
        cached = self._keys.get(id(error))
        if cached is None:
            path = [(True, "[...]") if s is ANY_KEY else (isinstance(s, str), s) for s in segments(error.path)]
            cached = self._keys[id(error)] = (error, (-len(path), path, error.code not in _WEAK))
        return cached[1]

    def depth(self, error: ValidationError) -> int:
        return -int(self.key(error)[0])

    def better(self, candidate: ValidationError, best: ValidationError) -> bool:
        return self.key(candidate) > self.key(best)


def _per_type(function: Callable[..., _T]) -> Callable[..., _T]:
    """Cache ``function(tp, *rest)`` by the identity of ``tp`` (a generated type, which lives as
    long as its module). ``functools.lru_cache`` hashes the type on every call, and a union of
    Annotated members hashes every member and its ``Meta``: ~1 us a call for 50 members. Built
    under lucent._first_use.LOCK (a decoder of a type is msgspec state built on first use)."""
    cache: dict[tuple[Any, ...], tuple[Any, _T]] = {}

    def cached(tp: Any, *rest: Any) -> _T:
        key = (id(tp), *rest)
        hit = cache.get(key)
        if hit is None or hit[0] is not tp:
            with LOCK:
                hit = cache.get(key)
                if hit is None or hit[0] is not tp:
                    hit = cache[key] = (tp, function(tp, *rest))
        return hit[1]

    return functools.wraps(function)(cached)


@once
def _fields(struct: type[msgspec.Struct]) -> tuple[msgspec.structs.FieldInfo, ...]:
    return msgspec.structs.fields(struct)


def _unwrap(tp: Any) -> tuple[Any, list[msgspec.Meta]]:
    metas: list[msgspec.Meta] = []
    while typing.get_origin(tp) is typing.Annotated:
        args = typing.get_args(tp)
        tp = args[0]
        metas += [m for m in args[1:] if isinstance(m, msgspec.Meta)]
    return tp, metas


@_per_type
def _structs(tp: Any) -> tuple[type[msgspec.Struct], ...]:
    return tuple(m for m in _members(tp) if isinstance(m, type) and issubclass(m, msgspec.Struct))


def _members(tp: Any) -> list[Any]:
    tp, _ = _unwrap(tp)
    if typing.get_origin(tp) in (typing.Union, types.UnionType):
        result: list[Any] = []
        for arg in typing.get_args(tp):
            result += _members(arg)
        return result
    return [tp]


def _struct_for(tp: Any, node: Any) -> type[msgspec.Struct] | None:
    """The first Struct of ``tp`` (in the union's order) that ``node`` (a dict) may be: one
    without a tag, or one whose tag ``node`` holds. Looked up by tag, not tried in turn."""
    if not isinstance(node, dict):
        return None
    by_field, untagged = _tags(tp)
    found = untagged
    for tag_field, by_tag in by_field:
        tag = node.get(tag_field)
        if isinstance(tag, (str, int)) and not isinstance(tag, bool):  # msgspec's tag types
            hit = by_tag.get(tag)
            if hit is not None and (found is None or hit[0] < found[0]):
                found = hit
    return None if found is None else found[1]


_Indexed = tuple[int, type[msgspec.Struct]]


@_per_type
def _tags(tp: Any) -> tuple[tuple[tuple[str, dict[Any, _Indexed]], ...], _Indexed | None]:
    """((tag field, tag -> (position, first Struct with it)), ...) and the first untagged
    Struct of ``tp``, with its position."""
    by_field: dict[str, dict[Any, _Indexed]] = {}
    untagged: _Indexed | None = None
    for position, struct in enumerate(_structs(tp)):
        config = struct.__struct_config__
        if config.tag_field is None:
            untagged = untagged or (position, struct)
        else:
            by_field.setdefault(config.tag_field, {}).setdefault(config.tag, (position, struct))
    return tuple(by_field.items()), untagged


@once
def _field_named(struct: type[msgspec.Struct], name: str) -> msgspec.structs.FieldInfo | None:
    return next((f for f in _fields(struct) if f.encode_name == name), None)


@once
def _members_of(struct: type[msgspec.Struct]) -> tuple[frozenset[str], tuple[str, ...], bool]:
    """The member names a Struct's object may have (its tag's too), the required ones in order,
    and whether others are refused."""
    fields = _fields(struct)
    config = struct.__struct_config__
    names = frozenset(f.encode_name for f in fields) | ({config.tag_field} if config.tag_field else set())
    return names, tuple(f.encode_name for f in fields if f.required), bool(config.forbid_unknown_fields)


_ENCODER = msgspec.json.Encoder()


def convert_tree(value: Any, tp: Any) -> Any:
    """``msgspec.convert(value, tp)`` for a plain JSON tree (from ``msgspec.json.decode``).

    msgspec works a union or an ``Annotated`` type out again on every ``convert`` call (about
    30 us for a union of 50 Structs), but keeps it in a ``Decoder``: the tree is encoded and
    decoded by the type's decoder, made once. The faults and their messages are the same.
    Raises ``msgspec.ValidationError``.
    """
    try:
        decoder = _decoder_of(tp)
        text = _ENCODER.encode(value)
    except (TypeError, OverflowError):  # a type that is not a key; an int msgspec cannot write
        return msgspec.convert(value, tp)
    return decoder.decode(text)


@_per_type
def _decoder_of(tp: Any) -> msgspec.json.Decoder[Any]:
    return msgspec.json.Decoder(tp)


def _container(tp: Any, node: Any) -> tuple[Any, list[msgspec.Meta]] | None:
    """For a list node: (item type, Meta of the list); for a dict node: (value type, Meta)."""
    if not isinstance(node, (list, dict)):
        return None
    return _container_of(tp, isinstance(node, list))


@_per_type
def _container_of(tp: Any, is_list: bool) -> tuple[Any, list[msgspec.Meta]] | None:
    outer, outer_metas = _unwrap(tp)
    alternatives = typing.get_args(outer) if typing.get_origin(outer) in (typing.Union, types.UnionType) else (outer,)
    for alternative in alternatives:
        inner, metas = _unwrap(alternative)
        origin = typing.get_origin(inner)
        if is_list and origin is list:
            return typing.get_args(inner)[0], outer_metas + metas
        if not is_list and origin is dict:
            return typing.get_args(inner)[1], outer_metas + metas
    return None


def _child_path(path: str, key: str | int) -> str:
    """The path :func:`segments` reads back: ``.name`` for an ASCII identifier only (``.城市``
    would not be read), ``["key"]`` for any other key."""
    if isinstance(key, int):
        return f"{path}[{key}]"
    return member(path, key)


class _Search:
    def __init__(self, translate: Translate) -> None:
        self.translate = translate
        self.rank = _Ranker()

    def first_error(self, value: Any, tp: Any, path: str) -> ValidationError | None:
        try:
            convert_tree(value, tp)
        except msgspec.ValidationError as exc:
            return self.translate(exc, path)
        return None

    def child(self, value: Any, tp: Any, path: str, depth: int, best: ValidationError, limit: int | None = None) -> ValidationError:
        """``best``, or a better fault inside ``value`` (which sits at ``depth``); nothing deeper
        than ``limit`` (the depth of a fault already found outside) can be better."""
        if depth > self.rank.depth(best) or (limit is not None and depth > limit):
            return best  # nothing in here can be shallower
        first = self.first_error(value, tp, path)
        if first is None:
            return best
        bound = min(self.rank.depth(best), self.rank.depth(first), limit if limit is not None else self.rank.depth(best))
        if depth >= bound:  # only the value's own faults are shallow enough: no walk
            found = self.resolve(value, tp, first, path)
            own = self.own(value, tp, path)
            if own is not None and self.rank.better(own, found):
                found = own
        else:
            found = self.walk(value, tp, first, path, bound, depth)
        return found if self.rank.better(found, best) else best

    def own(self, node: Any, tp: Any, path: str) -> ValidationError | None:
        """A fault of the node itself: required/unknown properties, or its item count."""
        struct = _struct_for(tp, node)
        if struct is not None:
            names, required, closed = _members_of(struct)
            missing = next((name for name in required if name not in node), None)
            if missing is not None:
                return ValidationError(f"Object missing required field `{missing}`", code="required", path=path)
            if closed and not names.issuperset(node):
                unknown = next(str(key) for key in node if key not in names)
                shown = printable(unknown if len(unknown) <= 64 else unknown[:61] + "...")
                return ValidationError(f"Object contains unknown field `{shown}`", code="additionalProperties", path=path)
        container = _container(tp, node)
        if container is not None and isinstance(node, list):
            for meta in container[1]:
                if meta.min_length is not None and len(node) < meta.min_length:
                    return ValidationError(f"Expected `array` of length >= {meta.min_length}", code="minItems", path=path)
                if meta.max_length is not None and len(node) > meta.max_length:
                    return ValidationError(f"Expected `array` of length <= {meta.max_length}", code="maxItems", path=path)
        return None

    def settled(self, best: ValidationError, list_path: str, depth: int, index: int) -> bool:
        """No item of the list before ``index`` can beat ``best`` (the items are checked last first)."""
        best_depth = self.rank.depth(best)
        if best_depth < depth + 1:
            return True
        if best_depth > depth + 1 or not best.path.startswith(list_path + "["):
            return False
        is_name, at = self.rank.key(best)[1][depth]
        return not is_name and at >= index

    def resolve(self, value: Any, tp: Any, first: ValidationError, base: str) -> ValidationError:
        """``first`` with each ``[...]`` of its path (msgspec names no key of a dict) replaced by
        the key whose value holds the fault; ``first`` itself when it has none, or when the key
        cannot be told.

        One depth-first pass, in document order (msgspec's), over the nodes the path's pattern
        reaches: at the last ``[...]``, the first value with a fault holds ``first`` (one before it
        with a fault would hold the first fault); its fault must be ``first``'s, at the same place.
        Each node is visited once, so a chain of dicts costs its length, not its square.
        """
        tail = first.path[len(base):] if first.path.startswith(base) else first.path[1:]
        steps = segments("$" + tail)
        if ANY_KEY not in steps:
            return first
        last = max(i for i, step in enumerate(steps) if step is ANY_KEY)
        pending: list[tuple[Any, Any, int, str]] = [(value, tp, 0, base)]
        while pending:
            node, node_tp, i, path = pending.pop()
            step = steps[i]
            if step is ANY_KEY:
                container = _container(node_tp, node)
                if container is None or not isinstance(node, dict):
                    continue
                if i == last:
                    for key in node:
                        at = _child_path(path, key)
                        found = self.first_error(node[key], container[0], at)
                        if found is not None:
                            rest = "".join(_child_path("", s) for s in steps[i + 1:])
                            if found.path != at + rest or found.code != first.code or found.message != first.message:
                                return first  # not msgspec's fault: the types were read otherwise
                            return found
                    continue
                pending += [(node[key], container[0], i + 1, _child_path(path, key)) for key in reversed(list(node))]
                continue
            if isinstance(node, list) and isinstance(step, int) and step < len(node):
                container = _container(node_tp, node)
                if container is not None:
                    pending.append((node[step], container[0], i + 1, _child_path(path, step)))
            elif isinstance(node, dict) and isinstance(step, str) and step in node:
                struct = _struct_for(node_tp, node)
                on_path = _field_named(struct, step) if struct is not None else None
                if on_path is not None:
                    pending.append((node[step], on_path.type, i + 1, _child_path(path, step)))
        return first

    def walk(self, value: Any, tp: Any, first: ValidationError, base: str, limit: int, depth: int | None = None) -> ValidationError:
        """``first`` (the first fault in ``value``, which sits at ``base``, ``depth`` segments deep),
        or a better fault found by walking down ``first``'s path (its keys resolved) and checking
        what lies beside it. Nothing deeper than ``limit`` is examined."""
        first = self.resolve(value, tp, first, base)
        best = first
        node, node_tp, path = value, tp, base
        depth = len(segments(base)) if depth is None else depth
        relative = "$" + first.path[len(base):] if first.path.startswith(base) else first.path
        for key in segments(relative):
            if depth >= self.rank.depth(best) or depth > limit:
                break
            own = self.own(node, node_tp, path)
            if own is not None and self.rank.better(own, best):
                best = own
            struct = _struct_for(node_tp, node)
            container = _container(node_tp, node)
            if struct is not None:
                for field in _fields(struct):
                    if field.encode_name != key and field.encode_name in node:
                        best = self.child(node[field.encode_name], field.type, _child_path(path, field.encode_name), depth + 1, best, limit)
            elif container is not None and isinstance(node, list):
                for position in range(len(node) - 1, -1, -1):  # the greatest path first
                    if position != key:
                        best = self.child(node[position], container[0], _child_path(path, position), depth + 1, best, limit)
                    if self.settled(best, path, depth, position):
                        break
            elif container is not None and isinstance(node, dict):
                if key is ANY_KEY:  # unresolved: find the faulty values by their real keys
                    found = [self.first_error(node[k], container[0], _child_path(path, k)) for k in node]
                    named = [self.walk(node[k], container[0], e, _child_path(path, k), limit, depth + 1) for k, e in zip(node, found) if e is not None]
                    return max(named + ([] if best is first else [best]), key=self.rank.key) if named else best
                for other in node:
                    if other != key:
                        best = self.child(node[other], container[0], _child_path(path, other), depth + 1, best, limit)
            # descend one level along the fault's path
            if isinstance(node, list) and isinstance(key, int) and key < len(node) and container is not None:
                node, node_tp = node[key], container[0]
            elif isinstance(node, dict) and isinstance(key, str) and key in node and struct is not None:
                on_path = _field_named(struct, key)
                if on_path is None:
                    break
                node, node_tp = node[key], on_path.type
            elif isinstance(node, dict) and isinstance(key, str) and key in node and container is not None:
                node, node_tp = node[key], container[0]
            else:
                break
            path = _child_path(path, key)
            depth += 1
        return best


def shallowest(value: Any, tp: Any, first: ValidationError, translate: Translate, base: str = "$") -> ValidationError:
    """The best error for ``value`` (a plain JSON tree) against ``tp``, given the first one found."""
    search = _Search(translate)
    return search.walk(value, tp, first, base, search.rank.depth(first))
