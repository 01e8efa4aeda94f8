"""The conversion cases of tests/data/cases, run by tests/cases.py, and their notes as code.

Each case is checked in full by :func:`tests.cases.check` (every ``expect`` key); the tests below
it state the case's ``notes``, and the neighbours of each case's fault class (the other shapes of
the same fault), so a fix covers the class and not only the one input.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

import lucent
from lucent._context import read_by
from lucent.errors import ConversionError
from lucent.generated.convert_registry import CONVERTERS
from tests.cases import as_json, check, load, validator

CONVERT_CASES = ["01", "06", "10", "11", "12", "13", "15", "16"]


@pytest.mark.parametrize("case_id", CONVERT_CASES)
def test_case_meets_every_expectation(case_id: str) -> None:
    check(load(case_id))


def diags(result: Any) -> list[tuple[str, str]]:
    return [(d.field, d.status) for d in result.diagnostics]


def needs(source: str, target: str, kind: str) -> None:
    """A note's pair has a direct converter in the registry."""
    assert (source, target, kind) in CONVERTERS, f"no {source} -> {target} {kind} converter"


# --------------------------------------------------------------------- 01 tool-call-only assistant


def test_01_tool_call_only_assistant_turn_has_null_content_and_json_arguments() -> None:
    case = load("01")
    out = check(case).output
    assert out["messages"][1].get("content") is None
    assert json.loads(out["messages"][1]["tool_calls"][0]["function"]["arguments"]) == {"city": "Oslo"}
    assert isinstance(out["messages"][2]["content"], str)
    assert json.loads(out["messages"][2]["content"]) == {"time": "12:00"}
    assert out["tools"] == [{"type": "function", "function": {
        "name": "get_time", "description": "Current time in a city", "parameters": case["input"]["tools"][0]["parameters"],
    }}]


@pytest.mark.parametrize("text", ["", "Checking.", " "])
def test_01_an_assistant_turn_with_text_keeps_it_and_only_a_text_free_one_is_null(text: str) -> None:
    case = load("01")
    doc = json.loads(json.dumps(case["input"]))
    doc["messages"][1]["content"].insert(0, {"type": "text", "text": text})
    out = as_json(lucent.convert(json.dumps(doc), "llm-sdk", "sparktide", context=read_by(case["context"], "llm-sdk", "sparktide")).value)
    assert out["messages"][1]["content"] == text


def test_01_back_from_sparktide_the_turn_is_tool_calls_only_again() -> None:
    case = load("01")
    there = lucent.convert(json.dumps(case["input"]), "llm-sdk", "sparktide", context=read_by(case["context"], "llm-sdk", "sparktide"))
    back = lucent.convert(lucent.encode(there.value), "sparktide", "llm-sdk")
    assert as_json(back.value)["messages"] == case["input"]["messages"]


# ------------------------------------------------------------------------ 06 redacted thinking


@pytest.mark.parametrize("target", ["sparktide", "llm-sdk", "htmlp"])
def test_06_redacted_thinking_is_reported_for_every_target_and_strict_raises(target: str) -> None:
    needs("lux", target, "request")
    case = load("06")
    result = lucent.convert(json.dumps(case["input"]), "lux", target, context=read_by(case["context"], "lux", target))
    assert any(d.field == "$.conversation[1].message.content[0]" and d.status in ("Unsupported", "Degraded") for d in result.diagnostics)
    with pytest.raises(ConversionError):
        lucent.convert(json.dumps(case["input"]), "lux", target, context=read_by(case["context"], "lux", target), strict=True)


def test_06_lux_to_lux_keeps_the_thinking_block_byte_for_byte() -> None:
    case = load("06")
    result = lucent.convert(json.dumps(case["input"]), "lux", "lux")
    assert as_json(result.value) == case["input"] and result.diagnostics == []


def test_06_to_llm_sdk_the_assistant_text_stays_and_the_block_is_dropped() -> None:
    case = load("06")
    out = as_json(lucent.convert(json.dumps(case["input"]), "lux", "llm-sdk").value)
    assert out["messages"][1] == {"role": "assistant", "content": [{"type": "text", "text": "Done."}]}


# ------------------------------------------------------------------------- 10 specific tool choice


def test_10_via_lux_the_choice_is_a_specific_tool() -> None:
    case = load("10")
    lux = lucent.convert(json.dumps(case["input"]), "llm-sdk", "lux", context=read_by(case["context"], "llm-sdk", "lux")).value
    assert as_json(lux)["tool_choice"] == {"type": "specific_tool", "name": "lookup"}


@pytest.mark.parametrize("choice", ["auto", "none", "required"])
def test_10_auto_none_and_required_are_the_same_strings_in_lux_and_sparktide(choice: str) -> None:
    case = load("10")
    doc = {**case["input"], "toolChoice": {"type": choice}}
    lux = lucent.convert(json.dumps(doc), "llm-sdk", "lux", context=read_by(case["context"], "llm-sdk", "lux"))
    assert as_json(lux.value)["tool_choice"] == choice
    out = as_json(lucent.convert(json.dumps(doc), "llm-sdk", "sparktide", context=read_by(case["context"], "llm-sdk", "sparktide")).value)
    assert out["tool_choice"] == choice
    back = as_json(lucent.convert(lucent.encode(lux.value), "lux", "llm-sdk").value)
    assert back["toolChoice"] == {"type": choice}


def test_10_a_specific_tool_comes_back_to_llm_sdk_from_sparktide() -> None:
    case = load("10")
    out = lucent.convert(json.dumps(case["input"]), "llm-sdk", "sparktide", context=read_by(case["context"], "llm-sdk", "sparktide"))
    back = lucent.convert(lucent.encode(out.value), "sparktide", "llm-sdk")
    assert as_json(back.value)["toolChoice"] == {"type": "tool", "toolName": "lookup"}
    assert as_json(back.value)["tools"] == case["input"]["tools"]


# ------------------------------------------------------------------------ 11 structured output


def test_11_via_lux_the_schema_is_structured_output() -> None:
    case = load("11")
    lux = as_json(lucent.convert(json.dumps(case["input"]), "llm-sdk", "lux", context=read_by(case["context"], "llm-sdk", "lux")).value)
    assert lux["options"]["structured_output"] == {"type": "json_schema", "schema": case["input"]["responseFormat"]["schema"]}


def test_11_json_without_a_schema_and_text_map_to_json_object_and_text_and_back() -> None:
    case = load("11")
    for given, lux_value, chat in (({"type": "json"}, "json_object", {"type": "json_object"}), ({"type": "text"}, "text", {"type": "text"})):
        doc = {**case["input"], "responseFormat": given}
        lux = lucent.convert(json.dumps(doc), "llm-sdk", "lux", context=read_by(case["context"], "llm-sdk", "lux"))
        assert as_json(lux.value)["options"]["structured_output"] == lux_value
        assert as_json(lucent.convert(json.dumps(doc), "llm-sdk", "sparktide", context=read_by(case["context"], "llm-sdk", "sparktide")).value)["response_format"] == chat
        assert as_json(lucent.convert(lucent.encode(lux.value), "lux", "llm-sdk").value)["responseFormat"] == given


def test_11_to_htmlp_the_response_format_is_unsupported_and_strict_raises() -> None:
    needs("lux", "htmlp", "request")
    case = load("11")
    result = lucent.convert(json.dumps(case["input"]), "llm-sdk", "htmlp", context=read_by(case["context"], "llm-sdk", "htmlp"))
    assert any(d.field.startswith("$.responseFormat") and d.status == "Unsupported" for d in result.diagnostics), diags(result)
    with pytest.raises(ConversionError):
        lucent.convert(json.dumps(case["input"]), "llm-sdk", "htmlp", context=read_by(case["context"], "llm-sdk", "htmlp"), strict=True)


# --------------------------------------------------------------------------------- 12 usage


def test_12_cached_tokens_are_cached_text_tokens_and_reasoning_tokens_are_reported() -> None:
    case = load("12")
    result = lucent.convert(json.dumps(case["input"]), "lux", "llm-sdk", kind="response")
    assert as_json(result.value)["usage"] == {"inputTokens": 9000, "outputTokens": 10, "inputTokensDetail": {"cachedTextTokens": 6000}}
    assert ("$.usage.reasoning_tokens", "Unsupported") in diags(result)
    assert not any(d.field.startswith("$.usage.total_tokens") for d in result.diagnostics)  # 9010 = 9000 + 10


def test_12_a_total_that_is_not_the_sum_is_reported() -> None:
    case = load("12")
    doc = json.loads(json.dumps(case["input"]))
    doc["usage"]["total_tokens"] = 9999
    result = lucent.convert(json.dumps(doc), "lux", "llm-sdk", kind="response")
    assert ("$.usage.total_tokens", "Unsupported") in diags(result)


def test_12_llm_sdk_usage_comes_back_exactly_through_lux() -> None:
    usage = {"inputTokens": 9000, "outputTokens": 10, "inputTokensDetail": {"textTokens": 8000, "cachedTextTokens": 6000, "audioTokens": 1000}}
    doc = {"content": [{"type": "text", "text": "Hello."}], "usage": usage}
    lux = lucent.convert(json.dumps(doc), "llm-sdk", "lux", kind="response", context={"id": "resp_1", "model": "model-1"})
    assert as_json(lux.value)["usage"] == {"prompt_tokens": 9000, "completion_tokens": 10, "total_tokens": 9010, "cached_tokens": 6000}
    assert diags(lux) == [("$.usage.inputTokensDetail.textTokens", "Degraded"), ("$.usage.inputTokensDetail.audioTokens", "Degraded")]
    back = lucent.convert(lucent.encode(lux.value), "lux", "llm-sdk", kind="response")
    assert as_json(back.value) == doc


def test_12_to_sparktide_cached_and_reasoning_tokens_are_reported() -> None:
    needs("lux", "sparktide", "response")
    case = load("12")
    result = lucent.convert(json.dumps(case["input"]), "lux", "sparktide", kind="response")
    assert as_json(result.value)["usage"] == {"prompt_tokens": 9000, "completion_tokens": 10, "total_tokens": 9010}
    assert any("cached_tokens" in d.field for d in result.diagnostics)
    assert any("reasoning_tokens" in d.field for d in result.diagnostics)


# ------------------------------------------------------------------------ 13 tool result content


def test_13_in_sparktide_the_tool_content_is_the_json_text_of_the_result() -> None:
    case = load("13")
    outcome = check(case)
    assert json.loads(outcome.steps[0]["messages"][2]["content"]) == {"temp": 21, "sky": "rain"}
    assert outcome.steps[0]["messages"][2]["content"] == '{"temp":21,"sky":"rain"}'


def test_13_plain_text_tool_content_is_kept_inside_result_and_degraded() -> None:
    case = load("13")
    there = lucent.convert(json.dumps(case["input"]), "llm-sdk", "sparktide", context=read_by(case["context"], "llm-sdk", "sparktide"))
    doc = as_json(there.value)
    doc["messages"][2]["content"] = "Rainy"
    back = lucent.convert(json.dumps(doc), "sparktide", "llm-sdk")
    part = as_json(back.value)["messages"][2]["content"][0]
    assert part["result"] == [{"type": "text", "text": "Rainy"}]
    assert ("$.messages[2].content", "Degraded") in diags(back)
    again = lucent.convert(lucent.encode(back.value), "llm-sdk", "sparktide", context=read_by(case["context"], "llm-sdk", "sparktide"))
    assert as_json(again.value)["messages"][2]["content"] == '[{"type":"text","text":"Rainy"}]'


@pytest.mark.parametrize("result", [{"temp": 21}, [1, "two", {"three": 3.5}], [], {}, {"nested": {"list": [True, None]}}])
def test_13_every_json_result_shape_comes_back_equal_through_sparktide(result: Any) -> None:
    case = load("13")
    doc = json.loads(json.dumps(case["input"]))
    doc["messages"][2]["content"][0]["result"] = result
    there = lucent.convert(json.dumps(doc), "llm-sdk", "sparktide", context=read_by(case["context"], "llm-sdk", "sparktide"))
    back = lucent.convert(lucent.encode(there.value), "sparktide", "llm-sdk")
    assert as_json(back.value)["messages"] == doc["messages"]


def test_13_json_text_with_other_spacing_is_parsed_and_reported_degraded() -> None:
    case = load("13")
    there = as_json(lucent.convert(json.dumps(case["input"]), "llm-sdk", "sparktide", context=read_by(case["context"], "llm-sdk", "sparktide")).value)
    there["messages"][2]["content"] = '{"temp": 21, "sky": "rain"}'
    there["messages"][1]["tool_calls"][0]["function"]["arguments"] = '{"city": "Oslo"}'
    back = lucent.convert(json.dumps(there), "sparktide", "llm-sdk")
    assert as_json(back.value)["messages"] == case["input"]["messages"]
    assert ("$.messages[2].content", "Degraded") in diags(back)
    assert ("$.messages[1].tool_calls[0].function.arguments", "Degraded") in diags(back)


def test_13_several_tool_results_in_one_llm_sdk_message_stay_one_message() -> None:
    case = load("13")
    doc = json.loads(json.dumps(case["input"]))
    second = {"type": "tool-call", "toolCallId": "def456", "toolName": "weather", "args": {"city": "Bergen"}}
    doc["messages"][1]["content"].append(second)
    doc["messages"][2]["content"].append({"type": "tool-result", "toolCallId": "def456", "toolName": "weather", "result": {"temp": 18}})
    there = lucent.convert(json.dumps(doc), "llm-sdk", "sparktide", context=read_by(case["context"], "llm-sdk", "sparktide"))
    assert [m["role"] for m in as_json(there.value)["messages"]] == ["user", "assistant", "tool", "tool"]
    back = lucent.convert(lucent.encode(there.value), "sparktide", "llm-sdk")
    assert as_json(back.value)["messages"] == doc["messages"]


# ------------------------------------------------------------------------- 15 system messages


def test_15_the_mid_conversation_system_message_keeps_its_position_as_a_user_message() -> None:
    case = load("15")
    result = lucent.convert(json.dumps(case["input"]), "sparktide", "llm-sdk")
    out = as_json(result.value)
    validator("llm-sdk", "request").validate(out)
    assert out["systemPrompt"] == "You are a coding agent.\nBe careful."
    assert [(m["role"], m["content"][0]["text"]) for m in out["messages"]] == [
        ("user", "fix bug"), ("assistant", "ok"), ("user", "Now be brief."), ("user", "next"),
    ]
    assert ("$.messages[4].role", "Degraded") in diags(result)
    assert ("$.messages[0]", "Degraded") in diags(result) and ("$.messages[1]", "Degraded") in diags(result)


def test_15_sparktide_to_lux_to_sparktide_keeps_all_six_messages() -> None:
    case = load("15")
    lux = lucent.convert(json.dumps(case["input"]), "sparktide", "lux")
    back = lucent.convert(lucent.encode(lux.value), "lux", "sparktide")
    assert as_json(back.value) == case["input"]
    assert lux.diagnostics == [] and back.diagnostics == []


def test_15_one_system_prompt_is_exact_both_ways() -> None:
    doc = {"systemPrompt": "Be brief.", "messages": [{"role": "user", "content": [{"type": "text", "text": "hi"}]}]}
    lux = lucent.convert(json.dumps(doc), "llm-sdk", "lux", context={"model": "m", "stream": False})
    assert as_json(lux.value)["instructions"] == [{"type": "text", "text": "Be brief."}] and lux.diagnostics == []
    back = lucent.convert(lucent.encode(lux.value), "lux", "llm-sdk")
    assert as_json(back.value) == doc
    assert diags(back) == [("$.model", "Degraded")]  # stream false: a generate call, context on the way back


# -------------------------------------------------------------------------------- 16 audio


@pytest.mark.parametrize("part", [
    {"type": "audio", "audioData": "UklGRg==", "container": "wav"},
    {"type": "audio", "audioData": "UklGRg==", "encoding": "mp3", "sampleRate": 44100},
    {"type": "image", "mimeType": "image/png", "imageData": "iVBORw0KGgo=", "width": 4, "height": 4},
])
def test_16_media_into_a_text_only_target_is_unsupported_with_its_bytes_named(part: dict[str, Any]) -> None:
    case = load("16")
    doc = {"messages": [{"role": "user", "content": [{"type": "text", "text": "Transcribe this."}, part]}]}
    result = lucent.convert(json.dumps(doc), "llm-sdk", "sparktide", context=read_by(case["context"], "llm-sdk", "sparktide"))
    assert as_json(result.value)["messages"] == [{"role": "user", "content": "Transcribe this."}]
    assert ("$.messages[0].content[1]", "Unsupported") in diags(result)
    data = "$.messages[0].content[1]." + ("audioData" if part["type"] == "audio" else "imageData")
    assert (data, "Unsupported") in diags(result)
    with pytest.raises(ConversionError):
        lucent.convert(json.dumps(doc), "llm-sdk", "sparktide", context=read_by(case["context"], "llm-sdk", "sparktide"), strict=True)


def test_16_media_bytes_travel_in_extra_media_and_come_back_exactly() -> None:
    case = load("16")
    part = {"type": "audio", "audioData": "UklGRg==", "container": "wav", "encoding": "linear16", "sampleRate": 16000, "id": "a1"}
    doc = {"messages": [{"role": "user", "content": [{"type": "text", "text": "Transcribe this.", "id": "t1"}, part]}]}
    lux = lucent.convert(json.dumps(doc), "llm-sdk", "lux", context=read_by(case["context"], "llm-sdk", "lux"))
    value = as_json(lux.value)
    validator("lux", "request").validate(value)
    assert value["conversation"][0]["message"]["content"][1] == {"type": "audio", "audio": {"media_type": "audio/wav", "source": "inline"}}
    assert value["extra"]["media"] == {"$.conversation[0].message.content[1].audio": {"data": "UklGRg=="}}
    assert value["extra"]["llm_sdk"]["members"] == {
        "$.conversation[0].message.content[0]": {"id": "t1"},
        "$.conversation[0].message.content[1].audio": {"encoding": "linear16", "sampleRate": 16000, "id": "a1"},
    }
    assert lux.diagnostics == []
    back = lucent.convert(lucent.encode(lux.value), "lux", "llm-sdk")
    assert as_json(back.value) == doc
