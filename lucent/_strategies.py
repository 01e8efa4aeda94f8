"""The hand-written helpers of the generated hypothesis strategies (``lucent.generated.<schema>_strategies``).

codegen/strategies.py compiles each schema into one function per definition; the strategies those
functions combine are here: JSON values, integers and numbers within bounds, strings matching
ECMA-262 patterns, objects with required and optional properties, and the deferred reference to
another definition. A generated module binds them under its own private names (``_integers``,
``_ref``...). This module is the ``strategies`` extra: without hypothesis, importing it raises
lucent.errors.UsageError (code ``missing_dependency``).
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Mapping
from typing import Any

try:
    from hypothesis import strategies as st
except ImportError as exc:  # hypothesis is the strategies extra, not a dependency of lucent
    from lucent.errors import UsageError

    raise UsageError("lucent._strategies needs hypothesis: pip install 'lucent[strategies]'", code="missing_dependency") from exc

__all__ = ["CHARACTERS", "JSON", "References", "Strings", "integers", "not_in", "numbers", "objects"]

CHARACTERS = st.characters(codec="utf-8")
"""Unicode scalar values: JSON text is UTF-8, so no lone surrogates."""


class References:
    """``refs(name)``: the strategy of definition *name* in the table `table()` returns, looked
    up when first drawn (a generated module passes ``lambda: STRATEGIES``, defined after the
    functions that refer to it)."""

    def __init__(self, table: Callable[[], Mapping[str, st.SearchStrategy[Any]]]) -> None:
        self._table = table

    def __call__(self, name: str) -> st.SearchStrategy[Any]:
        table = self._table
        return st.deferred(lambda: table()[name])


def not_in(values: tuple[Any, ...]) -> Callable[[Any], bool]:
    """A predicate true for values equal to none of *values* (``1`` and ``True`` differ)."""
    return lambda value: all(value != v or type(value) is not type(v) for v in values)


def integers(low: int | None = None, high: int | None = None) -> st.SearchStrategy[Any]:
    """Integers in [low, high]; about one in ten spelled as an integral float.

    JSON Schema counts a number with a zero fractional part (``3.0``) as an
    integer, so decoders must accept both spellings.
    """

    def spell(pair: tuple[int, int]) -> int | float:
        value, coin = pair
        return float(value) if coin == 0 and abs(value) <= 2**53 else value

    return st.tuples(st.integers(low, high), st.integers(0, 9)).map(spell)


def numbers(
    low: float | None = None,
    high: float | None = None,
    *,
    exclude_low: bool = False,
    exclude_high: bool = False,
) -> st.SearchStrategy[Any]:
    """Numbers within the bounds: integers, integral floats and other floats."""
    int_low = None if low is None else math.ceil(low)
    if low is not None and exclude_low and int_low == low:
        int_low = math.ceil(low) + 1
    int_high = None if high is None else math.floor(high)
    if high is not None and exclude_high and int_high == high:
        int_high = math.floor(high) - 1
    floats = st.floats(
        low,
        high,
        exclude_min=exclude_low,
        exclude_max=exclude_high,
        allow_nan=False,
        allow_infinity=False,
    )
    if int_low is not None and int_high is not None and int_low > int_high:
        return floats
    return st.one_of(integers(int_low, int_high), floats)


class Strings:
    """``strings(min_size, max_size, *, pattern, patterns)``: strings of min_size..max_size code
    points in which every pattern is found, for a schema whose patterns' ECMA-262 meanings (in
    Python syntax, codegen.ecma_regex) are `ecma`.

    Patterns are unanchored, as in JSON Schema. Values are drawn from the first
    pattern's ECMA-262 meaning and kept only if every pattern is found under both
    meanings, ECMA-262 and Python's ``re``.
    """

    def __init__(self, ecma: Mapping[str, str]) -> None:
        self._ecma = ecma

    def __call__(
        self,
        min_size: int = 0,
        max_size: int | None = None,
        *,
        pattern: str | None = None,
        patterns: tuple[str, ...] = (),
    ) -> st.SearchStrategy[str]:
        every = (pattern,) + patterns if pattern is not None else patterns
        if not every:
            return st.text(CHARACTERS, min_size=min_size, max_size=max_size)
        checks = tuple(re.compile(p) for p in every) + tuple(re.compile(self._ecma[p]) for p in every)
        return st.from_regex(self._ecma[every[0]], alphabet=CHARACTERS).filter(
            lambda s: min_size <= len(s) <= (len(s) if max_size is None else max_size)
            and all(c.search(s) for c in checks)
        )


def objects(
    required: dict[str, st.SearchStrategy[Any]],
    optional: dict[str, st.SearchStrategy[Any]] | None = None,
    extra: st.SearchStrategy[Any] | None = None,
    reserved: tuple[str, ...] = (),
) -> st.SearchStrategy[dict[str, Any]]:
    """Objects with the required and some optional properties.

    With ``extra``, up to two more properties whose names are none of
    ``reserved`` and whose values ``extra`` draws.
    """
    fixed = st.fixed_dictionaries(required, optional=optional or {})
    if extra is None:
        return fixed
    names = st.text(CHARACTERS, max_size=8).filter(lambda name: name not in reserved)
    return st.tuples(fixed, st.dictionaries(names, extra, max_size=2)).map(
        lambda pair: {**pair[0], **pair[1]}
    )


JSON: st.SearchStrategy[Any] = st.recursive(
    st.none()
    | st.booleans()
    | integers()
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(CHARACTERS, max_size=12),
    lambda children: st.lists(children, max_size=3)
    | st.dictionaries(st.text(CHARACTERS, max_size=8), children, max_size=3),
    max_leaves=8,
)
"""Any JSON value."""
