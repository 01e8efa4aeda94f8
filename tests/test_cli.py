"""The lucent CLI: validate prints one line per invalid document and sets the exit status."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from lucent.cli import main

DOCS = Path(__file__).parent / "data" / "sparktide-docs"


def test_validate_accepts_valid_documents_silently(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["validate", "--schema", "sparktide-remote-1.0", str(DOCS / "request.json"), str(DOCS / "failure.json")]) == 0
    assert capsys.readouterr().out == ""


def test_validate_prints_file_path_and_message_for_each_invalid_document(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "bad.json"
    request = json.loads((DOCS / "request.json").read_text(encoding="utf-8"))
    request["messages"].append({"role": "tool", "content": "x"})
    bad.write_text(json.dumps(request), encoding="utf-8")
    malformed = tmp_path / "malformed.json"
    malformed.write_bytes(b'{"a":')
    status = main(["validate", "--schema", "sparktide-remote-1.0", "--definition", "RemoteModelRequest", str(DOCS / "request.json"), str(bad), str(malformed)])
    lines = capsys.readouterr().out.splitlines()
    assert status == 1
    assert lines == [
        f"{bad}: $.messages[1]: 'tool_call_id' is a required property [required]",
        f"{malformed}: $: JSON text ends early at byte 5 [malformed_json]",
    ]


def test_validate_with_an_unknown_definition_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["validate", "--schema", "llm-sdk", "--definition", "Nope", str(DOCS / "request.json")]) == 2
    assert "unknown_definition" in capsys.readouterr().err
