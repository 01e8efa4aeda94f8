"""msgspec.convert works a type that is not a class (a union, ``list[...]``, ``Annotated``) out
again on every call: ~19 us for Anthropic's 17-branch InputContentBlock against ~0.3 us for one
Struct. Every block a Lux -> Anthropic conversion wrote paid it (about half of that hop), and
every event a stream writer built for OpenAI Responses. ``_validation.convert_as`` converts such a
type through a Struct made for it once; converters and stream writers call it instead.
"""

from __future__ import annotations

import builtins
import sys
from typing import Any

import msgspec
import pytest

import lucent
from lucent._context import read_by
from lucent import streams
from lucent import _validation
from lucent.generated.anthropic import InputContentBlock, RequestTextBlock, RequestToolUseBlock


def test_convert_as_gives_what_msgspec_convert_gives() -> None:
    text = {"type": "text", "text": "hi"}
    use = {"type": "tool_use", "id": "toolu_1", "name": "f", "input": {"a": 1}}
    assert _validation.convert_as(text, InputContentBlock) == msgspec.convert(text, InputContentBlock) == RequestTextBlock(text="hi")
    assert isinstance(_validation.convert_as(use, InputContentBlock), RequestToolUseBlock)
    assert _validation.convert_as([text, text], list[InputContentBlock]) == [RequestTextBlock(text="hi")] * 2
    assert _validation.convert_as(text, RequestTextBlock) == RequestTextBlock(text="hi")


def test_convert_as_keeps_one_struct_per_type() -> None:
    _validation.convert_as({"type": "text", "text": "a"}, InputContentBlock)
    box = _validation._BOXES[InputContentBlock]
    _validation.convert_as({"type": "text", "text": "b"}, InputContentBlock)
    assert _validation._BOXES[InputContentBlock] is box


@pytest.mark.parametrize("bad", [{"type": "text"}, {"type": "nope"}, [], {"type": "text", "text": 3}])
def test_convert_as_raises_msgspecs_own_error(bad: Any) -> None:
    with pytest.raises(msgspec.ValidationError) as plain:
        msgspec.convert(bad, InputContentBlock)
    with pytest.raises(msgspec.ValidationError) as boxed:
        _validation.convert_as(bad, InputContentBlock)
    assert str(boxed.value) == str(plain.value)  # no `$.value` from the box in the message or path


def _spy(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, str]]:
    """The (module, type) of every msgspec.convert call with a type that is not a class."""
    calls: list[tuple[str, str]] = []
    real = msgspec.convert

    def spy(value: Any, type: Any = None, *args: Any, **kwargs: Any) -> Any:  # noqa: A002 (msgspec's name)
        if not isinstance(type, builtins.type):
            calls.append((sys._getframe(1).f_code.co_filename, str(type)[:80]))
        return real(value, type, *args, **kwargs)

    monkeypatch.setattr(msgspec, "convert", spy)
    return calls


def test_no_conversion_converts_to_a_union_with_msgspec_directly(monkeypatch: pytest.MonkeyPatch) -> None:
    from bench import workloads  # not bench.__main__: it imports orjson, which the tests extra lacks
    from lucent.generated.convert_registry import CONVERTERS

    context = {**workloads.SPARKTIDE_CONTEXT, "id": "resp_1", "created_at": 1893456000}
    formats = sorted({source for (source, _, kind) in CONVERTERS if kind == "request"} & set(workloads.DOCUMENTS))
    documents = {source: workloads.document(source, "1KB") for source in formats}
    calls = _spy(monkeypatch)
    pairs = 0
    for source in formats:
        for target in formats:
            if source != target:
                result = lucent.convert(documents[source], source=source, target=target, context=read_by(context, source, target))
                assert result.value is not None
                pairs += 1
    assert pairs >= 40
    assert calls == []


def test_no_stream_writer_converts_to_a_union_with_msgspec_directly(monkeypatch: pytest.MonkeyPatch) -> None:
    from bench import workloads

    sources = {fmt: workloads.stream_sse(fmt, 60) for fmt in streams.FORMATS}
    calls = _spy(monkeypatch)
    events = 0
    for source, body in sources.items():
        for target in streams.FORMATS:
            if source != target:
                events += sum(1 for _ in streams.convert_stream(body, source, target))
    assert events > 1_000
    assert calls == []
