"""The ``lucent`` command line.

``lucent validate --schema NAME | --format F [--definition D] [LIMITS] FILE|DIR...``
    One line per invalid document (``FILE: PATH: MESSAGE [code]``) on stdout, then one summary
    line on stderr (``N files: V valid, I invalid[, U unreadable]``); a folder stands for the
    ``.json`` files in it and below it, in sorted order. Exit status 1 when any document is
    invalid, 2 when a file cannot be read (the others are still checked) or the call is wrong. ``--format``
    names the schema by its format (``sparktide``, ``openai-chat``, ``openai-responses``,
    ``anthropic``, ``gemini``, ...); without ``--definition`` a vendor format accepts any of its
    documents (request, response or stream event). A schema whose root accepts any JSON value
    (llm-sdk's is only ``$defs``) needs ``--definition`` (exit status 2 without it).

``lucent convert --from F --to T [--kind K] [--strict] [--context JSON] [--diagnostics OUT] [LIMITS] FILE|-``
    The converted document as JSON on stdout and one line per diagnostic on stderr
    (``STATUS FIELD: DETAIL``); ``--diagnostics OUT`` also writes them as a ``DiagnosticReport``
    (schemas/lucent-diagnostics-v1.json). Exit status 1 on a lucent error (and, with
    ``--strict``, on any Unsupported or Invalid diagnostic; ``--diagnostics OUT`` is written
    then too); 2 on a usage error (an unknown format or kind, a ``--context`` key the
    conversion does not read: ``UsageError``, ``invalid_context``; ``lucent convert --help``
    lists the keys each target reads, lucent._context.listing); exit status 3 when the output was written but a diagnostic is Invalid (it does
    not validate against the target schema, e.g. a value only ``--context`` can give is missing).

    A document whose members are not all the named kind's and that fits another format or kind
    exactly is refused (``wrong_format``, exit status 2) naming it (``this looks like a response
    (--kind response)``); a decode error is followed by the same hint where one fits.
    ``--kind stream`` (``--from``/``--to`` sparktide, llm-sdk, lux, openai-chat, openai-responses,
    anthropic or gemini) reads a ``text/event-stream`` as it arrives (or a JSON array of events) and writes the converted
    stream as ``text/event-stream`` on stdout, event by event (a ``[DONE]`` only to end an
    openai-chat stream; ``event:`` fields for anthropic and openai-responses); diagnostics as
    above once the stream ends. A broken stream prints
    ``lucent: PATH: MESSAGE [code]`` (and ``usage received: JSON``) on stderr; exit status 1.

``lucent preflight --format F --model NAME [--discovery FILE] [--strict] FILE|-``
    What the request needs that the model's capability declaration lacks, one line per finding
    on stdout; the exit statuses of ``convert`` (lucent/_cli_preflight.py).

``lucent assemble --format F [--tool NAME]... [LIMITS] FILE|-``
    Reads a ``text/event-stream`` (SparkTide, llm-sdk, Lux, openai-chat chunks ending with
    ``[DONE]``, openai-responses, anthropic or gemini events) as it arrives, or a JSON array of
    events, and writes the
    final response as JSON on stdout. A broken stream prints ``lucent: PATH: MESSAGE [code]``
    and, when usage had arrived, ``usage received: JSON`` on stderr; exit status 1.

``lucent generate SCHEMA.json --out DIR [--module NAME]``
    Compiles a JSON Schema of your own into ``DIR/NAME.py`` for ``lucent.decode(data, type=...)``
    (lucent/_generate.py); needs ``pip install 'lucent[codegen]'`` (else exit status 2,
    ``missing_dependency``). A schema codegen cannot compile exactly: exit status 2,
    ``schema_refused``, naming the keyword and its JSON pointer.

``LIMITS`` (:class:`lucent.Limits`, SECURITY.md): ``--max-body-bytes N`` (``validate``,
``convert``: the largest document; default the format's protocol cap, SparkTide 1 MiB, else
32 MiB; ``convert`` refuses over 32 MiB and reports SparkTide's 1 MiB as Invalid),
``--max-stream-bytes N`` (``assemble``, ``convert --kind stream``: the largest stream; default
SparkTide 4 MiB, else 64 MiB) and ``--max-depth N`` (every command: the deepest nesting of
arrays and objects; default 512). A document is read up to its cap and one byte more, so a larger
file (``/dev/zero``, a sparse file of gigabytes) is refused (``max_body_bytes``, exit status 1)
having read no more than that; a stream is read 64 KiB at a time and refused at its cap
(``stream_too_large``, exit status 1).

The standard streams: stdout carries only the output (the document, the stream, the lines of
``validate``), stderr only messages and diagnostics. FILE ``-`` with stdin closed or unreadable
is a file error (``-: cannot read: REASON``, exit status 2). A stdout that is closed or cannot be
written is one too (``lucent: cannot write to stdout: REASON`` on stderr, exit status 2), but
when the reader of stdout goes away (``lucent ... | head``) the command stops quietly with exit
status 1 (the recipe of the Python docs, "Note on SIGPIPE"). With stderr closed or unwritable its
lines are dropped (as ``2>/dev/null`` would) and the exit status is unchanged: 3 still says a
diagnostic is Invalid; ``--diagnostics OUT`` keeps the diagnostics in a file.
"""

from __future__ import annotations

import argparse
import io
import os
import stat
import sys
from typing import Any, BinaryIO, Callable, Iterator, NoReturn, Sequence

from lucent._convert import FORMATS
from lucent._decode import SCHEMAS, decode, encode
from lucent._limits import DEFAULT_MAX_BODY_BYTES, Limits
from lucent.errors import ConversionError, LucentError, UsageError
from lucent.formats import FORMATS as _REGISTRY

STREAM_FORMATS = tuple(name for name, f in _REGISTRY.items() if f.stream is not None)
"""The formats of ``--kind stream`` and ``assemble`` (lucent.streams.FORMATS, without importing it)."""

_FORMAT_NAMES = ", ".join(list(_REGISTRY)[:-1]) + " or " + list(_REGISTRY)[-1]
"""The format names of ``convert --from`` and ``--to`` (lucent.formats), as one phrase."""


_INVALID_OUTPUT = 3  # the output was written, but a diagnostic says it is Invalid
_CHUNK = 65536  # bytes read at a time: a stream is converted as it arrives


def _text(text: str) -> str:
    """A message, path or detail as printed: control characters as their escapes (a message may
    quote a property name of the input)."""
    from lucent._validation import printable

    return printable(text)


def _shown(name: str) -> str:
    """A file name as printed: the bytes of a name that is not UTF-8 (which Python holds as lone
    surrogates, PEP 383) as ``\\xNN``, and control characters as their escapes (a name cannot
    start a line of its own or drive the terminal)."""
    return _text(os.fsencode(name).decode("utf-8", "backslashreplace"))


class _Unusable(Exception):
    """A standard stream the command needs is closed or fails; ``reason`` says how."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


def _reason(exc: BaseException) -> str:
    return exc.strerror if isinstance(exc, OSError) and exc.strerror else type(exc).__name__


class _Console:
    """The standard streams as the commands use them (None in ``sys`` when the process started
    with one closed). Output goes to stdout through :meth:`out`; messages and diagnostics go to
    stderr through :meth:`err`, never to stdout, and are dropped when stderr is closed or fails."""

    def __init__(self) -> None:
        self._stdin, self._stdout, self._stderr = sys.stdin, sys.stdout, sys.stderr

    def stdin(self) -> BinaryIO:
        """The binary stdin; raises _Unusable when it is closed."""
        if self._stdin is None:
            raise _Unusable("stdin is closed")
        return self._stdin.buffer

    def out(self, data: bytes) -> None:
        """Write ``data`` to stdout now. Raises BrokenPipeError (the reader went away) as it is,
        _Unusable for a stdout that is closed or cannot be written (ENOSPC, EBADF...)."""
        if self._stdout is None:
            raise _Unusable("stdout is closed")
        try:
            buffer = self._stdout.buffer
            view = memoryview(data)
            while view:  # a pipe whose reader went away takes part of a large write, then EPIPE
                written = buffer.write(view)
                if not written:  # None (would block) or 0: the rest cannot be written
                    raise BrokenPipeError("stdout took no more of the output")
                view = view[written:]
            buffer.flush()
        except BrokenPipeError:
            raise
        except (OSError, ValueError) as exc:  # ValueError: a stream closed in this process
            _discard(self._stdout)
            self._stdout = None
            raise _Unusable(_reason(exc)) from None

    def line(self, text: str) -> None:
        """Write one line of text to stdout now (in stdout's encoding, escaping what it cannot
        encode); raises as :meth:`out` does."""
        if self._stdout is None:
            raise _Unusable("stdout is closed")
        try:
            self._stdout.write(text + "\n")
            self._stdout.flush()
        except BrokenPipeError:
            raise
        except (OSError, ValueError) as exc:
            _discard(self._stdout)
            self._stdout = None
            raise _Unusable(_reason(exc)) from None

    def err(self, line: str) -> None:
        """Write one line to stderr; dropped when stderr is closed or fails."""
        if self._stderr is None:
            return
        try:
            self._stderr.write(line + "\n")
            self._stderr.flush()
        except (OSError, ValueError):
            _discard(self._stderr)
            self._stderr = None


def _discard(stream: Any) -> None:
    """Point a failed standard stream's descriptor at /dev/null, so that what is left in its
    buffer does not fail again when the interpreter flushes it at exit (exit status 120)."""
    try:
        fd = stream.fileno()
        null = os.open(os.devnull, os.O_WRONLY)
    except (OSError, ValueError, AttributeError):  # not a file (a test's capture): nothing to flush
        return
    os.dup2(null, fd)
    os.close(null)


def _hold_closed_descriptors() -> None:
    """Open /dev/null on each of descriptors 0-2 the process started without, so that no file
    the command opens takes one of their numbers (where a C-level message to fd 2 would land in
    a report file). ``sys.stdin``/``stdout``/``stderr`` stay None: the command still knows they
    were closed."""
    for fd in (0, 1, 2):
        try:
            os.fstat(fd)
        except OSError:
            held = os.open(os.devnull, os.O_RDWR)
            if held != fd:  # pragma: no cover - os.open takes the lowest free number
                os.dup2(held, fd)
                os.close(held)


def _read(name: str, cap: int, console: _Console) -> bytes | bytearray:
    """FILE (or stdin for ``-``) up to ``cap`` bytes and one more: enough for decode to refuse a
    larger body (``max_body_bytes``) without the rest being read. Raises _Unusable (stdin
    closed), OSError, MemoryError."""
    if name == "-":
        return _read_at_most(console.stdin(), cap + 1)
    with open(name, "rb") as stream:
        return _read_at_most(stream, cap + 1)


def _read_at_most(stream: BinaryIO, size: int) -> bytes | bytearray:
    """At most ``size`` bytes, read 1 MiB at a time (never a buffer of the cap's size for a small
    file); what is over the cap stays a bytearray, which decode refuses before copying it."""
    held = bytearray()
    while len(held) < size:
        part = stream.read(min(size - len(held), 1 << 20))
        if not part:
            break
        held += part
    if len(held) == size:
        return held
    data = bytes(held)
    del held
    return data


def _cannot_read(name: str, exc: BaseException, console: _Console) -> int:
    reason = exc.reason if isinstance(exc, _Unusable) else "it does not fit in memory" if isinstance(exc, MemoryError) else _reason(exc)
    console.err(f"{_shown(name)}: cannot read: {reason}")
    return 2


def _limits(args: argparse.Namespace) -> Limits:
    return Limits(
        max_body_bytes=getattr(args, "max_body_bytes", None),
        max_stream_bytes=getattr(args, "max_stream_bytes", None),
        max_depth=getattr(args, "max_depth", None),
    )


def _validate(args: argparse.Namespace, console: _Console) -> int:
    from lucent._decode import schema_module

    invalid = 0
    schema = args.schema if args.schema is not None else FORMATS[args.format]
    if args.definition is None and _root_accepts_anything(schema):
        console.err(f"lucent: the root of {schema} accepts any JSON value; name a definition with --definition [usage]")
        return 2
    limits = _limits(args)
    cap = limits.body_bytes(getattr(schema_module(schema), "PROTOCOL", {}))
    files = unreadable = 0
    for name in _files(args.files, console):
        files += 1
        if name is None:  # a folder that cannot be listed, or a file in it that cannot be read, counts as one unreadable input
            unreadable += 1
            continue
        try:
            data = _read(name, cap, console)
        except (OSError, MemoryError, _Unusable) as exc:
            _cannot_read(name, exc, console)
            unreadable += 1
            continue
        try:
            decode(data, schema, args.definition, limits=limits)
        except UsageError as exc:
            console.err(f"lucent: {_text(exc.message)} [{exc.code}]")
            return 2
        except LucentError as exc:
            invalid += 1
            console.line(f"{_shown(name)}: {_text(exc.path)}: {_text(exc.message)} [{exc.code}]")
    summary = f"{files} file{'' if files == 1 else 's'}: {files - unreadable - invalid} valid, {invalid} invalid"
    console.err(summary + (f", {unreadable} unreadable" if unreadable else ""))
    return 2 if unreadable else 1 if invalid else 0


def _files(names: Sequence[str], console: _Console) -> Iterator[str | None]:
    """Each FILE as it is, and for a folder the ``.json`` files in it and below it, in sorted
    order (None, after a message, for a folder that cannot be listed and for a file in it that
    is not a regular file: a FIFO named ``x.json`` would block the walk)."""
    for name in names:
        if name == "-" or not os.path.isdir(name):
            yield name
            continue
        try:
            found = sorted(os.path.join(root, f) for root, _dirs, fs in os.walk(name, onerror=_raise) for f in fs if f.endswith(".json"))
        except OSError as exc:
            _cannot_read(name, exc, console)
            yield None
            continue
        for path in found:
            try:
                regular = stat.S_ISREG(os.stat(path).st_mode)
            except OSError as exc:  # a broken link, a file removed meanwhile
                _cannot_read(path, exc, console)
                yield None
                continue
            if not regular:  # a FIFO or device found in a folder is not read: it could block forever
                _cannot_read(path, _Unusable("not a regular file"), console)
                yield None
                continue
            yield path


def _raise(exc: OSError) -> None:
    raise exc


def _root_accepts_anything(schema: str) -> bool:
    """True when the schema's root is an empty schema (only $defs), as llm-sdk's is: checking a
    document against it would pass anything."""
    from typing import Any as AnyType

    from lucent._decode import schema_module

    return getattr(schema_module(schema), "ROOT", None) is AnyType


def _print_diagnostics(diagnostics: Any, console: _Console) -> None:
    for diagnostic in diagnostics:
        detail = diagnostic.detail if isinstance(diagnostic.detail, str) else ""
        console.err(f"{diagnostic.status} {_text(diagnostic.field)}: {_text(detail)}")


def _convert(args: argparse.Namespace, console: _Console) -> int:
    from lucent._convert import convert
    from lucent.generated.lucent_diagnostics_v1 import DiagnosticReport

    from lucent._validation import JsonTextError, load_json_text

    context: Any = None
    if args.context is not None:
        try:  # read as a document is: duplicate keys, NaN, 1e999 and lone surrogates are refused
            context = load_json_text(args.context)
        except JsonTextError as exc:
            console.err(f"lucent: --context must be one JSON object: {_text(exc.problem)} [{exc.kind}]")
            return 2
        if not isinstance(context, dict):
            console.err(f"lucent: --context must be one JSON object, not {_json_kind(context)} [usage]")
            return 2
    if args.diagnostics is not None and _same_file(args.diagnostics, args.file):
        console.err(f"lucent: --diagnostics {_shown(args.diagnostics)} is the input FILE; writing it would destroy the input [usage]")
        return 2
    limits = _limits(args)
    if args.kind == "stream":
        return _convert_stream(args, context, limits, console)
    try:
        # convert refuses a body over limits.max_body_bytes, else over 32 MiB (SparkTide's own
        # 1 MiB is an Invalid diagnostic): read no more than that
        data = _read(args.file, limits.max_body_bytes or DEFAULT_MAX_BODY_BYTES, console)
    except (OSError, MemoryError, _Unusable) as exc:
        return _cannot_read(args.file, exc, console)
    document = _parsed(data)
    wrong = _wrongly_named(document, args.source, args.kind)
    if wrong is not None:
        console.err(f"lucent: $: {_text(wrong)} [wrong_format]")
        return 2
    try:
        result = convert(data, args.source, args.target, kind=args.kind, strict=args.strict, context=context, limits=limits)
    except ConversionError as exc:
        if args.diagnostics is not None:  # the report is wanted most when the conversion is refused
            _write_report(args.diagnostics, DiagnosticReport(source=args.source, target=args.target, kind=args.kind, diagnostics=list(exc.diagnostics)), console)
        raise
    except UsageError:
        raise
    except LucentError as exc:
        from lucent._looks_like import hint

        console.err(f"lucent: {_text(exc.path)}: {_text(exc.message)} [{exc.code}]")
        found = hint(document, args.source, args.kind)
        if found is not None:
            console.err(f"lucent: {found}")
        return 1
    _print_diagnostics(result.diagnostics, console)
    if args.diagnostics is not None:
        report = DiagnosticReport(source=args.source, target=args.target, kind=args.kind, diagnostics=list(result.diagnostics))
        if not _write_report(args.diagnostics, report, console):
            return 2
    console.out(encode(result.value) + b"\n")
    return _INVALID_OUTPUT if any(d.status == "Invalid" for d in result.diagnostics) else 0


def _parsed(data: bytes | bytearray) -> Any:
    """The JSON value of a document, or None when it is not one (convert reports why)."""
    from lucent._validation import JsonTextError, load_json_text

    try:
        return load_json_text(bytes(data).decode("utf-8"))
    except (UnicodeDecodeError, JsonTextError):
        return None


def _wrongly_named(document: Any, source: str, kind: str) -> str | None:
    """Why ``document`` is not a ``source`` ``kind``, when its members are not all that kind's and
    it fits another format or kind exactly (a Chat request given as ``--from gemini``, which a
    Gemini request's optional, open members would otherwise "convert" to an empty one)."""
    from lucent._looks_like import hint, unknown_members

    unknown = unknown_members(document, source, kind)
    found = hint(document, source, kind) if unknown else None
    if found is None:
        return None
    names = ", ".join(unknown[:5]) + (", ..." if len(unknown) > 5 else "")
    return f"this is not a{'n' if source[0] in 'aeiou' else ''} {source} {kind}: {names} {'is not a member' if len(unknown) == 1 else 'are not members'} of one; {found}"


def _same_file(out: str, name: str) -> bool:
    """Whether writing `out` would overwrite the input `name` (``-`` is stdin: never)."""
    if name == "-":
        return False
    try:
        return os.path.samefile(out, name)
    except OSError:  # one of them does not exist (yet): not the same file
        return False


def _json_kind(value: Any) -> str:
    return "an array" if isinstance(value, list) else "a string" if isinstance(value, str) else "null" if value is None else f"a {type(value).__name__}"


def _write_report(name: str, report: Any, console: _Console) -> bool:
    """Write a DiagnosticReport; False (after a message) when the file cannot be written."""
    try:
        with open(name, "wb") as file:
            file.write(encode(report) + b"\n")
    except OSError as exc:
        console.err(f"{_shown(name)}: cannot write: {_reason(exc)}")
        return False
    return True


class _EventStream:
    """The chunks of a ``text/event-stream`` as they arrive, 64 KiB at most each, passed on as
    they come.

    :meth:`peek` reads up to the first byte that is not white space. When it is ``[`` the input
    is a JSON array of events (the form lingua records streams in, and what lucent.streams takes
    in Python), read whole by :meth:`rest`; ``{`` is one JSON object, not a stream. Otherwise the
    chunks are passed on, the white space read first as as many newlines (blank lines before
    the first event mean nothing to an event stream; they count toward the stream cap, and cost
    no memory). A read that fails (stdin opened write-only, an I/O error) is kept in
    :attr:`failed` and raised, so that the stream ends as interrupted and the command reports a
    file error.
    """

    def __init__(self, stream: BinaryIO) -> None:
        # read1 returns what has arrived, so a live stream is taken as it comes
        self._read = stream.read1 if isinstance(stream, io.BufferedIOBase) else stream.read
        self.first = b""  # the first byte that is not white space (b"" at the end or past the cap)
        self.head = b""  # the chunk it is in
        self.passed = 0  # bytes of white space before it
        self.failed: OSError | None = None

    def _chunk(self, size: int = _CHUNK) -> bytes:
        try:
            return self._read(size)
        except OSError as exc:
            self.failed = exc
            raise

    def peek(self, cap: int) -> bytes:
        """Read to the first byte that is not white space, or the end, or past ``cap`` bytes of
        white space; that byte (b"" for none)."""
        while not self.head and self.passed <= cap:
            chunk = self._chunk()
            if not chunk:
                break
            stripped = chunk.lstrip()
            if stripped:
                self.head, self.first = chunk, stripped[:1]
            else:
                self.passed += len(chunk)
        return self.first

    def rest(self, cap: int) -> bytes:
        """The input from the chunk :meth:`peek` stopped in to its end, up to ``cap`` bytes with
        the white space before it, and one more (so that a larger input is known to be larger)."""
        out = bytearray(self.head)
        while len(out) + self.passed <= cap:
            chunk = self._chunk(min(_CHUNK, cap + 1 - self.passed - len(out)))
            if not chunk:
                break
            out += chunk
        return bytes(out)

    def __iter__(self) -> Iterator[bytes]:
        left = self.passed
        while left > 0:
            yield b"\n" * min(_CHUNK, left)
            left -= _CHUNK
        if self.head:
            yield self.head
        while True:
            chunk = self._chunk()
            if not chunk:
                return
            yield chunk


def _stream_cap(fmt: str, limits: Limits) -> int:
    from lucent._decode import schema_module

    return limits.stream_bytes(getattr(schema_module(_REGISTRY[fmt].schema), "PROTOCOL", {}))


def _events(stream: BinaryIO, fmt: str, limits: Limits, name: str, console: _Console) -> tuple[_EventStream, Any]:
    """The input's chunks, and what to give lucent.streams: the chunks of an event stream, the
    list of a JSON array of events, or an exit status after a message."""
    chunks = _EventStream(stream)
    cap = _stream_cap(fmt, limits)
    try:
        first = chunks.peek(cap)
    except OSError as exc:
        return chunks, _cannot_read(name, exc, console)
    if first == b"{":
        return chunks, _json_hint(name, console)
    if first != b"[":
        return chunks, iter(chunks)
    return chunks, _json_events(chunks, fmt, cap, name, console)


def _open_stream(name: str, console: _Console) -> BinaryIO:
    """The stream to read: stdin for ``-``. Raises _Unusable, OSError."""
    return console.stdin() if name == "-" else open(name, "rb")


def _json_hint(name: str, console: _Console) -> int:
    console.err(f"{_shown(name)}: this is one JSON object, not a stream: a text/event-stream (`data:` lines, "
                "a blank line after each event) or a JSON array of events")
    return 2


def _json_events(chunks: _EventStream, fmt: str, cap: int, name: str, console: _Console) -> list[Any] | int:
    """The events of an input that is a JSON array, read up to the stream cap; an exit status
    after a message when it is not one."""
    from lucent._validation import JsonTextError, load_json_text

    try:
        data = chunks.rest(cap)
    except OSError as exc:
        return _cannot_read(name, exc, console)
    if len(data) + chunks.passed > cap:
        console.err(f"lucent: $: the stream is larger than {cap} bytes, the {fmt} limit [stream_too_large]")
        return 1
    try:
        events = load_json_text(data.decode("utf-8"))
    except UnicodeDecodeError as exc:
        console.err(f"lucent: $: the JSON array of events is not UTF-8 (byte {chunks.passed + exc.start}) [malformed_json]")
        return 1
    except JsonTextError as exc:
        console.err(f"lucent: $: the JSON array of events: {_text(exc.problem)} [malformed_json]")
        return 1
    return list(events)


def _stream_failed(exc: Any, chunks: _EventStream, name: str, console: _Console) -> int:
    """Report a StreamError: 2 when reading the input failed (a file error), else 1."""
    if chunks.failed is not None:
        _cannot_read(name, chunks.failed, console)
    else:
        console.err(f"lucent: {_text(exc.path)}: {_text(exc.message)} [{exc.code}]")
    if exc.usage is not None:
        console.err(f"usage received: {encode(exc.usage).decode()}")
    return 2 if chunks.failed is not None else 1


def _convert_stream(args: argparse.Namespace, context: Any, limits: Limits, console: _Console) -> int:
    from lucent.errors import StreamError
    from lucent.generated.lucent_diagnostics_v1 import DiagnosticReport
    from lucent.streams import convert_stream, encode_sse

    try:
        stream = _open_stream(args.file, console)
    except (OSError, _Unusable) as exc:
        return _cannot_read(args.file, exc, console)
    status = 0
    with stream:
        chunks, events = _events(stream, args.source, limits, args.file, console)
        if isinstance(events, int):
            return events
        conversion = convert_stream(events, args.source, args.target, context=context, strict=args.strict, limits=limits)
        try:
            for frame in encode_sse(conversion, args.target):
                console.out(frame)  # each event as soon as it is converted
        except StreamError as exc:
            status = _stream_failed(exc, chunks, args.file, console)
    _print_diagnostics(conversion.diagnostics, console)
    if args.diagnostics is not None:
        report = DiagnosticReport(source=args.source, target=args.target, kind="stream", diagnostics=list(conversion.diagnostics))
        if not _write_report(args.diagnostics, report, console):
            return 2
    if status == 0 and any(d.status == "Invalid" for d in conversion.diagnostics):
        return _INVALID_OUTPUT
    return status


def _assemble(args: argparse.Namespace, console: _Console) -> int:
    from lucent.errors import StreamError
    from lucent.streams import assemble

    try:
        stream = _open_stream(args.file, console)
    except (OSError, _Unusable) as exc:
        return _cannot_read(args.file, exc, console)
    limits = _limits(args)
    with stream:
        chunks, events = _events(stream, args.format, limits, args.file, console)
        if isinstance(events, int):
            return events
        try:
            response = assemble(events, args.format, tools=args.tools, limits=limits)
        except StreamError as exc:
            return _stream_failed(exc, chunks, args.file, console)
    console.out(encode(response) + b"\n")
    return 0


def _positive(text: str) -> int:
    """An argparse type: a positive int (Limits' own rule), in decimal digits."""
    try:
        value = int(text, 10)
    except ValueError:
        raise argparse.ArgumentTypeError(f"a positive whole number, not {text[:20]!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError("a positive whole number")
    return value


class _Parser(argparse.ArgumentParser):
    """argparse's parser, with its output kept to its stream: a usage error goes to stderr only
    (argparse's usage line goes to stdout when stderr is closed), and help or ``--version`` that
    cannot be written to stdout raises _Unusable (argparse drops a failed write and exits 0)."""

    epilog_of: Callable[[], str] | None = None
    """Makes the epilog when help is printed (``convert``: the context keys, lucent._context.listing)."""

    def format_help(self) -> str:
        if self.epilog_of is not None:
            self.epilog = self.epilog_of()
        return super().format_help()

    def error(self, message: str) -> NoReturn:
        text = self.format_usage() + f"{self.prog}: error: {message}\n"
        if sys.stderr is not None:
            try:
                sys.stderr.write(text)
                sys.stderr.flush()
            except (OSError, ValueError):
                _discard(sys.stderr)
        raise SystemExit(2)

    def _print_message(self, message: str, file: Any = None) -> None:
        # with error() above, argparse prints only help and version here, meant for stdout
        if not message:
            return
        if sys.stdout is None:
            raise _Unusable("stdout is closed")
        try:
            sys.stdout.write(message)
            sys.stdout.flush()
        except BrokenPipeError:
            raise
        except (OSError, ValueError) as exc:
            _discard(sys.stdout)
            raise _Unusable(_reason(exc)) from None


_BODY_HELP = "largest document in bytes, refused (max_body_bytes) having read N + 1 bytes at most; default: "
_STREAM_HELP = ("largest event stream in bytes, refused (stream_too_large) as the chunk past it arrives, "
                "leading white space included; default: SparkTide 4 MiB, else 64 MiB")


def _limit_options(body: str | None, stream: str | None) -> _Parser:
    """The LIMITS options of a command (lucent.Limits; SECURITY.md, "Limits"): ``body`` and
    ``stream`` are the help of ``--max-body-bytes`` and ``--max-stream-bytes`` (None: not taken)."""
    options = _Parser(add_help=False)
    group = options.add_argument_group("limits", "caps on untrusted input (lucent.Limits; SECURITY.md)")
    if body is not None:
        group.add_argument("--max-body-bytes", type=_positive, default=None, metavar="N", help=body)
    if stream is not None:
        group.add_argument("--max-stream-bytes", type=_positive, default=None, metavar="N", help=stream)
    group.add_argument("--max-depth", type=_positive, default=None, metavar="N",
                       help="deepest nesting of arrays and objects, checked before parsing (max_depth); default 512")
    return options


def parser() -> argparse.ArgumentParser:
    top = _Parser(
        prog="lucent",
        description="Exact bindings and converters for LLM wire protocols.",
        epilog="Exit status: 0 done; 1 an invalid document, a lucent error or a --strict refusal; "
        "2 a usage or file error (stdin or stdout closed or failing included); 3 converted, but a diagnostic says the output is Invalid; 130 interrupted.",
    )
    top.add_argument("--version", action="version", version=f"%(prog)s {_version()}")
    commands = top.add_subparsers(dest="command", required=True)

    validate = commands.add_parser("validate", help="check documents against a schema", parents=[_limit_options(
        body=_BODY_HELP + "the format's protocol cap (SparkTide 1 MiB), else 32 MiB", stream=None)])
    which = validate.add_mutually_exclusive_group(required=True)
    which.add_argument("--schema", choices=sorted(SCHEMAS), help="a schema file stem")
    which.add_argument("--format", choices=list(FORMATS), help="a format name: its schema")
    validate.add_argument("--definition", default=None, help="a $defs/definitions name; default: the schema root")
    validate.add_argument("files", nargs="+", metavar="FILE|DIR", help="a document, - for stdin, or a folder: the .json files in it and below it")
    validate.set_defaults(run=_validate)

    conv = commands.add_parser("convert", help="convert a document between formats through Lux", parents=[_limit_options(
        body=_BODY_HELP + "32 MiB (a SparkTide body over its protocol's 1 MiB is converted, with an Invalid diagnostic)",
        stream="--kind stream: " + _STREAM_HELP)], formatter_class=argparse.RawDescriptionHelpFormatter)
    conv.add_argument("--from", dest="source", required=True, help=_FORMAT_NAMES)
    conv.add_argument("--to", dest="target", required=True, help=_FORMAT_NAMES)
    conv.add_argument("--kind", default="request", choices=["request", "response", "error", "stream"],
                      help="request (default), response, error, stream (SSE in, SSE out; " + ", ".join(STREAM_FORMATS) + ")")
    conv.add_argument("--strict", action="store_true", help="fail on any Unsupported or Invalid diagnostic")
    conv.add_argument("--context", default=None, metavar="JSON", help="values the target needs that the source lacks: a JSON object of the keys listed below (any other is refused, invalid_context)")
    conv.add_argument("--diagnostics", default=None, metavar="OUT", help="also write the diagnostics as JSON")
    conv.add_argument("file", metavar="FILE|-")
    conv.set_defaults(run=_convert)
    conv.epilog_of = _context_listing

    asm = commands.add_parser("assemble", help="assemble a streamed response (SSE) into the final response", parents=[_limit_options(body=None, stream=_STREAM_HELP)])
    asm.add_argument("--format", required=True, choices=list(STREAM_FORMATS))
    asm.add_argument("--tool", dest="tools", action="append", default=None, metavar="NAME", help="a tool name the request declared (repeat)")
    asm.add_argument("file", metavar="FILE|-")
    asm.set_defaults(run=_assemble)

    from lucent._cli_preflight import add_preflight  # lucent/_cli_preflight.py

    add_preflight(commands)
    from lucent.server._cli import add_serve  # lucent/server/_cli.py: the gateway (issue 19)

    add_serve(commands)
    from lucent._generate import add_generate  # lucent/_generate.py: a user's own schema (issue 17)

    add_generate(commands)
    return top


def _context_listing() -> str:
    from lucent._context import listing

    return listing()


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("lucent")
    except PackageNotFoundError:
        return "(not installed)"


def main(argv: Sequence[str] | None = None) -> int:
    """Run the CLI; returns the exit status (see the module docstring)."""
    _hold_closed_descriptors()
    for stream in (sys.stdout, sys.stderr):  # a line is never lost to a terminal's encoding
        if isinstance(stream, io.TextIOWrapper):
            stream.reconfigure(errors="backslashreplace")
    console = _Console()
    try:
        args = parser().parse_args(argv)
    except _Unusable as exc:  # --help or --version, with stdout closed or failing
        console.err(f"lucent: cannot write to stdout: {exc.reason}")
        return 2
    except BrokenPipeError:
        _discard(sys.stdout)
        return 1
    try:
        status: int = args.run(args, console)
    except ConversionError as exc:
        _print_diagnostics(exc.diagnostics, console)
        from lucent._conversion import represented  # a folded diagnostic counts what it stands for

        lossy = sum(represented(d) for d in exc.diagnostics if d.status in ("Unsupported", "Invalid"))
        console.err(f"lucent: strict conversion refused: {lossy} of {sum(map(represented, exc.diagnostics))} diagnostic(s) are Unsupported or Invalid [{exc.code}]")
        return 1
    except UsageError as exc:  # the call is wrong (an unknown format, kind or definition)
        where = "" if exc.path == "$" else f"{_text(exc.path)}: "  # a configuration's JSON path, or its file
        console.err(f"lucent: {where}{_text(exc.message)} [{exc.code}]")
        return 2
    except LucentError as exc:
        console.err(f"lucent: {_text(exc.path)}: {_text(exc.message)} [{exc.code}]")
        return 1
    except _Unusable as exc:  # stdout is closed or cannot be written
        console.err(f"lucent: cannot write to stdout: {exc.reason}")
        return 2
    except KeyboardInterrupt:
        return 130  # 128 + SIGINT, as a shell reports it; no traceback
    except BrokenPipeError:
        # Python docs, "Note on SIGPIPE": nothing more reaches the reader; keep the interpreter
        # from failing again while flushing stdout at exit
        _discard(sys.stdout)
        return 1
    return status


if __name__ == "__main__":
    sys.exit(main())
