"""decode and encode: JSON text to generated Structs and back, with typed errors."""

from __future__ import annotations

import builtins
import json
import re
import sys as _sys
from collections.abc import Callable, Iterator
from types import ModuleType
from typing import TYPE_CHECKING, Any, Literal, NamedTuple, TypeVar, overload

import msgspec

from lucent._best_error import shallowest
from lucent._first_use import LOCK, imported, once
from lucent._limits import Limits, limits_of
from lucent.formats import FORMATS as _REGISTRY
from lucent.errors import DecodeError, EncodeError, LucentError, UsageError, ValidationError
from lucent._validation import MSGSPEC_CODES, RuleViolation, nests_deeper, violation

if TYPE_CHECKING:
    from lucent.generated.anthropic import CreateMessageParams, Message
    from lucent.generated.gemini import GenerateContentRequest, GenerateContentResponse
    from lucent.generated.htmlp_model_request import ModelRequest
    from lucent.generated.llm_sdk import LanguageModelInput, ModelResponse
    from lucent.generated.lux_ir_v1 import LucentError as LuxError, LucentRequest, LucentResponse
    from lucent.generated.openai_chat import CreateChatCompletionRequest, CreateChatCompletionResponse
    from lucent.generated.openai_responses import CreateResponse, Response
    from lucent.generated.sparktide_remote_1_0 import RemoteModelFailure, RemoteModelRequest, RemoteModelResponse

_T = TypeVar("_T")

SCHEMAS: dict[str, str] = {**{f.schema: f.module for f in _REGISTRY.values()}, "lucent-diagnostics-v1": "lucent_diagnostics_v1"}
"""Schema file stem -> generated module name (lucent.generated.<module>): each format's schema
(:data:`lucent.formats.FORMATS`; vendor modules are imported only when first used) and the
diagnostics schema, which is no format."""

_ENCODER = msgspec.json.Encoder()


def schema_module(schema: str) -> ModuleType:
    """The generated module for a schema stem; raises UsageError(code=unknown_schema)."""
    try:
        return _modules[schema]
    except KeyError:
        pass
    try:
        module = SCHEMAS[schema]
    except KeyError:
        raise UsageError(f"unknown schema; known: {', '.join(SCHEMAS)}", code="unknown_schema") from None
    loaded = _modules[schema] = imported(f"lucent.generated.{module}")
    return loaded


_modules: dict[str, ModuleType] = {}
"""Schema stem -> its generated module, once imported (importlib.import_module costs a lookup
of its own on every call)."""


@once
def _decoder(schema: str, definition: str | None) -> msgspec.json.Decoder[Any]:
    module = schema_module(schema)
    if definition is None:
        return msgspec.json.Decoder(module.ROOT)
    try:
        return msgspec.json.Decoder(module.DECODE_TYPES[definition])
    except KeyError:
        raise UsageError(f"schema {schema} has no such definition", code="unknown_definition") from None



# What a type checker knows of the result: the document definitions by literal names (DOCUMENTS;
# held to it by tests/test_convert_typed_values.py), and type=T -> T, as msgspec's decode.
@overload
def decode(data: bytes | bytearray | memoryview | str, schema: Literal["anthropic"], definition: Literal["CreateMessageParams"], *, rules: Literal["all", "schema"] = "all", limits: Limits | None = None) -> CreateMessageParams: ...
@overload
def decode(data: bytes | bytearray | memoryview | str, schema: Literal["anthropic"], definition: Literal["Message"], *, rules: Literal["all", "schema"] = "all", limits: Limits | None = None) -> Message: ...
@overload
def decode(data: bytes | bytearray | memoryview | str, schema: Literal["gemini"], definition: Literal["GenerateContentRequest"], *, rules: Literal["all", "schema"] = "all", limits: Limits | None = None) -> GenerateContentRequest: ...
@overload
def decode(data: bytes | bytearray | memoryview | str, schema: Literal["gemini"], definition: Literal["GenerateContentResponse"], *, rules: Literal["all", "schema"] = "all", limits: Limits | None = None) -> GenerateContentResponse: ...
@overload
def decode(data: bytes | bytearray | memoryview | str, schema: Literal["htmlp-model-request"], definition: None = None, *, rules: Literal["all", "schema"] = "all", limits: Limits | None = None) -> ModelRequest: ...
@overload
def decode(data: bytes | bytearray | memoryview | str, schema: Literal["llm-sdk"], definition: Literal["LanguageModelInput"], *, rules: Literal["all", "schema"] = "all", limits: Limits | None = None) -> LanguageModelInput: ...
@overload
def decode(data: bytes | bytearray | memoryview | str, schema: Literal["llm-sdk"], definition: Literal["ModelResponse"], *, rules: Literal["all", "schema"] = "all", limits: Limits | None = None) -> ModelResponse: ...
@overload
def decode(data: bytes | bytearray | memoryview | str, schema: Literal["lux-ir-v1"], definition: Literal["LucentError"], *, rules: Literal["all", "schema"] = "all", limits: Limits | None = None) -> LuxError: ...
@overload
def decode(data: bytes | bytearray | memoryview | str, schema: Literal["lux-ir-v1"], definition: Literal["LucentRequest"], *, rules: Literal["all", "schema"] = "all", limits: Limits | None = None) -> LucentRequest: ...
@overload
def decode(data: bytes | bytearray | memoryview | str, schema: Literal["lux-ir-v1"], definition: Literal["LucentResponse"], *, rules: Literal["all", "schema"] = "all", limits: Limits | None = None) -> LucentResponse: ...
@overload
def decode(data: bytes | bytearray | memoryview | str, schema: Literal["openai-chat"], definition: Literal["CreateChatCompletionRequest"], *, rules: Literal["all", "schema"] = "all", limits: Limits | None = None) -> CreateChatCompletionRequest: ...
@overload
def decode(data: bytes | bytearray | memoryview | str, schema: Literal["openai-chat"], definition: Literal["CreateChatCompletionResponse"], *, rules: Literal["all", "schema"] = "all", limits: Limits | None = None) -> CreateChatCompletionResponse: ...
@overload
def decode(data: bytes | bytearray | memoryview | str, schema: Literal["openai-responses"], definition: Literal["CreateResponse"], *, rules: Literal["all", "schema"] = "all", limits: Limits | None = None) -> CreateResponse: ...
@overload
def decode(data: bytes | bytearray | memoryview | str, schema: Literal["openai-responses"], definition: Literal["Response"], *, rules: Literal["all", "schema"] = "all", limits: Limits | None = None) -> Response: ...
@overload
def decode(data: bytes | bytearray | memoryview | str, schema: Literal["sparktide-remote-1.0"], definition: Literal["RemoteModelFailure"], *, rules: Literal["all", "schema"] = "all", limits: Limits | None = None) -> RemoteModelFailure: ...
@overload
def decode(data: bytes | bytearray | memoryview | str, schema: Literal["sparktide-remote-1.0"], definition: Literal["RemoteModelRequest"], *, rules: Literal["all", "schema"] = "all", limits: Limits | None = None) -> RemoteModelRequest: ...
@overload
def decode(data: bytes | bytearray | memoryview | str, schema: Literal["sparktide-remote-1.0"], definition: Literal["RemoteModelResponse"], *, rules: Literal["all", "schema"] = "all", limits: Limits | None = None) -> RemoteModelResponse: ...
@overload
def decode(data: bytes | bytearray | memoryview | str, schema: None = None, definition: None = None, *, type: builtins.type[_T], rules: Literal["all", "schema"] = "all", limits: Limits | None = None) -> _T: ...
@overload
def decode(data: bytes | bytearray | memoryview | str, schema: str | None = None, definition: str | None = None, *, type: Any = None, rules: Literal["all", "schema"] = "all", limits: Limits | None = None) -> Any: ...

def decode(
    data: bytes | bytearray | memoryview | str,
    schema: str | None = None,
    definition: str | None = None,
    *,
    type: Any = None,
    rules: Literal["all", "schema"] = "all",
    limits: Limits | None = None,
) -> Any:
    """Decode JSON text into the generated Struct for ``schema``/``definition`` (or ``type``).

    Parameters
    ----------
    data : bytes or str
        One JSON document (RFC 8259), UTF-8 when bytes. No BOM, no trailing data.
    schema : str
        Schema file stem: ``lux-ir-v1``, ``sparktide-remote-1.0``, ``llm-sdk``,
        ``htmlp-model-request`` or ``lucent-diagnostics-v1``; or a vendor format (the stem of
        ``schemas/vendor/<format>.json``): ``openai-chat``, ``openai-responses``, ``anthropic``,
        ``gemini``, whose root accepts any of the format's documents (the first of its
        ``ROOT_ANY_OF`` definitions that accepts it gives the type).
    definition : str, optional
        A name under the schema's ``$defs``/``definitions``; ``None`` decodes the schema root
        (for SparkTide, exactly one of RemoteModelRequest, RemoteModelResponse,
        RemoteModelStreamFrame and RemoteModelFailure must accept it).
    type : module or type, optional
        Instead of ``schema``, in msgspec's manner: a module ``lucent generate`` (or
        ``python -m codegen``) wrote from a user's schema, or one of its types: ``decode(data,
        type=Model)`` decodes the definition whose type is ``Model`` (the root when it is the
        module's ``ROOT``); ``type=module`` decodes the root, or ``definition``. A module whose
        schema no msgspec type expresses exactly checks plain JSON values with its validation
        functions: name it, and the definition by name. The schema's verdicts, the errors and
        their JSON paths are those of ``schema=``.
    rules : {"all", "schema"}
        ``"all"`` also enforces the protocol rules (codegen/protocols.toml: SparkTide's 1 MiB body,
        duplicate properties, tool-call ``arguments`` as a closed JSON object); ``"schema"``
        enforces the JSON Schema alone (and the body cap of a format without one, below).
    limits : lucent.Limits, optional
        Resource limits, checked before parsing: ``max_body_bytes`` (default: the protocol's,
        SparkTide 1 MiB, else 32 MiB) and ``max_depth`` (default 512 levels of arrays and
        objects). See :class:`lucent.Limits` and SECURITY.md.

    Returns
    -------
    The generated Struct (``lucent.generated.<module>.<Definition>``), or a plain JSON value for a
    definition that is not an object.

    Raises
    ------
    DecodeError
        ``malformed_json``, ``invalid_utf8``, ``lone_surrogate``, ``max_depth`` (nesting deeper
        than ``limits.max_depth``, found before parsing), ``out_of_memory``; ``.offset`` is the
        byte offset when known.
    ValidationError
        A JSON Schema keyword (``.code`` is the keyword) or a protocol rule (``max_body_bytes``,
        found before parsing; ``duplicate_key``, ``tool_arguments``) failed at ``.path``.
    UsageError
        ``unknown_schema``, ``unknown_definition``, ``invalid_rules``, ``invalid_input_type``,
        ``invalid_limits``; ``invalid_type``: ``type`` is no generated module nor one of its
        types, or comes with ``schema``.
    """
    if type is not None:
        schema, definition = _typed(type, schema, definition)
    elif schema is None:
        raise UsageError("decode needs a schema name or a type", code="unknown_schema")
    try:
        route = _defaults[schema][definition] if limits is None and rules == "all" else _routes[schema, definition, rules, limits]
    except (KeyError, TypeError, ValueError):  # first use, or a name or limits that cannot be a key (a released memoryview: ValueError)
        route = _route(schema, definition, rules, limits)
    limit, depth, utf8, parse, plan, protocol, one_of = route
    if data.__class__ is bytes:
        buf = data
        if len(buf) > limit:
            raise ValidationError(f"the JSON body is over {limit} bytes, the limit", code="max_body_bytes")
    else:
        # Before any copy: a str has a UTF-8 byte per character at least.
        try:
            size = data.nbytes if isinstance(data, memoryview) else len(data) if isinstance(data, (str, bytearray)) else 0
            if size > limit:
                raise ValidationError(f"the JSON body is over {limit} bytes, the limit", code="max_body_bytes")
            buf = _as_bytes(data)
        except ValueError as exc:  # a released memoryview
            raise UsageError(f"decode cannot read the data: {exc}", code="invalid_input_type") from None
        if len(buf) > limit:
            raise ValidationError(f"the JSON body is {len(buf)} bytes; at most {limit} are allowed", code="max_body_bytes")
    if _prescan is not None:
        found = _prescan(buf, depth, utf8)
        if found != -1:
            raise _prescan_fault(buf, found, depth, utf8)
    else:
        _prescan_python(buf, depth, utf8)
    if parse is not None:
        try:
            return parse(buf)
        except Exception:  # a fault: the full path below finds and names it
            pass
    try:
        if plan is None:
            return _decode_one_of(buf, schema, one_of, protocol)
        return _decode_as(buf, schema, definition, protocol, plan)
    except RecursionError:
        raise DecodeError("the document nests too deeply to parse", code="max_depth") from None


def _typed(tp: Any, schema: str | None, definition: str | None) -> tuple[str, str | None]:
    """The (schema key, definition) :func:`decode` reads for ``type=tp``: its generated module,
    registered under a key of its own (the module's name and identity: a module generated again
    and reloaded is another), and the definition whose type ``tp`` is. Raises UsageError."""
    try:
        return _typed_keys[tp, definition]
    except (KeyError, TypeError):  # first use, or a type that cannot be a key
        pass
    if schema is not None:
        raise UsageError("decode takes a schema or a type, not both", code="invalid_type")
    module = tp if isinstance(tp, ModuleType) else _sys.modules.get(getattr(tp, "__module__", ""))
    if module is None or not all(hasattr(module, n) for n in ("ROOT", "DECODE_TYPES", "DECODE_CHECKS", "PROTOCOL", "PROTOCOL_CHECKS", "ROOT_ONE_OF")):
        raise UsageError("type is a generated module (lucent generate) or one of its types", code="invalid_type")
    if module is not tp:
        if definition is not None:
            raise UsageError("decode takes a definition with type=MODULE, not with a type", code="invalid_type")
        if tp is module.ROOT:
            definition = None
        else:
            names = [n for n, t in module.DECODE_TYPES.items() if t is tp]
            if not names:
                raise UsageError(f"{module.__name__} decodes no definition as this type", code="invalid_type")
            definition = names[0]
    key = f"{module.__name__}@{id(module):x}"
    _modules[key] = module
    try:
        _typed_keys[tp, definition] = (key, definition)
    except TypeError:
        pass
    return key, definition


_typed_keys: dict[tuple[Any, str | None], tuple[str, str | None]] = {}
"""(type, definition) -> what decode reads for it (:func:`_typed`)."""


_prescan: Callable[[bytes, int, bool], int] | None
try:
    from lucent._prescan import prescan as _prescan
except ImportError:  # not built (pyproject.toml: an optional extension): the same check in Python
    _prescan = None


def too_deep(buf: bytes, depth: int) -> bool:
    """``buf`` (JSON text) nests deeper than ``depth`` levels (``nests_deeper``, in C when built)."""
    return _prescan(buf, depth, False) == -2 if _prescan is not None else nests_deeper(buf, depth)


def _prescan_fault(buf: bytes, found: int, depth: int, utf8: bool) -> DecodeError:
    """The error for a fault :func:`lucent._prescan.prescan` found: ``found`` is the offset of
    ill-formed UTF-8, or -2 for a text deeper than ``depth`` (reported as invalid UTF-8 when
    ``utf8`` and the text holds some after that point, as :func:`_prescan_python` would)."""
    if found == -2:
        try:
            _prescan_python(buf, None, utf8)
        except DecodeError as exc:
            return exc
        return DecodeError(f"the document nests deeper than {depth} levels, the limit", code="max_depth")
    return DecodeError(f"invalid UTF-8 at byte {found}", code="invalid_utf8", offset=found)


def _prescan_python(buf: bytes, depth: int | None, utf8: bool) -> None:
    """The checks before parsing, in Python: ``buf`` is UTF-8 (when ``utf8``: msgspec does not
    read the values of members a Struct ignores), then it nests at most ``depth`` levels."""
    if utf8 and not buf.isascii():
        try:
            buf.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise DecodeError(f"invalid UTF-8 at byte {exc.start}", code="invalid_utf8", offset=exc.start) from None
    if depth is not None and nests_deeper(buf, depth):
        raise DecodeError(f"the document nests deeper than {depth} levels, the limit", code="max_depth")


class _Route(NamedTuple):
    """What one (schema, definition, rules, limits) of :func:`decode` takes, found once."""

    body_bytes: int
    depth: int
    utf8: bool  # check the UTF-8 before parsing: some Struct skips values (or a root's dispatch)
    parse: Any  # the decoder's decode when nothing runs after it (no check, no rule), else None
    plan: _Plan | None  # None: the root of a format whose root is a oneOf/anyOf
    protocol: dict[str, Any]  # the protocol rules that apply ({} for rules="schema")
    one_of: tuple[str, ...]  # those definitions, tried in order


_routes: dict[tuple[Any, ...], _Route] = {}
"""(schema, definition, rules, limits) -> its route; at most :data:`_ROUTES` of them."""
_defaults: dict[str, dict[str | None, _Route]] = {}
"""schema -> definition -> the route with the default rules and limits (two look-ups by name,
cheaper than one by a tuple); a name is cached only once it is known to be one."""
_ROUTES = 256


def _route(schema: str, definition: str | None, rules: str, limits: Limits | None) -> _Route:
    """The route for these arguments (checked: raises UsageError), cached when they are keys."""
    if not isinstance(schema, str) or not (definition is None or isinstance(definition, str)):
        raise UsageError("schema and definition are names (str)", code="invalid_input_type")
    if not isinstance(rules, str) or rules not in ("all", "schema"):  # the value is not repeated
        wrong = "another str" if isinstance(rules, str) else f"a {type(rules).__name__}"
        raise UsageError(f"rules is 'all' or 'schema', not {wrong}", code="invalid_rules")
    bounds = limits_of(limits)
    with LOCK:
        return _built_route(schema, definition, rules, limits, bounds)


def _built_route(schema: str, definition: str | None, rules: str, limits: Limits | None, bounds: Limits) -> _Route:
    """:func:`_route`'s build, under LOCK: a route is published only when whole."""
    module = _modules.get(schema) or schema_module(schema)
    protocol: dict[str, Any] = module.PROTOCOL if rules == "all" else {}
    one_of = definition is None and module.ROOT is None
    plan = None if one_of else _plan(schema, definition, bool(protocol))
    plain = plan is not None and plan.finish is None and plan.check is None and not plan.reject_duplicates
    parse = plan.decoder.decode if plan is not None and plain else None
    route = _Route(
        body_bytes=bounds.body_bytes(protocol),
        depth=bounds.depth(),
        utf8=plan is None or plan.skips_values,
        parse=parse,
        plan=plan,
        protocol=protocol,
        one_of=(module.ROOT_ONE_OF or getattr(module, "ROOT_ANY_OF", ())) if one_of else (),
    )
    if len(_routes) >= _ROUTES:
        _routes.clear()
    _routes[schema, definition, rules, limits] = route
    if limits is None and rules == "all":
        _defaults.setdefault(schema, {})[definition] = route
    return route


class _Plan(NamedTuple):
    """What decoding one definition takes, looked up once (:func:`_plan`)."""

    decoder: msgspec.json.Decoder[Any]
    finish: Any  # the module's DECODE_CHECKS function, or None
    check: Any  # the definition's PROTOCOL_CHECKS function (when the protocol rules apply), or None
    reject_duplicates: bool
    skips_values: bool  # some Struct ignores unknown members, whose values msgspec does not read


@once
def _plan(schema: str, definition: str | None, protocol_rules: bool) -> _Plan:
    decoder = _decoder(schema, definition)
    tp: Any = decoder.type
    module = schema_module(schema)
    protocol: dict[str, Any] = module.PROTOCOL if protocol_rules else {}
    return _Plan(
        decoder=decoder,
        finish=module.DECODE_CHECKS.get(definition),
        check=module.PROTOCOL_CHECKS.get(definition) if protocol and definition is not None else None,
        reject_duplicates=bool(protocol.get("reject_duplicate_keys")),
        skips_values=_skips_values(tp),
    )


def _decode_as(
    buf: bytes, schema: str, definition: str | None, protocol: dict[str, Any], plan: _Plan | None = None, trees: list[Any] | None = None
) -> Any:
    """Decode ``buf`` as one definition. ``trees``, when given, holds the untyped parse of
    ``buf`` and its text once they are made, for the next definition tried (a root's
    oneOf/anyOf)."""
    if plan is None:
        plan = _plan(schema, definition, bool(protocol))
    decoder, finish = plan.decoder, plan.finish
    try:
        value = _guarded(decoder.decode, buf)
        if finish is not None:
            value = _finished(finish, value)
    except msgspec.ValidationError as exc:
        first = _validation_error(exc)
        if first.code == "number_out_of_range":
            raise first from None
        # A fault that comes after the first schema fault still makes the text not JSON.
        if trees:
            tree, text = trees
        else:
            tree = _guarded(_ANY.decode, buf)
            # JSON Schema sees the last of duplicate properties; msgspec checks each of them.
            text = _ENCODER.encode(tree)
            if trees is not None:
                trees += (tree, text)
        try:
            value = decoder.decode(text)  # msgspec.convert, with the decoder's type kept
            if finish is not None:
                value = _finished(finish, value)
        except msgspec.ValidationError:
            raise shallowest(tree, decoder.type, first, _validation_error) from None
    if plan.reject_duplicates and not _no_key_lost(buf, value, decoder.type):
        _reject_duplicate_keys(buf)
    if plan.check is not None:
        try:
            plan.check(value)
        except RuleViolation as exc:
            raise ValidationError(exc.message, code=exc.code, path=exc.path) from None
    return value


_ANY: msgspec.json.Decoder[Any] = msgspec.json.Decoder()


def _finished(finish: Any, value: Any) -> Any:
    """Run a module's DECODE_CHECKS function (dispatched unions, integers in containers)."""
    try:
        return finish(value)
    except RuleViolation as exc:
        raise ValidationError(exc.message, code=exc.code, path="$" + exc.path) from None


def _guarded(parse: Any, buf: bytes) -> Any:
    """Run a msgspec parse, turning every failure but a schema fault into a DecodeError.

    The untyped parse (``_ANY.decode``) fails validation only on a number out of range, which
    becomes a ValidationError with code ``number_out_of_range``.
    """
    try:
        return parse(buf)
    except msgspec.ValidationError as exc:
        if getattr(parse, "__self__", None) is _ANY:
            error = _validation_error(exc)
            raise ValidationError(error.message, code=error.code, path=error.path) from None
        raise
    except msgspec.DecodeError as exc:
        raise _decode_error(buf, str(exc)) from None
    except UnicodeDecodeError as exc:
        start = exc.start  # msgspec's offset is within the string; the document's is found here
        try:
            buf.decode("utf-8")
        except UnicodeDecodeError as whole:
            start = whole.start
        raise DecodeError(f"invalid UTF-8 at byte {start}", code="invalid_utf8", offset=start) from None
    except RecursionError:
        raise DecodeError("the document nests too deeply to parse", code="max_depth") from None
    except MemoryError:
        raise DecodeError("the document does not fit in memory", code="out_of_memory") from None


def _decode_one_of(buf: bytes, schema: str, names: tuple[str, ...], protocol: dict[str, Any]) -> Any:
    failures: list[LucentError] = []
    trees: list[Any] = []  # the untyped parse and its text, made at most once for all the definitions
    for name in names:
        try:
            return _decode_as(buf, schema, name, protocol, trees=trees)
        except ValidationError as exc:
            failures.append(exc)
    # None accepted the document: report the variant that got furthest (the deepest path).
    best = max(failures, key=lambda e: ("[...]" not in e.path, e.path.count(".") + e.path.count("[")))
    raise best


def _as_bytes(data: bytes | bytearray | memoryview | str) -> bytes:
    if isinstance(data, str):
        try:
            return data.encode("utf-8")
        except UnicodeEncodeError as exc:
            raise DecodeError(
                f"the text holds a lone surrogate at character {exc.start}", code="lone_surrogate", offset=None
            ) from None
    if isinstance(data, (bytes, bytearray, memoryview)):
        return bytes(data)
    raise UsageError(f"decode takes bytes or str, not {type(data).__name__}", code="invalid_input_type")


_MSGSPEC_CODES: list[tuple[re.Pattern[str], str]] = MSGSPEC_CODES
"""msgspec's validation messages -> the JSON Schema keyword (lucent._validation)."""


def _validation_error(exc: msgspec.ValidationError, base: str = "$") -> ValidationError:
    """msgspec's error as a ValidationError (the same reading as the generated rules use)."""
    fault = violation(exc, base)
    return ValidationError(fault.message, code=fault.code, path=fault.path)


_BYTE = re.compile(r"\(byte (\d+)\)")


def _decode_error(buf: bytes, message: str) -> DecodeError:
    surrogate = _lone_surrogate_offset(buf)
    if surrogate is not None:
        return DecodeError(f"lone UTF-16 surrogate escape at byte {surrogate}", code="lone_surrogate", offset=surrogate)
    found = _BYTE.search(message)
    offset = int(found.group(1)) if found else len(buf)
    if "trailing characters" in message:
        offset -= 1  # msgspec names the byte after the first trailing one
    if not buf.strip():
        return DecodeError("no JSON value: the input is empty or only whitespace", code="malformed_json", offset=offset)
    if "truncated" in message:
        return DecodeError(f"JSON text ends early at byte {len(buf)}", code="malformed_json", offset=len(buf))
    return DecodeError(f"{message.rstrip('.')}", code="malformed_json", offset=offset)


_ESCAPE = re.compile(rb"\\(?:u([0-9a-fA-F]{4})|.)", re.DOTALL)


def _lone_surrogate_offset(buf: bytes) -> int | None:
    """Byte offset of the first ``\\uD800``-``\\uDFFF`` escape that is not part of a pair."""
    pending: int | None = None
    pending_end = -1
    for match in _ESCAPE.finditer(buf):
        hexdigits = match.group(1)
        unit = int(hexdigits, 16) if hexdigits else None
        if pending is not None:
            if match.start() == pending_end and unit is not None and 0xDC00 <= unit <= 0xDFFF:
                pending = None
                continue
            return pending
        if unit is not None and 0xD800 <= unit <= 0xDBFF:
            pending, pending_end = match.start(), match.end()
        elif unit is not None and 0xDC00 <= unit <= 0xDFFF:
            return match.start()
    return pending


class _Duplicate(Exception):
    def __init__(self, key: str) -> None:
        self.key = key


class _Checked(dict[str, Any]):
    """A dict built by the duplicate check; ``duplicates`` names the keys that appeared more
    than once (each once, in the order their second appearances came), ``duplicate`` the first
    (both unset on an object without them). Slots, not a ``__dict__``: one is built for every object of the text (552 bytes an object
    with a ``__dict__``, 208 with slots)."""

    __slots__ = ("duplicates", "duplicate")  # set only on an object that names a key twice: read with getattr
    duplicates: tuple[str, ...]
    duplicate: str | None


def _pairs(pairs: list[tuple[str, Any]], found: list[bool]) -> dict[str, Any]:
    result = _Checked(pairs)
    if len(result) != len(pairs):
        seen: set[str] = set()
        again = [k for k, _ in pairs if k in seen or seen.add(k)]  # type: ignore[func-returns-value]
        result.duplicates = tuple(dict.fromkeys(again))
        result.duplicate = again[0]
        found.append(True)
    return result


def duplicate_paths(buf: bytes | str) -> Iterator[str]:
    """The JSON path of every property an object of ``buf`` names more than once, in document
    order (each such property once, where it first appears; one inside a value a later
    duplicate replaced is not listed), one at a time: the walk holds the containers on the way
    down, not a path for every value. RFC 8259 section 4 leaves such an object to the reader;
    lucent, msgspec and jsonschema keep the last value.

    Raises DecodeError(``max_depth``) when ``buf`` nests too deeply for ``json`` (on the first
    ``next``)."""
    tree, found = _checked_tree(buf)
    if not found:
        return
    stack = [_items_of(tree, "$")]
    while stack:
        for node, where, named_twice in stack[-1]:
            if named_twice:
                yield where
            if node and isinstance(node, (_Checked, list)):
                stack.append(_items_of(node, where))
                break
        else:
            stack.pop()


def _items_of(node: Any, where: str) -> Iterator[tuple[Any, str, bool]]:
    """The members (with their paths, and whether the object names them twice) or items of a
    value of :func:`_checked_tree`."""
    if isinstance(node, _Checked):
        twice = getattr(node, "duplicates", ())
        if len(twice) > 8:
            twice = set(twice)
        return ((v, where + _path_part(k), k in twice) for k, v in node.items())
    if isinstance(node, list):
        return ((v, f"{where}[{i}]", False) for i, v in enumerate(node))
    return iter(())


def _no_key_lost(buf: bytes, value: Any, tp: Any) -> bool:
    """True when the decoded ``value`` provably kept every member of the JSON text ``buf``, so
    that ``buf`` has no duplicate key; False leaves the question to :func:`_reject_duplicate_keys`.

    Outside strings a JSON text has one ``:`` per object member. msgspec keeps the last of
    duplicate members, so a duplicate loses a member, and with it at least one ``:``. When the
    type writes back exactly the members it read (:func:`_writes_what_it_reads`) and the text
    has no ``\\u003a`` escape (so its strings hold the ``:`` that the decoded strings hold),
    the text and the value written back have as many ``:`` exactly when no member was lost.
    Two counts and one encode, in C: a fraction of a parse.
    """
    return _writes_what_it_reads(tp) and same_colons(buf, value)


def _structs(tp: Any) -> Iterator[Any]:
    """The msgspec.inspect StructType of every Struct under ``tp`` (each once); other nodes are
    yielded too, so that a caller can judge them."""
    seen: set[type] = set()
    queue: list[Any] = [msgspec.inspect.type_info(tp)]
    while queue:
        info = queue.pop()
        yield info
        if isinstance(info, msgspec.inspect.StructType):
            if info.cls in seen:
                continue
            seen.add(info.cls)
            queue.extend(f.type for f in info.fields)
        elif isinstance(info, msgspec.inspect.UnionType):
            queue.extend(info.types)
        elif isinstance(info, (msgspec.inspect.ListType, msgspec.inspect.VarTupleType)):
            queue.append(info.item_type)
        elif isinstance(info, msgspec.inspect.DictType):
            queue.append(info.value_type)


@once
def _skips_values(tp: Any) -> bool:
    """Some Struct under ``tp`` ignores unknown members: msgspec then skips their values without
    reading them (nor checking their UTF-8). A value typed ``Any`` is read whole."""
    return any(isinstance(info, msgspec.inspect.StructType) and not info.forbid_unknown_fields for info in _structs(tp))


@once
def _writes_what_it_reads(tp: Any) -> bool:
    """Every value of ``tp``, encoded, has the members its JSON text had, and no other: it adds
    none (:func:`adds_no_member`) and drops none (no Struct ignores unknown members)."""
    return adds_no_member(tp) and not _skips_values(tp)


_PLAIN = (
    msgspec.inspect.StructType, msgspec.inspect.UnionType, msgspec.inspect.ListType, msgspec.inspect.VarTupleType,
    msgspec.inspect.AnyType, msgspec.inspect.NoneType, msgspec.inspect.BoolType, msgspec.inspect.IntType,
    msgspec.inspect.FloatType, msgspec.inspect.StrType, msgspec.inspect.LiteralType,
)


@once
def adds_no_member(tp: Any) -> bool:
    """A value of ``tp``, encoded, holds no member its JSON text lacked, and the same ``:``
    characters in its strings: Structs add no member (every field is required or defaults to
    ``UNSET``), values are not re-typed (no datetime, UUID, bytes...), maps have string keys,
    and no union is converted in ``__post_init__`` (a dispatch, see
    ``lucent._validation.convert_union``, could build Structs with defaults)."""
    for info in _structs(tp):
        if isinstance(info, msgspec.inspect.StructType):
            if hasattr(imported(info.cls.__module__), "convert_union"):
                return False
            # msgspec.inspect shows a field that defaults to UNSET as one with NODEFAULT
            if any(not f.required and (f.default is not msgspec.NODEFAULT or f.default_factory is not msgspec.NODEFAULT)
                   for f in info.fields):
                return False
        elif isinstance(info, msgspec.inspect.DictType):
            if not isinstance(info.key_type, msgspec.inspect.StrType):
                return False
        elif not isinstance(info, _PLAIN):
            return False
    return True


def same_colons(buf: bytes, value: Any) -> bool:
    """``buf`` (JSON text) and ``value`` written back hold as many ``:`` characters, and ``buf``
    has no ``\\u003a`` escape; for a value of a type that :func:`adds_no_member`, this means
    no member of the text was lost (a duplicate key, or an unknown member a Struct ignored)."""
    if b"\\u003" in buf and (b"\\u003a" in buf or b"\\u003A" in buf):
        return False
    return buf.count(b":") == _ENCODER.encode(value).count(b":")


def _checked_tree(buf: bytes | str) -> tuple[Any, bool]:
    """``buf`` parsed with every object a :class:`_Checked`, and whether any names a key twice."""
    found: list[bool] = []
    try:
        tree = json.loads(buf, object_pairs_hook=lambda pairs: _pairs(pairs, found))
    except RecursionError:
        raise DecodeError("the document nests too deeply to parse", code="max_depth") from None
    return tree, bool(found)


def _reject_duplicate_keys(buf: bytes) -> None:
    tree, duplicates = _checked_tree(buf)
    found = _find_duplicate(tree, "$") if duplicates else None  # walk only to name the path
    if found is not None:
        path, key = found
        raise ValidationError("an object names the same property twice", code="duplicate_key", path=path + _path_part(key))


def _find_duplicate(value: Any, path: str) -> tuple[str, str] | None:
    stack: list[tuple[Any, str]] = [(value, path)]
    while stack:
        node, where = stack.pop()
        if isinstance(node, _Checked):
            duplicate = getattr(node, "duplicate", None)
            if duplicate is not None:
                return where, duplicate
            stack.extend((v, where + _path_part(k)) for k, v in reversed(node.items()))
        elif isinstance(node, list):
            stack.extend((v, f"{where}[{i}]") for i, v in reversed(list(enumerate(node))))
    return None


def _path_part(key: str) -> str:
    return f".{key}" if key.isidentifier() else f"[{json.dumps(key)}]"


def encode(obj: Any) -> bytes:
    """Write a Struct (or JSON value) as compact JSON; ``UNSET`` fields are omitted.

    ``decode(encode(x), ...) == x`` for every decoded ``x``.

    Raises
    ------
    EncodeError
        ``code="unencodable"`` for a value that has no JSON form: NaN and infinity included
        (msgspec would write them as ``null``), with ``.path`` the first one's JSON path;
        ``code="max_depth"`` for a value that nests too deeply to encode.
    """
    text = encoded(obj)
    if b"null" in text and _may_hold_non_finite(obj):
        found = imported("lucent._stream_read").non_finite_path(obj)  # the exact walk, for a likely hit only
        if found is not None:
            raise EncodeError("NaN or an infinite number has no JSON form (msgspec writes it as null)", code="unencodable", path="$" + found)
    return text


def encoded(obj: Any) -> bytes:
    """msgspec's JSON text of ``obj`` (NaN and infinity written as ``null``: for values lucent
    built from decoded ones, which hold none); raises EncodeError as :func:`encode` does."""
    try:
        return _ENCODER.encode(obj)
    except (msgspec.EncodeError, TypeError, ValueError, OverflowError) as exc:
        raise EncodeError(f"cannot encode: {exc}", code="unencodable") from None
    except RecursionError:
        raise EncodeError("the object nests too deeply to encode", code="max_depth") from None


def _may_hold_non_finite(obj: Any) -> bool:
    """False only when ``obj`` surely holds no NaN or infinity (found in C, in its MessagePack)."""
    try:
        return _NON_FINITE.search(_MSGPACK.encode(obj)) is not None
    except (msgspec.EncodeError, TypeError, ValueError, OverflowError, RecursionError):  # an int MessagePack cannot hold
        return True


_MSGPACK = msgspec.msgpack.Encoder()
_NON_FINITE = re.compile(rb"\xcb[\x7f\xff][\xf0-\xff]")
"""A float64 whose exponent bits are all ones (NaN, infinity) in MessagePack (0xcb, then the
big-endian bits): found in C, before the exact walk. Bytes inside a binary value or an integer
can match too; the walk then finds nothing."""
