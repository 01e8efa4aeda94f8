"""Mutations made in the JSON text rather than in the value.

Some rules live below the JSON value model: a duplicated property, an unpaired
surrogate escape, the size of the body. Each probe returns ``(op, data)``
pairs; the oracle and lucent judge ``data`` like any other document.
"""

from __future__ import annotations

import json
import random
from collections.abc import Iterator
from typing import Any

from .departures import MAX_BODY_BYTES, SPARKTIDE
from .verdict import Path

__all__ = ["BAD_ARGUMENTS", "GOOD_ARGUMENTS", "probes"]

BAD_ARGUMENTS = ("null", "[]", '"text"', "{} {}", '{"a":1,"a":2}', '{"a":', "", "NaN", '{"a":1}x', "{}}")
"""Tool-call arguments the SparkTide protocol refuses (the schema accepts any string)."""

GOOD_ARGUMENTS = ("{}", ' {"a": [1, {"b": null}]} ', '{"a":"\\u00e9"}', '{"a":{"a":1}}')
"""Tool-call arguments the protocol accepts: one closed object, whitespace around it allowed."""

_SENTINEL = "\x00sentinel\x00"


def _compact(value: Any) -> bytes:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode()


def _objects(value: Any, location: Path = ()) -> Iterator[Path]:
    if isinstance(value, dict):
        yield location
        for name, item in value.items():
            yield from _objects(item, (*location, name))
    elif isinstance(value, list):
        for i, item in enumerate(value):
            yield from _objects(item, (*location, i))


def _strings(value: Any, location: Path = ()) -> Iterator[Path]:
    if isinstance(value, str):
        yield location
    elif isinstance(value, dict):
        for name, item in value.items():
            yield from _strings(item, (*location, name))
    elif isinstance(value, list):
        for i, item in enumerate(value):
            yield from _strings(item, (*location, i))


def _with(value: Any, location: Path, new: Any) -> Any:
    if not location:
        return new
    head, rest = location[0], location[1:]
    if isinstance(value, dict):
        return {**value, head: _with(value[head], rest, new)}
    out = list(value)
    out[head] = _with(value[head], rest, new)  # type: ignore[index]
    return out


def _duplicate(value: Any, location: Path) -> bytes:
    """Compact text in which the object at *location* repeats its first property."""
    target = value
    for part in location:
        target = target[part]
    name = next(iter(target))
    marked = _with(value, location, {_SENTINEL: None, **target})
    text = _compact(marked).decode()
    marker = json.dumps(_SENTINEL, ensure_ascii=False) + ":null"
    return text.replace(
        marker, json.dumps(name, ensure_ascii=False) + ":" + _compact(target[name]).decode(), 1
    ).encode()


def _surrogate(value: Any, location: Path) -> bytes:
    text = _compact(_with(value, location, _SENTINEL)).decode()
    return text.replace(json.dumps(_SENTINEL, ensure_ascii=False), '"\\ud800 tail"', 1).encode()


def _tool_calls(value: Any, location: Path = ()) -> Iterator[Path]:
    """Locations of SparkTide tool-call ``function.arguments`` strings."""
    if isinstance(value, dict):
        function = value.get("function")
        if (
            value.get("type") == "function"
            and isinstance(function, dict)
            and isinstance(function.get("arguments"), str)
        ):
            yield (*location, "function", "arguments")
        for name, item in value.items():
            yield from _tool_calls(item, (*location, name))
    elif isinstance(value, list):
        for i, item in enumerate(value):
            yield from _tool_calls(item, (*location, i))


def _content(value: Any) -> Path | None:
    """A free-text SparkTide message content location, if the document has one."""
    if isinstance(value, dict) and isinstance(value.get("messages"), list):
        for i, message in enumerate(value["messages"]):
            if isinstance(message, dict) and isinstance(message.get("content"), str):
                return ("messages", i, "content")
    if isinstance(value, dict) and isinstance(value.get("message"), dict):
        if isinstance(value["message"].get("content"), str):
            return ("message", "content")
    return None


def probes(schema: str, value: Any, rng: random.Random, *, sized: bool = False) -> list[tuple[str, bytes]]:
    """Text-level mutations of one valid value.

    Parameters
    ----------
    schema : str
        The schema stem (SparkTide gets its protocol probes).
    value : Any
        A valid instance.
    rng : random.Random
        Picks the object and the string to mutate.
    sized : bool
        Also build the two 1 MiB bodies (at the limit and one byte over); they
        are large, so the runner asks for them once per kind.
    """
    out: list[tuple[str, bytes]] = []
    objects = [loc for loc in _objects(value) if _get(value, loc)]
    if objects:
        out.append(("duplicate-key", _duplicate(value, rng.choice(objects))))
    strings = list(_strings(value))
    if strings:
        out.append(("lone-surrogate", _surrogate(value, rng.choice(strings))))
    if schema == SPARKTIDE:
        for location in _tool_calls(value):
            for text in (*BAD_ARGUMENTS, *GOOD_ARGUMENTS):
                out.append(("tool-arguments", _compact(_with(value, location, text))))
        content = _content(value)
        if sized and content is not None:
            base = len(_compact(_with(value, content, "")))
            for op, size in (("body-at-limit", MAX_BODY_BYTES), ("body-over-limit", MAX_BODY_BYTES + 1)):
                out.append((op, _compact(_with(value, content, "x" * (size - base)))))
    return out


def _get(value: Any, location: Path) -> Any:
    for part in location:
        value = value[part]
    return value
