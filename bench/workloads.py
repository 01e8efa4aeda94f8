"""Deterministic, realistic workloads for the benchmarks (issue 6, section 2).

A *conversation* is drawn from a fixed seed: turns of a user question, an assistant turn with
thinking, text and one or two tool calls (JSON arguments), the tool results, and an assistant
answer, with a tool list, as in the lingua corpus (``tests/data/lingua/snapshots/
parallelToolCallsRequest`` and the thinking snapshots) and ``examples/sparktide-request.json``.

* The seed formats are written by lucent itself from the Lux document (``lux -> sparktide``,
  ``llm-sdk``, ``htmlp``), so they carry what each format can carry; the diagnostics schema gets
  the report of that conversion.
* The vendor formats (``openai-chat``, ``anthropic``, ``openai-responses``, ``gemini``) are
  written here in each format's own shape, as recorded in the corpus.

:func:`document` returns a document of about the requested size (1 KB, 20 KB, 1 MB), from 1 to
1,000 messages; every one is checked against its schema with :func:`lucent.decode` when built.
:func:`stream_sse` returns a stream of a given number of frames (``bench/stream_linearity.py``).
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import lucent

SIZES: dict[str, int] = {"1KB": 1_000, "20KB": 20_000, "1MB": 1_000_000}
"""Size label -> target size of the document's compact JSON text, in bytes."""

_BYTES = {**SIZES, "13KB": 13_000}  # 13 KB: the conversation of the LiteLLM comparison

# (format, kind) -> (schema, definition) that the document decodes as.
DOCUMENTS: dict[str, tuple[str, str | None]] = {
    "lux": ("lux-ir-v1", "LucentRequest"),
    "sparktide": ("sparktide-remote-1.0", "RemoteModelRequest"),
    "llm-sdk": ("llm-sdk", "LanguageModelInput"),
    "htmlp": ("htmlp-model-request", None),
    "diagnostics": ("lucent-diagnostics-v1", "ConversionResult"),
    "openai-chat": ("openai-chat", "CreateChatCompletionRequest"),
    "anthropic": ("anthropic", "CreateMessageParams"),
    "openai-responses": ("openai-responses", "CreateResponse"),
    "gemini": ("gemini", "GenerateContentRequest"),
}
"""Workload name -> (schema stem, definition; None for the schema root)."""

SPARKTIDE_CONTEXT: dict[str, Any] = {
    "invocationId": "inv_bench", "deadline": 1893456000000, "purpose": "SYNTHETIC_PROBE", "appId": "bench",
    "model": "gpt-5-nano", "max_completion_tokens": 1024, "stream": False,
}
"""What a SparkTide request needs and a Lux document does not carry (the platform envelope)."""

_WORDS = (
    "the weather in San Francisco New York forecast tomorrow humidity wind precipitation "
    "temperature sunny cloudy rain snow travel plan packing list museum opening hours ticket "
    "price train schedule station delay route traffic 65°F 45°F 设备 café naïve résumé — "
    "please compare summarise explain why because therefore however meanwhile "
    "query result error retry status cache latency request response token budget"
).split()

_TOOLS = (
    ("get_weather", "Get the current weather for a location", {"location": "string", "unit": "string"}),
    ("search_web", "Search the web and return the top results", {"query": "string", "limit": "integer"}),
    ("read_file", "Read a file from the workspace", {"path": "string"}),
)


@dataclass(frozen=True)
class Call:
    id: str
    name: str
    arguments: dict[str, Any]
    result: str


@dataclass(frozen=True)
class Conversation:
    turns: tuple[Turn, ...]
    tools: tuple[tuple[str, str, dict[str, str]], ...]


@dataclass(frozen=True)
class Turn:
    question: str
    thinking: str
    signature: str
    preamble: str
    calls: tuple[Call, ...]
    answer: str


def _text(rng: random.Random, words: int) -> str:
    return " ".join(rng.choice(_WORDS) for _ in range(max(words, 1)))


def conversation(turns: int, words: int, tools: int = len(_TOOLS), seed: int = 6) -> Conversation:
    """``turns`` turns (4 to 6 messages each in most formats), ``words`` words per text part,
    the first ``tools`` tools declared (and called)."""
    rng = random.Random(seed)
    out = []
    for t in range(turns):
        calls = []
        for c in range(1 + (t % 2)):
            name, _, params = _TOOLS[(t + c) % tools]
            args = {p: (rng.randint(1, 20) if kind == "integer" else _text(rng, 3)) for p, kind in params.items()}
            calls.append(Call(f"call_{t}_{c}", name, args, _text(rng, words)))
        out.append(Turn(
            question=_text(rng, words), thinking=_text(rng, words), signature=f"sig{t:04d}" + "A" * 40,
            preamble=_text(rng, max(words // 4, 1)), calls=tuple(calls), answer=_text(rng, words),
        ))
    return Conversation(tuple(out), _TOOLS[:tools])


def _schema_of(params: dict[str, str]) -> dict[str, Any]:
    return {"type": "object", "properties": {p: {"type": k, "description": f"The {p}"} for p, k in params.items()}, "required": list(params)}


# --- Lux (and through lucent, the seed formats) -------------------------------------------

def lux(conv: Conversation) -> dict[str, Any]:
    items: list[dict[str, Any]] = [{"type": "message", "message": {"role": "system", "content": [{"type": "text", "text": "You are a helpful assistant."}]}}]
    for turn in conv.turns:
        items.append({"type": "message", "message": {"role": "user", "content": [{"type": "text", "text": turn.question}]}})
        content: list[dict[str, Any]] = [
            {"type": "thinking", "thinking": {"text": turn.thinking, "signature": turn.signature, "redacted": False}},
            {"type": "text", "text": turn.preamble},
        ]
        content += [{"type": "tool_use", "tool_use": {"id": c.id, "name": c.name, "arguments": json.dumps(c.arguments)}} for c in turn.calls]
        items.append({"type": "message", "message": {"role": "assistant", "content": content}})
        items += [{"type": "tool_result", "tool_result": {"tool_use_id": c.id, "content": [{"type": "text", "text": c.result}], "is_error": False}} for c in turn.calls]
        items.append({"type": "message", "message": {"role": "assistant", "content": [{"type": "text", "text": turn.answer}]}})
    return {
        "schema_version": "v1", "model": "gpt-5-nano", "conversation": items,
        "tools": [{"name": n, "description": d, "parameters": _schema_of(p)} for n, d, p in conv.tools],
        "options": {"max_output_tokens": 1024, "stream": False},
    }


def _through_lucent(target: str) -> Callable[[Conversation], Any]:
    def render(conv: Conversation) -> Any:
        context = SPARKTIDE_CONTEXT if target == "sparktide" else None
        result = lucent.convert(json.dumps(lux(conv)), source="lux", target=target, context=context)
        return json.loads(lucent.encode(result.value))
    return render


def diagnostics(conv: Conversation) -> dict[str, Any]:
    """A conversion report: the SparkTide request written from the Lux conversation, and every
    diagnostic of that conversion (thinking dropped, tool results degraded, ...)."""
    result = lucent.convert(json.dumps(lux(conv)), source="lux", target="sparktide", context=SPARKTIDE_CONTEXT)
    return json.loads(lucent.encode(result))


# --- Vendor formats, as recorded ----------------------------------------------------------

def openai_chat(conv: Conversation) -> dict[str, Any]:
    messages: list[dict[str, Any]] = [{"role": "system", "content": "You are a helpful assistant."}]
    for turn in conv.turns:
        messages.append({"role": "user", "content": turn.question})
        messages.append({"role": "assistant", "content": turn.preamble, "tool_calls": [
            {"id": c.id, "type": "function", "function": {"name": c.name, "arguments": json.dumps(c.arguments)}} for c in turn.calls]})
        messages += [{"role": "tool", "tool_call_id": c.id, "content": c.result} for c in turn.calls]
        messages.append({"role": "assistant", "content": turn.answer})
    return {
        "model": "gpt-5-nano", "messages": messages, "max_completion_tokens": 1024, "reasoning_effort": "low",
        "tools": [{"type": "function", "function": {"name": n, "description": d, "parameters": _schema_of(p)}} for n, d, p in conv.tools],
    }


def anthropic(conv: Conversation) -> dict[str, Any]:
    messages: list[dict[str, Any]] = []
    for turn in conv.turns:
        messages.append({"role": "user", "content": turn.question})
        content: list[dict[str, Any]] = [
            {"type": "thinking", "thinking": turn.thinking, "signature": turn.signature},
            {"type": "text", "text": turn.preamble},
        ]
        content += [{"type": "tool_use", "id": c.id, "name": c.name, "input": c.arguments} for c in turn.calls]
        messages.append({"role": "assistant", "content": content})
        messages.append({"role": "user", "content": [{"type": "tool_result", "tool_use_id": c.id, "content": c.result} for c in turn.calls]})
        messages.append({"role": "assistant", "content": [{"type": "text", "text": turn.answer}]})
    messages.append({"role": "user", "content": "What should I do next?"})
    return {
        "model": "claude-sonnet-4-5-20250929", "max_tokens": 1024, "system": "You are a helpful assistant.",
        "messages": messages, "thinking": {"type": "enabled", "budget_tokens": 1024},
        "tools": [{"name": n, "description": d, "input_schema": _schema_of(p)} for n, d, p in conv.tools],
        "tool_choice": {"type": "auto"},
    }


def openai_responses(conv: Conversation) -> dict[str, Any]:
    items: list[dict[str, Any]] = []
    for t, turn in enumerate(conv.turns):
        items.append({"role": "user", "content": turn.question})
        items.append({"id": f"rs_{t:04d}", "type": "reasoning", "summary": [{"type": "summary_text", "text": turn.thinking}]})
        items += [{"type": "function_call", "call_id": c.id, "name": c.name, "arguments": json.dumps(c.arguments), "status": "completed"} for c in turn.calls]
        items += [{"type": "function_call_output", "call_id": c.id, "output": c.result} for c in turn.calls]
        # An output message (type "message", output_text parts) is refused by the published
        # spec's overlapping InputItem oneOf (NOTES.md), so the answer is an easy input message.
        items.append({"role": "assistant", "content": turn.answer})
    return {
        "model": "gpt-5-nano", "instructions": "You are a helpful assistant.", "input": items,
        "reasoning": {"effort": "low", "summary": "auto"},
        "tools": [{"type": "function", "name": n, "description": d, "parameters": _schema_of(p), "strict": False} for n, d, p in conv.tools],
    }


def gemini(conv: Conversation) -> dict[str, Any]:
    contents: list[dict[str, Any]] = []
    for turn in conv.turns:
        contents.append({"role": "user", "parts": [{"text": turn.question}]})
        parts: list[dict[str, Any]] = [{"text": turn.thinking, "thought": True, "thoughtSignature": "c2lnbmF0dXJl"}, {"text": turn.preamble}]
        parts += [{"functionCall": {"name": c.name, "args": c.arguments}} for c in turn.calls]
        contents.append({"role": "model", "parts": parts})
        contents.append({"role": "user", "parts": [{"functionResponse": {"name": c.name, "response": {"result": c.result}}} for c in turn.calls]})
        contents.append({"role": "model", "parts": [{"text": turn.answer}]})
    upper = {"string": "STRING", "integer": "INTEGER"}
    return {
        "systemInstruction": {"parts": [{"text": "You are a helpful assistant."}]},
        "contents": contents,
        "generationConfig": {"maxOutputTokens": 1024, "thinkingConfig": {"includeThoughts": True, "thinkingBudget": 1024}},
        "tools": [{"functionDeclarations": [
            {"name": n, "description": d, "parameters": {"type": "OBJECT", "properties": {k: {"type": upper[v]} for k, v in p.items()}, "required": list(p)}}
            for n, d, p in conv.tools]}],
    }


RENDER: dict[str, Callable[[Conversation], Any]] = {
    "lux": lux,
    "sparktide": _through_lucent("sparktide"),
    "llm-sdk": _through_lucent("llm-sdk"),
    "htmlp": _through_lucent("htmlp"),
    "diagnostics": diagnostics,
    "openai-chat": openai_chat,
    "anthropic": anthropic,
    "openai-responses": openai_responses,
    "gemini": gemini,
}

# Turns per size: 1 KB is one short turn, 1 MB a long conversation of about 1,000 messages
# (SparkTide holds at most 256 messages, so its turns are longer).
_TURNS = {"1KB": 1, "13KB": 6, "20KB": 8, "1MB": 200}
_MAX_TURNS = {"sparktide": 50, "diagnostics": 50}


def _encode(value: Any) -> bytes:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode()


@lru_cache(maxsize=None)
def document(name: str, size: str) -> bytes:
    """The ``name`` workload (a key of :data:`DOCUMENTS`) at about ``SIZES[size]`` bytes (or 13 KB).

    The words per text part are chosen (by bisection) so that the document lands within 10% of
    the size; 1 KB documents are one turn with short texts. The document is checked with
    :func:`lucent.decode` against its schema.
    """
    target = _BYTES[size]
    turns = min(_TURNS[size], _MAX_TURNS.get(name, 10**9))
    tools = 1 if size == "1KB" else len(_TOOLS)
    render = RENDER[name]
    low, high = 1, 4
    while len(_encode(render(conversation(turns, high, tools)))) < target and high < 1 << 16:
        low, high = high, high * 4
    best = _encode(render(conversation(turns, low, tools)))
    while low < high:  # the largest word count whose document is at most the target
        mid = (low + high + 1) // 2
        text = _encode(render(conversation(turns, mid, tools)))
        if len(text) <= target:
            low, best = mid, text
        else:
            high = mid - 1
    schema, definition = DOCUMENTS[name]
    lucent.decode(best, schema, definition)  # a workload is a valid document
    return best


def messages_in(name: str, size: str) -> int:
    """The number of messages (conversation items) of a workload document, for the README."""
    doc = json.loads(document(name, size))
    for key in ("messages", "conversation", "contents", "input", "fragments"):
        if isinstance(doc.get(key), list):
            return len(doc[key])
    value = doc.get("value", {})
    return len(value.get("messages", [])) if isinstance(value, dict) else 0


def stream_sse(fmt: str, frames: int) -> bytes:
    """A stream of about ``frames`` SSE events of ``fmt`` (text deltas and split tool calls)."""
    from bench.stream_linearity import _sse, stream

    return _sse(stream(fmt, frames))
