"""The assembler base class: events in, one final response out, every stream rule enforced."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any, ClassVar, Protocol

import msgspec

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


class StreamedCall(Protocol):
    """A tool call being merged from its deltas: its id and name once they came."""

    id: str | None
    name: str | None


class CallIdentities:
    """The identity rules of tool calls streamed in parts (an id and a name, each in any of
    their deltas: openai-chat, sparktide), one place for a format's assembler and its stream
    reader: an id and a name are set once (``tool_identity_changed``), no two calls of a stream
    share an id (``duplicate_call_id``), a name is one the request declared
    (``tool_name_not_declared``, by `declared`), and a call ends having both
    (``incomplete_tool_call``). `fail(code, message, path)` makes the error raised; each call is
    named by its `what` ("tool call 0 of choice 1")."""

    __slots__ = ("_declared", "_fail", "_owners")

    def __init__(self, fail: Callable[[str, str, str], Exception], declared: Callable[[str, str, str], None]) -> None:
        self._fail = fail
        self._declared = declared
        self._owners: dict[str, str] = {}  # id -> the call that has it

    def id(self, call: StreamedCall, value: str, what: str, at: str, since: str = "") -> None:
        """`value` as the id of `call` (`since`: where the one it has was set, for the message)."""
        if call.id is None:
            other = self._owners.get(value)
            if other is not None:
                raise self._fail("duplicate_call_id", f"{what} reuses the id of {other}", at)
            self._owners[value] = what
            call.id = value
        elif call.id != value:
            raise self._fail("tool_identity_changed", f"{what} changed its id{since}; id and name are stable identities", at)

    def name(self, call: StreamedCall, value: str, what: str, at: str) -> None:
        """`value` as the name of `call`."""
        if call.name is None:
            self._declared(value, at, what)
            call.name = value
        elif call.name != value:
            raise self._fail("tool_identity_changed", f"{what} changed its name; id and name are stable identities", at)

    def complete(self, call: StreamedCall, what: str, at: str, name: str = "name") -> None:
        """`call` has its id and its name (`name`: how the format spells the member)."""
        if call.id is None or call.name is None:
            missing = " and ".join(x for x, v in (("id", call.id), (name, call.name)) if v is None)
            raise self._fail("incomplete_tool_call", f"{what} never received its {missing}", at)


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
    """The ``context`` argument of the conversion functions, checked and copied into plain JSON
    values: None, or a mapping whose keys are strings and whose values are JSON values (str,
    int, float, bool, None, mappings and sequences of them, at most ``_CONTEXT_DEPTH`` deep).
    Subclasses of str, int and float are copied as the base type, a msgspec Struct as its JSON
    members. Anything else, a string that
    UTF-8 cannot hold (a lone surrogate), a float without JSON text (NaN, infinity), or a
    mapping that raises while being read raises UsageError (``invalid_context``, ``.path`` the
    value's path in the context)."""
    if context is None:
        return {}
    if not isinstance(context, Mapping):
        raise UsageError(f"context must be a mapping, not {type(context).__name__}", code="invalid_context")
    try:
        return _plain_object(context, "$", 0)
    except LucentError:
        raise
    except Exception as exc:
        raise UsageError(f"context could not be read: {type(exc).__name__}", code="invalid_context") from None


_CONTEXT_DEPTH = 128
"""How deep a context value may nest: far deeper than any value a conversion reads (they are
flat, or one object such as ``response``), and within Python's recursion limit."""


def _plain_object(mapping: Mapping[Any, Any], path: str, depth: int) -> dict[str, Any]:
    from lucent._validation import member

    out: dict[str, Any] = {}
    for key, value in list(mapping.items()):
        if not isinstance(key, str):
            raise UsageError(f"context keys are strings; {path} has a key of type {type(key).__name__}", code="invalid_context", path=path)
        key = _plain_str(key, path)
        at = member(path, key)
        out[key] = _plain(value, at, depth + 1)
    return out


def _plain(value: Any, path: str, depth: int) -> Any:
    if value is None or value is True or value is False:
        return value
    if isinstance(value, str):
        return _plain_str(value, path)
    if isinstance(value, int):
        return int.__int__(value)
    if isinstance(value, float):
        number = float.__float__(value)
        if number != number or number in (float("inf"), float("-inf")):
            raise UsageError(f"context value at {path} is {number!r}, which JSON has no text for", code="invalid_context", path=path)
        return number
    if depth > _CONTEXT_DEPTH:
        raise UsageError(f"context value at {path} nests deeper than {_CONTEXT_DEPTH}", code="invalid_context", path=path)
    if isinstance(value, Mapping):
        return _plain_object(value, path, depth)
    if isinstance(value, (list, tuple)):
        return [_plain(item, f"{path}[{i}]", depth + 1) for i, item in enumerate(list(value))]
    if isinstance(value, msgspec.Struct):  # a generated Struct: its JSON members
        return _plain(msgspec.to_builtins(value), path, depth)
    raise UsageError(f"context value at {path} is of type {type(value).__name__}, not a JSON value", code="invalid_context", path=path)


def _plain_str(text: str, path: str) -> str:
    text = str.__str__(text)
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        raise UsageError(f"context string at {path} holds a lone surrogate, which UTF-8 cannot encode", code="invalid_context", path=path) from None
    return text


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
