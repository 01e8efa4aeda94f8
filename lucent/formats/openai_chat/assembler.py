"""OpenAI Chat Completions stream chunks -> ``CreateChatCompletionResponse``.

Source: schemas/vendor/openai-chat.json ``#/$defs/CreateChatCompletionStreamResponse`` and
``#/$defs/CreateChatCompletionResponse`` (OpenAI OpenAPI 3.1, "Create chat completion" with
``stream: true``: "data-only server-sent events ... terminated by a ``data: [DONE]``
message"). Each chunk names its choices by ``index``; a choice's ``delta.content`` and
``delta.refusal`` pieces concatenate, its ``logprobs.content``/``.refusal`` lists concatenate,
and its ``finish_reason`` arrives once, on the chunk that ends the choice. Tool calls are merged
by ``delta.tool_calls[].index`` (never by id: with parallel tool calls the id and the function
name come only on the first delta of an index; later deltas carry ``arguments`` pieces, which
concatenate). The arguments are the model's text: the spec says they may not be valid JSON, so
they are kept verbatim, ``""`` when none came. With ``stream_options.include_usage`` a last
chunk (``choices: []``) carries the usage; the last usage received wins.

The chunk envelope (``id``, ``model``, ``created``, ``service_tier``, ``system_fingerprint``)
is the response's; ``id`` and ``model`` must not change between chunks
(``response_identity_changed``). ``[DONE]`` is read by :mod:`lucent._stream_read`: in SSE it is
the terminator (``missing_terminal`` without it, ``data_after_terminal`` after it); a list of
chunk objects ends with the list.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any, TypeVar

from msgspec import UNSET

from lucent._stream_base import Assembler, CallIdentities, StreamedCall
from lucent.generated.openai_chat import (
    ChatCompletionMessageToolCall,
    ChatCompletionMessageToolCallFunction,
    ChatCompletionResponseMessage,
    ChatCompletionResponseMessageFunctionCall,
    ChatCompletionTokenLogprob,
    CompletionUsage,
    CreateChatCompletionResponse,
    CreateChatCompletionResponseChoicesItem,
    CreateChatCompletionResponseChoicesItemLogprobsContent,
    CreateChatCompletionStreamResponse,
)


@dataclass
class ChatCall:
    """One tool call of a choice, merged by its ``index``."""

    first: int  # the chunk that opened it
    id: str | None = None
    name: str | None = None
    arguments: list[str] = field(default_factory=list)


C = TypeVar("C", bound=StreamedCall)


def tool_delta(calls: dict[int, C], delta: Any, n: int, index: int, at: str, opened: Callable[[int], C], identities: CallIdentities) -> tuple[C, int, str]:
    """The rules of one ``delta.tool_calls`` entry (at `at`) of choice `n` in chunk `index`, for
    the assembler and the stream reader: merged by its ``index`` (never by id; `opened(index)`
    makes a new call), its id and name by `identities`. (The call, its index, the arguments
    text it adds: "" for none)."""
    k = int(delta.index)
    call = calls.get(k)
    if call is None:
        call = calls[k] = opened(index)
    what = f"tool call {k} of choice {n}"
    if delta.id is not UNSET:
        identities.id(call, delta.id, what, f"{at}.id")
    function = delta.function
    if function is UNSET:
        return call, k, ""
    if function.name is not UNSET:
        identities.name(call, function.name, what, f"{at}.function.name")
    return call, k, function.arguments if function.arguments is not UNSET else ""


@dataclass
class ChatChoice:
    """One choice being assembled."""

    first: int
    role: str | None = None
    content: list[str] = field(default_factory=list)
    refusal: list[str] = field(default_factory=list)
    has_content: bool = False  # a content piece (even "") arrived
    has_refusal: bool = False
    calls: dict[int, ChatCall] = field(default_factory=dict)
    function: ChatCall | None = None  # the deprecated function_call
    logprobs: bool = False
    logprobs_content: list[ChatCompletionTokenLogprob] | None = None
    logprobs_refusal: list[ChatCompletionTokenLogprob] | None = None
    finish_reason: str | None = None
    finished_at: int = -1


def completion(head: CreateChatCompletionStreamResponse, choices: list[Any], usage: CompletionUsage | None) -> CreateChatCompletionResponse:
    """The assembled document: the envelope of the first chunk (``head``), the last usage, and
    ``choices`` (the stream converter's envelope has none: lucent._stream_envelope)."""
    return CreateChatCompletionResponse(
        id=head.id,
        choices=choices,
        created=head.created,
        model=head.model,
        object="chat.completion",
        service_tier=head.service_tier,
        system_fingerprint=head.system_fingerprint,
        usage=usage if usage is not None else UNSET,
    )


class OpenAIChatAssembler(Assembler):
    """CreateChatCompletionStreamResponse chunks -> CreateChatCompletionResponse (see :mod:`lucent.streams`)."""

    format = "openai-chat"

    def __init__(self, *, tools: Iterable[str] | None = None) -> None:
        super().__init__(tools=tools)
        self._head: CreateChatCompletionStreamResponse | None = None
        self._choices: dict[int, ChatChoice] = {}
        self._identities = CallIdentities(self._fail, self._check_declared)
        self._usage: CompletionUsage | None = None

    @property
    def usage(self) -> CompletionUsage | None:
        return self._usage

    def _push(self, chunk: object, index: int) -> None:
        if not isinstance(chunk, CreateChatCompletionStreamResponse):
            raise self._unknown(chunk, index)
        at = f"$[{index}]"
        if self._head is None:
            self._head = chunk
        else:
            for name in ("id", "model"):
                if getattr(chunk, name) != getattr(self._head, name):
                    raise self._fail("response_identity_changed", f"chunk {index} changes the response {name} of the chunks before it", f"{at}.{name}")
        if chunk.usage is not UNSET and chunk.usage is not None:
            self._usage = chunk.usage
        for i, item in enumerate(chunk.choices):
            self._choice(item, index, f"{at}.choices[{i}]")

    def _choice(self, item: Any, index: int, at: str) -> None:
        n = int(item.index)
        choice = self._choices.get(n)
        if choice is None:
            choice = self._choices[n] = ChatChoice(first=index)
        delta = item.delta
        carries = any(getattr(delta, name) not in (UNSET, None) for name in ("content", "refusal", "tool_calls", "function_call"))
        if choice.finish_reason is not None and (carries or item.finish_reason is not None):
            code = "duplicate_finish" if item.finish_reason is not None else "data_after_finish"
            raise self._fail(code, f"choice {n} finished in chunk {choice.finished_at}; chunk {index} adds to it", at)
        if delta.role is not UNSET:
            if choice.role is not None and delta.role != choice.role:
                raise self._fail("response_identity_changed", f"choice {n} changes its role", f"{at}.delta.role")
            choice.role = delta.role
        if isinstance(delta.content, str):
            choice.content.append(delta.content)
            choice.has_content = True
        if isinstance(delta.refusal, str):
            choice.refusal.append(delta.refusal)
            choice.has_refusal = True
        if delta.tool_calls is not UNSET:
            for k, call in enumerate(delta.tool_calls):
                self._tool(choice, n, call, index, f"{at}.delta.tool_calls[{k}]")
        if delta.function_call is not UNSET:
            fc = delta.function_call
            if choice.function is None:
                choice.function = ChatCall(first=index)
            if fc.name is not UNSET:
                self._identities.name(choice.function, fc.name, f"the function call of choice {n}", f"{at}.delta.function_call.name")
            if fc.arguments is not UNSET:
                choice.function.arguments.append(fc.arguments)
        if item.logprobs is not UNSET and item.logprobs is not None:
            choice.logprobs = True
            # Extended in place: a copy per chunk made the assembly quadratic (issue 14).
            if item.logprobs.content is not None:
                if choice.logprobs_content is None:
                    choice.logprobs_content = []
                choice.logprobs_content.extend(item.logprobs.content)
            if item.logprobs.refusal is not None:
                if choice.logprobs_refusal is None:
                    choice.logprobs_refusal = []
                choice.logprobs_refusal.extend(item.logprobs.refusal)
        if item.finish_reason is not None:
            choice.finish_reason = item.finish_reason
            choice.finished_at = index

    def _tool(self, choice: ChatChoice, n: int, delta: Any, index: int, at: str) -> None:
        call, _k, arguments = tool_delta(choice.calls, delta, n, index, at, ChatCall, self._identities)
        if arguments:
            call.arguments.append(arguments)

    def _close(self, count: int) -> CreateChatCompletionResponse:
        head = self._head
        if head is None:
            raise self._fail("missing_terminal", "the stream ended before its first chunk", "$[0]")
        choices = [self._finished(n, self._choices[n]) for n in sorted(self._choices)]
        return completion(head, choices, self._usage)

    def _finished(self, n: int, choice: ChatChoice) -> CreateChatCompletionResponseChoicesItem:
        if choice.finish_reason is None:
            raise self._fail("missing_finish", f"choice {n} never received its finish_reason", f"$[{choice.first}]")
        tool_calls: list[Any] = []
        for k in sorted(choice.calls):
            call = choice.calls[k]
            self._identities.complete(call, f"tool call {k} of choice {n}", f"$[{call.first}]", "function.name")
            assert call.id is not None and call.name is not None
            tool_calls.append(ChatCompletionMessageToolCall(id=call.id, function=ChatCompletionMessageToolCallFunction(name=call.name, arguments="".join(call.arguments))))
        function_call: Any = UNSET
        if choice.function is not None:
            if choice.function.name is None:
                raise self._fail("incomplete_tool_call", f"the function call of choice {n} never received its name", f"$[{choice.function.first}]")
            function_call = ChatCompletionResponseMessageFunctionCall(name=choice.function.name, arguments="".join(choice.function.arguments))
        message = ChatCompletionResponseMessage(
            content="".join(choice.content) if choice.has_content else None,
            refusal="".join(choice.refusal) if choice.has_refusal else None,
            role="assistant",
            tool_calls=tool_calls if tool_calls else UNSET,
            function_call=function_call,
        )
        logprobs = None
        if choice.logprobs:
            logprobs = CreateChatCompletionResponseChoicesItemLogprobsContent(content=choice.logprobs_content, refusal=choice.logprobs_refusal)
        return CreateChatCompletionResponseChoicesItem(finish_reason=choice.finish_reason, index=n, message=message, logprobs=logprobs)  # type: ignore[arg-type]
