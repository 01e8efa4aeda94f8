"""openai-chat stream chunks <-> Lux stream events.

Reading (chunks -> Lux), with the rules of :class:`~lucent.formats.openai_chat.assembler.OpenAIChatAssembler`:
the first chunk gives ``conversation_start`` (``meta.id``/``meta.model`` from the chunk's
``id``/``model``); choice ``n`` is Lux item ``n`` (choices that interleave are numbered as they
come: a choice waits, buffered, while an earlier one is open, since Lux items do not nest);
within a choice, ``delta.content`` is a text block (started by the first content string, ``""``
included), ``delta.refusal`` a refusal block, tool call ``index`` ``k`` a tool block that starts
once its id and name are known (arguments received before that go out with the start); a
choice's ``finish_reason`` ends its blocks and its item. When the stream ends come ``finish``
(the reason of the first choice; ``function_call`` is ``tool_calls``, Degraded), ``usage``
(``prompt_tokens_details.cached_tokens`` -> ``cached_tokens``, ``cache_write_tokens`` ->
``cache_creation_tokens``, ``completion_tokens_details.reasoning_tokens`` ->
``reasoning_tokens``: OpenAI counts are inclusive like Lux's) and ``done``. The envelope (the
chunks' members outside ``choices``: the first chunk's ``id``, ``created``, ``service_tier``,
..., the last ``usage``) is converted by the document converter when the stream ends, which
gives its diagnostics (:mod:`lucent._stream_envelope`); the writer takes ``created``,
``system_fingerprint`` and ``service_tier`` back from ``context``.

Writing (Lux -> chunks) produces the shape the API sends: the first chunk of a choice carries
``delta: {"role": "assistant", "content": "", "refusal": null}`` (``content: null`` and the
first tool call when the choice starts with a tool call), every text, refusal and arguments
piece is one chunk, a tool call starts with its ``index``, ``id``, ``type`` and ``name`` and
``arguments: ""`` (one that streams no arguments then gets ``"{}"``, as the Lux assembler reads it), a
choice with nothing a delta carries (only reasoning, which Chat has no place for) still gets the
first delta, ``content: null`` (the openai SDK's accumulated message has no role without it),
each choice ends with ``delta: {}`` and its ``finish_reason``, and a usage
chunk (``choices: []``) follows when the Lux stream has usage. ``encode_sse(...,
format="openai-chat")`` writes the closing ``data: [DONE]``. The chunk envelope: ``id`` and
``model`` from ``conversation_start.meta`` (else ``context``), ``created``,
``system_fingerprint`` and ``service_tier`` from ``context`` (``created`` is required: without
it the chunks say 0, Invalid ``target:$.created``). A tool call whose id an earlier call of the
stream has is dropped, Invalid: the chat assembler refuses it (``duplicate_call_id``). A text
block that ends with no content written for its choice yet (an empty text after a tool call)
gets ``content: ""``, so that the message's content is ``""``, as the document converter writes
it, not null.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import msgspec

from lucent._validation import described
from msgspec import UNSET

from lucent._stream_base import CallIdentities
from lucent._stream_hub import Hub, _fail, _Reader, _Sink
from lucent._stream_envelope import MEMBER as _MEMBER, Envelope, under
from lucent.formats.openai_chat.assembler import completion, tool_delta
from lucent.errors import StreamError, UsageError
from lucent._stream_convert_vendor import LuxBlocks, VendorWriter, context_value, item_end, item_start, lux_usage
from lucent.formats.openai_chat.tables import FINISH_REASON_FROM_LUX, FINISH_REASON_LOSS, FINISH_REASON_TO_LUX, JOINED_REFUSAL, JOINED_TEXT
from lucent.generated.lux_ir_v1 import (
    LucentBlockDeltaRefusal,
    LucentBlockDeltaText,
    LucentBlockDeltaToolArguments,
    LucentBlockTypeToolCall,
    LucentContentRefusal,
    LucentContentText,
    LucentContentToolUse,
    LucentConversationItemMessage,
    LucentConversationMeta,
    LucentStreamEventAnnotations,
    LucentStreamEventBlockDelta,
    LucentStreamEventBlockDiscard,
    LucentStreamEventBlockEnd,
    LucentStreamEventBlockStart,
    LucentStreamEventConversationStart,
    LucentStreamEventDone,
    LucentStreamEventError,
    LucentStreamEventFinish,
    LucentStreamEventItemEnd,
    LucentStreamEventItemStart,
    LucentStreamEventUsage,
    LucentUsage,
)
from lucent.generated.openai_chat import (
    ChatCompletionMessageToolCallChunk,
    ChatCompletionMessageToolCallChunkFunction,
    ChatCompletionStreamResponseDelta,
    CompletionUsage,
    CompletionUsageCompletionTokensDetails,
    CompletionUsagePromptTokensDetails,
    CreateChatCompletionStreamResponse,
    CreateChatCompletionStreamResponseChoicesItem,
)



def usage_to_lux(usage: CompletionUsage, at: str, sink: _Sink) -> LucentUsage:
    """Chat usage -> Lux usage; counts Lux has no member for are reported."""
    details = usage.completion_tokens_details
    prompt_details = usage.prompt_tokens_details
    reasoning = cached = writes = None
    if details is not UNSET:
        reasoning = None if details.reasoning_tokens is UNSET else int(details.reasoning_tokens)
        for name in ("accepted_prediction_tokens", "audio_tokens", "rejected_prediction_tokens"):
            value = getattr(details, name)
            if value is not UNSET:
                sink.report(f"{at}.completion_tokens_details.{name}", "Unsupported" if value else "Degraded", "a Lux usage has no such count; dropped")
    if prompt_details is not UNSET:
        cached = None if prompt_details.cached_tokens is UNSET else int(prompt_details.cached_tokens)
        writes = None if prompt_details.cache_write_tokens is UNSET else int(prompt_details.cache_write_tokens)
        if prompt_details.audio_tokens is not UNSET:
            sink.report(f"{at}.prompt_tokens_details.audio_tokens", "Unsupported" if prompt_details.audio_tokens else "Degraded", "a Lux usage has no such count; dropped")
    return lux_usage(int(usage.prompt_tokens), int(usage.completion_tokens), int(usage.total_tokens), reasoning=reasoning, cached=cached, cache_creation=writes)


def usage_from_lux(usage: LucentUsage) -> CompletionUsage:
    """Lux usage -> chat usage (every Lux count has a chat member)."""
    completion = CompletionUsageCompletionTokensDetails(reasoning_tokens=usage.reasoning_tokens) if usage.reasoning_tokens is not UNSET else UNSET
    prompt: Any = UNSET
    if usage.cached_tokens is not UNSET or usage.cache_creation_tokens is not UNSET:
        prompt = CompletionUsagePromptTokensDetails(cached_tokens=usage.cached_tokens, cache_write_tokens=usage.cache_creation_tokens)
    return CompletionUsage(prompt_tokens=usage.prompt_tokens, completion_tokens=usage.completion_tokens, total_tokens=usage.total_tokens, completion_tokens_details=completion, prompt_tokens_details=prompt)


@dataclass
class _Call:
    first: int
    id: str | None = None
    name: str | None = None
    pending: list[str] = field(default_factory=list)  # arguments before the block could start
    started: bool = False


@dataclass
class _Choice:
    first: int
    blocks: LuxBlocks
    calls: dict[int, _Call] = field(default_factory=dict)
    finish: str | None = None
    finished_at: int = -1
    finish_path: str = "$"  # the finish_reason member that ended it (the Lux finish event stands for it)
    logprobs: bool = False


class OpenAIChatReader(_Reader):
    """CreateChatCompletionStreamResponse -> Lux events (see the module docstring)."""

    def __init__(self, sink: _Sink, context: Mapping[str, Any], tools: frozenset[str] | None, lux_target: bool) -> None:
        super().__init__(sink, context, tools, lux_target)
        self._head: tuple[str, str] | None = None
        self._choices: dict[int, _Choice] = {}
        self._identities = CallIdentities(self._failed, self._declared)
        self._active: int | None = None
        self._queue: dict[int, Hub] = {}
        self._usage: CompletionUsage | None = None
        self._usage_at = "$"
        self._first: CreateChatCompletionStreamResponse | None = None
        self._head_at = "$[0]"

    @property
    def usage(self) -> CompletionUsage | None:
        return self._usage

    def in_envelope(self, where: str) -> bool:
        """A member of a chunk outside its choices (id, model, created, usage, ...)."""
        event, _, rest = where.partition("]")
        return event.startswith("$[") and rest.startswith(".") and not under(rest, (".choices",))

    def _delivered(self) -> None:
        """The end of the stream: the envelope as the assembler builds it (the first chunk's
        members, the last usage), with no choices."""
        head = self._first
        if head is None:
            return
        document = completion(head, [], self._usage)
        start, usage_at = self._head_at, self._usage_at

        def place(field: str) -> str | None:
            found = _MEMBER.match(field)
            if found is None:
                return start if field == "$" else None
            name, rest = found.groups()
            if name == "choices":
                return None
            return usage_at + rest if name == "usage" else f"{start}.{name}{rest}"

        self.envelope = Envelope(document, place)

    def push(self, chunk: Any, index: int) -> Hub:
        at = f"$[{index}]"
        if not isinstance(chunk, CreateChatCompletionStreamResponse):
            raise _fail("unknown_frame", f"event {index} is not an openai-chat stream chunk ({type(chunk).__name__})", at, self.usage)
        out: Hub = []
        if self._head is None:
            self._head = (chunk.id, chunk.model)
            self._first, self._head_at = chunk, at
            out.append((LucentStreamEventConversationStart(meta=LucentConversationMeta(id=chunk.id, model=chunk.model)), at))
        else:
            for name, known in zip(("id", "model"), self._head):
                if getattr(chunk, name) != known:
                    raise _fail("response_identity_changed", f"chunk {index} changes the response {name} of the chunks before it", f"{at}.{name}", self.usage)
        for i, item in enumerate(chunk.choices):
            self._choice(item, index, f"{at}.choices[{i}]", out)
        if chunk.usage is not UNSET and chunk.usage is not None:
            self._usage = chunk.usage
            self._usage_at = f"{at}.usage"
        return out

    def _emit(self, n: int, events: Hub, out: Hub) -> None:
        if self._active is None:
            self._active = n
        if self._active == n:
            out.extend(events)
        else:
            self._queue.setdefault(n, []).extend(events)

    def _ended(self, out: Hub) -> None:
        """The active choice ended: the next one that waited goes out."""
        self._active = None
        while self._queue:
            n = min(self._queue)
            out.extend(self._queue.pop(n))
            self._active = n
            if self._choices[n].finish is None:
                return
            self._active = None

    def _choice(self, item: CreateChatCompletionStreamResponseChoicesItem, index: int, at: str, out: Hub) -> None:
        n = int(item.index)
        events: Hub = []
        choice = self._choices.get(n)
        if choice is None:
            choice = self._choices[n] = _Choice(first=index, blocks=LuxBlocks(n))
            role = item.delta.role if item.delta.role is not UNSET else "assistant"
            if role != "assistant":
                self._sink.report(f"{at}.delta.role", "Degraded", "a response message is the assistant's; read as assistant")
            events.append((item_start(n), at))
        delta = item.delta
        carries = any(getattr(delta, name) not in (UNSET, None) for name in ("content", "refusal", "tool_calls", "function_call"))
        if choice.finish is not None and (carries or item.finish_reason is not None):
            code = "duplicate_finish" if item.finish_reason is not None else "data_after_finish"
            raise _fail(code, f"choice {n} finished in chunk {choice.finished_at}; chunk {index} adds to it", at, self.usage)
        blocks = choice.blocks
        if isinstance(delta.content, str):
            if "content" not in blocks.open:
                blocks.start("content", "text", f"{at}.delta.content", events)  # the block stands for the message content
            if delta.content:
                blocks.delta("content", LucentBlockDeltaText(text=delta.content), f"{at}.delta.content", events)
        if isinstance(delta.refusal, str):
            if "refusal" not in blocks.open:
                blocks.start("refusal", "refusal", f"{at}.delta.refusal", events)
            if delta.refusal:
                blocks.delta("refusal", LucentBlockDeltaRefusal(text=delta.refusal), f"{at}.delta.refusal", events)
        if delta.tool_calls is not UNSET:
            for k, call in enumerate(delta.tool_calls):
                self._tool(choice, n, call, index, f"{at}.delta.tool_calls[{k}]", events)
        if delta.function_call is not UNSET:
            self._sink.report(f"{at}.delta.function_call", "Unsupported", "the deprecated function_call has no id, which a Lux tool block needs; dropped")
        if item.logprobs is not UNSET and item.logprobs is not None and not choice.logprobs:
            choice.logprobs = True
            self._sink.report(f"{at}.logprobs", "Unsupported", "a Lux stream has no log probabilities; dropped")
        if item.finish_reason is not None:
            choice.finish = item.finish_reason
            choice.finished_at = index
            choice.finish_path = f"{at}.finish_reason"
            for k in sorted(choice.calls):
                known = choice.calls[k]
                if not known.started:
                    self._identities.complete(known, f"tool call {k} of choice {n}", f"$[{known.first}]", "function.name")
            if item.finish_reason == "function_call":
                self._sink.report(f"{at}.finish_reason", "Degraded", "the deprecated function_call finish reason is tool_calls in Lux")
            blocks.end_all(f"{at}.finish_reason", events)
            events.append((item_end(n), f"{at}.finish_reason"))
        self._emit(n, events, out)
        if item.finish_reason is not None and self._active == n:
            self._ended(out)

    def _tool(self, choice: _Choice, n: int, delta: ChatCompletionMessageToolCallChunk, index: int, at: str, events: Hub) -> None:
        call, k, arguments = tool_delta(choice.calls, delta, n, index, at, _Call, self._identities)
        key = ("tool", k)
        if call.started:
            if arguments:
                choice.blocks.delta(key, LucentBlockDeltaToolArguments(arguments=arguments), f"{at}.function.arguments", events)
            return
        if arguments:
            call.pending.append(arguments)
        if call.id is not None and call.name is not None:
            call.started = True
            choice.blocks.end("content", at, events)  # content comes before the tool calls
            choice.blocks.start(key, LucentBlockTypeToolCall(id=call.id, name=call.name), at, events)
            if call.pending:
                choice.blocks.delta(key, LucentBlockDeltaToolArguments(arguments="".join(call.pending)), f"{at}.function.arguments", events)
                call.pending = []

    def close(self, count: int) -> Hub:
        at = f"$[{count}]"
        if self._head is None:
            raise _fail("missing_terminal", "the stream ended before its first chunk", "$[0]", self.usage)
        for n in sorted(self._choices):
            choice = self._choices[n]
            if choice.finish is None:
                raise _fail("missing_finish", f"choice {n} never received its finish_reason", f"$[{choice.first}]", self.usage)
        self._delivered()
        out: Hub = []
        reasons = [self._choices[n].finish for n in sorted(self._choices)]
        if reasons:
            first = reasons[0]
            assert first is not None
            if any(r != first for r in reasons):
                self._sink.report(f"$[{self._choices[min(self._choices)].finished_at}]", "Degraded", "a Lux stream has one finish reason; the choices' differ, the first choice's is kept")
            out.append((LucentStreamEventFinish(finish_reason=FINISH_REASON_TO_LUX[first]), self._choices[min(self._choices)].finish_path))  # type: ignore[arg-type]
        else:
            out.append((LucentStreamEventFinish(finish_reason="stop"), at))
            self._sink.report(at, "Degraded", "no choice came: the Lux stream finishes with stop")
        if self._usage is not None:
            out.append((LucentStreamEventUsage(usage=usage_to_lux(self._usage, self._usage_at, self._sink)), self._usage_at))
        out.append((LucentStreamEventDone(), at))
        return out


@dataclass
class _Out:
    kind: str  # content, refusal, tool, drop
    tool: int = -1
    sent: bool = False  # a tool call's arguments went out


class OpenAIChatWriter(VendorWriter):
    """Lux events -> CreateChatCompletionStreamResponse chunks (see the module docstring)."""
    context_keys = ("created", "id", "model", "service_tier", "system_fingerprint")  # every chunk's envelope

    target = "Chat Completions"

    def __init__(self, sink: _Sink, exact: bool, context: Mapping[str, Any] | None = None) -> None:
        super().__init__(sink, exact, context)
        self._id = ""
        self._model = ""
        self._created = 0
        self._envelope: dict[str, Any] = {}
        self._item: int | None = None
        self._role = False
        self._content = False  # a content piece (even "") went out for the choice
        self._blocks: dict[int, _Out] = {}
        self._tools = 0
        self._texts = 0
        self._refusals = 0
        self._call_ids: set[str] = set()  # every tool call id written, across the choices
        self._ended: list[int] = []
        self._usage: LucentUsage | None = None
        check = {"id": "", "choices": [], "created": self.context.get("created", 0), "model": "", "object": "chat.completion.chunk"}
        check.update({k: self.context[k] for k in ("system_fingerprint", "service_tier") if k in self.context})
        try:
            msgspec.convert(check, type=CreateChatCompletionStreamResponse)
        except msgspec.ValidationError as exc:
            raise UsageError(f"the context has a value a chat chunk cannot hold: {described(exc)}", code="invalid_context") from None

    def _chunk(self, choices: list[CreateChatCompletionStreamResponseChoicesItem], usage: Any = UNSET) -> CreateChatCompletionStreamResponse:
        return CreateChatCompletionStreamResponse(id=self._id, choices=choices, created=self._created, model=self._model, object="chat.completion.chunk", usage=usage, **self._envelope)

    def _delta(self, out: list[Any], **members: Any) -> None:
        assert self._item is not None
        if not self._role:
            self._role = True
            members = {"role": "assistant", "content": members.pop("content", None), "refusal": members.pop("refusal", None), **members}
        if isinstance(members.get("content"), str):
            self._content = True
        out.append(self._chunk([CreateChatCompletionStreamResponseChoicesItem(delta=ChatCompletionStreamResponseDelta(**members), finish_reason=None, index=self._item)]))

    def push(self, event: Any, origin: str, out: list[Any]) -> None:
        if isinstance(event, LucentStreamEventConversationStart):
            self._start(event.meta, origin)
        elif isinstance(event, LucentStreamEventItemStart):
            self._item_start(event, origin, out)
        elif isinstance(event, LucentStreamEventBlockStart):
            if self._item is not None:
                self._block_start(event.index, event.block_type, origin, out)
        elif isinstance(event, LucentStreamEventBlockDelta):
            if self._item is not None:
                self._block_delta(event.index, event.delta, out)
        elif isinstance(event, (LucentStreamEventBlockEnd, LucentStreamEventBlockDiscard)):
            block = self._blocks.get(event.index)
            if isinstance(event, LucentStreamEventBlockDiscard) and block is not None and block.kind != "drop":
                self._sink.report(self.at(origin, ""), "Invalid", "the block was written already, and a chat stream cannot take it back; it stays")
            elif isinstance(event, LucentStreamEventBlockEnd) and block is not None and block.kind == "content" and not self._content:
                self._delta(out, content="")  # an empty text: content "", as the document says
            elif block is not None and block.kind == "tool" and not block.sent:
                # a Lux tool call that streamed no arguments takes none: "{}", as the Lux assembler
                self._block_delta(event.index, LucentBlockDeltaToolArguments(arguments="{}"), out)
        elif isinstance(event, LucentStreamEventAnnotations):
            self._sink.report(self.at(origin, ".annotations"), "Unsupported", "a chat stream delta has no annotations; dropped")
        elif isinstance(event, LucentStreamEventItemEnd):
            if self._item is not None:
                if not self._role:  # a choice with nothing a chat delta carries still names its role
                    self._delta(out)
                self._ended.append(self._item)
            self._item = None
        elif isinstance(event, LucentStreamEventFinish):
            self._finish(event.finish_reason, self.at(origin, ".finish_reason"), out)
        elif isinstance(event, LucentStreamEventUsage):
            self._usage = event.usage
        elif isinstance(event, LucentStreamEventError):
            raise StreamError(f"the stream reported an error of kind {event.error.kind}; a chat stream has no error chunk", code="model_error", path=origin, error=event.error)
        elif isinstance(event, LucentStreamEventDone):
            if self._usage is not None:
                out.append(self._chunk([], usage=usage_from_lux(self._usage)))

    def _start(self, meta: LucentConversationMeta, origin: str) -> None:
        for key in ("id", "model"):
            value = getattr(meta, key)
            if value is UNSET:
                value = context_value(self.context, key, str, self._sink, "Invalid", f"every chat chunk has an {key}, and the Lux stream has none")
            setattr(self, f"_{key}", value if isinstance(value, str) else "")
        created = context_value(self.context, "created", int, self._sink, "Invalid", "every chat chunk has its creation time (created), which a Lux stream does not carry")
        self._created = created if isinstance(created, int) else 0
        for key in ("system_fingerprint", "service_tier"):
            if key in self.context:
                self._envelope[key] = self.context[key]
        if meta.usage_input is not UNSET:
            self._sink.report(self.at(origin, ".meta.usage_input"), "Degraded", "a chat stream states usage once, at its end; the input count comes with it")

    def _item_start(self, event: LucentStreamEventItemStart, origin: str, out: list[Any]) -> None:
        self._item = event.index
        self._role = False
        self._content = False
        self._blocks = {}
        self._tools = 0
        self._texts = 0
        self._refusals = 0
        assert isinstance(event.item, LucentConversationItemMessage)
        message = event.item.message
        if message.role != "assistant":
            self._sink.report(self.at(origin, ".item.message.role"), "Degraded", "a chat stream delta is the assistant's")
        for i, content in enumerate(message.content):
            where = self.at(origin, f".item.message.content[{i}]")
            key = -1 - i  # initial content: keys no Lux block index takes
            if isinstance(content, LucentContentText):
                self._block_start(key, "text", where, out)
                self._block_delta(key, LucentBlockDeltaText(text=content.text), out)
            elif isinstance(content, LucentContentRefusal):
                self._block_start(key, "refusal", where, out)
                self._block_delta(key, LucentBlockDeltaRefusal(text=content.refusal), out)
            elif isinstance(content, LucentContentToolUse):
                self._block_start(key, LucentBlockTypeToolCall(id=content.tool_use.id, name=content.tool_use.name), where, out)
                self._block_delta(key, LucentBlockDeltaToolArguments(arguments=content.tool_use.arguments), out)
            else:
                self._sink.report(where, "Unsupported", "a chat stream cannot carry this content; dropped")

    def _block_start(self, index: int, kind: Any, origin: str, out: list[Any]) -> None:
        where = self.at(origin, ".block_type")
        if kind == "text":
            self._texts += 1
            if self._texts > 1:
                self._sink.report(where, "Degraded", JOINED_TEXT)
            self._blocks[index] = _Out("content")
            if not self._role:
                self._delta(out, content="")
        elif kind == "refusal":
            self._refusals += 1
            self._blocks[index] = _Out("refusal")
            if self._refusals > 1:  # joined with a newline, as the document converter joins them
                self._sink.report(where, "Degraded", JOINED_REFUSAL)
                self._delta(out, refusal="\n")
            elif not self._role:
                self._delta(out, refusal="")
        elif isinstance(kind, LucentBlockTypeToolCall):
            if kind.id in self._call_ids:  # the chat assembler's duplicate_call_id
                self._blocks[index] = _Out("drop")
                self._sink.report(where, "Invalid", "a chat stream rejects a second tool call with the same id; dropped")
                return
            self._call_ids.add(kind.id)
            block = self._blocks[index] = _Out("tool", self._tools)
            self._tools += 1
            call = ChatCompletionMessageToolCallChunk(index=block.tool, id=kind.id, type="function", function=ChatCompletionMessageToolCallChunkFunction(name=kind.name, arguments=""))
            self._delta(out, tool_calls=[call])
        else:
            self._blocks[index] = _Out("drop")
            self._sink.report(where, "Unsupported", f"a chat stream has no {kind} content; dropped")

    def _block_delta(self, index: int, delta: Any, out: list[Any]) -> None:
        block = self._blocks.get(index)
        if block is None or block.kind == "drop":
            return
        if block.kind == "content" and isinstance(delta, LucentBlockDeltaText) and delta.text:
            self._delta(out, content=delta.text)
        elif block.kind == "refusal" and isinstance(delta, LucentBlockDeltaRefusal) and delta.text:
            self._delta(out, refusal=delta.text)
        elif block.kind == "tool" and isinstance(delta, LucentBlockDeltaToolArguments) and delta.arguments:
            block.sent = True
            self._delta(out, tool_calls=[ChatCompletionMessageToolCallChunk(index=block.tool, function=ChatCompletionMessageToolCallChunkFunction(arguments=delta.arguments))])

    def _finish(self, reason: str, where: str, out: list[Any]) -> None:
        chat = FINISH_REASON_FROM_LUX.get(reason, "stop")
        loss = FINISH_REASON_LOSS.get(reason)
        if loss == "Unsupported":
            self._sink.report(where, loss, f"Chat Completions has no {reason} finish reason; written as stop")
        elif loss is not None:
            self._sink.report(where, loss, f"Chat Completions reports a {reason} stop as {chat}")
        for n in self._ended:
            out.append(self._chunk([CreateChatCompletionStreamResponseChoicesItem(delta=ChatCompletionStreamResponseDelta(), finish_reason=chat, index=n)]))  # type: ignore[arg-type]
