"""Conservation: no value of a source document is lost without a diagnostic naming it.

Used by the conversion tests on generated documents. A leaf (a string, number, boolean or null
inside the source document) counts as conserved when

- a diagnostic names it or an object or array holding it (its ``field`` is a prefix of the path);
- or it comes back at the same path, equal, when the output is converted back to the source
  format (the round trip), array positions aside (an item a format drops, with a diagnostic,
  moves the ones after it);
- or its value is among the leaves of the output, or of a JSON text inside the output, or it is
  a JSON text whose values all are (tool call arguments are JSON text in one format and JSON
  values in another; values move between paths when a format nests differently).

Union tags (``type``) and ``schema_version`` carry no value of their own: the shape of the output
says them. ``redacted: false`` is the absence of a redaction, which every format without the flag
says by carrying the text; ``is_error: false`` is the absence of an error, which llm-sdk and
SparkTide say by leaving the flag out (docs/semantics.md, "Implied values"). A null is the
absence of a value: leaving it out, or writing the target's default, is Exact (docs/semantics.md,
"Exact"), so a null leaf is never lost (Anthropic ``stop_sequence: null`` to llm-sdk); nor is a
0 in Anthropic's ``usage.cache_creation`` breakdown (no cache writes).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator, Sequence
from typing import Any

from lucent._validation import member

__all__ = ["leaves", "lost_values"]

_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
_TAGS = ("type", "schema_version")
_ABSENT_FLAGS = (".redacted", ".is_error")  # false: the absence of a redaction, of an error
_ZERO_COUNTS = (".cache_creation.ephemeral_5m_input_tokens", ".cache_creation.ephemeral_1h_input_tokens")
"""0: no cache writes, which a format without Anthropic's breakdown says by leaving it out."""
_INDEX = re.compile(r"\[\d+\]")
_MISSING = object()


def _member(path: str, key: str) -> str:
    return member(path, key)  # lucent's spelling, control characters escaped


def leaves(value: Any, path: str = "$") -> Iterator[tuple[str, Any]]:
    """(JSON path, value) of every leaf, in lucent's path spelling."""
    if isinstance(value, dict):
        for key, item in value.items():
            yield from leaves(item, _member(path, key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from leaves(item, f"{path}[{index}]")
    else:
        yield path, value


def _key(value: Any) -> tuple[str, Any]:
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        try:
            return ("number", float(value))
        except OverflowError:  # an integer beyond a double: itself
            return ("number", value)
    return (type(value).__name__, value)


def _present(output: Any) -> set[tuple[str, Any]]:
    found = set()
    for _, value in leaves(output):
        found.add(_key(value))
        if isinstance(value, str):
            try:
                inner = json.loads(value)
            except (ValueError, RecursionError):  # not JSON text, or too deep to be a value
                continue
            found.update(_key(v) for _, v in leaves(inner))
    return found


def _json_text_present(value: Any, present: set[tuple[str, Any]]) -> bool:
    """A string of JSON text (tool call arguments) whose values are all in the output."""
    if not isinstance(value, str):
        return False
    try:
        parsed = json.loads(value)
    except (ValueError, RecursionError):
        return False
    return all(_key(v) in present for _, v in leaves(parsed))


def _named(path: str, fields: Sequence[str]) -> bool:
    return any(path == f or path.startswith((f + ".", f + "[")) for f in fields)


def lost_values(
    source: Any, output: Any, diagnostics: Sequence[Any], back: Any = _MISSING, spelling: Callable[[str, Any], bool] | None = None
) -> list[tuple[str, Any]]:
    """The leaves of `source` that are lost without a diagnostic (see the module docstring).

    `diagnostics` are those of the source -> output conversion; `back` is the output converted back
    to the source format (optional); `spelling(path, value)`, when given, says which leaves only
    record how another format spelled a value (a Lux side-car's typed spellings,
    :func:`tests.fuzz.sidecars.is_spelling`): they carry no value of their own.
    """
    fields = [d.field for d in diagnostics]
    present = _present(output)
    returned = set() if back is _MISSING else {(_INDEX.sub("[]", p), _key(v)) for p, v in leaves(back)}
    lost = []
    for path, value in leaves(source):
        if value is None or path.rsplit(".", 1)[-1] in _TAGS or (path.endswith(_ABSENT_FLAGS) and value is False) or (path.endswith(_ZERO_COUNTS) and value == 0):
            continue
        if spelling is not None and spelling(path, value):
            continue
        if _named(path, fields) or _key(value) in present or _json_text_present(value, present):
            continue
        if (_INDEX.sub("[]", path), _key(value)) in returned:
            continue
        lost.append((path, value))
    return lost


def idle_values(source: str) -> Callable[[str, Any], bool]:
    """A `spelling` for :func:`lost_values`: the top-level request members of format `source`
    whose value asks for what a target that does not read them does anyway (the X -> Lux spec's
    ``[pair] idle_values``, its module's ``IDLE_VALUES``: ``store: false``)."""
    import importlib

    from lucent.formats import FORMATS

    module = importlib.import_module(f"lucent.generated.convert_{FORMATS[source].module}_lux")
    idle = {("$." + path.rsplit(".", 1)[1], value) for path, value in getattr(module, "IDLE_VALUES", ())}
    return lambda path, value: any(path == p and value is v for p, v in idle)


def without_empty_members(value: Any) -> Any:
    """``value`` without the object members that are null or an empty array, nor the objects
    holding only such members."""
    if isinstance(value, dict):
        kept = {k: without_empty_members(v) for k, v in value.items() if v is not None and v != []}
        return {k: v for k, v in kept.items() if not (v == {} and value[k] != {})}
    if isinstance(value, list):
        return [without_empty_members(v) for v in value]
    return value
