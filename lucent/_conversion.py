"""The state of one conversion: diagnostics (bounded), provenance, the context and the carried
side-car."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator, Mapping
from contextvars import ContextVar
from typing import Any, Literal, TypeVar

from msgspec import UNSET, Struct, UnsetType

from lucent._context import DeclaredContext
from lucent._unknown import keep as keep_unknown, restore
from lucent._validation import member, printable
from lucent.generated.lucent_diagnostics_v1 import ConversionDiagnostic

COMPOSED_FROM: ContextVar[str | None] = ContextVar("lucent_composed_from", default=None)
"""The format a composed conversion (``lucent.convert`` X -> Lux -> Y) started from, while its
second hop runs; None when the Lux document is the caller's own. A target whose default means the
opposite of what the source format means by leaving a member out reads it (Responses ``store``)."""

__all__ = ["Cx", "Diagnostics", "Origins", "holder_of", "reads", "reports", "represented"]

T = TypeVar("T")
B = TypeVar("B", bound="Struct | dict[str, Any] | list[Any]")
"""What Cx.built and Cx.sourced record: a container (a scalar has no identity to record by; Cx._walk
passes scalars by)."""
Origin = str | tuple[str, ...]
"""Where a built member came from: a source member (dotted), or the members one of which gave it."""
Status = Literal["Exact", "Degraded", "Unsupported", "Invalid"]
F = TypeVar("F", bound=Callable[..., Any])
V = TypeVar("V")


def reports(*statuses: Status) -> Callable[[F], F]:
    """Declare the statuses a transform can report itself (or through the helpers it calls).

    ``@reports("Degraded", "Unsupported")`` above a transform sets ``fn.reports`` to the tuple
    and returns the function unchanged (no wrapper: the call costs nothing more). A status the
    transform only passes on from its rule (a ``status`` argument) is the rule's, not declared
    here; a transform without the decorator reports nothing of its own. codegen/mappings.py reads
    the decorator from the source (``render_docs``: the Status column of each rule that names the
    transform), and tests/test_mapping_docs_statuses.py checks it against what the corpus
    conversions report.
    """
    def declare(fn: F) -> F:
        fn.reports = statuses  # type: ignore[attr-defined]
        return fn

    return declare


def reads(*keys: str) -> Callable[[F], F]:
    """Declare the context keys a transform reads (itself, or through the helpers it calls).

    ``@reads("max_tokens")`` above a transform sets ``fn.context`` to the tuple and returns the
    function unchanged. codegen/mappings.py reads the decorator from the source: a converter's
    keys (``CONTEXT`` of its generated module, lucent._context) are its spec's ``context`` rules
    and the keys of each transform it calls. A transform that reads a key it does not declare
    raises RuntimeError (lucent._context.DeclaredContext), so the declaration cannot fall behind.
    """
    def declare(fn: F) -> F:
        fn.context = keys  # type: ignore[attr-defined]
        return fn

    return declare


def skips_absent(fn: F) -> F:
    """Declare that a transform given only absent source values (every value read from the
    source UNSET) returns UNSET and reports, keeps and remembers nothing (no ``cx`` call).

    ``@skips_absent`` sets ``fn.skips_absent`` and returns the function unchanged.
    codegen/mappings.py reads the decorator from the source: a generated converter then calls
    the transform, and builds the path it is given, only when a source member it reads is
    present (``T(src.x, f"{path}.x", cx) if src.x is not UNSET else UNSET``);
    tests/test_skips_absent.py calls every declared transform with absent values and
    checks the declaration holds.
    """
    fn.skips_absent = True  # type: ignore[attr-defined]
    return fn


# What a context or carried value must be: a JSON type name, or the allowed strings of an enum.
Expect = str | tuple[str, ...]

def _fits(value: Any, expect: Expect) -> bool:
    """Whether `value` has the JSON type `expect` names: a type name, several joined by ``|``,
    ``any``, or the tuple of the strings allowed."""
    if isinstance(expect, tuple):
        return isinstance(value, str) and value in expect
    if "|" in expect:
        return any(_fits(value, one) for one in expect.split("|"))
    if expect == "null":
        return value is None
    if expect == "string":
        return isinstance(value, str)
    if expect == "integer":
        return isinstance(value, int) and not isinstance(value, bool)
    if expect == "number":
        return isinstance(value, (int, float)) and not isinstance(value, bool)
    if expect == "boolean":
        return isinstance(value, bool)
    if expect == "object":
        return isinstance(value, dict)
    if expect == "array":
        return isinstance(value, list)
    return True


_IDLE = {"false": False, "true": True, "null": None}


def _placed(kept: Any) -> bool:
    """Whether a side-car value is a list of blocks kept at their index (``[{index, value}]``:
    Anthropic server tool blocks, Gemini parts Lux has no block for), each reported on its own,
    at the source block it was built from."""
    return kept.__class__ is list and bool(kept) and all(item.__class__ is dict and "index" in item for item in kept)


def _spelled(name: str, value: Any, spelled: tuple[str, ...]) -> bool:
    """Whether the side-car member `name` is one of the `spelled` names (``key`` or ``key:type``;
    with a type, only a value of that JSON type is a spelling; ``key=false``, an idle value:
    only that value)."""
    for entry in spelled:
        if "=" in entry and not entry.startswith("members/"):
            key, _, idle = entry.partition("=")
            if key == name and value is _IDLE[idle]:
                return True
            continue
        key, _, expect = entry.partition(":")
        if key == name:
            return not expect or _fits(value, expect)
    return False


def _expected(expect: Expect) -> str:
    if isinstance(expect, tuple):
        return "one of " + ", ".join(expect)
    return " or ".join("null" if one == "null" else f"a JSON {one}" for one in expect.split("|"))


def counted(n: int, noun: str) -> str:
    """``n`` and the noun, plural unless n is 1, digits grouped: ``1 member``, ``12,000 characters``."""
    return f"{n:,} {noun}" + ("" if n == 1 else "s")


def _json_type_name(value: Any) -> str:
    """What a mistyped context or carried value is, by its JSON type (a string with its length),
    never the value."""
    if isinstance(value, str):
        return f"a JSON string of {counted(len(value), 'character')}"
    if isinstance(value, bool):
        return "a JSON boolean"
    if isinstance(value, int):
        return "a JSON integer"
    if isinstance(value, float):
        return "a JSON number"
    if value is None:
        return "JSON null"
    if isinstance(value, list):
        return "a JSON array"
    if isinstance(value, dict):
        return "a JSON object"
    return f"a {type(value).__name__}"


class Origins:
    """Where each value of a converted document came from: its JSON path -> the JSON path of the
    source value it was built from. A converter given an ``Origins`` records only references
    (``Cx.built`` / ``Cx.sourced``: the values and their source paths) and leaves the paths to
    the first question: :meth:`around` works out the few paths one finding needs, :meth:`paths`
    the whole table. A composed conversion whose second hop reports nothing never asks, and one
    that does asks :meth:`around` once per finding: no conversion walks the whole document to
    place its findings (issue 16).
    """

    def __init__(self) -> None:
        self._paths: dict[str, str] | None = None
        self._work: Callable[[], dict[str, str]] | None = None
        self._around: Callable[[str], dict[str, str]] | None = None
        self.from_caller: tuple[str, ...] = ()
        """The target paths whose value the conversion took from the caller's context, or left
        absent for want of it (:meth:`Cx.from_context`, :meth:`Cx.missing`): no source value
        stands behind them."""

    def paths(self) -> dict[str, str]:
        """The paths, target -> source, in document order of the target (one walk of the whole
        target document, the first time)."""
        if self._paths is None:
            self._paths = self._work() if self._work is not None else {}
            self._work = self._around = None
        return self._paths

    def around(self, field: str) -> dict[str, str]:
        """The part of :meth:`paths` that names the target value at JSON path `field`: the
        entries of `field` and of every value that holds it, and, when `field` itself has none,
        of every value inside it (in document order). Works out only the target values on the
        way to `field` (each step a look-up by the next member name or index), and the values
        inside `field` only when it has no entry of its own; what :func:`lucent._convert._source_paths`
        reads of it is what it reads of :meth:`paths`."""
        if self._paths is not None or self._around is None:
            return self.paths()
        return self._around(field)


MAX_DIAGNOSTICS = 1000
"""How many diagnostics a conversion lists one by one; past them, one per class (see Diagnostics)."""

MAX_CLASSES = 64
"""How many classes (status, detail) past MAX_DIAGNOSTICS get a folded diagnostic of their own;
the diagnostics of further classes are folded into one per status."""

FOLDED = re.compile(r" \[folded: ([1-9][0-9]*) diagnostics at paths inside this field\]$")
"""The end of a folded diagnostic's detail; group 1 is how many diagnostics it stands for."""

_OTHER_CLASSES = "diagnostics of further kinds (details differ)"


class Diagnostics(list[ConversionDiagnostic]):
    """The diagnostics of one conversion, in the order they were found, bounded.

    The first :data:`MAX_DIAGNOSTICS` are listed as they come. Each one after them is folded into
    the one diagnostic of its class: its status, its detail, and whether its field is a
    ``target:`` path. The folded diagnostic stands at the place where its class was first folded;
    its ``field`` is the deepest JSON path that holds every field it stands for (``$``, or
    ``target:$``, at worst), and its ``detail`` is the class's detail followed by
    `` [folded: N diagnostics at paths inside this field]`` (:data:`FOLDED`), N how many it
    stands for (:func:`represented` reads it). Past :data:`MAX_CLASSES` classes, a further class
    is folded into one diagnostic per status whose detail is ``diagnostics of further kinds
    (details differ)``. The list therefore holds at most MAX_DIAGNOSTICS + MAX_CLASSES + 8
    diagnostics (schemas/lucent-diagnostics-v1.json is unchanged: the count is in the detail).

    ``append`` and ``extend`` fold; a folded diagnostic given to them is folded with its count,
    so that lists merged into one stay bounded and keep their counts.
    """

    def __init__(self, items: Iterable[ConversionDiagnostic] = ()) -> None:
        super().__init__()
        self._folds: dict[tuple[str, str | None, bool], tuple[list[int], ConversionDiagnostic]] = {}
        self._classes = 0  # folds of a class of their own (not of further kinds)
        if items:  # each Cx starts with none
            self.extend(items)

    def append(self, diagnostic: ConversionDiagnostic) -> None:
        detail = diagnostic.detail if isinstance(diagnostic.detail, str) else ""
        found = FOLDED.search(detail) if "[folded: " in detail else None
        if found is None and len(self) < MAX_DIAGNOSTICS:
            super().append(diagnostic)
            return
        count = 1 if found is None else int(found.group(1))
        self._fold(diagnostic.field, diagnostic.status, detail if found is None else detail[: found.start()], count)

    def extend(self, diagnostics: Iterable[ConversionDiagnostic]) -> None:
        for diagnostic in diagnostics:
            self.append(diagnostic)

    def add(self, field: str, status: Any, detail: str) -> None:
        """``append(ConversionDiagnostic(field=field, status=status, detail=detail))`` for a
        detail that is not folded; past the cap only the count is kept (nothing is built)."""
        if len(self) < MAX_DIAGNOSTICS:
            super().append(ConversionDiagnostic(field=field, status=status, detail=detail))
        else:
            self._fold(field, status, detail, 1)

    def __reduce__(self) -> tuple[type[Diagnostics], tuple[list[ConversionDiagnostic]]]:
        # pickle and copy rebuild the list through __init__ (its folds with it)
        return Diagnostics, (list(self),)

    def _fold(self, field: str, status: Any, detail: str, count: int) -> None:
        target = field.startswith("target:")
        key: tuple[str, str | None, bool] = (status, detail, target)
        fold = self._folds.get(key)
        if fold is None and self._classes >= MAX_CLASSES:
            key, detail = (status, None, target), _OTHER_CLASSES
            fold = self._folds.get(key)
        if fold is None:
            self._classes += key[1] is not None
            fold = self._folds[key] = ([0], ConversionDiagnostic(field=field, status=status, detail=detail))
            super().append(fold[1])
        counted, folded = fold
        counted[0] += count
        if folded.field != field:
            folded.field = _holding(folded.field, field)
        folded.detail = f"{detail} [folded: {counted[0]} diagnostics at paths inside this field]"


def represented(diagnostic: ConversionDiagnostic) -> int:
    """How many diagnostics `diagnostic` stands for: N for one folded by :class:`Diagnostics`, else 1."""
    detail = diagnostic.detail if isinstance(diagnostic.detail, str) else ""
    found = FOLDED.search(detail) if "[folded: " in detail else None
    return 1 if found is None else int(found.group(1))


def holder_of(paths: Iterable[str]) -> str:
    """The deepest JSON path that is or holds each of `paths` (``$`` for none)."""
    found: str | None = None
    for path in paths:
        found = path if found is None else _holding(found, path)
    return "$" if found is None else found


_SEGMENT = re.compile(r'\.[^.\[]*|\["(?:[^"\\]|\\.)*"\]|\[[^\]]*\]')


def _holding(path: str, other: str) -> str:
    """The deepest JSON path that is `path` or `other` or holds both, step by step (a quoted key
    is one step): ``$.a.b[1]`` and ``$.a.c`` give ``$.a``; paths from different roots ``$``."""
    if other.startswith(path) and (len(other) == len(path) or other[len(path)] in ".["):
        return path
    root, _, rest = path.partition("$")
    other_root, _, other_rest = other.partition("$")
    if root != other_root:
        return "$"
    held = root + "$"
    for mine, theirs in zip(_SEGMENT.findall(rest), _SEGMENT.findall(other_rest)):
        if mine != theirs:
            break
        held += mine
    return held


class Cx:
    """The state of one conversion: diagnostics, the caller's context, the carried side-car.

    `carried` is the object of the source document that keeps values only the target format has
    (for Lux -> SparkTide, the Lux `extra.sparktide`); `origin` maps each written message to the
    source path it came from, for diagnostics raised after it was written.
    """

    def __init__(self, context: Mapping[str, Any] | None, declared: tuple[str, ...] | None = None, reader: str = "this converter") -> None:
        self.diagnostics: list[ConversionDiagnostic] = Diagnostics()  # bounded: see Diagnostics
        # a generated converter declares the keys it reads (its module's CONTEXT): any other read raises
        self.context: dict[str, Any] = dict(context or {}) if declared is None else DeclaredContext(context, declared, reader)
        self.carried: dict[str, Any] = {}
        self.carried_path = "$"
        self.origin: dict[int, str] = {}
        self._indexes: dict[str, set[int]] = {}
        # what a transform remembers across one conversion (for example tool names by call id)
        self.memo: dict[str, Any] = {}
        # provenance: id(target value) -> (value, source path, {target member: source member})
        self._built: dict[int, tuple[Any, str, Mapping[str, Origin] | None, Any]] = {}
        self._sourced: dict[int, tuple[Any, Mapping[Any, str]]] = {}
        # keep: (side-car space, source object path, key, value, source member path)
        self._kept: list[tuple[str, str, str, Any, str]] = []
        # kept: the Lux side-car object of the source (extra / provider_payload) and what was read
        self.sidecar: dict[str, Any] = {}
        self.sidecar_path = "$"
        self._read: set[tuple[str, str, str]] = set()
        self._spaces: dict[str, dict[str, Any]] = {}  # _space's lookups in `sidecar`
        self._spaces_of: dict[str, Any] = self.sidecar
        self._from_caller: list[str] = []  # target paths given by the context or missing (Origins.from_caller)

    def report(self, field: str, status: Status, detail: str) -> None:
        """Record one diagnostic: `field` is a JSON path in the source (or target:$.x); `field`
        and `detail` are escaped (:func:`printable`) and `detail` names no value of the input."""
        self.diagnostics.append(ConversionDiagnostic(field=printable(field), status=status, detail=printable(detail)))

    def missing(self, target: str, key: str, why: str = "") -> None:
        """A value the target requires that neither the context nor the source supplies."""
        reason = f" ({why})" if why else ""
        self._from_caller.append(target)
        self.report(
            f"target:{target}",
            "Invalid",
            f"required by the target{reason} and not in the source; supply context[{key!r}]",
        )

    def from_context(self, key: str, expect: Expect, target: str) -> Any:
        """The caller's context value for `key`, or UNSET (reported Invalid if mistyped)."""
        if key not in self.context:
            return UNSET
        value = self.context[key]
        if not _fits(value, expect):
            self.report(f"target:{target}", "Invalid", f"context[{key!r}] is {_json_type_name(value)}, not {_expected(expect)}")
            return UNSET
        self._from_caller.append(target)
        return value

    def prefer(self, given: Any, value: Any, path: str, key: str) -> Any:
        """The caller's context value `given` when set (a different source value at `path` is
        reported Degraded: it is replaced), else the source `value`."""
        if given is UNSET:
            return value
        if value is not UNSET and value != given:
            self.report(path, "Degraded", f"replaced by the caller's context[{key!r}]")
        return given

    def load_carried(
        self, holder: Mapping[str, Any] | UnsetType, key: str, path: str, types: Mapping[str, Expect] | None = None
    ) -> dict[str, Any]:
        """The carried side-car object `holder[key]` ({} when absent or not an object, reported
        Invalid when present). With `types` (the spec's ``carried_types``), each entry of
        another JSON type is reported Invalid and left out of the object returned, so that no
        rule reads it; so is a side-car (`holder`) that is not an object."""
        self.carried_path = path
        self.sidecar_path = path.rsplit(".", 1)[0]
        self.sidecar = holder if isinstance(holder, dict) else {}
        if holder is not UNSET and holder is not None and not isinstance(holder, dict):
            self.report(self.sidecar_path, "Invalid", f"the side-car is {_json_type_name(holder)}, not a JSON object; ignored")
        if not isinstance(holder, dict) or key not in holder:
            return {}
        value = holder[key]
        if not isinstance(value, dict):
            self.report(path, "Invalid", f"{_json_type_name(value)}, not a JSON object; ignored")
            return {}
        if types:
            wrong = [name for name, expect in types.items() if name in value and not _fits(value[name], expect)]
            for name in wrong:
                self.report(member(path, name), "Invalid", f"{_json_type_name(value[name])}, not {_expected(types[name])}; ignored")
            if wrong:
                value = {name: item for name, item in value.items() if name not in wrong}
        return value

    def from_carried(self, key: str, expect: Expect) -> Any:
        """The carried value for `key`, or UNSET (reported Invalid if mistyped)."""
        if key not in self.carried:
            return UNSET
        value = self.carried[key]
        if not _fits(value, expect):
            self.report(member(self.carried_path, key), "Invalid", f"{_json_type_name(value)}, not {_expected(expect)}; ignored")
            return UNSET
        return value

    def from_sibling(self, car: str, key: str, expect: Expect) -> Any:
        """The member `key` of another format's side-car `car` (``extra.openai_chat.store`` read
        by Lux -> Responses: a parameter both formats define with one meaning), or UNSET (absent,
        or reported Invalid if mistyped). Codegen leaves such a member out of the report of that
        side-car's unread members."""
        held = self.sidecar.get(car)
        if not isinstance(held, dict) or key not in held:
            return UNSET
        value = held[key]
        if not _fits(value, expect):
            self.report(member(member(self.sidecar_path, car), key), "Invalid", f"{_json_type_name(value)}, not {_expected(expect)}; ignored")
            return UNSET
        return value

    def carried_object(self, key: str, types: Mapping[str, Expect]) -> dict[str, Any] | UnsetType:
        """The carried object for `key` (UNSET when absent; reported Invalid when not an
        object), without the members of `types` whose JSON type is wrong: each is reported
        Invalid at its path."""
        found: dict[str, Any] | UnsetType = self.from_carried(key, "object")
        if found is UNSET:
            return UNSET
        wrong = [name for name, expect in types.items() if name in found and not _fits(found[name], expect)]
        for name in wrong:
            self.report(member(member(self.carried_path, key), name), "Invalid", f"{_json_type_name(found[name])}, not {_expected(types[name])}; ignored")
        return {name: value for name, value in found.items() if name not in wrong} if wrong else found

    def carried_index(self, key: str, path: str) -> bool:
        """Whether the carried list of conversation indexes `key` names the message at `path`."""
        if key not in self._indexes:
            found: set[int] = set()
            value = self.carried.get(key, [])
            if isinstance(value, list) and all(isinstance(i, int) and not isinstance(i, bool) for i in value):
                found = set(value)
            else:
                self.report(member(self.carried_path, key), "Invalid", "not a list of conversation indexes; ignored")
            self._indexes[key] = found
        return any(path == f"$.conversation[{i}].message" for i in self._indexes[key])

    def merge_carried_list(self, items: list[T] | UnsetType, key: str, path: str) -> list[T] | UnsetType:
        """Put the carried [{index, value}] entries back into `items` at their index."""
        entries = self.from_carried(key, "array")
        if entries is UNSET:
            return items
        merged: list[T] = [] if items is UNSET else list(items)
        valid = []
        for n, entry in enumerate(entries):
            index = entry.get("index") if isinstance(entry, dict) else None
            if not isinstance(index, int) or isinstance(index, bool) or set(entry) != {"index", "value"}:
                self.report(f"{path}[{n}]", "Invalid", "not an {index, value} entry; ignored")
                continue
            valid.append((index, entry["value"]))
        for index, value in sorted(valid, key=lambda pair: pair[0]):
            merged.insert(min(max(index, 0), len(merged)), value)
        return merged

    def report_unread(
        self,
        mapping: Mapping[str, Any] | UnsetType,
        path: str,
        read: tuple[str, ...],
        status: Status,
        detail: str,
        spelling: Mapping[str, tuple[str, ...]] | None = None,
    ) -> None:
        """Report every key of `mapping` that no rule reads (all of it when it is not an object).

        `spelling` names, for another format's side-car under `mapping`, the members that only
        record how that format spelled a value Lux holds (codegen.mappings.spellings); such a
        side-car is reported member by member, its spellings left out, and so are the members its
        ``members`` keeps for each Lux object (``members/<name>``, or ``members/<name>=null`` for a
        null that records an absence, are spellings)."""
        if mapping is UNSET or (mapping.__class__ is dict and not mapping):  # nothing to report
            return
        if not isinstance(mapping, dict):
            self.report(path, status, detail)
            return
        for key, value in mapping.items():
            if key in read:
                continue
            spelled = spelling.get(key) if spelling else None
            if spelled is None or not isinstance(value, dict):
                self.report(member(path, key), status, detail)
                continue
            car = member(path, key)
            for name, kept in value.items():
                if name == "members" and isinstance(kept, dict) and "members" not in spelled:
                    self._report_members(member(car, name), kept, spelled, status, detail)
                elif name == "unknown" and isinstance(kept, dict):  # lucent._unknown: each member
                    self._report_members(member(car, name), kept, (), status, detail)
                elif _placed(kept) and not _spelled(name, kept, spelled):  # each kept block, at its own source
                    for index in range(len(kept)):
                        self.report(f"{member(car, name)}[{index}]", status, detail)
                elif not _spelled(name, kept, spelled):
                    self.report(member(car, name), status, detail)

    def _report_members(self, path: str, members: dict[str, Any], spelled: tuple[str, ...], status: Status, detail: str) -> None:
        """Each member a side-car's ``members`` keeps for a Lux object, but its spellings."""
        for lux_path, kept in members.items():
            if not isinstance(kept, dict):
                self.report(member(path, lux_path), status, detail)
                continue
            for name, value in kept.items():
                if _spelled(f"members/{name}", value, spelled) or (value is None and f"members/{name}=null" in spelled):
                    continue
                if _placed(value):  # each kept part, at its own source
                    for index in range(len(value)):
                        self.report(f"{member(member(path, lux_path), name)}[{index}]", status, detail)
                    continue
                self.report(member(member(path, lux_path), name), status, detail)

    # ------------------------------------------------------------- provenance and side-cars

    def built(self, path: str, value: B, fields: Mapping[str, Origin] | None = None, source: Any = None) -> B:
        """Record that the target `value` (a Struct or a JSON object) was built from the source
        value at `path`; `fields` maps its members (dotted target paths) to the source members they
        copy (dotted, relative to `path`; "" is `path` itself), or to the members one of which
        gives it (a tuple, in the order the rule reads them: the first that `source`, the source
        value, has is recorded). Returns `value`."""
        self._built[id(value)] = (value, path, fields, source)
        return value

    def sourced(self, value: B, origins: Mapping[Any, str]) -> B:
        """Record the source path of each item (list index) or member (key) of the target `value`
        that a transform built from several source values; `value` itself then names no one
        source. Returns `value`."""
        self._sourced[id(value)] = (value, origins)
        return value

    def keep(self, space: str, path: str, key: str, value: Any, source: str) -> None:
        """Keep a source member (at JSON path `source`) that the Lux target has no field for, in
        the side-car `space` (``media``, ``llm_sdk.members``), under the Lux path of the deepest
        target object built from the source object at `path`; placed by :meth:`finish`."""
        self._kept.append((space, path, key, value, source))

    def _space(self, space: str) -> dict[str, Any]:
        """The object at the dotted `space` (``media``, ``llm_sdk.members``) of the source's
        side-car, or an empty one (looked up once per conversion)."""
        found = self._spaces.get(space)
        if found is not None and self._spaces_of is self.sidecar:
            return found
        if self._spaces_of is not self.sidecar:
            self._spaces, self._spaces_of = {}, self.sidecar
        node: Any = self.sidecar
        where = self.sidecar_path
        for seg in space.split("."):
            node = node.get(seg, {})
            where = member(where, seg)
            if not isinstance(node, dict):
                if where != self.carried_path:  # load_carried reported the carried side-car itself
                    self.report(where, "Invalid", f"{_json_type_name(node)}, not a JSON object; ignored")
                node = {}
                break
        kept: dict[str, Any] = node
        self._spaces[space] = kept
        return kept

    def kept(self, space: str, path: str, key: str, expect: Expect) -> Any:
        """The member `key` kept in the side-car `space` of the Lux source for the Lux object at
        `path`, or UNSET (reported Invalid when mistyped)."""
        found = self._spaces.get(space) if self._spaces_of is self.sidecar else None  # _space's look-up, without the call
        entry = (self._space(space) if found is None else found).get(path)
        if entry is None or not isinstance(entry, dict) or key not in entry:
            return UNSET
        self._read.add((space, path, key))
        value = entry[key]
        if not _fits(value, expect):
            where = member(member(f"{self.sidecar_path}.{space}", path), key)
            self.report(where, "Invalid", f"{_json_type_name(value)}, not {_expected(expect)}; ignored")
            return UNSET
        return value

    def keeps(self, space: str, path: str) -> bool:
        """Whether the side-car `space` of the Lux source has an entry for the Lux object at
        `path` (when not, :meth:`kept` is UNSET for every key there: a caller may skip asking)."""
        found = self._spaces.get(space) if self._spaces_of is self.sidecar else None
        return path in (self._space(space) if found is None else found)

    def has_kept(self, space: str) -> bool:
        """Whether the side-car `space` of the Lux source may have an entry: False only once
        it was looked up (by :meth:`kept`, :meth:`keeps`) and has none (then :meth:`kept` is
        UNSET everywhere in it). Looks nothing up itself, so reports nothing."""
        found = self._spaces.get(space) if self._spaces_of is self.sidecar else None
        return found is None or bool(found)

    def forget(self, path: str) -> None:
        """The Lux object at `path` was dropped: its kept members count as not read (finish then
        reports them with their side-car path)."""
        self._read = {r for r in self._read if not (r[1] == path or r[1].startswith((path + ".", path + "[")))}

    def report_unread_entries(self, space: str, where: str | None = None) -> None:
        """Report each entry of the side-car ``space`` that is not a JSON object (Invalid) or
        whose members no rule read (Unsupported, at ``where`` (default ``<side-car>.<space>``)
        + the entry's Lux path + the member): a stale or foreign entry is never dropped silently.
        `finish` runs it for the spaces a spec's ``kept`` rules name; a transform that reads a
        space itself runs it once it has read everything."""
        entries = self._space(space)
        if not entries:  # nothing kept in this space (the usual case): nothing to report
            return
        where = f"{self.sidecar_path}.{space}" if where is None else where
        for path, entry in entries.items():
            if not isinstance(entry, dict):
                self.report(member(where, path), "Invalid", "not a JSON object of kept members; ignored")
                continue
            for key in entry:
                if (space, path, key) not in self._read:
                    self.report(member(member(where, path), key), "Unsupported", "no value at this Lux path of the target reads it")

    def finish(
        self,
        value: V,
        origins: dict[str, str] | Origins | None = None,
        *,
        sidecar: str = "",
        spaces: tuple[str, ...] = (),
        unknown: Iterable[tuple[str, list[str | int], Any]] = (),
        unknown_space: str = "",
    ) -> V:
        """End one conversion; returns the value (a Lux source's, with the members its
        side-car kept for it written back: a new value when there are some).

        A Lux target (`sidecar`, the member of the root that holds side-cars: ``extra`` or
        ``provider_payload``) gets the kept values, keyed by Lux path, and the source members
        its Structs do not hold (`unknown`: path, steps, JSON value each, which lucent.convert
        finds beside the decode) in `unknown_space` (``openai_chat.unknown``), keyed by the Lux
        path of the outermost object built from their object (or its nearest holder with a
        record) and their JSON path relative to that object, each reported Degraded
        (:func:`lucent._unknown.keep`).
        A Lux source (`spaces`, the side-car spaces the spec reads) has every entry no rule read
        reported Unsupported, and the members its own side-car's ``unknown`` keeps written into
        the objects built from their Lux objects (:func:`lucent._unknown.restore`). With
        `origins`, every target path the conversion recorded is mapped to its source path (an
        :class:`Origins` is worked out when first read).
        """
        for space in spaces:
            self.report_unread_entries(space)
        if self._from_caller and isinstance(origins, Origins):
            origins.from_caller = tuple(self._from_caller)
        if self.carried and "unknown" in self.carried:
            value = restore(self, value, self.carried["unknown"])
        kept_unknown: dict[str, str] = {}
        if unknown and not (sidecar and unknown_space):
            for source, _steps, _item in unknown:
                self.report(source, "Unsupported", "a member the schema does not define; this conversion has no side-car to keep it in")
        elif unknown:
            kept_unknown = keep_unknown(self, value, sidecar, unknown_space, unknown)
        if not self._kept and not kept_unknown:
            if isinstance(origins, Origins):
                origins._work = lambda: self._walked(value)[0]
                origins._around = lambda field: self._walked_to(value, field)
            elif origins is not None:
                origins.update(self._walked(value)[0])
            return value
        # kept unknown members are in the document already: the table is worked out now
        lazy = not kept_unknown and isinstance(origins, Origins) and not self._kept_over(value, sidecar)
        if origins is not None and not lazy:  # the table of the document before the kept values are put in
            table, deepest = self._walked(value)
        else:
            table, deepest = {}, self._deepest(value, {k[1] for k in self._kept}) if self._kept else {}
        table.update(kept_unknown)
        extras: list[tuple[str, str | list[Any]]] = []  # what the kept values add to the table, in order
        inserted: set[str] = set()  # the paths of what is put in below: the values kept, the objects made for them
        for space, path, key, kept, source in self._kept:
            at = deepest.get(path)
            if at is None or not sidecar:
                self.report(source, "Unsupported", "no target object was built from its object, so it cannot be kept")
                continue
            holder = getattr(value, sidecar)
            if not isinstance(holder, dict):
                holder = {}
                setattr(value, sidecar, holder)
                inserted.add(f"$.{sidecar}")
            node = holder
            where = f"$.{sidecar}"
            for seg in space.split("."):
                where = f"{where}.{seg}"
                if seg not in node:
                    inserted.add(where)
                node = node.setdefault(seg, {})
            if at not in node:
                inserted.add(member(where, at))
            node.setdefault(at, {})[key] = kept
            where = member(member(f"$.{sidecar}.{space}", at), key)
            inserted.add(where)
            if isinstance(kept, list) and kept and all(self._recorded(item) for item in kept):
                extras.append((where, kept))  # verbatim items: each names its own source
            else:
                extras.append((where, source))
        if lazy:
            assert isinstance(origins, Origins)
            origins._work = lambda: self._walked_but(value, inserted, extras)
            origins._around = lambda field: self._walked_to_but(value, field, inserted, extras)
            return value
        for where, named in extras:
            if isinstance(named, list):
                self._walk(named, where, table, {})
            else:
                table[where] = named
        if isinstance(origins, Origins):
            origins._paths = table
        elif origins is not None:
            origins.update(table)
        return value

    def _kept_over(self, value: Any, sidecar: str) -> bool:
        """Whether a kept value would take the place of a member the side-car `sidecar` of
        `value` has already (then :meth:`finish` works out the table before putting it in)."""
        holder = getattr(value, sidecar, None) if sidecar else None
        if not isinstance(holder, dict):
            return False
        for space, _path, key, _kept, _source in self._kept:
            node: Any = holder
            for seg in space.split("."):
                node = node.get(seg) if isinstance(node, dict) else None
            if isinstance(node, dict) and any(isinstance(entry, dict) and key in entry for entry in node.values()):
                return True
        return False

    def _walked_but(self, value: Any, inserted: set[str], extras: list[tuple[str, str | list[Any]]]) -> dict[str, str]:
        """The first table of :meth:`_walked` for `value` without the values at the paths
        `inserted` (what :meth:`finish` put into the side-car after the conversion), then the
        entries `extras` (a path and its source, or a kept list of recorded items), in order:
        the table :meth:`finish` works out before it puts the kept values in."""
        table: dict[str, str] = {}
        deepest: dict[str, str] = {}
        built, sourced = self._built, self._sourced
        for item, where in _visit(value, "$", inserted):
            if id(item) in built or id(item) in sourced:
                self._record(item, where, table, deepest, absent=inserted)
        for where, source in extras:
            if isinstance(source, list):
                self._walk(source, where, table, {})
            else:
                table[where] = source
        return table

    def _walked_to_but(self, value: Any, field: str, inserted: set[str], extras: list[tuple[str, str | list[Any]]]) -> dict[str, str]:
        """:meth:`_walked_to` for a document :meth:`finish` put kept values into (at the paths
        `inserted`; `extras` their entries): what the table of :meth:`_walked_but` holds for
        `field`, a value inside it or a value that holds it. A field apart from every path
        inserted is found as in the document before; one that is one of them, inside one or
        holds one is found by the walk around it, in the document before, then the entries of
        the kept values related to it."""
        if not any(_related(field, path) for path in inserted):
            return self._walked_to(value, field)
        table = self._walked_around(value, field, inserted)
        for where, source in extras:
            if _related(where, field):
                if isinstance(source, list):
                    self._walk(source, where, table, {})
                else:
                    table[where] = source
        return table

    def _walked(self, value: Any) -> tuple[dict[str, str], dict[str, str]]:
        """(target path -> source path, source path -> the deepest target path built from it)."""
        table: dict[str, str] = {}
        deepest: dict[str, str] = {}
        self._walk(value, "$", table, deepest)
        return table, deepest

    def _walked_to(self, value: Any, field: str) -> dict[str, str]:
        """The entry of :meth:`_walked` for `field`, when it has one; else every entry that names
        `field`, a value inside it or a value that holds it (:meth:`_walked_around`).

        Steps from the root to `field` by its path's own steps (a list index, a member name),
        looking at each value on the way only for the one member of its record that names
        `field`, then at the value at `field`: a few dict look-ups per step. That is all
        :func:`lucent._convert._source_paths` and the callers of :meth:`Origins.around` read
        of a value that is named; a value that is not (or a path with a quoted key, a value
        that records its items one by one) takes the walk around it."""
        if not field.startswith("$"):
            return {}
        built, sourced = self._built, self._sourced
        found: str | None = None
        at, end = value, 1
        for step in _SEGMENT.findall(field, 1):
            if sourced and id(at) in sourced and sourced[id(at)][0] is at:
                return self._walked_around(value, field)
            record = built.get(id(at))
            if record is not None and record[2] and record[0] is at and field[end] == ".":
                target = field[end + 1 :]
                origin = record[2].get(target)
                if origin is not None and _member_set(at, target):
                    if isinstance(origin, tuple):  # several source members: the first one given
                        origin = next((o for o in origin if record[3] is not None and _member_set(record[3], o)), None)
                    if origin is not None:
                        found = f"{record[1]}.{origin}" if origin else record[1]
            # the member or item at this step (a scalar has none: the walk around it decides)
            if step[0] == "[":
                if not (isinstance(at, list) and step[1:-1].isdigit() and (step[1] != "0" or step == "[0]")):  # as Cx._walk writes an index
                    return self._walked_around(value, field)
                index = int(step[1:-1])
                if index >= len(at):
                    return self._walked_around(value, field)
                at = at[index]
            else:
                attributes = _ATTRIBUTES.get(at.__class__)
                if attributes is None and isinstance(at, Struct):
                    attributes = _attributes_of(at.__class__)
                if attributes is not None:
                    attribute = attributes.get(step[1:])
                    at = UNSET if attribute is None else getattr(at, attribute)
                elif isinstance(at, dict) and member("", step[1:]) == step:  # a key Cx._walk writes as .name
                    at = at.get(step[1:], UNSET)
                else:
                    return self._walked_around(value, field)
                if at is UNSET:
                    return self._walked_around(value, field)
            end += len(step)
        if end != len(field) or (sourced and id(at) in sourced and sourced[id(at)][0] is at):
            return self._walked_around(value, field)
        record = built.get(id(at))
        if record is not None and record[0] is at:
            found = record[1]
        return {field: found} if found is not None else self._walked_around(value, field)

    def _walked_around(self, value: Any, field: str, absent: set[str] | None = None) -> dict[str, str]:
        """Every entry of :meth:`_walked` that names `field`, a value inside it or a value that
        holds it: the values on the way from the root to `field` add their own entries (those
        related to `field`), and the value at `field` is walked whole. The values at the paths
        `absent` (and what they hold) count as not there."""
        table: dict[str, str] = {}
        deepest: dict[str, str] = {}
        path = "$"
        while path != field:
            self._record(value, path, table, deepest, field, absent)
            step = _step_towards(value, path, field)
            if step is None or (absent and step[1] in absent):
                return table
            value, path = step
            if not (isinstance(value, _CONTAINERS) or self._recorded(value)):
                return table
        self._walk(value, path, table, deepest, absent)
        return table

    def _walk(self, value: Any, path: str, table: dict[str, str], deepest: dict[str, str], absent: set[str] | None = None) -> None:
        """Record every value under `value` (at `path`), in document order (depth first, a value
        before what it holds). Only Structs, dicts and lists are recorded (:data:`B`): a scalar
        is not visited (:func:`_visit`: the memory is that of the depth, not of the widest
        container)."""
        built, sourced = self._built, self._sourced
        for item, where in _visit(value, path, absent):
            if id(item) in built or id(item) in sourced:
                self._record(item, where, table, deepest, absent=absent)

    def _deepest(self, value: Any, wanted: set[str]) -> dict[str, str]:
        """The second table of :meth:`_walked` for the source paths `wanted` only: a conversion
        that maps no origins needs no target path but where kept members go."""
        built = self._built
        deepest: dict[str, str] = {}
        for item, where in _visit(value, "$"):
            record = built.get(id(item))
            if record is not None and record[0] is item and record[1] in wanted and len(where) >= len(deepest.get(record[1], "")):
                deepest[record[1]] = where
        return deepest

    def _record(
        self, value: Any, path: str, table: dict[str, str], deepest: dict[str, str], near: str | None = None, absent: set[str] | None = None
    ) -> None:
        """The entries `value`'s own records add for `path`; with `near`, only those of `near`,
        of the values inside it and of the values that hold it; a member at one of the paths
        `absent`, or inside one, counts as not set."""
        record = self._built.get(id(value))
        if record is not None and record[0] is value:
            source = record[1]
            table[path] = source
            if len(path) >= len(deepest.get(source, "")):
                deepest[source] = path
            lead = "" if near is None else _lead(path, near)
            for target, origin in (record[2] or {}).items() if lead is not None else ():
                if not target.startswith(lead):  # no member path.target is related to `near`
                    continue
                at = f"{path}.{target}"
                if (near is None or _related(at, near)) and _member_set(value, target) and not (absent and _within(at, absent)):
                    if isinstance(origin, tuple):  # several source members: the first one given
                        given = next((o for o in origin if record[3] is not None and _member_set(record[3], o)), None)
                        if given is None:
                            continue
                        origin = given
                    table[at] = f"{source}.{origin}" if origin else source
        sourced = self._sourced.get(id(value))
        if sourced is not None and sourced[0] is value:
            table.pop(path, None)
            for key, origin in sourced[1].items():
                at = f"{path}[{key}]" if isinstance(key, int) else member(path, key)
                if near is None or _related(at, near):
                    table[at] = origin

    def _recorded(self, value: Any) -> bool:
        return id(value) in self._built or id(value) in self._sourced


_CONTAINERS = (Struct, dict, list)
_CONTAINER_CLASSES = frozenset({dict, list})


def _fields_of(cls: type) -> tuple[tuple[str, str], ...]:
    """A Struct class's fields as (attribute name, ``.`` + JSON name), found once per class."""
    found = _FIELDS[cls] = tuple((name, "." + encoded) for name, encoded in zip(cls.__struct_fields__, cls.__struct_encode_fields__))  # type: ignore[attr-defined]
    return found


def _visit(value: Any, path: str, skipped: set[str] | None = None) -> Iterator[tuple[Any, str]]:
    """`value` (at `path`) and every Struct, dict and list under it, with its JSON path, in
    document order (depth first, a value before what it holds). One loop and a stack of the
    containers on the way down, each with an iterator over its members: the memory is that of
    the depth, not of the widest container (a list of 10M items once put 10M paths on a stack)."""
    stack: list[Iterator[tuple[Any, str]]] = [iter(((value, path),))]
    while stack:
        for item, where in stack[-1]:
            if skipped and where in skipped:  # neither the value nor what it holds
                continue
            yield item, where
            if item:  # an empty list or dict holds nothing; a Struct is true
                stack.append(_containers_in(item, where))
                break
        else:
            stack.pop()


def _containers_in(value: Any, path: str) -> Iterator[tuple[Any, str]]:
    """The Structs, dicts and lists `value` holds, with their JSON paths, in document order."""
    cls = value.__class__
    fields = _FIELDS.get(cls)
    if fields is not None or (isinstance(value, Struct) and (fields := _fields_of(cls))):
        for name, dot in fields:
            item = getattr(value, name)
            if item.__class__ in _CONTAINER_CLASSES or (item is not UNSET and isinstance(item, _CONTAINERS)):
                yield item, path + dot
    elif isinstance(value, list):
        for index, item in enumerate(value):
            if item.__class__ in _CONTAINER_CLASSES or isinstance(item, _CONTAINERS):
                yield item, f"{path}[{index}]"
    elif isinstance(value, dict):
        for key, item in value.items():
            if item.__class__ in _CONTAINER_CLASSES or isinstance(item, _CONTAINERS):
                yield item, member(path, key)


_FIELDS: dict[type, tuple[tuple[str, str], ...]] = {}


def _within(path: str, paths: set[str]) -> bool:
    """Whether `path` is one of `paths` or inside one of them."""
    return any(path == p or path.startswith((p + ".", p + "[")) for p in paths)


def _lead(path: str, near: str) -> str | None:
    """What the member name of a value at `path` starts with when `path.name` is `near`, holds
    it or is inside it: the first step of `near` after `path` ("" for any name, when `near` is
    `path` or holds it; None for no name, when `near` is an item of `path` or apart from it).
    A look-up by prefix instead of a comparison of each member's path (:meth:`Cx._record`)."""
    if near.startswith(path) and near.startswith(".", len(path)):
        rest = near[len(path) + 1 :]
        ends = [i for i in (rest.find("."), rest.find("[")) if i >= 0]
        return rest[: min(ends)] if ends else rest
    return "" if _related(path, near) and len(near) <= len(path) else None


def _related(path: str, other: str) -> bool:
    """Whether one of the two JSON paths is the other or holds it."""
    if len(path) > len(other):
        path, other = other, path
    return other == path or other.startswith((path + ".", path + "["))


def _step_towards(value: Any, path: str, field: str) -> tuple[Any, str] | None:
    """The member or item of `value` (at JSON `path`) that holds `field`, with its path; None
    when no member or item does (the paths are the ones Cx._walk builds). A list item and a
    Struct field are looked up by the next step of `field` (its index, its JSON name); a dict's
    members, and a Struct field whose JSON name is not a plain step, are compared one by one."""
    if isinstance(value, list):
        rest = field[len(path) :]
        end = rest.find("]")
        if rest.startswith("[") and rest[1:end].isdigit():
            index = int(rest[1:end])
            if index < len(value):
                return value[index], f"{path}[{index}]"
        return None
    if isinstance(value, Struct):
        if field.startswith(".", len(path)):
            start = len(path) + 1
            ends = [i for i in (field.find(".", start), field.find("[", start)) if i >= 0]
            name = field[start : min(ends)] if ends else field[start:]
            attribute = _attributes_of(value.__class__).get(name)
            if attribute is not None:
                item = getattr(value, attribute)
                return None if item is UNSET else (item, f"{path}.{name}")
        children: Any = (
            (f"{path}.{encoded}", getattr(value, name)) for name, encoded in zip(value.__struct_fields__, value.__struct_encode_fields__)
        )
    elif isinstance(value, dict):
        children = ((member(path, key), item) for key, item in value.items())
    else:
        return None
    for child, item in children:
        if item is not UNSET and (field == child or field.startswith((child + ".", child + "["))):
            return item, child
    return None


def _attributes_of(cls: type) -> dict[str, str]:
    """A Struct class's JSON names that are plain path steps (no ``.``, ``[`` or ``"``) -> its
    attribute names, found once per class."""
    found = _ATTRIBUTES.get(cls)
    if found is None:
        found = _ATTRIBUTES[cls] = {
            encoded: name
            for name, encoded in zip(cls.__struct_fields__, cls.__struct_encode_fields__)  # type: ignore[attr-defined]
            if not any(c in encoded for c in '.["')
        }
    return found


_ATTRIBUTES: dict[type, dict[str, str]] = {}


def _member_set(value: Any, dotted: str) -> bool:
    """Whether the built value has the (dotted) member: a Struct field not UNSET, a dict key."""
    if "." not in dotted:
        return (value.get(dotted, UNSET) if isinstance(value, dict) else getattr(value, dotted, UNSET)) is not UNSET
    for name in dotted.split("."):
        value = value.get(name, UNSET) if isinstance(value, dict) else getattr(value, name, UNSET)
        if value is UNSET:
            return False
    return True
