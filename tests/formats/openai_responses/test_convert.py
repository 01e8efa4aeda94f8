"""OpenAI Responses <-> Lux: corpus round trips, the quirks of issue 5 section 4, and validity of
Lux -> Responses on other formats' documents and on generated Lux documents.

The corpus is lingua's recorded traffic (tests/data/lingua/snapshots/*/responses/). Every
document that decodes goes Responses -> Lux -> Responses and comes back equal, except for the
classes listed in tests/data/vendor_expected_differences/openai_responses.toml, each of which
must be reported by a diagnostic.
"""

from __future__ import annotations

import fnmatch
import json
import pathlib
import tomllib
from typing import Any

import lucent
from lucent._context import read_by
import pytest
from hypothesis import HealthCheck, given, settings
from lucent.errors import LucentError
from lucent.generated import lux_ir_v1_strategies
from lucent.generated.lucent_diagnostics_v1 import ConversionDiagnostic
from tests.paths import DATA, REPO

ROOT = DATA
SNAPSHOTS = ROOT / "lingua" / "snapshots"
FORMAT = "openai-responses"
DEFINITIONS = {"request": "CreateResponse", "response": "Response"}
FILES = {"request": ("request.json", "followup-request.json"), "response": ("response.json", "followup-response.json")}
EXPECTED = tomllib.loads((ROOT / "vendor_expected_differences" / "openai_responses.toml").read_text(encoding="utf-8")).get("difference", [])
CONTEXT = {"created_at": 1_700_000_000, "model": "gpt-5-nano", "id": "resp_test"}


def _corpus(kind: str) -> list[pathlib.Path]:
    return sorted(p for name in FILES[kind] for p in SNAPSHOTS.glob(f"*/responses/{name}"))


def _decodes(raw: bytes, kind: str) -> bool:
    try:
        lucent.decode(raw, FORMAT, DEFINITIONS[kind])
    except LucentError:
        return False
    return True


def _snapshot(case: str, name: str) -> bytes:
    return (SNAPSHOTS / case / "responses" / name).read_bytes()


def _to_lux(raw: bytes, kind: str) -> tuple[dict[str, Any], list[ConversionDiagnostic]]:
    result = lucent.convert(raw, source=FORMAT, target="lux", kind=kind)
    return json.loads(lucent.encode(result.value)), list(result.diagnostics)


def _from_lux(lux: Any, kind: str, context: dict[str, Any] | None = None) -> tuple[dict[str, Any], list[ConversionDiagnostic]]:
    text = lux if isinstance(lux, (bytes, str)) else json.dumps(lux)
    result = lucent.convert(text, source="lux", target=FORMAT, kind=kind, context=context)
    return json.loads(lucent.encode(result.value)), list(result.diagnostics)


def _differences(a: Any, b: Any, path: str = "$") -> list[str]:
    """The JSON paths where two JSON values differ (the shallowest member or item)."""
    if isinstance(a, dict) and isinstance(b, dict):
        out = []
        for key in list(a) + [k for k in b if k not in a]:
            if key not in a or key not in b:
                out.append(f"{path}.{key}")
            else:
                out.extend(_differences(a[key], b[key], f"{path}.{key}"))
        return out
    if isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
        return [d for i, (x, y) in enumerate(zip(a, b)) for d in _differences(x, y, f"{path}[{i}]")]
    if a == b and type(a) is type(b) or (isinstance(a, (int, float)) and isinstance(b, (int, float)) and not isinstance(a, bool) and not isinstance(b, bool) and a == b):
        return []
    return [path]


def _explained(path: str, diagnostics: list[ConversionDiagnostic], entries: list[dict[str, Any]] | None = None) -> str | None:
    """The reason of the listed class (of `entries`, default the list) that explains the
    difference at `path`, with a diagnostic at that path (or an ancestor) of the listed status
    and detail; None when none does."""
    for entry in EXPECTED if entries is None else entries:
        if not fnmatch.fnmatchcase(path, entry["pattern"]):
            continue
        for d in diagnostics:
            covers = path == d.field or path.startswith((d.field + ".", d.field + "["))
            if covers and d.status == entry["status"] and entry["detail"] in d.detail:
                return str(entry["reason"])
    return None


def round_trip_report(kind: str) -> dict[str, list[str]]:
    """Every corpus document of `kind`, sorted into exact / listed / failing / undecodable."""
    report: dict[str, list[str]] = {"exact": [], "listed": [], "failing": [], "undecodable": []}
    for path in _corpus(kind):
        name = f"{path.parent.parent.name}/{path.name}"
        raw = path.read_bytes()
        if not _decodes(raw, kind):
            report["undecodable"].append(name)
            continue
        lux, first = _to_lux(raw, kind)
        back, second = _from_lux(lux, kind)
        diffs = _differences(json.loads(raw), back)
        invalid = [d for d in second if d.status == "Invalid"]
        if not diffs and not invalid:
            report["exact"].append(name)
        elif not invalid and all(_explained(d, first + second) for d in diffs):
            report["listed"].append(name)
        else:
            report["failing"].append(f"{name}: {diffs[:3]} {invalid[:2]}")
    return report


# ------------------------------------------------------------------------------ corpus round trip


@pytest.mark.parametrize("kind", ["request", "response"])
def test_every_decodable_corpus_document_round_trips_exactly_or_with_a_listed_reported_difference(kind: str) -> None:
    report = round_trip_report(kind)
    assert report["failing"] == []
    decodable = len(report["exact"]) + len(report["listed"])
    assert decodable + len(report["undecodable"]) == len(_corpus(kind))
    # every one comes back equal, with the members the schema does not define (billing,
    # tool_usage, ...: kept in the Lux side-car, lucent._unknown)
    assert report["listed"] == [] and len(report["exact"]) == decodable > 80


def test_the_expected_difference_list_is_shorter_than_linguas() -> None:
    lingua = json.loads((REPO.parent / "shared" / "corpus" / "lingua" / "responses_expected_differences.json").read_text(encoding="utf-8")) if (REPO.parent / "shared").is_dir() else None
    ours = len(EXPECTED)
    assert ours <= 3
    if lingua is not None:
        mentions = [e for e in lingua["global"] + lingua["perTestCase"] if "Responses" in (e.get("source"), e.get("target"))]
        assert ours < len(mentions)


def test_a_listed_difference_without_its_diagnostic_is_not_explained() -> None:
    entries = [{"pattern": "$*", "status": "Unsupported", "detail": "does not define", "reason": "unknown members"}]
    found = ConversionDiagnostic(field="$.billing", status="Unsupported", detail="a property the schema does not define (...)")
    assert _explained("$.billing.payer", [found], entries) == "unknown members"
    assert _explained("$.billing", [ConversionDiagnostic(field="$.billing", status="Degraded", detail="other")], entries) is None
    assert _explained("$.model", [], entries) is None


# ------------------------------------------------------------------------------------- requests


def test_a_string_input_is_one_user_message_and_comes_back_a_string() -> None:
    raw = json.dumps({"model": "gpt-5-nano", "input": "Hello"}).encode()
    lux, diagnostics = _to_lux(raw, "request")
    assert lux["conversation"] == [{"type": "message", "message": {"role": "user", "content": [{"type": "text", "text": "Hello"}]}}]
    assert lux["options"] == {"stream": False}
    assert lux["extra"]["openai_responses"] == {"input_string": True, "stream_absent": True}
    assert diagnostics == []
    assert _from_lux(lux, "request")[0] == {"model": "gpt-5-nano", "input": "Hello"}


def test_reasoning_items_keep_summary_signature_and_id() -> None:
    raw = _snapshot("complexReasoningRequest", "followup-request.json")
    lux, _ = _to_lux(raw, "request")
    item = lux["conversation"][1]
    assert item["type"] == "reasoning"
    assert item["reasoning"]["redacted"] is False and item["reasoning"]["text"] == ""
    assert len(item["reasoning"]["summary"]) == 11
    assert item["reasoning"]["summary"][0]["text"].startswith("**Parsing the digit frequency problem**")
    assert lux["extra"]["openai_responses"]["members"]["$.conversation[1].reasoning"] == {"type": "reasoning", "id": "rs_68d093dca7ec8193ae01a0216fabfb2d0f56c094dfa3568c"}
    assert lux["reasoning"] == {"enabled": True, "effort": "high", "summary": "detailed"}
    assert _from_lux(lux, "request")[0] == json.loads(raw)


def test_encrypted_reasoning_content_is_the_lux_signature() -> None:
    raw = _snapshot("responsesCustomToolCallStreamingParam", "followup-request.json")
    source = json.loads(raw)
    lux, _ = _to_lux(raw, "request")
    assert lux["conversation"][1]["reasoning"]["signature"] == source["input"][1]["encrypted_content"]
    # content: [] is not one reasoning_text part: kept as it is
    assert lux["extra"]["openai_responses"]["members"]["$.conversation[1].reasoning"]["content"] == []


def test_foreign_reasoning_without_a_responses_id_is_reported_not_replayed() -> None:
    lux = {
        "schema_version": "v1", "model": "m", "options": {"stream": False},
        "conversation": [{"type": "reasoning", "reasoning": {"text": "hmm", "signature": "EqQBCkgIARABGAIiQ", "redacted": False}}],
    }
    out, diagnostics = _from_lux(lux, "request")
    assert out["input"] == []
    assert [(d.field, d.status) for d in diagnostics] == [("$.conversation[0].reasoning", "Unsupported")]


def test_forced_tool_choice_is_a_specific_tool_both_ways() -> None:
    raw = _snapshot("toolChoiceRequiredParam", "request.json")
    lux, _ = _to_lux(raw, "request")
    assert lux["tool_choice"] == {"type": "specific_tool", "name": "get_weather"}
    assert lux["tools"][0]["name"] == "get_weather" and lux["tools"][0]["strict"] is True
    back, _ = _from_lux(lux, "request")
    assert back["tool_choice"] == {"type": "function", "name": "get_weather"}
    assert back["tools"] == json.loads(raw)["tools"]


def test_allowed_tools_choice_and_built_in_tools_are_kept_verbatim_and_reported() -> None:
    raw = json.dumps({
        "model": "gpt-5", "input": "hi",
        "tools": [{"type": "web_search_preview"}, {"type": "function", "name": "f", "parameters": None, "strict": False}],
        "tool_choice": {"type": "allowed_tools", "mode": "auto", "tools": [{"type": "function", "name": "f"}]},
    }).encode()
    lux, diagnostics = _to_lux(raw, "request")
    assert lux["tools"] == [{"name": "f", "parameters": None, "strict": False}]
    assert lux["extra"]["openai_responses"]["tools"] == [{"index": 0, "value": {"type": "web_search_preview"}}]
    assert "tool_choice" not in lux
    assert {(d.field, d.status) for d in diagnostics} == {("$.tools[0]", "Degraded"), ("$.tool_choice", "Degraded")}
    assert _from_lux(lux, "request")[0] == json.loads(raw)


def test_json_schema_strict_is_structured_output_with_name_and_strict_kept() -> None:
    raw = _snapshot("textFormatJsonSchemaParam", "request.json")
    source = json.loads(raw)
    lux, _ = _to_lux(raw, "request")
    assert lux["options"]["structured_output"] == {"type": "json_schema", "schema": source["text"]["format"]["schema"]}
    assert lux["extra"]["openai_responses"]["text"] == {"format": {"name": source["text"]["format"]["name"], "strict": True}}
    assert _from_lux(lux, "request")[0] == source


def test_a_json_schema_from_another_format_gets_a_name() -> None:
    lux = {"schema_version": "v1", "model": "m", "conversation": [], "options": {"stream": False, "structured_output": {"type": "json_schema", "schema": {"type": "object"}}}}
    out, diagnostics = _from_lux(lux, "request")
    assert out["text"] == {"format": {"type": "json_schema", "name": "response", "schema": {"type": "object"}}}
    assert ("$.options.structured_output", "Degraded") in [(d.field, d.status) for d in diagnostics]


@pytest.mark.parametrize(("effort", "lux_effort", "reported"), [("minimal", "low", True), ("xhigh", "high", True), ("max", "high", True), ("low", "low", False)])
def test_reasoning_efforts_lux_lacks_are_written_nearest_and_kept(effort: str, lux_effort: str, reported: bool) -> None:
    raw = json.dumps({"model": "gpt-5", "input": "hi", "reasoning": {"effort": effort}}).encode()
    lux, diagnostics = _to_lux(raw, "request")
    assert lux["reasoning"] == {"enabled": True, "effort": lux_effort}
    assert (("$.reasoning.effort", "Degraded") in [(d.field, d.status) for d in diagnostics]) is reported
    assert _from_lux(lux, "request")[0] == json.loads(raw)


def test_effort_none_is_reasoning_disabled() -> None:
    raw = _snapshot("reasoningEffortNoneParam", "request.json")
    lux, _ = _to_lux(raw, "request")
    assert lux["reasoning"] == {"enabled": False}
    assert _from_lux(lux, "request")[0]["reasoning"] == {"effort": "none"}


def test_system_and_developer_messages_keep_their_role_and_position() -> None:
    raw = json.dumps({"model": "gpt-5", "instructions": "Be brief.", "input": [
        {"role": "developer", "content": "Answer in French."},
        {"role": "user", "content": [{"type": "input_text", "text": "Hi"}]},
        {"role": "system", "content": "Mid-conversation rule."},
    ]}).encode()
    lux, diagnostics = _to_lux(raw, "request")
    assert lux["instructions"] == [{"type": "text", "text": "Be brief."}]
    assert [item["message"]["role"] for item in lux["conversation"]] == ["developer", "user", "system"]
    assert diagnostics == []
    assert _from_lux(lux, "request")[0] == json.loads(raw)


def test_instructions_from_the_corpus_are_the_lux_instructions() -> None:
    raw = _snapshot("systemMessageArrayContent", "request.json")
    lux, _ = _to_lux(raw, "request")
    assert lux["instructions"] == [{"type": "text", "text": "You are a helpful data analyst. The default data source is project_logs with id abc-123."}]
    assert [item["message"]["role"] for item in lux["conversation"]] == ["user"]
    assert _from_lux(lux, "request")[0] == json.loads(raw)


def test_image_url_data_url_and_file_id() -> None:
    data = "iVBORw0KGgo="
    raw = json.dumps({"model": "gpt-5", "input": [{"role": "user", "content": [
        {"type": "input_image", "detail": "auto", "image_url": "https://example.com/cat.jpg"},
        {"type": "input_image", "detail": "high", "image_url": f"data:image/png;base64,{data}"},
        {"type": "input_image", "detail": "low", "file_id": "file-abc"},
        {"type": "input_file", "file_url": "https://example.com/a.pdf"},
    ]}]}).encode()
    lux, diagnostics = _to_lux(raw, "request")
    content = lux["conversation"][0]["message"]["content"]
    assert [c["image"] for c in content] == [
        {"media_type": "image/jpeg", "source": "url"},
        {"media_type": "image/png", "source": "inline"},
        {"media_type": "application/octet-stream", "source": "file_uri"},
    ]
    assert lux["extra"]["media"] == {
        "$.conversation[0].message.content[0].image": {"url": "https://example.com/cat.jpg"},
        "$.conversation[0].message.content[1].image": {"data": data},
        "$.conversation[0].message.content[2].image": {"file_uri": "file-abc"},
    }
    # the file part has no Lux block: kept at its index, reported
    assert [(d.field, d.status) for d in diagnostics] == [("$.input[0].content[3]", "Degraded")]
    assert _from_lux(lux, "request")[0] == json.loads(raw)


def test_an_inline_image_from_another_format_is_a_data_url() -> None:
    lux = {
        "schema_version": "v1", "model": "m", "options": {"stream": False},
        "conversation": [{"type": "message", "message": {"role": "user", "content": [{"type": "image", "image": {"media_type": "image/jpeg", "source": "inline"}}]}}],
        "extra": {"media": {"$.conversation[0].message.content[0].image": {"data": "/9j/4AAQ"}}},
    }
    out, diagnostics = _from_lux(lux, "request")
    assert out["input"] == [{"role": "user", "content": [{"type": "input_image", "image_url": "data:image/jpeg;base64,/9j/4AAQ", "detail": "auto"}]}]
    assert diagnostics == []


def test_audio_has_no_responses_input_part() -> None:
    lux = {
        "schema_version": "v1", "model": "m", "options": {"stream": False},
        "conversation": [{"type": "message", "message": {"role": "user", "content": [{"type": "audio", "audio": {"media_type": "audio/wav", "source": "inline"}}]}}],
        "extra": {"media": {"$.conversation[0].message.content[0].audio": {"data": "UklGRg=="}}},
    }
    out, diagnostics = _from_lux(lux, "request")
    assert out["input"] == [{"role": "user", "content": []}]
    fields = {(d.field, d.status) for d in diagnostics}
    assert ("$.conversation[0].message.content[0]", "Unsupported") in fields
    # its bytes are named too (no value read them)
    assert ('$.extra.media["$.conversation[0].message.content[0].audio"].data', "Unsupported") in fields


def test_function_calls_and_outputs_are_tool_items_and_empty_arguments_stay_as_they_are() -> None:
    raw = json.dumps({"model": "gpt-5", "input": [
        {"role": "user", "content": "weather?"},
        {"type": "function_call", "call_id": "call_1", "name": "get_weather", "arguments": "", "status": "completed"},
        {"type": "function_call", "call_id": "call_2", "name": "get_time", "arguments": "{}"},
        {"type": "function_call_output", "call_id": "call_1", "output": "Sunny"},
        {"type": "function_call_output", "call_id": "call_2", "output": "12:00"},
    ]}).encode()
    lux, diagnostics = _to_lux(raw, "request")
    assert [i["type"] for i in lux["conversation"]] == ["message", "tool_call", "tool_call", "tool_result", "tool_result"]
    assert lux["conversation"][1]["tool_call"] == {"id": "call_1", "name": "get_weather", "arguments": ""}
    assert lux["conversation"][2]["tool_call"]["arguments"] == "{}"
    assert lux["conversation"][3]["tool_result"] == {"tool_use_id": "call_1", "content": [{"type": "text", "text": "Sunny"}], "is_error": False}
    assert diagnostics == []
    assert _from_lux(lux, "request")[0] == json.loads(raw)


def test_tool_use_blocks_of_another_format_become_function_call_items_after_the_message() -> None:
    lux = {
        "schema_version": "v1", "model": "m", "options": {"stream": True},
        "conversation": [
            {"type": "message", "message": {"role": "assistant", "content": [
                {"type": "text", "text": "Checking."},
                {"type": "tool_use", "tool_use": {"id": "toolu_1", "name": "f", "arguments": "{\"a\":1}"}},
            ]}},
            {"type": "message", "message": {"role": "user", "content": [
                {"type": "tool_result", "tool_result": {"tool_use_id": "toolu_1", "content": [{"type": "text", "text": "ok"}], "is_error": True}},
            ]}},
        ],
    }
    out, diagnostics = _from_lux(lux, "request")
    assert out["input"] == [
        {"role": "assistant", "content": "Checking."},
        {"type": "function_call", "call_id": "toolu_1", "name": "f", "arguments": "{\"a\":1}"},
        {"type": "function_call_output", "call_id": "toolu_1", "output": "ok"},
    ]
    assert out["stream"] is True
    assert {(d.field, d.status) for d in diagnostics} == {
        ("$.conversation[0].message.content[1]", "Degraded"),
        ("$.conversation[1].message.content[0]", "Degraded"),
        ("$.conversation[1].message.content[0].tool_result.is_error", "Degraded"),
        ("$.conversation[1].message.role", "Degraded"),  # a message of tool results only: its role is not kept
    }


def test_built_in_tool_calls_travel_as_agent_actions() -> None:
    raw = _snapshot("webSearchToolParam", "followup-request.json")
    source = json.loads(raw)
    lux, diagnostics = _to_lux(raw, "request")
    actions = [i["agent_action"] for i in lux["conversation"] if i["type"] == "agent_action"]
    calls = [i for i in source["input"] if i.get("type") == "web_search_call"]
    assert [a["kind"] for a in actions] == ["web_search_call"] * len(calls)
    assert [a["provider_payload"] for a in actions] == calls
    assert all(d.status == "Degraded" for d in diagnostics if d.field.startswith("$.input"))
    assert _from_lux(lux, "request")[0] == source


def test_out_of_range_options_from_lux_are_left_out_and_reported() -> None:
    lux = {"schema_version": "v1", "model": "m", "conversation": [], "options": {"stream": False, "temperature": 3, "top_p": 1.5, "max_output_tokens": 8, "top_k": 5}}
    out, diagnostics = _from_lux(lux, "request")
    assert "temperature" not in out and "top_p" not in out and "max_output_tokens" not in out
    assert {(d.field, d.status) for d in diagnostics} >= {
        ("$.options.temperature", "Unsupported"), ("$.options.top_p", "Unsupported"),
        ("$.options.max_output_tokens", "Unsupported"), ("$.options.top_k", "Unsupported"),
    }
    assert not [d for d in diagnostics if d.status == "Invalid"]


# ------------------------------------------------------------------------------------ responses


def _response(**members: Any) -> dict[str, Any]:
    base: dict[str, Any] = {
        "id": "resp_1", "object": "response", "created_at": 1758499804, "status": "completed", "error": None,
        "incomplete_details": None, "instructions": None, "model": "gpt-5-nano", "output": [], "parallel_tool_calls": True,
        "metadata": {}, "tool_choice": "auto", "tools": [], "temperature": 1.0, "top_p": 1.0,
        "usage": {"input_tokens": 5000, "input_tokens_details": {"cached_tokens": 4096}, "output_tokens": 300,
                  "output_tokens_details": {"reasoning_tokens": 256}, "total_tokens": 5300},
    }
    base.update(members)
    return base


def test_cached_tokens_stay_inside_prompt_tokens() -> None:
    lux, _ = _to_lux(json.dumps(_response()).encode(), "response")
    assert lux["usage"] == {"prompt_tokens": 5000, "completion_tokens": 300, "total_tokens": 5300, "reasoning_tokens": 256, "cached_tokens": 4096}
    back, _ = _from_lux(lux, "response")
    assert back["usage"] == _response()["usage"]


def test_a_null_usage_is_no_lux_usage_and_comes_back_null() -> None:
    lux, _ = _to_lux(json.dumps(_response(usage=None)).encode(), "response")
    assert "usage" not in lux
    assert _from_lux(lux, "response")[0]["usage"] is None


def test_anthropic_style_cache_counts_in_lux_are_written_inside_input_tokens() -> None:
    # Lux counts are inclusive: an Anthropic producer adds cache reads / writes into prompt_tokens
    lux = {"schema_version": "v1", "id": "msg_1", "model": "claude", "created_at": 1, "choices": [
        {"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": [{"type": "text", "text": "hi"}]}}],
        "usage": {"prompt_tokens": 1200, "completion_tokens": 10, "total_tokens": 1210, "cached_tokens": 1000, "cache_creation_tokens": 150}}
    out, diagnostics = _from_lux(lux, "response")
    assert out["usage"] == {"input_tokens": 1200, "input_tokens_details": {"cached_tokens": 1000, "cache_write_tokens": 150},
                            "output_tokens": 10, "output_tokens_details": {"reasoning_tokens": 0}, "total_tokens": 1210}
    assert ("$.usage", "Degraded") in [(d.field, d.status) for d in diagnostics]


def test_parallel_function_calls_are_consecutive_tool_use_blocks() -> None:
    calls = [
        {"type": "function_call", "id": f"fc_{n}", "call_id": f"call_{n}", "name": "get_weather", "arguments": json.dumps({"city": city}), "status": "completed"}
        for n, city in enumerate(["Paris", "Tokyo"])
    ]
    raw = json.dumps(_response(output=calls)).encode()
    lux, _ = _to_lux(raw, "response")
    choice = lux["choices"][0]
    assert choice["finish_reason"] == "tool_calls"
    assert [b["tool_use"]["id"] for b in choice["message"]["content"]] == ["call_0", "call_1"]
    assert _from_lux(lux, "response")[0] == json.loads(raw)


def test_max_output_tokens_is_finish_reason_length_and_back() -> None:
    raw = json.dumps(_response(status="incomplete", incomplete_details={"reason": "max_output_tokens"})).encode()
    lux, _ = _to_lux(raw, "response")
    assert lux["choices"][0]["finish_reason"] == "length"
    # the finish reason gives both back: neither is kept (a Lux -> Y conversion has nothing to report)
    assert "status" not in lux["provider_payload"]["openai_responses"]
    assert "incomplete_details" not in lux["provider_payload"]["openai_responses"]
    back, _ = _from_lux(lux, "response")
    assert back["status"] == "incomplete" and back["incomplete_details"] == {"reason": "max_output_tokens"}


def test_a_response_from_another_format_gets_generated_ids_and_defaults() -> None:
    lux = {"schema_version": "v1", "id": "msg_1", "model": "claude", "choices": [
        {"index": 0, "finish_reason": "length", "message": {"role": "assistant", "content": [
            {"type": "thinking", "thinking": {"text": "Let me think", "signature": "sig", "redacted": False}},
            {"type": "text", "text": "Hello"}]}}]}
    out, diagnostics = _from_lux(lux, "response", context={"created_at": 1_700_000_000})
    assert [i["type"] for i in out["output"]] == ["reasoning", "message"]
    # The signature is written (Degraded): a block without a Responses record may still come from
    # Responses (a Lux response assembled from a Responses stream has no side-car).
    assert out["output"][0] == {"type": "reasoning", "id": "rs_lucent_1", "summary": [], "encrypted_content": "sig", "content": [{"type": "reasoning_text", "text": "Let me think"}]}
    assert out["output"][1]["id"] == "msg_lucent_1" and out["output"][1]["content"][0]["text"] == "Hello"
    assert out["status"] == "incomplete" and out["incomplete_details"] == {"reason": "max_output_tokens"}
    assert out["tools"] == [] and out["tool_choice"] == "auto"
    fields = {(d.field, d.status) for d in diagnostics}
    assert ("$.choices[0].message.content[0].thinking.signature", "Degraded") in fields
    assert not [d for d in diagnostics if d.status == "Invalid"]


# ------------------------------------------------------------------------ quirks on the corpus


def test_corpus_image_url_is_a_url_image_with_its_detail_auto_written_back() -> None:
    raw = _snapshot("multimodalRequest", "request.json")
    lux, diagnostics = _to_lux(raw, "request")
    content = lux["conversation"][0]["message"]["content"]
    assert content[1] == {"type": "image", "image": {"media_type": "image/jpeg", "source": "url"}}
    assert lux["extra"]["media"]["$.conversation[0].message.content[1].image"] == {"url": json.loads(raw)["input"][0]["content"][1]["image_url"]}
    # detail "auto" is what the way back writes: not kept, so another format has nothing to report
    assert "$.conversation[0].message.content[1]" not in lux["extra"].get("openai_responses", {}).get("members", {})
    assert diagnostics == []
    assert _from_lux(lux, "request")[0] == json.loads(raw)


def test_corpus_input_file_is_kept_at_its_index_and_reported() -> None:
    raw = _snapshot("responsesInputFileUrlParam", "request.json")
    lux, diagnostics = _to_lux(raw, "request")
    assert lux["conversation"][0]["message"]["content"] == [{"type": "text", "text": "Analyze the letter and summarize the key points."}]
    assert lux["extra"]["openai_responses"]["members"]["$.conversation[0].message"]["content_parts"] == [
        {"index": 1, "value": {"type": "input_file", "file_url": "https://www.berkshirehathaway.com/letters/2024ltr.pdf"}}]
    assert [(d.field, d.status) for d in diagnostics] == [("$.input[0].content[1]", "Degraded")]
    assert _from_lux(lux, "request")[0] == json.loads(raw)


def test_corpus_reasoning_items_without_an_id_replay_with_their_encrypted_content() -> None:
    raw = _snapshot("openAIMultipleReasoningSignaturesReplayParam", "request.json")
    source = json.loads(raw)
    lux, _ = _to_lux(raw, "request")
    reasoning = [(n, i) for n, i in enumerate(lux["conversation"]) if i["type"] == "reasoning"]
    assert len(reasoning) == sum(1 for i in source["input"] if i.get("type") == "reasoning") > 1
    for n, item in reasoning:
        assert item["reasoning"]["signature"] == source["input"][n]["encrypted_content"]
    assert _from_lux(lux, "request")[0] == source


def test_corpus_cached_tokens_are_inside_prompt_tokens() -> None:
    lux, _ = _to_lux(_snapshot("responsesInputFileUrlParam", "response.json"), "response")
    assert lux["usage"] == {"prompt_tokens": 8635, "completion_tokens": 3726, "total_tokens": 12361, "reasoning_tokens": 1984, "cached_tokens": 8576}


def test_corpus_truncated_response_is_finish_reason_length() -> None:
    raw = _snapshot("reasoningRequestTruncated", "response.json")
    lux, _ = _to_lux(raw, "response")
    assert lux["choices"][0]["finish_reason"] == "length"
    assert [b["type"] for b in lux["choices"][0]["message"]["content"]] == ["thinking"]
    back, _ = _from_lux(lux, "response")
    assert (back["status"], back["incomplete_details"]) == ("incomplete", {"reason": "max_output_tokens"})


def test_corpus_function_call_output_is_a_tool_use_block_with_finish_reason_tool_calls() -> None:
    raw = _snapshot("toolCallRequest", "response.json")
    call = next(o for o in json.loads(raw)["output"] if o["type"] == "function_call")
    lux, _ = _to_lux(raw, "response")
    choice = lux["choices"][0]
    assert choice["finish_reason"] == "tool_calls"
    assert {"type": "tool_use", "tool_use": {"id": call["call_id"], "name": call["name"], "arguments": call["arguments"]}} in choice["message"]["content"]


def test_corpus_built_in_output_items_are_kept_verbatim() -> None:
    raw = _snapshot("webSearchToolParam", "response.json")
    source = json.loads(raw)
    lux, diagnostics = _to_lux(raw, "response")
    searches = [o for o in source["output"] if o["type"] == "web_search_call"]
    assert searches
    kept = [r["verbatim"] for r in lux["provider_payload"]["openai_responses"]["output"] if "verbatim" in r]
    assert kept == searches
    assert sum(1 for d in diagnostics if d.status == "Degraded" and d.field.startswith("$.output[") and "web_search_call" in d.detail) == len(searches)
    back, _ = _from_lux(lux, "response")
    assert back["output"] == source["output"]


def test_corpus_url_citations_are_lux_url_annotations_on_the_cited_span() -> None:
    raw = _snapshot("webSearchToolParam", "response.json")
    message = next(o for o in json.loads(raw)["output"] if o["type"] == "message")
    part = message["content"][0]
    citation = part["annotations"][0]
    lux, _ = _to_lux(raw, "response")
    text = next(b for b in lux["choices"][0]["message"]["content"] if b["type"] == "text" and "annotations" in b)
    first = text["annotations"][0]
    assert first == {"kind": "url", "ref": citation["url"], "start": citation["start_index"], "end": citation["end_index"],
                     "text": part["text"][citation["start_index"]:citation["end_index"]]}
    assert len(text["annotations"]) == len(part["annotations"])


def test_lux_url_annotations_become_url_citations_without_a_title() -> None:
    lux = {"schema_version": "v1", "id": "r", "model": "m", "created_at": 1, "choices": [{"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": [
        {"type": "text", "text": "See example.", "annotations": [{"kind": "url", "ref": "https://example.com", "start": 4, "end": 11}, {"kind": "file_citation"}]}]}}]}
    out, diagnostics = _from_lux(lux, "response")
    assert out["output"][0]["content"][0]["annotations"] == [{"type": "url_citation", "url": "https://example.com", "start_index": 4, "end_index": 11, "title": ""}]
    fields = [(d.field, d.status) for d in diagnostics]
    assert ("$.choices[0].message.content[0].annotations[0]", "Degraded") in fields
    assert ("$.choices[0].message.content[0].annotations[1]", "Unsupported") in fields


# ------------------------------------------------------------- validity of Lux -> Responses output


def _seed_documents() -> list[tuple[str, str, bytes]]:
    """Real documents of the seed formats (the examples and the test cases' convert inputs)."""
    found: list[tuple[str, str, bytes]] = [("sparktide", "request", (REPO / "examples" / "sparktide-request.json").read_bytes())]
    for path in sorted((ROOT / "cases").glob("*.json")):
        case = json.loads(path.read_text(encoding="utf-8"))
        if case.get("operation") in ("convert", "round_trip") and case.get("source") in ("sparktide", "llm-sdk", "htmlp", "lux") and case.get("kind") in ("request", "response"):
            found.append((case["source"], case["kind"], json.dumps(case["input"]).encode()))
    return found


def _invalid(diagnostics: list[ConversionDiagnostic]) -> list[ConversionDiagnostic]:
    return [d for d in diagnostics if d.status == "Invalid" and d.field.startswith("target:")]


def test_other_formats_documents_convert_to_valid_responses_documents() -> None:
    checked = 0
    for source, kind, raw in _seed_documents():
        try:
            result = lucent.convert(raw, source=source, target=FORMAT, kind=kind, context=read_by(CONTEXT, source, FORMAT, kind))
        except LucentError:
            continue  # a case input its own format refuses (a decode case)
        assert _invalid(list(result.diagnostics)) == [], (source, kind, raw[:200])
        lucent.decode(lucent.encode(result.value), FORMAT, DEFINITIONS[kind])
        checked += 1
    assert checked >= 8


OTHER_PROVIDERS = {"openai-chat": "chat-completions", "anthropic": "anthropic", "gemini": "google"}


@pytest.mark.parametrize("kind", ["request", "response"])
@pytest.mark.parametrize("source", sorted(OTHER_PROVIDERS))
def test_other_providers_corpus_converts_to_valid_responses_documents(source: str, kind: str) -> None:
    from lucent.generated.convert_registry import CONVERTERS

    if (source, "lux", kind) not in CONVERTERS:
        pytest.skip(f"no {source} -> Lux {kind} converter on this branch")
    checked = 0
    for path in sorted(p for name in FILES[kind] for p in SNAPSHOTS.glob(f"*/{OTHER_PROVIDERS[source]}/{name}")):
        try:
            result = lucent.convert(path.read_bytes(), source=source, target=FORMAT, kind=kind, context=read_by(CONTEXT, source, FORMAT, kind))
        except LucentError:
            continue  # a document its own schema refuses (tests/data/vendor_corpus_failures.toml)
        assert _invalid(list(result.diagnostics)) == [], path
        checked += 1
    assert checked >= 60


@settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck))
@given(lux_ir_v1_strategies.lucent_request())
def test_generated_lux_requests_give_valid_responses_requests(doc: Any) -> None:
    result = lucent.convert(json.dumps(doc), source="lux", target=FORMAT, kind="request")
    assert _invalid(list(result.diagnostics)) == []


@settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck))
@given(lux_ir_v1_strategies.lucent_response())
def test_generated_lux_responses_give_valid_responses_responses(doc: Any) -> None:
    result = lucent.convert(json.dumps(doc), source="lux", target=FORMAT, kind="response", context=read_by(CONTEXT, "lux", FORMAT, "response"))
    assert _invalid(list(result.diagnostics)) == []


def test_a_null_usage_is_no_usage_and_is_reported_degraded() -> None:
    doc = json.loads((SNAPSHOTS / "simpleRequest" / "responses" / "response.json").read_bytes())
    doc["usage"] = None
    result = lucent.convert(json.dumps(doc).encode(), source="openai-responses", target="lux", kind="response")
    assert "usage" not in json.loads(lucent.encode(result.value))
    assert [(d.field, d.status) for d in result.diagnostics if d.field == "$.usage"] == [("$.usage", "Degraded")]
