"""Minimal failing inputs: shrink a document while it stays valid and fails the same way.

A greedy reduction on the JSON value: drop a member or an item, empty a container, shorten a
string, zero a number; a step is kept when the smaller document is still a document of the
source kind (the oracle and lucent's decoder accept it, with the protocol rules when the
original met them) and still has the failure's signature. Deterministic: the same input gives
the same minimum.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from typing import Any

import lucent
from lucent.errors import LucentError

from .checks import Failure, check
from .pairs import Pair, Side
from .validity import Validity

__all__ = ["shrink"]


def _size(doc: Any) -> int:
    return len(json.dumps(doc))  # escapes count: a plain "a" is smaller than "\u0084"


def _smaller(value: Any) -> Iterator[Any]:
    """Candidates one step smaller than `value` (the biggest steps first)."""
    if isinstance(value, dict):
        if value:
            yield {}
        for key in value:
            yield {k: v for k, v in value.items() if k != key}
        for key, item in value.items():
            for smaller in _smaller(item):
                yield {**value, key: smaller}
    elif isinstance(value, list):
        if value:
            yield []
        if len(value) > 1:
            yield value[:1]
        for index in range(len(value)):
            yield value[:index] + value[index + 1 :]
        for index, item in enumerate(value):
            for smaller in _smaller(item):
                yield value[:index] + [smaller] + value[index + 1 :]
    elif isinstance(value, str):
        if value:
            yield ""
        if value != "a":
            yield "a"
        if len(value) > 1:
            yield value[: len(value) // 2]
            yield value[:-1]
    elif isinstance(value, bool):
        if value:
            yield False
    elif isinstance(value, (int, float)):
        sign = -1 if value < 0 else 1
        for small in (0, sign, 3 * sign, 1000 * sign):
            if abs(small) < abs(value):
                yield small
        if isinstance(value, float) and value.is_integer() and abs(value) < 2**53:
            yield int(value)


def _member(side: Side, validity: Validity, protocol: bool) -> Callable[[Any], bool]:
    def accepts(doc: Any) -> bool:
        if validity.error(side, doc) is not None:
            return False
        try:
            lucent.decode(json.dumps(doc), side.schema, side.root, rules="all" if protocol else "schema")
        except LucentError:
            return False
        return True

    return accepts


def _meets_protocol(side: Side, doc: Any) -> bool:
    try:
        lucent.decode(json.dumps(doc), side.schema, side.root)
    except LucentError:
        return False
    return True


def shrink(pair: Pair, doc: Any, failure: Failure, validity: Validity, budget: int = 3000) -> Any:
    """The smallest document found that is still a source document and fails with
    ``failure``'s check and signature, as silently when it was silent (at most ``budget``
    candidates are tried)."""
    accepts = _member(pair.source, validity, _meets_protocol(pair.source, doc))

    def fails(candidate: Any) -> bool:
        found = check(pair, candidate, validity).failures
        return any((f.check, f.signature, f.unnamed) == (failure.check, failure.signature, failure.unnamed) for f in found)

    tried = 0
    improved = True
    while improved and tried < budget:
        improved = False
        for candidate in _smaller(doc):
            tried += 1
            if tried > budget:
                break
            if _size(candidate) < _size(doc) and accepts(candidate) and fails(candidate):
                doc, improved = candidate, True
                break
    return doc
