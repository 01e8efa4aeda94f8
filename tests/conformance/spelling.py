"""Spell one JSON value as JSON text in several styles.

A decoder must not care how a value is written: whitespace, ``\\u`` escapes
(surrogate pairs for astral characters), ``\\/``, and integers written as
``12e0`` or ``1.2E1`` (JSON Schema counts them as integers) are all the same
value.
"""

from __future__ import annotations

import json
import random
from typing import Any

__all__ = ["STYLES", "spell"]

STYLES = ("compact", "pretty", "ascii", "scrambled")
_SPACE = (" ", "\t", "\n", "\r", "  ")


def spell(value: Any, style: str, rng: random.Random) -> bytes:
    """JSON text (UTF-8) for *value* in *style* (one of `STYLES`)."""
    if style == "compact":
        return json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode()
    if style == "pretty":
        return json.dumps(value, ensure_ascii=False, indent=2).encode()
    if style == "ascii":
        return json.dumps(value).encode()
    if style == "scrambled":
        return (_ws(rng) + _write(value, rng) + _ws(rng)).encode()
    raise ValueError(f"unknown style {style!r}")


def _ws(rng: random.Random) -> str:
    return rng.choice(_SPACE) if rng.random() < 0.3 else ""


def _write(value: Any, rng: random.Random) -> str:
    if isinstance(value, dict):
        items = [
            f"{_ws(rng)}{_string(k, rng)}{_ws(rng)}:{_ws(rng)}{_write(v, rng)}{_ws(rng)}" for k, v in value.items()
        ]
        return "{" + ",".join(items) + "}" if items else "{" + _ws(rng) + "}"
    if isinstance(value, list):
        items = [f"{_ws(rng)}{_write(v, rng)}{_ws(rng)}" for v in value]
        return "[" + ",".join(items) + "]" if items else "[" + _ws(rng) + "]"
    if isinstance(value, str):
        return _string(value, rng)
    if isinstance(value, bool) or value is None:
        return json.dumps(value)
    if isinstance(value, int) and abs(value) <= 2**53 and rng.random() < 0.15:
        return rng.choice((f"{value}e0", f"{value}E+0", f"{value}.0", f"{value * 10}e-1"))
    return json.dumps(value)


def _string(text: str, rng: random.Random) -> str:
    out = ['"']
    for char in text:
        code = ord(char)
        if char in '"\\' or code < 0x20 or rng.random() < 0.1:
            out.append(_escape(char, rng))
        elif char == "/" and rng.random() < 0.5:
            out.append("\\/")
        else:
            out.append(char)
    out.append('"')
    return "".join(out)


def _escape(char: str, rng: random.Random) -> str:
    short = {'"': '\\"', "\\": "\\\\", "\n": "\\n", "\r": "\\r", "\t": "\\t", "\b": "\\b", "\f": "\\f"}
    if char in short and rng.random() < 0.5:
        return short[char]
    code = ord(char)
    if code > 0xFFFF:
        code -= 0x10000
        high, low = 0xD800 + (code >> 10), 0xDC00 + (code & 0x3FF)
        return f"\\u{high:04x}\\u{low:04X}"
    return f"\\u{code:04x}" if rng.random() < 0.5 else f"\\u{code:04X}"
