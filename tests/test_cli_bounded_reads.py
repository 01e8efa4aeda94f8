"""The command line reads at most its cap (and one byte) of a document, and a stream as it comes,
white space before the first event included (issue 14, class 7); the caps are flags.

Each refusal runs as a real process whose peak memory is read from the kernel (wait4's
``ru_maxrss``) and held to a generous bound: before, ``/dev/zero`` ended in a MemoryError, a
2 GB sparse file cost 2.1 GB, and a stream of blanks was read whole before its cap.
"""

from __future__ import annotations

import itertools
import json
from pathlib import Path

import pytest

from lucent.cli import main
from tests.cli_process import run_cli

MiB = 1 << 20
BODY_BOUND = 200 * MiB  # the 32 MiB cap is read (and held once): ~60 MB measured
STREAM_BOUND = 250 * MiB  # a 64 MiB stream cap: its longest line is held by the SSE parser (~87 MB measured)


@pytest.mark.parametrize(
    ("args", "refusal"),
    [
        (("convert", "--from", "openai-chat", "--to", "lux"), b"lucent: $: the JSON body is over 33554432 bytes, the limit [max_body_bytes]\n"),
        (("convert", "--from", "sparktide", "--to", "lux", "--max-body-bytes", "1000"), b"lucent: $: the JSON body is over 1000 bytes, the limit [max_body_bytes]\n"),
        (("validate", "--format", "anthropic"), b": $: the JSON body is over 33554432 bytes, the limit [max_body_bytes]\n"),
        (("validate", "--format", "sparktide"), b": $: the JSON body is over 1048576 bytes, the limit [max_body_bytes]\n"),
    ],
    ids=["convert-default", "convert-flag", "validate-default", "validate-sparktide"],
)
@pytest.mark.parametrize("source", ["dev-zero", "sparse-2GiB", "stdin-dev-zero"])
def test_a_body_past_the_cap_is_refused_having_read_only_the_cap(args: tuple[str, ...], refusal: bytes, source: str, tmp_path: Path) -> None:
    if source == "sparse-2GiB":
        name = str(tmp_path / "sparse.json")
        with open(name, "wb") as sparse:
            sparse.truncate(2 << 30)  # no blocks on disk; 2 GiB of NUL when read
        ran = run_cli([*args, name], tmp_path)
    elif source == "dev-zero":
        name = "/dev/zero"
        ran = run_cli([*args, name], tmp_path)
    else:
        name = "-"
        ran = run_cli([*args, "-"], tmp_path, stdin=Path("/dev/zero"))
    assert ran.status == 1
    if args[0] == "convert":
        assert (ran.err, ran.out) == (refusal, b"")
    else:  # validate: the document is invalid, on stdout
        assert (ran.out, ran.err) == (name.encode() + refusal, b"1 file: 0 valid, 1 invalid\n")
    assert ran.max_rss < BODY_BOUND


def _blanks(unit: bytes) -> object:
    return itertools.repeat(unit * (64 * 1024 // len(unit)))  # without end: only the cap stops it


@pytest.mark.parametrize(
    ("args", "unit", "limit"),
    [
        (("assemble", "--format", "openai-chat"), b"\n", 67108864),
        (("assemble", "--format", "sparktide"), b"\r\n", 4194304),
        (("convert", "--kind", "stream", "--from", "anthropic", "--to", "lux"), b" ", 67108864),
        (("convert", "--kind", "stream", "--from", "gemini", "--to", "openai-chat", "--max-stream-bytes", "100000"), b"\t\n", 100000),
        (("assemble", "--format", "lux", "--max-stream-bytes", "5000000"), b"\x00", 5000000),  # not white space: one endless line
    ],
    ids=["newlines", "crlf-sparktide", "spaces-convert", "flag", "nul-line"],
)
def test_an_endless_stream_of_blanks_is_refused_at_the_stream_cap(args: tuple[str, ...], unit: bytes, limit: int, tmp_path: Path) -> None:
    ran = run_cli([*args, "-"], tmp_path, stdin="feed", feed=_blanks(unit))  # type: ignore[arg-type]
    assert ran.status == 1
    fmt = args[args.index("--format") + 1] if "--format" in args else args[args.index("--from") + 1]
    assert ran.err == f"lucent: $[0]: the stream is larger than {limit} bytes, the {fmt} limit [stream_too_large]\n".encode()
    assert ran.out == b""
    assert ran.max_rss < STREAM_BOUND


def test_a_json_array_after_much_white_space_is_read_as_the_events(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    events = tmp_path / "events.json"
    events.write_bytes(b" \n\t" * 100_000 + b'[{"type": "ping"}]')  # white space over many reads
    assert main(["assemble", "--format", "anthropic", str(events)]) == 1
    # the array was read: one event (a ping), then the end
    assert capsys.readouterr().err == "lucent: $[1]: the stream ended after 1 events without message_stop [missing_terminal]\n"
    over = tmp_path / "over.json"
    over.write_bytes(b"\n" * 200_000 + b"[]")  # the cap comes first, chunks before the JSON
    assert main(["assemble", "--format", "anthropic", "--max-stream-bytes", "65536", str(over)]) == 1
    assert "[stream_too_large]" in capsys.readouterr().err
    big = tmp_path / "big.json"
    big.write_bytes(b"[" + b'{"type": "ping"},' * 10_000 + b'{"type": "ping"}]')  # JSON past the cap
    assert main(["assemble", "--format", "anthropic", "--max-stream-bytes", "65536", str(big)]) == 1
    assert capsys.readouterr().err == "lucent: $: the stream is larger than 65536 bytes, the anthropic limit [stream_too_large]\n"


def test_the_limit_flags_map_onto_lucent_limits(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    request = tmp_path / "request.json"
    request.write_text(json.dumps({"model": "m", "messages": [{"role": "user", "content": "x" * 2000}]}))
    nested = tmp_path / "nested.json"
    nested.write_text(json.dumps({"model": "m", "messages": [{"role": "user", "content": "hi"}], "metadata": {"a": {"b": {}}}}))
    chat = ["--from", "openai-chat", "--to", "lux"]
    assert main(["convert", *chat, "--max-body-bytes", "2000", str(request)]) == 1
    assert capsys.readouterr().err == "lucent: $: the JSON body is over 2000 bytes, the limit [max_body_bytes]\n"
    assert main(["convert", *chat, "--max-body-bytes", "3000", str(request)]) == 0
    assert json.loads(capsys.readouterr().out)["model"] == "m"
    assert main(["convert", *chat, "--max-depth", "3", str(nested)]) == 1
    assert capsys.readouterr().err == "lucent: $: the document nests deeper than 3 levels, the limit [max_depth]\n"
    assert main(["validate", "--format", "openai-chat", "--max-depth", "3", str(nested)]) == 1
    assert capsys.readouterr().out.endswith("the document nests deeper than 3 levels, the limit [max_depth]\n")
    stream = Path(__file__).parent.parent / "examples" / "anthropic-stream.sse"
    size = stream.stat().st_size
    assert main(["assemble", "--format", "anthropic", "--max-stream-bytes", str(size), str(stream)]) == 0
    capsys.readouterr()
    assert main(["assemble", "--format", "anthropic", "--max-stream-bytes", str(size - 1), str(stream)]) == 1
    assert f"the stream is larger than {size - 1} bytes, the anthropic limit [stream_too_large]" in capsys.readouterr().err
    assert main(["convert", "--kind", "stream", "--from", "anthropic", "--to", "lux", "--max-depth", "2", str(stream)]) == 1
    assert "[max_depth]" in capsys.readouterr().err


@pytest.mark.parametrize("value", ["0", "-3", "x", "1" * 5000])
def test_a_limit_flag_that_is_not_a_positive_number_is_a_usage_error(value: str, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as caught:
        main(["validate", "--format", "gemini", "--max-depth", value, "x.json"])
    assert caught.value.code == 2
    assert "argument --max-depth: a positive whole number" in capsys.readouterr().err
