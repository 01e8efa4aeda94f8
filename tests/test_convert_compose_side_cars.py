"""A composed conversion (X -> Lux -> Y) names every source member the first hop kept in a Lux
side-car's ``members`` space when the second hop cannot carry that side-car (lucent._convert
``_kept_members``). Found by the fuzzer: Responses message ids went to SparkTide unnamed."""

from __future__ import annotations

import json
import pathlib

import lucent
from lucent._context import read_by
import msgspec
import pytest

from tests.conservation import idle_values, lost_values
from tests.fuzz.harness import CONTEXT

SNAPSHOTS = pathlib.Path(__file__).parent / "data" / "lingua" / "snapshots"
FOLLOWUP = SNAPSHOTS / "anthropicOpus5AdaptiveThinkingMaxEffortParam" / "responses" / "followup-request.json"


def test_kept_message_members_are_named_at_their_source_paths_when_the_target_drops_the_side_car() -> None:
    result = lucent.convert(FOLLOWUP.read_bytes(), source="openai-responses", target="sparktide", kind="request", context=read_by(CONTEXT, "openai-responses", "sparktide"))
    named = {d.field: d.status for d in result.diagnostics}
    for field in ("$.input[1].id", "$.input[1].status", "$.input[1].phase"):
        assert named[field] == "Unsupported"


@pytest.mark.parametrize("target", ["sparktide", "llm-sdk", "htmlp"])
def test_no_responses_request_loses_a_value_unnamed_on_the_way_to_a_seed_format(target: str) -> None:
    checked = 0
    for path in sorted(SNAPSHOTS.glob("*/responses/*request.json")):
        data = path.read_bytes()
        try:
            result = lucent.convert(data, source="openai-responses", target=target, kind="request", context=read_by(CONTEXT, "openai-responses", target))
        except lucent.errors.LucentError:
            continue
        checked += 1
        assert lost_values(json.loads(data), msgspec.to_builtins(result.value), result.diagnostics, spelling=idle_values("openai-responses")) == [], path
    assert checked >= 40
