"""Side-car type mutations: each side-car entry of a Lux document given each wrong JSON type.

A Lux document keeps what only one format has in its side-cars: ``extra`` (a request) and
``provider_payload`` (a response), an object per format (``extra.openai_chat``, ...) and
``media``, each keyed by member name or, under ``members`` and ``media``, by the Lux path of
the object a member belongs to. A Lux -> X converter reads them back, and one of the wrong
JSON type must be a diagnostic, never an exception and never a silent drop.

The entries come from two places:

* every entry of the Lux documents that the conversions to Lux write from the seeds (the
  recorded traffic and the cases), at any depth;
* every entry a mapping spec names (``extra.<format>.<key>``, ``provider_payload.<format>.<key>``,
  the ``carried`` keys of the Lux -> X specs) and every key a transform reads by name
  (``from_carried("key", ...)`` in the converter support templates), added to each Lux
  document that lacks it.

:func:`sidecar_mutations` gives each entry every JSON type but its own (null, a boolean, an
integer, a number, a string, an array, an object; the string, array and object hold the
secret the caller plants), and adds an unknown member to each object of the side-car; the fuzz session runs each through ``convert`` from Lux to every
target (:func:`tests.fuzz.session.run_sidecars`), ``tests.no_echo`` scans their messages.
"""

from __future__ import annotations

import copy
import json
import re
from collections.abc import Callable, Iterable, Iterator
from functools import cache
from typing import Any

import msgspec

import lucent
from lucent._context import read_by
from lucent.errors import LucentError
from lucent._validation import member
from lucent.generated.convert_registry import CONVERTERS, DOCUMENTS
from tests.conformance.paths import REPO
from tests.conservation import leaves, lost_values

__all__ = ["SIDECAR", "declared_types", "is_spelling", "lux_documents", "named_entries", "sidecar_mutations", "silent_drops", "with_entry", "wrong_types"]

SIDECAR = {"request": "extra", "response": "provider_payload"}
"""The member of a Lux document of each kind that holds its side-cars."""

UNKNOWN = "lucent_unknown_member"
"""The name of the member :func:`sidecar_mutations` adds to each object of a side-car: no
format has it, so a converter that copies the object to a target must report it."""

_TYPES: dict[type, str] = {type(None): "null", bool: "boolean", int: "integer", float: "number", str: "string", list: "array", dict: "object"}


def wrong_types(value: Any, secret: str) -> Iterator[tuple[str, Any]]:
    """(JSON type, a value of it) for every JSON type but null that `value` does not have (all
    six for an absent entry, `value` ``...``); the string, array and object hold `secret`. A null
    is an absence: a target with no place for it loses nothing, and nothing is named
    (docs/semantics.md, Exact)."""
    own = _TYPES.get(type(value)) if value is not ... else None
    for name, planted in (
        ("boolean", True),
        ("integer", 7),
        ("number", 1.5),
        ("string", secret),
        ("array", [secret]),
        ("object", {"api_key": secret}),
    ):
        if name != own:
            yield name, planted


@cache
def named_entries() -> dict[str, tuple[tuple[str, ...], ...]]:
    """Kind -> the side-car entries the mapping specs and the transforms name, as paths
    (``("extra", "openai_chat", "stop")``)."""
    found: dict[str, set[tuple[str, ...]]] = {"request": set(), "response": set()}
    for spec in sorted((REPO / "mappings").glob("*.toml")):
        text = spec.read_text(encoding="utf-8")
        kind = "response" if re.search(r'^kind = "(response|error)"', text, re.M) else "request"
        root = SIDECAR[kind]
        for name in re.findall(rf"\b{root}\.([a-z_]+\.[A-Za-z_]+)", text):
            found[kind].add((root, *name.split(".")))
        carried = re.search(r'^carried = "([a-z_]+)\.([a-z_]+)"', text, re.M)
        if carried and spec.name.startswith("lux_"):
            for key in re.findall(r'\bcarried = "([A-Za-z_]+)"', text):
                found[kind].add((carried.group(1), carried.group(2), key))
            for key in _transform_keys(carried.group(2)):
                found[kind].add((carried.group(1), carried.group(2), key))
    return {kind: tuple(sorted(paths)) for kind, paths in found.items()}


def _transform_keys(fmt: str) -> set[str]:
    """The keys the transforms of `fmt` (lucent/formats/<fmt>/transforms.py, and the shared
    lucent/_transforms.py) read from its carried side-car by name."""
    keys: set[str] = set()
    for module in (REPO / "lucent" / "_transforms.py", REPO / "lucent" / "formats" / fmt / "transforms.py"):
        if module.is_file():
            keys.update(re.findall(r'from_carried\("([A-Za-z_]+)"', module.read_text(encoding="utf-8")))
    return keys


def lux_documents(documents: Iterable[tuple[str, str | None, bytes]]) -> Iterator[tuple[str, Any]]:
    """(kind, Lux document) for every Lux document of `documents` and every document a
    conversion to Lux writes from one of them; each distinct document once."""
    from .targets import CONTEXT

    seen: set[bytes] = set()
    for schema, definition, data in documents:
        for (source, kind), (doc_schema, doc_definition) in DOCUMENTS.items():
            if kind not in SIDECAR or doc_schema != schema or (definition is not None and definition != doc_definition):
                continue
            if source == "lux":
                try:
                    value = json.loads(data)
                except ValueError:
                    continue
            elif (source, "lux", kind) in CONVERTERS:
                try:
                    value = msgspec.to_builtins(lucent.convert(data, source, "lux", kind, context=read_by(CONTEXT, source, "lux", kind)).value)
                except LucentError:
                    continue
            else:
                continue
            if not isinstance(value, dict):
                continue
            key = json.dumps(value, sort_keys=True).encode()
            if key not in seen:
                seen.add(key)
                yield kind, value


def _entries(value: Any, path: tuple[Any, ...]) -> Iterator[tuple[tuple[Any, ...], Any]]:
    yield path, value
    if isinstance(value, dict):
        for key, item in value.items():
            yield from _entries(item, (*path, key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from _entries(item, (*path, index))


def sidecar_mutations(doc: dict[str, Any], kind: str, secret: str) -> Iterator[tuple[tuple[Any, ...], str, Any]]:
    """(path, JSON type, value) for every side-car entry of `doc` (the side-car object itself,
    each format's object and everything in them) in every wrong JSON type, then every entry
    :func:`named_entries` names that `doc` lacks, in every JSON type (the path ends at the new
    key; the objects on the way are added as needed)."""
    root = SIDECAR[kind]
    if root in doc:
        for path, value in _entries(doc[root], (root,)):
            for name, planted in wrong_types(value, secret):
                yield path, name, planted
            if isinstance(value, dict):
                yield (*path, UNKNOWN), "unknown member", secret
    for path in named_entries()[kind]:
        node: Any = doc
        for key in path:
            node = node.get(key, ...) if isinstance(node, dict) else None
        if node is ...:
            for name, planted in wrong_types(..., secret):
                yield path, name, planted


def with_entry(doc: Any, path: tuple[Any, ...], value: Any) -> Any:
    """A copy of `doc` with `value` at `path` (the objects on the way added when absent)."""
    copied = copy.deepcopy(doc)
    node = copied
    for key in path[:-1]:
        node = node.setdefault(key, {}) if isinstance(node, dict) else node[key]
    node[path[-1]] = value
    return copied


# ------------------------------------------------------------------ silent drops


@cache
def declared_types() -> dict[tuple[str, str, str], str]:
    """(kind, side-car key, entry) -> the JSON type the specs give a carried entry: the
    ``carried_types`` of the Lux -> X spec, the typed spellings (``key:type``,
    ``members/<name>:type``) and the kept nulls that record an absence (``members/<name>=null``).
    An entry of that type may be left unreported where no rule needs it (a spelling of
    something the document does not hold): it records how X spelled a value, not a value."""
    from codegen.mappings import load_specs, spellings

    specs = load_specs(REPO)
    found: dict[tuple[str, str, str], str] = {}
    for spec in specs:
        carried = spec.pair.get("carried", "")
        if spec.pair["source"] == "lux" and "." in carried:
            for key, expect in spec.pair.get("carried_types", {}).items():
                found[(spec.pair["kind"], carried.split(".")[1], key)] = "string" if isinstance(expect, list) else expect
    for kind, cars in spellings(specs).items():
        for car, names in cars.items():
            for name in names:
                key, _, expect = name.partition(":")
                if key.endswith("=null"):
                    key, expect = key.removesuffix("=null"), "null"
                if expect:
                    found[(kind, car, key)] = expect
    return found


def _type_name(value: Any) -> str:
    return _TYPES.get(type(value), "")


def _is_declared(kind: str, path: tuple[Any, ...], value: Any) -> bool:
    """Whether `value` at the side-car `path` has the type the specs declare for that entry."""
    if len(path) < 3 or not isinstance(path[1], str):
        return False
    car = path[1]
    key = f"members/{path[4]}" if len(path) == 5 and path[2] == "members" else path[2] if len(path) == 3 else None
    expect = declared_types().get((kind, car, key)) if key is not None else None
    if expect is None:
        return False
    name = _type_name(value)
    return any(name == one or (one == "number" and name == "integer") for one in expect.split("|")) or expect == "any"


def is_spelling(kind: str, path: str, value: Any) -> bool:
    """Whether the leaf `value` at JSON `path` of a Lux document of `kind` is a side-car entry of
    the type the specs declare for it (:func:`declared_types`), or a null that records an
    absence (:data:`NESTED_ABSENCES`): a spelling, no value of its own."""
    if not path.startswith(("$.extra.", "$.provider_payload.")):
        return False
    from lucent._best_error import segments

    steps = tuple(segments(path))
    return _is_declared(kind, steps, value) or _nested_absence(steps, value)


NESTED_ABSENCES: dict[tuple[str, ...], str] = {
    ("provider_payload", "gemini", "usageMetadata"): "a null count or detail list records that the Gemini response had none (gemini_usage_out leaves it out)",
    ("extra", "openai_responses", "members"): "a null kept member records that the Responses item had none",
}
"""Objects of a format's own side-car in which a JSON null records an absent member, so a null
there is no value to report."""


SIBLING_DEFAULTS: dict[tuple[str, tuple[str, ...]], tuple[Any, ...]] = {
    ("openai-responses", ("extra", "openai_chat", "logprobs")): (None, False),
    ("openai-chat", ("extra", "openai_responses", "include")): (None,),
}
"""Members of another format's side-car that a target reads as a parameter of the same meaning
(mappings/lux_openai_*_request.toml, decision 9), with the values that ask for the target's
default and so write nothing: Chat's logprobs false or null (no Responses include entry), a
Responses include of null (no Chat logprobs). Such a value round-trips into the target's own
side-car, never back at its path; a planted value that changes the target's output is carried."""

_SIBLINGS: dict[str, tuple[tuple[str, str], ...]] = {
    "openai-responses": (("extra", "openai_chat"),),
    "openai-chat": (("extra", "openai_responses"),),
}


def _sibling_default(target: str, path: tuple[Any, ...], value: Any) -> bool:
    return any(value is default for default in SIBLING_DEFAULTS.get((target, tuple(path)), ()))


def _written_as_member(target: str, path: tuple[Any, ...], value: Any, output: Any) -> bool:
    """A null or boolean planted in the target's own side-car (``provider_payload.anthropic.
    stop_details``) that the target writes at its member of that name: carried, though the way
    back may not keep it (a null the target writes anyway is no Lux value: docs/semantics.md,
    "Exact")."""
    return (
        len(path) == 3 and path[1] == target.replace("-", "_") and isinstance(output, dict)
        and path[2] in output and output[path[2]] is value
    )


def _nested_absence(path: tuple[Any, ...], value: Any) -> bool:
    return value is None and any(path[: len(prefix)] == prefix and len(path) > len(prefix) for prefix in NESTED_ABSENCES)


def _related(field: str, path: str) -> bool:
    """Whether a diagnostic at `field` names the value at `path`: the same, one holding it, or
    one inside it."""
    return field == path or path.startswith((field + ".", field + "[")) or field.startswith((path + ".", path + "["))


def shape(path: tuple[Any, ...]) -> str:
    """A side-car path with its indexes folded to ``[]`` and its Lux-path keys to ``<lux>``."""
    return "".join("[]" if isinstance(k, int) else ".<lux>" if k.startswith("$") else f".{k}" for k in path)


def silent_drops(
    doc: dict[str, Any],
    kind: str,
    targets: Iterable[str],
    secret: str,
    context: dict[str, Any],
    seen: set[tuple[str, str, str]] | None = None,
    texts: Callable[[str, list[str]], None] | None = None,
) -> Iterator[tuple[str, str, str]]:
    """(target, side-car path, JSON type) of each side-car mutation of `doc` that a conversion
    from Lux to a target drops silently: no diagnostic that the unchanged document lacks, and
    the value neither in the output nor back in the round trip. A mutation to the type the
    specs declare for the entry (:func:`declared_types`, :data:`NESTED_ABSENCES`) is a spelling
    and not counted. A conversion that raises anything but a LucentError propagates. `seen`
    skips a (kind, shape, type) already tried; `texts`, when given, is called with where and
    the texts of each result (diagnostic fields and details, an error's message and path)."""
    targets = list(targets)
    baseline: dict[str, set[tuple[str, str, str]]] = {}
    written: dict[str, Any] = {}
    body = json.dumps(doc).encode()

    def unchanged(target: str) -> set[tuple[str, str, str]]:
        """The diagnostics of the document as it is (worked out when first needed)."""
        if target not in baseline:
            try:
                result = lucent.convert(body, "lux", target, kind, context=read_by(context, "lux", target, kind))
                baseline[target] = {(d.field, d.status, d.detail) for d in result.diagnostics}
                written[target] = msgspec.to_builtins(result.value)
            except LucentError:
                baseline[target] = set()
                written[target] = None
        return baseline[target]
    for path, name, planted in sidecar_mutations(doc, kind, secret):
        if _is_declared(kind, path, planted) or _nested_absence(path, planted):
            continue
        if seen is not None:  # each (kind, shape, type) once over the documents of a run
            if (kind, shape(path), name) in seen:
                continue
            seen.add((kind, shape(path), name))
        changed = with_entry(doc, path, planted)
        data = json.dumps(changed).encode()
        where = "$"
        for step in path:
            where = f"{where}[{step}]" if isinstance(step, int) else member(where, step)
        for target in targets:
            try:
                result = lucent.convert(data, "lux", target, kind, context=read_by(context, "lux", target, kind))
            except LucentError as error:
                if texts is not None:
                    texts(f"lux->{target} {shape(path)}={name}", [error.message, error.path, str(error), repr(error)])
                continue  # refused with a typed error: nothing dropped silently
            if texts is not None:
                texts(f"lux->{target} {shape(path)}={name}", [t for d in result.diagnostics for t in (d.field, d.detail)])
            if any(_related(d.field, where) for d in result.diagnostics):
                continue
            # named where it went: a value copied into the target that breaks the target schema
            # (Invalid target:$...), a kept member that makes the Lux object it belongs to
            # invalid (Invalid at that object's path)
            if {(d.field, d.status, d.detail) for d in result.diagnostics if d.status in ("Invalid", "Unsupported")} - unchanged(target):
                continue
            output = msgspec.to_builtins(result.value)
            try:
                back: Any = msgspec.to_builtins(lucent.convert(result.value, target, "lux", kind, context=read_by(context, target, "lux", kind)).value)
            except LucentError:
                back = None
            if planted is None or isinstance(planted, bool):  # no leaf to find: named, or back at its path
                if _sibling_default(target, path, planted) or _written_as_member(target, path, planted, output):
                    continue
                if back is None or not any(p == where for p, _ in leaves(back)):
                    # another format's member the target reads (SIBLING_DEFAULTS): it changed the output
                    if path[:2] in _SIBLINGS.get(target, ()) and output != written[target]:
                        continue
                    yield target, where, name
                continue
            lost = lost_values(changed, output, result.diagnostics, back) if back is not None else lost_values(changed, output, result.diagnostics)
            if any(p == where or p.startswith((where + ".", where + "[")) for p, _ in lost):
                yield target, where, name
