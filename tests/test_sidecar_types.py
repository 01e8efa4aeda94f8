"""A Lux side-car entry of the wrong JSON type is a diagnostic wherever it is read, never an
exception and never a silent drop (issue 14, classes 4 and 13).

A Lux document keeps what only one format has in ``extra`` / ``provider_payload``; a Lux -> X
converter reads it back. Each entry of every side-car the conversions to Lux write from the
corpus (tests/data), and each entry a mapping spec or transform names, is given each other JSON
type and an unknown member (:mod:`tests.fuzz.sidecars`), and converted to every target: only a
``LucentError`` may be raised, each such value is named by a diagnostic, kept in the output or
back in the round trip, and no message repeats the secret planted in it.
"""

from __future__ import annotations

import json
from typing import Any

import msgspec
import pytest

import lucent
from lucent._context import read_by
from lucent._validation import CONTROL_CHARACTERS
from tests.fuzz.sidecars import declared_types, lux_documents, silent_drops
from tests.fuzz.targets import CONTEXT
from tests.no_echo import SECRET, _convert_targets, documents

from lucent.generated.convert_registry import DOCUMENTS


def _lux(source: str, body: dict[str, Any], kind: str = "request") -> dict[str, Any]:
    return msgspec.to_builtins(lucent.convert(json.dumps(body), source, "lux", kind, context=read_by(CONTEXT, source, "lux", kind)).value)  # type: ignore[no-any-return]


CHAT = {"model": "m", "messages": [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "yes", "refusal": None}], "stop": None}
RESPONSE = {
    "id": "msg_1", "type": "message", "role": "assistant", "model": "claude", "content": [{"type": "text", "text": "hi"}],
    "stop_reason": "end_turn", "stop_sequence": None,
    "usage": {"input_tokens": 3, "output_tokens": 2, "cache_creation": {"ephemeral_5m_input_tokens": 1, "ephemeral_1h_input_tokens": 0}},
}


@pytest.mark.parametrize("wrong", [["end_turn"], {"a": "end_turn"}, 7, True, "sk-live-stop"])
def test_an_anthropic_stop_reason_of_the_wrong_type_is_invalid_not_an_exception(wrong: Any) -> None:
    lux = _lux("anthropic", RESPONSE, "response")
    lux["provider_payload"]["anthropic"]["stop_reason"] = wrong
    result = lucent.convert(json.dumps(lux), "lux", "anthropic", "response")
    found = [(d.field, d.status) for d in result.diagnostics if "stop_reason" in d.field]
    assert found == [("$.provider_payload.anthropic.stop_reason", "Invalid")]
    assert all("sk-live" not in d.detail for d in result.diagnostics)
    assert msgspec.to_builtins(result.value)["stop_reason"] == "end_turn"  # derived from the Lux finish reason


@pytest.mark.parametrize(("source", "body", "target", "path", "value", "field"), [
    ("openai-chat", CHAT, "openai-chat", ("extra", "openai_chat", "members"), "x", "$.extra.openai_chat.members"),
    ("openai-chat", CHAT, "openai-chat", ("extra", "openai_chat", "stop"), {"a": 1}, "$.extra.openai_chat.stop"),
    ("openai-chat", CHAT, "openai-chat", ("extra", "openai_chat", "stream_absent"), "yes", "$.extra.openai_chat.stream_absent"),
    ("openai-chat", CHAT, "gemini", ("extra", "gemini", "members"), ["x"], "$.extra.gemini.members"),
    ("openai-chat", CHAT, "openai-responses", ("extra", "openai_responses", "tools"), "x", "$.extra.openai_responses.tools"),
    ("openai-chat", CHAT, "anthropic", ("extra", "media"), 7, "$.extra.media"),
    ("anthropic", RESPONSE, "gemini", ("provider_payload", "gemini", "members"), "x", "$.provider_payload.gemini.members"),
    ("anthropic", RESPONSE, "anthropic", ("provider_payload", "anthropic", "usage", "cache_creation", "ephemeral_9h_input_tokens"), 4,
     "$.provider_payload.anthropic.usage.cache_creation.ephemeral_9h_input_tokens"),
])
def test_the_side_car_entries_the_issue_names_are_reported(source: str, body: dict[str, Any], target: str, path: tuple[str, ...], value: Any, field: str) -> None:
    kind = "response" if source == "anthropic" else "request"
    lux = _lux(source, body, kind)
    node = lux
    for key in path[:-1]:
        node = node.setdefault(key, {})
    node[path[-1]] = value
    result = lucent.convert(json.dumps(lux), "lux", target, kind, context=read_by({**CONTEXT, "max_tokens": 5}, "lux", target, kind))
    assert [d.status for d in result.diagnostics if d.field == field] in (["Invalid"], ["Unsupported"])


def test_another_formats_spellings_are_typed_from_the_specs() -> None:
    types = declared_types()
    assert types[("request", "openai_chat", "stream_absent")] == "boolean"
    assert types[("request", "openai_chat", "stop")] == "null"
    assert types[("request", "anthropic", "members/content_form")] == "string"
    assert types[("request", "gemini", "members/id")] == "null"  # an absence: only a kept null


def test_every_side_car_entry_of_the_wrong_type_is_named_and_nothing_but_lucent_errors_is_raised() -> None:
    seen: set[tuple[str, str, str]] = set()
    texts: list[tuple[str, str]] = []
    drops = []
    count = 0
    for kind, doc in lux_documents(iter(documents(False, 0))):
        targets = next(outs for _source, k, outs in _convert_targets("lux-ir-v1", DOCUMENTS[("lux", kind)][1]) if k == kind)
        drops.extend(silent_drops(doc, kind, targets, SECRET, CONTEXT, seen, lambda where, found: texts.extend((where, t) for t in found)))
        count += 1
    assert count > 500 and len(seen) > 2_000 and len(texts) > 100_000
    assert {k for k, _s, _t in seen} == {"request", "response"}
    assert drops == []
    assert [t for t in texts if SECRET in t[1] or CONTROL_CHARACTERS.search(t[1])] == []
