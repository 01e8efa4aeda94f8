"""docs/mappings.md lists every status a rule's transform reports on the corpus (issue 15).

Each transform declares the statuses it reports itself with ``@reports(...)``
(lucent/_conversion.py); codegen writes them into the Status column of every rule that names the
transform (``T may report S``) and into the Transforms table. This test converts the recorded
corpus (tests/vendor_convert_corpus.py: the request and response documents of every vendor
format) to Lux, the Lux documents to every other format, and the SparkTide, llm-sdk and htmlp
documents so made back to Lux: every pair of docs/mappings.md but the error ones. Every transform
of the vocabulary is wrapped while it runs, and a diagnostic recorded (``Cx.report``) inside a call
that the generated converter made is the rule's: its status must be one the pair's rows that name
the transform list. A diagnostic the generated code records outside a transform (a rule's own
``status``, a bound, an undeclared source field, a context value) is mapped to its rows by the
spec's ``reason`` its detail holds (the row's Note), or by the context key it names (the row's
Source ``context.KEY``), and its status must be one they list; the few that name neither (a Lux
side-car member no rule reads) are not judged.

The corpus does not reach every branch, so a second test reads the code: every status literal a
transform's body (and the module constants, helpers and Cx methods it reaches) holds must be in
its ``@reports`` (an over-approximation: a status it only compares against counts too).

Run time: the corpus has a few hundred documents; every one is converted through every pair
(about 2,500 conversions, under 10 s on a loaded 2-core machine), none sampled.
"""

from __future__ import annotations

import ast
import copy
import functools
import importlib
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

import lucent
from lucent._context import read_by
from lucent._conversion import Cx
from lucent.errors import LucentError
from lucent.generated.convert_registry import MODULES
from tests.convert_conformance.pairs import FIXED_CONTEXT
from tests.vendor_convert_corpus import VENDORS, cases

DOCS = Path(__file__).resolve().parents[1] / "docs" / "mappings.md"
STATUS_WORD = re.compile(r"\b(Exact|Degraded|Unsupported|Invalid)\b")
PAIR_LINE = re.compile(r'`lucent\.convert\(data, "([^"]+)", "([^"]+)", kind="([^"]+)"\)`')
TRANSFORM_ROW = re.compile(r"^\| `([A-Za-z_]\w*)` \| [a-z_]+ \|")
MODULE_NAMES = ["lucent._transforms"] + [
    f"lucent.formats.{p.parent.name}.transforms" for p in sorted((Path(lucent.__file__).parent / "formats").glob("*/transforms.py"))
]
SEED = ("sparktide", "llm-sdk", "htmlp")


@dataclass(frozen=True)
class Reported:
    """One diagnostic a transform recorded: the pair converting, the transform the generated
    converter called (the outermost one running), its status, field and detail."""

    pair: tuple[str, str, str]
    transform: str
    status: str
    field: str
    detail: str


def doc_rows(text: str) -> tuple[dict[tuple[str, str, str], list[tuple[str, str, str, str]]], list[str]]:
    """(pair (source, target, kind) -> its rows as (rule, status, source, note) text; the transform names of
    the Transforms table) read from docs/mappings.md."""
    rows: dict[tuple[str, str, str], list[tuple[str, str, str, str]]] = {}
    names: list[str] = []
    pair: tuple[str, str, str] | None = None
    for line in text.splitlines():
        found = PAIR_LINE.search(line)
        if found:
            pair = (found.group(1), found.group(2), found.group(3))
            rows[pair] = []
        elif line.startswith("## Transforms"):
            pair = None
        elif (named := TRANSFORM_ROW.match(line)) and pair is None:
            names.append(named.group(1))
        elif pair is not None and line.startswith("| ") and not line.startswith(("| Mapping", "| ---")):
            cells = [c.strip() for c in re.split(r"(?<!\\)\|", line)[1:-1]]
            rows[pair].append((cells[3], cells[4], cells[1].strip("`"), cells[5].replace("\\|", "|")))
    return rows, names


def allowed(rows: list[tuple[str, str, str, str]], transform: str) -> set[str]:
    """The statuses the rows that name `transform` (in their rule or status text) list."""
    word = re.compile(rf"(?<![\w`]){re.escape(transform)}(?!\w)")
    return {s for rule, status, *_ in rows if word.search(rule) or word.search(status) for s in STATUS_WORD.findall(status)}


def undocumented(reported: list[Reported], rows: dict[tuple[str, str, str], list[tuple[str, str, str, str]]]) -> list[str]:
    """One line per (pair, transform, status) reported that no row of the pair naming the
    transform lists, with an example field and detail."""
    out: dict[tuple[tuple[str, str, str], str, str], str] = {}
    for r in reported:
        key = (r.pair, r.transform, r.status)
        if key not in out and r.status not in allowed(rows.get(r.pair, []), r.transform):
            out[key] = f"{r.pair[0]} -> {r.pair[1]} ({r.pair[2]}): {r.transform} reported {r.status} at {r.field} ({r.detail[:120]})"
    return sorted(out.values())


CONTEXT_KEY = re.compile(r"context\['([^']+)'\]")


def spec_rows(rows: list[tuple[str, str, str, str]], detail: str) -> list[str]:
    """The Status text of the rows a diagnostic the generated code recorded (outside a
    transform) is for: those whose note (the spec's ``reason``) its detail holds, or, for a
    context value (``context['model']``), those that read that context key."""
    key = CONTEXT_KEY.search(detail)
    return [status for _, status, source, note in rows
            if (note and note in detail) or (key and f"context.{key.group(1)}" in source.split(", "))]


def unlisted_spec_statuses(outside: list[Reported], rows: dict[tuple[str, str, str], list[tuple[str, str, str, str]]]) -> tuple[list[str], int]:
    """(One line per (pair, status, detail) the generated code reported whose rows do not list
    the status; how many diagnostics matched a row). A diagnostic no row matches (a side-car
    member no rule reads: "no value at this Lux path of the target reads it") is not judged."""
    out: dict[tuple[tuple[str, str, str], str, str], str] = {}
    matched = 0
    for r in outside:
        statuses = spec_rows(rows.get(r.pair, []), r.detail)
        if not statuses:
            continue
        matched += 1
        if r.status not in {s for status in statuses for s in STATUS_WORD.findall(status)}:
            out.setdefault((r.pair, r.status, r.detail), f"{r.pair[0]} -> {r.pair[1]} ({r.pair[2]}): {r.status} at {r.field} ({r.detail[:120]}); rows: {statuses}")
    return sorted(out.values()), matched


class Recorder:
    """Wraps every transform of the vocabulary (the module attributes the generated converters
    call) and Cx.report, recording what is reported inside the outermost transform call."""

    def __init__(self, names: list[str]) -> None:
        self.names = set(names)
        self.stack: list[str] = []
        self.pair: tuple[str, str, str] = ("", "", "")
        self.reported: list[Reported] = []
        self.outside: list[Reported] = []

    def install(self, monkeypatch: pytest.MonkeyPatch) -> None:
        for module_name in MODULE_NAMES:
            module = importlib.import_module(module_name)
            for name in self.names:
                fn = module.__dict__.get(name)
                if callable(fn) and not isinstance(fn, type):
                    monkeypatch.setattr(module, name, self._wrap(name, fn))
        report = Cx.report
        recorder = self

        def recording(cx: Cx, field: str, status: Any, detail: str) -> None:
            if recorder.stack:
                recorder.reported.append(Reported(recorder.pair, recorder.stack[0], status, field, detail))
            else:
                recorder.outside.append(Reported(recorder.pair, "", status, field, detail))
            report(cx, field, status, detail)

        monkeypatch.setattr(Cx, "report", recording)

    def _wrap(self, name: str, fn: Callable[..., Any]) -> Callable[..., Any]:
        stack = self.stack

        @functools.wraps(fn)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            stack.append(name)
            try:
                return fn(*args, **kwargs)
            finally:
                stack.pop()

        return wrapper

    def convert(self, data: Any, source: str, target: str, kind: str) -> Any:
        """lucent.convert on one direct pair; the value, or None when it raises."""
        self.pair = (source, target, kind)
        context = read_by(FIXED_CONTEXT, source, target, kind) if source in SEED or target in SEED else None
        try:
            return lucent.convert(data, source, target, kind, context=context).value
        except LucentError:
            return None


def corpus_conversions(recorder: Recorder) -> Iterator[tuple[str, str, str]]:
    """Convert the corpus through every pair (see the module docstring); yield each pair run."""
    targets = sorted({t for s, t, _ in MODULES if s == "lux"})
    for fmt in VENDORS:
        for kind in ("request", "response"):
            for case in cases(fmt, kind)[0]:
                lux = recorder.convert(case.value, fmt, "lux", kind)
                yield (fmt, "lux", kind)
                if lux is None:
                    continue
                for target in targets:
                    if target == fmt or ("lux", target, kind) not in MODULES:
                        continue
                    value = recorder.convert(lux, "lux", target, kind)
                    yield ("lux", target, kind)
                    if value is not None and target in SEED and (target, "lux", kind) in MODULES:
                        recorder.convert(value, target, "lux", kind)
                        yield (target, "lux", kind)


@pytest.fixture(scope="module")
def docs() -> tuple[dict[tuple[str, str, str], list[tuple[str, str, str, str]]], list[str]]:
    return doc_rows(DOCS.read_text(encoding="utf-8"))


def test_every_status_a_transform_reports_on_the_corpus_is_in_its_rules_row(docs: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    rows, names = docs
    recorder = Recorder(names)
    recorder.install(monkeypatch)
    ran = set(corpus_conversions(recorder))
    assert {k for k in MODULES if k[2] != "error"} <= ran, "every pair but the error ones is converted"
    assert len(recorder.reported) > 100, "the corpus makes the transforms report"
    missing = undocumented(recorder.reported, rows)
    assert not missing, "statuses a transform reports that docs/mappings.md does not list for its rule " \
        "(declare them with @reports on the transform, then python -m codegen):\n" + "\n".join(missing)
    unlisted, matched = unlisted_spec_statuses(recorder.outside, rows)
    assert matched > len(recorder.outside) // 2, "most diagnostics of the generated code name their rule's reason or context key"
    assert not unlisted, "statuses the generated code reports that the rule's row does not list:\n" + "\n".join(unlisted)


def test_the_docs_name_each_transforms_declared_statuses(docs: Any) -> None:
    rows, _ = docs
    chat = rows[("openai-chat", "lux", "request")]
    assert ("content via chat_user_content", "Exact; chat_user_content may report Degraded", "ChatCompletionRequestUserMessage.content", "") in chat
    assert allowed(chat, "chat_user_content") == {"Exact", "Degraded"}


def test_a_status_no_row_of_the_transform_lists_is_named() -> None:
    rows = {("a", "lux", "request"): [("content via shown_parts", "Exact; shown_parts may report Degraded", "A.content", ""),
                                       ("tools via parts_shown", "Exact", "A.tools", ""),
                                       ("seed", "Unsupported when present", "A.seed", "Lux has no seed"),
                                       ("model", "Invalid when missing", "context.model, A.model", "")]}
    pair = ("a", "lux", "request")
    reported = [
        Reported(pair, "shown_parts", "Degraded", "$.content[1]", "kept verbatim"),
        Reported(pair, "shown_parts", "Unsupported", "$.content[2]", "dropped"),
        Reported(pair, "parts_shown", "Degraded", "$.tools[0]", "folded"),
    ]
    assert undocumented(reported, rows) == [
        "a -> lux (request): parts_shown reported Degraded at $.tools[0] (folded)",
        "a -> lux (request): shown_parts reported Unsupported at $.content[2] (dropped)",
    ]
    assert undocumented([Reported(("b", "lux", "request"), "shown_parts", "Degraded", "$", "x")], rows)
    outside = [
        Reported(pair, "", "Unsupported", "$.seed", "Lux has no seed"),
        Reported(pair, "", "Degraded", "$.seed", "Lux has no seed"),
        Reported(pair, "", "Degraded", "$.model", "replaced by the caller's context['model']"),
        Reported(pair, "", "Unsupported", "$.x", "no value at this Lux path of the target reads it"),
    ]
    unlisted, matched = unlisted_spec_statuses(outside, rows)
    assert matched == 3
    assert [line.split(" (")[1].split(")")[1] for line in unlisted] == [": Degraded at $.model", ": Degraded at $.seed"]


# ------------------------------------------------------------- the declarations against the code
STATUS_LITERALS = {"Degraded", "Unsupported", "Invalid"}
ANALYSED = ["lucent._conversion", "lucent._validation", *MODULE_NAMES]


def _source(module_name: str) -> Path:
    return Path(lucent.__file__).parent.joinpath(*module_name.split(".")[1:]).with_suffix(".py")


def _without_types(node: ast.AST) -> ast.AST:
    """A copy of a function without its annotations and ``cast`` types (``Status`` names every status)."""
    node = copy.deepcopy(node)
    for sub in ast.walk(node):
        if isinstance(sub, ast.arg):
            sub.annotation = None
        elif isinstance(sub, (ast.FunctionDef, ast.AsyncFunctionDef)):
            sub.returns = None
        elif isinstance(sub, ast.AnnAssign):
            sub.annotation = ast.Constant(None)
        elif isinstance(sub, ast.Call) and isinstance(sub.func, ast.Name) and sub.func.id == "cast" and sub.args:
            sub.args[0] = ast.Constant(None)
    return node


def reachable_statuses() -> dict[tuple[str, str], set[str]]:
    """(module, function) -> the status literals its body, the module constants it reads and the
    functions and Cx methods it calls (transitively, within ANALYSED) hold: what it can report,
    over-approximated."""
    own: dict[tuple[str, str], tuple[set[str], set[tuple[str, str]]]] = {}
    constants: dict[tuple[str, str], set[str]] = {}

    def literals(node: ast.AST) -> set[str]:
        return {n.value for n in ast.walk(node) if isinstance(n, ast.Constant) and n.value in STATUS_LITERALS}

    for module_name in ANALYSED:
        tree = ast.parse(_source(module_name).read_text(encoding="utf-8"))
        imported: dict[str, tuple[str, ...]] = {}
        for node in tree.body:
            if isinstance(node, ast.ImportFrom) and node.module:
                for alias in node.names:
                    if node.module in ANALYSED:
                        imported[alias.asname or alias.name] = ("function", node.module, alias.name)
                    elif f"{node.module}.{alias.name}" in ANALYSED:
                        imported[alias.asname or alias.name] = ("module", f"{node.module}.{alias.name}")
            elif isinstance(node, (ast.Assign, ast.AnnAssign)) and node.value is not None:
                for target in node.targets if isinstance(node, ast.Assign) else [node.target]:
                    if isinstance(target, ast.Name):
                        constants[(module_name, target.id)] = literals(node.value)

        def scan(fn: ast.AST, cls: str | None = None) -> tuple[set[str], set[tuple[str, str]]]:
            fn = _without_types(fn)
            calls: set[tuple[str, str]] = set()
            for n in ast.walk(fn):
                if isinstance(n, ast.Name):
                    found = imported.get(n.id)
                    calls.add((found[1], found[2]) if found and found[0] == "function" else (module_name, n.id))
                elif isinstance(n, ast.Attribute) and isinstance(n.value, ast.Name):
                    if n.value.id == "cx" or (n.value.id == "self" and cls == "Cx"):
                        calls.add(("lucent._conversion", f"Cx.{n.attr}"))
                    elif n.value.id == "self":
                        calls.add((module_name, f"{cls}.{n.attr}"))
                    elif (found := imported.get(n.value.id)) and found[0] == "module":
                        calls.add((found[1], n.attr))
            return literals(fn), calls

        for node in tree.body:
            if isinstance(node, ast.FunctionDef):
                own[(module_name, node.name)] = scan(node)
            elif isinstance(node, ast.ClassDef):
                methods = [s for s in node.body if isinstance(s, ast.FunctionDef)]
                for method in methods:
                    own[(module_name, f"{node.name}.{method.name}")] = scan(method, node.name)
                own[(module_name, node.name)] = (set(), {(module_name, f"{node.name}.{m.name}") for m in methods})
    found = {key: set(lits) for key, (lits, _) in own.items()}
    changed = True
    while changed:
        changed = False
        for key, (_, calls) in own.items():
            for call in calls:
                more = found.get(call, set()) | constants.get(call, set())
                if not more <= found[key]:
                    found[key] |= more
                    changed = True
    return found


def test_each_transform_declares_every_status_its_code_can_report(docs: Any) -> None:
    _, names = docs
    reachable = reachable_statuses()
    undeclared = []
    for module_name in MODULE_NAMES:
        module = importlib.import_module(module_name)
        for name in names:
            fn = module.__dict__.get(name)
            if not callable(fn) or isinstance(fn, type) or fn.__module__ != module_name:
                continue
            missing = reachable.get((module_name, name), set()) - set(getattr(fn, "reports", ()))
            if missing:
                undeclared.append(f"{module_name}.{name}: {', '.join(sorted(missing))}")
    assert undeclared == [], "transforms whose code can report a status their @reports leaves out:\n" + "\n".join(undeclared)
