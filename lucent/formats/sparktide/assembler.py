"""SparkTide REMOTE 1.0 stream frames -> RemoteModelResponse.

The rules come from ``#/$defs/RemoteModelStreamFrame``'s description ("每个 JSON 对象为一条 data:
SSE 帧；必须明确终结，拒绝 [DONE]、未知帧/字段、重复终结和截断。最大 4 MiB；工具参数拼接后必须是闭合
JSON 对象。") and from sparktide-docs/SOURCE.md: tool id and name are stable identities (an
identical repeat is not appended, a change is rejected), only arguments concatenate, tool names
come from the request's tools, LENGTH never finishes a result that has tool calls, at most 16
tool calls, usage received before a failure is kept, an empty usage stays ``{}``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import TypeVar

import msgspec
from msgspec import UNSET

from lucent._stream_base import Assembler, CallIdentities
from lucent._validation import RuleViolation, check_json_object_text
from lucent.generated.sparktide_remote_1_0 import (
    RemoteModelCompleted,
    RemoteModelError,
    RemoteModelMessage,
    RemoteModelResponse,
    RemoteModelTextDelta,
    RemoteModelToolCall,
    RemoteModelToolCallFunction,
    RemoteModelToolDelta,
    RemoteModelUsage,
    RemoteModelUsageDelta,
)


def _max_tool_calls() -> int:
    """``#/$defs/RemoteModelMessage/properties/tool_calls/maxItems``, from the generated binding."""
    info = msgspec.inspect.type_info(RemoteModelMessage)
    assert isinstance(info, msgspec.inspect.StructType)
    tool_calls = next(f.type for f in info.fields if f.name == "tool_calls")
    assert isinstance(tool_calls, msgspec.inspect.ListType) and tool_calls.max_length is not None
    return tool_calls.max_length


MAX_TOOL_CALLS = _max_tool_calls()


@dataclass
class SparkCall:
    """One tool call, merged by its ``index`` (the assembler's, and the stream reader's)."""

    first: int  # the frame that opened this tool call
    last: int  # the last frame that added to its arguments
    id: str | None = None
    name: str | None = None
    arguments: list[str] = field(default_factory=list)  # kept until model.completed checks them


C = TypeVar("C", bound=SparkCall)
Fail = Callable[[str, str, str], Exception]


def tool_delta(frame: RemoteModelToolDelta, index: int, calls: dict[int, C], opened: Callable[[int], C], identities: CallIdentities, fail: Fail) -> C:
    """The rules of a tool_delta frame (`index`: its place in the stream), for the assembler and
    the stream reader: at most :data:`MAX_TOOL_CALLS` calls, indexes 0 to one less
    (``too_many_tool_calls``; `opened(index)` makes a new one), id and name by `identities`, the
    arguments appended. The call it adds to."""
    at = f"$[{index}]"
    n = frame.index
    call = calls.get(n)
    if call is None:
        if not 0 <= n < MAX_TOOL_CALLS or len(calls) >= MAX_TOOL_CALLS:
            raise fail("too_many_tool_calls", f"frame {index} opens tool call index {n}; at most {MAX_TOOL_CALLS} are allowed (index 0..{MAX_TOOL_CALLS - 1})", f"{at}.index")
        call = calls[n] = opened(index)
    what = f"tool call index {n}"
    if frame.id is not UNSET:
        identities.id(call, frame.id, what, f"{at}.id", f" (set in frame {call.first})")
    if frame.name is not UNSET:
        identities.name(call, frame.name, what, f"{at}.name")
    if frame.arguments is not UNSET:
        call.arguments.append(frame.arguments)
        call.last = index
    return call


def completed_arguments(frame: RemoteModelCompleted, index: int, calls: dict[int, C], identities: CallIdentities, fail: Fail) -> dict[int, str]:
    """The rules of model.completed for the tool calls, in order (assembler and stream reader):
    LENGTH finishes no result that has tool calls (``length_with_tool_calls``), each call has its
    id and name, and its arguments, concatenated, are a closed JSON object
    (``malformed_arguments``). The arguments of each call by index."""
    if frame.finishReason == "LENGTH" and calls:
        indexes = ", ".join(str(n) for n in sorted(calls))
        raise fail("length_with_tool_calls", f"LENGTH cannot finish a result that has tool calls (index {indexes})", f"$[{index}].finishReason")
    texts: dict[int, str] = {}
    for n in sorted(calls):
        call = calls[n]
        identities.complete(call, f"tool call index {n}", f"$[{call.first}]")
        texts[n] = arguments = "".join(call.arguments)
        try:
            check_json_object_text(arguments, "")
        except RuleViolation as exc:
            raise fail("malformed_arguments", f"the arguments of tool call index {n}, concatenated, {exc.message.removeprefix('arguments ')}", f"$[{call.last}].arguments") from None
    return texts


class SparkTideAssembler(Assembler):
    """RemoteModelStreamFrame events -> RemoteModelResponse (see :mod:`lucent.streams`)."""

    format = "sparktide"

    def __init__(self, *, tools: Iterable[str] | None = None) -> None:
        super().__init__(tools=tools)
        self._text: list[str] = []
        self._calls: dict[int, SparkCall] = {}
        self._identities = CallIdentities(self._fail, self._check_declared)
        self._usage: dict[str, int] | None = None
        self._terminal: tuple[int, RemoteModelCompleted | RemoteModelError] | None = None
        self._result: RemoteModelResponse | None = None
        self.finish_reason: str | None = None
        """``STOP``, ``TOOL_CALLS`` or ``LENGTH`` once model.completed arrived (the response has no field for it)."""

    @property
    def usage(self) -> RemoteModelUsage | None:
        return None if self._usage is None else RemoteModelUsage(**self._usage)

    def _push(self, frame: object, index: int) -> None:
        if self._terminal is not None:
            ended = self._terminal[0]
            if isinstance(frame, (RemoteModelCompleted, RemoteModelError)):
                raise self._fail("duplicate_terminal", f"frame {index} is a second terminal frame; frame {ended} ended the stream", f"$[{index}]")
            raise self._fail("data_after_terminal", f"frame {index} comes after the terminal frame {ended}", f"$[{index}]")
        if isinstance(frame, RemoteModelTextDelta):
            self._text.append(frame.text)
        elif isinstance(frame, RemoteModelToolDelta):
            tool_delta(frame, index, self._calls, lambda first: SparkCall(first=first, last=first), self._identities, self._fail)
        elif isinstance(frame, RemoteModelUsageDelta):
            received = {name: getattr(frame.usage, name) for name in frame.usage.__struct_fields__}
            self._usage = {**(self._usage or {}), **{k: v for k, v in received.items() if v is not UNSET}}
        elif isinstance(frame, RemoteModelCompleted):
            self._complete(frame, index)
        elif isinstance(frame, RemoteModelError):
            self._terminal = (index, frame)
            self._text, self._calls = [], {}
        else:
            raise self._unknown(frame, index)

    def _complete(self, frame: RemoteModelCompleted, index: int) -> None:
        self._terminal = (index, frame)
        self.finish_reason = frame.finishReason
        texts = completed_arguments(frame, index, self._calls, self._identities, self._fail)
        tool_calls: list[RemoteModelToolCall] = []
        for n, arguments in texts.items():
            call = self._calls[n]
            assert call.id is not None and call.name is not None
            tool_calls.append(RemoteModelToolCall(id=call.id, type="function", function=RemoteModelToolCallFunction(name=call.name, arguments=arguments)))
        text = "".join(self._text)
        # An assistant turn that holds only tool calls has null content, never "".
        content = text if text or not tool_calls else None
        message = RemoteModelMessage(role="assistant", content=content, tool_calls=tool_calls if tool_calls else UNSET)
        self._result = RemoteModelResponse(message=message, usage=RemoteModelUsage(**(self._usage or {})))
        self._text, self._calls = [], {}

    def _close(self, count: int) -> RemoteModelResponse:
        if self._terminal is None:
            raise self._fail("missing_terminal", f"the stream ended after {count} frames without model.completed or model.error", f"$[{count}]")
        index, frame = self._terminal
        if isinstance(frame, RemoteModelError):
            raise self._fail("model_error", f"the model ended the stream with {frame.code}", f"$[{index}]", error=frame)
        assert self._result is not None
        return self._result
