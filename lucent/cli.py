"""The ``lucent`` command line.

``lucent validate --schema NAME | --format F [--definition D] FILE...``
    One line per invalid document (``FILE: PATH: MESSAGE [code]``) on stdout; exit status 1
    when any document is invalid, 2 when a file cannot be read or the call is wrong. ``--format``
    names the schema by its format (``sparktide``, ``openai-chat``, ``openai-responses``,
    ``anthropic``, ``gemini``, ...); without ``--definition`` a vendor format accepts any of its
    documents (request, response or stream event). A schema whose root accepts any JSON value
    (llm-sdk's is only ``$defs``) needs ``--definition`` (exit status 2 without it).

``lucent convert --from F --to T [--kind K] [--strict] [--context JSON] [--diagnostics OUT] FILE|-``
    The converted document as JSON on stdout and one line per diagnostic on stderr
    (``STATUS FIELD: DETAIL``); ``--diagnostics OUT`` also writes them as a ``DiagnosticReport``
    (schemas/lucent-diagnostics-v1.json). Exit status 1 on a lucent error (and, with
    ``--strict``, on any Unsupported or Invalid diagnostic; ``--diagnostics OUT`` is written
    then too); 2 on a usage error (an unknown format or kind: ``UsageError``); exit status 3 when the output was written but a diagnostic is Invalid (it does
    not validate against the target schema, e.g. a value only ``--context`` can give is missing).

    ``--kind stream`` (``--from``/``--to`` sparktide, llm-sdk, lux, openai-chat, openai-responses,
    anthropic or gemini) reads a ``text/event-stream`` as it arrives and writes the converted
    stream as ``text/event-stream`` on stdout, event by event (a ``[DONE]`` only to end an
    openai-chat stream; ``event:`` fields for anthropic and openai-responses); diagnostics as
    above once the stream ends. A broken stream prints
    ``lucent: PATH: MESSAGE [code]`` (and ``usage received: JSON``) on stderr; exit status 1.

``lucent preflight --format F --model NAME [--discovery FILE] [--strict] FILE|-``
    What the request needs that the model's capability declaration lacks, one line per finding
    on stdout; the exit statuses of ``convert`` (lucent/_cli_preflight.py).

``lucent assemble --format F [--tool NAME]... FILE|-``
    Reads a ``text/event-stream`` (SparkTide, llm-sdk, Lux, openai-chat chunks ending with
    ``[DONE]``, openai-responses, anthropic or gemini events) as it arrives and writes the
    final response as JSON on stdout. A broken stream prints ``lucent: PATH: MESSAGE [code]``
    and, when usage had arrived, ``usage received: JSON`` on stderr; exit status 1.

When the reader of stdout goes away (``lucent ... | head``), the command stops quietly with exit
status 1 (the recipe of the Python docs, "Note on SIGPIPE").
"""

from __future__ import annotations

import argparse
import io
import itertools
import os
import sys
from pathlib import Path
from typing import Any, Iterator, Sequence

from lucent._convert import FORMATS
from lucent._decode import SCHEMAS, decode, encode
from lucent.errors import ConversionError, LucentError, UsageError

STREAM_FORMATS = ("sparktide", "llm-sdk", "lux", "openai-chat", "openai-responses", "anthropic", "gemini")
"""The formats of ``--kind stream`` and ``assemble`` (lucent.streams.FORMATS, without importing it)."""


_INVALID_OUTPUT = 3  # the output was written, but a diagnostic says it is Invalid


def _text(text: str) -> str:
    """A message, path or detail as printed: control characters as their escapes (a message may
    quote a property name of the input)."""
    from lucent.generated._support import printable

    return printable(text)


def _shown(name: str) -> str:
    """A file name as printed: the bytes of a name that is not UTF-8 (which Python holds as lone
    surrogates, PEP 383) as ``\\xNN``, and control characters as their escapes (a name cannot
    start a line of its own or drive the terminal)."""
    return _text(os.fsencode(name).decode("utf-8", "backslashreplace"))


def _read(name: str) -> bytes:
    if name == "-":
        return sys.stdin.buffer.read()
    return Path(name).read_bytes()


def _validate(args: argparse.Namespace) -> int:
    invalid = 0
    schema = args.schema if args.schema is not None else FORMATS[args.format]
    if args.definition is None and _root_accepts_anything(schema):
        print(f"lucent: the root of {schema} accepts any JSON value; name a definition with --definition [usage]", file=sys.stderr)
        return 2
    for name in args.files:
        try:
            decode(_read(name), schema, args.definition)
        except OSError as exc:
            print(f"{_shown(name)}: cannot read: {exc.strerror}", file=sys.stderr)
            return 2
        except UsageError as exc:
            print(f"lucent: {_text(exc.message)} [{exc.code}]", file=sys.stderr)
            return 2
        except LucentError as exc:
            invalid += 1
            print(f"{_shown(name)}: {_text(exc.path)}: {_text(exc.message)} [{exc.code}]")
    return 1 if invalid else 0


def _root_accepts_anything(schema: str) -> bool:
    """True when the schema's root is an empty schema (only $defs), as llm-sdk's is: checking a
    document against it would pass anything."""
    from typing import Any as AnyType

    from lucent._decode import schema_module

    return getattr(schema_module(schema), "ROOT", None) is AnyType


def _convert(args: argparse.Namespace) -> int:
    from lucent._convert import convert
    from lucent.generated.lucent_diagnostics_v1 import DiagnosticReport

    context: Any = None
    if args.context is not None:
        try:
            context = decode(args.context, "llm-sdk", "JSONSchema")  # any JSON object
        except LucentError as exc:
            print(f"lucent: --context must be one JSON object: {_text(exc.path)}: {_text(exc.message)} [{exc.code}]", file=sys.stderr)
            return 2
    if args.kind == "stream":
        return _convert_stream(args, context)
    try:
        data = _read(args.file)
    except OSError as exc:
        print(f"{_shown(args.file)}: cannot read: {exc.strerror}", file=sys.stderr)
        return 2
    try:
        result = convert(data, args.source, args.target, kind=args.kind, strict=args.strict, context=context)
    except ConversionError as exc:
        if args.diagnostics is not None:  # the report is wanted most when the conversion is refused
            _write_report(args.diagnostics, DiagnosticReport(source=args.source, target=args.target, kind=args.kind, diagnostics=list(exc.diagnostics)))
        raise
    for diagnostic in result.diagnostics:
        detail = diagnostic.detail if isinstance(diagnostic.detail, str) else ""
        print(f"{diagnostic.status} {_text(diagnostic.field)}: {_text(detail)}", file=sys.stderr)
    if args.diagnostics is not None:
        report = DiagnosticReport(source=args.source, target=args.target, kind=args.kind, diagnostics=list(result.diagnostics))
        if not _write_report(args.diagnostics, report):
            return 2
    sys.stdout.buffer.write(encode(result.value) + b"\n")
    return _INVALID_OUTPUT if any(d.status == "Invalid" for d in result.diagnostics) else 0


def _write_report(name: str, report: Any) -> bool:
    """Write a DiagnosticReport; False (after a message) when the file cannot be written."""
    try:
        Path(name).write_bytes(encode(report) + b"\n")
    except OSError as exc:
        print(f"{_shown(name)}: cannot write: {exc.strerror}", file=sys.stderr)
        return False
    return True


def _event_stream(read: Any, name: str) -> Iterator[bytes] | None:
    """The chunks ``read`` gives (64 KiB at most each, as they arrive); None, with the reason on
    stderr, when the input starts as JSON does (``[`` or ``{``): a JSON array of events is what
    the Python API takes, and as an event stream its lines would be fields that mean nothing."""
    first = read(65536)
    while first.isspace():  # only white space so far: wait for the first character
        more = read(65536)
        if not more:
            break
        first += more
    if first.lstrip()[:1] in (b"[", b"{"):
        print(f"{_shown(name)}: this is JSON, not an event stream (text/event-stream: `data:` lines, "
              "a blank line after each event); pass a list of events to lucent.streams in Python", file=sys.stderr)
        return None
    return itertools.chain([first], iter(lambda: read(65536), b""))


def _convert_stream(args: argparse.Namespace, context: Any) -> int:
    from lucent.errors import StreamError
    from lucent.generated.lucent_diagnostics_v1 import DiagnosticReport
    from lucent.streams import convert_stream, encode_sse

    try:
        stream = sys.stdin.buffer if args.file == "-" else open(args.file, "rb")
    except OSError as exc:
        print(f"{_shown(args.file)}: cannot read: {exc.strerror}", file=sys.stderr)
        return 2
    read = stream.read1 if isinstance(stream, io.BufferedIOBase) else stream.read
    out = sys.stdout.buffer
    status = 0
    with stream:
        chunks = _event_stream(read, args.file)
        if chunks is None:
            return 2
        conversion = convert_stream(chunks, args.source, args.target, context=context, strict=args.strict)
        try:
            for frame in encode_sse(conversion, args.target):
                out.write(frame)
                out.flush()  # each event as soon as it is converted
        except StreamError as exc:
            print(f"lucent: {_text(exc.path)}: {_text(exc.message)} [{exc.code}]", file=sys.stderr)
            if exc.usage is not None:
                print(f"usage received: {encode(exc.usage).decode()}", file=sys.stderr)
            status = 1
    for diagnostic in conversion.diagnostics:
        detail = diagnostic.detail if isinstance(diagnostic.detail, str) else ""
        print(f"{diagnostic.status} {_text(diagnostic.field)}: {_text(detail)}", file=sys.stderr)
    if args.diagnostics is not None:
        report = DiagnosticReport(source=args.source, target=args.target, kind="stream", diagnostics=list(conversion.diagnostics))
        if not _write_report(args.diagnostics, report):
            return 2
    if status == 0 and any(d.status == "Invalid" for d in conversion.diagnostics):
        return _INVALID_OUTPUT
    return status


def _assemble(args: argparse.Namespace) -> int:
    from lucent.errors import StreamError
    from lucent.streams import assemble

    try:
        stream = sys.stdin.buffer if args.file == "-" else open(args.file, "rb")
    except OSError as exc:
        print(f"{_shown(args.file)}: cannot read: {exc.strerror}", file=sys.stderr)
        return 2
    # read1 returns what has arrived, so a live stream is assembled as it comes.
    read = stream.read1 if isinstance(stream, io.BufferedIOBase) else stream.read
    with stream:
        chunks = _event_stream(read, args.file)
        if chunks is None:
            return 2
        try:
            response = assemble(chunks, args.format, tools=args.tools)
        except StreamError as exc:
            print(f"lucent: {_text(exc.path)}: {_text(exc.message)} [{exc.code}]", file=sys.stderr)
            if exc.usage is not None:
                print(f"usage received: {encode(exc.usage).decode()}", file=sys.stderr)
            return 1
    sys.stdout.buffer.write(encode(response) + b"\n")
    return 0


def parser() -> argparse.ArgumentParser:
    top = argparse.ArgumentParser(
        prog="lucent",
        description="Exact bindings and converters for LLM wire protocols.",
        epilog="Exit status: 0 done; 1 an invalid document, a lucent error or a --strict refusal; "
        "2 a usage or file error; 3 converted, but a diagnostic says the output is Invalid; 130 interrupted.",
    )
    top.add_argument("--version", action="version", version=f"%(prog)s {_version()}")
    commands = top.add_subparsers(dest="command", required=True)

    validate = commands.add_parser("validate", help="check documents against a schema")
    which = validate.add_mutually_exclusive_group(required=True)
    which.add_argument("--schema", choices=sorted(SCHEMAS), help="a schema file stem")
    which.add_argument("--format", choices=list(FORMATS), help="a format name: its schema")
    validate.add_argument("--definition", default=None, help="a $defs/definitions name; default: the schema root")
    validate.add_argument("files", nargs="+", metavar="FILE")
    validate.set_defaults(run=_validate)

    conv = commands.add_parser("convert", help="convert a document between formats through Lux")
    conv.add_argument("--from", dest="source", required=True, help="lux, sparktide, llm-sdk, htmlp, openai-chat, openai-responses, anthropic or gemini")
    conv.add_argument("--to", dest="target", required=True, help="lux, sparktide, llm-sdk, htmlp, openai-chat, openai-responses, anthropic or gemini")
    conv.add_argument("--kind", default="request", choices=["request", "response", "error", "stream"],
                      help="request (default), response, error, stream (SSE in, SSE out; " + ", ".join(STREAM_FORMATS) + ")")
    conv.add_argument("--strict", action="store_true", help="fail on any Unsupported or Invalid diagnostic")
    conv.add_argument("--context", default=None, metavar="JSON", help="values the target needs that the source lacks")
    conv.add_argument("--diagnostics", default=None, metavar="OUT", help="also write the diagnostics as JSON")
    conv.add_argument("file", metavar="FILE|-")
    conv.set_defaults(run=_convert)

    asm = commands.add_parser("assemble", help="assemble a streamed response (SSE) into the final response")
    asm.add_argument("--format", required=True, choices=list(STREAM_FORMATS))
    asm.add_argument("--tool", dest="tools", action="append", default=None, metavar="NAME", help="a tool name the request declared (repeat)")
    asm.add_argument("file", metavar="FILE|-")
    asm.set_defaults(run=_assemble)

    from lucent._cli_preflight import add_preflight  # lucent/_cli_preflight.py

    add_preflight(commands)
    return top


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("lucent")
    except PackageNotFoundError:
        return "(not installed)"


def main(argv: Sequence[str] | None = None) -> int:
    """Run the CLI; returns the exit status (see the module docstring)."""
    for stream in (sys.stdout, sys.stderr):  # a line is never lost to a terminal's encoding
        if isinstance(stream, io.TextIOWrapper):
            stream.reconfigure(errors="backslashreplace")
    args = parser().parse_args(argv)
    try:
        status: int = args.run(args)
    except ConversionError as exc:
        for diagnostic in exc.diagnostics:
            detail = diagnostic.detail if isinstance(diagnostic.detail, str) else ""
            print(f"{diagnostic.status} {_text(diagnostic.field)}: {_text(detail)}", file=sys.stderr)
        lossy = sum(d.status in ("Unsupported", "Invalid") for d in exc.diagnostics)
        print(f"lucent: strict conversion refused: {lossy} of {len(exc.diagnostics)} diagnostic(s) are Unsupported or Invalid [{exc.code}]", file=sys.stderr)
        return 1
    except UsageError as exc:  # the call is wrong (an unknown format, kind or definition)
        print(f"lucent: {_text(exc.message)} [{exc.code}]", file=sys.stderr)
        return 2
    except LucentError as exc:
        print(f"lucent: {_text(exc.path)}: {_text(exc.message)} [{exc.code}]", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 130  # 128 + SIGINT, as a shell reports it; no traceback
    except BrokenPipeError:
        # Python docs, "Note on SIGPIPE": nothing more reaches the reader; keep the interpreter
        # from failing again while flushing stdout at exit
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 1
    return status


if __name__ == "__main__":
    sys.exit(main())
