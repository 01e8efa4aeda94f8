"""What a target's schema allows, and what lucent does with a value it does not.

Lux / llm-sdk / htmlp -> SparkTide requests with real values: optional values outside their
SparkTide bounds are left out and reported at their source path (the compiler reads the bounds
from the target schema); tool call ids and function names SparkTide cannot hold are replaced
consistently; a conversation with no SparkTide image is reported, never fabricated;
``lucent.convert`` names every fault of the output; side-car values that lose are reported; and
the conformance harness counts "no valid image" apart from valid outputs.
"""

from __future__ import annotations

import json
import pathlib
from typing import Any

import pytest

import lucent
from lucent._convert import _check_target
from lucent.generated.convert_registry import UNREACHABLE
from tests.convert_conformance.checks import check
from tests.convert_conformance.pairs import Pair, pairs
from tests.convert_conformance.validity import Validity

REPO = pathlib.Path(__file__).resolve().parents[1]
VALIDITY = Validity()
PAIRS = {p.name: p for p in pairs()}
ENVELOPE = {
    "invocationId": "inv_1",
    "deadline": 1893456000000,
    "purpose": "SYNTHETIC_PROBE",
    "appId": "monitor",
    "model": "model-1",
    "max_completion_tokens": 256,
    "stream": False,
}
MESSAGES_REASON = UNREACHABLE[("lux", "sparktide", "request")]["$.messages"]


def lux(conversation: list[dict[str, Any]], **fields: Any) -> dict[str, Any]:
    doc: dict[str, Any] = {"schema_version": "v1", "model": "model-1", "options": {"stream": False}, "conversation": conversation}
    doc.update(fields)
    return doc


def user(text: str) -> dict[str, Any]:
    return {"type": "message", "message": {"role": "user", "content": [{"type": "text", "text": text}]}}


def tool_use(id_: str, name: str) -> dict[str, Any]:
    return {"type": "tool_use", "tool_use": {"id": id_, "name": name, "arguments": "{}"}}


def tool_result(id_: str, text: str = "ok") -> dict[str, Any]:
    return {"tool_use_id": id_, "content": [{"type": "text", "text": text}], "is_error": False}


def convert(doc: dict[str, Any], source: str = "lux", context: dict[str, Any] | None = ENVELOPE) -> tuple[Any, list[tuple[str, str, str]]]:
    result = lucent.convert(json.dumps(doc), source, "sparktide", context=context)
    return json.loads(lucent.encode(result.value)), [(d.field, d.status, d.detail) for d in result.diagnostics]


def schema_errors(out: Any) -> list[str]:
    return [e.json_path for e in VALIDITY.errors(PAIRS["lux:sparktide:request"].target, out)]


# ---------------------------------------------------------------------------------- bounds (1)


def test_options_outside_sparktide_bounds_are_left_out_and_named_with_the_bound() -> None:
    out, found = convert(lux([user("hi")], options={"stream": False, "temperature": 3, "top_p": 0, "seed": -1}))
    assert "temperature" not in out and "top_p" not in out and "seed" not in out
    assert found == [
        ("$.options.temperature", "Unsupported", "SparkTide temperature has maximum 2; the value (an integer) is left out"),
        ("$.options.top_p", "Unsupported", "SparkTide top_p has exclusiveMinimum 0; the value (an integer) is left out"),
        ("$.options.seed", "Unsupported", "SparkTide seed has minimum 0; the value (an integer) is left out"),
    ]
    assert schema_errors(out) == []


def test_options_inside_and_at_the_bounds_are_copied_without_a_diagnostic() -> None:
    out, found = convert(lux([user("hi")], options={"stream": False, "temperature": 2, "top_p": 1, "seed": 0}))
    assert (out["temperature"], out["top_p"], out["seed"]) == (2, 1, 0)
    assert found == []
    out, found = convert(lux([user("hi")], options={"stream": False, "temperature": -0.5, "top_p": 1.5, "seed": 2**63}))
    assert [d[2] for d in found] == [
        "SparkTide temperature has minimum 0; the value (a number) is left out",
        "SparkTide top_p has maximum 1; the value (a number) is left out",
        "SparkTide seed has maximum 9223372036854775807; the value (an integer) is left out",
    ]
    assert schema_errors(out) == []


def test_a_composed_pair_names_the_out_of_range_option_at_its_own_source_path() -> None:
    doc = {"messages": [{"role": "user", "content": [{"type": "text", "text": "hi"}]}], "temperature": -1, "topP": 5, "seed": -3}
    out, found = convert(doc, "llm-sdk")
    assert "temperature" not in out and "top_p" not in out and "seed" not in out
    assert found == [
        ("$.temperature", "Unsupported", "SparkTide temperature has minimum 0; the value (an integer) is left out"),
        ("$.topP", "Unsupported", "SparkTide top_p has maximum 1; the value (an integer) is left out"),
        ("$.seed", "Unsupported", "SparkTide seed has minimum 0; the value (an integer) is left out"),
    ]


@pytest.mark.parametrize("field", ["max_completion_tokens", "max_tokens"])
def test_a_value_one_of_several_source_members_gives_is_named_at_the_one_given(field: str) -> None:
    # Lux options.max_output_tokens comes from max_completion_tokens, else max_tokens: the
    # diagnostic of the second hop names the member the request has (it named $ before)
    chat = {"model": "m", "messages": [{"role": "user", "content": "x"}], field: 1}
    result = lucent.convert(json.dumps(chat), "openai-chat", "openai-responses")
    assert [(d.field, d.status) for d in result.diagnostics] == [(f"$.{field}", "Unsupported")]
    assert "at least 16" in result.diagnostics[0].detail


def test_a_source_value_for_a_required_context_field_is_bounded_too() -> None:
    context = {k: v for k, v in ENVELOPE.items() if k not in ("model", "max_completion_tokens")}
    out, found = convert(lux([user("hi")], model="", options={"stream": False, "max_output_tokens": 0}), context=context)
    assert "model" not in out and "max_completion_tokens" not in out
    assert found == [
        ("$.model", "Unsupported", 'SparkTide model has minLength 1; the value (a string of 0 characters) is left out'),
        ("target:$.model", "Invalid", "required by the target and not in the source; supply context['model']"),
        ("$.options.max_output_tokens", "Unsupported", "SparkTide max_completion_tokens has minimum 1; the value (an integer) is left out"),
        ("target:$.max_completion_tokens", "Invalid", "required by the target and not in the source; supply context['max_completion_tokens']"),
    ]
    # the caller's context wins over the source value (reported Degraded, as before)
    out, found = convert(lux([user("hi")], model=""))
    assert out["model"] == "model-1"
    assert found == [("$.model", "Degraded", "replaced by the caller's context['model']")]


def test_the_compiler_reads_the_bounds_from_the_target_schema_for_every_pair() -> None:
    from codegen.mappings import Lowering, load_specs

    bounded = {}
    for spec in load_specs(REPO):
        lowering = Lowering(spec)
        for m in spec.maps.values():
            if m["target"] in ("object", "json") or not spec.target.has(m["target"]) or spec.target.definition(m["target"]).kind != "struct":
                continue
            tgt = spec.target.definition(m["target"])
            for tpath, rule in m.get("rules", {}).items():
                plain = "from" in rule and not any(k in rule for k in ("const", "context", "parts", "collect", "kept", "via", "each", "map", "first", "values", "check"))
                ttype, treq = lowering._target_field(tgt, tpath)
                if plain and not treq and tpath not in lowering._conditionally_required(tgt) and lowering._bounds(ttype, tpath):
                    bounded[(spec.path.name, tpath)] = lowering._bounds_text(lowering._bounds(ttype, tpath))
    # SparkTide, Anthropic, Chat Completions and Responses bound optional fields that a plain copy
    # writes (Chat top_logprobs and verbosity and Responses top_logprobs are written by transforms
    # that also read the other OpenAI format's side-car, and check the same bounds:
    # tests/test_conversions_keep_meaning.py) (llm-sdk, htmlp and Gemini bound only fields their specs write through transforms:
    # htmlp max_output_tokens, byte_count)
    assert bounded == {
        ("lux_anthropic_request.toml", "temperature"): "Anthropic temperature: minimum 0, maximum 1",
        ("lux_anthropic_request.toml", "top_p"): "Anthropic top_p: minimum 0, maximum 1",
        ("lux_anthropic_request.toml", "top_k"): "Anthropic top_k: minimum 0",
        ("lux_sparktide_request.toml", "temperature"): "SparkTide temperature: minimum 0, maximum 2",
        ("lux_sparktide_request.toml", "top_p"): "SparkTide top_p: exclusiveMinimum 0, maximum 1",
        ("lux_sparktide_request.toml", "seed"): "SparkTide seed: minimum 0, maximum 9223372036854775807",
        # Chat Completions: sampling options copied from Lux, the rest from extra.openai_chat
        ("lux_openai_chat_request.toml", "temperature"): "Chat Completions temperature: minimum 0, maximum 2",
        ("lux_openai_chat_request.toml", "top_p"): "Chat Completions top_p: minimum 0, maximum 1",
        ("lux_openai_chat_request.toml", "n"): "Chat Completions n: minimum 1, maximum 128",
        ("lux_openai_chat_request.toml", "seed"): "Chat Completions seed: minimum -9223372036854776000, maximum 9223372036854776000",
        ("lux_openai_chat_request.toml", "frequency_penalty"): "Chat Completions frequency_penalty: minimum -2, maximum 2",
        ("lux_openai_chat_request.toml", "presence_penalty"): "Chat Completions presence_penalty: minimum -2, maximum 2",
        ("lux_openai_chat_request.toml", "service_tier"): 'Chat Completions service_tier: one of ["auto", "default", "flex", "scale", "priority", "fast"]',
        ("lux_openai_chat_request.toml", "safety_identifier"): "Chat Completions safety_identifier: maxLength 64",
        ("lux_openai_chat_request.toml", "prompt_cache_retention"): 'Chat Completions prompt_cache_retention: one of ["in_memory", "24h"]',
        ("lux_openai_chat_request.toml", "functions"): "Chat Completions functions: minItems 1, maxItems 128",
        ("lux_openai_chat_response.toml", "service_tier"): 'Chat Completions service_tier: one of ["auto", "default", "flex", "scale", "priority", "fast"]',
        # Responses: the members Lux has no field for come back from extra.openai_responses
        ("lux_openai_responses_request.toml", "truncation"): 'Responses truncation: one of ["auto", "disabled"]',
        ("lux_openai_responses_request.toml", "service_tier"): 'Responses service_tier: one of ["auto", "default", "flex", "scale", "priority", "fast"]',
        ("lux_openai_responses_request.toml", "prompt_cache_retention"): 'Responses prompt_cache_retention: one of ["in_memory", "24h"]',
        ("lux_openai_responses_request.toml", "safety_identifier"): "Responses safety_identifier: maxLength 64",
        ("lux_openai_responses_request.toml", "context_management"): "Responses context_management: minItems 1",
    }
    generated = (REPO / "generated" / "convert_lux_sparktide.py").read_text(encoding="utf-8")
    assert '"SparkTide temperature has maximum 2"' in generated and "if temperature > 2:" in generated


# ------------------------------------------------------------------------- ids and names (2)


def test_tool_call_ids_sparktide_cannot_hold_are_replaced_consistently() -> None:
    doc = lux([
        {"type": "message", "message": {"role": "assistant", "content": [tool_use("", "get_time"), tool_use(" \t", "get_time"), tool_use("x" * 129, "get_time")]}},
        {"type": "tool_result", "tool_result": tool_result("", "first")},
        {"type": "tool_result", "tool_result": tool_result(" \t", "second")},
        {"type": "tool_result", "tool_result": tool_result("x" * 129, "third")},
    ])
    out, found = convert(doc)
    assert [c["id"] for c in out["messages"][0]["tool_calls"]] == ["lucent_call_1", "lucent_call_2", "lucent_call_3"]
    assert [(m["tool_call_id"], m["content"]) for m in out["messages"][1:]] == [
        ("lucent_call_1", "first"), ("lucent_call_2", "second"), ("lucent_call_3", "third"),
    ]
    assert [(f, s) for f, s, _ in found] == [
        ("$.conversation[0].message.content[0].tool_use.id", "Degraded"),
        ("$.conversation[0].message.content[1].tool_use.id", "Degraded"),
        ("$.conversation[0].message.content[2].tool_use.id", "Degraded"),
        ("$.conversation[1].tool_result.tool_use_id", "Degraded"),
        ("$.conversation[2].tool_result.tool_use_id", "Degraded"),
        ("$.conversation[3].tool_result.tool_use_id", "Degraded"),
    ]
    assert found[0][2] == (
        'SparkTide cannot hold this tool call id, a string of 0 characters (minLength 1, maxLength 128, pattern /\\S/); '
        'written as "lucent_call_1", as in every tool call and tool result with this id'
    )
    assert schema_errors(out) == []


def test_a_synthesized_id_skips_the_ids_the_request_uses_and_good_ids_stay() -> None:
    doc = lux([
        {"type": "message", "message": {"role": "assistant", "content": [tool_use("lucent_call_1", "a"), tool_use("", "b")]}},
        {"type": "tool_result", "tool_result": tool_result("lucent_call_1")},
        {"type": "tool_result", "tool_result": tool_result("")},
    ])
    out, found = convert(doc)
    assert [c["id"] for c in out["messages"][0]["tool_calls"]] == ["lucent_call_1", "lucent_call_2"]
    assert [m["tool_call_id"] for m in out["messages"][1:]] == ["lucent_call_1", "lucent_call_2"]
    assert [f for f, _, _ in found] == ["$.conversation[0].message.content[1].tool_use.id", "$.conversation[2].tool_result.tool_use_id"]


def test_function_names_sparktide_cannot_hold_are_replaced_the_same_for_the_same_name() -> None:
    doc = lux([{"type": "message", "message": {"role": "assistant", "content": [tool_use("c1", ""), tool_use("c2", "  "), tool_use("c3", "")]}}])
    out, found = convert(doc)
    assert [c["function"]["name"] for c in out["messages"][0]["tool_calls"]] == ["lucent_tool_1", "lucent_tool_2", "lucent_tool_1"]
    assert found == [
        ("$.conversation[0].message.content[0].tool_use.name", "Degraded",
         'SparkTide cannot hold this function name, a string of 0 characters (minLength 1, maxLength 128, pattern /\\S/); written as "lucent_tool_1"'),
        ("$.conversation[0].message.content[1].tool_use.name", "Degraded",
         'SparkTide cannot hold this function name, a string of 2 characters (minLength 1, maxLength 128, pattern /\\S/); written as "lucent_tool_2"'),
        ("$.conversation[0].message.content[2].tool_use.name", "Degraded",
         'SparkTide cannot hold this function name, a string of 0 characters (minLength 1, maxLength 128, pattern /\\S/); written as "lucent_tool_1"'),
    ]
    assert schema_errors(out) == []


def test_htmlp_tool_ids_are_replaced_and_named_at_the_htmlp_paths() -> None:
    doc = {
        "model": "m", "tools": [], "thinking_level": "off",
        "fragments": [
            {"role": "assistant", "byte_count": 0, "source": {"kind": "assistant_history"},
             "content": [{"type": "tool_use", "tool_use_id": "\n", "tool_name": "f", "arguments": {}}]},
            {"role": "user", "byte_count": 0, "source": {"kind": "tool_output", "tool_name": "f"},
             "content": [{"type": "tool_result", "tool_use_id": "\n", "content": "x", "is_error": False}]},
        ],
    }
    out, found = convert(doc, "htmlp")
    assert out["messages"][0]["tool_calls"][0]["id"] == out["messages"][1]["tool_call_id"] == "lucent_call_1"
    replaced = [(f, s) for f, s, d in found if "tool call id" in d]
    assert replaced == [("$.fragments[0].content[0].tool_use_id", "Degraded"), ("$.fragments[1].content[0].tool_use_id", "Degraded")]
    assert schema_errors(out) == []


# ----------------------------------------------------------------------- no valid image (3)


def test_an_empty_conversation_is_reported_once_and_no_message_is_made_up() -> None:
    out, found = convert(lux([]))
    assert out["messages"] == []
    assert found == [("target:$.messages", "Invalid", MESSAGES_REASON)]
    assert schema_errors(out) == ["$.messages"]
    out, found = convert(lux([{"type": "reasoning", "reasoning": {"text": "hm", "redacted": False}}]))
    assert out["messages"] == [] and ("target:$.messages", "Invalid", MESSAGES_REASON) in found


def test_the_registry_carries_the_declaration_for_the_pairs_that_write_sparktide() -> None:
    assert UNREACHABLE[("lux", "sparktide", "request")] == {"$.messages": MESSAGES_REASON}
    # the other declarations are the vendor formats' (Chat Completions: messages minItems 1;
    # Anthropic: a response requires usage)
    assert set(UNREACHABLE) == {("lux", "sparktide", "request"), ("lux", "openai-chat", "request"), ("lux", "anthropic", "response")}
    assert set(UNREACHABLE[("lux", "openai-chat", "request")]) == {"$.messages"}
    assert set(UNREACHABLE[("lux", "anthropic", "response")]) == {"$.usage"}
    assert UNREACHABLE[("lux", "anthropic", "response")]["$.usage"].startswith("Anthropic requires usage")
    assert MESSAGES_REASON.startswith("a SparkTide request holds 1 to 256 messages")
    for name in ("lux:sparktide:request", "llm-sdk:sparktide:request", "htmlp:sparktide:request"):
        assert PAIRS[name].unreachable == {"$.messages": MESSAGES_REASON}
    assert PAIRS["lux:htmlp:request"].unreachable == {}


def test_the_harness_counts_no_valid_image_only_where_the_spec_declares_it() -> None:
    pair = PAIRS["lux:sparktide:request"]
    outcome = check(pair, lux([]), VALIDITY)
    assert (outcome.valid, outcome.unreachable) == (False, True)
    assert [f for f in outcome.failures if f.check == "invalid"] == []
    assert check(pair, lux([user("hi")]), VALIDITY).valid

    class Undeclared(Pair):
        @property
        def unreachable(self) -> dict[str, str]:
            return {}

    outcome = check(Undeclared(pair.source, pair.target), lux([]), VALIDITY)
    assert (outcome.valid, outcome.unreachable) == (False, False)
    assert [(f.check, f.signature, f.unnamed) for f in outcome.failures if f.check == "invalid"] == [("invalid", "minItems at $.messages", False)]


# ------------------------------------------------------------------- every target fault (4)


def test_the_target_check_names_every_fault_and_skips_the_ones_named_already() -> None:
    value = {"protocolVersion": "1.0", "invocationId": "", "deadline": 5, "purpose": "SYNTHETIC_PROBE", "appId": "a", "model": "m",
             "messages": [], "max_completion_tokens": 5, "stream": False, "temperature": 3, "top_p": 0.0}
    found = _check_target(value, "sparktide-remote-1.0", "RemoteModelRequest")
    assert [(d.field, d.status) for d in found] == [
        ("target:$.invocationId", "Invalid"),
        ("target:$.messages", "Invalid"),
        ("target:$.temperature", "Invalid"),
        ("target:$.top_p", "Invalid"),
    ]
    assert [d.detail.rsplit(" (", 1)[1] for d in found] == ["minLength)", "minItems)", "maximum)", "exclusiveMinimum)"]
    named = _check_target(value, "sparktide-remote-1.0", "RemoteModelRequest", {"target:$.messages", "target:$.top_p"})
    assert [d.field for d in named] == ["target:$.invocationId", "target:$.temperature"]
    # a missing required member is named at its own path; a conditional rule's too
    del value["appId"]
    value["messages"] = [{"role": "tool", "content": "x"}]
    fields = [d.field for d in _check_target(value, "sparktide-remote-1.0", "RemoteModelRequest")]
    assert "target:$.appId" in fields and "target:$.messages[0].tool_call_id" in fields


def test_the_target_check_names_every_protocol_fault_beside_schema_faults() -> None:
    calls = [{"id": i, "type": "function", "function": {"name": "f", "arguments": a}} for i, a in (("a", "["), ("b", "{}"), ("c", "1"))]
    value = {"protocolVersion": "1.0", "invocationId": "i", "deadline": 5, "purpose": "SYNTHETIC_PROBE", "appId": "a", "model": "m",
             "messages": [{"role": "assistant", "content": None, "tool_calls": calls}], "max_completion_tokens": 5, "stream": False}
    expected = [
        ("target:$.messages[0].tool_calls[0].function.arguments", "arguments is not one complete JSON value (tool_arguments)"),
        ("target:$.messages[0].tool_calls[2].function.arguments", "arguments must be a JSON object (tool_arguments)"),
    ]
    assert [(d.field, d.detail) for d in _check_target(value, "sparktide-remote-1.0", "RemoteModelRequest")] == expected
    value["temperature"] = 5  # a schema fault elsewhere does not hide them
    found = [(d.field, d.detail) for d in _check_target(value, "sparktide-remote-1.0", "RemoteModelRequest")]
    assert found == [*expected, ("target:$.temperature", "Expected `int` <= 2 (maximum)")]  # 5 stays an int


def test_the_target_check_runs_beside_an_invalid_diagnostic() -> None:
    context = {k: v for k, v in ENVELOPE.items() if k != "invocationId"}
    doc = lux([user("hi"), {"type": "tool_call", "tool_call": {"id": "c1", "name": "f", "arguments": "{"}}])
    out, found = convert(doc, context=context)
    assert [(f, s) for f, s, _ in found] == [
        ("target:$.invocationId", "Invalid"),  # once: the target check does not repeat it
        ("$.conversation[1].tool_call.arguments", "Invalid"),
        ("target:$.messages[1].tool_calls[0].function.arguments", "Invalid"),
    ]


# -------------------------------------------------------------- tool-result-only messages (5)


@pytest.mark.parametrize("role", ["system", "user", "assistant"])
def test_a_message_of_tool_results_only_reports_its_role(role: str) -> None:
    doc = lux([
        {"type": "message", "message": {"role": "assistant", "content": [tool_use("c1", "f")]}},
        {"type": "message", "message": {"role": role, "content": [{"type": "tool_result", "tool_result": tool_result("c1")}]}},
    ])
    out, found = convert(doc)
    assert out["messages"][1] == {"role": "tool", "content": "ok", "tool_call_id": "c1"}
    assert found == [(
        "$.conversation[1].message.role", "Degraded",
        f"the {role} message holds only tool results, written as SparkTide tool messages; its role is not kept",
    )]


def test_a_tool_role_message_of_tool_results_is_not_reported() -> None:
    doc = lux([
        {"type": "message", "message": {"role": "assistant", "content": [tool_use("c1", "f")]}},
        {"type": "message", "message": {"role": "tool", "content": [{"type": "tool_result", "tool_result": tool_result("c1")}]}},
    ])
    assert convert(doc)[1] == []


# ------------------------------------------------------------------------- side-car entries (6)


def test_a_protocol_version_other_than_1_0_is_reported() -> None:
    out, found = convert(lux([user("hi")], extra={"sparktide": {"protocolVersion": "2.0"}}))
    assert out["protocolVersion"] == "1.0"
    assert found == [("$.extra.sparktide.protocolVersion", "Unsupported", 'SparkTide 1.0 is the only version; the value (a string of 3 characters) is not written, "1.0" is')]
    assert convert(lux([user("hi")], extra={"sparktide": {"protocolVersion": "1.0"}}))[1] == []
    assert convert(lux([user("hi")], extra={"sparktide": {"protocolVersion": 1}}))[1][0][2].startswith("SparkTide 1.0 is the only version; the value (an integer) is not written")


def test_a_side_car_tool_choice_or_response_format_overridden_by_lux_is_reported() -> None:
    verbatim = {"type": "allowed_tools", "tools": []}
    doc = lux([user("hi")], tool_choice="auto", options={"stream": False, "structured_output": "json_object"},
              extra={"sparktide": {"tool_choice": verbatim, "response_format": {"type": "grammar"}}})
    out, found = convert(doc)
    assert (out["tool_choice"], out["response_format"]) == ("auto", {"type": "json_object"})
    assert found == [
        ("$.extra.sparktide.response_format", "Unsupported", "not written: Lux $.options.structured_output is set and wins over it"),
        ("$.extra.sparktide.tool_choice", "Unsupported", "not written: Lux $.tool_choice is set and wins over it"),
    ]
    # alone, the side-car value is written; equal to the Lux one, nothing is lost
    out, found = convert(lux([user("hi")], extra={"sparktide": {"tool_choice": verbatim}}))
    assert (out["tool_choice"], found) == (verbatim, [])
    assert convert(lux([user("hi")], tool_choice="auto", extra={"sparktide": {"tool_choice": "auto"}}))[1] == []
