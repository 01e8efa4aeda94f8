"""The written list of departures: the only disagreements the harness allows.

Two origins (``EXCEPTIONS.md`` says why each one exists):

* ``protocol``: rules a protocol states beside its schema, which lucent
  enforces and JSON Schema cannot express (``codegen/protocols.toml``);
* ``oracle``: places where the oracle departs from the specification it stands
  for: Python's ``re`` is not ECMA-262, and Python's ``json`` accepts unpaired
  surrogate escapes.

A departure explains a disagreement only when its own, independent check
confirms the cause (the body really is over 1 MiB, the two regex dialects
really disagree on that string, ...), and for protocol rules only when lucent
with ``rules="schema"`` agrees with the oracle.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import regress

from .oracle import Oracle, parse_json
from .verdict import Verdict, value_at

__all__ = [
    "DEPARTURES",
    "Case",
    "Departure",
    "ecma_search",
    "explain",
    "has_duplicate_keys",
    "is_closed_json_object",
    "lone_surrogate",
]

SPARKTIDE = "sparktide-remote-1.0"
MAX_BODY_BYTES = 1_048_576
PYTHON_ONLY_SPACE = frozenset("\x1c\x1d\x1e\x1f\x85")
ECMA_ONLY_SPACE = frozenset("\ufeff")


@dataclass(frozen=True)
class Case:
    """One document judged by the oracle and by lucent.

    Attributes
    ----------
    schema, definition : str, str or None
        What the document was decoded as.
    data : bytes
        The JSON text.
    oracle, subject : Verdict
        jsonschema's and lucent's verdicts.
    schema_only : Verdict or None
        lucent's verdict with ``rules="schema"`` (protocol rules off), if taken.
    """

    schema: str
    definition: str | None
    data: bytes
    oracle: Verdict
    subject: Verdict
    schema_only: Verdict | None = None

    @property
    def agrees(self) -> bool:
        """Whether both judges accept, or both refuse."""
        return self.oracle.valid == self.subject.valid


@dataclass(frozen=True)
class Departure:
    """One listed departure.

    Attributes
    ----------
    id : str
        Stable name, used in the counts and in ``EXCEPTIONS.md``.
    origin : {"protocol", "oracle"}
        Why the judges differ.
    summary : str
        One line for the report.
    explains : callable
        ``explains(case, oracle)`` is true when this departure is the cause.
    """

    id: str
    origin: str
    summary: str
    explains: Callable[[Case, Oracle], bool]


def _protocol(case: Case, code: str) -> bool:
    """Oracle accepts, lucent refuses with *code*, and without the protocol rules agrees."""
    if case.schema != SPARKTIDE or not case.oracle.valid or case.subject.valid or case.subject.code != code:
        return False
    return case.schema_only is None or case.schema_only.valid


def _body_size(case: Case, oracle: Oracle) -> bool:
    return _protocol(case, "max_body_bytes") and len(case.data) > MAX_BODY_BYTES


def _duplicate_key(case: Case, oracle: Oracle) -> bool:
    return _protocol(case, "duplicate_key") and has_duplicate_keys(case.data)


def _tool_arguments(case: Case, oracle: Oracle) -> bool:
    if not _protocol(case, "tool_arguments") or case.subject.path[-2:] != ("function", "arguments"):
        return False
    text = value_at(parse_json(case.data), case.subject.path)
    return isinstance(text, str) and not is_closed_json_object(text)


def _lone_surrogate(case: Case, oracle: Oracle) -> bool:
    return case.oracle.valid and case.subject.code == "lone_surrogate" and lone_surrogate(case.data)


def _regex_strings(case: Case) -> list[str]:
    """The string the refusing judge points at, when its code is ``pattern``."""
    refusing = case.subject if case.oracle.valid else case.oracle
    if refusing.valid or refusing.code != "pattern":
        return []
    text = value_at(parse_json(case.data), refusing.path)
    return [text] if isinstance(text, str) else []


def _dialects(case: Case, oracle: Oracle) -> list[tuple[str, str]]:
    """(pattern, string) pairs where re and ECMA-262 disagree, in the refusing judge's favour."""
    found = []
    for text in _regex_strings(case):
        for pattern in _patterns(oracle, case.schema):
            python, ecma = bool(re.search(pattern, text)), ecma_search(pattern, text)
            if python != ecma and python == case.oracle.valid:
                found.append((pattern, text))
    return found


def _dollar_newline(case: Case, oracle: Oracle) -> bool:
    return any("$" in p and t.endswith("\n") for p, t in _dialects(case, oracle))


def _whitespace_class(case: Case, oracle: Oracle) -> bool:
    spaces = PYTHON_ONLY_SPACE | ECMA_ONLY_SPACE
    return any(("\\s" in p or "\\S" in p) and set(t) & spaces for p, t in _dialects(case, oracle))


DEPARTURES: tuple[Departure, ...] = (
    Departure(
        "sparktide-max-body-bytes",
        "protocol",
        "SparkTide: a JSON body over 1 MiB (1,048,576 bytes) is refused",
        _body_size,
    ),
    Departure(
        "sparktide-duplicate-key", "protocol", "SparkTide: an object naming a property twice is refused", _duplicate_key
    ),
    Departure(
        "sparktide-tool-arguments",
        "protocol",
        "SparkTide: tool-call function.arguments must be one closed JSON object"
        " (no duplicate keys, no trailing JSON, not null)",
        _tool_arguments,
    ),
    Departure(
        "regex-dollar-final-newline",
        "oracle",
        "Python re: `$` also matches before a final newline; ECMA-262 `$` does not",
        _dollar_newline,
    ),
    Departure(
        "regex-whitespace-class",
        "oracle",
        "Python re: \\s includes \\x1c-\\x1f and \\x85 but not \\ufeff; ECMA-262 the other way round",
        _whitespace_class,
    ),
    Departure(
        "lone-surrogate-escape",
        "oracle",
        "Python json accepts an unpaired \\ud800-\\udfff escape; lucent refuses it (case 08)",
        _lone_surrogate,
    ),
)


def explain(case: Case, oracle: Oracle) -> Departure | None:
    """The listed departure that explains a disagreement, or None."""
    if case.agrees:
        return None
    return next((d for d in DEPARTURES if d.explains(case, oracle)), None)


# ---------------------------------------------------------------- independent checks


@lru_cache(maxsize=None)
def _compiled(pattern: str) -> Any:
    return regress.Regex(pattern)


def ecma_search(pattern: str, text: str) -> bool:
    """Whether ECMA-262 (the ``regress`` engine) finds *pattern* in *text*."""
    return _compiled(pattern).find(text) is not None


@lru_cache(maxsize=None)
def _patterns(oracle: Oracle, schema: str) -> tuple[str, ...]:
    found: list[str] = []

    def visit(node: Any) -> None:
        if isinstance(node, dict):
            if isinstance(node.get("pattern"), str) and node["pattern"] not in found:
                found.append(node["pattern"])
            for sub in node.values():
                visit(sub)
        elif isinstance(node, list):
            for sub in node:
                visit(sub)

    visit(oracle.document(schema))
    return tuple(found)


class _Duplicate(ValueError):
    pass


def _pairs(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    keys = [k for k, _ in pairs]
    if len(set(keys)) != len(keys):
        raise _Duplicate
    return dict(pairs)


def has_duplicate_keys(data: bytes | str) -> bool:
    """Whether some object in the JSON text names a property twice."""
    try:
        json.loads(data, object_pairs_hook=_pairs)
    except _Duplicate:
        return True
    except ValueError:
        return False
    return False


def is_closed_json_object(text: str) -> bool:
    """Whether *text* is exactly one JSON object, without duplicate keys."""
    try:
        value = json.loads(text, object_pairs_hook=_pairs, parse_constant=_fail)
    except ValueError:
        return False
    return isinstance(value, dict)


def _fail(name: str) -> Any:
    raise ValueError(name)


_ESCAPE = re.compile(
    rb"\\u([dD][89abAB][0-9a-fA-F]{2})(?:\\u([dD][c-fC-F][0-9a-fA-F]{2}))?|\\u[dD][c-fC-F][0-9a-fA-F]{2}|\\\\"
)


def lone_surrogate(data: bytes) -> bool:
    """Whether the JSON text holds a ``\\uD800``-``\\uDFFF`` escape outside a pair."""
    for match in _ESCAPE.finditer(data):
        text = match.group(0)
        if text == b"\\\\":
            continue
        if match.group(1) is None or match.group(2) is None:
            return True
    return False
