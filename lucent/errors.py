"""The errors lucent raises. Every one is a :class:`LucentError` with ``.code`` and ``.path``.

``code`` is a stable, machine-readable string:

* JSON Schema rules use the keyword that failed: ``type``, ``required``, ``additionalProperties``,
  ``enum``, ``const``, ``pattern``, ``minLength``, ``maxLength``, ``minItems``, ``maxItems``,
  ``minimum``, ``maximum``, ``exclusiveMinimum``, ``exclusiveMaximum``, ``format``, ``not``,
  ``anyOf``, ``oneOf``;
* protocol rules and limits: ``max_body_bytes`` (SparkTide's 1 MiB, or ``Limits.max_body_bytes``,
  checked before parsing), ``duplicate_key``, ``tool_arguments``, ``number_out_of_range``;
* malformed input (:class:`DecodeError`): ``malformed_json``, ``invalid_utf8``,
  ``lone_surrogate``, ``max_depth`` (deeper than ``Limits.max_depth``, checked before parsing),
  ``out_of_memory``;
* API misuse (:class:`UsageError`): ``unknown_schema``, ``unknown_definition``,
  ``unknown_format``, ``unsupported_conversion``, ``invalid_input_type``, ``invalid_context``,
  ``invalid_limits``, ``invalid_rules``;
* a value with no JSON form (:class:`EncodeError`): ``unencodable`` (NaN and infinity included,
  at the JSON path of the first), ``max_depth``;
* a strict conversion that would lose data (:class:`ConversionError`): ``conversion_lossy``;
* a stream that breaks its format's rules (:class:`StreamError`): see :mod:`lucent.streams` for
  the codes (``interrupted``, ``unknown_frame``, ``duplicate_terminal``, ``model_error``, ...);
* a record store that cannot give or take a record (:class:`StoreError`):
  ``previous_response_not_found``, ``snapshot_invalid``, ``snapshot_conflict``,
  ``store_unavailable`` (:mod:`lucent.snapshots`, :mod:`lucent.records`);
* a continuation the Responses API refuses (:class:`ValidationError`): ``history_repeated``,
  ``previous_response_with_conversation``; a capability document that breaks ``LucentDiscovery``
  (:class:`ValidationError`): ``invalid_discovery``; a model no ``model_pattern`` matches
  (:class:`UsageError`): ``unknown_model`` (:mod:`lucent.capabilities`).

``path`` is a JSON path into the document (``$`` is the root), for example
``$.messages[1].tool_calls[0].function.arguments``. Messages never repeat input values (property
names appear in paths; SECURITY.md). Every control character of a message or path (C0, DEL, C1,
U+2028/U+2029, the bidirectional and other format controls, a lone surrogate) is written as its
escape (``\\n``, ``\\x1b``, ``\\u202e``) when the error is made
(``lucent._validation.printable``).
"""

from __future__ import annotations

_TYPE_CHECKING = False  # typing itself is not imported: `import lucent` stays cheap
if _TYPE_CHECKING:
    from typing import Any

__all__ = [
    "ConversionError",
    "DecodeError",
    "EncodeError",
    "LucentError",
    "StoreError",
    "StreamError",
    "UsageError",
    "ValidationError",
]


class LucentError(Exception):
    """Base class of every lucent error.

    Attributes
    ----------
    code : str
        Machine-readable code (see the module docstring).
    path : str
        JSON path of the offending value, ``$`` for the whole document.
    message : str
        Human-readable explanation.
    """

    def __init__(self, message: str, *, code: str, path: str = "$") -> None:
        if "Invalid " in message or not (message.isascii() and message.isprintable() and path.isascii() and path.isprintable()):
            from lucent._validation import printable, unquoted  # the one escaping function, on first need

            message, path = printable(unquoted(message)), printable(path)
        super().__init__(message)
        self.message = message
        self.code = code
        self.path = path

    def __str__(self) -> str:
        return f"{self.message} (code={self.code}, path={self.path})"

    def __reduce__(self) -> tuple[Any, ...]:
        return (_rebuild, (type(self), self.message, self.code, self.path, dict(self.__dict__)))


def _rebuild(cls: type[LucentError], message: str, code: str, path: str, state: dict[str, Any]) -> LucentError:
    error = cls.__new__(cls)
    LucentError.__init__(error, message, code=code, path=path)
    error.__dict__.update(state)
    return error


class DecodeError(LucentError):
    """The input is not well-formed JSON text (RFC 8259), or is too deep to parse.

    Attributes
    ----------
    offset : int | None
        Byte offset in the UTF-8 input where the fault was found, when known.
    """

    def __init__(self, message: str, *, code: str, path: str = "$", offset: int | None = None) -> None:
        super().__init__(message, code=code, path=path)
        self.offset = offset


class ValidationError(LucentError):
    """Well-formed JSON that breaks a schema rule or a protocol rule."""


class EncodeError(LucentError):
    """An object that cannot be written as JSON (not a lucent Struct or JSON value)."""


class UsageError(LucentError):
    """The call itself is wrong: an unknown schema, definition or format name; a context key the
    conversion does not read (``invalid_context``: ``path`` is the key's JSON path in the
    context, ``$.max_tokenz``, and the message names the keys the conversion reads)."""


class ConversionError(LucentError):
    """A strict conversion met Unsupported or Invalid diagnostics.

    Attributes
    ----------
    diagnostics : list
        Every diagnostic of the conversion (``ConversionDiagnostic`` Structs), not only the first.
    """

    def __init__(self, message: str, *, code: str = "conversion_lossy", path: str = "$", diagnostics: list[Any] | None = None) -> None:
        super().__init__(message, code=code, path=path)
        self.diagnostics = list(diagnostics or [])


class StreamError(LucentError):
    """A stream broke its format's rules, was cut short, or ended with the model's own error.

    ``path`` names a frame by its position: ``$[3]`` is the fourth frame (0-based; an SSE event
    that carries data, or an item of an event iterable), ``$[3].arguments`` a field in it.

    Attributes
    ----------
    usage : Struct or None
        The usage received before the failure (``RemoteModelUsage`` for SparkTide, ``LucentUsage``
        for Lux), ``None`` when none arrived. It is kept: a failed stream still cost tokens.
    error : Struct or None
        With ``code="model_error"``: the stream's own error (the SparkTide ``RemoteModelError``
        frame, or the Lux ``LucentError``).
    offset : int or None
        Byte offset in the stream, for ``invalid_utf8``.
    """

    def __init__(
        self,
        message: str,
        *,
        code: str,
        path: str = "$",
        usage: Any = None,
        error: Any = None,
        offset: int | None = None,
    ) -> None:
        super().__init__(message, code=code, path=path)
        self.usage = usage
        self.error = error
        self.offset = offset


class StoreError(LucentError):
    """A record store (:mod:`lucent.records`, :mod:`lucent.snapshots`) cannot give or take a record.

    Codes: ``previous_response_not_found`` (no snapshot under that id in the caller's scope: an
    unknown id, an expired snapshot and another scope's snapshot are this one answer, so that no
    caller learns whether another's id exists); ``snapshot_invalid`` (the stored value is not
    JSON, breaks ``ConversationSnapshot`` or names another response id: it is never served, and
    it is left in the store); ``snapshot_conflict`` (another snapshot is stored under that id:
    the stored one is kept); ``store_unavailable`` (the backend failed: the SQLite file or the
    Redis server could not be read or written). ``path`` is the JSON path in the stored snapshot
    for ``snapshot_invalid``, else ``$``.
    """
