"""Helpers that the generated bindings call from ``__post_init__`` and their protocol checks.

Hand-written; the generated modules of ``lucent.generated`` import it (``from lucent._validation
import ...``), and so do the decoder, the converters and the stream readers.
"""

from __future__ import annotations

import json
import math
import re
import threading
from itertools import accumulate
from types import FunctionType
from fractions import Fraction
from typing import Any

import msgspec

__all__ = [
    "BUILD_LOCK",
    "CONTROL_CHARACTERS",
    "MAX_JSON_TEXT_DEPTH",
    "MSGSPEC_CODES",
    "JsonTextError",
    "RuleViolation",
    "as_integer",
    "build_structs",
    "check_finite",
    "check_json_object_text",
    "convert_union",
    "described",
    "dump_json_text",
    "key_path",
    "load_json_text",
    "member",
    "nests_deeper",
    "printable",
    "unquoted",
    "violation",
]


class RuleViolation(ValueError):
    """A schema or protocol rule failed.

    Parameters
    ----------
    code:
        The JSON Schema keyword that failed (``required``, ``not``, ``format``, ...) or a
        protocol rule code (``tool_arguments``).
    message:
        What failed, without echoing the value.
    path:
        JSON path of the failing value: relative to the Struct (``.arguments``, ``""`` for the
        Struct itself), or absolute (``$.messages[0]...``) from a protocol check.
    """

    def __init__(self, code: str, message: str, path: str = "") -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.path = path


def as_integer(
    value: float,
    path: str,
    ge: int | None = None,
    le: int | None = None,
    gt: int | None = None,
    lt: int | None = None,
) -> int:
    """A JSON number with a zero fractional part as an ``int`` (JSON Schema's integer).

    msgspec compared the float with the bounds in floating point, which rounds a bound such as
    2**63 - 1 up; the bounds are checked again here on the exact integer.
    """
    if not math.isfinite(value) or not value.is_integer():
        raise RuleViolation("type", "Expected `int`, got `float`", path)
    number = int(value)
    for keyword, bound, ok in (
        ("minimum", ge, ge is None or number >= ge),
        ("maximum", le, le is None or number <= le),
        ("exclusiveMinimum", gt, gt is None or number > gt),
        ("exclusiveMaximum", lt, lt is None or number < lt),
    ):
        if not ok:
            raise RuleViolation(keyword, f"Expected `int` within {keyword} {bound}", path)
    return number


MSGSPEC_CODES: list[tuple[re.Pattern[str], str]] = [
    (re.compile(r"^Object missing required field"), "required"),
    (re.compile(r"^Object contains unknown field"), "additionalProperties"),
    (re.compile(r"^Expected `str` matching regex"), "pattern"),
    (re.compile(r"^Expected `str` of length >="), "minLength"),
    (re.compile(r"^Expected `str` of length <="), "maxLength"),
    (re.compile(r"^Expected `array` of length >="), "minItems"),
    (re.compile(r"^Expected `array` of length <="), "maxItems"),
    (re.compile(r"^Expected `object` of length >="), "minProperties"),
    (re.compile(r"^Expected `object` of length <="), "maxProperties"),
    (re.compile(r"^Expected `(int|float)` >= "), "minimum"),
    (re.compile(r"^Expected `(int|float)` <= "), "maximum"),
    (re.compile(r"^Expected `(int|float)` > "), "exclusiveMinimum"),
    (re.compile(r"^Expected `(int|float)` < "), "exclusiveMaximum"),
    (re.compile(r"^Expected `"), "type"),
    (re.compile(r"^(Number|Integer value) out of range"), "number_out_of_range"),
    (re.compile(r"^Invalid enum value"), "enum"),
    (re.compile(r"^Invalid value"), "const"),
]
"""msgspec's validation messages -> the JSON Schema keyword that failed (lucent.decode uses it too)."""


CONTROL_CHARACTERS = re.compile(
    "[\x00-\x1f\x7f-\x9f\xad\u0600-\u0605\u061c\u06dd\u070f\u0890-\u0891\u08e2\u180e\u200b-\u200f"
    "\u2028-\u202e\u2060-\u2064\u2066-\u206f\ud800-\udfff\ufeff\ufff9-\ufffb\U000110bd\U000110cd"
    "\U00013430-\U0001343f\U0001bca0-\U0001bca3\U0001d173-\U0001d17a\U000e0001\U000e0020-\U000e007f]"
)
"""The characters :func:`printable` escapes: every character of the Unicode general categories
Cc (C0, DEL, C1: U+0085 NEL among them), Cf (the bidirectional controls U+061C, U+200E/F,
U+202A-E, U+2066-9, the zero-width and invisible characters, U+FEFF, the tag characters),
Cs (a lone surrogate, which no UTF-8 writer accepts), Zl and Zp (U+2028, U+2029), as of
Unicode 15.1 (tests/test_no_echo.py checks the list against the running Python's
``unicodedata``): each can move a terminal's cursor, reorder or hide text, or end a log line."""


_CODE_OF = re.compile("|".join(f"(?P<c{i}>{pattern.pattern.removeprefix('^')})" for i, (pattern, _code) in enumerate(MSGSPEC_CODES)))
"""MSGSPEC_CODES as one pattern, tried in its order in one match: the group that matched names
the code (17 searches cost ~10 us a fault)."""


def printable(text: str) -> str:
    """``text`` with each character of :data:`CONTROL_CHARACTERS` written as its JSON escape
    (``\\n``, ``\\t``, ``\\u001b``, ``\\u0085``, ``\\u202e``, a lone ``\\ud800``, a character
    past U+FFFF as its surrogate pair ``\\udb40\\udc41``), the rest as it is.

    The one escaping function of lucent: every error message and path (``lucent.errors``), every
    diagnostic's ``field`` and ``detail``, every path :func:`member` builds and every file name
    the command line prints go through it, so a property name cannot forge a log line or drive a
    terminal. JSON escapes keep a quoted path step (``["a\\u202e"]``) a JSON string, which reads
    back as the key. Idempotent: what it writes holds no such character."""
    if text.isascii() and text.isprintable():
        return text
    return CONTROL_CHARACTERS.sub(_escaped, text)


_LETTER_ESCAPES = {"\n": "\\n", "\t": "\\t", "\r": "\\r", "\b": "\\b", "\f": "\\f"}


def _escaped(found: re.Match[str]) -> str:
    char = found.group()
    letter = _LETTER_ESCAPES.get(char)
    if letter is not None:
        return letter
    code = ord(char)
    if code > 0xFFFF:
        code -= 0x10000
        return f"\\u{0xD800 + (code >> 10):04x}\\u{0xDC00 + (code & 0x3FF):04x}"
    return f"\\u{code:04x}"


def violation(exc: msgspec.ValidationError, base: str = "") -> RuleViolation:
    """A msgspec validation error as a RuleViolation whose path is ``base`` + the error's path;
    its message is :func:`printable` (it may quote a property name of the input)."""
    message, path = _located(exc, base)
    message = printable(message)
    cause = exc.__cause__
    if isinstance(cause, RuleViolation):
        return RuleViolation(cause.code, cause.message, cause.path if cause.path.startswith("$") else path + cause.path)
    found = _CODE_OF.match(message)
    code = MSGSPEC_CODES[int(found.lastgroup[1:])][1] if found is not None and found.lastgroup else "invalid"
    return RuleViolation(code, message, path)


def described(exc: BaseException) -> str:
    """A msgspec error (or any exception lucent's own code raised) as a message may quote it:
    msgspec's text with the value an ``enum`` or ``const`` refuses left out (``Invalid enum
    value``, never ``Invalid enum value 'sk-...'``) and its path after ``at``, escaped by
    :func:`printable`. Every message that quotes a msgspec error quotes it through this."""
    if isinstance(exc, msgspec.ValidationError):
        message, path = _located(exc, "$")
        return printable(f"{message} at `{path}`" if path != "$" else message)
    return printable(_VALUE_QUOTED.sub(r"\1", str(exc)))


def first_branches(branches: tuple[Any, ...], first: dict[Any, int]) -> dict[Any, Any]:
    """{tag value: the branch :func:`dispatch_tagged` tries first}; the key ``"\x00other"``
    holds the branch for tag values the table does not list."""
    return {tag: branches[i] for tag, i in first.items()}


def dispatch_tagged(
    value: Any,
    path: str,
    first: dict[Any, Any],
    branches: tuple[Any, ...],
    one_of: bool,
    table: tuple[str, dict[Any, list[int]], list[int], list[int]],
) -> Any:
    """:func:`convert_union` for a union with a tag table, with its common case first: the branch
    the tag names (the only one for a ``oneOf``, the first for an ``anyOf``) accepts the value.
    Any other case, a failure included, is :func:`convert_union`'s, so the result and the error
    are the same as without this step."""
    if value.__class__ is dict:
        tag = value.get(table[0], _ABSENT)
        if tag is None or tag.__class__ is str:
            branch = first.get(tag) if tag in table[1] else first.get(_OTHER)
            if branch is not None:
                try:
                    return branch(value, path) if branch.__class__ is FunctionType else convert_as(value, branch)
                except (msgspec.ValidationError, RuleViolation):
                    pass
    return convert_union(value, branches, path, one_of, table)


def _tag_fault(tag: Any, key: str, by_tag: dict[Any, list[int]], path: str) -> RuleViolation:
    """The fault of an object whose tag (``type``, ...) no branch of a union accepts."""
    if tag == _ABSENT:
        return RuleViolation("required", f"Object missing required field `{key}`", path)
    if tag is None or isinstance(tag, str):
        return RuleViolation("enum", "Invalid enum value", member(path, key))
    expected = "str | null" if None in by_tag else "str"
    return RuleViolation("type", f"Expected `{expected}`, got `{_json_type(tag)}`", member(path, key))


def _json_type(value: Any) -> str:
    """msgspec's name for the JSON type of a plain value."""
    if isinstance(value, bool):
        return "bool"
    return {int: "int", float: "float", str: "str", list: "array", dict: "object"}.get(type(value), "null")


def _located(exc: msgspec.ValidationError, base: str) -> tuple[str, str]:
    """A msgspec validation error's message and path (``base`` + the error's own path)."""
    message, _, where = str(exc).rpartition(" - at `")  # the last: a property name may hold one
    if not _:
        message, where = where, ""
    message = _VALUE_QUOTED.sub(r"\1", message)  # never repeat the value an enum or const refuses
    where = where.removeprefix("key` in `")  # a map key that breaks propertyNames: the map's path
    return message, base + where[1:-1] if where.endswith("`") else base


def unquoted(text: str) -> str:
    """`text` without the value a msgspec ``Invalid enum value 'x'`` / ``Invalid value 'x'`` quotes
    inside it (a message that embeds a msgspec error's text without :func:`described`): the
    errors of ``lucent.errors`` pass every message through it."""
    return _VALUE_INSIDE.sub(r"\1", text) if "Invalid " in text else text


_VALUE_INSIDE = re.compile(r"""(Invalid (?:enum )?value) (?:'(?:[^'\\]|\\.)*'|"(?:[^"\\]|\\.)*"|-?\d[\w.+-]*)""", re.DOTALL)


_VALUE_QUOTED = re.compile(r"^(Invalid (?:enum )?value)\b.*", re.DOTALL)
"""msgspec's ``Invalid enum value 'x'`` / ``Invalid value 'x'`` (a refused enum or const, tag
values included): group 1 is the text without the value, which msgspec quotes raw or as its
repr (so it may hold quotes, newlines, `` - at ``)."""


def _reach(exc: msgspec.ValidationError | RuleViolation, base: str) -> tuple[int, bool]:
    """How far a failed branch got: the depth of its fault's path, then whether the fault is its
    own rather than a nested union's. Ranks a failure as ``violation(exc, base)`` would, without
    building it."""
    if isinstance(exc, RuleViolation):
        path, code = exc.path, exc.code
    else:
        path, code = _located(exc, base)[1], ""
        cause = exc.__cause__
        if isinstance(cause, RuleViolation):
            path, code = (cause.path if cause.path.startswith("$") else path + cause.path), cause.code
    return path.count(".") + path.count("["), code not in ("anyOf", "oneOf")


_ABSENT = "\x00absent"
_OTHER = "\x00other"


def convert_as(value: Any, tp: Any) -> Any:
    """``msgspec.convert(value, tp)``, for any type. msgspec keeps what it learns about a Struct
    class on the class, but works a union (``Foo | Bar``, ``Foo | _MissingTypeTag``), a
    ``list[...]`` or an ``Annotated`` type out again on every call, about 100 times the cost of
    the conversion itself (a 17-branch union: ~19 us a call against ~0.3 us); such a type is
    converted as the one field of a Struct made for it (once), and a fault is raised again by the
    plain call so that its message and path are msgspec's own. Raises what msgspec.convert
    raises. Every converter converts through this, never msgspec.convert with a type that is not
    a class."""
    if isinstance(tp, type):
        return msgspec.convert(value, tp)
    box = _BOXES.get(tp)
    if box is None:
        with BUILD_LOCK:  # made and built whole before another thread can convert through it
            box = _BOXES.get(tp)
            if box is None:
                box = msgspec.defstruct("_Box", [("value", tp)])
                msgspec.json.Decoder(box)
                _BOXES[tp] = box
    try:
        boxed: Any = msgspec.convert({"value": value}, box)
        return boxed.value
    except msgspec.ValidationError:
        return msgspec.convert(value, tp)


_BOXES: dict[Any, Any] = {}

BUILD_LOCK = threading.RLock()
"""Held while a type is made at run time (a ``convert_as`` box, ``lucent._transforms.unchecked``).
lucent._first_use takes it at a fork, after its own lock (never the other way round: nothing
that holds it takes lucent's)."""


def build_structs(namespace: dict[str, Any]) -> None:
    """Build msgspec's state for every Struct class a module defines; a module calls it last.

    msgspec works out what it knows of a Struct class (its fields' types, recursively) on the
    class's first use, and publishes it before it is complete: a thread that converts through
    the class meanwhile crashes the process (msgspec 0.22; NOTES.md, "msgspec's first use").
    Built while the module is imported, the state is whole before any other thread can reach
    the class: the import lock holds them off. Takes no lock of lucent's own
    (lucent._first_use: a module body never does)."""
    name = namespace["__name__"]
    for value in list(namespace.values()):
        if isinstance(value, type) and issubclass(value, msgspec.Struct) and value.__module__ == name:
            msgspec.json.Decoder(value)


def convert_union(
    value: Any,
    branches: tuple[Any, ...],
    path: str,
    one_of: bool,
    table: tuple[str, dict[Any, list[int]], list[int], list[int]] | None = None,
) -> Any:
    """Convert a plain JSON value to the branch of a union that accepts it.

    A branch is a msgspec type (converted with ``msgspec.convert``) or a function
    ``(value, path) -> value``. ``one_of``: exactly one branch must accept the value (JSON Schema
    ``oneOf``); otherwise the first that accepts it wins (``anyOf``). ``table`` (key, branches by
    the key's value, branches for other values, branches for a value that is not an object)
    names the only branches that can accept a value; the others are not tried.
    """
    indices: Any = range(len(branches))
    if table is not None:
        key, by_tag, other, non_objects = table
        if isinstance(value, dict):
            tag = value.get(key) if key in value else _ABSENT
            indices = by_tag.get(tag, other) if tag is None or isinstance(tag, str) else other
            if not indices:  # every branch would fail on the tag: it is the fault
                raise _tag_fault(tag, key, by_tag, path)
        else:
            indices = non_objects
            if not indices:
                raise RuleViolation("type", f"Expected `object`, got `{_json_type(value)}`", path)
        if len(indices) == 1:  # the table names one branch: it alone can accept the value
            branch = branches[indices[0]]
            try:
                return branch(value, path) if isinstance(branch, FunctionType) else convert_as(value, branch)
            except msgspec.ValidationError as exc:
                raise violation(exc, path) from None
    accepted: list[Any] = []
    errors: list[msgspec.ValidationError | RuleViolation] = []  # read only when no branch accepts
    for index in indices:
        branch = branches[index]
        try:
            converted = branch(value, path) if isinstance(branch, FunctionType) else convert_as(value, branch)
        except (msgspec.ValidationError, RuleViolation) as exc:
            errors.append(exc)
            continue
        if not one_of:
            return converted
        accepted.append(converted)
    if len(accepted) == 1:
        return accepted[0]
    if accepted:
        raise RuleViolation("oneOf", f"matches {len(accepted)} branches of a oneOf; exactly one must match", path)
    # No branch accepts the value: name the fault of the branch that got furthest. Only that fault
    # is translated; a value whose tag names no branch fails every branch.
    best = max(errors, key=lambda e: _reach(e, path))
    raise best if isinstance(best, RuleViolation) else violation(best, path)


def key_path(key: str) -> str:
    """The JSON path step for a map key: ``.key`` or ``["key"]``, as :func:`member` writes it."""
    return member("", key)


def member(path: str, key: str) -> str:
    """The JSON path of `key` inside the object at `path` ($.a.b, or $.a["odd key"]): a key that
    is not an ASCII name is a JSON string (quotes and backslashes escaped) with its control
    characters escaped by :func:`printable` (``$["a\\u202e"]``), so a path never holds one."""
    return f"{path}.{key}" if _NAME.fullmatch(key) else f"{path}[{printable(json.dumps(key, ensure_ascii=False))}]"


_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")  # fullmatch: `$` would let a final newline in


def check_finite(value: float, path: str) -> None:
    """JSON has no NaN or Infinity: a Struct built in Python must not hold them."""
    if not math.isfinite(value):
        raise RuleViolation("type", "Expected a finite JSON number", path)


MAX_JSON_TEXT_DEPTH = 512
"""How deep a JSON text held in a string value (tool-call arguments, a tool result) may nest.

Such text is parsed into a value that a converter places inside another document (llm-sdk
``args``, htmlp ``arguments``), several levels down; lucent.decode and lucent.encode refuse a
document that nests past Python's recursion limit (1,000 by default), so 512 leaves the
document around the value room to spare. Writing a value as JSON text has the same bound."""


class JsonTextError(ValueError):
    """Why a JSON text (or a value to be written as one) is not a JSON value lucent carries.

    Attributes
    ----------
    kind : str
        ``malformed``, ``trailing_data``, ``duplicate_key``, ``not_json`` (NaN, Infinity, or a
        Python value with no JSON form), ``number_out_of_range`` (beyond a double, such as
        ``1e999``, or an integer of over 4,300 digits), ``max_depth``, ``lone_surrogate`` or
        ``out_of_memory``.
    problem : str
        A noun phrase: ``trailing data after the JSON value at offset 7``.
    predicate : str
        The same, to follow a subject: ``is not one complete JSON value``.
    """

    def __init__(self, kind: str, problem: str, predicate: str) -> None:
        super().__init__(problem)
        self.kind = kind
        self.problem = problem
        self.predicate = predicate


_OUT_OF_RANGE = "a number out of range (beyond a JSON double, such as 1e999, or an integer of over 4,300 digits)"


def _out_of_range() -> JsonTextError:
    return JsonTextError("number_out_of_range", _OUT_OF_RANGE, "holds " + _OUT_OF_RANGE)


def _too_deep() -> JsonTextError:
    return JsonTextError(
        "max_depth", f"nesting deeper than {MAX_JSON_TEXT_DEPTH} levels", f"nests deeper than {MAX_JSON_TEXT_DEPTH} levels"
    )


def _no_duplicate_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    result = dict(pairs)
    if len(result) != len(pairs):
        seen: set[str] = set()
        key = next(k for k, _ in pairs if k in seen or seen.add(k))  # type: ignore[func-returns-value]
        raise JsonTextError("duplicate_key", f"duplicate property {key!r}", "has a duplicate key")
    return result


def _no_constant(name: str) -> Any:
    raise JsonTextError("not_json", f"{name} is not JSON", f"holds {name}, which is not JSON")


def _finite(literal: str) -> float:
    value = float(literal)
    if math.isinf(value):
        raise _out_of_range()
    return value


_JSON_TEXT = json.JSONDecoder(object_pairs_hook=_no_duplicate_keys, parse_constant=_no_constant, parse_float=_finite)
"""One decoder for every JSON text (json.loads with these arguments builds a new one per call)."""


_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")
_ESCAPE = re.compile(r"\\(?:u([0-9a-fA-F]{4})|.)", re.DOTALL)
_RAW_SURROGATE = re.compile("[\ud800-\udfff]")
_NOT_STRUCTURE = bytes(b for b in range(256) if b not in b'[]{}"')
_OPENS_CLOSES = bytes.maketrans(b"{}", b"[]")
_STEP = [0] * 256
_STEP[ord("[")], _STEP[ord("]")] = 1, -1
_PASSES = 16
_ESCAPE_PAIR = re.compile(rb"\\[\s\S]")  # a backslash and the byte it escapes
_SPARSE = 128
"""Escapes are dropped by :data:`_ESCAPE_PAIR` when there are at most ``len(text) // _SPARSE``
of them (a match costs what about 25 bytes of ``bytes.replace`` cost), else by ``replace``."""
_LARGE = 1 << 16
"""From this size a text has more than ``limit`` brackets (nearly always): the structure is
read without counting its opening brackets first."""
_NOT_OPENING = bytes(b for b in range(256) if b not in b"[{")


def nests_deeper(text: str | bytes, limit: int) -> bool:
    """The JSON text's arrays and objects nest deeper than ``limit`` levels (``[]`` is 1).

    Checked before parsing, in linear time and without recursion. When the text has more
    opening brackets than ``limit`` and a backslash, escapes are dropped first (a backslash and
    the byte it escapes): by one regular expression when they are sparse (one match each), else
    by two ``bytes.replace`` passes, escaped backslashes then escaped quotes (a run of
    backslashes pairs up from its start), whose cost does not grow with the escapes. Then
    every byte but quotes and brackets is dropped, then what lies between two quotes (string
    contents): what is left is the bracket structure. Each pass that deletes every adjacent
    ``[]`` lowers the deepest level by exactly one (the deepest bracket always closes at once),
    at C speed; after at most :data:`_PASSES` passes, the rest is read ``limit // 2`` brackets
    at a time, and a piece whose opening brackets cannot take the depth past the limit is only
    counted. An unterminated string hides the brackets after it (the text is malformed
    then, which the parse reports before it reaches them). Text that is not JSON gets some
    answer, never an exception.
    """
    data = text.encode("utf-8", "surrogatepass") if isinstance(text, str) else text
    if len(data) <= limit:  # too short to open limit + 1 brackets
        return False
    if len(data) < _LARGE and len(data.translate(None, _NOT_OPENING)) <= limit:
        return False  # the common case: few brackets, counted in one pass
    if b"\\" in data:  # memchr; a quote may be escaped
        most = len(data) // _SPARSE
        unescaped, dropped = _ESCAPE_PAIR.subn(b"", data, count=most + 1)
        if dropped > most:  # dense escapes: the expression's cost per match would dominate
            unescaped = data.replace(b"\\\\", b"").replace(b'\\"', b"")
        data = unescaped
    kept = data.translate(_OPENS_CLOSES, _NOT_STRUCTURE)  # quotes and brackets: one pass, a small result
    if kept.count(b"[") <= limit:
        return False
    structure = b"".join(kept.split(b'"')[::2])
    for _ in range(min(_PASSES, limit)):
        if b"[" * (limit + 1) in structure:
            return True
        shorter = structure.replace(b"[]", b"")
        if len(shorter) == len(structure):
            break
        structure, limit = shorter, limit - 1
    depth = 0
    step = max(limit // 2, 1)
    for start in range(0, len(structure), step):
        piece = structure[start : start + step]
        opens = piece.count(b"[")
        if depth + opens > limit and depth + max(accumulate(map(_STEP.__getitem__, piece))) > limit:
            return True
        depth += 2 * opens - len(piece)
    return False


def _too_deep_text(text: str) -> bool:
    """The text's brackets (outside strings) nest deeper than MAX_JSON_TEXT_DEPTH."""
    return nests_deeper(text, MAX_JSON_TEXT_DEPTH)


def _lone_surrogate_escape(text: str) -> bool:
    """A ``\\uD800``-``\\uDFFF`` escape that is not half of a pair (the text parsed as JSON)."""
    if _SURROGATE_ESCAPE.search(text) is None:
        return False
    pending = -1
    for match in _ESCAPE.finditer(text):
        digits = match.group(1)
        unit = int(digits, 16) if digits else -1
        if pending >= 0:
            if match.start() == pending and 0xDC00 <= unit <= 0xDFFF:
                pending = -1
                continue
            return True
        if 0xD800 <= unit <= 0xDBFF:
            pending = match.end()
        elif 0xDC00 <= unit <= 0xDFFF:
            return True
    return pending >= 0


def _lone_surrogate() -> JsonTextError:
    return JsonTextError("lone_surrogate", "a lone UTF-16 surrogate, which UTF-8 cannot carry", "holds a lone UTF-16 surrogate, which UTF-8 cannot carry")


def load_json_text(text: str) -> Any:
    """The JSON value of ``text``, read as lucent.decode reads a document; raises JsonTextError.

    Refused: text that is not exactly one JSON value, duplicate property names, ``NaN`` and
    ``Infinity``, numbers out of range (``1e999``: never read as ``inf``, which has no JSON
    text and would be written as ``null``), nesting deeper than :data:`MAX_JSON_TEXT_DEPTH`
    (checked before parsing, so no RecursionError), and lone surrogates.
    """
    if not isinstance(text, str):  # a Struct built in Python may hold anything
        name = type(text).__name__
        raise JsonTextError("not_json", f"a {name}, not JSON text", f"is a {name}, not JSON text")
    if _too_deep_text(text):
        raise _too_deep()
    try:
        if text.startswith("\ufeff"):  # as json.loads: a str holds no byte order mark
            raise json.JSONDecodeError("Unexpected UTF-8 BOM (decode using utf-8-sig)", text, 0)
        value = _JSON_TEXT.decode(text)
    except JsonTextError:
        raise
    except json.JSONDecodeError as exc:
        if exc.msg == "Extra data":
            problem = f"trailing data after the JSON value at offset {exc.pos}"
        else:
            problem = f"not complete JSON ({exc.msg} at offset {exc.pos})"
        raise JsonTextError("trailing_data" if exc.msg == "Extra data" else "malformed", problem, "is not one complete JSON value") from None
    except ValueError:  # an integer literal over Python's 4,300-digit limit
        raise _out_of_range() from None
    except RecursionError:  # a caller already deep in the stack
        raise _too_deep() from None
    except MemoryError:
        raise JsonTextError("out_of_memory", "text too large to parse in memory", "is too large to parse in memory") from None
    if ("\\u" in text and _lone_surrogate_escape(text)) or (not text.isascii() and _RAW_SURROGATE.search(text)):
        raise _lone_surrogate()
    return value


def same_json_value(text: str, value: Any) -> bool:
    """Whether ``text`` (JSON text that :func:`load_json_text` read as ``value``) is the JSON
    value that :func:`dump_json_text` writes for ``value``: spacing, escapes and number
    spellings aside (``1.0``, ``1e0`` and ``1`` are one JSON number), numbers compared exactly,
    so a digit lost to a float's precision (``0.10000000000000000001`` read as ``0.1``) is not
    the same value (docs/semantics.md: JSON text carried as the equal JSON value is Exact)."""
    written = dump_json_text(value)
    if written == text:
        return True
    from decimal import Decimal

    def exact(raw: str) -> Any:
        return json.loads(raw, parse_float=Decimal, parse_int=Decimal)

    try:
        return _same(exact(text), exact(written))
    except (ValueError, RecursionError):
        return False


def _same(a: Any, b: Any) -> bool:
    """JSON values equal, ``true`` never equal to ``1`` (Decimal(1) == True in Python)."""
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    return type(a) is type(b) and a == b


def dump_json_text(value: Any) -> str:
    """The compact JSON text of a JSON value (separators "," and ":", keys in their order, UTF-8
    characters kept); raises JsonTextError for a value that has none (NaN, infinity, a type
    JSON lacks, nesting deeper than MAX_JSON_TEXT_DEPTH, a lone surrogate)."""
    try:
        text = json.dumps(value, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
    except RecursionError:
        raise _too_deep() from None
    except ValueError as exc:
        if "Circular" in str(exc):
            raise JsonTextError("not_json", "a circular reference, which JSON cannot write", "holds a circular reference") from None
        raise JsonTextError("not_json", "NaN or an infinite number, which is not JSON", "holds NaN or an infinite number, which is not JSON") from None
    except TypeError as exc:
        raise JsonTextError("not_json", f"a value JSON cannot write ({exc})", f"holds a value JSON cannot write ({exc})") from None
    except MemoryError:
        raise JsonTextError("out_of_memory", "a value too large to write in memory", "is too large to write in memory") from None
    if _too_deep_text(text):
        raise _too_deep()
    if not text.isascii() and _RAW_SURROGATE.search(text):
        raise _lone_surrogate()
    return text


def check_json_object_text(text: str, path: str) -> None:
    """``text`` must be one complete JSON object: no duplicate keys, no trailing JSON, not null,
    read as :func:`load_json_text` reads it (no number out of range, no deeper nesting than
    MAX_JSON_TEXT_DEPTH, no lone surrogate)."""
    if isinstance(text, str) and _plain_json_object(text):
        return
    try:
        value = load_json_text(text)
    except JsonTextError as exc:
        raise RuleViolation("tool_arguments", f"arguments {exc.predicate}", path) from None
    if not isinstance(value, dict):
        raise RuleViolation("tool_arguments", "arguments must be a JSON object", path)


_ANY_JSON: msgspec.json.Decoder[Any] = msgspec.json.Decoder()
_RISKY_ESCAPE = re.compile(r"\\u(?:[dD][89a-fA-F]|003[aA])")  # a surrogate half, or ':'

_COMPACT = msgspec.json.Encoder()


def _plain_json_object(text: str) -> bool:
    """A quick acceptance for :func:`check_json_object_text`, in C: True only for a text that
    rule accepts (one JSON object, no duplicate keys, ...); False sends it to the full check.

    msgspec refuses everything the full reading refuses but duplicate keys and lone surrogate
    escapes (NaN, ``1e999``, integers beyond 4,300 digits, trailing data); a text with a
    surrogate escape goes to the full check. A duplicate key is lost in the decoded object, and
    with it one ``:`` separator: outside strings the text has one ``:`` per member, and without
    a ``\\u003a`` escape its strings hold the same ``:`` characters as the decoded strings, so
    the text has as many ``:`` as the object written back exactly when no key was lost.
    """
    return plain_json_object(text) is not None


def plain_json_object(text: str) -> tuple[dict[str, Any], bytes] | None:
    """The JSON object of `text` and its compact text as msgspec writes it, read in C, when the
    quick acceptance of :func:`_plain_json_object` holds (the object is then the one
    :func:`load_json_text` reads: no key was lost, no surrogate escape read); else None, and
    the caller reads `text` the full way."""
    if not isinstance(text, str) or ("\\u" in text and _RISKY_ESCAPE.search(text)) or text.count("[") + text.count("{") > MAX_JSON_TEXT_DEPTH:
        return None
    try:
        value = _ANY_JSON.decode(text)
    except (msgspec.MsgspecError, ValueError, RecursionError, MemoryError):
        return None
    if not isinstance(value, dict):
        return None
    compact = _COMPACT.encode(value)
    return (value, compact) if text.count(":") == compact.count(b":") else None


_FLOAT_TOKEN = re.compile(r"[0-9][.eE]")
"""Where a JSON number may be a float (every float token has a digit then '.', 'e' or 'E'): a
text without one holds no float, and msgspec writes it as :func:`dump_json_text` does (ints,
strings and their escapes alike; floats differ: ``1e16`` against ``1e+16``)."""


def is_compact_text(text: str, value: Any, compact: bytes) -> bool:
    """Whether :func:`dump_json_text` of `value` (the JSON value of `text`; `compact`, msgspec's
    compact writing of it) is `text`: the bytes compared when `text` holds no float, else the
    texts."""
    if _FLOAT_TOKEN.search(text) is None:
        return compact == text.encode("utf-8")
    return dump_json_text(value) == text


# The checks that codegen/validators.py's validation functions call (a user's schema compiled where
# no msgspec type expresses it exactly).


def ok(check: Any, v: Any, p: str) -> bool:
    """``check`` accepts ``v`` (a RuleViolation is a no)."""
    try:
        check(v, p)
    except RuleViolation:
        return False
    return True


def evaluated(check: Any, v: Any, p: str) -> Any:
    """The annotations ``check`` collects on ``v`` (evaluated member names, item indexes), or
    None when it refuses ``v``."""
    try:
        return check(v, p)
    except RuleViolation:
        return None


def json_key(v: Any) -> Any:
    """A hashable value equal for JSON-equal values: 1 and 1.0 alike, true and 1 not."""
    t = type(v)
    if t is float:
        return (2, int(v)) if v.is_integer() else (2, v)
    if t is int:
        return (2, v)
    if t is str:
        return (3, v)
    if t is bool or v is None:
        return (1, v)
    if t is list:
        return (4, tuple(map(json_key, v)))
    return (5, frozenset((k, json_key(x)) for k, x in v.items()))


def multiple_of(v: int | float, m: Fraction) -> bool:
    """``v`` is an integer multiple of ``m``, on the decimal values (0.0075 of 0.0001)."""
    if type(v) is float and (v != v or v in (float("inf"), float("-inf"))):
        return False
    return (Fraction(v if type(v) is int else repr(v)) / m).denominator == 1
