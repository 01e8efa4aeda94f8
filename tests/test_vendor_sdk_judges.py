"""The vendors' own SDKs judge every corpus conversion (issue 16, points 2 and 3).

Each recording of the corpus (tests/sdk_judges.py: the lingua requests, responses and streams,
the shared corpus' SparkTide requests and documented stream) is converted to every vendor
format; the target's SDK (openai, anthropic, google-genai) parses the output with its own
models and stream helpers, keeps every member lucent wrote, and its parsed value holds the same
key fields as lucent's (ids, finish / stop reason, text, tool calls, usage). A conversion to the
recording's own format may give back what the recording itself had that its SDK refuses
(``tests.sdk_judges.recorded_failures``); :data:`SDK_STRICTER` lists where the SDK refuses what
the vendor's published spec allows, which lucent keeps.
"""

from __future__ import annotations

import json

import pytest

from tests.diagnostics_census import VENDORS, Case, cases
from tests.sdk_judges import SHARED, Refused, convert, corpus, findings, judge, keys

SDK_STRICTER: dict[str, str] = {
    "anthropic unmodeled $.temperature": "anthropic 2.x's MessageCreateParams has no temperature; the spec keeps it (deprecated: models after Claude Opus 4.6 take only 1.0)",
    "anthropic unmodeled $.top_p": "anthropic 2.x's MessageCreateParams has no top_p; the spec keeps it (deprecated)",
    "anthropic unmodeled $.top_k": "anthropic 2.x's MessageCreateParams has no top_k; the spec keeps it (deprecated)",
}
"""Members of a request that the target SDK's types lack and the vendor's spec defines: lucent
writes what the spec says (the SDK's own client could not send them; a gateway's HTTP can)."""

CASES = corpus()


@pytest.mark.parametrize("case", CASES, ids=[f"{c.kind}:{c.file}" for c in CASES])
def test_every_target_sdk_parses_the_conversion_and_reads_the_same_key_fields(case: Case) -> None:
    found = [f"{f.target}: {f.signature}: {f.detail}" for target in VENDORS for f in findings(case, target) if f.signature not in SDK_STRICTER]
    assert found == []


def test_the_corpus_is_all_there() -> None:
    kinds = {kind: sum(c.kind == kind for c in CASES) for kind in ("request", "response", "stream")}
    sparktide = 41 if (SHARED / "sparktide-derived").is_dir() else 1  # the shared corpus' 40 and the documented one
    assert kinds == {"request": 340 + sparktide, "response": 331, "stream": 255 + 1}, kinds  # lingua, then SparkTide


def _case(file: str, fmt: str, kind: str) -> Case:
    return next(c for c in cases(fmt, kind) if c.file == file)


def test_the_key_fields_hold_the_tool_call_text_and_usage() -> None:
    """Not a vacuous comparison: a tool call crosses Anthropic -> Chat with its name and
    arguments, the SDK reads them, and the usage counts."""
    case = _case("toolCallRequest/anthropic/response.json", "anthropic", "response")
    output, _ = convert(case, "openai-chat")
    got = keys("openai-chat", "response", judge("openai-chat", "response", output).parsed)
    call = next(b for b in case.value["content"] if b["type"] == "tool_use")
    assert got["id"] == case.value["id"]
    assert got["choices"][0]["finish_reason"] == "tool_calls"
    assert got["choices"][0]["tool_calls"] == [(call["id"], "function", call["name"], call["input"], None)]
    usage = case.value["usage"]
    assert got["usage"][:2] == [usage["input_tokens"] + usage.get("cache_read_input_tokens", 0) + usage.get("cache_creation_input_tokens", 0), usage["output_tokens"]]


def test_a_stream_reaches_the_sdk_helper_with_its_text() -> None:
    case = _case("simpleRequest/gemini/response-streaming.json".replace("gemini", "google"), "gemini", "stream")
    output, assembled = convert(case, "anthropic")
    message = judge("anthropic", "stream", output).parsed
    text = "".join(p.get("text", "") for chunk in case.value for p in chunk["candidates"][0]["content"].get("parts", []) if not p.get("thought"))
    assert text and "".join(b.text for b in message.content if b.type == "text") == text
    assert message.stop_reason == assembled["stop_reason"] == "end_turn"


def test_a_chat_choice_with_nothing_to_stream_still_names_its_role() -> None:
    """A Responses stream cut off in its reasoning (only a reasoning item, which Chat has no
    place for): the chat stream's choice opens with the assistant's role, so the SDK's
    accumulated message has one (it had none, and ChatCompletion requires it)."""
    case = _case("reasoningRequestTruncated/responses/response-streaming.json", "openai-responses", "stream")
    output, _ = convert(case, "openai-chat")
    assert output[0]["choices"][0]["delta"] == {"role": "assistant", "content": None, "refusal": None}
    completion = judge("openai-chat", "stream", output).parsed
    assert (completion.choices[0].message.role, completion.choices[0].message.content, completion.choices[0].finish_reason) == ("assistant", None, "length")


def test_the_judges_refuse_what_the_vendor_would_not_write() -> None:
    """The judges are not lenient: a Responses usage without cache_write_tokens, an invented
    member, a wrong type and an unknown stream event are each found."""
    case = _case("simpleRequest/anthropic/response.json", "anthropic", "response")
    output, _ = convert(case, "openai-responses")
    assert "cache_write_tokens" in output["usage"]["input_tokens_details"]  # the Anthropic count, written
    del output["usage"]["input_tokens_details"]["cache_write_tokens"]
    with pytest.raises(Refused) as refused:
        judge("openai-responses", "response", output)
    assert [(e["type"], e["loc"]) for e in refused.value.errors] == [("missing", ("usage", "input_tokens_details", "cache_write_tokens"))]
    output, _ = convert(case, "openai-chat")
    output["choices"][0]["message"]["invented"] = 1
    assert judge("openai-chat", "response", output).unmodeled == ["$.choices[0].message.invented"]
    output["usage"]["prompt_tokens"] = "12"
    with pytest.raises(Refused):
        judge("openai-chat", "response", output)
    events, _ = convert(_case("simpleRequest/anthropic/response-streaming.json", "anthropic", "stream"), "anthropic")
    with pytest.raises(Refused):
        judge("anthropic", "stream", [*events[:-1], {"type": "message_end"}])


@pytest.mark.parametrize("member", ["temperature", "top_p", "top_k"])
def test_the_sdk_stricter_members_are_in_the_vendor_spec(member: str) -> None:
    """Each SDK_STRICTER member is one the vendor's spec defines (lucent's vendor schema, from
    ../shared/specs), and the SDK's request type lacks."""
    from anthropic.types import message_create_params

    from tests.paths import REPO

    spec = json.loads((REPO / "schemas" / "vendor" / "anthropic.json").read_text(encoding="utf-8"))
    assert member in spec["$defs"]["CreateMessageParams"]["properties"]
    assert member not in message_create_params.MessageCreateParamsBase.__annotations__
    assert f"anthropic unmodeled $.{member}" in SDK_STRICTER
