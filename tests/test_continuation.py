"""A three-turn OpenAI Responses conversation, each turn naming the previous response, in front
of Anthropic Messages, Chat Completions and Gemini: every upstream request holds every earlier
turn, in order, with the tool calls and their results. On SQLite (a file) and on a real Redis
server. The upstream replies are recorded traffic (tests/data/lingua/snapshots)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import lucent
from lucent._context import read_by
from lucent.generated.lux_ir_v1 import LucentContentText
from lucent.snapshots import SnapshotStore

SNAPSHOTS = Path(__file__).parent / "data" / "lingua" / "snapshots"
VENDOR_FOLDER = {"anthropic": "anthropic", "openai-chat": "chat-completions", "gemini": "google"}
CONTEXT = {"max_tokens": 1024}  # Anthropic requires max_tokens; a Responses request need not give one


@pytest.fixture(params=["sqlite", "redis"])
def store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[SnapshotStore]:
    url = f"sqlite:{tmp_path / 'snapshots.db'}" if request.param == "sqlite" else request.getfixturevalue("redis_db")
    with SnapshotStore(url) as opened:
        yield opened


def recorded(target: str, case: str, name: str) -> bytes:
    return (SNAPSHOTS / case / VENDOR_FOLDER[target] / name).read_bytes()


def client_sees(reply: Any, response_id: str) -> dict[str, Any]:
    """The Responses `Response` the gateway sends the client for an upstream reply (in Lux)."""
    value = lucent.convert(reply, "lux", "openai-responses", "response", context={"created_at": 1}).value
    return json.loads(lucent.encode(value))


def turn(store: SnapshotStore, target: str, request: dict[str, Any], reply: bytes, response_id: str, scope: str) -> tuple[dict[str, Any], dict[str, Any]]:
    """One gateway turn: restore, convert to the upstream format, take the upstream's (recorded)
    reply, record it. Returns the upstream request and the client's Responses response."""
    restored = store.restore(request, scope=scope)
    upstream = lucent.convert(restored.value, "lux", target, context=read_by(CONTEXT, "lux", target))
    assert not [d for d in upstream.diagnostics if d.status == "Invalid"], upstream.diagnostics
    lux_reply = lucent.convert(reply, target, "lux", "response").value
    store.record(restored.value, lux_reply, scope=scope, response_id=response_id)
    return json.loads(lucent.encode(upstream.value)), client_sees(lux_reply, response_id)


def transcript(target: str, upstream: dict[str, Any]) -> list[tuple[str, str, str]]:
    """An upstream request as (speaker, kind, detail) per block: text, a tool call's id, or the
    id a tool result answers."""
    found: list[tuple[str, str, str]] = []
    if target == "anthropic":
        for message in upstream["messages"]:
            blocks = message["content"] if isinstance(message["content"], list) else [{"type": "text", "text": message["content"]}]
            for block in blocks:
                if block["type"] == "text":
                    found.append((message["role"], "text", block["text"]))
                elif block["type"] == "tool_use":
                    found.append((message["role"], "call", block["id"]))
                elif block["type"] == "tool_result":
                    content = block["content"] if isinstance(block["content"], str) else "".join(part["text"] for part in block["content"])
                    found.append((message["role"], "result", f"{block['tool_use_id']}={content}"))
    elif target == "openai-chat":
        for message in upstream["messages"]:
            if message["role"] in ("system", "developer"):
                continue  # instructions (see `instructions`)
            if message["role"] == "tool":
                found.append(("tool", "result", f"{message['tool_call_id']}={message['content']}"))
                continue
            if message.get("content"):
                text = message["content"] if isinstance(message["content"], str) else "".join(p["text"] for p in message["content"])
                found.append((message["role"], "text", text))
            found.extend((message["role"], "call", call["id"]) for call in message.get("tool_calls", []))
    else:
        for content in upstream["contents"]:
            for part in content["parts"]:
                if part.get("thought"):
                    continue
                if "text" in part:
                    found.append((content["role"], "text", part["text"]))
                elif "functionCall" in part:
                    found.append((content["role"], "call", part["functionCall"]["id"]))
                elif "functionResponse" in part:
                    response = part["functionResponse"]
                    found.append((content["role"], "result", f"{response['id']}={response['response'].get('result')}"))
    return found


def instructions(target: str, upstream: dict[str, Any]) -> str:
    """The system text of an upstream request."""
    if target == "anthropic":
        system = upstream.get("system", "")
        return system if isinstance(system, str) else "".join(block["text"] for block in system)
    if target == "openai-chat":
        return "".join(m["content"] if isinstance(m["content"], str) else "".join(p["text"] for p in m["content"])
                       for m in upstream["messages"] if m["role"] in ("system", "developer"))
    return "".join(part.get("text", "") for part in upstream.get("systemInstruction", {}).get("parts", []))


@pytest.mark.parametrize("target", ["anthropic", "openai-chat", "gemini"])
def test_three_turns_each_naming_the_previous_response_reach_a_stateless_upstream_whole(store: SnapshotStore, target: str) -> None:
    user, assistant, tool_speaker = {"anthropic": ("user", "assistant", "user"), "openai-chat": ("user", "assistant", "tool"),
                                     "gemini": ("user", "model", "user")}[target]
    first = json.loads((SNAPSHOTS / "toolCallRequest" / "responses" / "request.json").read_bytes())
    first["instructions"] = "Answer in one sentence."
    tools = first["tools"]

    # turn 1: the question; the upstream calls get_weather
    upstream, seen = turn(store, target, first, recorded(target, "toolCallRequest", "response.json"), "resp_1", "key-a")
    question = ("user", "text", "What's the weather like in San Francisco?")
    assert transcript(target, upstream) == [question]
    assert instructions(target, upstream) == "Answer in one sentence."
    [call_1] = [item for item in seen["output"] if item["type"] == "function_call"]

    # turn 2: the tool's result only; the upstream calls it again
    second = {"model": "gpt-5-nano", "previous_response_id": "resp_1", "tools": tools,
              "input": [{"type": "function_call_output", "call_id": call_1["call_id"], "output": "71 degrees"}]}
    upstream, seen = turn(store, target, second, recorded(target, "toolCallRequest", "followup-response.json"), "resp_2", "key-a")
    assert transcript(target, upstream) == [
        question, (assistant, "call", call_1["call_id"]), (tool_speaker, "result", f"{call_1['call_id']}=71 degrees")]
    assert instructions(target, upstream) == ""  # the first turn's instructions are not carried over
    [call_2] = [item for item in seen["output"] if item["type"] == "function_call"]

    # turn 3: the second result and a new question
    third = {"model": "gpt-5-nano", "previous_response_id": "resp_2", "tools": tools, "instructions": "Be brief.",
             "input": [{"type": "function_call_output", "call_id": call_2["call_id"], "output": "72 degrees"},
                       {"role": "user", "content": "Thanks. What is the capital of France?"}]}
    upstream, _seen = turn(store, target, third, recorded(target, "simpleRequest", "response.json"), "resp_3", "key-a")
    assert transcript(target, upstream) == [
        question,
        (assistant, "call", call_1["call_id"]),
        (tool_speaker, "result", f"{call_1['call_id']}=71 degrees"),
        (assistant, "call", call_2["call_id"]),
        (tool_speaker, "result", f"{call_2['call_id']}=72 degrees"),
        ("user", "text", "Thanks. What is the capital of France?"),
    ]
    assert instructions(target, upstream) == "Be brief."  # only the new request's instructions

    # the last snapshot holds every turn, the third reply last
    stored = store.get("resp_3", scope="key-a")
    assert len(stored.request.conversation) == 7
    assert stored.response_text == _reply_text(target) != ""


def _reply_text(target: str) -> str:
    reply = lucent.convert(recorded(target, "simpleRequest", "response.json"), target, "lux", "response").value
    return "".join(block.text for block in reply.choices[0].message.content if isinstance(block, LucentContentText))


def test_a_gemini_thought_signature_goes_back_with_its_call(store: SnapshotStore) -> None:
    first = json.loads((SNAPSHOTS / "toolCallRequest" / "responses" / "request.json").read_bytes())
    _upstream, seen = turn(store, "gemini", first, recorded("gemini", "toolCallRequest", "response.json"), "resp_g1", "k")
    [call] = [item for item in seen["output"] if item["type"] == "function_call"]
    second = {"model": "gemini-3-flash-preview", "previous_response_id": "resp_g1", "tools": first["tools"],
              "input": [{"type": "function_call_output", "call_id": call["call_id"], "output": "71 degrees"}]}
    upstream, _seen = turn(store, "gemini", second, recorded("gemini", "toolCallRequest", "followup-response.json"), "resp_g2", "k")
    signed = json.loads(recorded("gemini", "toolCallRequest", "response.json"))["candidates"][0]["content"]["parts"][0]
    [part] = [p for c in upstream["contents"] for p in c["parts"] if "functionCall" in p]
    assert part["thoughtSignature"] == signed["thoughtSignature"]


def test_restore_equals_the_client_sending_the_history_itself(store: SnapshotStore) -> None:
    # recorded traffic: the stateless follow-up repeats request + response output + the tool result
    folder = SNAPSHOTS / "toolCallRequest" / "responses"
    first = json.loads((folder / "request.json").read_bytes())
    reply = lucent.convert((folder / "response.json").read_bytes(), "openai-responses", "lux", "response").value
    store.record(store.restore(first, scope="s").value, reply, scope="s")
    stateless = json.loads((folder / "followup-request.json").read_bytes())
    continued = {**stateless, "previous_response_id": reply.id, "input": stateless["input"][3:]}
    restored = store.restore(continued, scope="s").value
    whole = lucent.convert(stateless, "openai-responses", "lux").value
    for target in ("anthropic", "openai-chat", "gemini"):
        by_store = lucent.convert(restored, "lux", target, context=read_by(CONTEXT, "lux", target)).value
        by_client = lucent.convert(whole, "lux", target, context=read_by(CONTEXT, "lux", target)).value
        assert lucent.encode(by_store) == lucent.encode(by_client), target
