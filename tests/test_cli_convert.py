"""`lucent convert`: any format to any other through Lux, and --diagnostics as a DiagnosticReport."""

from __future__ import annotations

import json
import pathlib

import jsonschema
import pytest

from lucent.cli import main
from tests.cases import SCHEMAS, load, validator


def report_validator() -> jsonschema.Draft202012Validator:
    schema = json.loads((SCHEMAS / "lucent-diagnostics-v1.json").read_text(encoding="utf-8"))
    schema = {k: v for k, v in schema.items() if k != "$ref"}
    schema["$ref"] = "#/$defs/DiagnosticReport"
    return jsonschema.Draft202012Validator(schema)


def test_convert_llm_sdk_to_sparktide_writes_a_valid_document_and_report(tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str]) -> None:
    case = load("16")
    source = tmp_path / "input.json"
    source.write_text(json.dumps(case["input"]), encoding="utf-8")
    report = tmp_path / "diagnostics.json"
    status = main(["convert", "--from", "llm-sdk", "--to", "sparktide", "--context", json.dumps(case["context"]), "--diagnostics", str(report), str(source)])
    captured = capsys.readouterr()
    assert status == 0
    out = json.loads(captured.out)
    validator("sparktide", "request").validate(out)
    assert out["messages"] == [{"role": "user", "content": "Transcribe this."}]
    written = json.loads(report.read_text(encoding="utf-8"))
    report_validator().validate(written)
    assert (written["source"], written["target"], written["kind"]) == ("llm-sdk", "sparktide", "request")
    assert [(d["field"], d["status"]) for d in written["diagnostics"]] == [
        ("$.messages[0].content[1]", "Unsupported"),
        ("$.messages[0].content[1].audioData", "Unsupported"),
    ]
    assert captured.err.splitlines()[0].startswith("Unsupported $.messages[0].content[1]: ")


def test_convert_strict_fails_with_every_diagnostic_of_both_hops(tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str]) -> None:
    case = load("16")
    source = tmp_path / "input.json"
    source.write_text(json.dumps(case["input"]), encoding="utf-8")
    status = main(["convert", "--from", "llm-sdk", "--to", "sparktide", "--strict", "--context", json.dumps(case["context"]), str(source)])
    err = capsys.readouterr().err
    assert status == 1
    assert "Unsupported $.messages[0].content[1]: " in err and "Unsupported $.messages[0].content[1].audioData: " in err
    assert "[conversion_lossy]" in err


def test_convert_an_llm_sdk_response_to_lux_reports_the_missing_id_and_model(tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str]) -> None:
    source = tmp_path / "response.json"
    source.write_text(json.dumps({"content": [{"type": "text", "text": "Hello."}]}), encoding="utf-8")
    report = tmp_path / "diagnostics.json"
    assert main(["convert", "--from", "llm-sdk", "--to", "lux", "--kind", "response", "--diagnostics", str(report), str(source)]) == 3  # written, but Invalid
    written = json.loads(report.read_text(encoding="utf-8"))
    report_validator().validate(written)
    assert [(d["field"], d["status"]) for d in written["diagnostics"]][:2] == [("target:$.id", "Invalid"), ("target:$.model", "Invalid")]
    assert json.loads(capsys.readouterr().out)["choices"][0]["message"]["content"] == [{"type": "text", "text": "Hello."}]


@pytest.mark.parametrize(
    ("argv", "code"),
    [
        (["--from", "nope", "--to", "lux"], "unknown_format"),
        (["--from", "lux", "--to", "htmlp", "--kind", "response"], "unsupported_conversion"),
    ],
    ids=["unknown format", "unsupported kind"],
)
def test_a_usage_error_exits_2(argv: list[str], code: str, tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str]) -> None:
    source = tmp_path / "input.json"
    source.write_text("{}", encoding="utf-8")
    assert main(["convert", *argv, str(source)]) == 2
    assert capsys.readouterr().err.strip().endswith(f"[{code}]")
