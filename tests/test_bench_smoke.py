"""The benchmark suite's workloads build and one round of it runs (issue 6); nothing is timed here.

The figures themselves come from `nox -s bench` (bench/results/), never from a test.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import lucent
from lucent._context import read_by
from bench import baselines, memory, workloads
from bench.harness import Case, measure


@pytest.mark.parametrize("name", list(workloads.DOCUMENTS))
def test_each_workload_is_a_valid_document_of_about_its_size(name: str) -> None:
    body = workloads.document(name, "20KB")
    assert 18_000 <= len(body) <= 20_000
    schema, definition = workloads.DOCUMENTS[name]
    assert lucent.decode(body, schema, definition) is not None  # raises when invalid
    assert workloads.document(name, "20KB") is body  # built once per run
    assert workloads.messages_in(name, "20KB") >= 20


def test_conversations_hold_tools_tool_calls_thinking_and_results() -> None:
    doc = json.loads(workloads.document("anthropic", "20KB"))
    kinds = {block["type"] for message in doc["messages"] if isinstance(message["content"], list) for block in message["content"]}
    assert kinds == {"thinking", "text", "tool_use", "tool_result"}
    assert [t["name"] for t in doc["tools"]] == ["get_weather", "search_web", "read_file"]


def test_workloads_are_deterministic() -> None:
    assert workloads.conversation(3, 5) == workloads.conversation(3, 5)
    assert workloads.conversation(3, 5) != workloads.conversation(3, 5, seed=7)


def test_one_interleaved_round_gives_a_ratio_per_baseline() -> None:
    calls: list[str] = []
    case = Case("smoke", 1, {"a": lambda: calls.append("a"), "b": lambda: calls.append("b")}, budget=0.0)
    measure(case, rounds=3, min_time=0.0)
    assert {k: len(v) for k, v in case.samples.items()} == {"a": 3, "b": 3}
    assert case.ratio("a", "b") > 0
    assert "a" in calls and "b" in calls


@pytest.mark.parametrize("name", list(workloads.DOCUMENTS))
def test_the_typed_parse_baseline_is_lucent_decode_without_its_checks(name: str) -> None:
    schema, definition = workloads.DOCUMENTS[name]
    body = workloads.document(name, "1KB")
    assert baselines.typed_parse(schema, definition)(body) == lucent.decode(body, schema, definition)


@pytest.mark.parametrize("shape", list(memory.SHAPES))
def test_each_memory_shape_is_a_valid_request_of_about_its_size_in_every_format(shape: str) -> None:
    for fmt, (schema, definition) in memory.SCHEMAS.items():
        body = memory.shape(shape, fmt, 50_000)
        assert 45_000 <= len(body) <= 55_000, (fmt, len(body))
        assert lucent.decode(body, schema, definition) is not None  # raises when invalid
        for target in memory.TARGETS[fmt]:
            found = lucent.convert(body, fmt, target, context=read_by(memory.CONTEXT, fmt, target)).diagnostics
            assert not [d for d in found if d.status == "Invalid"], (fmt, target)


def test_one_memory_measurement_runs_in_a_fresh_process(tmp_path: Path) -> None:
    body = tmp_path / "body.json"
    body.write_bytes(memory.shape("empty-objects", "openai-chat", 200_000))
    figures = memory.measure("decode", "openai-chat", "empty-objects", body)
    assert figures["bytes"] == body.stat().st_size
    assert figures["peak"] > 10 * figures["bytes"]  # ~24 bytes a byte for empty objects
    assert figures["diagnostics"] is None
    duplicates = tmp_path / "duplicates.json"
    duplicates.write_bytes(memory.shape("duplicate-keys", "openai-chat", 200_000))
    converted = memory.measure("convert:lux", "openai-chat", "duplicate-keys", duplicates)
    assert converted["diagnostics"] == 1001  # 14,285 duplicate properties, folded past the first 1,000
    assert converted["peak"] > figures["peak"] / 2


def test_the_issue_16_bars_are_read_from_the_litellm_cases_of_one_run() -> None:
    from bench.__main__ import calls_per_conversion, litellm_bars, SMALL_REQUEST

    # samples, not timings: LiteLLM 5x lucent's time on 13 KB (4x bar held), 8x on the small request (10x bar missed)
    cases = {
        "litellm/13KB": Case("litellm/13KB", 1, {}, samples={"litellm": [5.0, 5.0, 5.0], "lucent": [1.0, 1.0, 1.0], "ends": [0.5] * 3}),
        "litellm/small": Case("litellm/small", 1, {}, samples={"litellm": [8.0, 8.0, 8.0], "lucent": [1.0, 1.0, 1.0], "ends": [0.25] * 3}),
    }
    found = {t["target"].split("(")[1].split(" ")[0]: t for t in litellm_bars(cases)}
    assert (found["13KB"]["measured"], found["13KB"]["limit"], found["13KB"]["met"]) == (5.0, 4, True)
    assert (found["small"]["measured"], found["small"]["limit"], found["small"]["met"]) == (8.0, 10, False)
    assert "both ends alone 32.0x faster" in found["small"]["detail"]
    assert 50 < calls_per_conversion(SMALL_REQUEST) < 2_000  # a conversion makes calls, and is counted once
