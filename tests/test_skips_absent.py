"""``@skips_absent`` (lucent._conversion.skips_absent): a transform so declared does nothing for
absent source values, so the generated converters call it only when a value it reads is there.

Every declared transform is called with every source value UNSET and must return UNSET without
a diagnostic, a kept member, a memo, a provenance record or a side-car read; the converters guard
exactly the declared calls.
"""

from __future__ import annotations

import importlib
import inspect
from pathlib import Path
from typing import Any

import pytest
from msgspec import UNSET

from codegen.mappings import transform_skips
from lucent._conversion import Cx

ROOT = Path(__file__).resolve().parents[1]
SKIPS = transform_skips(ROOT)
DECLARED = sorted({(package, name) for package, names in SKIPS.items() for name in names})


def _call_absent(package: str, name: str) -> tuple[Any, Cx]:
    module = importlib.import_module(f"lucent.formats.{package}.transforms")
    fn = getattr(module, name, None) or getattr(importlib.import_module("lucent._transforms"), name)  # as codegen binds it
    cx = Cx(None)
    args: list[Any] = []
    kwargs: dict[str, Any] = {}
    for param in inspect.signature(fn).parameters.values():
        if param.name == "path":
            args.append("$.x")
        elif param.name == "cx":
            args.append(cx)
        elif param.name == "status":
            args.append("Degraded")
        elif param.name == "reason":
            args.append("a reason")
        elif param.name == "carried":
            kwargs["carried"] = "k"
        else:
            args.append(UNSET)
    return fn(*args, **kwargs), cx


def test_the_declarations_are_found() -> None:
    assert ("openai_chat", "null_kept") in DECLARED  # a shared transform, as the format binds it
    assert ("openai_chat", "chat_tools_to_lux") in DECLARED
    assert ("openai_chat", "chat_stream_flag") not in DECLARED  # absent is False: not declared
    assert ("openai_chat", "absent_flag") not in DECLARED


@pytest.mark.parametrize(("package", "name"), DECLARED)
def test_a_declared_transform_does_nothing_for_absent_values(package: str, name: str) -> None:
    value, cx = _call_absent(package, name)
    assert value is UNSET
    assert list(cx.diagnostics) == []
    assert (cx._kept, cx.memo, cx._built, cx._sourced, cx._read) == ([], {}, {}, {}, set())


def test_an_undeclared_transform_would_fail_the_check() -> None:
    value, _cx = _call_absent("openai_chat", "absent_flag")  # True for an absent member
    assert value is True
    value, _cx = _call_absent("openai_chat", "chat_stream_flag")
    assert value is False


def test_the_converters_guard_exactly_the_declared_calls() -> None:
    text = (ROOT / "generated" / "convert_openai_chat_lux.py").read_text(encoding="utf-8")
    assert '_shared.null_kept(src.temperature, f"{path}.temperature", cx) if src.temperature is not UNSET else UNSET' in text
    assert "if src.max_completion_tokens is not UNSET or src.max_tokens is not UNSET" in text
    assert 'options_stream = _openai_chat.chat_stream_flag(src.stream, f"{path}.stream", cx)\n' in text
    assert 'extra_openai_chat_stream_absent = _shared.absent_flag(src.stream, f"{path}.stream", cx)\n' in text
