"""The hang check: an input's time over the time of a valid input of the same size, same run.

``ratio(target, data, valid)`` times ``data`` on ``target`` (the best of a few runs) and a valid
input grown to at least the same size from ``valid``, and divides. A valid input is grown the way
real inputs grow: a document's longest array gets more copies of its items (more messages,
more parts); a stream gets more copies of one of its frames (more deltas); if the target refuses
every such growth (a ``maxItems``, a closed stream), the longest string grows instead. The bound
is :data:`MAX_RATIO` (issue 7: no input takes more than 50x a valid document of its size).
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterator
from typing import Any

from lucent.errors import LucentError

from .targets import Target

__all__ = ["MAX_RATIO", "best_time", "grow", "ratio"]

MAX_RATIO = 50.0


def best_time(run: Callable[[bytes], Any], data: bytes, repeat: int = 5) -> float:
    """The shortest of ``repeat`` runs, in seconds (lucent errors are a normal outcome)."""
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        try:
            run(data)
        except LucentError:
            pass
        best = min(best, time.perf_counter() - start)
    return best


def _accepts(target: Target, data: bytes) -> bool:
    try:
        target.run(data)
    except Exception:  # noqa: BLE001 - refused (or crashed: the fuzz run reports that)
        return False
    return True


def _arrays(value: Any) -> Iterator[list[Any]]:
    stack = [value]
    while stack:
        node = stack.pop()
        if isinstance(node, list):
            if node:
                yield node
            stack.extend(node)
        elif isinstance(node, dict):
            stack.extend(node.values())


def _strings(value: Any) -> Iterator[tuple[Any, Any]]:
    """(container, key) of every string, so that it can be replaced."""
    stack = [value]
    while stack:
        node = stack.pop()
        items = node.items() if isinstance(node, dict) else enumerate(node) if isinstance(node, list) else ()
        for key, item in items:
            if isinstance(item, str):
                yield node, key
            else:
                stack.append(item)


def _grown_documents(valid: bytes, size: int) -> Iterator[bytes]:
    for rank in range(4):
        copy = json.loads(valid)
        arrays = sorted(_arrays(copy), key=lambda a: -len(json.dumps(a)))
        if rank >= len(arrays):
            break
        array = arrays[rank]
        step = len(json.dumps(array, ensure_ascii=False).encode())
        copies = -(-(size - len(valid)) // step)
        array.extend(json.loads(json.dumps(array)) * copies)
        yield json.dumps(copy, ensure_ascii=False).encode()
    copy = json.loads(valid)
    spots = sorted(_strings(copy), key=lambda s: -len(s[0][s[1]]))
    if spots:
        container, key = spots[0]
        container[key] += "x" * max(size - len(valid), 0)
        yield json.dumps(copy, ensure_ascii=False).encode()


def _grown_streams(valid: bytes, size: int) -> Iterator[bytes]:
    frames = [f + b"\n\n" for f in valid.replace(b"\r\n", b"\n").split(b"\n\n") if f.strip()]
    for index in range(len(frames)):
        copies = max(1, (size - len(valid)) // max(len(frames[index]), 1) + 1)
        yield b"".join(frames[:index] + [frames[index]] * (copies + 1) + frames[index + 1 :])


def grow(target: Target, valid: bytes, size: int) -> bytes | None:
    """A valid input of ``target`` at least ``size`` bytes long, grown from ``valid``; None if
    no growth is accepted."""
    if len(valid) >= size:
        return valid if _accepts(target, valid) else None
    prefix = valid[:1] if target.name.endswith(":split") else b""
    body = valid[len(prefix) :]
    candidates = _grown_streams(body, size) if target.stream is not None else _grown_documents(body, size)
    for candidate in candidates:
        if _accepts(target, prefix + candidate):
            return prefix + candidate
    return None


def ratio(target: Target, data: bytes, valid: list[bytes]) -> tuple[float, int] | None:
    """(time of ``data`` / time of a valid input of at least its size, that size); None when
    no valid input of ``target`` grows to it."""
    size = len(data)
    larger = sorted((v for v in valid if len(v) >= size), key=len)  # the nearest size first
    smaller = sorted((v for v in valid if len(v) < size), key=len, reverse=True)  # grown from the largest
    for seed in (larger + smaller)[:12]:
        grown = grow(target, seed, size)
        if grown is not None:
            return best_time(target.run, data) / best_time(target.run, grown), len(grown)
    return None
