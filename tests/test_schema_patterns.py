"""Schema ``pattern`` keywords: compiled once, bounded by ``maxLength`` first, never backtracking.

Codegen translates each ECMA-262 pattern to Python (``codegen/ecma_regex.py``) and gives it to
``msgspec.Meta(pattern=...)``, which compiles it when the binding is imported and checks
``max_length`` before it runs the pattern. The patterns are read back from every schema's decode
types (vendor schemas included, ``tests.fuzz.patterns``); the fuzz session also times each
one's worst inputs at n and 10 n characters.
"""

from __future__ import annotations

import json
import re
from typing import Annotated, Any

import msgspec
import pytest

import lucent
from lucent.errors import ValidationError
from tests.fuzz.patterns import backtracking_hazards, patterns, worst_inputs

PATTERNS = patterns()


def test_every_schema_with_a_pattern_is_read() -> None:
    schemas = {p.schema for p in PATTERNS}
    assert {"sparktide-remote-1.0", "anthropic", "openai-responses"} <= schemas
    assert any(p.pattern.startswith("^srvtoolu_") for p in PATTERNS)


@pytest.mark.parametrize("found", PATTERNS, ids=lambda p: f"{p.schema}:{p.pattern[:40]}")
def test_no_schema_pattern_can_backtrack_more_than_linearly(found: Any) -> None:
    assert backtracking_hazards(found.pattern) == []
    compiled = re.compile(found.pattern)
    for text in worst_inputs(found.pattern, 2_000):
        compiled.search(text)  # the inputs exist and run (the session times them)


@pytest.mark.parametrize(
    ("pattern", "hazard"),
    [
        ("^(a+)+$", "nested repeat"),
        ("^(a|aa)*b$", "repeated alternation"),
        ("^\\d+\\w+$", "adjacent overlapping repeats"),
        ("^\\s*\\s*x", "adjacent overlapping repeats"),
        ("[a-z]+X", "unanchored leading repeat"),
    ],
)
def test_the_static_check_finds_each_kind_of_hazard(pattern: str, hazard: str) -> None:
    assert any(found.startswith(hazard) for found in backtracking_hazards(pattern))


def test_safe_shapes_pass_the_static_check() -> None:
    for pattern in ("^[a-z][-0-9a-z]{0,63}$", "^tunnel_[0-9a-z]{32}$", "[^\\s]", "^(ab)?c+$"):
        assert backtracking_hazards(pattern) == []


def test_max_length_is_checked_before_the_pattern_runs() -> None:
    # A catastrophic pattern on a long input would run for hours; the length check stops first.
    bounded = Annotated[str, msgspec.Meta(max_length=8, pattern="^(a+)+$")]
    with pytest.raises(msgspec.ValidationError, match="length <= 8"):
        msgspec.json.decode(json.dumps("a" * 5000 + "!").encode(), type=bounded)


def test_a_sparktide_id_over_its_max_length_is_refused_by_max_length() -> None:
    request = json.loads(open("examples/sparktide-request.json", "rb").read())
    request["invocationId"] = " " * 300  # the pattern refuses it too, but the length comes first
    with pytest.raises(ValidationError) as raised:
        lucent.decode(json.dumps(request), "sparktide-remote-1.0", "RemoteModelRequest")
    assert (raised.value.code, raised.value.path) == ("maxLength", "$.invocationId")


def test_patterns_are_compiled_when_the_binding_is_imported_not_per_decode(monkeypatch: pytest.MonkeyPatch) -> None:
    body = open("examples/sparktide-request.json", "rb").read()
    lucent.decode(body, "sparktide-remote-1.0", "RemoteModelRequest")
    compiled: list[Any] = []
    real = re._compile  # type: ignore[attr-defined]

    def counting(pattern: Any, flags: Any) -> Any:
        if isinstance(pattern, str) and pattern in {p.pattern for p in PATTERNS}:
            compiled.append(pattern)
        return real(pattern, flags)

    monkeypatch.setattr(re, "_compile", counting)
    for _ in range(20):
        lucent.decode(body, "sparktide-remote-1.0", "RemoteModelRequest")
    assert compiled == []
