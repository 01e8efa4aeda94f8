"""The caller's context is plain JSON, checked before any conversion reads it (issue 16 §4).

Whatever the caller passes, a conversion either reads a copy made of str, int, float, bool, None,
objects and arrays, or refuses the context with ``UsageError`` code ``invalid_context`` and the
path of the value in the context. No other exception escapes from a hostile mapping or value.
"""

from __future__ import annotations

import collections.abc
import enum
import json
from typing import Any

import msgspec
import pytest

import lucent
from lucent import streams
from lucent.errors import UsageError

_CHAT = json.dumps({"model": "gpt-4o", "messages": [{"role": "user", "content": "hi"}]}).encode()
_ANTHROPIC_STREAM = json.dumps(
    [
        {"type": "message_start", "message": {"id": "msg_1", "type": "message", "role": "assistant", "model": "claude", "content": [], "stop_reason": None, "stop_sequence": None, "usage": {"input_tokens": 1, "output_tokens": 0}}},
        {"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}},
        {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "hi"}},
        {"type": "content_block_stop", "index": 0},
        {"type": "message_delta", "delta": {"stop_reason": "end_turn", "stop_sequence": None}, "usage": {"output_tokens": 1}},
        {"type": "message_stop"},
    ]
)


class _RaisesOnRead(collections.abc.Mapping[str, Any]):
    def __getitem__(self, key: str) -> Any:
        raise ZeroDivisionError

    def __iter__(self) -> Any:
        return iter(["id"])

    def __len__(self) -> int:
        return 1


class _RaisesOnCompare:
    def __eq__(self, other: object) -> bool:
        raise ZeroDivisionError

    __hash__ = object.__hash__


@pytest.mark.parametrize(
    ("context", "path", "says"),
    [
        ({1: "x"}, "$", "key of type int"),
        ({None: 1}, "$", "key of type NoneType"),
        ({"model": "\ud800"}, "$.model", "lone surrogate"),
        ({"model": _RaisesOnCompare(), "max_tokens": 5}, "$.model", "of type _RaisesOnCompare"),
        ({"max_tokens": float("nan")}, "$.max_tokens", "nan"),
        ({"max_tokens": float("inf")}, "$.max_tokens", "inf"),
        ({"model": {1, 2}}, "$.model", "of type set"),
        ({"model": b"claude"}, "$.model", "of type bytes"),
        ({"model": _RaisesOnRead()}, "$", "could not be read: ZeroDivisionError"),
    ],
)
def test_a_context_that_is_not_plain_json_is_refused_with_its_path(context: dict[Any, Any], path: str, says: str) -> None:
    with pytest.raises(UsageError) as raised:
        lucent.convert(_CHAT, "openai-chat", "anthropic", context=context)
    assert (raised.value.code, raised.value.path) == ("invalid_context", path)
    assert says in str(raised.value)


def test_a_stream_context_is_checked_the_same_way() -> None:
    for context, path in [({"created": "\ud800"}, "$.created"), ({None: 1}, "$"), ({"id": _RaisesOnRead()}, "$")]:
        with pytest.raises(UsageError) as raised:
            list(streams.convert_stream(json.loads(_ANTHROPIC_STREAM), "anthropic", "openai-chat", context=context))
        assert (raised.value.code, raised.value.path) == ("invalid_context", path)


class _Model(str, enum.Enum):
    SONNET = "claude-sonnet-4-5"


def test_subclasses_of_json_types_are_read_as_the_base_type() -> None:
    result = lucent.convert(_CHAT, "openai-chat", "anthropic", context={"model": _Model.SONNET, "max_tokens": True + 63})
    assert type(result.value.model) is str and result.value.model == "claude-sonnet-4-5"
    assert type(result.value.max_tokens) is int and result.value.max_tokens == 64


def test_a_struct_in_the_context_is_read_as_its_json_members() -> None:
    class Envelope(msgspec.Struct):
        id: str

    from lucent._stream_base import context_of

    assert context_of({"response": Envelope(id="resp_1"), "n": [1, 2.5, None]}) == {"response": {"id": "resp_1"}, "n": [1, 2.5, None]}
