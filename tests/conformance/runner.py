"""Run the oracle and lucent side by side and count what they say.

`Runner.run_kind` judges, for one top-level kind, ``count`` valid documents
and ``mutations`` single mutations; `Runner.run_corpus` judges the corpus.
Every disagreement is either explained by a listed departure (`departures`)
or kept as a `Finding`, with the shortest input of its sort.
"""

from __future__ import annotations

import itertools
import random
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from . import coverage
from .corpus import Document
from .departures import Case, explain
from .generate import close_tool_arguments, draw, independent_strategy, named_seed, strategy
from .kinds import Kind
from .mutations import Mutation, candidates
from .oracle import Oracle, parse_json, verdict_of
from .probes import probes
from .spelling import STYLES, spell
from .subject import Subject
from .verdict import Verdict

__all__ = ["CorpusTally", "Finding", "Runner", "Tally"]


@dataclass(frozen=True)
class Finding:
    """An unexplained disagreement (or a drawn value the oracle refused)."""

    source: str
    op: str
    case: Case


@dataclass
class Tally:
    """The counts for one top-level kind (or a sum of them)."""

    schema: str
    kind: str
    valid: int = 0
    accepted: int = 0
    mutations: int = 0
    refused: int = 0
    refused_by_lucent: int = 0
    agree: int = 0
    both_refused: int = 0
    same_path: int = 0
    listed: Counter[str] = field(default_factory=Counter)
    findings: list[Finding] = field(default_factory=list)
    drawn_invalid: list[Finding] = field(default_factory=list)
    hit: set[coverage.Site] = field(default_factory=set)
    reachable: set[coverage.Site] = field(default_factory=set)
    ops: Counter[str] = field(default_factory=Counter)
    skipped: int = 0

    @property
    def judged(self) -> int:
        """Documents judged: valid ones and mutations."""
        return self.valid + self.mutations

    def add(self, other: Tally) -> None:
        """Add another tally's counts into this one."""
        for name in (
            "valid",
            "accepted",
            "mutations",
            "refused",
            "refused_by_lucent",
            "agree",
            "both_refused",
            "same_path",
        ):
            setattr(self, name, getattr(self, name) + getattr(other, name))
        self.listed.update(other.listed)
        self.ops.update(other.ops)
        self.findings.extend(other.findings)
        self.drawn_invalid.extend(other.drawn_invalid)
        self.hit |= other.hit
        self.reachable |= other.reachable


@dataclass
class CorpusTally:
    """The counts for the corpus documents."""

    documents: int = 0
    oracle_valid: int = 0
    agree: int = 0
    indexed: int = 0
    index_oracle: int = 0
    index_lucent: int = 0
    listed: Counter[str] = field(default_factory=Counter)
    findings: list[Finding] = field(default_factory=list)
    index_misses: list[str] = field(default_factory=list)


class Runner:
    """Judges documents with the oracle and lucent and tallies the verdicts.

    Parameters
    ----------
    oracle : Oracle
        The jsonschema oracle.
    subject : Subject
        lucent with its protocol rules.
    schema_subject : Subject, optional
        lucent with ``rules="schema"``; when given, a protocol departure only
        counts as listed if lucent without its protocol rules agrees with the
        oracle.
    seed : int
        Makes drawing, spelling and mutation choice reproducible.
    """

    def __init__(self, oracle: Oracle, subject: Subject, schema_subject: Subject | None = None, seed: int = 0) -> None:
        self.oracle = oracle
        self.subject = subject
        self.schema_subject = schema_subject
        self.seed = seed

    def case(self, schema: str, definition: str | None, data: bytes) -> tuple[Case, Any]:
        """Judge one document; also returns the oracle's best_match error."""
        error = None
        try:
            parsed = parse_json(data)
        except ValueError as exc:
            oracle = Verdict(False, (), "malformed_json", str(exc))
        else:
            error = self.oracle.best_error(schema, definition, parsed)
            oracle = verdict_of(error)
        subject = self.subject.judge(schema, definition, data)
        schema_only = None
        if self.schema_subject is not None and oracle.valid != subject.valid:
            schema_only = self.schema_subject.judge(schema, definition, data)
        return Case(schema, definition, data, oracle, subject, schema_only), error

    def _record(self, tally: Tally | CorpusTally, case: Case, source: str, op: str) -> None:
        if case.agrees:
            tally.agree += 1
            return
        departure = explain(case, self.oracle)
        if departure is not None:
            tally.listed[departure.id] += 1
        else:
            tally.findings.append(Finding(source, op, case))

    def run_kind(self, kind: Kind, count: int, mutations: int) -> Tally:
        """Judge *count* valid documents and *mutations* mutations of one kind."""
        rng = random.Random(f"{self.seed}:{kind.schema}:{kind.label}")
        tally = Tally(kind.schema, kind.label)
        tally.reachable = coverage.universe(self.oracle, kind.schema, kind.definition)
        values = draw(strategy(kind.schema, kind.definition), count, named_seed(self.seed, kind.schema, kind.label))
        if kind.schema == "sparktide-remote-1.0":
            values = [close_tool_arguments(v, rng) for v in values]
        for i, value in zip(range(count), itertools.cycle(values)):
            data = spell(value, STYLES[i % len(STYLES)], rng)
            case, _ = self.case(kind.schema, kind.definition, data)
            tally.valid += 1
            tally.accepted += case.subject.valid
            if case.oracle.valid:
                self._record(tally, case, "valid", "drawn")
            else:  # the strategies drew an invalid value: a codegen.strategies bug
                tally.drawn_invalid.append(Finding("valid", "drawn", case))
        for op, targets, data in self._mutations(kind, values, mutations, rng):
            case, error = self.case(kind.schema, kind.definition, data)
            tally.mutations += 1
            tally.ops[op] += 1
            tally.refused += not case.oracle.valid
            tally.refused_by_lucent += not case.subject.valid
            if not case.oracle.valid and not case.subject.valid:
                tally.both_refused += 1
                tally.same_path += case.oracle.path == case.subject.path
            if error is not None:
                tally.hit |= self._broken(kind, data, error, targets)
            self._record(tally, case, "mutation", op)
        return tally

    def run_independent(self, kind: Kind, count: int) -> Tally | None:
        """Judge *count* documents drawn by hypothesis-jsonschema (None where it cannot).

        Drawn values the oracle refuses are skipped (``Tally.skipped``), not judged.
        """
        strat = independent_strategy(kind.schema, kind.definition)
        if strat is None:
            return None
        rng = random.Random(f"{self.seed}:independent:{kind.schema}:{kind.label}")
        tally = Tally(kind.schema, kind.label)
        for i, value in enumerate(draw(strat, count, named_seed(self.seed, "independent", kind.schema, kind.label))):
            if kind.schema == "sparktide-remote-1.0":
                value = close_tool_arguments(value, rng)
            case, _ = self.case(kind.schema, kind.definition, spell(value, STYLES[i % len(STYLES)], rng))
            if not case.oracle.valid:
                tally.skipped += 1
                continue
            tally.valid += 1
            tally.accepted += case.subject.valid
            self._record(tally, case, "independent", "drawn")
        return tally

    def _broken(self, kind: Kind, data: bytes, error: Any, targets: set[coverage.Site]) -> set[coverage.Site]:
        """The sites a refused mutation broke: best_match's, and the targeted ones that failed."""
        broken = {coverage.site_of(self.oracle, kind.schema, kind.definition, error)}
        if targets - broken:
            errors = list(self.oracle.errors(kind.schema, kind.definition, parse_json(data)))
            broken |= targets & coverage.error_sites(self.oracle, kind.schema, kind.definition, errors)
        return broken

    def _mutations(
        self, kind: Kind, values: list[Any], wanted: int, rng: random.Random
    ) -> list[tuple[str, set[coverage.Site], bytes]]:
        """Pick *wanted* distinct mutations, round-robin over what they break.

        Each comes with the keyword sites it targets (none for text probes).
        """
        pointer = self.oracle.pointer(kind.schema, kind.definition)
        groups: dict[tuple[str, ...], list[tuple[str, Any]]] = {}
        for index in self._walked(kind, values, max(20, wanted // 8)):
            value = values[index]
            for mutation in candidates(self.oracle, kind.schema, pointer, value):
                groups.setdefault(mutation.group, []).append((f"{mutation.keyword}:{mutation.op}", (index, mutation)))
            for op, data in probes(kind.schema, value, rng, sized=index == 0):
                groups.setdefault(("text", op), []).append((f"text:{op}", data))
        for members in groups.values():
            rng.shuffle(members)
        chosen: dict[bytes, tuple[str, set[coverage.Site]]] = {}
        order = sorted(groups)
        while len(chosen) < wanted and any(groups.values()):
            for key in order:
                if not groups[key] or len(chosen) >= wanted:
                    continue
                op, item = groups[key].pop()
                if isinstance(item, bytes):
                    data, targets = item, set()
                else:
                    data = self._spell_mutation(values, item, rng, len(chosen))
                    targets = {(item[1].pointer, item[1].keyword)}
                # The same text can break several sites (a whole tagged union replaced by 7).
                chosen.setdefault(data, (op, set()))[1].update(targets)
        return [(op, targets, data) for data, (op, targets) in chosen.items()]

    def _walked(self, kind: Kind, values: list[Any], first: int) -> list[int]:
        """The values to mutate: the *first* ones, then any that shows something new.

        "New" is a property path, or a schema constant at a path (a branch of a
        tagged union), that no value chosen so far has.
        """
        constants, names = _vocabulary(reached(self.oracle.document(kind.schema), self.oracle.subschema(kind.schema, kind.definition)))
        seen: set[str] = set()
        chosen: list[int] = []
        for index, value in enumerate(values):
            marks = _fingerprint(value, constants, names)
            if index < first or not marks <= seen:
                chosen.append(index)
                seen |= marks
        return chosen

    @staticmethod
    def _spell_mutation(values: list[Any], item: tuple[int, Mutation], rng: random.Random, n: int) -> bytes:
        index, mutation = item
        return spell(mutation.edit(values[index]), STYLES[n % len(STYLES)], rng)

    def run_corpus(self, documents: list[Document]) -> CorpusTally:
        """Judge the corpus; INDEX verdicts must be reproduced by both judges."""
        tally = CorpusTally()
        for document in documents:
            case, _ = self.case(document.schema, document.definition, document.data)
            tally.documents += 1
            tally.oracle_valid += case.oracle.valid
            self._record(tally, case, "corpus", document.name)
            if document.index_valid is None:
                continue
            tally.indexed += 1
            for judge, verdict in (("oracle", case.oracle), ("lucent", case.subject)):
                if verdict.valid == document.index_valid and verdict.json_path == document.index_path:
                    setattr(tally, f"index_{judge}", getattr(tally, f"index_{judge}") + 1)
                else:
                    said = f"{verdict.json_path} ({verdict.code})"
                    tally.index_misses.append(f"{judge}: {document.name}: {said}, INDEX says {document.index_path}")
        return tally


def reached(document: Any, node: Any) -> list[Any]:
    """*node* and every definition of *document* it reaches through local ``$ref``s
    (``#/$defs/X``, ``#/definitions/X``), each once: the part of a schema one kind depends on."""
    found: list[Any] = [node]
    seen: set[str] = set()
    stack = [node]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            ref = item.get("$ref")
            if isinstance(ref, str) and ref.startswith("#/") and ref not in seen:
                seen.add(ref)
                target: Any = document
                for part in ref[2:].split("/"):
                    target = target.get(part.replace("~1", "/").replace("~0", "~")) if isinstance(target, dict) else None
                if target is not None:
                    found.append(target)
                    stack.append(target)
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return found


def _vocabulary(document: Any) -> tuple[set[str], set[str]]:
    """The strings a schema names in ``const``/``enum``, and its property names."""
    constants: set[str] = set()
    names: set[str] = set()
    stack = [document]
    while stack:
        node = stack.pop()
        if isinstance(node, dict):
            if isinstance(node.get("const"), str):
                constants.add(node["const"])
            constants.update(v for v in node.get("enum", ()) if isinstance(v, str))
            if isinstance(node.get("properties"), dict):
                names.update(node["properties"])
            stack.extend(node.values())
        elif isinstance(node, list):
            stack.extend(node)
    return constants, names


def _fingerprint(value: Any, constants: set[str], names: set[str], path: str = "$") -> set[str]:
    """Declared property paths (indices left out) and the schema constants found at them."""
    marks: set[str] = set()
    if isinstance(value, dict):
        for name, item in value.items():
            if name not in names:
                continue
            where = f"{path}.{name}"
            marks.add(where)
            if isinstance(item, str) and item in constants:
                marks.add(f"{where}={item}")
            marks |= _fingerprint(item, constants, names, where)
    elif isinstance(value, list):
        for item in value:
            marks |= _fingerprint(item, constants, names, f"{path}[]")
    return marks
