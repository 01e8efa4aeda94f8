"""The event-stream parser and writer behind :mod:`lucent.sse` (WHATWG HTML, section 9.2.6).

The parser is sans-IO: bytes go in through :meth:`SSEParser.feed`, whole events come out, and
nothing is read or awaited here, so one parser serves sync and async sources alike. It holds only
the current unterminated line, the current event's fields and at most three bytes of an
unfinished UTF-8 character.
"""

from __future__ import annotations

import codecs
import re
from typing import Literal

import msgspec

from lucent.errors import EncodeError, StreamError, UsageError
from lucent._validation import build_structs

_LINE_END = re.compile(r"\r\n|\r|\n")
_LINE_ENDS = re.compile(r"(?:\r\n|\r|\n)([\r\n]*)")
"""A line end and the blank lines right after it (any CR and LF that follow are their line
ends): the first blank line dispatches the event, the others would dispatch nothing, so a run
of them costs one step, not one per line. A character class, not a repeated alternation: ``re``
keeps state for each repeat of a group, which grows faster than the run."""
_BOM = "\ufeff"

MAX_RETRY_DIGITS = 4300
"""The longest ``retry`` field read (and written): Python's limit on converting digits to an int
(``sys.get_int_max_str_digits()``, 4,300 unless changed). The standard sets no bound; a longer
field is ignored like a malformed one (no reconnection timer holds such a time anyway)."""


def chunk_bytes(chunk: object) -> bytes:
    """A stream chunk (bytes, bytearray or memoryview) as bytes; raises UsageError
    (``invalid_input_type``) for anything else, a released memoryview included."""
    if not isinstance(chunk, (bytes, bytearray, memoryview)):
        raise UsageError(f"an SSE chunk is bytes, not {type(chunk).__name__}: encode text as UTF-8", code="invalid_input_type")
    try:
        return bytes(chunk)
    except ValueError:  # a released memoryview
        raise UsageError("a stream chunk is a released memoryview, which cannot be read", code="invalid_input_type") from None


def _another(value: object) -> str:
    """How a message names a wrong argument without repeating it: its type, or "another str"."""
    return "another str" if isinstance(value, str) else f"a {type(value).__name__}"


class SSEEvent(msgspec.Struct, frozen=True, kw_only=True):
    """One dispatched event (HTML 9.2.6, "dispatch the event").

    Attributes
    ----------
    data : str
        The ``data`` field values joined with ``"\\n"``.
    event : str
        The event type: the last ``event`` field, ``"message"`` when there was none.
    id : str
        The last event ID string when the event was dispatched (it persists across events).
    """

    data: str
    event: str = "message"
    id: str = ""


class SSEParser:
    """Incremental ``text/event-stream`` parser: bytes in, :class:`SSEEvent` out.

    Parameters
    ----------
    errors : {"replace", "strict"}
        ``"replace"`` decodes as the standard says (an invalid UTF-8 sequence becomes U+FFFD);
        ``"strict"`` rejects it with ``StreamError(code="invalid_utf8")``.

    Attributes
    ----------
    last_event_id : str
        The last event ID string (``id`` field; a value holding U+0000 is ignored).
    retry : int or None
        The last valid ``retry`` field (reconnection time in ms), ``None`` when none came.
    bytes_read : int
        Bytes fed so far.
    truncated : bool
        After :meth:`close`: the stream ended inside an event (an unterminated line, an event
        without its closing blank line, or an unfinished UTF-8 character). The standard discards
        that event; a caller that needs whole streams treats it as an interruption.
    """

    def __init__(self, *, errors: Literal["replace", "strict"] = "replace") -> None:
        if not isinstance(errors, str) or errors not in ("replace", "strict"):  # the value is not repeated
            raise UsageError(f"errors is 'replace' or 'strict', not {_another(errors)}", code="invalid_errors")
        self._errors = errors
        self._held = b""  # the start of a UTF-8 character split across chunks
        self._at_start = True  # no character decoded yet: a BOM may still come
        self._line: list[str] = []  # the unterminated line, in pieces
        self._skip_lf = False  # the last line ended with CR: a following LF belongs to it
        self._data: list[str] = []
        self._event_type = ""
        self._id_buffer = ""
        self._in_event = False  # a field line came since the last blank line
        self._fault: StreamError | None = None
        self.last_event_id = ""
        self.retry: int | None = None
        self.bytes_read = 0
        self.truncated = False

    def feed(self, chunk: bytes | bytearray | memoryview) -> list[SSEEvent]:
        """Parse the next piece of the stream, split anywhere (even inside a UTF-8 character).

        Returns
        -------
        list[SSEEvent]
            The events that this chunk completed, in order.

        Raises
        ------
        StreamError
            ``invalid_utf8`` (``.offset`` is the byte offset in the stream), with
            ``errors="strict"``. The events completed before the bad byte are returned first;
            the error is raised by the next :meth:`feed` or :meth:`close`.
        UsageError
            ``invalid_input_type``: ``chunk`` is not bytes (``str`` is refused: encode it), or is
            a released memoryview.
        """
        if self._fault is not None:
            raise self._fault
        buf = chunk_bytes(chunk)
        start = self.bytes_read - len(self._held)
        self.bytes_read += len(buf)
        if self._held:
            buf = self._held + buf
        try:
            text, used = codecs.utf_8_decode(buf, self._errors, False)
        except UnicodeDecodeError as exc:
            text, used = buf[: exc.start].decode("utf-8"), len(buf)
            self._fault = StreamError(
                f"invalid UTF-8 at byte {start + exc.start}", code="invalid_utf8", offset=start + exc.start
            )
        self._held = buf[used:]
        return self._text(text)

    def close(self) -> list[SSEEvent]:
        """End the stream. Sets :attr:`truncated`; the unfinished event is discarded (9.2.6).

        Returns
        -------
        list[SSEEvent]
            Always empty: an event is dispatched only by a blank line.

        Raises
        ------
        StreamError
            ``invalid_utf8`` found by the last :meth:`feed`.
        """
        if self._fault is not None:
            raise self._fault
        self.truncated = bool(self._held or self._line or self._in_event)
        self._held = b""
        self._line.clear()
        self._data.clear()
        self._event_type = ""
        self._in_event = False
        return []

    def _text(self, text: str) -> list[SSEEvent]:
        events: list[SSEEvent] = []
        if not text:
            return events
        if self._at_start:
            self._at_start = False
            if text[0] == _BOM:
                text = text[1:]
        pos = 0
        if self._skip_lf:
            self._skip_lf = False
            if text[:1] == "\n":
                pos = 1
        for match in _LINE_ENDS.finditer(text, pos):
            piece = text[pos : match.start()]
            if self._line:
                self._line.append(piece)
                piece = "".join(self._line)
                self._line.clear()
            self._line_complete(piece, events)
            if match.group(1) and piece:
                self._dispatch(events)
            pos = match.end()
        if pos < len(text):
            self._line.append(text[pos:])
        elif text.endswith("\r"):
            self._skip_lf = True
        return events

    def _line_complete(self, line: str, events: list[SSEEvent]) -> None:
        if not line:
            self._dispatch(events)
            return
        if line[0] == ":":
            return  # a comment
        self._in_event = True
        name, colon, value = line.partition(":")
        if colon and value[:1] == " ":
            value = value[1:]
        if name == "data":
            self._data.append(value)
        elif name == "event":
            self._event_type = value
        elif name == "id" and "\0" not in value:  # an id holding U+0000 is ignored
            self._id_buffer = value
        elif name == "retry" and value.isascii() and value.isdigit():
            try:
                self.retry = int(value)
            except ValueError:  # more digits than Python converts (MAX_RETRY_DIGITS)
                pass
        # any other field (and a bad id or retry, or one too long to read) is ignored

    def _dispatch(self, events: list[SSEEvent]) -> None:
        self._in_event = False
        self.last_event_id = self._id_buffer
        if not self._data:
            self._event_type = ""
            return
        events.append(SSEEvent(data="\n".join(self._data), event=self._event_type or "message", id=self.last_event_id))
        self._data = []
        self._event_type = ""


def encode_event(data: str, *, event: str | None = None, id: str | None = None, retry: int | None = None) -> bytes:
    """One event as UTF-8 ``text/event-stream`` bytes, ending with its blank line.

    Each line of ``data`` (split at CR, LF or CRLF) becomes one ``data:`` line, so a reader gets
    ``data`` back with its line ends as LF. Fields are written as ``name: value``.

    Raises
    ------
    UsageError
        ``invalid_sse_field``: ``event`` or ``id`` holds CR or LF (``id`` also U+0000), is not a
        str, or ``retry`` is negative or has more than :data:`MAX_RETRY_DIGITS` digits (a
        reader could not read it back); ``invalid_input_type``: ``data`` is not a str.
    EncodeError
        ``unencodable``: the text holds a lone surrogate.
    """
    if not isinstance(data, str):
        raise UsageError(f"SSE data is a str, not {type(data).__name__}", code="invalid_input_type")
    lines: list[str] = []
    if event is not None:
        _check_field("event", event)
        lines.append(f"event: {event}")
    if id is not None:
        _check_field("id", id)
        if "\0" in id:
            raise UsageError("an SSE id cannot hold U+0000 (readers ignore it)", code="invalid_sse_field")
        lines.append(f"id: {id}")
    if retry is not None:
        refused = UsageError(f"retry is a non-negative integer (milliseconds) of at most {MAX_RETRY_DIGITS} digits", code="invalid_sse_field")
        if isinstance(retry, bool) or not isinstance(retry, int) or retry < 0:
            raise refused
        try:
            lines.append(f"retry: {retry}")
        except ValueError:  # more digits than Python converts: no reader could read it back
            raise refused from None
    lines.extend(f"data: {line}" for line in _LINE_END.split(data))
    return _utf8("\n".join(lines) + "\n\n")


def encode_comment(text: str = "") -> bytes:
    """A comment (``: text``), one line per line of ``text``: readers ignore it (keep-alives)."""
    if not isinstance(text, str):
        raise UsageError(f"an SSE comment is a str, not {type(text).__name__}", code="invalid_input_type")
    return _utf8("".join(f": {line}\n" for line in _LINE_END.split(text)))


def _check_field(name: str, value: str) -> None:
    if not isinstance(value, str):
        raise UsageError(f"an SSE {name} field is a str, not {type(value).__name__}", code="invalid_sse_field")
    if "\r" in value or "\n" in value:
        raise UsageError(f"an SSE {name} field cannot hold a line end", code="invalid_sse_field")


def _utf8(text: str) -> bytes:
    try:
        return text.encode("utf-8")
    except UnicodeEncodeError:
        raise EncodeError("the text holds a lone surrogate, which UTF-8 cannot encode", code="unencodable") from None


build_structs(globals())  # msgspec's state of SSEEvent, built while the import lock holds other threads off
