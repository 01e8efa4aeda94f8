"""Gemini generateContent <-> Lux (requests and responses), on the recorded lingua corpus.

Real values throughout: the corpus files are real Gemini traffic (tests/data/lingua/snapshots/
*/google/); every lossy mapping checks its diagnostic (field = JSON path in the source document,
status). The round trip Gemini -> Lux -> Gemini must give back the same JSON except for the
classes listed in tests/data/vendor_expected_differences/gemini.toml.
"""

from __future__ import annotations

import fnmatch
import json
import pathlib
import tomllib
from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import lucent
from lucent._convert import FORMATS
from lucent.errors import ConversionError
from lucent.generated.convert_registry import CONVERTERS, DOCUMENTS
from tests.conformance.generate import strategy
from tests.conformance.oracle import Oracle
from tests.convert_conformance.checks import check
from tests.convert_conformance.pairs import Pair, side
from tests.convert_conformance.validity import Validity
from tests.paths import REPO

SNAPSHOTS = REPO / "tests" / "data" / "lingua" / "snapshots"
EXPECTED = tomllib.loads((REPO / "tests" / "data" / "vendor_expected_differences" / "gemini.toml").read_text(encoding="utf-8"))
DEFINITIONS = {"request": "GenerateContentRequest", "response": "GenerateContentResponse"}
ORACLE = Oracle()
VALIDITY = Validity(ORACLE)


def corpus(kind: str) -> list[pathlib.Path]:
    return sorted(p for p in SNAPSHOTS.glob(f"*/google/*{kind}.json") if "streaming" not in p.name)


def case(name: str, file: str) -> dict[str, Any]:
    return json.loads((SNAPSHOTS / name / "google" / file).read_text(encoding="utf-8"))


def plain(value: Any) -> Any:
    return json.loads(lucent.encode(value))


def valid(fmt: str, definition: str, value: Any) -> None:
    ORACLE.validator(fmt, definition).validate(value)


def to_lux(doc: Any, kind: str = "request", context: dict[str, Any] | None = None) -> Any:
    if context is None and kind == "request":
        context = {"model": doc.get("model", "gemini-2.5-flash"), "stream": False}
    result = lucent.convert(json.dumps(doc), "gemini", "lux", kind=kind, context=context)
    if not any(d.status == "Invalid" for d in result.diagnostics):
        valid("lux-ir-v1", "LucentRequest" if kind == "request" else "LucentResponse", plain(result.value))
    return result


def to_gemini(doc: Any, kind: str = "request") -> Any:
    data = json.dumps(doc) if isinstance(doc, dict) else lucent.encode(doc)
    result = lucent.convert(data, "lux", "gemini", kind=kind)
    valid("gemini", DEFINITIONS[kind], plain(result.value))
    return result


def diags(result: Any) -> list[tuple[str, str]]:
    return [(d.field, d.status) for d in result.diagnostics]


def differences(a: Any, b: Any, path: str = "$") -> Iterator[str]:
    """JSON paths where two JSON values differ (a member on one side only counts)."""
    if type(a) is not type(b) and not (isinstance(a, (int, float)) and isinstance(b, (int, float))):
        yield path
    elif isinstance(a, dict):
        for key in dict.fromkeys([*a, *b]):
            if key not in a or key not in b:
                yield f"{path}.{key}"
            else:
                yield from differences(a[key], b[key], f"{path}.{key}")
    elif isinstance(a, list):
        if len(a) != len(b):
            yield path
        else:
            for i, (x, y) in enumerate(zip(a, b)):
                yield from differences(x, y, f"{path}[{i}]")
    elif a != b:
        yield path


def listed(path: str, kind: str) -> bool:
    for entry in EXPECTED.get("difference", []):
        pattern = entry["pattern"].replace("[*]", "[[]*[]]").replace(".**", "*")
        if entry["kind"] == kind and fnmatch.fnmatchcase(path, pattern):
            return True
    return False


# ---------------------------------------------------------------------------------- corpus


@pytest.mark.parametrize("kind", ["request", "response"])
def test_every_corpus_document_decodes(kind: str) -> None:
    files = corpus(kind)
    assert len(files) == 71 if kind == "request" else len(files) == 70
    for path in files:
        lucent.decode(path.read_bytes(), "gemini", DEFINITIONS[kind])


@pytest.mark.parametrize("path", corpus("request") + corpus("response"), ids=lambda p: f"{p.parent.parent.name}/{p.name}")
def test_corpus_round_trip_differs_only_where_listed(path: pathlib.Path) -> None:
    kind = "request" if path.name.endswith("request.json") else "response"
    source = json.loads(path.read_text(encoding="utf-8"))
    there = to_lux(source, kind)
    back = to_gemini(there.value, kind)
    found = list(differences(source, plain(back.value)))
    for at in found:
        assert listed(at, kind), f"{at} differs and is not listed in vendor_expected_differences/gemini.toml"
        assert any(at.startswith(d.field) for d in there.diagnostics if d.status in ("Unsupported", "Degraded")), at
    assert not [d for d in back.diagnostics if d.status in ("Unsupported", "Invalid")]


def test_the_round_trip_is_exact_on_every_corpus_document() -> None:
    exact = 0
    for path in corpus("request") + corpus("response"):
        kind = "request" if path.name.endswith("request.json") else "response"
        source = json.loads(path.read_text(encoding="utf-8"))
        if plain(to_gemini(to_lux(source, kind).value, kind).value) == source:
            exact += 1
    assert exact == 141  # exclusiveMinimumToolParam/request.json's exclusiveMinimum too (lucent._unknown)
    assert EXPECTED.get("difference", []) == []


GEMINI_PAIRS = [
    Pair(side("gemini", kind), side(target, kind))
    for kind in ("request", "response")
    for target in FORMATS
    if target != "gemini" and (target, kind) in DOCUMENTS and ("gemini", "lux", kind) in CONVERTERS
    and (target == "lux" or ("lux", target, kind) in CONVERTERS)
]
"""Gemini to every other format (``pairs()`` lists the seed formats only: this list was empty,
so the test below never ran)."""


def test_gemini_converts_to_every_format_of_each_kind() -> None:
    assert len(GEMINI_PAIRS) == 13  # 7 request targets (htmlp has no response), 6 response targets


@pytest.mark.parametrize("pair", GEMINI_PAIRS, ids=lambda p: p.name)
def test_corpus_converts_to_every_format_validly_and_names_every_loss(pair: Pair) -> None:
    """Each corpus document to Lux and to every other format (composed through Lux): the output
    validates against the target schema (or is Invalid only where the spec declares no valid
    image), and every source value is carried or named by a diagnostic."""
    for path in corpus(pair.kind):
        outcome = check(pair, json.loads(path.read_text(encoding="utf-8")), VALIDITY)
        real = [f for f in outcome.failures if not (f.check == "round-trip")]
        assert not real, f"{path}: {real[0]}"
        assert outcome.valid or outcome.unreachable, path


# ------------------------------------------------------------------------- quirks: signatures


def test_thought_signature_on_a_function_call_survives_byte_for_byte() -> None:
    source = case("toolCallRequest", "followup-request.json")
    signature = source["contents"][1]["parts"][0]["thoughtSignature"]
    lux = plain(to_lux(source).value)
    assert lux["extra"]["gemini"]["members"]["$.conversation[1].message.content[0]"]["thoughtSignature"] == signature
    back = plain(to_gemini(lux).value)
    assert back["contents"][1]["parts"][0] == source["contents"][1]["parts"][0]
    assert back == source


def test_thought_parts_are_thinking_blocks_and_the_answer_keeps_its_signature() -> None:
    source = case("googleThinkingJsonSchemaParam", "response.json")
    result = to_lux(source, "response")
    lux = plain(result.value)
    content = lux["choices"][0]["message"]["content"]
    assert content[0]["type"] == "thinking"
    assert content[0]["thinking"]["text"].startswith("**My Analysis of the Microphone Comparison Caption**")
    assert content[0]["thinking"]["redacted"] is False and "signature" not in content[0]["thinking"]
    assert content[1] == {"type": "text", "text": source["candidates"][0]["content"]["parts"][1]["text"]}
    # The answer's signature: a thinking block of its own that holds only it, right after the
    # text (as a stream carries it: the signature may come with the text's last chunk).
    signature = source["candidates"][0]["content"]["parts"][1]["thoughtSignature"]
    assert content[2] == {"type": "thinking", "thinking": {"text": "", "signature": signature, "redacted": False}}
    assert len(content) == 3 and "members" not in lux["provider_payload"]["gemini"]
    assert lux["usage"] == {"prompt_tokens": 63, "completion_tokens": 172, "total_tokens": 235, "reasoning_tokens": 138}
    assert plain(to_gemini(lux, "response").value) == source


def test_a_thought_part_with_a_signature_is_a_signed_thinking_block_and_back() -> None:
    source = {"contents": [{"role": "model", "parts": [{"text": "plan", "thought": True, "thoughtSignature": "c2ln"}]}]}
    lux = plain(to_lux(source).value)
    assert lux["conversation"][0]["message"]["content"] == [{"type": "thinking", "thinking": {"text": "plan", "signature": "c2ln", "redacted": False}}]
    assert plain(to_gemini(lux).value) == source


def test_redacted_thinking_from_another_provider_is_unsupported() -> None:
    lux = {"schema_version": "v1", "model": "m", "options": {"stream": False}, "conversation": [
        {"type": "message", "message": {"role": "assistant", "content": [
            {"type": "thinking", "thinking": {"text": "", "signature": "EqQBCg", "redacted": True}},
            {"type": "text", "text": "Hi"}]}}]}
    result = to_gemini(lux)
    assert plain(result.value)["contents"] == [{"role": "model", "parts": [{"text": "Hi"}]}]
    assert ("$.conversation[0].message.content[0]", "Unsupported") in diags(result)


# ----------------------------------------------------------------- quirks: tool calls and ids


def test_parallel_calls_without_ids_get_stable_ids_and_pair_with_responses_in_order() -> None:
    source = case("parallelToolCallsRequest", "followup-request.json")
    result = to_lux(source)
    lux = plain(result.value)
    calls = [b["tool_use"] for b in lux["conversation"][1]["message"]["content"]]
    results = [b["tool_result"] for b in lux["conversation"][2]["message"]["content"]]
    assert [c["arguments"] for c in calls] == ['{"location":"San Francisco, CA"}', '{"location":"New York, NY"}']
    assert calls[0]["id"] != calls[1]["id"] and all(c["id"].startswith("gemini-get_weather-") for c in calls)
    assert [r["tool_use_id"] for r in results] == [c["id"] for c in calls]
    assert results[0]["content"] == [{"type": "text", "text": '{"result":"65°F and sunny."}'}]
    assert ("$.contents[1].parts[0].functionCall", "Degraded") in diags(result)
    assert ("$.contents[1].parts[1].functionCall", "Degraded") in diags(result)
    back = plain(to_gemini(lux).value)
    assert "id" not in back["contents"][1]["parts"][0]["functionCall"]
    assert back == source
    # the same calls in a response get the same ids: a response and the next request agree
    answer = {"candidates": [{"content": source["contents"][1], "finishReason": "STOP", "index": 0}], "responseId": "r", "modelVersion": "m"}
    response = plain(to_lux(answer, "response").value)
    assert [b["tool_use"]["id"] for b in response["choices"][0]["message"]["content"] if b["type"] == "tool_use"] == [c["id"] for c in calls]


def test_a_response_without_id_answers_the_call_that_has_one() -> None:
    source = case("toolCallRequest", "followup-request.json")
    assert "id" in source["contents"][1]["parts"][0]["functionCall"] and "id" not in source["contents"][2]["parts"][0]["functionResponse"]
    lux = plain(to_lux(source).value)
    call_id = lux["conversation"][1]["message"]["content"][0]["tool_use"]["id"]
    assert call_id == source["contents"][1]["parts"][0]["functionCall"]["id"]
    assert lux["conversation"][2]["message"]["content"][0]["tool_result"]["tool_use_id"] == call_id
    # the response's name is its call's: only the absent id is kept
    assert lux["extra"]["gemini"]["members"]["$.conversation[2].message.content[0].tool_result"] == {"id": None}


def test_absent_and_empty_arguments() -> None:
    source = {"contents": [{"role": "model", "parts": [{"functionCall": {"name": "now", "id": "a"}}, {"functionCall": {"name": "now", "id": "b", "args": {}}}]}]}
    lux = plain(to_lux(source).value)
    assert [b["tool_use"]["arguments"] for b in lux["conversation"][0]["message"]["content"]] == ["{}", "{}"]
    assert lux["extra"]["gemini"]["members"] == {"$.conversation[0].message.content[0].tool_use": {"args": None}}
    assert plain(to_gemini(lux).value) == source


def test_arguments_that_are_not_a_json_object_are_invalid_and_left_out() -> None:
    lux = {"schema_version": "v1", "model": "m", "options": {"stream": False}, "conversation": [
        {"type": "tool_call", "tool_call": {"id": "c1", "name": "f", "arguments": "[1, 2]"}}]}
    result = to_gemini(lux)
    assert plain(result.value)["contents"] == [{"role": "model", "parts": [{"functionCall": {"name": "f", "id": "c1"}}]}]
    assert ("$.conversation[0].tool_call.arguments", "Invalid") in diags(result)
    assert ("$.conversation[0]", "Degraded") in diags(result)  # an item becomes a part


def test_tool_results_from_other_formats_become_function_responses() -> None:
    lux = {"schema_version": "v1", "model": "m", "options": {"stream": False}, "conversation": [
        {"type": "message", "message": {"role": "assistant", "content": [{"type": "tool_use", "tool_use": {"id": "toolu_1", "name": "get_weather", "arguments": "{\"city\": \"Paris\"}"}}]}},
        {"type": "tool_result", "tool_result": {"tool_use_id": "toolu_1", "content": [{"type": "text", "text": "Rainy"}], "is_error": True}}]}
    result = to_gemini(lux)
    contents = plain(result.value)["contents"]
    assert contents[0]["parts"][0]["functionCall"] == {"name": "get_weather", "id": "toolu_1", "args": {"city": "Paris"}}
    assert contents[1] == {"role": "user", "parts": [{"functionResponse": {"id": "toolu_1", "name": "get_weather", "response": {"error": {"result": "Rainy"}}}}]}
    found = diags(result)
    # the arguments text is JSON of the same value (spacing aside): carried as that value, Exact
    assert not [f for f in found if f[0].endswith(".tool_use.arguments")]
    assert ("$.conversation[1].tool_result.content", "Degraded") in found
    assert ("$.conversation[1].tool_result.is_error", "Degraded") in found


# --------------------------------------------------------------------- quirks: configuration


def test_forced_tool_choice_shapes() -> None:
    any_mode = to_lux(case("toolChoiceAnyParam", "request.json"))
    assert plain(any_mode.value)["tool_choice"] == "required"
    one = {"contents": [], "toolConfig": {"functionCallingConfig": {"mode": "ANY", "allowedFunctionNames": ["get_weather"]}}}
    lux = plain(to_lux(one).value)
    assert lux["tool_choice"] == {"type": "specific_tool", "name": "get_weather"}
    assert plain(to_gemini(lux).value) == one
    validated = case("toolModeValidatedParam", "request.json")
    result = to_lux(validated)
    assert "tool_choice" not in plain(result.value)
    assert plain(result.value)["extra"]["gemini"]["toolConfig"] == {"functionCallingConfig": {"mode": "VALIDATED"}}
    assert ("$.toolConfig", "Degraded") in diags(result)
    assert plain(to_gemini(result.value).value) == validated


def test_json_schema_output_and_thinking_configuration() -> None:
    source = case("googleThinkingJsonSchemaParam", "request.json")
    lux = plain(to_lux(source).value)
    assert lux["options"]["structured_output"] == {"type": "json_schema", "schema": source["generationConfig"]["responseJsonSchema"]}
    assert lux["reasoning"] == {"enabled": True, "budget_tokens": 1024, "summary": "auto"}
    assert lux["options"]["max_output_tokens"] == 2048 and lux["options"]["temperature"] == 0
    assert plain(to_gemini(lux).value) == source


def test_a_gemini_response_schema_is_json_schema_in_lux_and_goes_back_as_it_was() -> None:
    source = case("googleResponseSchemaPropertyOrderingParam", "request.json")
    lux = plain(to_lux(source).value)
    schema = lux["options"]["structured_output"]["schema"]
    assert schema["type"] == "object" and schema["properties"]["score"] == {"type": "integer"}
    assert schema["propertyOrdering"] == ["gateway", "score"]
    assert lux["extra"]["gemini"]["generationConfig"] == {"responseSchemaField": "responseSchema"}
    assert plain(to_gemini(lux).value) == source


def test_structured_output_from_other_formats() -> None:
    base = {"schema_version": "v1", "model": "m", "conversation": []}
    json_object = plain(to_gemini({**base, "options": {"stream": False, "structured_output": "json_object"}}).value)
    assert json_object["generationConfig"] == {"responseMimeType": "application/json"}
    schema = {"type": "object", "properties": {"a": {"type": ["string", "null"]}}, "additionalProperties": False}
    strict = plain(to_gemini({**base, "options": {"stream": False, "structured_output": {"type": "json_schema", "schema": schema}}}).value)
    assert strict["generationConfig"] == {"responseMimeType": "application/json", "responseJsonSchema": schema}


def test_reasoning_from_other_formats() -> None:
    base = {"schema_version": "v1", "model": "m", "conversation": [], "options": {"stream": False}}
    assert plain(to_gemini({**base, "reasoning": {"enabled": True, "budget_tokens": 2048}}).value)["generationConfig"] == {"thinkingConfig": {"thinkingBudget": 2048}}
    assert plain(to_gemini({**base, "reasoning": {"enabled": True, "effort": "high"}}).value)["generationConfig"] == {"thinkingConfig": {"thinkingLevel": "HIGH"}}
    off = to_gemini({**base, "reasoning": {"enabled": False, "effort": "low"}})
    assert plain(off.value)["generationConfig"] == {"thinkingConfig": {"thinkingBudget": 0}}
    assert ("$.reasoning.effort", "Unsupported") in diags(off)


def test_model_and_stream_come_from_the_context_and_go_to_the_url() -> None:
    source = case("simpleRequest", "request.json")
    assert "model" not in source
    missing = lucent.convert(json.dumps(source), "gemini", "lux")
    assert ("target:$.model", "Invalid") in diags(missing) and ("target:$.options.stream", "Invalid") in diags(missing)
    lux = to_lux(source, context={"model": "gemini-2.5-flash", "stream": True})
    assert plain(lux.value)["model"] == "gemini-2.5-flash" and plain(lux.value)["options"] == {"stream": True}
    back = to_gemini(lux.value)
    assert ("$.model", "Degraded") in diags(back) and ("$.options.stream", "Degraded") in diags(back)
    assert plain(back.value) == source
    with pytest.raises(ConversionError):  # both are Invalid without a context
        lucent.convert(json.dumps(source), "gemini", "lux", strict=True)


def test_sampling_options_out_of_int32_range_are_left_out() -> None:
    lux = {"schema_version": "v1", "model": "m", "conversation": [], "options": {"stream": False, "top_k": 2**40, "seed": 7, "stop": ["END"], "candidate_count": 2}}
    result = to_gemini(lux)
    assert plain(result.value)["generationConfig"] == {"seed": 7, "stopSequences": ["END"], "candidateCount": 2}
    assert ("$.options.top_k", "Unsupported") in diags(result)


def test_built_in_tools_are_kept_and_function_schemas_keep_their_dialect() -> None:
    search = case("webSearchToolAdvancedParam", "request.json")
    result = to_lux(search)
    assert "tools" not in plain(result.value) or plain(result.value)["tools"] == []
    assert plain(result.value)["extra"]["gemini"]["tools"] == search["tools"]
    assert ("$.tools[0].googleSearch", "Degraded") in diags(result)
    assert plain(to_gemini(result.value).value) == search
    declared = case("googleToolSchemaNumericInt64Param", "request.json")
    lux = plain(to_lux(declared).value)
    assert lux["tools"][0]["parameters"]["properties"]["tags"] == {"type": "array", "items": {"type": "string"}, "minItems": 1, "maxItems": 3}
    assert plain(to_gemini(lux).value) == declared


def test_tools_from_other_formats_are_json_schema_declarations() -> None:
    lux = {"schema_version": "v1", "model": "m", "conversation": [], "options": {"stream": False},
           "tools": [{"name": "f", "parameters": {"type": "object", "properties": {}}, "strict": True}, {"name": "g", "parameters": None}],
           "tool_choice": "auto"}
    result = to_gemini(lux)
    assert plain(result.value)["tools"] == [{"functionDeclarations": [{"name": "f", "parametersJsonSchema": {"type": "object", "properties": {}}}, {"name": "g"}]}]
    assert plain(result.value)["toolConfig"] == {"functionCallingConfig": {"mode": "AUTO"}}
    assert ("$.tools[0].strict", "Unsupported") in diags(result)


# --------------------------------------------------------------------- quirks: content kinds


def test_system_instruction_is_the_lux_instructions() -> None:
    source = case("systemMessageArrayContent", "request.json")
    lux = plain(to_lux(source).value)
    assert lux["instructions"] == [{"type": "text", "text": p["text"]} for p in source["systemInstruction"]["parts"]]
    assert plain(to_gemini(lux).value) == source


def test_system_and_developer_messages_from_other_formats() -> None:
    lux = {"schema_version": "v1", "model": "m", "options": {"stream": False}, "instructions": [{"type": "text", "text": "Be brief."}], "conversation": [
        {"type": "message", "message": {"role": "developer", "content": [{"type": "text", "text": "Use metric."}]}},
        {"type": "message", "message": {"role": "user", "content": [{"type": "text", "text": "Hi"}]}},
        {"type": "message", "message": {"role": "system", "content": [{"type": "text", "text": "Now French."}]}}]}
    result = to_gemini(lux)
    out = plain(result.value)
    assert out["systemInstruction"] == {"parts": [{"text": "Be brief."}, {"text": "Use metric."}]}
    assert out["contents"] == [{"role": "user", "parts": [{"text": "Hi"}]}, {"role": "user", "parts": [{"text": "Now French."}]}]
    assert ("$.conversation[0].message", "Degraded") in diags(result)
    assert ("$.conversation[2].message.role", "Degraded") in diags(result)


def test_inline_images_carry_their_bytes_in_the_media_side_car() -> None:
    source = case("multimodalRequest", "request.json")
    part = next(p for p in source["contents"][0]["parts"] if "inlineData" in p)
    index = source["contents"][0]["parts"].index(part)
    lux = plain(to_lux(source).value)
    block = lux["conversation"][0]["message"]["content"][index]
    assert block == {"type": "image", "image": {"media_type": part["inlineData"]["mimeType"], "source": "inline"}}
    assert lux["extra"]["media"][f"$.conversation[0].message.content[{index}].image"] == {"data": part["inlineData"]["data"]}
    assert plain(to_gemini(lux).value) == source


def test_url_and_file_media_and_missing_bytes() -> None:
    lux = {"schema_version": "v1", "model": "m", "options": {"stream": False}, "conversation": [
        {"type": "message", "message": {"role": "user", "content": [
            {"type": "image", "image": {"media_type": "image/png", "source": "url"}},
            {"type": "video", "video": {"media_type": "video/mp4", "source": "file_uri"}},
            {"type": "audio", "audio": {"media_type": "audio/wav", "source": "inline"}}]}}],
        "extra": {"media": {"$.conversation[0].message.content[0].image": {"url": "https://example.com/a.png"},
                            "$.conversation[0].message.content[1].video": {"file_uri": "gs://bucket/v.mp4"}}}}
    result = to_gemini(lux)
    assert plain(result.value)["contents"][0]["parts"] == [
        {"fileData": {"mimeType": "image/png", "fileUri": "https://example.com/a.png"}},
        {"fileData": {"mimeType": "video/mp4", "fileUri": "gs://bucket/v.mp4"}}]
    assert ("$.conversation[0].message.content[0].image", "Degraded") in diags(result)
    assert ("$.conversation[0].message.content[2].audio", "Invalid") in diags(result)


def test_audio_output_is_an_audio_block() -> None:
    source = case("responseModalitiesAudioParam", "response.json")
    lux = plain(to_lux(source, "response").value)
    block = lux["choices"][0]["message"]["content"][0]
    assert block["type"] == "audio" and block["audio"]["media_type"].startswith("audio/")
    assert lux["provider_payload"]["media"]["$.choices[0].message.content[0].audio"]["data"] == source["candidates"][0]["content"]["parts"][0]["inlineData"]["data"]
    assert plain(to_gemini(lux, "response").value) == source


def test_code_execution_parts_are_kept_verbatim_in_position() -> None:
    source = case("codeInterpreterToolParam", "response.json")
    result = to_lux(source, "response")
    lux = plain(result.value)
    assert lux["choices"][0]["message"]["content"] == [{"type": "text", "text": "The random number generated is 13."}]
    kept = lux["provider_payload"]["gemini"]["members"]["$.choices[0].message"]["verbatim_parts"]
    assert [k["index"] for k in kept] == [0, 1] and kept[1]["part"]["codeExecutionResult"]["outcome"] == "OUTCOME_OK"
    assert ("$.candidates[0].content.parts[0]", "Degraded") in diags(result)
    assert plain(to_gemini(lux, "response").value) == source


# ------------------------------------------------------------- quirks: finish reasons and usage


def test_finish_reasons() -> None:
    truncated = plain(to_lux(case("reasoningRequestTruncated", "response.json"), "response").value)
    assert truncated["choices"][0]["finish_reason"] == "length"
    other = case("speechConfigParam", "response.json")  # OTHER <-> error, one to one
    assert plain(to_lux(other, "response").value)["choices"][0]["finish_reason"] == "error"
    no_image = case("imageConfigParam", "followup-response.json")
    assert no_image["candidates"][0]["finishReason"] == "NO_IMAGE"
    result = to_lux(no_image, "response")
    assert plain(result.value)["choices"][0]["finish_reason"] == "error"
    assert plain(result.value)["provider_payload"]["gemini"]["members"]["$.choices[0]"]["finishReason"] == "NO_IMAGE"
    assert ("$.candidates[0].finishReason", "Degraded") in diags(result)
    assert plain(to_gemini(result.value, "response").value) == no_image
    calls = plain(to_lux(case("toolCallRequest", "response.json"), "response").value)
    assert calls["choices"][0]["finish_reason"] == "tool_calls"  # Gemini says STOP
    lux = {"schema_version": "v1", "id": "r", "model": "m", "choices": [
        {"index": 0, "message": {"role": "assistant", "content": [{"type": "text", "text": "x"}]}, "finish_reason": reason}
        for reason in ("length", "content_filter", "tool_calls")]}
    result = to_gemini(lux, "response")
    assert [c["finishReason"] for c in plain(result.value)["candidates"]] == ["MAX_TOKENS", "PROHIBITED_CONTENT", "STOP"]
    assert ("$.choices[2].finish_reason", "Unsupported") in diags(result)


def test_cached_tokens_are_inside_prompt_tokens_as_in_lux() -> None:
    usage = {"promptTokenCount": 1200, "cachedContentTokenCount": 1000, "candidatesTokenCount": 50, "thoughtsTokenCount": 30, "totalTokenCount": 1280}
    source = {"candidates": [{"content": {"role": "model", "parts": [{"text": "ok"}]}, "finishReason": "STOP", "index": 0}],
              "usageMetadata": usage, "modelVersion": "gemini-2.5-flash", "responseId": "r1"}
    lux = plain(to_lux(source, "response").value)
    assert lux["usage"] == {"prompt_tokens": 1200, "completion_tokens": 80, "total_tokens": 1280, "reasoning_tokens": 30, "cached_tokens": 1000}
    assert plain(to_gemini(lux, "response").value) == source


def test_tool_use_prompt_tokens_are_input() -> None:
    source = case("codeInterpreterToolParam", "response.json")
    lux = plain(to_lux(source, "response").value)
    assert lux["usage"] == {"prompt_tokens": 105, "completion_tokens": 87, "total_tokens": 192, "reasoning_tokens": 32}
    assert lux["provider_payload"]["gemini"]["usageMetadata"]["toolUsePromptTokenCount"] == 96


def test_anthropic_style_cache_writes_have_no_gemini_count() -> None:
    lux = {"schema_version": "v1", "id": "r", "model": "m", "choices": [],
           "usage": {"prompt_tokens": 10, "completion_tokens": 2, "total_tokens": 12, "cached_tokens": 4, "cache_creation_tokens": 3}}
    result = to_gemini(lux, "response")
    assert plain(result.value)["usageMetadata"] == {"promptTokenCount": 10, "candidatesTokenCount": 2, "totalTokenCount": 12, "cachedContentTokenCount": 4}
    assert ("$.usage.cache_creation_tokens", "Unsupported") in diags(result)


def test_a_stale_side_car_entry_is_reported() -> None:
    source = case("toolCallRequest", "followup-request.json")
    lux = plain(to_lux(source).value)
    lux["extra"]["gemini"]["members"]["$.conversation[9].message"] = {"role": "function"}
    lux["extra"]["other"] = {"x": 1}
    result = to_gemini(lux)
    assert ('$.extra.gemini.members["$.conversation[9].message"].role', "Unsupported") in diags(result)
    assert ("$.extra.other", "Unsupported") in diags(result)


# -------------------------------------------------------------- generated Lux -> Gemini validity


@settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck))
@given(data=st.data())
def test_generated_lux_requests_and_responses_give_valid_gemini_documents(data: st.DataObject) -> None:
    for kind, definition in (("request", "LucentRequest"), ("response", "LucentResponse")):
        doc = data.draw(strategy("lux-ir-v1", definition))
        result = lucent.convert(json.dumps(doc), "lux", "gemini", kind=kind)
        valid("gemini", DEFINITIONS[kind], plain(result.value))
        assert not [d for d in result.diagnostics if d.status == "Invalid" and d.field.startswith("target:")]
