"""Diagnostics name real losses (issue 16, point 1; docs/semantics.md, "Exact" and "Degraded
forms"): each false-report class found on the lingua corpus (``python -m
tests.diagnostics_census --verify``) fails a test here, and a sample of the corpus is checked
diagnostic by diagnostic against the target read back."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest

import lucent
from lucent.errors import ConversionError
from tests import diagnostics_census as census
from tests.paths import DATA, REPO

_SNAPSHOTS = DATA / "lingua" / "snapshots"


def _recorded(case: str, folder: str, name: str) -> Any:
    return json.loads((_SNAPSHOTS / case / folder / name).read_bytes())


def _fields(result: Any) -> dict[str, str]:
    return {d.field: d.status for d in result.diagnostics}


def _json(value: Any) -> Any:
    return json.loads(lucent.encode(value))


def _anthropic_response(**members: Any) -> dict[str, Any]:
    response = {
        "id": "msg_1", "type": "message", "role": "assistant", "model": "claude", "content": [{"type": "text", "text": "hi"}],
        "stop_reason": "end_turn", "stop_sequence": None,
        "usage": {"input_tokens": 3, "output_tokens": 1, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0,
                  "cache_creation": {"ephemeral_5m_input_tokens": 0, "ephemeral_1h_input_tokens": 0}},
    }
    response.update(members)
    return response


# ------------------------------------------------------------------ Anthropic response -> Chat
def test_an_anthropic_response_with_null_stop_sequence_and_zero_cache_creation_passes_strict_to_chat() -> None:
    result = lucent.convert(_anthropic_response(stop_details=None), "anthropic", "openai-chat", kind="response", context={"created": 1}, strict=True)
    assert [(d.field, d.status) for d in result.diagnostics] == []  # the created time is the caller's: no loss (issue 16 §1)
    assert _json(result.value)["usage"]["prompt_tokens_details"] == {"cached_tokens": 0, "cache_write_tokens": 0}


def test_recorded_anthropic_responses_name_neither_stop_sequence_nor_cache_creation_to_chat() -> None:
    for file in sorted(_SNAPSHOTS.glob("*/anthropic/response.json"))[:20]:
        document = json.loads(file.read_bytes())
        result = lucent.convert(document, "anthropic", "openai-chat", kind="response", context={"created": 1})
        named = _fields(result)
        zero = document["usage"].get("cache_creation") == {"ephemeral_5m_input_tokens": 0, "ephemeral_1h_input_tokens": 0}
        assert "$.stop_sequence" not in named or document["stop_sequence"] is not None, file
        assert "$.stop_details" not in named or document.get("stop_details") is not None, file
        assert "$.usage.cache_creation" not in named or not zero, file


@pytest.mark.parametrize("members", [
    {}, {"stop_sequence": "END", "stop_reason": "stop_sequence"}, {"stop_details": None}, {"stop_sequence": "__absent__"},
    {"usage": {"input_tokens": 3, "output_tokens": 1, "cache_creation_input_tokens": 0}},
    {"usage": {"input_tokens": 3, "output_tokens": 1, "cache_creation_input_tokens": 2, "cache_creation": {"ephemeral_5m_input_tokens": 2, "ephemeral_1h_input_tokens": 0}}},
])
def test_anthropic_responses_come_back_equal_through_lux(members: dict[str, Any]) -> None:
    response = _anthropic_response(**members)
    if response["stop_sequence"] == "__absent__":
        del response["stop_sequence"]
    lux = lucent.convert(response, "anthropic", "lux", kind="response")
    back = lucent.convert(lux.value, "lux", "anthropic", kind="response")
    assert _json(back.value) == response
    assert [d.status for d in back.diagnostics] == []


def test_a_non_zero_cache_creation_is_still_reported_once_to_chat() -> None:
    usage = {"input_tokens": 3, "output_tokens": 1, "cache_creation_input_tokens": 0, "cache_creation": {"ephemeral_5m_input_tokens": 0, "ephemeral_1h_input_tokens": 4}}
    result = lucent.convert(_anthropic_response(usage=usage), "anthropic", "openai-chat", kind="response", context={"created": 1})
    assert [d.status for d in result.diagnostics if d.field == "$.usage.cache_creation"] == ["Unsupported"]


# ------------------------------------------------------------------ Chat request -> Anthropic
def test_a_chat_followup_with_refusal_null_passes_strict_to_anthropic() -> None:
    request = {"model": "gpt-4o", "messages": [
        {"role": "user", "content": "Hi"},
        {"role": "assistant", "content": "Hello!", "refusal": None},
        {"role": "user", "content": "Bye"}]}
    result = lucent.convert(request, "openai-chat", "anthropic", context={"max_tokens": 1024}, strict=True)
    assert [d.field for d in result.diagnostics] == ["target:$.max_tokens"]  # the caller's value, Degraded
    back = lucent.convert(lucent.convert(request, "openai-chat", "lux").value, "lux", "openai-chat")
    assert _json(back.value) == request  # the null comes back (a spelling in the side-car)


def test_the_recorded_chat_followup_names_no_refusal_to_anthropic() -> None:
    document = _recorded("bedrockAnthropicOpus48SamplingParam", "chat-completions", "followup-request.json")
    assert document["messages"][1]["refusal"] is None
    result = lucent.convert(document, "openai-chat", "anthropic", context={"max_tokens": 1024})
    assert "$.messages[1].refusal" not in _fields(result)


def test_the_13_kb_chat_conversation_with_tools_has_no_diagnostic_to_anthropic() -> None:
    from bench.workloads import document

    conversation = document("openai-chat", "13KB")
    assert b'"role":"tool"' in conversation and b'"arguments":"{\\"' in conversation
    result = lucent.convert(conversation, "openai-chat", "anthropic", context={"max_tokens": 1024}, strict=True)
    assert list(result.diagnostics) == []


def test_arguments_text_with_spacing_is_exact_and_a_rounded_number_is_degraded() -> None:
    def request(arguments: str) -> dict[str, Any]:
        return {"model": "m", "messages": [
            {"role": "user", "content": "weather?"},
            {"role": "assistant", "content": None, "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "f", "arguments": arguments}}]},
            {"role": "tool", "tool_call_id": "c1", "content": "Rainy"}]}

    for target in ("anthropic", "gemini"):
        context = {"max_tokens": 8} if target == "anthropic" else None
        spaced = lucent.convert(request('{"city": "Paris", "days": 1.0, "e": "\\u00e9"}'), "openai-chat", target, context=context)
        assert "$.messages[1].tool_calls[0].function.arguments" not in _fields(spaced), target
        rounded = lucent.convert(request('{"x": 0.10000000000000000001}'), "openai-chat", target, context=context)
        found = [d for d in rounded.diagnostics if d.field == "$.messages[1].tool_calls[0].function.arguments"]
        assert [(d.status, "rounded" in d.detail) for d in found] == [("Degraded", True)], target


def test_a_tool_result_moved_ahead_of_text_is_still_reported() -> None:
    request = {"model": "m", "max_tokens": 8, "messages": [
        {"role": "user", "content": "weather?"},
        {"role": "assistant", "content": [{"type": "tool_use", "id": "t1", "name": "f", "input": {}}]},
        {"role": "user", "content": [{"type": "text", "text": "here:"}, {"type": "tool_result", "tool_use_id": "t1", "content": "Rainy"}]}]}
    result = lucent.convert(request, "anthropic", "openai-chat")
    found = [d for d in result.diagnostics if d.field == "$.messages[2].content[1]"]
    assert [d.status for d in found] == ["Degraded"] and "moved ahead" in found[0].detail
    in_place = json.loads(json.dumps(request))
    in_place["messages"][2]["content"].reverse()
    assert "$.messages[2].content[0]" not in _fields(lucent.convert(in_place, "anthropic", "openai-chat"))


# ------------------------------------------------------------------ Responses response -> others
def _responses_response() -> dict[str, Any]:
    return {
        "id": "resp_1", "object": "response", "created_at": 1, "status": "completed", "model": "gpt-5", "error": None,
        "incomplete_details": None, "instructions": None, "metadata": {}, "parallel_tool_calls": True, "tool_choice": "auto", "tools": [], "temperature": 1.0, "top_p": 1.0,
        "output": [{"type": "message", "id": "msg_1", "role": "assistant", "status": "completed",
                    "content": [{"type": "output_text", "text": "hi", "annotations": [], "logprobs": []}]}],
        "usage": {"input_tokens": 3, "input_tokens_details": {"cached_tokens": 0}, "output_tokens": 1, "output_tokens_details": {"reasoning_tokens": 0}, "total_tokens": 4},
    }


@pytest.mark.parametrize("target", ["openai-chat", "anthropic", "gemini"])
def test_a_responses_response_names_none_of_the_members_the_way_back_writes(target: str) -> None:
    result = lucent.convert(_responses_response(), "openai-responses", target, kind="response", context={"created": 1} if target == "openai-chat" else None)
    named = _fields(result)
    for member in ("object", "status", "error", "incomplete_details", "instructions", "metadata", "parallel_tool_calls", "tool_choice", "tools"):
        assert f"$.{member}" not in named, (target, member)


def test_a_responses_response_with_defaults_comes_back_equal_without_diagnostics() -> None:
    response = _responses_response()
    lux = lucent.convert(response, "openai-responses", "lux", kind="response")
    back = lucent.convert(lux.value, "lux", "openai-responses", kind="response")
    assert _json(back.value) == response
    assert list(lux.diagnostics) == [] and list(back.diagnostics) == []
    changed = {**response, "tools": [{"type": "function", "name": "f", "parameters": {}, "strict": True}], "tool_choice": "required", "status": "in_progress"}
    result = lucent.convert(changed, "openai-responses", "openai-chat", kind="response", context={"created": 1})
    assert {"$.tools", "$.tool_choice", "$.status"} <= set(_fields(result))  # a value the way back does not give: named


def _incomplete(output: list[dict[str, Any]]) -> dict[str, Any]:
    return {**_responses_response(), "status": "incomplete", "incomplete_details": {"reason": "max_output_tokens"}, "output": output}


_MESSAGE = {"type": "message", "id": "msg_1", "role": "assistant", "status": "incomplete", "content": [{"type": "output_text", "text": "cut", "annotations": [], "logprobs": []}]}
_CALL = {"type": "function_call", "id": "fc_1", "call_id": "call_1", "name": "f", "arguments": "{}", "status": "completed"}


@pytest.mark.parametrize("target", ["openai-chat", "anthropic", "gemini"])
def test_the_incomplete_status_of_the_last_message_of_an_incomplete_response_is_no_loss(target: str) -> None:
    # the Lux finish (length) gives it back: Lux -> Responses writes the last message incomplete
    context = {"created": 1} if target == "openai-chat" else None
    result = lucent.convert(_incomplete([_MESSAGE]), "openai-responses", target, kind="response", context=context)
    assert "$.output[0].status" not in _fields(result)
    back = lucent.convert(result.value, target, "openai-responses", kind="response", context={"created_at": 1} if target != "openai-chat" else None)
    assert [(i["type"], i["status"]) for i in _json(back.value)["output"]] == [("message", "incomplete")]
    assert _json(back.value)["status"] == "incomplete"
    # not the last item (a function call follows), or a completed response: the way back says
    # completed, so the status is lost and named
    followed = lucent.convert(_incomplete([_MESSAGE, _CALL]), "openai-responses", target, kind="response", context=context)
    assert _fields(followed)["$.output[0].status"] == "Unsupported"
    completed = lucent.convert({**_responses_response(), "output": [_MESSAGE]}, "openai-responses", target, kind="response", context=context)
    assert _fields(completed)["$.output[0].status"] == "Unsupported"


def test_the_recorded_incomplete_stream_names_no_message_status_and_the_way_back_restores_it() -> None:
    from lucent import streams

    events = _recorded("multimodalRequest", "responses", "response-streaming.json")
    assert events[31]["item"]["status"] == "incomplete" and events[-1]["type"] == "response.incomplete"
    for target in ("openai-chat", "anthropic", "gemini"):
        conversion = streams.convert_stream(events, "openai-responses", target)
        out = list(conversion)
        assert [d.field for d in conversion.diagnostics if d.field.endswith(".status")] == [], target
        back = streams.convert_stream(out, target, "openai-responses")
        done = [e for e in map(_json, back) if e["type"] == "response.output_item.done"]
        assert [(e["item"]["type"], e["item"]["status"]) for e in done] == [("message", "incomplete")], target
    # the same stream ending completed: the status is no longer given back, and is named once
    completed = [*events[:-1], {**events[-1], "type": "response.completed", "response": {**events[-1]["response"], "status": "completed", "incomplete_details": None}}]
    conversion = streams.convert_stream(completed, "openai-responses", "openai-chat")
    list(conversion)
    assert [(d.field, d.status) for d in conversion.diagnostics if d.field.endswith(".status")] == [("$[31].item.status", "Unsupported")]


# ------------------------------------------------------------------ wording
def test_side_car_diagnostics_speak_in_the_two_formats_terms() -> None:
    pairs = [("openai-responses", "openai-chat", "response"), ("openai-chat", "anthropic", "request"), ("openai-responses", "gemini", "request"), ("anthropic", "openai-responses", "response")]
    folders = {"openai-chat": "chat-completions", "openai-responses": "responses", "anthropic": "anthropic", "gemini": "google"}
    seen = 0
    for source, target, kind in pairs:
        for file in sorted(_SNAPSHOTS.glob(f"*/{folders[source]}/{kind}.json"))[:8]:
            output, diagnostics = census.convert(json.loads(file.read_bytes()), source, target, kind)
            for d in diagnostics:
                seen += 1
                assert "Lux extensions" not in d.detail and "Lux payloads" not in d.detail, (file, d)
                if d.status == "Unsupported":
                    assert not re.search(r"\b(?:provider_payload|extra)\.", d.detail), (file, d)
    assert seen > 50


# ------------------------------------------------------------------ every diagnostic of a sample, checked
def test_the_documented_degraded_forms_are_the_census_forms() -> None:
    text = (REPO / "docs" / "semantics.md").read_text(encoding="utf-8")
    table = text.split("### Degraded forms", 1)[1].split("\n## ", 1)[0]
    assert re.findall(r"^\| `([a-z-]+)` \|", table, flags=re.M) == list(census.FORMS)


def test_every_diagnostic_of_a_corpus_sample_is_a_real_difference_or_a_documented_form() -> None:
    sample = {"request": 10, "response": 10, "stream": 2}  # recordings per pair: about 600 conversions, read back
    tallies = [census.run_pair(x, y, kind, n, True) for kind, n in sample.items() for x in census.VENDORS for y in census.VENDORS if x != y]
    false = {name: count for t in tallies for name, count in t.false.items()}
    checked = sum(sum(t.verdicts.values()) for t in tallies)
    assert checked > 300
    assert false == {}, "\n".join(f"{n} x{c}: e.g. {next(t.examples[n] for t in tallies if n in t.examples)}" for n, c in false.items())


@pytest.mark.parametrize("source", ["openai-responses", "openai-chat"])
def test_store_false_to_a_format_that_keeps_nothing_is_no_loss_and_store_true_is_one(source: str) -> None:
    # a request that asks for nothing to be stored loses nothing at a target that stores
    # nothing anyway (Anthropic, Gemini); one that asks to be stored does
    def request(store: bool) -> dict[str, Any]:
        if source == "openai-chat":
            return {"model": "gpt-4o", "messages": [{"role": "user", "content": "hi"}], "store": store}
        return {"model": "gpt-4o", "input": "hi", "store": store}

    for target, context in (("anthropic", {"max_tokens": 64}), ("gemini", None)):
        kept = lucent.convert(request(False), source, target, context=context)
        assert "$.store" not in _fields(kept), target
        lost = lucent.convert(request(True), source, target, context=context)
        assert _fields(lost)["$.store"] == "Unsupported", target
    # read by a direct conversion to Lux, the value is still kept for a conversion back
    lux = lucent.convert(request(False), source, "lux")
    assert _fields(lux)["$.store"] == "Degraded"
    assert lucent.convert(lucent.encode(lux.value), "lux", source).value.store is False


def test_a_url_image_whose_file_name_gives_its_media_type_back_loses_nothing_to_anthropic() -> None:
    chat = {"model": "gpt-4o", "messages": [{"role": "user", "content": [{"type": "text", "text": "what"}, {"type": "image_url", "image_url": {"url": "https://x.test/a.png"}}]}]}
    result = lucent.convert(chat, "openai-chat", "anthropic", context={"max_tokens": 64})
    assert [d.field for d in result.diagnostics if "image_url" in d.field] == []
    assert _json(result.value)["messages"][0]["content"][1] == {"type": "image", "source": {"type": "url", "url": "https://x.test/a.png"}}
    # a Lux image whose media type the URL does not give back: Anthropic URL images state none
    lux = _json(lucent.convert(chat, "openai-chat", "lux").value)
    lux["conversation"][0]["message"]["content"][1]["image"]["media_type"] = "image/jpeg"
    found = lucent.convert(lux, "lux", "anthropic", context={"max_tokens": 64}).diagnostics
    assert [(d.field, d.status) for d in found if d.field.endswith("media_type")] == [("$.conversation[0].message.content[1].image.media_type", "Degraded")]


# ------------------------------------------------------------------ values the caller gives
_SPARKTIDE_RESPONSE = {"message": {"role": "assistant", "content": "Hi"}, "usage": {"prompt_tokens": 3, "completion_tokens": 1, "total_tokens": 4}}
_LLM_SDK_RESPONSE = {"content": [{"type": "text", "text": "Hi"}]}


@pytest.mark.parametrize(("document", "source", "target", "context"), [
    (_SPARKTIDE_RESPONSE, "sparktide", "llm-sdk", {"id": "r1", "model": "m1"}),
    (_SPARKTIDE_RESPONSE, "sparktide", "llm-sdk", {}),
    (_LLM_SDK_RESPONSE, "llm-sdk", "sparktide", {"id": "r1", "model": "m1"}),
    (_LLM_SDK_RESPONSE, "llm-sdk", "sparktide", {}),
    (_SPARKTIDE_RESPONSE, "sparktide", "openai-chat", {"id": "r1", "model": "m1", "created": 1}),
    (_LLM_SDK_RESPONSE, "llm-sdk", "openai-chat", {"id": "r1", "model": "m1", "created": 1}),
])
def test_a_value_the_first_hop_took_from_the_context_is_no_loss_at_the_second(document: dict[str, Any], source: str, target: str, context: dict[str, Any]) -> None:
    # neither format has a response id or model (nor, for Lux here, a creation time): the Lux id
    # and model are the caller's (or absent), so the second hop dropping them, or Chat taking
    # created from the context, loses nothing of the source; nothing is named at $ (issue 16 §1)
    result = lucent.convert(document, source, target, kind="response", context=context)
    fields = _fields(result)
    assert "$" not in fields and "$.id" not in fields and "$.model" not in fields and "$.created_at" not in fields
    if target == "openai-chat":
        assert result.diagnostics == []
        assert (result.value.id, result.value.model, result.value.created) == ("r1", "m1", 1)
    else:  # only the finish reason the first hop derived from the content is named
        assert [d.status for d in result.diagnostics] == ["Degraded"] and "finish reason" in result.diagnostics[0].detail


def test_an_id_the_source_has_is_still_named_where_the_target_has_none() -> None:
    # Anthropic's own id and model, which llm-sdk has no place for: the caller keeps them (Degraded)
    result = lucent.convert(_anthropic_response(), "anthropic", "llm-sdk", kind="response")
    assert {f: s for f, s in _fields(result).items() if f in ("$.id", "$.model")} == {"$.id": "Degraded", "$.model": "Degraded"}


def test_a_null_or_empty_member_the_target_has_no_place_for_is_no_loss() -> None:
    """docs/semantics.md, Exact: a recorded Chat response's `annotations: []` and `logprobs: null`
    reach Anthropic as their absence; a non-empty one is still Unsupported."""
    path = _SNAPSHOTS / "bedrockAnthropicOpus48SamplingParam" / "chat-completions" / "followup-response.json"
    doc = json.loads(path.read_bytes())
    assert doc["choices"][0]["message"]["annotations"] == [] and doc["choices"][0]["logprobs"] is None
    fields = {d.field for d in lucent.convert(json.dumps(doc), "openai-chat", "anthropic", kind="response").diagnostics}
    assert not fields & {"$.choices[0].message.annotations", "$.choices[0].logprobs"}
    doc["choices"][0]["logprobs"] = {"content": [], "refusal": None}
    statuses = {d.field: d.status for d in lucent.convert(json.dumps(doc), "openai-chat", "anthropic", kind="response").diagnostics}
    assert statuses["$.choices[0].logprobs"] == "Unsupported"

