"""Every schema ``pattern``, as the generated bindings hold it, and its worst inputs.

The bindings give each pattern to ``msgspec.Meta(pattern=...)``, which compiles it once, when
the module is imported, and checks ``max_length`` before it runs the pattern (``re.search``).
:func:`patterns` reads them back from every schema's decode types (vendor schemas included);
:func:`backtracking_hazards` is a static check of the parsed pattern; :func:`worst_inputs`
builds the inputs that would drive a backtracking pattern furthest, for the measured ratio.
"""

from __future__ import annotations

import importlib
import re
import re._constants as sre  # type: ignore[import-not-found]
import re._parser as sre_parse  # type: ignore[import-not-found]
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import msgspec

import lucent

__all__ = ["SchemaPattern", "backtracking_hazards", "patterns", "search_time", "worst_inputs", "worst_shapes"]

_UNBOUNDED = sre.MAXREPEAT
_REPEATS = (sre.MAX_REPEAT, sre.MIN_REPEAT, getattr(sre, "POSSESSIVE_REPEAT", sre.MAX_REPEAT))


@dataclass(frozen=True)
class SchemaPattern:
    """One ``pattern`` of one schema, with the ``maxLength`` beside it (None: no bound)."""

    schema: str
    pattern: str
    max_length: int | None


def _walk(info: Any, seen: set[Any]) -> Iterator[msgspec.inspect.StrType]:
    stack = [info]
    while stack:
        node = stack.pop()
        if isinstance(node, msgspec.inspect.StrType):
            yield node
        elif isinstance(node, msgspec.inspect.StructType):
            if node.cls in seen:
                continue
            seen.add(node.cls)
            stack.extend(f.type for f in node.fields)
        elif isinstance(node, msgspec.inspect.UnionType):
            stack.extend(node.types)
        elif isinstance(node, (msgspec.inspect.ListType, msgspec.inspect.VarTupleType, msgspec.inspect.SetType, msgspec.inspect.FrozenSetType)):
            stack.append(node.item_type)
        elif isinstance(node, msgspec.inspect.TupleType):
            stack.extend(node.item_types)
        elif isinstance(node, msgspec.inspect.DictType):
            stack.extend((node.key_type, node.value_type))


def patterns() -> list[SchemaPattern]:
    """Every distinct (schema, pattern, maxLength) of every schema in ``lucent.SCHEMAS``."""
    found: dict[SchemaPattern, None] = {}
    for schema, module_name in lucent.SCHEMAS.items():
        module = importlib.import_module(f"lucent.generated.{module_name}")
        types = [t for t in (module.ROOT, *module.DECODE_TYPES.values()) if t is not None]
        seen: set[Any] = set()
        for tp in types:
            for info in _walk(msgspec.inspect.type_info(tp), seen):
                if info.pattern is not None:
                    found[SchemaPattern(schema, info.pattern, info.max_length)] = None
    return list(found)


def _max(node: Any) -> int:
    return int(node[1][1])


def _can_repeat(items: Any) -> bool:
    """Some repeat inside ``items`` matches more than once."""
    for op, av in items:
        if op in _REPEATS and (_max((op, av)) > 1 or _can_repeat(av[2])):
            return True
        if op == sre.SUBPATTERN and _can_repeat(av[3]):
            return True
        if op == sre.BRANCH and any(_can_repeat(b) for b in av[1]):
            return True
    return False


_PLANE = range(0x3000)  # enough code points to tell classes apart
_CATEGORIES = {
    getattr(sre, name): {c for c in _PLANE if re.fullmatch(regex, chr(c))}
    for name, regex in (
        ("CATEGORY_DIGIT", r"\d"), ("CATEGORY_NOT_DIGIT", r"\D"), ("CATEGORY_SPACE", r"\s"),
        ("CATEGORY_NOT_SPACE", r"\S"), ("CATEGORY_WORD", r"\w"), ("CATEGORY_NOT_WORD", r"\W"),
    )
}


def _alternates(items: Any) -> bool:
    """An alternation inside ``items`` (through groups)."""
    return any(op == sre.BRANCH or (op == sre.SUBPATTERN and _alternates(av[3])) for op, av in items)


def _chars(items: Any) -> set[int] | None:
    """The code points one repetition of a single-character item matches (None: not one char)."""
    if len(items) != 1:
        return None
    op, av = items[0]
    if op == sre.LITERAL:
        return {av}
    if op == sre.IN:
        negate = any(o == sre.NEGATE for o, _ in av)
        members: set[int] = set()
        for o, a in av:
            if o == sre.LITERAL:
                members.add(a)
            elif o == sre.RANGE:
                members.update(range(a[0], min(a[1], 0x3000) + 1))
            elif o == sre.CATEGORY:
                members.update(_CATEGORIES.get(a, _PLANE))
        return set(_PLANE) - members if negate else members
    if op == sre.ANY:
        return set(_PLANE)
    return None


def backtracking_hazards(pattern: str) -> list[str]:
    """The constructs of ``pattern`` that can backtrack more than linearly; [] when none.

    * a repeat (max > 1) whose body can itself repeat (``(a+)+``, ``(a|aa)*``...);
    * a repeat of an alternation (``(a|b)*``: the branches may overlap);
    * two unbounded repeats in a row whose characters overlap (``a*a*``, ``\\s*\\s*x``);
    * an unbounded repeat first in a pattern that is not anchored at the start: ``re.search``
      tries it from every position (quadratic on a long run that then fails).
    """
    found: list[str] = []
    parsed = sre_parse.parse(pattern)

    def visit(items: Any, top: bool) -> None:
        previous: set[int] | None = None
        for position, (op, av) in enumerate(items):
            chars: set[int] | None = None
            if op in _REPEATS:
                body = av[2]
                if _max((op, av)) > 1 and _can_repeat(body):
                    found.append(f"nested repeat at item {position}")
                if _max((op, av)) > 1 and _alternates(body):
                    found.append(f"repeated alternation at item {position}")
                if _max((op, av)) == _UNBOUNDED:
                    chars = _chars(body)
                    if chars is not None and previous is not None and chars & previous:
                        found.append(f"adjacent overlapping repeats at item {position}")
                    if top and position == 0:
                        found.append("unanchored leading repeat")
                visit(body, False)
            elif op == sre.SUBPATTERN:
                visit(av[3], False)
            elif op == sre.BRANCH:
                for branch in av[1]:
                    visit(branch, False)
            previous = chars

    anchored = bool(parsed.data) and parsed.data[0][0] == sre.AT and parsed.data[0][1] in (sre.AT_BEGINNING, sre.AT_BEGINNING_STRING)
    visit(parsed.data, not anchored)
    return found


def _literal_prefix(pattern: str) -> str:
    out = []
    for op, av in sre_parse.parse(pattern).data:
        if op == sre.AT:
            continue
        if op != sre.LITERAL:
            break
        out.append(chr(av))
    return "".join(out)


def _sample_chars(pattern: str) -> list[str]:
    """A few characters each repeat or class of the pattern takes, and some it refuses."""
    picked: set[int] = set()
    stack = list(sre_parse.parse(pattern).data)
    while stack:
        op, av = stack.pop()
        if op in _REPEATS:
            stack.extend(av[2])
            continue
        if op == sre.SUBPATTERN:
            stack.extend(av[3])
            continue
        if op == sre.BRANCH:
            for branch in av[1]:
                stack.extend(branch)
            continue
        chars = _chars([(op, av)])
        if chars:
            ordered = sorted(chars)
            picked.update({ordered[0], ordered[len(ordered) // 2], ordered[-1]})
    return [chr(c) for c in sorted(picked)] + [" ", "\n", "!", "\u3000"]


def worst_shapes(pattern: str) -> list[tuple[str, str, str]]:
    """(prefix, repeated character, suffix) of the inputs that drive ``pattern`` furthest before
    it fails: the literal prefix, a long run of one character the pattern takes, and a
    character that fails it (or none)."""
    prefix = _literal_prefix(pattern)
    shapes = []
    for char in _sample_chars(pattern):
        shapes.extend([("", char, ""), (prefix, char, ""), (prefix, char, "!"), ("", char, "\n"), (prefix, char, "\u3000")])
    return shapes


def worst_inputs(pattern: str, n: int) -> list[str]:
    """The :func:`worst_shapes` of ``pattern`` with a run of ``n`` characters."""
    return [prefix + char * n + suffix for prefix, char, suffix in worst_shapes(pattern)]


def search_time(compiled: re.Pattern[str], inputs: list[str], repeat: int = 3) -> float:
    """The total over ``inputs`` of the best of ``repeat`` ``re.search`` runs (seconds)."""
    import time

    total = 0.0
    for text in inputs:
        best = float("inf")
        for _ in range(repeat):
            start = time.perf_counter()
            compiled.search(text)
            best = min(best, time.perf_counter() - start)
        total += best
    return total
