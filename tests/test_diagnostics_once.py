"""One source path is reported at most once per conversion, with one status (issue 16, point 1;
docs/semantics.md): through Lux, a member the first hop keeps in the Lux side-car (Degraded)
that the target then has no place for (Unsupported) is reported once, Unsupported."""

from __future__ import annotations

import json
from collections import Counter

import lucent
from tests.paths import DATA

_SNAPSHOTS = DATA / "lingua" / "snapshots"


def test_a_composed_anthropic_to_chat_response_reports_cache_creation_once_unsupported() -> None:
    response = {
        "id": "msg_1", "type": "message", "role": "assistant", "model": "claude", "content": [{"type": "text", "text": "hi"}],
        "stop_reason": "end_turn", "stop_sequence": None,
        "usage": {"input_tokens": 3, "output_tokens": 1, "cache_creation": {"ephemeral_5m_input_tokens": 2, "ephemeral_1h_input_tokens": 0}},
    }
    result = lucent.convert(json.dumps(response), "anthropic", "openai-chat", kind="response", context={"created": 1})
    found = [(d.field, d.status) for d in result.diagnostics if d.field == "$.usage.cache_creation"]
    assert found == [("$.usage.cache_creation", "Unsupported")]
    assert "kept in provider_payload" not in " ".join(d.detail for d in result.diagnostics if d.field == "$.usage.cache_creation")


def test_no_field_is_reported_twice_on_any_recorded_document_to_any_target() -> None:
    pairs = [("anthropic", "openai-chat"), ("openai-chat", "anthropic"), ("openai-responses", "gemini"), ("gemini", "openai-responses")]
    folders = {"anthropic": "anthropic", "openai-chat": "chat-completions", "openai-responses": "responses", "gemini": "google"}
    context = {"max_tokens": 1024, "created_at": 1}
    checked = 0
    for source, target in pairs:
        for path in sorted(_SNAPSHOTS.glob(f"*/{folders[source]}/request.json"))[:40]:
            try:
                result = lucent.convert(path.read_bytes(), source, target, context={k: v for k, v in context.items() if k == "max_tokens" and target == "anthropic"})
            except lucent.errors.LucentError:
                continue
            twice = [field for field, n in Counter(d.field for d in result.diagnostics).items() if n > 1]
            assert twice == [], f"{path}: {source} -> {target}"
            checked += 1
    assert checked > 100
