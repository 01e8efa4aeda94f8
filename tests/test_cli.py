"""The lucent CLI: validate prints one line per invalid document and sets the exit status."""

from __future__ import annotations

import json
import os
import subprocess
import sys
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


def test_a_reader_that_goes_away_stops_the_cli_quietly(tmp_path: Path) -> None:
    frames = "".join(f'data: {{"protocolVersion":"1.0","type":"text.delta","text":"w{i}"}}\n\n' for i in range(20_000))
    stream = tmp_path / "stream.sse"
    stream.write_text(frames + 'data: {"protocolVersion":"1.0","type":"model.completed","finishReason":"STOP"}\n\n', encoding="utf-8")
    code = "import sys; from lucent.cli import main; sys.exit(main(sys.argv[1:]))"
    cli = subprocess.Popen([sys.executable, "-c", code, "convert", "--kind", "stream", "--from", "sparktide", "--to", "lux", str(stream)],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert cli.stdout is not None and cli.stderr is not None
    first = cli.stdout.readline()
    cli.stdout.close()  # the reader goes away, as `| head -1` does
    errors = cli.stderr.read().decode()
    assert cli.wait(timeout=60) == 1
    assert first.startswith(b"data: ")
    assert "Traceback" not in errors and "BrokenPipeError" not in errors


LLM_SDK_INPUT = {"messages": [{"role": "user", "content": [{"type": "text", "text": "hi"}]}]}


def test_an_output_with_an_invalid_diagnostic_is_written_with_exit_status_3(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    source = tmp_path / "in.json"
    source.write_text(json.dumps(LLM_SDK_INPUT), encoding="utf-8")
    assert main(["convert", "--from", "llm-sdk", "--to", "sparktide", "--context", '{"invocationId": "x"}', str(source)]) == 3
    captured = capsys.readouterr()
    assert json.loads(captured.out)["invocationId"] == "x"
    assert "Invalid target:$.deadline" in captured.err
    full = {"invocationId": "x", "deadline": 1893456000000, "purpose": "SYNTHETIC_PROBE", "appId": "a", "model": "m", "stream": False, "max_completion_tokens": 256}
    status = main(["convert", "--from", "llm-sdk", "--to", "sparktide", "--context", json.dumps(full), str(source)])
    assert "Invalid" not in capsys.readouterr().err
    assert status == 0


def test_a_strict_refusal_still_writes_the_diagnostics_report(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    source, report = tmp_path / "in.json", tmp_path / "report.json"
    source.write_text(json.dumps(LLM_SDK_INPUT), encoding="utf-8")
    assert main(["convert", "--from", "llm-sdk", "--to", "sparktide", "--strict", "--diagnostics", str(report), str(source)]) == 1
    written = json.loads(report.read_text(encoding="utf-8"))
    lossy = [d for d in written["diagnostics"] if d["status"] in ("Unsupported", "Invalid")]
    assert (written["source"], written["target"], written["kind"]) == ("llm-sdk", "sparktide", "request")
    assert lossy and f"refused: {len(lossy)} of {len(written['diagnostics'])} diagnostic(s)" in capsys.readouterr().err


def test_an_unknown_kind_is_refused_by_the_command_line(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as caught:
        main(["convert", "--from", "lux", "--to", "sparktide", "--kind", "banana", "x.json"])
    assert caught.value.code == 2
    assert "invalid choice: 'banana'" in capsys.readouterr().err


def test_version_and_python_dash_m() -> None:
    from importlib.metadata import version

    shown = subprocess.run([sys.executable, "-m", "lucent", "--version"], capture_output=True, text=True, check=True)
    assert shown.stdout.strip() == f"lucent {version('lucent')}"


def test_validate_refuses_a_schema_root_that_accepts_anything_without_a_definition(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    document = tmp_path / "hello.json"
    document.write_text('"hello"', encoding="utf-8")
    assert main(["validate", "--schema", "llm-sdk", str(document)]) == 2
    assert "accepts any JSON value" in capsys.readouterr().err
    assert main(["validate", "--schema", "llm-sdk", "--definition", "LanguageModelInput", str(document)]) == 1
    assert "Expected `object`, got `str` [type]" in capsys.readouterr().out


def test_a_file_name_that_is_not_utf8_is_printed_under_an_ascii_stdout(tmp_path: Path) -> None:
    # found by the hostile-input pass: the name's undecodable byte (a lone surrogate, PEP 383)
    # raised UnicodeEncodeError from print, under a strict stdout
    folder = os.fsencode(tmp_path)
    (Path(os.fsdecode(folder + b"/bad\xff.json"))).write_bytes(b'{"model":"x"')
    names = [os.fsdecode(folder + b"/bad\xff.json"), os.fsdecode(folder + b"/gone\xfe.json")]
    env = {**os.environ, "PYTHONIOENCODING": "ascii:strict", "LC_ALL": "C"}
    shown = subprocess.run(
        [sys.executable, "-m", "lucent", "validate", "--format", "openai-chat", "--definition", "CreateChatCompletionRequest", *names],
        capture_output=True, env=env,
    )
    assert shown.returncode == 2  # the second file cannot be read
    assert shown.stdout.decode("ascii") == f"{tmp_path}/bad\\xff.json: $: JSON text ends early at byte 12 [malformed_json]\n"
    assert shown.stderr.decode("ascii") == f"{tmp_path}/gone\\xfe.json: cannot read: No such file or directory\n2 files: 0 valid, 1 invalid, 1 unreadable\n"


def test_the_stream_commands_refuse_one_json_object_with_a_hint(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    events = tmp_path / "events.json"
    events.write_text('\n  {"type": "message"}')
    assert main(["assemble", "--format", "anthropic", str(events)]) == 2
    assert main(["convert", "--kind", "stream", "--from", "anthropic", "--to", "lux", str(events)]) == 2
    err = capsys.readouterr().err.splitlines()
    assert err == [f"{events}: this is one JSON object, not a stream: a text/event-stream (`data:` lines, "
                   "a blank line after each event) or a JSON array of events"] * 2


def test_the_shipped_anthropic_stream_assembles_and_converts(capsys: pytest.CaptureFixture[str]) -> None:
    example = Path(__file__).parent.parent / "examples" / "anthropic-stream.sse"
    assert main(["assemble", "--format", "anthropic", str(example)]) == 0
    message = json.loads(capsys.readouterr().out)
    assert [block["type"] for block in message["content"]] == ["thinking", "text"]
    assert main(["convert", "--kind", "stream", "--from", "anthropic", "--to", "openai-chat", "--context", '{"created": 1764560000}', str(example)]) == 0
    out = capsys.readouterr().out
    assert out.endswith("data: [DONE]\n\n") and '"content":"2 + "' in out


def test_control_characters_from_the_input_or_a_file_name_are_printed_escaped(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # found by the hostile-input pass: a property name holding a newline forged a line of its
    # own, and an ESC sequence in a name reached the terminal
    forged = tmp_path / "inv\nalid\x1b[2J.json"
    forged.write_text('{"protocolVersion":"1.0","a\\nlucent: forged line\\u001b[31m\\u202e":1}')
    assert main(["validate", "--schema", "sparktide-remote-1.0", "--definition", "RemoteModelRequest", str(forged)]) == 1
    out = capsys.readouterr().out
    assert out == f"{tmp_path}/inv\\nalid\\u001b[2J.json: $: Object contains unknown field `a\\nlucent: forged line\\u001b[31m\\u202e` [additionalProperties]\n"
