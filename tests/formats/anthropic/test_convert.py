"""Anthropic Messages <-> Lux (requests and responses) on the recorded lingua corpus.

The corpus is tests/data/lingua/snapshots/*/anthropic/ (real traffic): every document that
decodes goes Anthropic -> Lux -> Anthropic and comes back equal, except for the classes listed in
tests/data/vendor_expected_differences/anthropic.toml, each of which must carry a diagnostic.
Lux -> Anthropic must give a document the Anthropic schema accepts (checked with jsonschema) for
every Lux document: generated ones (hypothesis, small budget) and the other providers' corpus
converted to Lux. The quirks of issue 5 section 4 that concern Anthropic are tested on the real
corpus file where one exists, and on a small hand-written document where none does (said so).
"""

from __future__ import annotations

import copy
import json
import pathlib
import re
import tomllib
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings

import lucent
from lucent._context import read_by
from lucent.errors import ConversionError, LucentError
from lucent.generated.convert_registry import CONVERTERS, UNREACHABLE
from tests.convert_conformance.pairs import side
from tests.convert_conformance.validity import Validity
from tests.paths import REPO

SNAPSHOTS = REPO / "tests" / "data" / "lingua" / "snapshots"
EXPECTED = tomllib.loads((REPO / "tests" / "data" / "vendor_expected_differences" / "anthropic.toml").read_text(encoding="utf-8"))
FILES = {"request": ("request.json", "followup-request.json"), "response": ("response.json", "followup-response.json")}
DEFINITION = {"request": "CreateMessageParams", "response": "Message"}
VALIDITY = Validity()


# ------------------------------------------------------------------------------------ helpers


def corpus(kind: str, provider: str = "anthropic") -> list[pathlib.Path]:
    return sorted(p for name in FILES[kind] for p in SNAPSHOTS.glob(f"*/{provider}/{name}"))


def load(case: str, name: str = "request.json") -> dict[str, Any]:
    return json.loads((SNAPSHOTS / case / "anthropic" / name).read_text(encoding="utf-8"))


def decodes(data: bytes, kind: str) -> bool:
    try:
        lucent.decode(data, "anthropic", DEFINITION[kind])
    except LucentError:
        return False
    return True


def as_json(value: Any) -> Any:
    return json.loads(lucent.encode(value))


def to_lux(doc: Any, kind: str = "request", **options: Any) -> Any:
    return lucent.convert(json.dumps(doc), "anthropic", "lux", kind=kind, **options)


def to_anthropic(doc: Any, kind: str = "request", context: dict[str, Any] | None = None) -> Any:
    data = json.dumps(doc) if isinstance(doc, dict) else lucent.encode(doc)
    result = lucent.convert(data, "lux", "anthropic", kind=kind, context=context)
    assert anthropic_errors(result.value, kind) == [], result.diagnostics
    return result


def anthropic_errors(value: Any, kind: str) -> list[str]:
    return [f"{_path(e)}: {e.message}" for e in VALIDITY.errors(side("anthropic", kind), as_json(value))]


def _path(error: Any) -> str:
    """A jsonschema error's path; for a missing required member, the member's path."""
    found = re.match(r"^'(.+)' is a required property$", error.message) if error.validator == "required" else None
    return f"{error.json_path}.{found.group(1)}" if found else str(error.json_path)


def round_trip(doc: dict[str, Any], kind: str) -> tuple[Any, list[Any]]:
    there = to_lux(doc, kind)
    back = lucent.convert(lucent.encode(there.value), "lux", "anthropic", kind=kind)
    return as_json(back.value), [*there.diagnostics, *back.diagnostics]


def differences(a: Any, b: Any, path: str = "$") -> list[str]:
    """The JSON paths where `b` differs from `a` (a member missing on either side counts)."""
    if isinstance(a, dict) and isinstance(b, dict):
        out = []
        for key in [*a, *(k for k in b if k not in a)]:
            at = f"{path}.{key}"
            out += differences(a[key], b[key], at) if key in a and key in b else [at]
        return out
    if isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
        return [d for i, (x, y) in enumerate(zip(a, b)) for d in differences(x, y, f"{path}[{i}]")]
    same = a == b and type(a) is type(b) or (isinstance(a, float) and isinstance(b, int) and a == b)
    return [] if same else [path]


def _pattern(glob: str) -> re.Pattern[str]:
    return re.compile("^" + re.escape(glob).replace(r"\[\*\]", r"\[\d+\]") + "$")


PATTERNS = [(_pattern(p), entry["class"]) for entry in EXPECTED.get("difference", []) for p in entry["patterns"]]


def lux_request(conversation: list[dict[str, Any]], **fields: Any) -> dict[str, Any]:
    return {"schema_version": "v1", "model": "claude-x", "options": {"stream": False, "max_output_tokens": 64}, "conversation": conversation, **fields}


def message(role: str, *blocks: dict[str, Any]) -> dict[str, Any]:
    return {"type": "message", "message": {"role": role, "content": list(blocks)}}


def text(value: str) -> dict[str, Any]:
    return {"type": "text", "text": value}


def statuses(result: Any) -> dict[str, str]:
    return {d.field: d.status for d in result.diagnostics}


# ------------------------------------------------------------------------- corpus round trip


@pytest.mark.parametrize("kind", ["request", "response"])
def test_every_corpus_document_that_decodes_comes_back_equal_or_differs_only_as_listed(kind: str) -> None:
    exact = listed = 0
    used: set[str] = set()
    for path in corpus(kind):
        data = path.read_bytes()
        if not decodes(data, kind):
            continue  # listed with its reason in tests/data/vendor_corpus_failures.toml
        source = json.loads(data)
        back, found = round_trip(source, kind)
        diffs = differences(source, back)
        for at in diffs:
            classes = [name for pattern, name in PATTERNS if pattern.match(at)]
            assert classes, f"{path.relative_to(SNAPSHOTS)}: {at} differs and is not a listed difference"
            assert any(d.field == at or at.startswith(d.field + ".") for d in found), f"{at} differs with no diagnostic"
            used.update(classes)
        exact += not diffs
        listed += bool(diffs)
    assert exact + listed >= (90 if kind == "request" else 0)
    assert listed == 0  # members the schema does not define come back too (lucent._unknown)
    assert used <= {entry["class"] for entry in EXPECTED.get("difference", [])}


def test_the_expected_difference_list_is_shorter_than_linguas_and_every_class_is_needed() -> None:
    ours = sum(len(entry["patterns"]) for entry in EXPECTED.get("difference", []))
    assert ours <= 2
    lingua = REPO.parent / "shared" / "corpus" / "lingua"
    if lingua.is_dir():  # lingua's entries that apply to Anthropic -> Anthropic (34 when written)
        theirs = 0
        for name in ("requests", "responses"):
            listed = json.loads((lingua / f"{name}_expected_differences.json").read_text(encoding="utf-8"))
            for entry in listed["global"] + listed["perTestCase"]:
                if entry["source"] in ("*", "Anthropic") and entry["target"] in ("*", "Anthropic"):
                    theirs += len(entry.get("fields", [])) + len(entry.get("errors", []))
        assert ours < theirs
    seen = set()
    for kind in ("request", "response"):
        for path in corpus(kind):
            data = path.read_bytes()
            if decodes(data, kind):
                source = json.loads(data)
                seen.update(name for at in differences(source, round_trip(source, kind)[0]) for pattern, name in PATTERNS if pattern.match(at))
    assert seen == {entry["class"] for entry in EXPECTED.get("difference", [])}


def test_a_corpus_request_keeps_its_exact_shape_through_lux() -> None:
    source = load("anthropicMixedToolResultWithText", "followup-request.json")
    lux = as_json(to_lux(source).value)
    user_turn = lux["conversation"][2]["message"]
    assert [b["type"] for b in user_turn["content"]] == [b["type"] for b in source["messages"][2]["content"]]
    assert round_trip(source, "request")[0] == source


# ---------------------------------------------------------------------------- system content


def test_system_blocks_with_cache_control_are_instructions_and_come_back_as_blocks() -> None:
    source = load("anthropicMessageWithSystemMessage")
    result = to_lux(source)
    lux = as_json(result.value)
    assert [b["text"] for b in lux["instructions"]] == [b["text"] for b in source["system"]]
    assert lux["extra"]["anthropic"]["system_form"] == "blocks"
    cached = [i for i, block in enumerate(source["system"]) if "cache_control" in block]
    assert cached == [1]
    assert lux["extra"]["anthropic"]["members"]["$.instructions[1]"] == {"cache_control": source["system"][1]["cache_control"]}
    back, found = round_trip(source, "request")
    assert back["system"] == source["system"]
    # the tool's input_schema.additionalProperties, which InputSchema does not define, too: kept
    # in the Lux side-car (Degraded there), written back
    assert differences(source, back) == []
    assert ("$.tools[0].input_schema.additionalProperties", "Degraded") in [(d.field, d.status) for d in found]


def test_a_system_message_mid_conversation_keeps_its_position() -> None:
    source = load("anthropicMidConversationSystemMessage")
    lux = as_json(to_lux(source).value)
    assert lux["instructions"] == [text(source["system"])]
    assert [i["message"]["role"] for i in lux["conversation"]] == ["user", "system"]
    assert round_trip(source, "request")[0] == source


def test_developer_and_tool_roles_are_written_as_the_nearest_anthropic_role() -> None:
    doc = lux_request([message("developer", text("be brief")), message("user", text("hi"))])
    result = to_anthropic(doc)
    assert as_json(result.value)["messages"][0] == {"role": "system", "content": "be brief"}
    assert statuses(result)["$.conversation[0].message.role"] == "Degraded"


# ------------------------------------------------------------------------------------ thinking


def test_a_recorded_thinking_block_keeps_its_signature_byte_for_byte() -> None:
    source = load("fableTemperatureParam", "followup-response.json")
    if not decodes(json.dumps(source).encode(), "response"):
        pytest.skip("the published Message schema refuses this recording until the schema patch layer lands")
    block = source["content"][0]
    lux = as_json(to_lux(source, "response", context={"created_at": 1}).value)
    thinking = lux["choices"][0]["message"]["content"][0]["thinking"]
    assert thinking == {"text": block["thinking"], "signature": block["signature"], "redacted": False}
    assert round_trip(source, "response")[0] == source


def test_redacted_thinking_is_a_redacted_lux_thinking_whose_signature_is_the_data() -> None:
    # no recorded non-stream document has a redacted_thinking block: a hand-written request
    data = "EmwKAhgBEgy3va3pzix/LafPsn4aDFIT2Xlxh0L5L8rLVyIwxtE3rAFBa8cr3qpP" * 3
    source = {
        "model": "claude-sonnet-4-5",
        "max_tokens": 1024,
        "messages": [
            {"role": "user", "content": "hi"},
            {"role": "assistant", "content": [{"type": "redacted_thinking", "data": data}, {"type": "thinking", "thinking": "", "signature": "sig=="}, {"type": "text", "text": "Hello"}]},
        ],
    }
    result = to_lux(source)
    assert result.diagnostics == []
    blocks = as_json(result.value)["conversation"][1]["message"]["content"]
    assert blocks[0] == {"type": "thinking", "thinking": {"text": "", "signature": data, "redacted": True}}
    assert blocks[1] == {"type": "thinking", "thinking": {"text": "", "signature": "sig==", "redacted": False}}
    assert round_trip(source, "request")[0] == source


def test_thinking_without_a_signature_is_dropped_and_named() -> None:
    doc = lux_request([message("assistant", {"type": "thinking", "thinking": {"text": "hmm", "redacted": False}}, text("ok"))])
    result = to_anthropic(doc)
    assert as_json(result.value)["messages"] == [{"role": "assistant", "content": "ok"}]
    assert statuses(result)["$.conversation[0].message.content[0]"] == "Unsupported"  # the block, as a stream names it
    with pytest.raises(ConversionError):
        lucent.convert(json.dumps(doc), "lux", "anthropic", strict=True)


def test_reasoning_items_become_thinking_blocks_of_the_assistant_turn() -> None:
    doc = lux_request([
        message("user", text("q")),
        {"type": "reasoning", "reasoning": {"text": "", "signature": "enc", "redacted": True}},
        {"type": "tool_call", "tool_call": {"id": "call_1", "name": "f", "arguments": "{}"}},
    ])
    out = as_json(to_anthropic(doc).value)
    assert out["messages"][1] == {"role": "assistant", "content": [{"type": "redacted_thinking", "data": "enc"}, {"type": "tool_use", "id": "call_1", "name": "f", "input": {}}]}


# ---------------------------------------------------------------------------------- tool use


def test_parallel_tool_calls_keep_their_ids_and_order_and_results_stay_in_the_user_turn() -> None:
    source = load("parallelToolCallsRequest")
    lux = as_json(to_lux(source).value)
    calls = [b["tool_use"] for b in lux["conversation"][1]["message"]["content"] if b["type"] == "tool_use"]
    recorded = [b for b in source["messages"][1]["content"] if b["type"] == "tool_use"]
    assert [(c["id"], c["name"], json.loads(c["arguments"])) for c in calls] == [(b["id"], b["name"], b["input"]) for b in recorded]
    results = [b["tool_result"]["tool_use_id"] for b in lux["conversation"][2]["message"]["content"] if b["type"] == "tool_result"]
    assert results == [b["tool_use_id"] for b in source["messages"][2]["content"] if b["type"] == "tool_result"]
    sparktide = lucent.convert(json.dumps(source), "anthropic", "sparktide", context={"invocationId": "i", "deadline": 1, "purpose": "SYNTHETIC_PROBE", "appId": "app", "model": "m", "max_completion_tokens": 9, "stream": False})
    assert [c.id for c in sparktide.value.messages[1].tool_calls] == [b["id"] for b in recorded]


def test_empty_tool_input_is_the_arguments_text_empty_object_and_empty_arguments_come_back_as_an_object() -> None:
    source = {"model": "m", "max_tokens": 8, "messages": [{"role": "assistant", "content": [{"type": "tool_use", "id": "t1", "name": "now", "input": {}}]}]}
    lux = as_json(to_lux(source).value)
    assert lux["conversation"][0]["message"]["content"][0]["tool_use"]["arguments"] == "{}"
    doc = lux_request([{"type": "tool_call", "tool_call": {"id": "call 1", "name": "get.time", "arguments": ""}}])
    result = to_anthropic(doc)
    assert as_json(result.value)["messages"][0]["content"][0] == {"type": "tool_use", "id": "call_1", "name": "get_time", "input": {}}
    assert statuses(result)["$.conversation[0].tool_call.arguments"] == "Degraded"
    assert statuses(result)["$.conversation[0].tool_call.id"] == "Degraded"


def test_arguments_that_are_not_an_object_are_invalid_and_written_as_an_empty_input() -> None:
    doc = lux_request([message("assistant", {"type": "tool_use", "tool_use": {"id": "a", "name": "f", "arguments": "[1]"}})])
    result = to_anthropic(doc)
    assert as_json(result.value)["messages"][0]["content"][0]["input"] == {}
    assert statuses(result)["$.conversation[0].message.content[0].tool_use.arguments"] == "Invalid"


def test_tool_result_string_blocks_absent_content_and_explicit_is_error_false_round_trip() -> None:
    source = {
        "model": "m",
        "max_tokens": 8,
        "messages": [
            {"role": "user", "content": [
                {"type": "tool_result", "tool_use_id": "a", "content": "sunny"},
                {"type": "tool_result", "tool_use_id": "b", "content": [{"type": "text", "text": "rain"}], "is_error": False},
                {"type": "tool_result", "tool_use_id": "c", "is_error": True},
            ]},
        ],
    }
    lux = as_json(to_lux(source).value)
    results = [b["tool_result"] for b in lux["conversation"][0]["message"]["content"]]
    assert results == [
        {"tool_use_id": "a", "content": [text("sunny")], "is_error": False},
        {"tool_use_id": "b", "content": [text("rain")], "is_error": False},
        {"tool_use_id": "c", "content": [], "is_error": True},
    ]
    assert round_trip(source, "request")[0] == source


def test_lux_tool_result_items_join_one_user_turn() -> None:
    doc = lux_request([
        message("assistant", {"type": "tool_use", "tool_use": {"id": "a", "name": "f", "arguments": "{}"}}, {"type": "tool_use", "tool_use": {"id": "b", "name": "f", "arguments": "{}"}}),
        {"type": "tool_result", "tool_result": {"tool_use_id": "a", "content": [text("1")], "is_error": False}},
        {"type": "tool_result", "tool_result": {"tool_use_id": "b", "content": [text("2")], "is_error": True}},
    ])
    out = as_json(to_anthropic(doc).value)
    assert out["messages"][1] == {"role": "user", "content": [
        {"type": "tool_result", "tool_use_id": "a", "content": "1"},
        {"type": "tool_result", "tool_use_id": "b", "content": "2", "is_error": True},
    ]}


@pytest.mark.parametrize(
    ("case", "lux_choice"),
    [
        ("toolChoiceAutoParam", "auto"),
        ("toolChoiceAnyParam", "required"),
        ("toolChoiceNoneParam", "none"),
        ("toolChoiceRequiredParam", {"type": "specific_tool", "name": "get_weather"}),
    ],
)
def test_tool_choice_shapes_map_one_to_one(case: str, lux_choice: Any) -> None:
    source = load(case)
    lux = as_json(to_lux(source).value)
    assert lux["tool_choice"] == lux_choice
    assert round_trip(source, "request")[0] == source


def test_disable_parallel_tool_use_is_kept_and_reported() -> None:
    source = load("parallelToolCallsDisabledParam")
    result = to_lux(source)
    assert as_json(result.value)["extra"]["anthropic"]["disable_parallel_tool_use"] is True
    assert statuses(result)["$.tool_choice.disable_parallel_tool_use"] == "Degraded"
    assert round_trip(source, "request")[0] == source


def test_server_tools_are_kept_verbatim_at_their_index() -> None:
    source = load("webSearchUserLocationParam")
    result = to_lux(source)
    lux = as_json(result.value)
    assert lux["tools"] == []
    assert lux["extra"]["anthropic"]["tools"] == [{"index": 0, "value": source["tools"][0]}]
    assert statuses(result)["$.tools[0]"] == "Degraded"
    assert round_trip(source, "request")[0] == source


def test_tool_names_anthropic_cannot_hold_are_replaced_the_same_way_everywhere() -> None:
    doc = lux_request(
        [message("assistant", {"type": "tool_use", "tool_use": {"id": "x", "name": "get weather", "arguments": "{}"}})],
        tools=[{"name": "get weather", "parameters": None}],
        tool_choice={"type": "specific_tool", "name": "get weather"},
    )
    out = as_json(to_anthropic(doc).value)
    assert out["tools"][0]["name"] == out["messages"][0]["content"][0]["name"] == out["tool_choice"]["name"] == "get_weather"
    assert out["tools"][0]["input_schema"] == {"type": "object"}


# --------------------------------------------------------------------------------------- usage


def test_usage_counts_cache_reads_and_writes_inside_lux_prompt_tokens() -> None:
    # no recorded response has non-zero cache counts: a hand-written Message in the recorded shape
    source = load("toolCallRequest", "response.json")
    source["usage"].update(input_tokens=12, cache_read_input_tokens=2000, cache_creation_input_tokens=300, output_tokens=41)
    source["usage"]["cache_creation"] = {"ephemeral_5m_input_tokens": 300, "ephemeral_1h_input_tokens": 0}
    if not decodes(json.dumps(source).encode(), "response"):
        pytest.skip("the published Message schema refuses this recording until the schema patch layer lands")
    usage = as_json(to_lux(source, "response").value)["usage"]
    assert usage == {"prompt_tokens": 2312, "completion_tokens": 41, "total_tokens": 2353, "cached_tokens": 2000, "cache_creation_tokens": 300}
    assert round_trip(source, "response")[0] == source


def test_openai_style_inclusive_prompt_tokens_give_anthropic_input_tokens_without_the_cache() -> None:
    lux = {
        "schema_version": "v1", "id": "r", "model": "m",
        "choices": [{"index": 0, "message": {"role": "assistant", "content": [text("hi")]}, "finish_reason": "stop"}],
        "usage": {"prompt_tokens": 1000, "completion_tokens": 5, "total_tokens": 1005, "cached_tokens": 800, "reasoning_tokens": 2},
    }
    out = as_json(lucent.convert(json.dumps(lux), "lux", "anthropic", kind="response").value)
    assert out["usage"] == {"input_tokens": 200, "output_tokens": 5, "cache_read_input_tokens": 800, "output_tokens_details": {"thinking_tokens": 2}}
    assert out["stop_reason"] == "end_turn"


def test_a_lux_response_without_usage_has_no_anthropic_image() -> None:
    lux = {"schema_version": "v1", "id": "r", "model": "m", "choices": []}
    result = lucent.convert(json.dumps(lux), "lux", "anthropic", kind="response")
    assert statuses(result)["target:$.usage"] == "Invalid"
    assert list(UNREACHABLE[("lux", "anthropic", "response")]) == ["$.usage"]
    assert "usage" not in as_json(result.value)


# ---------------------------------------------------------------------------- stop reasons


@pytest.mark.parametrize(
    ("case", "name", "finish"),
    [
        ("simpleRequestTruncated", "response.json", "length"),
        ("toolCallRequest", "response.json", "tool_calls"),
        ("simpleRequest", "response.json", "stop"),
        ("stopSequencesParam", "response.json", "stop"),
    ],
)
def test_recorded_stop_reasons_become_lux_finish_reasons_and_come_back(case: str, name: str, finish: str) -> None:
    source = load(case, name)
    if not decodes(json.dumps(source).encode(), "response"):
        pytest.skip("the published Message schema refuses this recording until the schema patch layer lands")
    lux = as_json(to_lux(source, "response").value)
    assert lux["choices"][0]["finish_reason"] == finish
    assert round_trip(source, "response")[0] == source


@pytest.mark.parametrize(("stop_reason", "finish"), [("pause_turn", "stop"), ("model_context_window_exceeded", "length"), ("refusal", "content_filter")])
def test_stop_reasons_lux_has_no_name_for_are_kept(stop_reason: str, finish: str) -> None:
    source = load("simpleRequest", "response.json")
    source["stop_reason"] = stop_reason
    if not decodes(json.dumps(source).encode(), "response"):
        pytest.skip("the published Message schema refuses this recording until the schema patch layer lands")
    result = to_lux(source, "response")
    assert as_json(result.value)["choices"][0]["finish_reason"] == finish
    assert (statuses(result).get("$.stop_reason") == "Degraded") == (stop_reason != "refusal")
    assert round_trip(source, "response")[0] == source


def test_length_from_another_format_is_max_tokens() -> None:
    lux = {
        "schema_version": "v1", "id": "r", "model": "m",
        "choices": [{"index": 0, "message": {"role": "assistant", "content": [text("cut")]}, "finish_reason": "length"}],
        "usage": {"prompt_tokens": 3, "completion_tokens": 16, "total_tokens": 19},
    }
    assert as_json(lucent.convert(json.dumps(lux), "lux", "anthropic", kind="response").value)["stop_reason"] == "max_tokens"


# --------------------------------------------------------------------- structured output, media


def test_json_schema_output_is_the_lux_structured_output() -> None:
    source = load("outputConfigJsonSchemaParam")
    lux = as_json(to_lux(source).value)
    assert lux["options"]["structured_output"] == {"type": "json_schema", "schema": source["output_config"]["format"]["schema"]}
    assert round_trip(source, "request")[0] == source


def test_json_object_output_is_written_as_an_object_schema_and_reported() -> None:
    doc = lux_request([message("user", text("json please"))], options={"stream": False, "max_output_tokens": 9, "structured_output": "json_object"})
    result = to_anthropic(doc)
    assert as_json(result.value)["output_config"] == {"format": {"type": "json_schema", "schema": {"type": "object"}}}
    assert statuses(result)["$.options.structured_output"] == "Degraded"


def test_a_recorded_base64_image_keeps_its_bytes_in_the_media_side_car() -> None:
    source = load("imageContentParam")
    result = to_lux(source)
    lux = as_json(result.value)
    at = [b["type"] for b in source["messages"][0]["content"]].index("image")
    block = lux["conversation"][0]["message"]["content"][at]
    recorded = source["messages"][0]["content"][at]["source"]
    assert recorded["type"] == "base64" and recorded["data"].startswith("iVBORw0KGgo")  # a PNG
    assert block == {"type": "image", "image": {"media_type": recorded["media_type"], "source": "inline"}}
    assert lux["extra"]["media"][f"$.conversation[0].message.content[{at}].image"] == {"data": recorded["data"]}
    assert round_trip(source, "request")[0] == source


def test_url_images_and_media_anthropic_cannot_hold() -> None:
    source = {"model": "m", "max_tokens": 8, "messages": [{"role": "user", "content": [{"type": "image", "source": {"type": "url", "url": "https://example.com/a.png"}}]}]}
    lux = as_json(to_lux(source).value)
    # an Anthropic URL image states no media type: the one the URL's file name names, else image/*
    assert lux["conversation"][0]["message"]["content"][0]["image"] == {"media_type": "image/png", "source": "url"}
    assert round_trip(source, "request")[0] == source
    source["messages"][0]["content"][0]["source"]["url"] = "https://example.com/image?id=3"
    assert as_json(to_lux(source).value)["conversation"][0]["message"]["content"][0]["image"] == {"media_type": "image/*", "source": "url"}
    assert round_trip(source, "request")[0] == source
    doc = lux_request([message("user", {"type": "audio", "audio": {"media_type": "audio/wav", "source": "inline"}}, {"type": "image", "image": {"media_type": "image/bmp", "source": "inline"}})])
    result = to_anthropic(doc)
    assert as_json(result.value)["messages"][0]["content"] == []
    assert statuses(result) == {"$.conversation[0].message.content[0]": "Unsupported", "$.conversation[0].message.content[1].image": "Unsupported"}


def test_documents_are_kept_verbatim_in_position() -> None:
    source = load("documentContentParam")
    result = to_lux(source)
    assert statuses(result)["$.messages[0].content[0]"] == "Degraded"
    assert round_trip(source, "request")[0] == source


# ------------------------------------------------------------------------------ max_tokens


def test_max_tokens_comes_from_the_context_when_the_lux_request_has_none() -> None:
    doc = lux_request([message("user", text("hi"))], options={"stream": False})
    missing = lucent.convert(json.dumps(doc), "lux", "anthropic")
    assert statuses(missing)["target:$.max_tokens"] == "Invalid"
    given = to_anthropic(doc, context={"max_tokens": 512})
    assert as_json(given.value)["max_tokens"] == 512
    assert statuses(given)["target:$.max_tokens"] == "Degraded"


# ------------------------------------------------------------ validity of Lux -> Anthropic


@pytest.mark.parametrize("provider", ["chat-completions", "responses", "google"])
@pytest.mark.parametrize("kind", ["request", "response"])
def test_other_providers_corpus_through_lux_gives_valid_anthropic_documents(provider: str, kind: str) -> None:
    fmt = {"chat-completions": "openai-chat", "responses": "openai-responses", "google": "gemini"}[provider]
    if (fmt, "lux", kind) not in CONVERTERS:
        pytest.skip(f"no {fmt} -> Lux {kind} converter on this branch yet (issue 5, another helper's spec)")
    definition = side(fmt, kind).definition
    checked = 0
    for path in corpus(kind, provider):
        data = path.read_bytes()
        try:
            lucent.decode(data, fmt, definition)
        except LucentError:
            continue
        result = lucent.convert(data, fmt, "anthropic", kind=kind, context=read_by({"max_tokens": 256, "id": "msg_1", "model": "m", "created_at": 0}, fmt, "anthropic", kind))
        errors = anthropic_errors(result.value, kind)
        named = {d.field for d in result.diagnostics if d.status == "Invalid" and d.field.startswith("target:")}
        declared = set(UNREACHABLE.get(("lux", "anthropic", kind), {}))
        assert all(e.split(": ")[0] in declared & {n[len("target:"):] for n in named} for e in errors), (path, errors)
        checked += 1
    assert checked > 0


def _lux(kind: str) -> Any:
    strategies = pytest.importorskip("lucent.generated.lux_ir_v1_strategies")
    return strategies.STRATEGIES["LucentRequest" if kind == "request" else "LucentResponse"]


@pytest.mark.parametrize("kind", ["request", "response"])
def test_generated_lux_documents_give_valid_anthropic_documents_or_declared_no_image(kind: str) -> None:
    @settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck))
    @given(_lux(kind))
    def check(doc: Any) -> None:
        try:
            result = lucent.convert(json.dumps(doc), "lux", "anthropic", kind=kind, context={"max_tokens": 256})
        except LucentError:
            return  # not a valid Lux document (generated before the protocol rules)
        errors = VALIDITY.errors(side("anthropic", kind), as_json(result.value))
        declared = set(UNREACHABLE.get(("lux", "anthropic", kind), {}))
        named = {d.field[len("target:"):] for d in result.diagnostics if d.status == "Invalid" and d.field.startswith("target:")}
        assert all(_path(e) in declared and _path(e) in named for e in errors), [e.message for e in errors]

    check()


def test_tool_strict_and_flags_lux_has_no_field_for_come_back() -> None:
    source = load("responsesToolSearchInputParam")
    client = [i for i, tool in enumerate(source["tools"]) if "input_schema" in tool][0]
    assert source["tools"][client]["defer_loading"] is True
    result = to_lux(source)
    assert statuses(result)[f"$.tools[{client}].defer_loading"] == "Degraded"
    lux = as_json(result.value)
    assert lux["extra"]["anthropic"]["members"][f"$.tools[0]"] == {"defer_loading": True}
    doc = lux_request([message("user", text("hi"))], tools=[{"name": "f", "parameters": {"type": "object", "properties": {}}, "strict": True}])
    assert as_json(to_anthropic(doc).value)["tools"] == [{"name": "f", "input_schema": {"type": "object", "properties": {}}, "strict": True}]


@pytest.mark.parametrize(
    "thinking",
    [{"type": "enabled", "budget_tokens": 2048, "display": None}, {"type": "adaptive", "display": "summarized"}, {"type": "disabled"}],
)
def test_thinking_configurations_are_lux_reasoning_and_come_back(thinking: dict[str, Any]) -> None:
    source = load("opus47AdaptiveThinkingReasoningEffortParam")
    source["thinking"] = thinking
    reasoning = as_json(to_lux(source).value)["reasoning"]
    assert reasoning["enabled"] is (thinking["type"] != "disabled")
    assert reasoning.get("budget_tokens") == thinking.get("budget_tokens")
    assert reasoning["effort"] == source["output_config"]["effort"]
    assert round_trip(source, "request")[0] == source


def test_an_effort_without_thinking_is_reasoning_not_enabled_and_comes_back_without_thinking() -> None:
    source = load("reasoningEffortLowParam")
    assert "thinking" not in source
    lux = as_json(to_lux(source).value)
    assert lux["reasoning"] == {"enabled": False, "effort": source["output_config"]["effort"]}
    assert round_trip(source, "request")[0] == source


def test_an_image_data_url_is_written_as_base64_data_with_its_media_type() -> None:
    png = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="
    doc = lux_request(
        [message("user", {"type": "image", "image": {"media_type": "image/png", "source": "url"}})],
        extra={"media": {"$.conversation[0].message.content[0].image": {"url": f"data:image/png;base64,{png}"}}},
    )
    result = to_anthropic(doc)
    assert as_json(result.value)["messages"][0]["content"] == [{"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": png}}]
    assert result.diagnostics == []


def _kept_request(members: dict[str, Any]) -> bytes:
    """A hand-written Lux request of two text blocks (none in the corpus keeps Anthropic members)."""
    doc: dict[str, Any] = {
        "schema_version": "v1", "model": "m", "options": {"max_output_tokens": 10, "stream": False},
        "conversation": [{"type": "message", "message": {"role": "user", "content": [{"type": "text", "text": "hi"}, {"type": "text", "text": "there"}]}}],
    }
    if members:
        doc["extra"] = {"anthropic": {"members": members}}
    return json.dumps(doc).encode()


def test_a_block_with_kept_members_is_still_checked_member_by_member() -> None:
    """Blocks are converted without the unkept-member walk only once the side-car is known to
    keep nothing (anthropic transforms._written); a kept member still goes through the check."""
    at = "$.conversation[0].message.content[0]"
    bad = lucent.convert(_kept_request({at: {"cache_control": {"type": "ephemeral", "bogus": 1}}}), "lux", "anthropic")
    assert [(d.field, d.status) for d in bad.diagnostics] == [(at, "Invalid")]
    assert "unknown field `bogus` at `$.cache_control`" in bad.diagnostics[0].detail
    assert lucent.encode(bad.value) == b'{"model":"m","messages":[{"content":"there","role":"user"}],"max_tokens":10}'
    good = lucent.convert(_kept_request({at: {"cache_control": {"type": "ephemeral"}}}), "lux", "anthropic")
    assert good.diagnostics == []
    assert json.loads(lucent.encode(good.value))["messages"][0]["content"][0] == {"type": "text", "text": "hi", "cache_control": {"type": "ephemeral"}}
    plain = lucent.convert(_kept_request({}), "lux", "anthropic")
    assert plain.diagnostics == [] and json.loads(lucent.encode(plain.value))["messages"][0]["content"] == [{"type": "text", "text": "hi"}, {"type": "text", "text": "there"}]
