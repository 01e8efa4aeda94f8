"""The command line with its standard streams closed or failing, as real processes: a clean exit
status, no traceback, and stdout holding only the output (issue 14, class 5).

stdin is ``-``'s input: closed, or a descriptor that cannot be read (opened write-only); stdout
and stderr are closed, or ``/dev/full`` (every write fails with ENOSPC). The rules
(lucent.cli's docstring): an unusable stdin or stdout is a file error, exit status 2, said on
stderr; an unusable stderr drops its lines and changes nothing else.
"""

from __future__ import annotations

import itertools
import json
import os
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.cli_process import Ran, run_cli

pytestmark = pytest.mark.skipif(not os.path.exists("/dev/full"), reason="needs /dev/full (Linux)")

ROOT = Path(__file__).parent.parent
STDIN = ("ok", "closed", "write-only")
OUT = ("ok", "closed", "full")


@dataclass(frozen=True)
class Command:
    name: str
    args: tuple[str, ...]
    document: bytes  # what `-` reads
    status: int  # the exit status with every stream usable


COMMANDS = {
    command.name: command
    for command in (
        Command(
            "convert",  # the whole document at the end; diagnostics before it, status 3 (Invalid)
            ("convert", "--from", "llm-sdk", "--to", "sparktide", "--context", '{"invocationId": "x"}', "-"),
            json.dumps({"messages": [{"role": "user", "content": [{"type": "text", "text": "hi"}]}]}).encode(),
            3,
        ),
        Command(
            "convert-stream",  # written event by event; diagnostics after the stream
            ("convert", "--kind", "stream", "--from", "anthropic", "--to", "openai-chat", "--context", '{"created": 1764560000}', "-"),
            (ROOT / "examples" / "anthropic-stream.sse").read_bytes(),
            0,
        ),
        Command(
            "validate",  # one line per invalid document, on stdout
            ("validate", "--format", "sparktide", "-"),
            b'{"protocolVersion":',
            1,
        ),
        Command("assemble", ("assemble", "--format", "anthropic", "-"), (ROOT / "examples" / "anthropic-stream.sse").read_bytes(), 0),
    )
}


def _run(command: Command, work: Path, stdin: str, stdout: str, stderr: str) -> Ran:
    source = work / "input"
    source.write_bytes(command.document)
    return run_cli(
        command.args, work, timeout=60,
        stdin=source if stdin == "ok" else stdin,
        stdout="file" if stdout == "ok" else stdout,
        stderr="file" if stderr == "ok" else stderr,
    )


@pytest.fixture(scope="module")
def baselines(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Ran]:
    """Each command's run with every stream usable."""
    return {name: _run(command, tmp_path_factory.mktemp(name), "ok", "ok", "ok") for name, command in COMMANDS.items()}


def _combinations(full: bool) -> list[tuple[str, str, str]]:
    every = list(itertools.product(STDIN, OUT, OUT))
    if full:
        return every
    # each stream unusable alone, and all three at once
    return [c for c in every if sum(s != "ok" for s in c) == 1] + [("closed", "closed", "closed"), ("write-only", "full", "full")]


CASES = [
    pytest.param(name, *streams, id=f"{name}-in:{streams[0]}-out:{streams[1]}-err:{streams[2]}")
    for name, full in (("convert", True), ("convert-stream", True), ("validate", False), ("assemble", False))
    for streams in _combinations(full)
]


def test_the_baselines_write_output_on_stdout_and_diagnostics_on_stderr(baselines: dict[str, Ran]) -> None:
    convert = baselines["convert"]
    assert convert.status == 3
    assert json.loads(convert.out or b"")["invocationId"] == "x"
    assert (convert.err or b"").startswith(b"Invalid target:$.deadline: required by the target")
    stream = baselines["convert-stream"]
    assert stream.status == 0 and (stream.out or b"").endswith(b"data: [DONE]\n\n")
    assert b"Unsupported $[1]: a chat stream has no thinking content; dropped\n" in (stream.err or b"")
    validate = baselines["validate"]
    assert (validate.status, validate.out, validate.err) == (1, b"-: $: JSON text ends early at byte 19 [malformed_json]\n", b"1 file: 0 valid, 1 invalid\n")
    assemble = baselines["assemble"]
    assert assemble.status == 0 and json.loads(assemble.out or b"")["type"] == "message" and assemble.err == b""


@pytest.mark.parametrize(("name", "stdin", "stdout", "stderr"), CASES)
def test_closed_or_failing_std_streams_give_a_clean_status_and_never_mix_stdout(
    name: str, stdin: str, stdout: str, stderr: str, baselines: dict[str, Ran], tmp_path: Path,
) -> None:
    command = COMMANDS[name]
    baseline = baselines[name]
    ran = _run(command, tmp_path, stdin, stdout, stderr)
    if stdin != "ok":
        expected_status, expected_out = 2, b""
    elif stdout != "ok":
        expected_status, expected_out = 2, None
    else:
        expected_status, expected_out = command.status, baseline.out
    assert ran.status == expected_status
    if ran.out is not None:
        assert ran.out == expected_out  # the output whole, or nothing: never a message
    if ran.err is not None:
        assert b"Traceback" not in ran.err and b"Exception ignored" not in ran.err
        if stdin != "ok":
            reason = b"stdin is closed" if stdin == "closed" else b"Bad file descriptor"
            summary = b"1 file: 0 valid, 0 invalid, 1 unreadable\n" if name == "validate" else b""  # validate ends with its summary
            assert ran.err == b"-: cannot read: " + reason + b"\n" + summary
        elif stdout != "ok":
            reason = b"stdout is closed" if stdout == "closed" else b"No space left on device"
            assert ran.err.endswith(b"lucent: cannot write to stdout: " + reason + b"\n")
            assert baseline.err is not None and baseline.err.startswith(ran.err[: -len(b"lucent: cannot write to stdout: " + reason + b"\n")])
        else:
            assert ran.err == baseline.err


@pytest.mark.parametrize(
    ("args", "stdout", "stderr", "status", "err"),
    [
        (("--version",), "closed", "file", 2, b"lucent: cannot write to stdout: stdout is closed\n"),
        (("--help",), "full", "file", 2, b"lucent: cannot write to stdout: No space left on device\n"),
        (("--version",), "closed", "closed", 2, None),
        (("convert", "--bogus"), "file", "closed", 2, None),  # argparse printed its usage line to stdout
        (("convert", "--bogus"), "file", "full", 2, None),
    ],
)
def test_help_version_and_usage_errors_keep_to_their_streams(args: tuple[str, ...], stdout: str, stderr: str, status: int, err: bytes | None, tmp_path: Path) -> None:
    ran = run_cli(args, tmp_path, stdout=stdout, stderr=stderr, timeout=60)
    assert ran.status == status
    assert ran.out in (None, b"")
    assert ran.err == err


def test_a_reader_that_stops_reading_a_large_output_gives_exit_status_1(tmp_path: Path) -> None:
    """`lucent convert big.json | (sleep 1; head -c 5)`: the pipe takes part of the ~2 MB
    output (a short write), then its reader goes away; the command stops quietly with exit
    status 1 (README), as the `--kind stream` path does, not 0 with the output cut."""
    document = json.dumps({"model": "m", "max_tokens": 5, "messages": [{"role": "user", "content": "x" * 2_000_000}]}).encode()
    source = tmp_path / "input"
    source.write_bytes(document)
    ran = run_cli(("convert", "--from", "anthropic", "--to", "openai-chat", "-"), tmp_path, stdin=source, stdout="stops", timeout=60)
    assert ran.status == 1, ran.err
    assert ran.err == b""
