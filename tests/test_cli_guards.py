"""The CLI refuses what would lose the user's data or read a mistake as a value: a diagnostics
file that is the input, and a ``--context`` that is not exactly one JSON object."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from lucent.cli import main

_CHAT = {"model": "gpt-4o", "messages": [{"role": "user", "content": "hi"}]}


def _request(tmp_path: Path) -> Path:
    path = tmp_path / "request.json"
    path.write_text(json.dumps(_CHAT), encoding="utf-8")
    return path


@pytest.mark.parametrize("kind", ["request", "stream"])
def test_diagnostics_written_over_the_input_are_refused_and_the_input_is_kept(tmp_path: Path, capsys: pytest.CaptureFixture[str], kind: str) -> None:
    path = _request(tmp_path)
    before = path.read_bytes()
    link = tmp_path / "same.json"
    link.symlink_to(path)
    for out in (path, link):
        assert main(["convert", "--from", "openai-chat", "--to", "anthropic", "--kind", kind, "--diagnostics", str(out), str(path)]) == 2
        assert capsys.readouterr() == ("", f"lucent: --diagnostics {out} is the input FILE; writing it would destroy the input [usage]\n")
    assert path.read_bytes() == before


def test_diagnostics_beside_the_input_are_written(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = _request(tmp_path)
    out = tmp_path / "diagnostics.json"
    assert main(["convert", "--from", "openai-chat", "--to", "anthropic", "--context", '{"max_tokens": 64}', "--diagnostics", str(out), str(path)]) == 0
    assert json.loads(out.read_text())["target"] == "anthropic"
    assert json.loads(capsys.readouterr().out)["max_tokens"] == 64


@pytest.mark.parametrize(
    ("context", "says"),
    [
        ('{"max_tokens": 1, "max_tokens": 2}', "duplicate property 'max_tokens' [duplicate_key]"),
        ('{"max_tokens": NaN}', "[not_json]"),
        ('{"max_tokens": 1e999}', "[number_out_of_range]"),
        ("[1]", "not an array [usage]"),
        ('"max_tokens"', "not a string [usage]"),
        ("{", "[malformed]"),
    ],
)
def test_a_context_that_is_not_one_json_object_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str], context: str, says: str) -> None:
    assert main(["convert", "--from", "openai-chat", "--to", "anthropic", "--context", context, str(_request(tmp_path))]) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and captured.err.startswith("lucent: --context must be one JSON object") and captured.err.endswith(says + "\n")
