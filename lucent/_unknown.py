"""Members a schema does not define: written back into a converted value.

An object a schema leaves open (no ``additionalProperties: false``) may hold members the schema
does not name; its generated Struct has no field for them, so a decode drops them
(``lucent._convert`` finds them beside the decode). A conversion to Lux keeps each one in the Lux
side-car, ``<extra|provider_payload>.<format>.unknown``, keyed by the Lux path of the object
built from the member's object and then by the member's JSON path relative to that object
(``provider_payload.openai_responses.unknown["$"]["$.billing"]``,
``extra.anthropic.unknown["$.tools[0]"]["$.input_schema.additionalProperties"]``); a conversion
from Lux back to that format writes them into the objects built from those Lux objects
(``lucent._conversion.Cx.finish``), and ``lucent.convert`` with ``source == target`` writes them
back where they were (:func:`put_members`).

A Struct cannot hold a member it does not define: the object that holds one becomes an instance
of a subclass of its Struct with one field more per member (:func:`holding`), so that it is still
the type its annotation names and ``lucent.encode`` writes the member. The subclasses are made
once per (Struct, member names) and at most :data:`MAX_CLASSES` are kept.
"""

from __future__ import annotations

import copy
import keyword
import re
import threading
from collections import OrderedDict
from collections.abc import Collection, Iterable, Mapping
from typing import TYPE_CHECKING, Any

import msgspec

from lucent._best_error import segments
from lucent._validation import member

if TYPE_CHECKING:
    from lucent._conversion import Cx

__all__ = ["MAX_CLASSES", "built_from", "holder_steps", "holding", "keep", "put_members", "relative", "restore", "steps_of"]

MAX_CLASSES = 256
"""How many holding subclasses (one per Struct and set of member names) are kept for reuse."""

_NAMEABLE = re.compile(r'[^"\\\x00-\x1f]*')
"""A member name a Struct field can be written as (msgspec refuses a quote, a backslash or a
control character in a renamed field)."""
_CLASSES: OrderedDict[tuple[type, tuple[str, ...]], tuple[type, type]] = OrderedDict()
_LOCK = threading.Lock()
_MEMBERS = "__lucent_unknown__"  # on a holding subclass: its extra fields, attribute -> JSON name


def relative(steps: Iterable[str | int]) -> str:
    """The JSON path of a member relative to its object (``["a", 0, "x-y"]`` -> ``$.a[0]["x-y"]``)."""
    path = "$"
    for step in steps:
        path = f"{path}[{step}]" if isinstance(step, int) else member(path, step)
    return path


def steps_of(path: str) -> list[str | int] | None:
    """The steps of a JSON path (:func:`relative`'s reverse); None when ``path`` is not one."""
    if not isinstance(path, str) or not path.startswith("$"):
        return None
    if _PLAIN.fullmatch(path):  # names and indexes only: read as they are
        return [int(step[1:-1]) if step[0] == "[" else step[1:] for step in _STEP.findall(path)]
    found = segments(path)
    return found if relative(found) == path else None


_PLAIN = re.compile(r"\$(?:\.[A-Za-z_][A-Za-z0-9_]*|\[(?:0|[1-9][0-9]*)\])*")
_STEP = re.compile(r"\.[A-Za-z_][A-Za-z0-9_]*|\[[0-9]+\]")


def holding(struct: msgspec.Struct, members: Mapping[str, Any]) -> msgspec.Struct | None:
    """A copy of ``struct`` that also writes ``members`` (JSON name -> JSON value), an instance of
    a subclass of its class; None when the class is closed (``forbid_unknown_fields``,
    ``array_like``), defines one of the names, or a name holds a quote, a backslash or a control
    character (msgspec writes no field so named). Built without its ``__post_init__`` (the
    conversion's check names what breaks the target); the members it held already beyond its
    class's fields are kept."""
    cls = type(struct)
    extra: dict[str, str] = getattr(cls, _MEMBERS, {})
    held: dict[str, Any] = {name: getattr(struct, attr) for attr, name in extra.items()}
    base: type = getattr(cls, "__lucent_base__", cls)
    config = base.__struct_config__  # type: ignore[attr-defined]
    if config.forbid_unknown_fields or config.array_like:
        return None
    defined = set(base.__struct_encode_fields__) | ({config.tag_field} if config.tag_field else set())  # type: ignore[attr-defined]
    if any(name in defined or not _NAMEABLE.fullmatch(name) for name in members):
        return None
    held.update(members)
    names = tuple(held)
    sub, unchecked = _subclass(base, names)
    values = {name: getattr(struct, name) for name in base.__struct_fields__}  # type: ignore[attr-defined]
    values.update({attr: held[name] for attr, name in getattr(sub, _MEMBERS).items()})
    made: msgspec.Struct = unchecked(**values)
    return made


def _subclass(base: type, names: tuple[str, ...]) -> tuple[type, type]:
    """(The subclass of ``base`` with a field per name, its twin that skips ``__post_init__``)."""
    key = (base, names)
    with _LOCK:
        found = _CLASSES.get(key)
        if found is not None:
            _CLASSES.move_to_end(key)
            return found
        taken = set(dir(base))
        attrs: dict[str, str] = {}
        for index, name in enumerate(names):
            attr = name if name.isidentifier() and not keyword.iskeyword(name) and not name.startswith("_") and name not in taken else f"unknown_member_{index}"
            while attr in taken:
                attr += "_"
            taken.add(attr)
            attrs[attr] = name
        sub = msgspec.defstruct(
            base.__name__,
            [(attr, Any, msgspec.UNSET) for attr in attrs],
            bases=(base,),
            rename=attrs,
            module=base.__module__,
            namespace={_MEMBERS: attrs, "__lucent_base__": base, "__reduce__": _reduce},
        )

        def restore(self: Any) -> None:
            self.__class__ = sub

        unchecked = type(base.__name__, (sub,), {"__post_init__": restore, "__module__": base.__module__})
        found = _CLASSES[key] = (sub, unchecked)
        if len(_CLASSES) > MAX_CLASSES:
            _, gone = _CLASSES.popitem(last=False)
            for cls in gone:
                _ATTRIBUTES.pop(cls, None)
        return found


def _reduce(self: Any) -> tuple[Any, tuple[Any, ...]]:
    """Pickle a holding Struct as its base class's values and its members (the subclass itself
    is not importable by name)."""
    cls = type(self)
    base = cls.__lucent_base__
    values = {name: getattr(self, name) for name in base.__struct_fields__}
    return _rebuilt, (base, values, {name: getattr(self, attr) for attr, name in getattr(cls, _MEMBERS).items()})


def _rebuilt(base: type, values: dict[str, Any], members: dict[str, Any]) -> msgspec.Struct:
    """A holding Struct again, from what :func:`_reduce` gave."""
    sub, unchecked = _subclass(base, tuple(members))
    made: msgspec.Struct = unchecked(**values, **{attr: members[name] for attr, name in getattr(sub, _MEMBERS).items()})
    return made


def put_members(root: Any, members: Iterable[tuple[list[str | int], Any]]) -> tuple[Any, list[int]]:
    """``root`` with each member written (its steps from ``root``, the last one its name; its
    JSON value), and the positions (in ``members``) of those that cannot be: a step that finds
    nothing, an object that defines the name already or is closed (:func:`holding`). The objects
    on the way are copied (lists, dicts and Structs of ``root`` may be shared with a source
    document); ``root`` itself is not changed. Returns the new root."""
    by_holder: dict[tuple[str | int, ...], dict[str, tuple[int, Any]]] = {}
    refused: list[int] = []
    for index, (steps, value) in enumerate(members):
        if not steps or not isinstance(steps[-1], str):
            refused.append(index)
            continue
        by_holder.setdefault(tuple(steps[:-1]), {})[steps[-1]] = (index, value)
    for where, named in by_holder.items():
        root, left = _put(root, list(where), named)
        refused.extend(named[name][0] for name in left)
    return root, sorted(refused)


def _put(node: Any, steps: list[str | int], named: dict[str, tuple[int, Any]]) -> tuple[Any, set[str]]:
    """(A copy of ``node`` in which the object at ``steps`` holds ``named``, the names it cannot
    hold: all of them when ``steps`` finds no object)."""
    if not steps:
        if isinstance(node, dict):
            taken = {name for name in named if name in node}
            return {**node, **{name: value for name, (_, value) in named.items() if name not in taken}}, taken
        if isinstance(node, msgspec.Struct):
            tag = type(node).__struct_config__.tag_field
            taken = {name for name in named if _attribute(type(node), name) is not None or name == tag or not _NAMEABLE.fullmatch(name)}
            made = holding(node, {name: value for name, (_, value) in named.items() if name not in taken}) if len(taken) < len(named) else node
            return (node, set(named)) if made is None else (made, taken)
        return node, set(named)
    step, rest = steps[0], steps[1:]
    if isinstance(node, list) and isinstance(step, int) and 0 <= step < len(node):
        item, left = _put(node[step], rest, named)
        if len(left) == len(named):
            return node, left
        items = list(node)
        items[step] = item
        return items, left
    if isinstance(node, dict) and isinstance(step, str) and step in node:
        item, left = _put(node[step], rest, named)
        return (node, left) if len(left) == len(named) else ({**node, step: item}, left)
    if isinstance(node, msgspec.Struct) and isinstance(step, str):
        attr = _attribute(type(node), step)
        value = getattr(node, attr, msgspec.UNSET) if attr is not None else msgspec.UNSET
        if attr is None or value is msgspec.UNSET:
            return node, set(named)
        item, left = _put(value, rest, named)
        if len(left) == len(named):
            return node, left
        made = copy.copy(node)
        setattr(made, attr, item)
        return made, left
    return node, set(named)


def _attribute(cls: type, name: str) -> str | None:
    """The attribute of the Struct class ``cls`` that is written as the member ``name``."""
    table = _ATTRIBUTES.get(cls)
    if table is None:
        table = _ATTRIBUTES[cls] = dict(zip(cls.__struct_encode_fields__, cls.__struct_fields__))  # type: ignore[attr-defined]
    return table.get(name)


_ATTRIBUTES: dict[type, dict[str, str]] = {}
"""Struct class -> {JSON name: attribute}; a holding class's entry leaves with it (MAX_CLASSES)."""


# ------------------------------------------------------------------ the two hops of a conversion
def holder_steps(steps: list[str | int], recorded: Collection[str]) -> int:
    """How many of a member's ``steps`` lead to the object it is kept for: its own object when
    that has a record (``recorded``, the source paths a conversion built values from), else the
    nearest one holding it that has (the root always has)."""
    k = len(steps) - 1
    while k > 0 and relative(steps[:k]) not in recorded:
        k -= 1
    return k


def restore(cx: Cx, value: Any, entries: Any) -> Any:
    """Lux -> X: ``value`` (the converted X value) with the members kept in the Lux side-car
    space ``<format>.unknown`` (``entries``: Lux path -> {relative JSON path -> JSON value})
    written into the outermost X object built from each Lux path (or from the nearest Lux path
    inside it: :func:`built_from`), at the member's relative path; an entry that is not such an
    object is reported Invalid, a member no object takes Unsupported, at its side-car path."""
    where = f"{cx.carried_path}.unknown"
    if not isinstance(entries, dict):
        cx.report(where, "Invalid", "not a JSON object of Lux paths; ignored")
        return value
    wanted: dict[str, list[tuple[str, list[str | int], Any]]] = {}
    for lux_path, kept in entries.items():
        if not isinstance(kept, dict) or steps_of(lux_path) is None:
            cx.report(member(where, lux_path), "Invalid", "not a JSON object of kept members at a Lux path; ignored")
            continue
        for rel, item in kept.items():
            steps = steps_of(rel)
            if not steps or not isinstance(steps[-1], str):
                cx.report(member(member(where, lux_path), rel), "Invalid", "not the JSON path of a member; ignored")
                continue
            wanted.setdefault(lux_path, []).append((rel, steps, item))
    if not wanted:
        return value
    found = built_from(value, cx._built, set(wanted), inside=True)
    members: list[tuple[list[str | int], Any]] = []
    paths: list[tuple[str, str]] = []
    for lux_path, kept in wanted.items():
        at = found.get(lux_path)
        for rel, steps, item in kept:
            if at is None:
                cx.report(member(member(where, lux_path), rel), "Unsupported", "no object of the target was built from this Lux object, so the member is not written")
                continue
            members.append(([*at, *steps], item))
            paths.append((lux_path, rel))
    value, refused = put_members(value, members)
    for index in refused:
        cx.report(member(member(where, paths[index][0]), paths[index][1]), "Unsupported", "the target object built from this Lux object has no place for it (no such object inside, or it defines the member), so it is not written")
    return value


def built_from(value: Any, built: Mapping[int, tuple[Any, ...]], wanted: Collection[str], inside: bool = False) -> dict[str, list[str | int]]:
    """The steps of the outermost value under ``value`` built from each source path in
    ``wanted`` (``built``: ``Cx._built``, id -> (value, source path, ...)); with ``inside``, for
    a path from which no value was built, the value built from the nearest source path inside
    it (the outermost one of those). A member a recorded value copies from a source member is
    not taken for its counterpart (a Responses ``text`` is built from the Lux structured output
    and holds it as ``format``): only recorded values are. One walk of ``value``, in document
    order."""
    found: dict[str, list[str | int]] = {}
    others: list[tuple[str, list[str | int]]] = []  # the other records, for `inside`
    stack: list[tuple[Any, list[str | int]]] = [(value, [])]
    while stack:
        node, steps = stack.pop()
        record = built.get(id(node))
        if record is not None and record[0] is node:
            source = record[1]
            if source in wanted:
                if source not in found or len(steps) < len(found[source]):
                    found[source] = steps
            elif inside:
                others.append((source, steps))
        if isinstance(node, msgspec.Struct):
            names = node.__struct_encode_fields__
            children: Iterable[tuple[str | int, Any]] = [(names[i], getattr(node, f)) for i, f in enumerate(node.__struct_fields__)]
        elif isinstance(node, dict):
            children = node.items()
        elif isinstance(node, list):
            children = enumerate(node)
        else:
            continue
        stack.extend(reversed([(item, [*steps, step]) for step, item in children if isinstance(item, _CONTAINERS)]))
    best: dict[str, tuple[int, int]] = {}
    for path in [path for path in wanted if path not in found] if inside else []:
        for source, steps in others:  # the nearest recorded source path inside it: the shortest
            if source.startswith(path) and source[len(path) : len(path) + 1] in (".", "[") and (len(source), len(steps)) < best.get(path, (1 << 62, 0)):
                best[path] = (len(source), len(steps))
                found[path] = steps
    return found


def keep(cx: Cx, value: Any, sidecar: str, space: str, unknown: Iterable[tuple[str, list[str | int], Any]]) -> dict[str, str]:
    """X -> Lux: keep each source member the Structs do not hold in the side-car ``space`` of
    ``value``'s ``sidecar`` member, under the Lux path of the outermost Lux object built from
    its object (or from the nearest holder of it that has a record: a transform's value may have
    none; the root always has) and its JSON path relative to that object; each reported
    Degraded at its source path. Returns (side-car path -> source path) for the provenance."""
    recorded = {record[1] for record in cx._built.values()}
    placed: list[tuple[str, str, str, Any]] = []
    for source, steps, item in unknown:
        k = holder_steps(steps, recorded)
        placed.append((relative(steps[:k]), relative(steps[k:]), source, item))
    found = built_from(value, cx._built, {holder for holder, _, _, _ in placed})
    table: dict[str, str] = {}
    for holder, rel, source, item in placed:
        at = found.get(holder)
        if at is None:  # pragma: no cover - every holder has a record (holder_steps), and the root is built
            cx.report(source, "Unsupported", "no Lux object was built from its object, so it cannot be kept")
            continue
        lux_path = relative(at)
        car = getattr(value, sidecar)
        if not isinstance(car, dict):
            car = {}
            setattr(value, sidecar, car)
        node = car
        for seg in space.split("."):
            node = node.setdefault(seg, {})
        node.setdefault(lux_path, {})[rel] = item
        table[member(member(f"$.{sidecar}.{space}", lux_path), rel)] = source
        cx.report(source, "Degraded", f"a member the schema does not define; kept in {sidecar}.{space} for a conversion back to this format")
    return table


_CONTAINERS = (msgspec.Struct, dict, list)
