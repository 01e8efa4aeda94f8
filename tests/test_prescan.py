"""lucent._prescan (lucent/_prescan.c): the depth and UTF-8 check before parsing, in C.

Both implementations (64 bytes at a time with SSE2, and byte by byte) are held to a Python
reference on random texts, on texts built around the 64-byte block edges and on the workloads;
``lucent.decode`` gives the same answer, error and offset with the extension and without it
(the Python fallback, ``lucent._decode._prescan_python``).
"""

from __future__ import annotations

import json
import os
import random
from collections.abc import Callable

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import lucent
from lucent import _decode
from lucent.errors import DecodeError, LucentError

prescan_module = pytest.importorskip("lucent._prescan", reason="the C extension is not built (pyproject.toml: optional)")
IMPLEMENTATIONS: dict[str, Callable[[bytes, int, bool], int]] = {
    "blocks": prescan_module.prescan,
    "bytes": prescan_module.prescan_scalar,
}


def test_the_extension_is_built_in_ci() -> None:
    """A CI machine has a compiler: there the extension must be built and used by decode."""
    if not os.environ.get("CI"):
        pytest.skip("the extension is optional outside CI")
    assert _decode._prescan is prescan_module.prescan


def reference(text: bytes, limit: int) -> tuple[int | None, int | None]:
    """(offset of the first bracket past ``limit``, offset of the first ill-formed UTF-8), one
    byte at a time: a backslash escapes the byte after it, brackets between quotes are text."""
    try:
        text.decode("utf-8")
        bad = None
    except UnicodeDecodeError as exc:
        bad = exc.start
    depth, i, in_string = 0, 0, False
    while i < len(text):
        byte = text[i]
        if byte == 0x5C:
            i += 2
            continue
        if byte == 0x22:
            in_string = not in_string
        elif not in_string and byte in b"[{":
            depth += 1
            if depth > limit:
                return i, bad
        elif not in_string and byte in b"]}":
            depth -= 1
        i += 1
    return None, bad


def agrees(text: bytes, limit: int, utf8: bool, found: int) -> bool:
    deep, bad = reference(text, limit)
    if not utf8:
        bad = None
    if found == -1:
        return deep is None and bad is None
    if found == -2:  # too deep, and no ill-formed UTF-8 more than a block before that point
        return deep is not None and (bad is None or bad > deep - 64)
    return found == bad and (deep is None or bad < deep + 64)


PIECES = [
    b"[", b"]", b"{", b"}", b'"', b"\\", b"a", b":", b",", b" ", b"\\\\", b'\\"', b"\\[",
    "é".encode(), "中".encode(), "😀".encode(),
    b"\x80", b"\xc3", b"\xed\xa0\x80", b"\xf4\x90\x80\x80", b"\xe0\x80\x80", b"\xc0\xaf", b"\xff", b"\xf0\x9f\x98",
]


@pytest.mark.parametrize("name", IMPLEMENTATIONS)
def test_random_texts_agree_with_the_reference(name: str) -> None:
    scan = IMPLEMENTATIONS[name]
    rng = random.Random(11)
    deep = bad = 0
    for _ in range(20_000):
        text = b"".join(rng.choice(PIECES) for _ in range(rng.choice([rng.randint(0, 40), rng.randint(60, 300)])))
        if rng.random() < 0.5:
            text = text.decode("utf-8", "ignore").encode()
        limit = rng.randint(0, 12)
        for utf8 in (True, False):
            found = scan(text, limit, utf8)
            assert agrees(text, limit, utf8, found), (text, limit, utf8, found, reference(text, limit))
            deep += found == -2
            bad += found >= 0
    assert deep > 2_000 and bad > 2_000  # both faults were met often


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(PIECES), max_size=200), st.integers(0, 10), st.booleans(), st.integers(0, 70))
def test_generated_texts_agree_with_the_reference(pieces: list[bytes], limit: int, utf8: bool, pad: int) -> None:
    text = b" " * pad + b"".join(pieces)  # the padding moves every byte across the block edges
    for scan in IMPLEMENTATIONS.values():
        assert agrees(text, limit, utf8, scan(text, limit, utf8))


@pytest.mark.parametrize("name", IMPLEMENTATIONS)
@pytest.mark.parametrize("at", [0, 1, 62, 63, 64, 65, 127, 128, 200])
def test_faults_at_the_block_edges(name: str, at: int) -> None:
    scan = IMPLEMENTATIONS[name]
    pad = b"x" * at
    # a string that crosses the edge hides its brackets; a run of backslashes across it
    assert scan(b'"' + pad + b'[[[["', 2, True) == -1
    assert scan(b'["' + pad + b'\\\\"[[', 2, True) == -2
    assert scan(b'["' + pad + b'\\"[[', 2, True) == -1
    assert scan(b'["' + pad + b'\\\\\\"[[', 2, True) == -1
    # UTF-8 sequences split by the edge, and cut short by the end of the text
    assert scan(pad + "中😀é".encode(), 0, True) == -1
    assert scan(pad + b"\xe4\xb8", 0, True) == at
    assert scan(pad + b"\xe4\xb8x", 0, True) == at
    assert scan(pad + "中".encode() + b"\x80", 0, True) == at + 3
    assert scan(pad + b"\xed\xa0\x80", 0, True) == at  # a surrogate
    assert scan(pad + b"\xed\xa0\x80", 0, False) == -1
    # the depth passes the limit exactly at the edge
    text = b" " * at + b"[" * 3 + b"]" * 3
    assert scan(text, 3, True) == -1 and scan(text, 2, True) == -2


@pytest.mark.parametrize("name", ["lux", "sparktide", "llm-sdk", "htmlp", "diagnostics", "openai-chat", "anthropic", "gemini"])
def test_the_workloads_agree_with_the_python_check(name: str) -> None:
    from bench import workloads

    for size in ("1KB", "20KB"):
        body = workloads.document(name, size)
        deepest = max(_depths(json.loads(body)))
        for scan in IMPLEMENTATIONS.values():
            assert scan(body, deepest, True) == -1
            assert scan(body, deepest - 1, True) == -2


def _depths(value: object, depth: int = 0) -> list[int]:
    if isinstance(value, dict):
        return [d for v in value.values() for d in _depths(v, depth + 1)] or [depth + 1]
    if isinstance(value, list):
        return [d for v in value for d in _depths(v, depth + 1)] or [depth + 1]
    return [depth]


HOSTILE = [
    b"[" * 600 + b"]" * 600,
    b'{"schema_version":"v1","x":' + b"[" * 600 + b"\xff" + b"]" * 600 + b"}",
    b'{"schema_version":"v1","x":"' + b"\xff" * 3 + b'"}',
    b'{"schema_version":"v1","x":"\xed\xa0\x80"}',
    b'{"schema_version":"v1","x":' + b"[" * 300 + b"]" * 300 + b"}",
    b'{"schema_version":"v1","x":"' + "中".encode() * 30 + b"\xe4\xb8" + b'"}',
    b'["\\' + b"[" * 600,
]


@pytest.mark.parametrize("text", HOSTILE, ids=range(len(HOSTILE)))
@pytest.mark.parametrize(("schema", "definition"), [("lux-ir-v1", "LucentRequest"), ("lucent-diagnostics-v1", None), ("sparktide-remote-1.0", None)])
def test_decode_answers_alike_with_and_without_the_extension(text: bytes, schema: str, definition: str | None, monkeypatch: pytest.MonkeyPatch) -> None:
    def outcome() -> tuple[str, str, int | None] | str:
        try:
            return type(lucent.decode(text, schema, definition, limits=lucent.Limits(max_depth=400))).__name__
        except LucentError as exc:
            return type(exc).__name__, exc.code, getattr(exc, "offset", None)

    with_c = outcome()
    monkeypatch.setattr(_decode, "_prescan", None)
    assert outcome() == with_c
    if isinstance(with_c, tuple) and with_c[0] == "DecodeError":
        assert with_c[1] in {"max_depth", "invalid_utf8", "malformed_json"}


def test_invalid_utf8_wins_over_depth_as_before() -> None:
    text = b'{"a":' + b"[" * 600 + b"]" * 600 + b',"b":"\xff"}'
    with pytest.raises(DecodeError) as raised:
        lucent.decode(text, "lux-ir-v1", "LucentRequest")
    assert (raised.value.code, raised.value.offset) == ("invalid_utf8", text.index(b"\xff"))


def test_a_depth_cap_beyond_a_c_long_long_is_no_limit() -> None:
    """The hostile-input helper's F2: Limits(max_depth=2**63) raised OverflowError from the C call."""
    from bench import workloads

    body = workloads.document("lux", "1KB")
    for cap in (2**63, 10**30):
        assert lucent.decode(body, "lux-ir-v1", "LucentRequest", limits=lucent.Limits(max_depth=cap)) == lucent.decode(body, "lux-ir-v1", "LucentRequest")
    assert lucent.Limits(max_depth=10**30).depth() == 2**62


def test_a_released_memoryview_is_a_usage_error() -> None:
    """The hostile-input helper's F3: it raised ValueError from memoryview.nbytes."""
    view = memoryview(b"{}")
    view.release()
    with pytest.raises(lucent.errors.UsageError) as raised:
        lucent.decode(view, "lux-ir-v1", "LucentRequest")
    assert raised.value.code == "invalid_input_type"
