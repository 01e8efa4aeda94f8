"""`lucent preflight --format F --model NAME [--discovery FILE] FILE`: the findings, and the exit
statuses of `lucent convert` (0 done, 1 invalid or --strict refusal, 2 usage or file error, 3 an
Invalid diagnostic)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from lucent import capabilities
from lucent.cli import main

ROOT = Path(__file__).resolve().parents[1]
IMAGE = ROOT / "tests" / "data" / "lingua" / "snapshots" / "imageContentParam" / "anthropic" / "request.json"


def test_a_model_without_image_input_gets_one_line_per_finding(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["preflight", "--format", "anthropic", "--model", "gpt-3.5-turbo", str(IMAGE)]) == 0
    captured = capsys.readouterr()
    assert captured.out.splitlines() == [
        "Unsupported $.messages[0].content[0]: an image input: the model's input_modalities (text) lack image"]
    assert captured.err.strip() == "lucent: 1 finding(s) for model_pattern gpt-3.5-turbo (openai)"


def test_strict_refuses_an_unsupported_finding_with_status_1(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["preflight", "--strict", "--format", "anthropic", "--model", "gpt-3.5-turbo", str(IMAGE)]) == 1
    assert main(["preflight", "--strict", "--format", "anthropic", "--model", "claude-sonnet-4-5-20250929", str(IMAGE)]) == 0
    assert capsys.readouterr().out == "Unsupported $.messages[0].content[0]: an image input: the model's input_modalities (text) lack image\n"


def test_a_model_no_pattern_matches_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["preflight", "--format", "anthropic", "--model", "my-private-model", str(IMAGE)]) == 2
    err = capsys.readouterr().err
    assert "[unknown_model]" in err and "my-private-model" not in err


def test_a_user_discovery_document_is_used(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    mine = json.loads(Path(capabilities.DISCOVERY_PATH).read_text(encoding="utf-8"))
    mine["providers"] = [{"model_pattern": "my-*", "provider": "me", "capabilities": {
        "tool_calling": "full", "parallel_tool_calls": "full", "reasoning": "none", "multimodal_input": "partial",
        "structured_output": "none", "input_modalities": ["text", "image"], "output_modalities": ["text"]}}]
    path = tmp_path / "discovery.json"
    path.write_text(json.dumps(mine), encoding="utf-8")
    assert main(["preflight", "--format", "anthropic", "--model", "my-model", "--discovery", str(path), str(IMAGE)]) == 0
    assert capsys.readouterr().out.startswith("Degraded $.messages[0].content[0]: ")
    assert main(["preflight", "--format", "anthropic", "--model", "gpt-4o", "--discovery", str(path), str(IMAGE)]) == 2  # replaced, not added to


@pytest.mark.parametrize(
    ("content", "code"),
    [('{"schema_version": "v1"}', "invalid_discovery"), ("not json", "invalid_discovery")],
)
def test_a_discovery_document_that_breaks_lucent_discovery_is_status_2(tmp_path: Path, capsys: pytest.CaptureFixture[str], content: str, code: str) -> None:
    path = tmp_path / "discovery.json"
    path.write_text(content, encoding="utf-8")
    assert main(["preflight", "--format", "anthropic", "--model", "gpt-4o", "--discovery", str(path), str(IMAGE)]) == 2
    assert f"[{code}]" in capsys.readouterr().err


def test_files_that_cannot_be_read_are_status_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["preflight", "--format", "anthropic", "--model", "gpt-4o", str(tmp_path / "missing.json")]) == 2
    assert main(["preflight", "--format", "anthropic", "--model", "gpt-4o", "--discovery", str(tmp_path / "missing.json"), str(IMAGE)]) == 2
    assert capsys.readouterr().err.count("cannot read") == 2


def test_an_invalid_request_is_status_1(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "request.json"
    path.write_text('{"model": 5, "messages": []}', encoding="utf-8")
    assert main(["preflight", "--format", "openai-chat", "--model", "gpt-4o", str(path)]) == 1
    assert "[type]" in capsys.readouterr().err


def test_a_request_that_breaks_a_protocol_rule_is_status_3(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    request = json.loads((ROOT / "examples" / "sparktide-request.json").read_text(encoding="utf-8"))
    request["messages"][1]["tool_calls"][0]["function"]["arguments"] = "[1, 2]"  # SparkTide: arguments are one JSON object
    path = tmp_path / "request.json"
    path.write_text(json.dumps(request), encoding="utf-8")
    assert main(["preflight", "--format", "sparktide", "--model", "gpt-4o", str(path)]) == 3
    assert capsys.readouterr().out.startswith("Invalid $.messages[1].tool_calls[0].function.arguments: ")


def test_python_m_lucent_preflight_reads_stdin() -> None:
    out = subprocess.run([sys.executable, "-m", "lucent", "preflight", "--format", "anthropic", "--model", "o3-mini", "-"],
                         input=IMAGE.read_bytes(), capture_output=True, cwd=ROOT)
    assert (out.returncode, out.stdout.decode().split(":")[0]) == (0, "Unsupported $.messages[0].content[0]")
