"""Members a schema does not define come back (issue 16, section 7; lucent._unknown).

A vendor object the schema leaves open may hold members the schema does not name. X -> Lux keeps
each one in the Lux side-car ``<extra|provider_payload>.<format>.unknown`` (Degraded: a Lux
reader does not see it), keyed by the Lux path of the object built from its object and its
relative JSON path; Lux -> X gives it back (JSON equality; the member's position in its object
may differ), and so does X -> X. To another format it is Unsupported, once, in the two formats'
terms. One test per kind of place: the top level, inside a message, inside a content part or
item, inside usage, and deeper (a tool's schema).
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import msgspec
import pytest

import lucent
from lucent import _unknown
from lucent.generated.openai_chat import CreateChatCompletionRequest, CreateChatCompletionResponse
from lucent.generated.openai_responses import Response

SNAPSHOTS = Path(__file__).resolve().parent / "data" / "lingua" / "snapshots"


def recorded(case: str, folder: str, name: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((SNAPSHOTS / case / folder / name).read_bytes())
    return data


def as_json(value: Any) -> Any:
    return json.loads(lucent.encode(value))


def round_trip(document: dict[str, Any], fmt: str, kind: str) -> tuple[Any, Any, Any]:
    """(Lux result, back result, the value back as JSON)."""
    there = lucent.convert(document, fmt, "lux", kind)
    back = lucent.convert(there.value, "lux", fmt, kind)
    return there, back, as_json(back.value)


def at(result: Any, field: str) -> list[tuple[str, str]]:
    return [(d.status, d.detail) for d in result.diagnostics if d.field == field]


def chat_response() -> dict[str, Any]:
    return recorded("simpleRequest", "chat-completions", "response.json")


# ------------------------------------------------------------------ the top level
def test_a_top_level_member_is_kept_under_the_lux_root_and_comes_back() -> None:
    source = recorded("simpleRequest", "responses", "response.json")
    assert {"billing", "store"} <= set(source)  # recorded: the spec defines neither
    there, back, out = round_trip(source, "openai-responses", "response")
    unknown = there.value.provider_payload["openai_responses"]["unknown"]
    assert unknown["$"]["$.billing"] == source["billing"] and unknown["$"]["$.store"] == source["store"]
    assert at(there, "$.billing") == [("Degraded", "a member the schema does not define; kept in provider_payload.openai_responses.unknown for a conversion back to this format")]
    assert out == source
    assert back.diagnostics == []
    # still the type it claims, and the member is an attribute of it
    assert isinstance(back.value, Response) and back.value.billing == source["billing"]  # type: ignore[attr-defined]


def test_a_top_level_member_to_another_format_is_unsupported_once_in_its_terms() -> None:
    source = recorded("simpleRequest", "responses", "response.json")
    result = lucent.convert(source, "openai-responses", "anthropic", "response")
    assert at(result, "$.billing") == [("Unsupported", "a member the Responses schema does not define (its object allows more); lucent gives such members back only to Responses, so Anthropic does not get it")]
    assert "billing" not in as_json(result.value)


# ------------------------------------------------------------------ inside a message
def test_a_member_of_a_message_comes_back_on_that_message() -> None:
    source = recorded("simpleRequest", "chat-completions", "followup-request.json")
    assistant = next(i for i, m in enumerate(source["messages"]) if m["role"] == "assistant")
    assert "annotations" in source["messages"][assistant]  # a response message's member, replayed into a request
    there, back, out = round_trip(source, "openai-chat", "request")
    kept = there.value.extra["openai_chat"]["unknown"]
    assert [(path, list(members)) for path, members in kept.items()] == [(f"$.conversation[{assistant}]", ["$.annotations"])]
    assert out == source and isinstance(back.value, CreateChatCompletionRequest)
    assert source["messages"][assistant]["annotations"] == []
    other = lucent.convert(source, "openai-chat", "openai-responses", "request")
    assert at(other, f"$.messages[{assistant}].annotations") == []  # an empty list is an absence: nothing lost
    source["messages"][assistant]["annotations"] = [{"type": "note"}]
    other = lucent.convert(source, "openai-chat", "openai-responses", "request")
    assert [s for s, _ in at(other, f"$.messages[{assistant}].annotations")] == ["Unsupported"]


def test_a_member_of_a_response_message_and_of_its_choice_come_back() -> None:
    source = chat_response()
    source["choices"][0]["message"]["x-provider"] = {"routed": True}  # not a name: quoted in the path
    source["choices"][0]["provider_index"] = 3
    there, back, out = round_trip(source, "openai-chat", "response")
    assert there.value.provider_payload["openai_chat"]["unknown"]["$.choices[0]"] == {'$.message["x-provider"]': {"routed": True}, "$.provider_index": 3}
    assert out == source and back.diagnostics == []


# ------------------------------------------------------------------ inside a content part or item
def test_a_member_of_a_content_part_comes_back_on_that_part() -> None:
    source = recorded("chatCompletionsSystemCacheControlParam", "chat-completions", "request.json")
    parts = [(i, j) for i, m in enumerate(source["messages"]) if isinstance(m["content"], list) for j, p in enumerate(m["content"]) if "cache_control" in p]
    assert parts  # recorded: Anthropic-style cache_control on a Chat content part
    there, _back, out = round_trip(source, "openai-chat", "request")
    assert out == source
    i, j = parts[0]
    assert at(there, f"$.messages[{i}].content[{j}].cache_control")[0][0] == "Degraded"


def test_a_member_of_an_input_item_kept_verbatim_comes_back_on_that_item() -> None:
    source = recorded("responsesCustomToolCallStreamingParam", "responses", "followup-request.json")
    index = next(i for i, item in enumerate(source["input"]) if item.get("type") == "custom_tool_call")
    assert "status" in source["input"][index]  # the spec's custom_tool_call has no status
    there, back, out = round_trip(source, "openai-responses", "request")
    assert there.value.extra["openai_responses"]["unknown"] == {f"$.conversation[{index}].agent_action": {"$.status": "completed"}}
    assert out == source and back.diagnostics == []


# ------------------------------------------------------------------ inside usage
def test_a_member_of_usage_comes_back_in_usage() -> None:
    source = chat_response()
    source["usage"]["cost"] = 0.00025  # a gateway's member
    there, back, out = round_trip(source, "openai-chat", "response")
    assert there.value.provider_payload["openai_chat"]["unknown"]["$.usage"] == {"$.cost": 0.00025}
    assert out["usage"] == source["usage"] and out == source
    assert isinstance(back.value, CreateChatCompletionResponse)
    other = lucent.convert(source, "openai-chat", "gemini", "response")
    assert [s for s, _ in at(other, "$.usage.cost")] == ["Unsupported"]
    assert "cost" not in json.dumps(as_json(other.value))


# ------------------------------------------------------------------ deeper: a tool's schema
def test_a_keyword_of_a_tool_schema_comes_back_at_its_depth() -> None:
    source = recorded("exclusiveMinimumToolParam", "google", "request.json")
    there, _back, out = round_trip(source, "gemini", "request")
    kept = there.value.extra["gemini"]["unknown"]
    assert any("exclusiveMinimum" in rel for members in kept.values() for rel in members)
    assert out == source


# ------------------------------------------------------------------ Lux -> another format, same format
def test_a_lux_document_holding_another_formats_members_names_each_once() -> None:
    source = chat_response()
    source["usage"]["cost"] = 1
    source["vendor"] = "v"
    lux = lucent.convert(source, "openai-chat", "lux", "response").value
    result = lucent.convert(lux, "lux", "anthropic", "response")
    named = [(d.field, d.status) for d in result.diagnostics if ".unknown" in d.field]
    assert named == [('$.provider_payload.openai_chat.unknown["$.usage"]["$.cost"]', "Unsupported"), ('$.provider_payload.openai_chat.unknown["$"]["$.vendor"]', "Unsupported")]


def test_a_same_format_conversion_keeps_them_where_they_were() -> None:
    source = chat_response()
    source["vendor"] = {"x": [1, 2]}
    source["usage"]["cost"] = 2
    result = lucent.convert(source, "openai-chat", "openai-chat", "response")
    assert as_json(result.value) == source and result.diagnostics == []
    source["usage"]['x"y'] = 3  # no Struct field can be written so (msgspec): named, not lost silently
    result = lucent.convert(source, "openai-chat", "openai-chat", "response")
    assert [(d.field, d.status) for d in result.diagnostics] == [('$.usage["x\\"y"]', "Unsupported")]
    assert as_json(result.value)["usage"]["cost"] == 2


def test_writing_them_back_changes_neither_the_lux_document_nor_what_it_shares() -> None:
    source = recorded("exclusiveMinimumToolParam", "google", "request.json")
    lux = lucent.convert(source, "gemini", "lux", "request").value
    before = as_json(lux)
    first = as_json(lucent.convert(lux, "lux", "gemini", "request").value)
    assert as_json(lux) == before  # the tool parameters the target shares are copied, not changed
    assert as_json(lucent.convert(lux, "lux", "gemini", "request").value) == first == source


def test_kept_members_that_no_object_takes_are_reported_not_written() -> None:
    source = chat_response()
    lux = as_json(lucent.convert(source, "openai-chat", "lux", "response").value)
    lux["provider_payload"]["openai_chat"]["unknown"] = {
        "$.choices[7]": {"$.a": 1},  # no Chat object is built from it
        "$": {"$.model": "other", "$.usage.nothing_here.b": 2, "$[0]": 3},  # defined by the object; no such object; not a member
        "$.usage": 4,  # not an object of members
    }
    result = lucent.convert(lux, "lux", "openai-chat", "response")
    statuses = {d.field: d.status for d in result.diagnostics}
    base = "$.provider_payload.openai_chat.unknown"
    assert statuses == {
        f'{base}["$.choices[7]"]["$.a"]': "Unsupported",
        f'{base}["$"]["$.model"]': "Unsupported",
        f'{base}["$"]["$.usage.nothing_here.b"]': "Unsupported",
        f'{base}["$"]["$[0]"]': "Invalid",
        f'{base}["$.usage"]': "Invalid",
    }
    assert as_json(result.value)["model"] == source["model"]


# ------------------------------------------------------------------ the fast path
def test_a_document_without_unknown_members_does_not_look_for_them(monkeypatch: pytest.MonkeyPatch) -> None:
    import lucent._convert as convert_module

    def walked(*_args: Any) -> Any:
        raise AssertionError("the members were looked for")

    monkeypatch.setattr(convert_module, "_unknown_members", walked)
    source = chat_response()
    there = lucent.convert(source, "openai-chat", "lux", "response")
    assert "unknown" not in there.value.provider_payload["openai_chat"]
    assert as_json(lucent.convert(there.value, "lux", "openai-chat", "response").value) == source


# ------------------------------------------------------------------ the holding Structs
def test_a_holding_struct_is_its_class_and_writes_its_members() -> None:
    value = lucent.decode(json.dumps(chat_response()).encode(), "openai-chat", "CreateChatCompletionResponse")
    made, refused = _unknown.put_members(value, [(["a-b"], 1), (["usage", "cost"], 2), (["model"], "x"), (["choices", 5, "q"], 0)])
    assert refused == [2, 3]  # model is defined; there is no choice 5
    assert isinstance(made, CreateChatCompletionResponse) and type(made) is not CreateChatCompletionResponse
    written = as_json(made)
    assert written["a-b"] == 1 and written["usage"]["cost"] == 2 and written["model"] == value.model
    assert "a-b" not in as_json(value) and "cost" not in as_json(value)  # the original is not changed
    again, _ = _unknown.put_members(made, [(["c"], 3)])
    assert as_json(again)["a-b"] == 1 and as_json(again)["c"] == 3
    assert copy.copy(again) == again


def test_holding_classes_are_bounded() -> None:
    value = lucent.decode(json.dumps(chat_response()).encode(), "openai-chat", "CreateChatCompletionResponse")
    for n in range(_unknown.MAX_CLASSES + 20):
        _unknown.put_members(value, [([f"m{n}"], n)])
    assert len(_unknown._CLASSES) <= _unknown.MAX_CLASSES


def test_a_closed_struct_takes_no_member() -> None:
    class Closed(msgspec.Struct, forbid_unknown_fields=True):
        a: int

    assert _unknown.holding(Closed(a=1), {"b": 2}) is None
    assert _unknown.put_members({"k": Closed(a=1)}, [(["k", "b"], 2)])[1] == [0]


def test_relative_paths_read_back() -> None:
    for steps in (["a", 0, "x-y"], [], ['q"u\\o', 3], ["\u202e"]):
        assert _unknown.steps_of(_unknown.relative(steps)) == steps
    assert _unknown.steps_of("a.b") is None and _unknown.steps_of("$.a..b") is None


def test_a_name_msgspec_cannot_write_as_a_field_is_reported_not_raised() -> None:
    source = chat_response()
    source["usage"]['quo"te'] = 1  # msgspec refuses a quote, a backslash or a control character in a field name
    source["usage"]["tab\t"] = 2
    source["usage"]["fine"] = 3
    there, back, out = round_trip(source, "openai-chat", "response")
    base = '$.provider_payload.openai_chat.unknown["$.usage"]'
    assert {d.field: d.status for d in back.diagnostics} == {f'{base}["$[\\"quo\\\\\\"te\\"]"]': "Unsupported", f'{base}["$[\\"tab\\\\t\\"]"]': "Unsupported"}
    assert out["usage"] == {**chat_response()["usage"], "fine": 3}


def test_a_holding_struct_pickles_and_deep_copies() -> None:
    import pickle

    value = lucent.decode(json.dumps(chat_response()).encode(), "openai-chat", "CreateChatCompletionResponse")
    made, _ = _unknown.put_members(value, [(["vendor"], {"a": [1]}), (["usage", "cost"], 2)])
    for again in (pickle.loads(pickle.dumps(made)), copy.deepcopy(made)):
        assert as_json(again) == as_json(made) and type(again) is type(made)


def _with_probe(case: str, folder: str, name: str, where: Any) -> dict[str, Any]:
    """A recorded document with a member ``x_probe`` added to each object ``where`` picks."""
    document = recorded(case, folder, name)
    for holder in where(document):
        holder["x_probe"] = {"kept": True}
    return document


PLACES = [  # (format, kind, case, folder, file, the objects that get a member): each kind of open object
    ("openai-chat", "request", "toolCallRequest", "chat-completions", "followup-request.json",
     lambda d: [d["tools"][0], d["tools"][0]["function"], *(m for m in d["messages"] if m["role"] == "tool"),
                *(c for m in d["messages"] for c in m.get("tool_calls") or [])]),
    ("openai-chat", "response", "toolCallRequest", "chat-completions", "response.json",
     lambda d: [d["choices"][0]["message"]["tool_calls"][0], d["usage"]]),
    ("openai-responses", "request", "toolCallRequest", "responses", "followup-request.json",
     lambda d: [*d["input"], d["tools"][0], *([d["reasoning"]] if isinstance(d.get("reasoning"), dict) else [])]),
    ("openai-responses", "response", "simpleRequest", "responses", "response.json",
     lambda d: [*d["output"], *(p for i in d["output"] for p in i.get("content") or []), d["usage"]]),
    ("anthropic", "response", "toolCallRequest", "anthropic", "response.json", lambda d: [*d["content"], d["usage"]]),
    ("gemini", "request", "toolCallRequest", "google", "request.json",
     lambda d: [d["tools"][0], d["tools"][0]["functionDeclarations"][0], *(p for c in d["contents"] for p in c["parts"])]),
    ("gemini", "response", "toolCallRequest", "google", "response.json",
     lambda d: [d["candidates"][0], d["candidates"][0]["content"], *d["candidates"][0]["content"]["parts"], d["usageMetadata"]]),
]


@pytest.mark.parametrize("fmt, kind, case, folder, name, where", PLACES, ids=[f"{p[0]}:{p[1]}" for p in PLACES])
def test_a_member_of_every_kind_of_open_object_comes_back(fmt: str, kind: str, case: str, folder: str, name: str, where: Any) -> None:
    source = _with_probe(case, folder, name, where)
    there, back, out = round_trip(source, fmt, kind)
    kept = [d.field for d in there.diagnostics if d.field.endswith(".x_probe")]
    assert len(kept) == len(where(source)) > 0 and {d.status for d in there.diagnostics if d.field in kept} == {"Degraded"}
    assert out == source, [d.field for d in back.diagnostics]
    assert not [d for d in back.diagnostics if ".unknown" in d.field]
