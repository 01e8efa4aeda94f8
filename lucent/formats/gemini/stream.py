"""gemini stream chunks <-> Lux stream events.

Reading (chunks -> Lux), with the rules of :class:`~lucent.formats.gemini.assembler.GeminiAssembler`: the
first chunk gives ``conversation_start`` (``meta.id`` = ``responseId``, ``meta.model`` =
``modelVersion``); candidate ``n`` is Lux item ``n`` (a candidate waits, buffered, while an
earlier one is open). Its parts become blocks as the assembler merges them: a run of text
parts with the same ``thought`` flag is one text (``thought: true``: thinking) block; a
``functionCall`` part is a whole tool block (``id``; when the part has none, the id the gemini
document converter derives, ``gemini-<name>-<first 8 hex digits of the SHA-256 of the args
text>``, Degraded, which the writer recognizes and leaves out again; ``args`` as compact JSON
text); a ``thoughtSignature`` on a thought part is that
thinking block's signature delta, and on any other part a thinking block of its own that holds
only the signature, started right after that part's block (as the gemini document converter
reads a response: a signature that comes with the last chunk of a text comes after the text
went out, so "after" is the place a stream can always give it). A text part that carries a
signature while its run carries one already starts a run of its own, as the assembler merges
parts. Other parts (``inlineData``,
``executableCode``, ...) and candidate members a Lux stream has no place for
(``groundingMetadata``, ``safetyRatings``, ``finishMessage``, ...) are Unsupported. The
envelope (the chunks' members outside ``candidates``: ``usageMetadata``, ``modelVersion``,
``promptFeedback``, ...) is converted by the document converter when the stream ends, which gives
its diagnostics (:mod:`lucent._stream_envelope`). The
candidate's ``finishReason`` ends its blocks and its item. When the source ends: ``finish``
(``STOP`` -> ``stop``, or ``tool_calls`` when the candidate called a function; ``MAX_TOKENS`` ->
``length``; ``SAFETY``, ``RECITATION``, ``PROHIBITED_CONTENT`` (content_filter),
``MALFORMED_FUNCTION_CALL`` one to one; the image and blocking variants to safety, recitation,
content_filter or malformed_tool_call and any other reason to ``error``, Degraded:
:data:`lucent.formats.gemini.tables.FINISH_REASON_TO_LUX`), ``usage`` from the last ``usageMetadata``
(``prompt_tokens`` = ``promptTokenCount + toolUsePromptTokenCount``,
``completion_tokens`` = ``candidatesTokenCount + thoughtsTokenCount``, ``reasoning_tokens`` =
``thoughtsTokenCount``, ``cached_tokens`` = ``cachedContentTokenCount``) and ``done``.

Writing (Lux -> chunks): every Lux delta is one chunk holding one part of its candidate (text,
thought text with ``thought: true``), a tool block one ``functionCall`` part when it ends, a
signature-only thinking block's signature goes on the part written right before it when that is
not a thought part and has none (the document converter's rule), else it is a thought part of its
own (``text: ""``); ``responseId`` and
``modelVersion`` from ``conversation_start.meta`` on every chunk; the last chunk of a candidate
gets its ``finishReason`` and the last chunk the ``usageMetadata`` (a Gemini stream restates
running totals on every chunk; a Lux stream has the final count only).
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import msgspec
from msgspec import UNSET

from lucent._stream_base import parse_arguments
from lucent._stream_hub import Hub, _fail, _Reader, _Sink
from lucent._stream_envelope import MEMBER as _MEMBER, Envelope, under
from lucent.formats.gemini.assembler import ENVELOPE_MEMBERS
from lucent._stream_convert_vendor import LuxBlocks, VendorWriter, build, item_end, item_start, lux_usage
from lucent.errors import EncodeError
from lucent.formats.gemini.tables import FINISH_REASON_FROM_LUX, finish_reason_exact, finish_reason_to_lux
from lucent._validation import JsonTextError, dump_json_text
from lucent.generated.gemini import GenerateContentResponse
from lucent.formats.lux.events import initial_events
from lucent.generated.lux_ir_v1 import (
    LucentBlockDeltaRefusal,
    LucentBlockDeltaSignature,
    LucentBlockDeltaText,
    LucentBlockDeltaThinking,
    LucentBlockDeltaToolArguments,
    LucentBlockTypeToolCall,
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

CANDIDATE_DROPPED = ("safetyRatings", "groundingMetadata", "citationMetadata", "finishMessage", "tokenCount", "avgLogprobs", "logprobsResult", "urlContextMetadata", "groundingAttributions")
TEXT_KEYS = frozenset({"text", "thought", "thoughtSignature"})


def derived_call_id(name: str, arguments: str, used: set[str] | None = None) -> str:
    """The id the gemini document converter gives a function call that has none:
    ``gemini-<name>-<first 8 hex digits of SHA-256(args text)>``, ``-2``, ``-3``, ... when taken."""
    stem = f"gemini-{name}-{hashlib.sha256(arguments.encode('utf-8', 'surrogatepass')).hexdigest()[:8]}"
    found, n = stem, 1
    while used is not None and found in used:
        n += 1
        found = f"{stem}-{n}"
    return found


def usage_to_lux(usage: dict[str, Any], at: str, sink: _Sink) -> LucentUsage:
    """``usageMetadata`` -> Lux usage (Gemini's candidate count excludes thoughts, Lux's completion
    includes them; the tool-use prompt, e.g. code execution results, is input: in prompt_tokens)."""
    thoughts = int(usage.get("thoughtsTokenCount", 0))
    tool_prompt = int(usage.get("toolUsePromptTokenCount", 0))
    prompt = int(usage.get("promptTokenCount", 0)) + tool_prompt
    completion = int(usage.get("candidatesTokenCount", 0)) + thoughts
    if tool_prompt:
        sink.report(f"{at}.toolUsePromptTokenCount", "Degraded", "the tool-use prompt tokens are counted in Lux prompt_tokens (so that total = prompt + completion)")
    for name in usage:
        if name not in ("promptTokenCount", "candidatesTokenCount", "thoughtsTokenCount", "totalTokenCount", "cachedContentTokenCount", "toolUsePromptTokenCount"):
            sink.report(f"{at}.{name}", "Unsupported", "a Lux usage has no such count; dropped")
    cached = usage.get("cachedContentTokenCount")
    return lux_usage(prompt, completion, int(usage.get("totalTokenCount", prompt + completion)), reasoning=thoughts if "thoughtsTokenCount" in usage else None, cached=None if cached is None else int(cached))


def usage_from_lux(usage: LucentUsage) -> dict[str, Any]:
    thoughts = 0 if usage.reasoning_tokens is UNSET else usage.reasoning_tokens
    value: dict[str, Any] = {"promptTokenCount": usage.prompt_tokens, "candidatesTokenCount": usage.completion_tokens - thoughts, "totalTokenCount": usage.total_tokens}
    if usage.reasoning_tokens is not UNSET:
        value["thoughtsTokenCount"] = thoughts
    if usage.cached_tokens is not UNSET:
        value["cachedContentTokenCount"] = usage.cached_tokens
    return value


@dataclass
class _Candidate:
    first: int
    blocks: LuxBlocks
    run: tuple[tuple[str, int], bool] | None = None  # the open text run: its key and thought flag
    signed: bool = False  # the open text run carries a thoughtSignature
    runs: int = 0
    calls: int = 0
    finish: tuple[str, str] | None = None


class GeminiReader(_Reader):
    """GenerateContentResponse chunks -> Lux events (see the module docstring)."""
    context_keys = ("id", "model")  # conversation_start.meta, when the chunks lack responseId / modelVersion

    def __init__(self, sink: _Sink, context: Mapping[str, Any], tools: frozenset[str] | None, lux_target: bool) -> None:
        super().__init__(sink, context, tools, lux_target)
        self._top: dict[str, Any] = {}
        self._begun = False
        self._candidates: dict[int, _Candidate] = {}
        self._active: int | None = None
        self._queue: dict[int, Hub] = {}
        self._usage: dict[str, Any] | None = None
        self._usage_at = "$"
        self._ids: set[str] = set()
        self._last: dict[str, Any] = {}  # usageMetadata, promptFeedback, modelStatus: the last chunk's
        self._places: dict[str, str] = {}  # a top-level member of the envelope -> the chunk member that gave it

    @property
    def usage(self) -> Any:
        return self._usage

    def in_envelope(self, where: str) -> bool:
        """A member of a chunk outside its candidates (usageMetadata, modelVersion, ...)."""
        event, _, rest = where.partition("]")
        return event.startswith("$[") and rest.startswith(".") and not under(rest, (".candidates",))

    def _delivered(self) -> None:
        """The end of the stream: the envelope as the assembler builds it (its members outside
        the candidates: the first responseId and modelVersion, the last usageMetadata,
        promptFeedback and modelStatus), with no candidates."""
        top = {**self._top, **self._last}
        document: dict[str, Any] = {name: top[name] for name in ENVELOPE_MEMBERS if name in top}
        try:
            envelope = msgspec.convert(document, type=GenerateContentResponse)
        except msgspec.ValidationError:  # pragma: no cover - the chunks held these members
            return
        places = dict(self._places)
        first = "$[0]"

        def place(field: str) -> str | None:
            found = _MEMBER.match(field)
            if found is None:
                return first if field == "$" else None
            name, rest = found.groups()
            return None if name == "candidates" else places.get(name, f"{first}.{name}") + rest

        self.envelope = Envelope(envelope, place)

    def push(self, chunk: Any, index: int) -> Hub:
        at = f"$[{index}]"
        if not isinstance(chunk, GenerateContentResponse):
            raise _fail("unknown_frame", f"event {index} is not a gemini chunk ({type(chunk).__name__})", at, self.usage)
        tree = msgspec.to_builtins(chunk)
        for name in ("responseId", "modelVersion"):
            if name in tree:
                if name in self._top and self._top[name] != tree[name]:
                    raise _fail("response_identity_changed", f"chunk {index} changes the {name} of the chunks before it", f"{at}.{name}", self.usage)
                if name not in self._places:
                    self._places[name] = f"{at}.{name}"
                self._top[name] = tree[name]
        for name in ("usageMetadata", "promptFeedback", "modelStatus"):
            if name in tree:
                self._last[name] = tree[name]
                self._places[name] = f"{at}.{name}"
        out: Hub = []
        if not self._begun:
            self._begun = True
            found = {k: tree.get(name, self._context.get(k)) for k, name in (("id", "responseId"), ("model", "modelVersion"))}
            meta = LucentConversationMeta(
                id=found["id"] if isinstance(found["id"], str) else UNSET,
                model=found["model"] if isinstance(found["model"], str) else UNSET,
            )
            out.append((LucentStreamEventConversationStart(meta=meta), at))
        if "usageMetadata" in tree:
            self._usage = tree["usageMetadata"]
            self._usage_at = f"{at}.usageMetadata"
        for i, candidate in enumerate(tree.get("candidates", [])):
            self._candidate(candidate, index, f"{at}.candidates[{i}]", out)
        return out

    def _emit(self, n: int, events: Hub, out: Hub) -> None:
        if self._active is None:
            self._active = n
        if self._active == n:
            out.extend(events)
        else:
            self._queue.setdefault(n, []).extend(events)

    def _candidate(self, tree: dict[str, Any], index: int, at: str, out: Hub) -> None:
        n = int(tree.get("index", 0))
        events: Hub = []
        candidate = self._candidates.get(n)
        if candidate is None:
            candidate = self._candidates[n] = _Candidate(first=index, blocks=LuxBlocks(n))
            events.append((item_start(n), at))
        content = tree.get("content")
        if candidate.finish is not None:
            if isinstance(content, dict) and content.get("parts") or "finishReason" in tree:
                raise _fail("data_after_finish", f"candidate {n} finished ({candidate.finish[1]}); chunk {index} adds to it", at, self.usage)
            for name in CANDIDATE_DROPPED:
                if name in tree:
                    self._sink.report(f"{at}.{name}", "Unsupported", f"a Lux stream has no {name}; dropped")
            return
        if isinstance(content, dict):
            if content.get("role", "model") != "model":
                self._sink.report(f"{at}.content.role", "Degraded", "a candidate's content is the model's; read as assistant")
            for k, part in enumerate(content.get("parts", [])):
                self._part(candidate, part, index, f"{at}.content.parts[{k}]", events)
        for name in CANDIDATE_DROPPED:
            if name in tree:
                self._sink.report(f"{at}.{name}", "Unsupported", f"a Lux stream has no {name}; dropped")
        if "finishReason" in tree:
            candidate.finish = (tree["finishReason"], f"{at}.finishReason")
            blocks = candidate.blocks
            blocks.end_all(f"{at}.finishReason", events)
            candidate.run = None
            events.append((item_end(n), f"{at}.finishReason"))
        self._emit(n, events, out)
        if candidate.finish is not None and self._active == n:
            self._active = None
            while self._queue:
                m = min(self._queue)
                out.extend(self._queue.pop(m))
                self._active = m
                if self._candidates[m].finish is None:
                    break
                self._active = None

    def _signature_block(self, candidate: _Candidate, signature: str, at: str, events: Hub) -> None:
        key = ("signature", candidate.blocks.next)
        candidate.blocks.start(key, "thinking", f"{at}.thoughtSignature", events)  # the block stands for the signature, as in the document
        candidate.blocks.delta(key, LucentBlockDeltaSignature(signature=signature), f"{at}.thoughtSignature", events)
        candidate.blocks.end(key, at, events)

    def _part(self, candidate: _Candidate, part: dict[str, Any], index: int, at: str, events: Hub) -> None:
        blocks = candidate.blocks
        signature = part.get("thoughtSignature")
        if "text" in part and set(part) <= TEXT_KEYS:
            thought = bool(part.get("thought"))
            if candidate.run is not None and (candidate.run[1] != thought or (signature is not None and candidate.signed)):
                blocks.end(candidate.run[0], at, events)
                candidate.run = None
            if candidate.run is None:
                candidate.run = (("text", candidate.runs), thought)
                candidate.runs += 1
                candidate.signed = False
                blocks.start(candidate.run[0], "thinking" if thought else "text", at, events)
            key = candidate.run[0]
            if part["text"]:
                blocks.delta(key, LucentBlockDeltaThinking(text=part["text"]) if thought else LucentBlockDeltaText(text=part["text"]), f"{at}.text", events)
            if signature is not None:
                candidate.signed = True
                if thought:
                    blocks.delta(key, LucentBlockDeltaSignature(signature=signature), f"{at}.thoughtSignature", events)
                else:
                    self._signature_block(candidate, signature, at, events)
            return
        if candidate.run is not None:
            blocks.end(candidate.run[0], at, events)
            candidate.run = None
        call = part.get("functionCall")
        if isinstance(call, dict) and set(part) <= {"functionCall", "thoughtSignature"}:
            name = call.get("name")
            if not isinstance(name, str):
                raise _fail("incomplete_tool_call", "a functionCall part has no name", f"{at}.functionCall", self.usage)
            self._declared(name, f"{at}.functionCall.name", "a functionCall part")
            arguments = "{}"
            if "args" in call:
                try:
                    arguments = dump_json_text(call["args"])
                except JsonTextError as exc:
                    raise _fail("malformed_arguments", f"the functionCall args {exc.predicate}", f"{at}.functionCall.args", self.usage) from None
            call_id = call.get("id")
            if not isinstance(call_id, str):
                call_id = derived_call_id(name, arguments, self._ids)
                self._sink.report(f"{at}.functionCall", "Degraded", f"the function call has no id, which a Lux tool block needs: derived {call_id!r}; a Gemini writer leaves it out again")
            self._ids.add(call_id)
            key = ("call", blocks.next)
            blocks.start(key, LucentBlockTypeToolCall(id=call_id, name=name), at, events)
            if "args" in call:
                blocks.delta(key, LucentBlockDeltaToolArguments(arguments=arguments), f"{at}.functionCall.args", events)
            blocks.end(key, at, events)
            candidate.calls += 1
            if signature is not None:
                self._signature_block(candidate, signature, at, events)
            return
        self._sink.report(at, "Unsupported", f"a Lux stream cannot carry a part with {', '.join(sorted(part))}; dropped")
        media = part.get("inlineData")
        if isinstance(media, dict) and media.get("data"):  # its bytes are named too, as a document's Lux media side-car names them
            self._sink.report(f"{at}.inlineData.data", "Unsupported", "the bytes of the part, dropped with it")

    def close(self, count: int) -> Hub:
        at = f"$[{count}]"
        if not self._begun:
            raise _fail("missing_terminal", "the stream ended before its first chunk", "$[0]", self.usage)
        for n in sorted(self._candidates):
            if self._candidates[n].finish is None:
                raise _fail("missing_finish", f"candidate {n} never received its finishReason: the stream was cut off", f"$[{self._candidates[n].first}].candidates", self.usage)
        self._delivered()
        out: Hub = []
        if self._candidates:
            first = self._candidates[min(self._candidates)]
            assert first.finish is not None
            reason, where = first.finish
            lux = finish_reason_to_lux(reason, bool(first.calls))
            if not finish_reason_exact(reason):
                self._sink.report(where, "Degraded", f"Lux has no {reason}; read as {lux}")
            if any(c.finish is not None and c.finish[0] != reason for c in self._candidates.values()):
                self._sink.report(where, "Degraded", "a Lux stream has one finish reason; the candidates' differ, the first candidate's is kept")
            out.append((LucentStreamEventFinish(finish_reason=lux), where))  # type: ignore[arg-type]
        else:
            out.append((LucentStreamEventFinish(finish_reason="content_filter" if "promptFeedback" in self._top else "stop"), at))
            self._sink.report(at, "Degraded", "no candidate came (a blocked prompt?): the Lux stream has no item")
        if self._usage is not None:
            out.append((LucentStreamEventUsage(usage=usage_to_lux(self._usage, self._usage_at, self._sink)), self._usage_at))
        out.append((LucentStreamEventDone(), at))
        return out


@dataclass
class _WBlock:
    kind: str  # text, thought, call, signature, drop
    sent: bool = False
    arguments: list[str] = field(default_factory=list)
    call: LucentBlockTypeToolCall | None = None
    signature: str | None = None


class GeminiWriter(VendorWriter):
    """Lux events -> GenerateContentResponse chunks (see the module docstring)."""
    context_keys = ("id", "model")  # responseId, modelVersion when the Lux stream has none

    target = "Gemini"

    def __init__(self, sink: _Sink, exact: bool, context: Mapping[str, Any] | None = None) -> None:
        super().__init__(sink, exact, context)
        self._top: dict[str, Any] = {}
        self._item: int | None = None
        self._blocks: dict[int, _WBlock] = {}
        self._held: dict[str, Any] | None = None  # the last chunk, held for finishReason and usage
        self._ended: list[int] = []
        self._written: set[int] = set()
        self._finish: tuple[str, str] | None = None
        self._usage: tuple[LucentUsage, str] | None = None
        self._calls = False  # a functionCall part was written

    def _chunk(self, candidate: dict[str, Any]) -> dict[str, Any]:
        return {"candidates": [candidate], **self._top}

    def _part(self, part: dict[str, Any], out: list[Any]) -> None:
        assert self._item is not None
        self._flush(out)
        self._written.add(self._item)
        self._held = self._chunk({"content": {"parts": [part], "role": "model"}, "index": self._item})

    def _last_part(self) -> dict[str, Any] | None:
        """The part written last in the current candidate (held until the next one), if any."""
        held = self._held
        if held is None or not held.get("candidates") or held["candidates"][0].get("index") != self._item:
            return None
        parts = held["candidates"][0].get("content", {}).get("parts") or []
        return parts[-1] if parts else None

    def _flush(self, out: list[Any]) -> None:
        if self._held is not None:
            event = self.written(self._held, GenerateContentResponse)
            if event is not None:
                out.append(event)
            self._held = None

    def push(self, event: Any, origin: str, out: list[Any]) -> None:
        if isinstance(event, LucentStreamEventConversationStart):
            for key, name in (("id", "responseId"), ("model", "modelVersion")):
                value = getattr(event.meta, key)
                if value is UNSET:
                    value = self.context.get(key)
                if isinstance(value, str):
                    self._top[name] = value
            if event.meta.usage_input is not UNSET:
                self._sink.report(self.at(origin, ".meta.usage_input"), "Degraded", "the input count comes with the usage on the last chunk")
        elif isinstance(event, LucentStreamEventItemStart):
            self._item = event.index
            self._blocks = {}
            assert isinstance(event.item, LucentConversationItemMessage)
            message = event.item.message
            if message.role != "assistant":
                self._sink.report(self.at(origin, ".item.message.role"), "Degraded", "a candidate's content is the model's")
            for i, content in enumerate(message.content):
                where = self.at(origin, f".item.message.content[{i}]")
                events = initial_events(content, -1 - i)  # initial content: indexes no Lux block takes
                if events is None:
                    self._sink.report(where, "Unsupported", "a Gemini stream cannot carry this content; dropped")
                    continue
                for initial in events:
                    self._block(initial, where, out)
        elif isinstance(event, (LucentStreamEventBlockStart, LucentStreamEventBlockDelta, LucentStreamEventBlockEnd, LucentStreamEventBlockDiscard, LucentStreamEventAnnotations)):
            if self._item is not None:
                self._block(event, origin, out)
        elif isinstance(event, LucentStreamEventItemEnd):
            if self._item is not None:
                self._ended.append(self._item)
            self._item = None
        elif isinstance(event, LucentStreamEventFinish):
            self._finish = (event.finish_reason, self.at(origin, ".finish_reason"))
        elif isinstance(event, LucentStreamEventUsage):
            self._usage = (event.usage, self.at(origin, ".usage"))
        elif isinstance(event, LucentStreamEventError):
            self._sink.report(self.at(origin, ".error"), "Unsupported", "a Gemini stream has no error chunk (the HTTP stream fails): the error is dropped; the candidates finish with OTHER")
            self._finish = ("error", self.at(origin, ""))
        elif isinstance(event, LucentStreamEventDone):
            self._done(out)

    def _block(self, event: Any, origin: str, out: list[Any]) -> None:
        if isinstance(event, LucentStreamEventBlockStart):
            kind = event.block_type
            if kind == "text" or kind == "refusal":
                if kind == "refusal":
                    self._sink.report(self.at(origin, ".block_type"), "Degraded", "Gemini has no refusal; written as text")
                self._blocks[event.index] = _WBlock("text")
            elif kind == "thinking":
                self._blocks[event.index] = _WBlock("thought")
            elif isinstance(kind, LucentBlockTypeToolCall):
                self._blocks[event.index] = _WBlock("call", call=kind)
            else:
                self._blocks[event.index] = _WBlock("drop")
                self._sink.report(self.at(origin, ".block_type"), "Unsupported", f"a Gemini stream cannot carry a {kind} block; dropped")
            return
        block = self._blocks.get(event.index)
        if block is None or block.kind == "drop":
            return
        if isinstance(event, LucentStreamEventBlockDelta):
            delta = event.delta
            if isinstance(delta, LucentBlockDeltaSignature):
                block.signature = delta.signature
                if block.sent and self._held is not None:  # on the thought part already written
                    self._held["candidates"][0]["content"]["parts"][-1]["thoughtSignature"] = delta.signature
                    block.signature = None
            elif isinstance(delta, LucentBlockDeltaToolArguments):
                block.arguments.append(delta.arguments)
            elif isinstance(delta, (LucentBlockDeltaText, LucentBlockDeltaRefusal)) and delta.text:
                block.sent = True
                self._part({"text": delta.text}, out)
            elif isinstance(delta, LucentBlockDeltaThinking) and delta.text:
                block.sent = True
                self._part({"text": delta.text, "thought": True}, out)
        elif isinstance(event, LucentStreamEventBlockEnd):
            self._end(block, origin, out)
        elif isinstance(event, LucentStreamEventBlockDiscard):
            if block.sent:
                self._sink.report(self.at(origin, ""), "Invalid", "the part was written already, and a Gemini stream cannot take it back; it stays")
            block.kind = "drop"
        else:
            self._sink.report(self.at(origin, ".annotations"), "Unsupported", "a Gemini part has no annotations; dropped")

    def _end(self, block: _WBlock, origin: str, out: list[Any]) -> None:
        if block.kind == "thought" and not block.sent:
            if block.signature is not None:  # a signature-only thinking block
                last = self._last_part()
                if last is not None and not last.get("thought") and "thoughtSignature" not in last:
                    last["thoughtSignature"] = block.signature  # the part before it is the one it signs
                else:
                    self._part({"text": "", "thought": True, "thoughtSignature": block.signature}, out)
            return
        if block.kind == "thought" and block.signature is not None:
            self._part({"text": "", "thought": True, "thoughtSignature": block.signature}, out)
        elif block.kind == "text" and not block.sent:
            self._part({"text": ""}, out)
        elif block.kind == "call":
            assert block.call is not None
            text = "".join(block.arguments)
            args: Any = {}
            if text.strip():
                try:
                    args = parse_arguments(text)
                except ValueError as exc:
                    self._sink.report(self.at(origin, ""), "Invalid", f"Gemini functionCall.args is a JSON object; the arguments text {exc}; written as {{}}")
                    args = {}
            call: dict[str, Any] = {"name": block.call.name, "args": args if args is not None else {}}
            stem = re.sub(r"-[0-9]+$", "", block.call.id)
            if block.call.id != derived_call_id(block.call.name, text or "{}") and stem != derived_call_id(block.call.name, text or "{}"):
                call["id"] = block.call.id  # an id the reader derived (the part had none) is left out
            self._calls = True
            self._part({"functionCall": call}, out)

    def _done(self, out: list[Any]) -> None:
        reason = "STOP"
        if self._finish is not None:
            lux, where = self._finish
            reason = FINISH_REASON_FROM_LUX[lux]
            if lux == "tool_calls" and not self._calls:
                self._sink.report(where, "Unsupported", "Gemini says STOP when the model calls functions; without a function call in the message, tool_calls is written as STOP and comes back as stop")
            elif lux == "stop" and self._calls:
                self._sink.report(where, "Degraded", "Gemini says STOP when the model calls functions; it comes back as tool_calls")
        held = self._held
        last = held["candidates"][0]["index"] if held is not None else None
        for n in self._ended:
            if n == last:
                continue
            # A candidate whose last part went out already: its finishReason alone; a candidate
            # with no part at all: its (empty) content too, as the API sends it.
            candidate: dict[str, Any] = {"index": n, "finishReason": reason}
            if n not in self._written:
                candidate = {"content": {"role": "model"}, **candidate}
            chunk = self._chunk(candidate)
            if n == self._ended[-1] and held is None:
                held = self._held = chunk
            else:
                event = self.written(chunk, GenerateContentResponse)
                if event is not None:
                    out.append(event)
        if held is None:
            held = self._held = dict(self._top)
        for held_candidate in held.get("candidates", []):
            held_candidate["finishReason"] = reason
        if self._usage is not None:
            usage, origin = self._usage
            held["usageMetadata"] = usage_from_lux(usage)
            try:
                build(dict(held), GenerateContentResponse)
            except EncodeError:
                del held["usageMetadata"]
                self._sink.report(origin, "Invalid", "a count is out of the range Gemini's usageMetadata takes (int32); the usage is not written")
        self._flush(out)
