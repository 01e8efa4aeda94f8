"""Large hostile inputs built to a size: the shapes that make parsers and checks slow.

A coverage-guided fuzzer keeps inputs small; these make the attacks that need size. Each
builder takes a valid input of the target (a seed) and a size in bytes and returns the hostile
input. The fuzz session runs each on every target family and compares its time with a valid
input of the same size (:func:`tests.fuzz.timing.ratio`).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from typing import Any

__all__ = ["DOCUMENT_ATTACKS", "STREAM_ATTACKS"]


def _repeat(unit: bytes, size: int) -> bytes:
    return unit * max(size // len(unit), 1)


def _strings(value: Any) -> Iterator[tuple[Any, Any]]:
    stack = [value]
    while stack:
        node = stack.pop()
        items = node.items() if isinstance(node, dict) else enumerate(node) if isinstance(node, list) else ()
        for key, item in items:
            if isinstance(item, str):
                yield node, key
            else:
                stack.append(item)


def _in_string(text: Callable[[int], str]) -> Callable[[bytes, int], bytes]:
    """The seed with its longest string replaced by ``text(size)`` (a check reads strings: tool
    arguments are JSON text, ids have patterns)."""

    def build(seed: bytes, size: int) -> bytes:
        try:
            doc = json.loads(seed)
        except ValueError:
            return text(size).encode("utf-8", "surrogatepass")
        spots = sorted(_strings(doc), key=lambda s: -len(s[0][s[1]]))
        if not spots:
            return json.dumps(text(size)).encode()
        container, key = spots[0]
        container[key] = text(size)
        return json.dumps(doc, ensure_ascii=False).encode("utf-8", "surrogatepass")

    return build


def _in_value(raw: Callable[[int], bytes]) -> Callable[[bytes, int], bytes]:
    """The seed with its longest string replaced by the raw JSON ``raw(size)`` (a value where a
    string belongs: the decoder meets it, then the error selection walks it)."""

    def build(seed: bytes, size: int) -> bytes:
        marker = "\x00MARK\x00"
        doc = _in_string(lambda _: marker)(seed, size)
        quoted = json.dumps(marker, ensure_ascii=False).encode()
        return doc.replace(quoted, raw(size), 1) if quoted in doc else raw(size)

    return build


def _whole(raw: Callable[[int], bytes]) -> Callable[[bytes, int], bytes]:
    return lambda seed, size: raw(size)


DOCUMENT_ATTACKS: dict[str, Callable[[bytes, int], bytes]] = {
    "deep arrays": _whole(lambda n: b"[" * n + b"]" * n),
    "deep objects": _whole(lambda n: _repeat(b'{"a":', n // 2) + b"0" + b"}" * (n // 10)),
    "unclosed deep arrays": _whole(lambda n: b"[" * n),
    "deep arrays in a value": _in_value(lambda n: b"[" * (n // 2) + b"]" * (n // 2)),
    "many small items in a value": _in_value(lambda n: b"[" + _repeat(b"0,", n) + b"0]"),
    # issue 14: 10M of these in a 30 MB Chat request peaked at 73x the body converting to Lux
    "many empty objects in a value": _in_value(lambda n: b"[" + _repeat(b"{},", n) + b"{}]"),
    "many keys in a value": _in_value(lambda n: b"{" + b",".join(b'"k%d":0' % i for i in range(n // 10)) + b"}"),
    "duplicate keys in a value": _in_value(lambda n: b"{" + _repeat(b'"a":0,', n) + b'"a":0}'),
    "many small items": _whole(lambda n: b"[" + _repeat(b"0,", n) + b"0]"),
    "long number": _whole(lambda n: b"1" * n),
    "long number in a value": _in_value(lambda n: b"1" * n),
    "escaped quotes, unterminated (JSON text)": _in_string(lambda n: "[" * 600 + '"' + '\\"' * (n // 2)),
    "brackets in JSON text": _in_string(lambda n: "[" * (n // 2) + "]" * (n // 2)),
    "unterminated object in JSON text": _in_string(lambda n: '{"a":' * (n // 5)),
    "duplicate keys in JSON text": _in_string(lambda n: "{" + '"a":0,' * (n // 6) + '"a":0}'),
    "escapes in a string": _in_string(lambda n: "\\u0041" * (n // 6)),
    "lone surrogate escapes": _whole(lambda n: b'"' + _repeat(b"\\ud800", n) + b'"'),
    "surrogate pairs in JSON text": _in_string(lambda n: "\\ud83d\\ude00" * (n // 12)),
    "whitespace": _whole(lambda n: b" " * n),
    "invalid UTF-8": _whole(lambda n: b'"' + b"\xff" * n + b'"'),
    "long string": _in_string(lambda n: "a" * n),
}
"""Name -> builder(seed, size) of a hostile document."""


def _frames(unit: bytes) -> Callable[[bytes, int], bytes]:
    return lambda seed, size: _repeat(unit, size)


STREAM_ATTACKS: dict[str, Callable[[bytes, int], bytes]] = {
    "one long line": _frames(b"a"),
    "one long data line": lambda seed, size: b"data: " + b"x" * size,
    "many empty events": _frames(b"\n\n"),
    "many data lines in one event": lambda seed, size: _repeat(b"data: {}\n", size) + b"\n",
    "many comments": _frames(b": keep-alive\n"),
    "bare carriage returns": _frames(b"\r"),
    "many retry fields": _frames(b"retry: 1\n"),
    "one long retry field": lambda seed, size: b"retry: " + b"9" * size + b"\n\n" + seed,  # past int()'s 4,300 digits
    "deep frame": lambda seed, size: b"data: " + b"[" * size + b"\n\n",
    "many repeated frames": lambda seed, size: _repeat(seed.split(b"\n\n")[0] + b"\n\n", size) if seed else b"",
    "many tiny frames": _frames(b"data: {}\n\n"),
}
"""Name -> builder(seed stream, size) of a hostile event stream."""
