"""The checks of one input on one pair: validity, conservation, round trip.

Each input is converted once (source -> target); the output is judged by the oracle, and
converted back once (target -> source), which both the conservation check (a value that comes
back at its own path was carried) and the round trip (for pairs with Lux on one side) read.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

import lucent
from tests.conservation import without_empty_members
from lucent.errors import LucentError
from tests.conservation import leaves, lost_values

from .inputs import Input
from .pairs import Pair, context_for
from .validity import Validity

__all__ = ["Failure", "Outcome", "Tally", "check", "json_equal"]

_INDEX = re.compile(r"\[\d+\]")


def shape(path: str) -> str:
    """A JSON path with its array indexes as ``[*]``: failures of one shape are one fault."""
    return _INDEX.sub("[*]", path)




@dataclass(frozen=True)
class Failure:
    """One missed bar on one input.

    Attributes
    ----------
    check : str
        ``raised`` (convert raised), ``invalid`` (the output breaks the target schema), ``lost``
        (a source leaf neither carried nor named) or ``round-trip`` (all Exact, not equal).
    signature : str
        What failed, with array indexes as ``[*]``: the same signature is the same fault.
    detail : str
        The specifics on this input.
    unnamed : bool
        For ``invalid``: no ``target:`` diagnostic names the place (lucent's own check of the
        output did not report it).
    """

    check: str
    signature: str
    detail: str
    unnamed: bool = True


@dataclass
class Outcome:
    """What one input gave on one pair.

    ``unreachable``: the output is not valid, and every place where it breaks the target schema
    is a target path that the spec declares unreachable (``Pair.unreachable``) and an Invalid
    diagnostic names: no valid target document exists for this input, and lucent says so.
    """

    valid: bool = False
    unreachable: bool = False
    unnamed: bool = False
    leaves: int = 0
    lost: list[tuple[str, Any]] = field(default_factory=list)
    eligible: bool = False
    equal: bool = False
    failures: list[Failure] = field(default_factory=list)


def as_json(value: Any) -> Any:
    return json.loads(lucent.encode(value))


def json_equal(a: Any, b: Any) -> bool:
    """Equality of JSON values: numbers by value (``1`` is ``1.0``), booleans are not numbers."""
    if isinstance(a, bool) or isinstance(b, bool):
        return isinstance(a, bool) and isinstance(b, bool) and a == b
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return a == b
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(json_equal(a[k], b[k]) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(json_equal(x, y) for x, y in zip(a, b))
    return type(a) is type(b) and a == b


def first_difference(a: Any, b: Any, path: str = "$") -> str:
    """The path of the first place where `b` differs from `a`."""
    if isinstance(a, dict) and isinstance(b, dict):
        for key in (*a, *(k for k in b if k not in a)):
            if key not in a or key not in b or not json_equal(a[key], b[key]):
                step = f"{path}.{key}"
                return first_difference(a[key], b[key], step) if key in a and key in b else step
    if isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
        for index, (x, y) in enumerate(zip(a, b)):
            if not json_equal(x, y):
                return first_difference(x, y, f"{path}[{index}]")
    return path


def _related(a: str, b: str) -> bool:
    """Whether one JSON path is the other or holds it."""
    return a == b or a.startswith((b + ".", b + "[")) or b.startswith((a + ".", a + "["))


def _exact(diagnostics: list[Any]) -> bool:
    """Every diagnostic Exact: lucent reports none for what it carries unchanged."""
    return all(d.status == "Exact" for d in diagnostics)


def _error_path(error: Any) -> str:
    """A jsonschema error's path; for a missing required member, the member's path (as lucent's
    ``target:`` diagnostics and ``[maps.NAME.unreachable]`` name it)."""
    found = re.match(r"^'(.+)' is a required property$", error.message) if error.validator == "required" else None
    return f"{error.json_path}.{found.group(1)}" if found else str(error.json_path)


def check(pair: Pair, doc: Any, validity: Validity) -> Outcome:
    """Convert ``doc`` on ``pair`` once, back once, and judge the three bars."""
    source, target, kind = pair.source.format, pair.target.format, pair.kind
    outcome = Outcome(leaves=sum(1 for _ in leaves(doc)))
    try:
        context = context_for(source, kind, doc, lambda key, value: validity.accepts_member(pair.target, key, value), target)
        there = lucent.convert(json.dumps(doc).encode(), source, target, kind=kind, context=context)
    except Exception as fault:  # noqa: BLE001 - a refusal or a crash is a finding
        detail = f"{type(fault).__name__}: {fault}"
        code = getattr(fault, "code", type(fault).__name__)
        outcome.failures.append(Failure("raised", f"{code} at {shape(str(getattr(fault, 'path', '')))}", detail))
        outcome.lost = list(leaves(doc))
        return outcome
    out = as_json(there.value)
    errors = validity.errors(pair.target, out)
    outcome.valid = not errors
    named = [d.field[len("target:") :] for d in there.diagnostics if d.status == "Invalid" and d.field.startswith("target:")]
    by_path: dict[str, list[Any]] = {}
    for error in errors:
        by_path.setdefault(_error_path(error), []).append(error)
    declared = pair.unreachable
    outcome.unreachable = bool(by_path) and all(at in declared and at in named for at in by_path)
    for at, found in by_path.items() if not outcome.unreachable else ():
        keywords = "/".join(dict.fromkeys(str(e.validator) for e in found))
        unnamed = not any(_related(at, path) for path in named)
        outcome.unnamed = outcome.unnamed or unnamed
        how = "no diagnostic names it" if unnamed else f"named Invalid target:{at}"
        outcome.failures.append(Failure("invalid", f"{keywords} at {shape(at)}", f"{at}: {found[0].message[:200]} ({how})", unnamed))
    back: Any = None
    back_diagnostics: list[Any] | None = None
    try:
        data = lucent.encode(there.value) if outcome.valid else there.value  # an invalid document would not decode
        context = context_for(target, kind, out, lambda key, value: validity.accepts_member(pair.source, key, value), source)
        result = lucent.convert(data, target, source, kind=kind, context=context)
        back, back_diagnostics = as_json(result.value), list(result.diagnostics)
    except LucentError:
        pass  # an output lucent will not read back: the invalid check names it
    except Exception as fault:  # noqa: BLE001
        outcome.failures.append(Failure("raised", f"back: {type(fault).__name__}", f"{type(fault).__name__}: {fault}"))
    lost = lost_values(doc, out, there.diagnostics, back) if back is not None else lost_values(doc, out, there.diagnostics)
    outcome.lost = lost
    shapes: dict[str, tuple[str, Any]] = {}
    for path, value in lost:
        shapes.setdefault(shape(path), (path, value))
    for signature, (path, value) in shapes.items():
        outcome.failures.append(Failure("lost", signature, f"{path} = {json.dumps(value)[:80]}: in no output value, named by no diagnostic"))
    if pair.round_trip and back_diagnostics is not None and _exact(there.diagnostics) and _exact(back_diagnostics):
        outcome.eligible = True
        # a null or [] member the target has no place for is an absence (docs/semantics.md,
        # Exact): it is left out unnamed, so the round trip is judged without such members
        outcome.equal = json_equal(without_empty_members(doc), without_empty_members(back))
        if not outcome.equal:
            at = first_difference(without_empty_members(doc), without_empty_members(back))
            outcome.failures.append(Failure("round-trip", shape(at), f"differs at {at}: back is {json.dumps(back)[:200]}"))
    return outcome


@dataclass
class Tally:
    """The counts of one pair, weighted by how often each input was drawn."""

    pair: Pair
    inputs: int = 0
    distinct: int = 0
    corpus: int = 0
    valid: int = 0
    unreachable: int = 0
    unnamed: int = 0
    leaves: int = 0
    conserved: int = 0
    eligible: int = 0
    equal: int = 0
    failures: dict[tuple[str, str], list[tuple[Input, Failure]]] = field(default_factory=dict)
    checks: Counter[str] = field(default_factory=Counter)

    def add(self, item: Input, outcome: Outcome) -> None:
        w = item.weight
        self.inputs += w
        self.distinct += 1
        self.corpus += w if item.origin == "corpus" else 0
        self.valid += w * outcome.valid
        self.unreachable += w * outcome.unreachable
        self.unnamed += w * outcome.unnamed
        self.leaves += w * outcome.leaves
        self.conserved += w * (outcome.leaves - len(outcome.lost))
        self.eligible += w * outcome.eligible
        self.equal += w * outcome.equal
        for failure in outcome.failures:
            self.checks[failure.check] += w
            self.failures.setdefault((failure.check, failure.signature), []).append((item, failure))

    @property
    def passed(self) -> bool:
        """Every bar met: every output valid, or without a valid image as the spec declares and a
        diagnostic says (``unreachable``); all leaves conserved, every exact round trip equal, and
        nothing raised."""
        return (
            not self.failures
            and self.valid + self.unreachable == self.inputs
            and self.conserved == self.leaves
            and self.equal == self.eligible
        )
