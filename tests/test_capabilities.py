"""lucent.capabilities: the shipped discovery document, lookup by model_pattern, preflight on every
rule (at the request's own paths, in each vendor format) and convert(..., capabilities=...)."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import jsonschema
import msgspec
import pytest

import lucent
from lucent import capabilities
from lucent.errors import ConversionError, UsageError, ValidationError
from lucent.generated.lux_ir_v1 import LucentCapabilities, LucentDiscovery, ProviderCapability, ProviderCapabilityExtraParamsValue

ROOT = Path(__file__).resolve().parents[1]
SNAPSHOTS = ROOT / "tests" / "data" / "lingua" / "snapshots"
FOLDER = {"anthropic": "anthropic", "openai-chat": "chat-completions", "gemini": "google", "openai-responses": "responses"}


def caps(**levels: Any) -> LucentCapabilities:
    """Everything full, text and image in, text out, but for ``levels``."""
    base: dict[str, Any] = {"tool_calling": "full", "parallel_tool_calls": "full", "reasoning": "full", "multimodal_input": "full",
                            "structured_output": "full", "input_modalities": ["text", "image"], "output_modalities": ["text"]}
    return LucentCapabilities(**{**base, **levels})


def recorded(case: str, fmt: str, name: str = "request.json") -> bytes:
    return (SNAPSHOTS / case / FOLDER[fmt] / name).read_bytes()


def found(diagnostics: list[Any]) -> list[tuple[str, str]]:
    return [(d.field, d.status) for d in diagnostics]


# -- the shipped document -------------------------------------------------------------------


def test_the_shipped_discovery_document_is_a_lucent_discovery_by_the_schema_itself() -> None:
    schema = json.loads((ROOT / "schemas" / "lux-ir-v1.json").read_text(encoding="utf-8"))
    validator = jsonschema.Draft202012Validator({**{k: v for k, v in schema.items() if k != "$ref"}, "$ref": "#/definitions/LucentDiscovery"})
    document = json.loads(Path(capabilities.DISCOVERY_PATH).read_text(encoding="utf-8"))
    assert list(validator.iter_errors(document)) == []
    shipped = capabilities.discovery()
    assert {p.provider for p in shipped.providers} == {"openai", "anthropic", "google"}
    assert len(shipped.providers) == len(document["providers"]) >= 40


def test_every_shipped_entry_names_its_source_in_docs_capabilities() -> None:
    table = (ROOT / "docs" / "capabilities.md").read_text(encoding="utf-8")
    rows = {match.group(1): match.group(2) for match in re.finditer(r"^\| `([^`]+)` \|.*\| <?(https://[^ |>]+)>? \|$", table, re.MULTILINE)}
    patterns = [p.model_pattern for p in capabilities.discovery().providers]
    assert sorted(rows) == sorted(patterns)


@pytest.mark.parametrize(
    ("model", "pattern", "provider"),
    [
        ("gpt-5-nano-2025-08-07", "gpt-5-nano*", "openai"),  # the recorded traffic's models
        ("gpt-4o-2024-05-13", "gpt-4o-2024-05-13", "openai"),  # an exact name beats gpt-4o-2*
        ("gpt-4o-2024-08-06", "gpt-4o-2*", "openai"),
        ("gpt-4o-audio-preview-2024-12-17", "gpt-4o-audio-preview*", "openai"),
        ("o3-mini-2025-01-31", "o3-mini*", "openai"),
        ("claude-sonnet-4-5-20250929", "claude-sonnet-4-5*", "anthropic"),
        ("claude-sonnet-4-20250514", "claude-sonnet-4-2*", "anthropic"),
        ("gemini-3-flash-preview", "gemini-3-flash-preview*", "google"),
        ("gemini-2.5-flash-lite-preview-09-2025", "gemini-2.5-flash-lite*", "google"),
        ("gemini-2.5-flash-preview-05-20", "gemini-2.5-flash-preview-[0-9]*", "google"),
    ],
)
def test_lookup_finds_the_most_specific_pattern(model: str, pattern: str, provider: str) -> None:
    found_ = capabilities.lookup(model)
    assert (found_.model_pattern, found_.provider) == (pattern, provider)


def test_the_shipped_declarations_say_what_the_vendors_document() -> None:
    assert capabilities.lookup("gpt-4o-2024-05-13").capabilities.structured_output == "none"
    assert capabilities.lookup("gpt-4o-2024-08-06").capabilities.structured_output == "full"
    assert capabilities.lookup("o3-mini").capabilities.input_modalities == ["text"]
    assert "audio" in capabilities.lookup("gpt-4o-audio-preview").capabilities.input_modalities
    assert capabilities.lookup("claude-3-5-sonnet-20241022").capabilities.reasoning == "none"
    assert capabilities.lookup("claude-3-7-sonnet-20250219").capabilities.reasoning == "full"
    assert capabilities.lookup("gemini-2.0-flash-lite").capabilities.reasoning == "none"
    assert "video" in capabilities.lookup("gemini-2.5-pro").capabilities.input_modalities
    assert "frequency_penalty" not in (capabilities.lookup("o3").extra_params or {})  # reasoning models refuse it
    assert "frequency_penalty" in (capabilities.lookup("gpt-4.1").extra_params or {})


@pytest.mark.parametrize("model", ["gpt-5-chat-latest", "gemini-2.5-flash-image", "claude-opus-5", "GPT-4o", "", "llama-3"])
def test_a_model_no_pattern_matches_is_unknown_never_a_guess(model: str) -> None:
    with pytest.raises(UsageError) as caught:
        capabilities.lookup(model)
    assert caught.value.code == "unknown_model"


def test_of_two_patterns_as_specific_the_earlier_wins() -> None:
    entry = lambda pattern, provider: {"model_pattern": pattern, "provider": provider, "capabilities": msgspec.to_builtins(caps())}
    document = capabilities.load_discovery({"schema_version": "v1", "protocol_version": "1", "schema_url": "u", "providers": [
        entry("m-*-x", "first"), entry("m-a-*", "second"), entry("m-[ab]-x", "third"), entry("*", "any")]})
    assert capabilities.lookup("m-a-x", document).provider == "first"  # 4 literal characters each: document order
    assert capabilities.lookup("m-b-x", document).provider == "first"
    assert capabilities.lookup("m-a-y", document).provider == "second"
    assert capabilities.lookup("zzz", document).provider == "any"


BAD_DISCOVERY = {
    "not-json": (b"{", "$"),
    "no-providers": ({"schema_version": "v1", "protocol_version": "1", "schema_url": "u"}, "$"),
    "wrong-version": ({"schema_version": "v2", "protocol_version": "1", "schema_url": "u", "providers": []}, "$.schema_version"),
    "unknown-level": ({"schema_version": "v1", "protocol_version": "1", "schema_url": "u", "providers": [
        {"model_pattern": "m*", "provider": "p", "capabilities": {**msgspec.to_builtins(caps()), "reasoning": "maybe"}}]},
        "$.providers[0].capabilities.reasoning"),
    "unknown-modality": ({"schema_version": "v1", "protocol_version": "1", "schema_url": "u", "providers": [
        {"model_pattern": "m*", "provider": "p", "capabilities": {**msgspec.to_builtins(caps()), "input_modalities": ["smell"]}}]},
        "$.providers[0].capabilities.input_modalities[0]"),
    "duplicate-pattern": ({"schema_version": "v1", "protocol_version": "1", "schema_url": "u", "providers": [
        {"model_pattern": "m*", "provider": "p", "capabilities": msgspec.to_builtins(caps())},
        {"model_pattern": "m*", "provider": "q", "capabilities": msgspec.to_builtins(caps())}]}, "$.providers[1].model_pattern"),
    "empty-pattern": ({"schema_version": "v1", "protocol_version": "1", "schema_url": "u", "providers": [
        {"model_pattern": "", "provider": "p", "capabilities": msgspec.to_builtins(caps())}]}, "$.providers[0].model_pattern"),
}


@pytest.mark.parametrize("bad", list(BAD_DISCOVERY))
def test_a_discovery_document_that_breaks_lucent_discovery_is_invalid_discovery(bad: str) -> None:
    before = msgspec.json.encode(capabilities.discovery())
    document, path = BAD_DISCOVERY[bad]
    with pytest.raises(ValidationError) as caught:
        capabilities.load_discovery(document)
    assert (caught.value.code, caught.value.path) == ("invalid_discovery", path)
    assert msgspec.json.encode(capabilities.discovery()) == before  # the shipped one is untouched


def test_a_user_document_round_trips_and_is_looked_up() -> None:
    mine = capabilities.load_discovery(Path(capabilities.DISCOVERY_PATH).read_bytes().replace(b'"gpt-4.1*"', b'"my-gpt-4.1*"'))
    assert capabilities.lookup("my-gpt-4.1-mini", mine).provider == "openai"
    with pytest.raises(UsageError):
        capabilities.lookup("gpt-4.1-mini", mine)
    assert isinstance(capabilities.load_discovery(mine), LucentDiscovery)


# -- preflight, rule by rule ----------------------------------------------------------------


@pytest.mark.parametrize(
    ("case", "fmt", "path"),
    [
        ("imageContentParam", "anthropic", "$.messages[0].content[0]"),
        ("multimodalRequest", "openai-chat", "$.messages[0].content[1]"),
        ("multimodalRequest", "openai-responses", "$.input[0].content[1]"),
        ("multimodalRequest", "gemini", "$.contents[0].parts[1]"),
    ],
)
def test_an_image_to_a_model_without_image_input_is_unsupported_at_its_path(case: str, fmt: str, path: str) -> None:
    document = recorded(case, fmt)
    assert found(capabilities.preflight(document, fmt, caps(input_modalities=["text"]))) == [(path, "Unsupported")]
    assert found(capabilities.preflight(document, fmt, caps(multimodal_input="partial"))) == [(path, "Degraded")]
    assert found(capabilities.preflight(document, fmt, caps(multimodal_input="none"))) == [(path, "Unsupported")]
    assert capabilities.preflight(document, fmt, caps()) == []


def test_audio_and_video_need_their_modalities() -> None:
    audio = recorded("chatCompletionsUrlBackedAudioFileParam", "openai-chat")
    video = recorded("chatCompletionsUrlBackedVideoFileParam", "openai-chat")
    [audio_at] = [d.field for d in capabilities.preflight(audio, "openai-chat", caps())]
    [video_at] = [d.field for d in capabilities.preflight(video, "openai-chat", caps())]
    assert audio_at.startswith("$.messages[0].content[") and video_at.startswith("$.messages[0].content[")
    assert capabilities.preflight(audio, "openai-chat", caps(input_modalities=["text", "audio"])) == []
    gemini = {"contents": [{"role": "user", "parts": [{"text": "hi"}, {"fileData": {"mimeType": "video/mp4", "fileUri": "gs://b/v.mp4"}},
                                                      {"inlineData": {"mimeType": "audio/wav", "data": "AAAA"}}]}]}
    assert found(capabilities.preflight(gemini, "gemini", caps(input_modalities=["text", "audio"]))) == [("$.contents[0].parts[1]", "Unsupported")]


@pytest.mark.parametrize(
    ("document", "fmt", "path"),
    [
        ({"model": "m", "max_tokens": 5, "messages": [{"role": "user", "content": [
            {"type": "document", "source": {"type": "base64", "media_type": "application/pdf", "data": "AAAA"}}, {"type": "text", "text": "x"}]}]},
         "anthropic", "$.messages[0].content[0]"),
        ({"model": "m", "input": [{"role": "user", "content": [{"type": "input_text", "text": "x"},
                                                               {"type": "input_file", "file_url": "https://example.com/a.pdf"}]}]},
         "openai-responses", "$.input[0].content[1]"),
        ({"model": "m", "messages": [{"role": "user", "content": [{"type": "file", "file": {"file_data": "data:application/pdf;base64,AAAA", "filename": "a.pdf"}}]}]},
         "openai-chat", "$.messages[0].content[0]"),
        ({"contents": [{"role": "user", "parts": [{"text": "x"}, {"inlineData": {"mimeType": "application/pdf", "data": "AAAA"}}]}]}, "gemini", "$.contents[0].parts[1]"),
    ],
    ids=["anthropic-document", "responses-input-file", "chat-file", "gemini-inline-pdf"],
)
def test_a_pdf_to_a_model_without_pdf_input_is_unsupported(document: dict[str, Any], fmt: str, path: str) -> None:
    assert found(capabilities.preflight(document, fmt, caps())) == [(path, "Unsupported")]
    assert capabilities.preflight(document, fmt, caps(input_modalities=["text", "pdf"])) == []


def test_a_text_document_needs_text_only() -> None:
    document = recorded("documentContentParam", "anthropic")  # a text/plain document block
    assert capabilities.preflight(document, "anthropic", caps(input_modalities=["text"])) == []
    assert found(capabilities.preflight(document, "anthropic", caps(multimodal_input="none"))) == [("$.messages[0].content[0]", "Unsupported")]


@pytest.mark.parametrize("fmt", ["anthropic", "openai-chat", "openai-responses", "gemini"])
def test_tools_to_a_model_without_tool_calling_are_reported_each(fmt: str) -> None:
    document = recorded("toolCallRequest", fmt)
    unsupported = capabilities.preflight(document, fmt, caps(tool_calling="none"))
    assert [d.status for d in unsupported] == ["Unsupported"] and unsupported[0].field.startswith("$.tools[0]")
    assert [d.status for d in capabilities.preflight(document, fmt, caps(tool_calling="partial"))] == ["Degraded"]
    assert capabilities.preflight(document, fmt, caps()) == []


def test_a_built_in_tool_kept_verbatim_is_a_tool_too() -> None:
    document = recorded("webSearchToolParam", "openai-responses")
    assert found(capabilities.preflight(document, "openai-responses", caps(tool_calling="none"))) == [("$.tools[0]", "Unsupported")]


@pytest.mark.parametrize(
    ("fmt", "second"),
    [("openai-chat", "$.messages[1].tool_calls[1]"), ("anthropic", "$.messages[1].content[1]"),
     ("gemini", "$.contents[1].parts[1]"), ("openai-responses", "$.input[2]")],
)
def test_several_tool_calls_in_a_turn_need_parallel_tool_calls(fmt: str, second: str) -> None:
    document = recorded("parallelToolCallsRequest", fmt)
    assert found(capabilities.preflight(document, fmt, caps(parallel_tool_calls="none"))) == [(second, "Unsupported")]
    assert capabilities.preflight(document, fmt, caps()) == []


def test_calls_of_separate_turns_are_not_parallel() -> None:
    lux = {"schema_version": "v1", "model": "m", "options": {"stream": False}, "conversation": [
        {"type": "tool_call", "tool_call": {"id": "a", "name": "f", "arguments": "{}"}},
        {"type": "tool_result", "tool_result": {"tool_use_id": "a", "content": [], "is_error": False}},
        {"type": "tool_call", "tool_call": {"id": "b", "name": "f", "arguments": "{}"}},
        {"type": "tool_call", "tool_call": {"id": "c", "name": "f", "arguments": "{}"}}]}
    assert found(capabilities.preflight(lux, "lux", caps(parallel_tool_calls="none"))) == [("$.conversation[3]", "Unsupported")]


def test_asking_for_parallel_tool_calls_needs_them() -> None:
    document = {"model": "m", "messages": [{"role": "user", "content": "x"}], "parallel_tool_calls": True}
    assert found(capabilities.preflight(document, "openai-chat", caps(parallel_tool_calls="none"))) == [("$.parallel_tool_calls", "Unsupported")]
    assert capabilities.preflight({**document, "parallel_tool_calls": False}, "openai-chat", caps(parallel_tool_calls="none")) == []


@pytest.mark.parametrize(
    ("case", "fmt", "path"),
    [("reasoningEffortLowParam", "openai-responses", "$.reasoning"), ("reasoningEffortLowParam", "openai-chat", "$.reasoning_effort"),
     ("reasoningEffortLowParam", "gemini", "$.generationConfig.thinkingConfig"), ("reasoningEffortLowParam", "anthropic", "$.output_config.effort")],
)
def test_a_reasoning_configuration_needs_reasoning(case: str, fmt: str, path: str) -> None:
    document = recorded(case, fmt)
    assert found(capabilities.preflight(document, fmt, caps(reasoning="none"))) == [(path, "Unsupported")]
    assert found(capabilities.preflight(document, fmt, caps(reasoning="partial"))) == [(path, "Degraded")]


def test_reasoning_turned_off_needs_nothing() -> None:
    document = recorded("reasoningEffortNoneParam", "openai-responses")
    assert capabilities.preflight(document, "openai-responses", caps(reasoning="none")) == []


@pytest.mark.parametrize(("fmt", "path"), [("openai-chat", "$.response_format"), ("openai-responses", "$.text.format"),
                                           ("anthropic", "$.output_config.format"), ("gemini", "$.generationConfig")])
def test_a_json_schema_response_format_needs_structured_output(fmt: str, path: str) -> None:
    document = recorded("jsonSchemaFormatParam", fmt)
    assert found(capabilities.preflight(document, fmt, caps(structured_output="none"))) == [(path, "Unsupported")]
    assert capabilities.preflight(recorded("textFormatJsonObjectParam", "openai-responses"), "openai-responses", caps(structured_output="none")) == []


def test_the_request_s_own_capabilities_are_checked_against_the_model_s() -> None:
    lux = {"schema_version": "v1", "model": "m", "options": {"stream": False}, "conversation": [],
           "capabilities": {"tool_calling": "full", "parallel_tool_calls": "partial", "reasoning": "none", "multimodal_input": "full",
                            "structured_output": "full", "input_modalities": ["text", "audio"], "output_modalities": ["text", "image"]}}
    model = caps(tool_calling="partial", parallel_tool_calls="none", structured_output="full", input_modalities=["text"])
    assert found(capabilities.preflight(lux, "lux", model)) == [
        ("$.capabilities.tool_calling", "Degraded"), ("$.capabilities.parallel_tool_calls", "Unsupported"),
        ("$.capabilities.input_modalities[1]", "Unsupported"), ("$.capabilities.output_modalities[1]", "Unsupported")]


def test_undeclared_provider_parameters_are_reported_when_the_model_declares_its_own() -> None:
    document = recorded("frequencyPenaltyParam", "openai-chat")
    declared = ProviderCapability(model_pattern="m*", provider="p", capabilities=caps(),
                                  extra_params={"store": ProviderCapabilityExtraParamsValue(type="boolean")})
    assert found(capabilities.preflight(document, "openai-chat", declared)) == [("$.frequency_penalty", "Unsupported")]
    allowed = msgspec.structs.replace(declared, extra_params={"frequency_penalty": ProviderCapabilityExtraParamsValue()})
    assert capabilities.preflight(document, "openai-chat", allowed) == []
    undeclared = msgspec.structs.replace(declared, extra_params=msgspec.UNSET)
    assert capabilities.preflight(document, "openai-chat", undeclared) == []  # nothing declared: not checked
    assert found(capabilities.preflight(document, "openai-chat", capabilities.lookup("o3"))) == [("$.frequency_penalty", "Unsupported")]
    assert capabilities.preflight(document, "openai-chat", capabilities.lookup("gpt-4.1")) == []


def test_a_lux_request_s_provider_parameters_are_its_extra_members() -> None:
    lux = {"schema_version": "v1", "model": "m", "options": {"stream": False}, "conversation": [],
           "extra": {"seed_mode": "fixed", "media": {}, "openai_chat": {"store": True}}}
    declared = ProviderCapability(model_pattern="m", provider="p", capabilities=caps(), extra_params={})
    assert found(capabilities.preflight(lux, "lux", declared)) == [("$.extra.seed_mode", "Unsupported")]


def test_preflight_names_no_input_value() -> None:
    secret = "sk-secret-value-in-a-prompt"
    document = {"model": secret, "messages": [{"role": "user", "content": [{"type": "image_url", "image_url": {"url": f"https://x/{secret}.png"}}]}]}
    diagnostics = capabilities.preflight(document, "openai-chat", caps(input_modalities=["text"]))
    assert diagnostics and all(secret not in (d.detail or "") + d.field for d in diagnostics)


@pytest.mark.parametrize(
    ("call", "error", "code"),
    [
        (lambda: capabilities.preflight({"model": "m"}, "openai-chat", {"tool_calling": "none"}), UsageError, "invalid_capabilities"),
        (lambda: capabilities.preflight({"model": "m", "messages": []}, "klingon", caps()), UsageError, "unknown_format"),
        (lambda: capabilities.preflight({"model": 5, "messages": []}, "openai-chat", caps()), ValidationError, "type"),
        (lambda: capabilities.lookup(None), UsageError, "invalid_input_type"),  # type: ignore[arg-type]
        (lambda: capabilities.lookup("m", {"providers": []}), UsageError, "invalid_input_type"),  # type: ignore[arg-type]
    ],
)
def test_a_wrong_call_is_a_typed_error(call: Any, error: type, code: str) -> None:
    with pytest.raises(error) as caught:
        call()
    assert caught.value.code == code


# -- convert(..., capabilities=...) ---------------------------------------------------------


def test_convert_reports_what_the_model_cannot_take_where_the_format_would_carry_it() -> None:
    document = recorded("multimodalRequest", "openai-chat")
    plain = lucent.convert(document, "openai-chat", "anthropic", context={"max_tokens": 10})
    checked = lucent.convert(document, "openai-chat", "anthropic", context={"max_tokens": 10}, capabilities=caps(input_modalities=["text"]))
    assert found(checked.diagnostics) == found(plain.diagnostics) + [("$.messages[0].content[1]", "Unsupported")]
    assert lucent.encode(checked.value) == lucent.encode(plain.value)  # reported, not removed
    with pytest.raises(ConversionError) as refused:
        lucent.convert(document, "openai-chat", "anthropic", context={"max_tokens": 10}, capabilities=caps(input_modalities=["text"]), strict=True)
    assert refused.value.path == "$.messages[0].content[1]"


def test_convert_does_not_report_twice_what_the_target_format_drops() -> None:
    document = recorded("chatCompletionsUrlBackedVideoFileParam", "openai-chat")
    plain = lucent.convert(document, "openai-chat", "anthropic", context={"max_tokens": 10})
    dropped = [d.field for d in plain.diagnostics if d.status == "Unsupported"]
    assert dropped  # Anthropic has no video block
    checked = lucent.convert(document, "openai-chat", "anthropic", context={"max_tokens": 10}, capabilities=caps())
    assert found(checked.diagnostics) == found(plain.diagnostics)


def test_convert_looks_the_model_up_in_a_discovery_document() -> None:
    document = json.loads(recorded("jsonSchemaFormatParam", "openai-chat"))

    def structured(model: str, context: dict[str, Any] | None = None) -> list[tuple[str, str]]:
        result = lucent.convert({**document, "model": model}, "openai-chat", "lux", context=context, capabilities=capabilities.discovery())
        return [(d.field, d.status) for d in result.diagnostics if "structured output" in (d.detail or "")]

    assert structured("gpt-4o-2024-05-13") == [("$.response_format", "Unsupported")]
    assert structured("gpt-4o-2024-08-06") == []
    assert structured("gpt-4o-2024-05-13", {"model": "gpt-4o-2024-08-06"}) == []  # the context's model is the one called
    with pytest.raises(UsageError) as unknown:
        structured("my-own-model")
    assert unknown.value.code == "unknown_model"


def test_convert_checks_capabilities_on_requests_only() -> None:
    response = recorded("simpleRequest", "anthropic", "response.json")
    with pytest.raises(UsageError) as caught:
        lucent.convert(response, "anthropic", "lux", "response", capabilities=caps())
    assert caught.value.code == "invalid_capabilities"
