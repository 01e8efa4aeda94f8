"""The transforms every format's mapping specs may name, and the helpers format transforms share.

Each public function here is one transform of the closed vocabulary of codegen/mappings.py
(TRANSFORMS): a generated converter calls it as ``_shared.NAME``. A format's own transforms are in
lucent/formats/<format>/transforms.py; codegen resolves a name to the format's module first,
then to this one.
"""

from __future__ import annotations

import json
import types
import typing
from typing import Any, Literal, TypeVar, cast

import msgspec
from msgspec import UNSET, Struct, UnsetType

from lucent._validation import BUILD_LOCK, convert_as, JsonTextError, load_json_text, member
from lucent._conversion import counted, Cx, skips_absent, Status
from lucent.generated.lux_ir_v1 import LucentContent, LucentContentText, LucentStructuredOutput, LucentStructuredOutputJsonSchema

T = TypeVar("T")

# --------------------------------------------------------------------------- generic transforms


_UNCHECKED: dict[type, type] = {}


def plain_members(value: Any) -> Any:
    """``msgspec.to_builtins(value)``, sharing rather than copying what is plain JSON already.

    A Struct's member that JSON decoding gave as it is, and that no ``__post_init__`` dispatch
    can have turned into Structs, is shared: a scalar; a dict of a member typed with JSON types
    only, ``Any`` included (``dict[str, Any]``: a tool's JSON Schema of 10M empty objects, which
    ``to_builtins`` copied at 24 bytes a byte of the body; a dispatch replaces a whole member or
    a list's items, never a dict's values); a list of a member typed without ``Any``
    (``list[str]``). Any other member (a Struct, an enum, a list typed ``list[Any]`` whose items
    a dispatch may have made Structs) is converted. The dict returned is new (UNSET members left
    out, the tag first, as ``to_builtins`` writes them); a value that is not a Struct is
    ``to_builtins(value)``.
    """
    if not isinstance(value, Struct):
        return msgspec.to_builtins(value)
    cls = type(value)
    plan = _PLAIN_MEMBERS.get(cls)
    if plan is None:
        plan = _PLAIN_MEMBERS[cls] = tuple(
            (f.name, f.encode_name, _plain_type(f.type, True), _plain_type(f.type, False)) for f in msgspec.structs.fields(cls)
        )
    out: dict[str, Any] = {}
    config = value.__struct_config__
    if config.tag_field is not None:
        out[config.tag_field] = config.tag
    for name, key, dicts, lists in plan:
        item = getattr(value, name)
        if item is UNSET:
            continue
        kind = item.__class__
        shared = kind in _JSON_SCALARS or (kind is dict and dicts) or (kind is list and lists)
        out[key] = item if shared else msgspec.to_builtins(item)
    return out


_PLAIN_MEMBERS: dict[type, tuple[tuple[str, str, bool, bool], ...]] = {}
_JSON_SCALARS = frozenset({str, int, float, bool, type(None)})


def _plain_type(tp: Any, any_ok: bool) -> bool:
    """Whether every value of the type `tp` is a plain JSON value (``Any`` counted as one when
    `any_ok`), which to_builtins leaves equal."""
    if tp is Any:
        return any_ok
    if tp in _JSON_SCALARS or tp is UnsetType:
        return True
    origin, args = typing.get_origin(tp), typing.get_args(tp)
    if origin is Literal:
        return all(arg is None or type(arg) in (str, int, bool) for arg in args)
    if origin is typing.Annotated:
        return _plain_type(args[0], any_ok)
    if origin in (typing.Union, types.UnionType):
        return all(_plain_type(arg, any_ok) for arg in args)
    if origin is dict:
        return args[0] is str and _plain_type(args[1], any_ok)
    if origin is list:
        return _plain_type(args[0], any_ok)
    return False


def unchecked(cls: type[T]) -> type[T]:
    """`cls`, built without the conditional schema rules its __post_init__ checks.

    A lossy conversion still returns a value when the source cannot satisfy such a rule (for
    example a BUSINESS request whose runId no one supplied); the fault is reported as a
    diagnostic, and lucent.convert checks the whole result against the target schema. The value
    built is a plain `cls` instance: the subclass only swaps the check for a class restore.
    """
    sub = _UNCHECKED.get(cls)
    if sub is None:
        with BUILD_LOCK:  # one subclass per class, made once
            sub = _UNCHECKED.get(cls)
            if sub is None:

                def restore(self: Any) -> None:
                    self.__class__ = cls

                sub = _UNCHECKED[cls] = type(cls.__name__, (cls,), {"__post_init__": restore, "__module__": cls.__module__})
    return cast("type[T]", sub)


def obj(members: dict[str, Any]) -> dict[str, Any]:
    """A JSON object of the members that are set (UNSET members are left out)."""
    return {k: v for k, v in members.items() if v is not UNSET}


def compact(members: dict[str, Any]) -> dict[str, Any] | UnsetType:
    """Like obj, but UNSET when no member is set (an optional object left out)."""
    kept = obj(members)
    return kept if kept else UNSET


def need(value: T | UnsetType, path: str, cx: Cx) -> T:
    """A value the target requires: reported Invalid when the source lacks it (left absent)."""
    if value is UNSET:
        cx.report(path, "Invalid", "required by the target but absent in the source")
    return cast(T, value)


def present(value: T | UnsetType) -> T:
    """A required target value; when UNSET it was reported Invalid already and stays absent."""
    return cast(T, value)


def null_as_absent(value: Any) -> Any:
    """JSON null written as an absent member."""
    return UNSET if value is None else value


def json_object_problem(text: str) -> str | None:
    """Why `text` is not one complete, closed JSON object (None when it is)."""
    try:
        value = load_json_text(text)
    except JsonTextError as exc:
        return exc.problem
    if not isinstance(value, dict):
        return f"a JSON {type(value).__name__ if value is not None else 'null'}, not an object"
    return None


def closed_json_object(text: str, path: str, cx: Cx, status: Status, reason: str) -> None:
    """Check: `text` is a complete, closed JSON object; otherwise report it (value kept)."""
    problem = json_object_problem(text)
    if problem is not None:
        cx.report(path, status, f"{reason}: {problem}")




def absent_flag(value: Any, path: str, cx: Cx) -> bool | UnsetType:
    """True when the source field is absent (UNSET), else nothing."""
    return True if value is UNSET else UNSET


@skips_absent
def null_kept(value: Any, path: str, cx: Cx) -> None | UnsetType:
    """JSON null kept as null (it differs from an absent member); anything else: nothing."""
    return None if value is None else UNSET


# ----------------------------------------------- Chat Completions response_format -> Lux


_JSON_SCHEMA_KEYS = {"name", "description", "schema", "strict"}


def _json_schema(value: dict[str, Any]) -> dict[str, Any] | None:
    if set(value) != {"type", "json_schema"} or value["type"] != "json_schema":
        return None
    members = value["json_schema"]
    if not isinstance(members, dict) or "schema" not in members or not set(members) <= _JSON_SCHEMA_KEYS:
        return None
    return members


def structured_output(
    value: dict[str, Any] | UnsetType, path: str, cx: Cx
) -> LucentStructuredOutput | UnsetType:
    """{type: text} -> text, {type: json_object} -> json_object, json_schema -> {schema}."""
    if value is UNSET:
        return UNSET
    if value == {"type": "text"}:
        return "text"
    if value == {"type": "json_object"}:
        return "json_object"
    members = _json_schema(value)
    return UNSET if members is None else LucentStructuredOutputJsonSchema(schema=members["schema"])


def json_schema_members(value: dict[str, Any] | UnsetType, path: str, cx: Cx) -> dict[str, Any] | UnsetType:
    """The json_schema members Lux has no field for (name, description, strict)."""
    if value is UNSET:
        return UNSET
    members = _json_schema(value)
    if members is None:
        return UNSET
    rest = {k: v for k, v in members.items() if k != "schema"}
    return cx.sourced(rest, {k: member(f"{path}.json_schema", k) for k in rest}) if rest else UNSET


def verbatim_response_format(
    value: dict[str, Any] | UnsetType, path: str, cx: Cx, status: Status, reason: str
) -> dict[str, Any] | UnsetType:
    """A response_format that structured_output cannot map, reported."""
    if value is UNSET or structured_output(value, path, cx) is not UNSET:
        return UNSET
    cx.report(path, status, reason)
    return value


# ------------------------------------------------------------------------------ target bounds


def shown(value: Any) -> str:
    """How a diagnostic names a value of the source: by its JSON type and size, never the value
    itself (SECURITY.md): ``a string of 12 characters``, ``an array of 2 items``, ``an object of
    1 member``, ``an integer``, ``a number``, ``a boolean``, ``null``."""
    if isinstance(value, str):
        return f"a string of {counted(len(value), 'character')}"
    if isinstance(value, (list, tuple)):
        return f"an array of {counted(len(value), 'item')}"
    if isinstance(value, dict):
        return f"an object of {counted(len(value), 'member')}"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int):
        return "an integer"
    if isinstance(value, float):
        return "an integer" if value.is_integer() else "a number"
    if value is None:
        return "null"
    return f"a {type(value).__name__}"


def written(value: Any) -> str:
    """A value lucent itself writes in place of a source value (``"lucent_call_1"``), as a
    diagnostic may quote it: JSON text. Never for a value built from the source's."""
    return json.dumps(value, ensure_ascii=False)


def convert_kept(value: Any, tp: Any, path: str, cx: Cx, what: str) -> Any:
    """`value`, a JSON value kept in a side-car (at JSON path `path`), as the target type `tp`
    (:func:`convert_as`); each member of it that the result does not keep (an object the target
    schema leaves open drops what it does not define) is reported Unsupported at its path, named
    as not one `what` (``a Gemini GenerationConfig``) has. Raises what msgspec.convert raises."""
    converted = convert_as(value, tp)
    if value.__class__ in _JSON_CONTAINERS:
        report_unkept(value, converted, path, cx, what)
    return converted


def report_unkept(value: Any, converted: Any, path: str, cx: Cx, what: str) -> None:
    """Report Unsupported, at its path under `path`, each member of the JSON value `value` that
    `converted` (what msgspec made of it: Structs, dicts, lists) does not keep."""
    for where in _unkept(value, converted, path):
        cx.report(where, "Unsupported", f"not a member {what} has; dropped")


def _unkept(raw: Any, kept: Any, path: str) -> list[str]:
    # Walks the converted value itself, not a copy of it (msgspec.to_builtins): a value msgspec
    # kept as it was (a member typed Any, a tool's schema) is the same object, and is not walked.
    found: list[str] = []
    stack = [(raw, kept, path)]
    while stack:
        raw, kept, path = stack.pop()
        if raw is kept:
            continue
        if isinstance(kept, msgspec.Struct):
            if not isinstance(raw, dict):
                continue
            cls = kept.__class__
            known = _STRUCT_NAMES.get(cls)
            if known is None:
                known = _STRUCT_NAMES[cls] = (dict(zip(cls.__struct_encode_fields__, cls.__struct_fields__)), cls.__struct_config__.tag_field)
            names, tag = known
            for key, item in raw.items():
                name = names.get(key)
                if name is None:
                    if key != tag:
                        found.append(member(path, key))
                elif item.__class__ in _JSON_CONTAINERS:
                    stack.append((item, getattr(kept, name), member(path, key)))
        elif isinstance(raw, dict) and isinstance(kept, dict):
            for key, item in raw.items():
                if key not in kept:
                    found.append(member(path, key))
                elif item.__class__ in _JSON_CONTAINERS and kept[key] is not item:
                    stack.append((item, kept[key], member(path, key)))
        elif isinstance(raw, list) and isinstance(kept, list) and len(raw) == len(kept):
            stack.extend((item, kept[i], f"{path}[{i}]") for i, item in enumerate(raw) if item.__class__ in _JSON_CONTAINERS and kept[i] is not item)
    return sorted(found)


_JSON_CONTAINERS = (dict, list)
_STRUCT_NAMES: dict[type, tuple[dict[str, str], str | None]] = {}  # _unkept: a Struct class's JSON names -> attributes, its tag field


def left_out(value: Any, path: str, cx: Cx, allowed: str) -> UnsetType:
    """A value the target field's schema does not allow (`allowed` says what it does, from the
    target schema): reported Unsupported at its source `path` and left out of the target."""
    cx.report(path, "Unsupported", f"{allowed}; the value ({shown(value)}) is left out")
    return UNSET


def own_or_sibling(own: Any, sibling: Any, own_path: str, sibling_path: str, cx: Cx, sibling_as: Any = UNSET) -> Any:
    """The value the target's own side-car kept, else the one another format's side-car kept for
    a parameter of the same meaning (`sibling_as`, when given, is that value in the target's
    form). A sibling value that the own one wins over and differs from is reported Unsupported
    at `sibling_path`: it is not written."""
    if sibling_as is UNSET:
        sibling_as = sibling
    if own is UNSET:
        return sibling_as
    if sibling is not UNSET and sibling_as != own:
        cx.report(sibling_path, "Unsupported", f"not written: {own_path.removeprefix('$.')} is set and wins over it")
    return own


_IMAGE_SUFFIXES = {"png": "image/png", "jpg": "image/jpeg", "jpeg": "image/jpeg", "gif": "image/gif", "webp": "image/webp"}


def url_image_media_type(url: str) -> str | None:
    """The image media type a URL's file name names (``image/png`` for ``.../a.png?x=1#y``: the
    suffix of the path, before ``?`` and ``#``), None when it names none or `url` is a data URL.
    Each format that reads a URL image's media type from its URL (Chat, Responses) and each that
    writes a URL image without one (Chat, Anthropic: nothing lost when the URL gives it back)
    reads this one table."""
    if url.startswith("data:"):
        return None
    tail = url.split("?", 1)[0].split("#", 1)[0].rsplit("/", 1)[-1].rsplit(".", 1)
    return _IMAGE_SUFFIXES.get(tail[-1].lower()) if len(tail) == 2 else None


def text_only(content: list[LucentContent], path: str, cx: Cx, annotations: str, other: str) -> list[str]:
    """The texts of the text blocks of `content` (at `path`), for a target place that holds
    plain text only: a text block's annotations are Unsupported (`annotations` says why), and
    so is every other block (`other`, dropped)."""
    texts: list[str] = []
    for i, block in enumerate(content):
        if isinstance(block, LucentContentText):
            texts.append(block.text)
            if block.annotations is not UNSET:
                cx.report(f"{path}[{i}].annotations", "Unsupported", annotations)
        else:
            cx.report(f"{path}[{i}]", "Unsupported", other)
    return texts
