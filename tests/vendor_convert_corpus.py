"""Vendor conversions on the real recorded traffic (issue 5, section 3): one row per pair.

``python -m tests.vendor_convert_corpus`` (``nox -s corpus``) converts every case of the lingua
corpus (``tests/data/lingua/snapshots/<case>/<dir>/``, dir ``chat-completions``, ``responses``,
``anthropic`` or ``google``) and prints, for each vendor format X, each kind and each target:

* ``X -> lux -> X`` (the round trip): ``lucent.convert`` X -> Lux, then Lux -> X, for
  ``request.json``/``followup-request.json`` (kind request) and ``response.json``/
  ``followup-response.json`` (kind response); ``lucent.streams.convert_stream`` X -> Lux events
  -> X for ``response-streaming.json``/``followup-response-streaming.json`` (kind stream). The
  result must be the recorded document (as JSON values) but at the paths an entry of X's
  expected-difference list covers (``tests/data/vendor_expected_differences/<X>.toml`` for
  documents, the X entries of ``streams.toml`` for streams; format below). Exact: equal;
  degraded: equal but at listed paths (the reasons are the entries'); failed: a difference no
  entry covers (or, for documents, that no diagnostic names), an output X's schema refuses, or
  an error.
* ``X -> Y`` for every other vendor Y: ``lucent.convert`` (composed through Lux) or
  ``convert_stream``, as a caller does it: with no context, then, if the target lacks a value
  (an Invalid ``target:$.<key>`` diagnostic) that a caller can give (``max_tokens``, a stream's
  ``created``...: ``FIXED_CONTEXT`` of tests/convert_conformance/pairs.py and
  :data:`STREAM_CONTEXT`), again with exactly those values. The output must validate against Y's schema with jsonschema, the oracle
  (ECMA-262 patterns, ``tests/ecma_jsonschema.py``; a stream event by event against Y's event
  definition). Exact: valid, no diagnostic; degraded: valid, with diagnostics (the reasons are
  their status and source path, indexes as ``[*]``); no valid image: invalid only at target
  paths the Lux -> Y spec declares unreachable, each named by an Invalid ``target:`` diagnostic
  (counted apart, never as valid); failed: any other invalid output, or an error.

Cases are the documents the source schema accepts; the ones ``tests/data/
vendor_corpus_failures.toml`` lists as refused (a stream with any refused event) are counted as
``refused`` and not converted. A pair whose converters do not exist yet (``lucent.generated.
convert_registry.CONVERTERS``: X -> lux and lux -> Y; ``lucent.streams.FORMATS`` for streams)
prints ``no converter``: it is not a pass.

Expected differences (``[[difference]]`` entries, written by the helpers of each format):
``pattern`` or ``patterns`` (JSON paths of the recorded document: ``[*]`` any index, ``*`` any
characters, or in ``streams.toml`` any characters within one name; a pattern covers the path it
names and everything below), ``reason``, and optionally ``kind`` (``request``/``response`` or a
list; default both), ``files`` (only these recordings, relative to the snapshots folder),
``status``/``detail`` (the difference counts as listed only if a diagnostic of that status,
whose detail holds that text, names its path or a path above it), ``class`` (a short name,
printed instead of the reason) and ``format`` (required in ``streams.toml``, which holds every
format's stream entries). A listed difference of a request or response must also be named by a
diagnostic of the round trip (at its path or above): a loss is never silent. A provider's list is
``<format>.toml`` or ``<format_with_underscores>.toml``. The round trip rows print how many
entries X's list has for the kind beside how many lingua keeps for the same provider
(``tests/data/lingua/*_expected_differences.json``: every ``fields`` pattern, ``errors``
pattern and ``skip`` of a rule whose source or target names the provider, or of a ``*`` ->
``*`` rule); an entry that no round trip of its format needs is stale and fails the run.

Options: ``--format X`` (repeatable), ``--kind K``, ``--reasons N`` reasons printed per pair
(default 6), ``--limit N`` cases per pair (a quick look). Exit status 1 when a pair has no
converter, a failed case or a stale entry.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import time
import tomllib
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

import msgspec

import lucent
from lucent import streams
from lucent._best_error import segments
from lucent.errors import LucentError
from lucent.generated.convert_registry import CONVERTERS, UNREACHABLE
from tests.vendor_corpus import CORPUS, DATA, PROVIDERS, listed

__all__ = [
    "KINDS",
    "VENDORS",
    "Case",
    "Difference",
    "Outcome",
    "Pair",
    "Tally",
    "cases",
    "differences",
    "json_diff",
    "judge_round_trip",
    "lingua_entries",
    "main",
    "mark_stale",
    "missing_converter",
    "pairs",
    "run_case",
    "run_pair",
    "table",
]

VENDORS = ("openai-chat", "openai-responses", "anthropic", "gemini")
KINDS = ("request", "response", "stream")
NAMES = {
    "request": ("request.json", "followup-request.json"),
    "response": ("response.json", "followup-response.json"),
    "stream": ("response-streaming.json", "followup-response-streaming.json"),
}
FOLDER = {fmt: folder for folder, (fmt, *_) in PROVIDERS.items()}
EXPECTED = DATA / "vendor_expected_differences"
LINGUA = DATA / "lingua"
LINGUA_NAME = {"openai-chat": "ChatCompletions", "openai-responses": "Responses", "anthropic": "Anthropic", "gemini": "Google"}
LINGUA_FILE = {"request": "requests", "response": "responses", "stream": "streaming"}
STREAM_CONTEXT: dict[str, Any] = {"id": "resp_corpus", "model": "model-1", "created": 1893456000}
"""What a caller can give a stream conversion to another vendor: the envelope the target's
events carry and a Lux stream does not. A conversion gets only the values it says it lacks."""


# ------------------------------------------------------------------ inputs
@dataclass(frozen=True)
class Case:
    """One recorded document (a stream: the list of its events) of a format and kind."""

    file: str  # relative to CORPUS
    format: str
    kind: str
    value: Any


@cache
def _refused_files() -> frozenset[str]:
    return frozenset(file for file, _ in listed())


@cache
def cases(fmt: str, kind: str) -> tuple[tuple[Case, ...], tuple[str, ...]]:
    """(The cases of ``fmt`` and ``kind`` the source schema accepts, the files it refuses)."""
    found: list[Case] = []
    refused: list[str] = []
    for path in sorted(CORPUS.glob(f"*/{FOLDER[fmt]}/*.json")):
        if path.name not in NAMES[kind]:
            continue
        file = path.relative_to(CORPUS).as_posix()
        if file in _refused_files():
            refused.append(file)
        else:
            found.append(Case(file, fmt, kind, json.loads(path.read_bytes())))
    return tuple(found), tuple(refused)


def definition(fmt: str, kind: str) -> tuple[str, str]:
    """(Schema stem, definition) of a document (a stream: one event) of ``fmt`` and ``kind``."""
    if fmt in FOLDER:
        schema, request, response, event = PROVIDERS[FOLDER[fmt]]
        return schema, {"request": request, "response": response, "stream": event}[kind]
    if kind == "stream":
        from lucent._stream_read import spec

        found = spec(fmt)
        return found.schema, found.definition
    from lucent.generated.convert_registry import DOCUMENTS

    return DOCUMENTS[(fmt, kind)]


# ------------------------------------------------------------------ expected differences
@dataclass(frozen=True)
class Difference:
    """A class of expected round-trip differences (one ``[[difference]]`` entry)."""

    list: str  # the file it is written in
    format: str
    kinds: tuple[str, ...]
    patterns: tuple[str, ...]
    reason: str
    files: tuple[str, ...] | None = None  # None: every recording
    status: str | None = None  # the diagnostic that must report it, if the entry names one
    detail: str | None = None
    name: str | None = None  # the entry's ``class``, a short name

    @property
    def label(self) -> str:
        """How the table names it: the class, else the reason."""
        return self.name or self.reason

    def covers(self, file: str, path: str, diagnostics: Iterable[Any] = ()) -> bool:
        """Whether the entry explains a difference at ``path`` of recording ``file``; an entry
        naming a ``status``/``detail`` also needs such a diagnostic at the path or above it."""
        if self.files is not None and file not in self.files:
            return False
        anywhere = self.list != "streams.toml"
        if not any(_pattern(p, anywhere).match(path) for p in self.patterns):
            return False
        if self.status is None and self.detail is None:
            return True
        return any(
            (path == d.field or path.startswith((d.field + ".", d.field + "[")))
            and self.status in (None, d.status)
            and (self.detail or "") in d.detail
            for d in diagnostics
        )


@cache
def _pattern(pattern: str, anywhere: bool) -> re.Pattern[str]:
    """A pattern as a regular expression: ``[*]`` any index, ``**`` any characters, ``*`` any
    characters (``anywhere``, fnmatch's reading, which the provider lists use) or any within one
    name (streams.toml's); it matches a path or any path below the one it names."""
    out: list[str] = []
    rest = pattern.replace(".**", "**")
    while rest:
        if rest.startswith("[*]"):
            out.append(r"\[[^\]]*\]")
            rest = rest[3:]
        elif rest.startswith("**"):
            out.append(".*")
            rest = rest[2:]
        elif rest[0] == "*":
            out.append(".*" if anywhere else r"[^.\[]*")
            rest = rest[1:]
        else:
            out.append(re.escape(rest[0]))
            rest = rest[1:]
    return re.compile("".join(out) + r"(?=$|[.\[])")


_DIFFERENCE_KEYS = {"format", "kind", "pattern", "patterns", "reason", "files", "status", "detail", "class"}


def _list_file(fmt: str, kind: str, folder: Path) -> Path:
    """``streams.toml`` for streams; else ``<format>.toml`` (``openai_chat.toml`` spelling too)."""
    if kind == "stream":
        return folder / "streams.toml"
    dashed = folder / f"{fmt}.toml"
    return dashed if dashed.is_file() else folder / f"{fmt.replace('-', '_')}.toml"


@cache
def differences(fmt: str, kind: str, folder: Path = EXPECTED) -> tuple[Difference, ...]:
    """The expected differences of the ``fmt`` round trip for ``kind``, in list order."""
    path = _list_file(fmt, kind, folder)
    if not path.is_file():
        return ()
    found = []
    for entry in tomllib.loads(path.read_text(encoding="utf-8")).get("difference", []):
        unknown = set(entry) - _DIFFERENCE_KEYS
        if unknown or "reason" not in entry or not ({"pattern", "patterns"} & set(entry)):
            raise ValueError(f"{path.name}: an entry needs patterns and reason (and may have {', '.join(sorted(_DIFFERENCE_KEYS))}); got {sorted(entry)}")
        kinds = entry.get("kind", ["request", "response"])
        item = Difference(
            path.name,
            entry.get("format", fmt),
            tuple([kinds] if isinstance(kinds, str) else kinds),
            tuple(entry.get("patterns", [])) + ((entry["pattern"],) if "pattern" in entry else ()),
            entry["reason"].strip(),
            tuple(entry["files"]) if "files" in entry else None,
            entry.get("status"),
            entry.get("detail"),
            entry.get("class"),
        )
        if item.format == fmt and (kind == "stream" or kind in item.kinds):
            found.append(item)
    return tuple(found)


def lingua_entries(fmt: str, kind: str, folder: Path = LINGUA) -> int:
    """How many expected differences lingua lists that concern ``fmt``'s provider for ``kind``:
    every ``fields``/``errors`` pattern and every ``skip`` of a rule (global or per test case)
    whose source or target names the provider, or that holds for every pair (``*`` -> ``*``)."""
    document = json.loads((folder / f"{LINGUA_FILE[kind]}_expected_differences.json").read_text(encoding="utf-8"))
    name = LINGUA_NAME[fmt]
    count = 0
    for rule in [*document.get("global", []), *document.get("perTestCase", [])]:
        ends = (rule.get("source"), rule.get("target"))
        if name in ends or ends == ("*", "*"):
            count += len(rule.get("fields", [])) + len(rule.get("errors", [])) + (1 if rule.get("skip") else 0)
    return count


def json_diff(a: Any, b: Any, path: str = "$") -> Iterator[str]:
    """The paths at which two JSON values differ (a member or item on one side only included;
    ``1`` and ``1.0`` are the same JSON number, ``true`` and ``1`` are not)."""
    if isinstance(a, dict) and isinstance(b, dict):
        for key in [*a, *(k for k in b if k not in a)]:
            step = f"{path}.{key}" if re.fullmatch(r"[A-Za-z_][A-Za-z_0-9]*", key) else f"{path}[{json.dumps(key)}]"
            if key not in a or key not in b:
                yield step
            else:
                yield from json_diff(a[key], b[key], step)
    elif isinstance(a, list) and isinstance(b, list):
        for i in range(max(len(a), len(b))):
            if i >= len(a) or i >= len(b):
                yield f"{path}[{i}]"
            else:
                yield from json_diff(a[i], b[i], f"{path}[{i}]")
    elif a != b or isinstance(a, bool) != isinstance(b, bool) or _kind(a) != _kind(b):
        yield path


def _kind(value: Any) -> str:
    """A JSON value's type (``1`` and ``1.0`` are both numbers, as in JSON)."""
    return "number" if isinstance(value, (int, float)) and not isinstance(value, bool) else type(value).__name__


# ------------------------------------------------------------------ pairs
@dataclass(frozen=True)
class Pair:
    """X -> Y for one kind; X -> lux -> X when source == target."""

    source: str
    target: str
    kind: str

    @property
    def round_trip(self) -> bool:
        return self.source == self.target

    @property
    def name(self) -> str:
        return f"{self.source} {self.kind} -> " + ("lux -> same" if self.round_trip else self.target)

    @property
    def unreachable(self) -> dict[str, str]:
        """Target paths the Lux -> target spec declares unreachable, with the reason."""
        return {} if self.kind == "stream" else UNREACHABLE.get(("lux", self.target, self.kind), {})


def pairs(formats: Iterable[str] = VENDORS, kinds: Iterable[str] = KINDS) -> list[Pair]:
    """Every pair: per source format and kind, the round trip, then each other vendor."""
    chosen = list(formats)
    return [Pair(x, y, kind) for x in chosen for kind in kinds for y in (x, *(v for v in VENDORS if v != x))]


def missing_converter(pair: Pair) -> str | None:
    """What is missing to run ``pair`` (None: everything exists)."""
    if pair.kind == "stream":
        gone = [f for f in dict.fromkeys((pair.source, pair.target)) if f not in streams.FORMATS]
        return f"no stream converter for {', '.join(gone)}" if gone else None
    hops = [(pair.source, "lux"), ("lux", pair.target)]
    gone = [f"{a} -> {b}" for a, b in hops if (a, b, pair.kind) not in CONVERTERS]
    return f"no converter {', '.join(dict.fromkeys(gone))}" if gone else None


# ------------------------------------------------------------------ the oracle
@cache
def _oracle() -> Any:
    from tests.conformance.oracle import Oracle

    return Oracle()


@cache
def _root(schema: str) -> Any:
    """jsonschema's validator for a whole schema document (its draft), with ECMA-262 patterns
    and tagged unions dispatched (:func:`_dispatching`)."""
    from jsonschema import Draft7Validator, Draft202012Validator  # type: ignore[import-untyped]
    from jsonschema.validators import extend  # type: ignore[import-untyped]

    from tests.conformance.oracle import format_checker
    from tests.ecma_jsonschema import ecma

    document = _oracle().document(schema)
    cls = ecma(Draft7Validator if "draft-07" in document.get("$schema", "") else Draft202012Validator)
    tags = _Tags({**document.get("definitions", {}), **document.get("$defs", {})})
    keywords = {key: _dispatching(cls.VALIDATORS[key], tags) for key in ("oneOf", "anyOf")}
    return extend(cls, keywords)(document, format_checker=format_checker())


class _Tags:
    """For a union whose branches are each a ``$ref`` to a definition that requires a ``type``
    member with one constant value, distinct per branch: tag -> branch index."""

    def __init__(self, definitions: dict[str, Any]) -> None:
        self.definitions = definitions
        self.tables: dict[int, tuple[Any, dict[str, int] | None]] = {}  # id(branches) -> (branches, table)

    def table(self, branches: list[Any]) -> dict[str, int] | None:
        found = self.tables.get(id(branches))
        if found is None:
            found = self.tables[id(branches)] = (branches, self._build(branches))
        return found[1]

    def _build(self, branches: list[Any]) -> dict[str, int] | None:
        table: dict[str, int] = {}
        for index, branch in enumerate(branches):
            ref = branch.get("$ref", "") if isinstance(branch, dict) else ""
            if set(branch) - {"$ref", "title", "description"} if isinstance(branch, dict) else True:
                return None
            target = self.definitions.get(ref.rsplit("/", 1)[-1]) if ref.startswith(("#/$defs/", "#/definitions/")) else None
            if not isinstance(target, dict) or "type" not in target.get("required", []):
                return None
            tag = target.get("properties", {}).get("type", {})
            values = [tag["const"]] if "const" in tag else tag.get("enum", [])
            if len(values) != 1 or not isinstance(values[0], str) or values[0] in table:
                return None
            table[values[0]] = index
        return table


def _dispatching(original: Any, tags: _Tags) -> Any:
    """``oneOf``/``anyOf`` that, for a tagged union (:class:`_Tags`) and an object whose ``type``
    names one branch, checks that branch alone: every other branch requires another constant
    ``type``, so it refuses the object, and the union's verdict is that branch's. Anything else
    is checked as jsonschema does."""

    def check(validator: Any, branches: Any, instance: Any, schema: Any) -> Iterator[Any]:
        if isinstance(instance, dict) and isinstance(instance.get("type"), str) and isinstance(branches, list):
            table = tags.table(branches)
            index = None if table is None else table.get(instance["type"])
            if index is not None:
                yield from validator.descend(instance, branches[index], schema_path=index)
                return
        yield from original(validator, branches, instance, schema)

    return check


@cache
def _validator(schema: str, name: str) -> Any:
    oracle = _oracle()
    return _root(schema).evolve(schema=oracle.subschema(schema, name if name in _definitions(schema) else None))


@cache
def _definitions(schema: str) -> frozenset[str]:
    document = _oracle().document(schema)
    return frozenset(name for section in ("$defs", "definitions") for name in document.get(section, {}))


def schema_errors(fmt: str, kind: str, value: Any) -> list[str]:
    """jsonschema's faults in ``value`` as a ``fmt`` document of ``kind`` (``"$.a[0].b: required"``
    each), empty when valid. A union of tagged definitions is judged by the branch its ``type``
    tag names (the same verdict, faster: :func:`_dispatching`)."""
    schema, name = definition(fmt, kind)
    validator = _validator(schema, name)
    if validator.is_valid(value):
        return []
    from jsonschema.exceptions import best_match  # type: ignore[import-untyped]

    return [f"{_json_path(error.absolute_path)}: {error.validator}" for error in (best_match([e]) for e in validator.iter_errors(value))]


def _json_path(steps: Iterable[Any]) -> str:
    return "$" + "".join(f"[{s}]" if isinstance(s, int) else f".{s}" for s in steps)


_INDEX = re.compile(r"\[\d+\]")


def _general(path: str) -> str:
    """A path with its indexes as ``[*]`` (a reason counts cases, not positions)."""
    return _INDEX.sub("[*]", path)


# ------------------------------------------------------------------ one case
@dataclass
class Outcome:
    """What became of one case: ``exact``, ``degraded``, ``unreachable`` or ``failed``, with
    the reasons (counted per pair) and the expected-difference entries it needed."""

    status: str
    reasons: list[str] = field(default_factory=list)
    used: set[Difference] = field(default_factory=set)


def _to_json(value: Any) -> Any:
    return json.loads(lucent.encode(value)) if isinstance(value, msgspec.Struct) else msgspec.to_builtins(value)


def _offered() -> dict[str, Any]:
    """The values a caller can give (``tests.convert_conformance.pairs.FIXED_CONTEXT``: what the
    targets require and a source may lack, e.g. Anthropic's ``max_tokens``), and a stream's
    envelope (:data:`STREAM_CONTEXT`)."""
    from tests.convert_conformance.pairs import FIXED_CONTEXT

    return {**FIXED_CONTEXT, **STREAM_CONTEXT}


_SUPPLY = re.compile(r"supply context\['([^']+)'\]")


def _needed(diagnostics: Iterable[Any]) -> dict[str, Any]:
    """The context values a conversion said it lacked that a caller can give: an Invalid
    ``target:$.<member>`` diagnostic names the key (``supply context['created_at']``, the
    converters' wording), else the key is the member."""
    offered = _offered()
    keys = []
    for d in diagnostics:
        if d.status == "Invalid" and d.field.startswith("target:$."):
            named = _SUPPLY.search(d.detail)
            keys.append(named.group(1) if named else re.split(r"[.\[]", d.field.removeprefix("target:$."), maxsplit=1)[0])
    return {key: offered[key] for key in keys if key in offered}


def _as_caller(run: Callable[[Mapping[str, Any] | None], tuple[Any, list[Any]]]) -> tuple[Any, list[Any]]:
    """A conversion as a caller does it: without context first, then, if the target lacks a
    value the caller can give, again with exactly those values (so a context value never
    replaces one the source holds)."""
    output, diagnostics = run(None)
    context = _needed(diagnostics)
    return run(context) if context else (output, diagnostics)


def _stream_round_trip_context(case: Case) -> dict[str, Any]:
    """What the writer of a stream round trip takes from the caller: for a vendor format, the
    envelope its events carry and a Lux stream does not, read from the recorded first event
    (``tests.vendor_streams.round_trip_context``, the streams' own harness)."""
    if case.format not in VENDORS:
        return {}
    from tests.vendor_streams import Stream, round_trip_context

    context: dict[str, Any] = round_trip_context(Stream(case.file, case.format, case.value))
    return context


def _convert(pair: Pair, case: Case) -> tuple[Any, list[Any]]:
    """(The output as JSON, the diagnostics) of one case."""
    if pair.kind == "stream":
        if pair.round_trip:
            lux = streams.convert_stream(case.value, pair.source, "lux")
            events = list(lux)
            back = streams.convert_stream(events, "lux", pair.source, context=_stream_round_trip_context(case))
            return [_to_json(e) for e in back], [*lux.diagnostics, *back.diagnostics]

        def stream(context: Mapping[str, Any] | None) -> tuple[Any, list[Any]]:
            conversion = streams.convert_stream(case.value, pair.source, pair.target, context=context)
            return [_to_json(e) for e in conversion], list(conversion.diagnostics)

        return _as_caller(stream)
    if pair.round_trip:
        first = lucent.convert(case.value, pair.source, "lux", pair.kind)
        second = lucent.convert(first.value, "lux", pair.source, pair.kind)
        return _to_json(second.value), [*first.diagnostics, *second.diagnostics]

    def document(context: Mapping[str, Any] | None) -> tuple[Any, list[Any]]:
        result = lucent.convert(case.value, pair.source, pair.target, pair.kind, context=context)
        return _to_json(result.value), list(result.diagnostics)

    return _as_caller(document)


def _faults(pair: Pair, output: Any) -> list[str]:
    fmt = pair.target
    if pair.kind == "stream":
        return [f"$[{i}]{fault[1:]}" for i, event in enumerate(output) for fault in schema_errors(fmt, "stream", event)]
    return schema_errors(fmt, pair.kind, output)


def run_case(pair: Pair, case: Case, lists: Path = EXPECTED) -> Outcome:
    """Convert one case on one pair and judge it (see the module docstring); ``lists`` is the
    folder of the expected-difference lists."""
    try:
        output, diagnostics = _convert(pair, case)
    except LucentError as error:
        return Outcome("failed", [f"raised {type(error).__name__} {error.code} at {_general(error.path or '$')}"])
    except Exception as error:  # noqa: BLE001 - any other exception is a fault of lucent; counted, not hidden
        return Outcome("failed", [f"raised {type(error).__name__}: {str(error)[:80]}"])
    if pair.round_trip:
        return judge_round_trip(pair, case, output, diagnostics, lists)
    faults = _faults(pair, output)
    if faults:
        named = {d.field for d in diagnostics if d.status == "Invalid" and d.field.startswith("target:")}
        declared = [p for p in pair.unreachable if f"target:{p}" in named]
        beyond = [f for f in faults if not any(f == p or f.startswith((p + ".", p + "[", p + ":")) for p in declared)]
        if beyond:
            return Outcome("failed", _unique(f"invalid at {_general(f)}" for f in beyond))
        return Outcome("unreachable", [f"no valid image: {p}" for p in declared])
    if pair.kind != "stream":
        # a diagnostic names a value of the source document (docs/semantics.md): never a path
        # the source does not have (a side-car member of the Lux document between the hops)
        ghosts = [d.field for d in diagnostics if not d.field.startswith("target:") and not has_path(case.value, d.field)]
        if ghosts:
            return Outcome("failed", _unique(f"a diagnostic names {_general(f)}, which the source does not have" for f in ghosts))
    reasons = _unique(f"{d.status} {_general(d.field)}" for d in diagnostics)
    return Outcome("degraded", reasons) if reasons else Outcome("exact")


def has_path(document: Any, path: str) -> bool:
    """``document`` (JSON) has a value at the JSON path ``path`` (``$.a[0]["b c"]``)."""
    node = document
    for step in segments(path):
        if isinstance(step, int):
            if not isinstance(node, list) or step >= len(node):
                return False
        elif not isinstance(node, dict) or step not in node:
            return False
        node = node[step]
    return True


def _unique(reasons: Iterable[str]) -> list[str]:
    return list(dict.fromkeys(reasons))


def judge_round_trip(pair: Pair, case: Case, output: Any, diagnostics: list[Any], lists: Path = EXPECTED) -> Outcome:
    """The outcome of a round trip that gave ``output`` (JSON) with ``diagnostics`` (both hops)."""
    invalid = _faults(pair, output)
    if invalid:
        return Outcome("failed", _unique(f"invalid at {_general(f)}" for f in invalid))
    table = differences(pair.source, pair.kind, lists)
    used: set[Difference] = set()
    faults = []
    for path in json_diff(case.value, output):
        hits = [d for d in table if d.covers(case.file, path, diagnostics)]
        used.update(hits)
        if not hits:
            faults.append(f"differs at {_general(path)}")
        elif pair.kind != "stream" and not any(path == d.field or path.startswith((d.field + ".", d.field + "[")) for d in diagnostics):
            faults.append(f"differs as listed at {_general(path)}, but no diagnostic names it")
    if faults:
        return Outcome("failed", _unique(faults), used)
    if used:
        return Outcome("degraded", [d.label for d in table if d in used], used)
    return Outcome("exact")


# ------------------------------------------------------------------ one pair
@dataclass
class Tally:
    """The outcomes of one pair."""

    pair: Pair
    lists: Path = EXPECTED
    missing: str | None = None
    refused: int = 0
    counts: Counter[str] = field(default_factory=Counter)
    degraded: Counter[str] = field(default_factory=Counter)
    failed: Counter[str] = field(default_factory=Counter)
    examples: dict[str, str] = field(default_factory=dict)  # failed reason -> first file
    used: set[Difference] = field(default_factory=set)
    total: int = 0  # the cases of the source kind (converted or not)
    stale: list[Difference] = field(default_factory=list)  # set by mark_stale

    @property
    def cases(self) -> int:
        return self.total

    @property
    def passed(self) -> bool:
        return self.missing is None and not self.counts["failed"]


def run_pair(pair: Pair, limit: int | None = None, lists: Path = EXPECTED, found: Iterable[Case] | None = None) -> Tally:
    """Every case of the pair's source and kind (the first ``limit``; ``found``: these cases
    instead of the corpus), judged against the lists in ``lists``."""
    tally = Tally(pair, lists, missing_converter(pair))
    corpus, refused = cases(pair.source, pair.kind) if found is None else (tuple(found), ())
    tally.refused = len(refused)
    chosen = corpus[:limit]
    tally.total = len(chosen)
    if tally.missing:
        return tally
    for case in chosen:
        outcome = run_case(pair, case, lists)
        tally.counts[outcome.status] += 1
        tally.used |= outcome.used
        target = tally.failed if outcome.status == "failed" else tally.degraded
        for reason in outcome.reasons:
            target[reason] += 1
            if outcome.status == "failed":
                tally.examples.setdefault(reason, case.file)
    return tally


def mark_stale(tallies: Iterable[Tally]) -> list[Difference]:
    """Set each round trip's ``stale``: the entries of its list that no round trip of the same
    format needed (an entry for both kinds is judged once both ran); returns them all."""
    tallies = [t for t in tallies if t.pair.round_trip and not t.missing]
    ran = {(t.pair.source, t.pair.kind) for t in tallies}
    used: set[Difference] = set().union(*(t.used for t in tallies))
    found: list[Difference] = []
    for t in tallies:
        fmt = t.pair.source
        t.stale = [
            d for d in differences(fmt, t.pair.kind, t.lists)
            if d not in used and (t.pair.kind == "stream" or all((fmt, k) in ran for k in d.kinds))
        ]
        found += [d for d in t.stale if d not in found]
    return found


# ------------------------------------------------------------------ the table
HEADER = f"{'pair':44} {'cases':>6} {'refused':>7} {'exact':>6} {'degraded':>8} {'no image':>8} {'failed':>6}  differences listed (lucent/lingua)"


def table(tallies: Iterable[Tally], reasons: int = 6) -> list[str]:
    """One row per pair, then the reasons counted for each pair that has any."""
    tallies = list(tallies)
    lines = [HEADER, "-" * len(HEADER)]
    for t in tallies:
        p = t.pair
        if t.missing:
            lines.append(f"{p.name:44} {t.cases:>6} {t.refused:>7}  {t.missing}")
            continue
        listed_ = f"{len(differences(p.source, p.kind, t.lists))}/{lingua_entries(p.source, p.kind)}" if p.round_trip else ""
        stale = f", {len(t.stale)} stale" if t.stale else ""
        row = f"{p.name:44} {t.cases:>6} {t.refused:>7} {t.counts['exact']:>6} {t.counts['degraded']:>8} "
        lines.append(row + f"{t.counts['unreachable'] if p.unreachable else '-':>8} {t.counts['failed']:>6}  {listed_}{stale}")
    lines.append("(refused: recordings the source schema refuses, listed in vendor_corpus_failures.toml; no image: declared unreachable)")
    for t in tallies:
        if t.missing or not (t.degraded or t.failed or t.stale):
            continue
        lines.append("")
        lines.append(f"{t.pair.name}:")
        for label, counter in (("failed", t.failed), ("degraded", t.degraded)):
            for reason, count in counter.most_common(reasons):
                where = f"  (e.g. {t.examples[reason]})" if label == "failed" else ""
                lines.append(f"  {label:8} {count:>5}  {' '.join(reason.split())[:150]}{where}")
            if len(counter) > reasons:
                lines.append(f"  {label:8}   ...  {len(counter) - reasons} more reasons")
        for entry in t.stale:
            lines.append(f"  stale    {entry.list}: {', '.join(entry.patterns)}: no case needs it")
    return lines


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tests.vendor_convert_corpus", description=__doc__.split("\n\n")[0])
    parser.add_argument("--format", action="append", choices=VENDORS, help="source format (repeatable; default all)")
    parser.add_argument("--kind", action="append", choices=KINDS, help="kind (repeatable; default all)")
    parser.add_argument("--reasons", type=int, default=6, help="reasons printed per pair and status (default 6)")
    parser.add_argument("--limit", type=int, default=None, help="at most N cases per pair (stale entries are then not judged)")
    args = parser.parse_args(argv)
    started = time.perf_counter()
    tallies = []
    for pair in pairs(args.format or VENDORS, args.kind or KINDS):
        tally = run_pair(pair, args.limit)
        tallies.append(tally)
    if args.limit is None:  # a partial run judges no entry stale
        mark_stale(tallies)
    for line in table(tallies, args.reasons):
        print(line)
    ran = [t for t in tallies if not t.missing]
    failed = [t for t in ran if not t.passed or t.stale]
    print(
        f"\n{len(ran)} of {len(tallies)} pairs have converters ({len(tallies) - len(ran)} print 'no converter'); "
        f"{len(failed)} with failed cases or stale entries; {sum(t.cases for t in ran)} cases converted in {time.perf_counter() - started:.0f} s"
    )
    return 0 if len(ran) == len(tallies) and not failed else 1


if __name__ == "__main__":
    sys.exit(main())
