"""The memory a conversion spends beyond the decode (issue 14, class 8c).

The figures per input byte are measured by ``python -m bench.memory`` (bench/results/memory.md,
SECURITY.md). These tests hold the classes of fault fixed there: a conversion's peak (traced
by tracemalloc, which counts allocations, not time) stays within a bound of msgspec's untyped
decode of the same body, for the shapes whose bulk is JSON typed ``Any`` (a tool's schema), in
every source format; before, a tool schema was copied whole (``to_builtins``) once or twice, a
Lux-bound source was copied again to look for unknown members, the source was held while the
target was checked, and duplicate properties were named one diagnostic each.
"""

from __future__ import annotations

import tracemalloc
from collections.abc import Callable
from pathlib import Path
from typing import Any

import msgspec
import pytest

import lucent
from lucent._context import read_by
from bench import memory
from lucent._transforms import plain_members

SNAPSHOTS = Path(__file__).parent / "data" / "lingua" / "snapshots"


def _peak(call: Callable[[], Any]) -> int:
    tracemalloc.start()
    try:
        call()
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


BOUNDS = {"empty-objects": 2.6, "small-arrays": 2.6, "deep-nesting": 2.6, "duplicate-keys": 4.0}
"""Peak of convert / peak of msgspec.json.decode (measured 2.04-2.12x, dups 3.43-3.46x; were
2.8-4.1x and 6.4x)."""

CONTEXT = memory.CONTEXT  # every target valid: the check's own cost only


@pytest.mark.parametrize("shape", list(BOUNDS))
@pytest.mark.parametrize(("source", "target"), [(s, t) for s, targets in memory.TARGETS.items() for t in targets])
def test_a_conversion_peaks_within_a_bound_of_the_bare_decode(shape: str, source: str, target: str) -> None:
    context = read_by(CONTEXT, source, target)  # the keys this conversion reads: lucent refuses any other
    warm = memory.shape(shape, source, 2_000)
    lucent.convert(warm, source, target, context=context)
    body = memory.shape(shape, source, 100_000)
    baseline = _peak(lambda: msgspec.json.decode(body))
    result: list[Any] = []
    peak = _peak(lambda: result.append(lucent.convert(body, source, target, context=context)))
    assert not [d for d in result[0].diagnostics if d.status == "Invalid"]
    assert peak / baseline <= BOUNDS[shape], f"{peak / baseline:.2f}x msgspec's decode ({peak / len(body):.1f} bytes a byte)"


def _structs(value: Any) -> list[msgspec.Struct]:
    found, stack = [], [value]
    while stack:
        node = stack.pop()
        if isinstance(node, msgspec.Struct):
            found.append(node)
            stack.extend(getattr(node, name) for name in node.__struct_fields__)
        elif isinstance(node, (list, tuple)):
            stack.extend(node)
        elif isinstance(node, dict):
            stack.extend(node.values())
    return found


@pytest.mark.parametrize(("folder", "schema", "definition"), [
    ("anthropic", "anthropic", "CreateMessageParams"),
    ("responses", "openai-responses", "CreateResponse"),
    ("chat-completions", "openai-chat", "CreateChatCompletionRequest"),
    ("google", "gemini", "GenerateContentRequest"),
])
def test_plain_members_is_to_builtins_sharing_only_plain_json(folder: str, schema: str, definition: str) -> None:
    checked = shared = 0
    for path in sorted(SNAPSHOTS.glob(f"*/{folder}/request.json")):
        try:
            document = lucent.decode(path.read_bytes(), schema, definition)
        except lucent.errors.LucentError:  # a snapshot its schema refuses (lingua records a few)
            continue
        for struct in _structs(document):
            plain = plain_members(struct)
            assert msgspec.json.encode(plain) == msgspec.json.encode(msgspec.to_builtins(struct))  # equal, in order
            assert not _structs(plain)  # nothing left to convert
            for name, key in zip(struct.__struct_fields__, struct.__struct_encode_fields__):
                value = getattr(struct, name)
                if isinstance(value, dict) and plain.get(key) is value:
                    shared += 1
            checked += 1
    assert checked > 100 and shared > 0
