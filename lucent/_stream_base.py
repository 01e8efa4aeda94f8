"""The assembler base class: events in, one final response out, every stream rule enforced."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, ClassVar

from lucent.errors import LucentError, StreamError, UsageError
from lucent._validation import JsonTextError, load_json_text


class Assembler:
    """Folds one stream's events, in order, into the format's final response Struct.

    Feed each event with :meth:`push` (events as :func:`lucent.streams.iter_events` yields them:
    generated Structs that passed the schema), then call :meth:`close` once the stream has
    ended. A broken rule raises :class:`~lucent.errors.StreamError` at once, naming the frame
    (``$[3]`` is the fourth event pushed) and carrying the usage received so far.

    Parameters
    ----------
    tools : Iterable[str], optional
        The tool names the request declared. When given, a tool call with any other name is
        rejected (``tool_name_not_declared``).

    Attributes
    ----------
    format : str
        A name of :data:`lucent.streams.FORMATS`.
    usage : Struct or None
        The usage received so far.
    """

    format: ClassVar[str] = ""

    def __init__(self, *, tools: Iterable[str] | None = None) -> None:
        self._tools = tool_names(tools)
        self._count = 0
        self._closed = False

    @property
    def usage(self) -> Any:
        """The usage received so far (``None`` when none arrived, or the format has none)."""
        return None

    @property
    def count(self) -> int:
        """How many events were pushed."""
        return self._count

    def push(self, event: Any) -> None:
        """Apply the next event.

        Raises
        ------
        StreamError
            The event breaks a rule of the format's stream (see :mod:`lucent.streams`).
        UsageError
            ``assembler_closed``: :meth:`close` was called already.
        """
        if self._closed:
            raise UsageError("the assembler is closed: the stream has ended", code="assembler_closed")
        index = self._count
        self._count += 1
        self._push(event, index)

    def close(self) -> Any:
        """End the stream and return the final response Struct.

        Raises
        ------
        StreamError
            The stream ended without its terminal event, or with the model's own error.
        UsageError
            ``assembler_closed``: called twice.
        """
        if self._closed:
            raise UsageError("the assembler is closed already", code="assembler_closed")
        self._closed = True
        return self._close(self._count)

    # ------------------------------------------------------------------ for subclasses

    def _push(self, event: Any, index: int) -> None:
        raise NotImplementedError

    def _close(self, count: int) -> Any:
        raise NotImplementedError

    def _fail(self, code: str, message: str, path: str, *, error: Any = None) -> StreamError:
        return StreamError(message, code=code, path=path, usage=self.usage, error=error)

    def _unknown(self, event: Any, index: int) -> StreamError:
        return self._fail("unknown_frame", f"event {index} is not a {self.format} stream event ({type(event).__name__})", f"$[{index}]")

    def _check_declared(self, name: str, path: str, what: str) -> None:
        if self._tools is not None and name not in self._tools:
            raise self._fail("tool_name_not_declared", f"{what} names a tool that the request did not declare", path)


def tool_names(tools: Any) -> frozenset[str] | None:
    """The ``tools`` argument of the public stream functions, checked: None, or an iterable of
    tool names (``str``); anything else raises UsageError(code=invalid_input_type)."""
    if tools is None:
        return None
    if isinstance(tools, (str, bytes, bytearray, memoryview)):
        raise UsageError("tools is a collection of tool names, not one string", code="invalid_input_type")
    if not isinstance(tools, Iterable):
        raise UsageError(f"tools is a collection of tool names (str), not {type(tools).__name__}", code="invalid_input_type")
    names: list[Any] = []
    try:
        for name in tools:
            names.append(name)
    except LucentError:
        raise
    except Exception as exc:
        raise UsageError(f"tools could not be read: {type(exc).__name__}", code="invalid_input_type") from None
    wrong = next((type(n).__name__ for n in names if not isinstance(n, str)), None)
    if wrong is not None:
        raise UsageError(f"a tool name is a str, not {wrong}", code="invalid_input_type")
    return frozenset(names)


def flag(value: Any, name: str) -> bool:
    """A yes/no argument (``strict``) as a bool; one whose truth cannot be read (a released
    memoryview, an object whose ``__bool__`` raises) raises UsageError(``invalid_input_type``)."""
    try:
        return bool(value)
    except LucentError:
        raise
    except Exception:
        raise UsageError(f"{name} is a bool, not a {type(value).__name__} whose truth cannot be read", code="invalid_input_type") from None


def context_of(context: Any) -> dict[str, Any]:
    """The ``context`` argument of the conversion functions, checked and copied: None, or a
    mapping; anything else, or a mapping that raises while being read, raises UsageError
    (``invalid_context``)."""
    if context is None:
        return {}
    if not isinstance(context, Mapping):
        raise UsageError(f"context must be a mapping, not {type(context).__name__}", code="invalid_context")
    try:
        return dict(context)
    except LucentError:
        raise
    except Exception as exc:
        raise UsageError(f"context could not be read: {type(exc).__name__}", code="invalid_context") from None


def parse_arguments(text: str) -> dict[str, Any] | None:
    """Tool-call arguments text -> a JSON object (``None`` for ``null``); raises ValueError(reason).

    Read as :func:`lucent.decode` reads a document (``lucent._validation.load_json_text``):
    a number out of range such as ``1e999`` is refused, never read as ``inf`` (which has no JSON
    text and would be written as ``null``), as are duplicate keys, NaN, nesting deeper than
    ``MAX_JSON_TEXT_DEPTH`` and lone surrogates. The reason follows a subject: "... {reason}".
    """
    try:
        value = load_json_text(text)
    except JsonTextError as exc:
        raise ValueError(exc.predicate) from None
    if value is not None and not isinstance(value, dict):
        raise ValueError("is not a JSON object")
    return value
