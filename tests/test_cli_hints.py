"""Mistakes get a hint (issue 16, point 5): the wrong kind, the wrong format, a stream recorded as
a JSON array, and ``validate`` over a folder with its summary line."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import msgspec
import pytest

import lucent
from lucent import streams
from lucent.cli import main
from tests.paths import DATA

_SNAPSHOTS = DATA / "lingua" / "snapshots"
_ANTHROPIC = _SNAPSHOTS / "anthropicMessageWithSystemMessage" / "anthropic"
_CHAT_REQUEST = {"model": "gpt-4o", "messages": [{"role": "user", "content": "hi"}]}


def _write(tmp_path: Path, name: str, value: object) -> str:
    path = tmp_path / name
    path.write_text(json.dumps(value), encoding="utf-8")
    return str(path)


def test_a_response_converted_as_a_request_says_it_looks_like_a_response(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    response = next(iter(sorted(_SNAPSHOTS.glob("*/anthropic/response.json"))))
    assert main(["convert", "--from", "anthropic", "--to", "openai-chat", str(response)]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err.startswith("lucent: $: this is not an anthropic request: ")
    assert captured.err.endswith("; this looks like a response (--kind response) [wrong_format]\n")
    assert main(["convert", "--from", "anthropic", "--to", "gemini", "--kind", "response", str(response)]) == 0
    assert "candidates" in json.loads(capsys.readouterr().out)  # the hint was right
    assert main(["convert", "--from", "anthropic", "--to", "openai-chat", str(_ANTHROPIC / "request.json")]) == 0
    assert "looks like" not in capsys.readouterr().err  # a request of the named kind gets no hint


def test_a_document_of_another_format_is_refused_naming_it(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    source = _write(tmp_path, "chat.json", _CHAT_REQUEST)
    # every Gemini request member is optional and the object is open: this used to "convert" to
    # {"messages": [], ...} with exit status 3
    assert main(["convert", "--from", "gemini", "--to", "anthropic", "--context", '{"max_tokens": 10}', source]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err == (
        "lucent: $: this is not a gemini request: messages is not a member of one; "
        "this looks like an openai-chat request (--from openai-chat) [wrong_format]\n"
    )


def test_a_document_that_fails_to_decode_gets_the_hint_after_the_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # an Anthropic request without max_tokens is no Anthropic request (a closed, required member
    # set) and fits Chat exactly: the decode error, then where it fits
    source = _write(tmp_path, "chat.json", _CHAT_REQUEST)
    assert main(["convert", "--from", "anthropic", "--to", "openai-chat", source]) == 1
    lines = capsys.readouterr().err.splitlines()
    assert lines[0].startswith("lucent: $") and lines[0].endswith("]")
    assert lines[1] == "lucent: this looks like an openai-chat request (--from openai-chat)"


@pytest.mark.parametrize("fmt", ["anthropic", "gemini", "openai-chat", "openai-responses"])
def test_the_stream_commands_read_a_recorded_json_array_of_events(fmt: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    folder = {"anthropic": "anthropic", "gemini": "google", "openai-chat": "chat-completions", "openai-responses": "responses"}[fmt]
    recorded = sorted(_SNAPSHOTS.glob(f"*/{folder}/response-streaming.json"))[0]
    events = json.loads(recorded.read_text())
    assert main(["assemble", "--format", fmt, str(recorded)]) == 0
    out = capsys.readouterr().out
    assert json.loads(out) == msgspec.to_builtins(streams.assemble(events, fmt))  # as the Python API reads the list
    target = "openai-chat" if fmt != "openai-chat" else "anthropic"
    context = json.dumps({"created": 1} if target == "openai-chat" else {})
    status = main(["convert", "--kind", "stream", "--from", fmt, "--to", target, "--context", context, str(recorded)])
    captured = capsys.readouterr()
    written = [json.loads(line[len("data: "):]) for line in captured.out.splitlines() if line.startswith("data: ") and line != "data: [DONE]"]
    conversion = streams.convert_stream(events, fmt, target, context=json.loads(context))
    assert written == [msgspec.to_builtins(e) for e in conversion]  # as the Python API converts the list
    assert status == (3 if any(d.status == "Invalid" for d in conversion.diagnostics) else 0), captured.err


def test_validate_a_folder_checks_its_json_files_and_ends_with_a_summary(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    folder = tmp_path / "docs"
    shutil.copytree(_ANTHROPIC, folder / "anthropic")
    (folder / "notes.txt").write_text("not json")
    (folder / "nested").mkdir()
    (folder / "nested" / "bad.json").write_text('{"model": 1}')
    assert main(["validate", "--format", "anthropic", "--definition", "CreateMessageParams", str(folder)]) == 1
    captured = capsys.readouterr()
    out = captured.out.splitlines()
    # request.json is valid; response-streaming.json (an array) and nested/bad.json are not
    assert [line.split(": ")[0] for line in out] == [str(folder / "anthropic" / "response-streaming.json"), str(folder / "nested" / "bad.json")]
    assert captured.err == "3 files: 1 valid, 2 invalid\n"
    assert main(["validate", "--format", "anthropic", "--definition", "CreateMessageParams", str(folder / "anthropic" / "request.json")]) == 0
    assert capsys.readouterr() == ("", "1 file: 1 valid, 0 invalid\n")


def test_validate_a_folder_does_not_read_a_fifo_or_a_broken_link_in_it(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    folder = tmp_path / "docs"
    folder.mkdir()
    shutil.copy(_ANTHROPIC / "request.json", folder / "a.json")
    os.mkfifo(folder / "p.json")  # reading it would wait for a writer forever
    (folder / "gone.json").symlink_to(folder / "nowhere.json")
    assert main(["validate", "--format", "anthropic", "--definition", "CreateMessageParams", str(folder)]) == 2
    err = capsys.readouterr().err.splitlines()
    assert err == [
        f"{folder / 'gone.json'}: cannot read: No such file or directory",
        f"{folder / 'p.json'}: cannot read: not a regular file",
        "3 files: 1 valid, 0 invalid, 2 unreadable",
    ]


def test_another_formats_stream_given_as_gemini_is_refused(capsys: pytest.CaptureFixture[str]) -> None:
    # every Gemini response member is optional and unknown members are allowed: an Anthropic
    # stream used to assemble as Gemini to {} with exit status 0
    example = Path(__file__).parent.parent / "examples" / "anthropic-stream.sse"
    assert main(["assemble", "--format", "gemini", str(example)]) == 1
    assert capsys.readouterr().err == (
        "lucent: $[0]: frame 0 has none of the members of a GenerateContentResponse (type, message): "
        "it is no gemini stream event [unknown_frame]\n"
    )
    with pytest.raises(lucent.errors.StreamError) as raised:
        streams.assemble([{"type": "message_start", "message": {}}], "gemini")
    assert (raised.value.code, raised.value.path) == ("unknown_frame", "$[0]")
    assert msgspec.to_builtins(streams.assemble([{}], "gemini")) == {}  # an empty chunk holds nothing foreign


def test_the_stream_functions_read_a_json_array_of_events_given_as_bytes() -> None:
    recorded = _ANTHROPIC / "response-streaming.json"
    events = json.loads(recorded.read_bytes())
    expected = msgspec.to_builtins(streams.assemble(events, "anthropic"))
    assert msgspec.to_builtins(streams.assemble(recorded.read_bytes(), "anthropic")) == expected
    assert msgspec.to_builtins(streams.assemble(b"\xef\xbb\xbf \n" + recorded.read_bytes(), "anthropic")) == expected
    converted = list(streams.convert_stream(recorded.read_bytes(), "anthropic", "openai-chat"))
    assert [msgspec.to_builtins(e) for e in converted] == [msgspec.to_builtins(e) for e in streams.convert_stream(events, "anthropic", "openai-chat")]
    for data, code, path in [(b"[1]", "malformed_frame", "$[0]"), (b"[{}, ", "malformed_frame", "$"), (b'[{"a": 1, "a": 2}]', "malformed_frame", "$")]:
        with pytest.raises(lucent.errors.StreamError) as raised:
            streams.assemble(data, "anthropic")
        assert (raised.value.code, raised.value.path) == (code, path)
    with pytest.raises(lucent.errors.StreamError) as raised:
        streams.assemble(recorded.read_bytes(), "anthropic", limits=lucent.Limits(max_stream_bytes=100))
    assert raised.value.code == "stream_too_large"
