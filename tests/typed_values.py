"""Check a value against the type its annotation names, all the way down (issue 16, section 3).

:func:`faults` walks a value returned by ``lucent.convert`` or the stream functions against a
type: a generated Struct (each field by its type hint), a union (the value is an instance of
one member), ``list[T]`` / ``dict[str, T]`` (each item), ``Literal``, the JSON scalars
(``float`` takes an ``int``, as in the numeric tower; ``bool`` is no ``int``), ``UNSET``, and
``Any``, which takes a plain JSON value (``dict`` with ``str`` keys, ``list``, ``str``, ``int``,
``float``, ``bool``, ``None``) and nothing else: a Struct there is a value of some other
annotation, left untyped.

The hints are those a type checker reads: a generated module declares some aliases twice, under
``if TYPE_CHECKING:`` the union of Structs (Anthropic ``CreateMessageParamsToolsItem``,
Responses ``Tool``, ``InputItem``...) and at run time ``Any`` (msgspec cannot dispatch them; a
``dispatch_<Name>`` function in ``__post_init__`` does), or ``JsonInt`` as ``int`` against
``int | float`` at run time. :func:`declared` evaluates the ``TYPE_CHECKING`` branch of a
module's source, so that ``Any`` at run time is checked as the union it stands for.
"""

from __future__ import annotations

import ast
import re
import inspect
import sys
import types
import typing
from collections.abc import Collection
from functools import cache
from typing import Any

import msgspec

__all__ = ["declared", "faults", "hints"]

_JSON_SCALARS = (str, int, float, bool, type(None))


@cache
def declared(module_name: str) -> dict[str, Any]:
    """The module's namespace as a type checker sees it: its globals, with every alias assigned
    under a module-level ``if TYPE_CHECKING:`` evaluated from that branch."""
    module = sys.modules[module_name]
    namespace = dict(vars(module))
    for node in ast.parse(inspect.getsource(module)).body:
        checking = isinstance(node, ast.If) and isinstance(node.test, ast.Name) and node.test.id == "TYPE_CHECKING"
        for statement in node.body if checking else [node]:  # type: ignore[attr-defined]
            # an alias of the TYPE_CHECKING branch, or one written from such aliases
            # (``ToolsArray: TypeAlias = list[Tool]``), evaluated again in source order
            if (
                isinstance(statement, ast.AnnAssign)
                and isinstance(statement.target, ast.Name)
                and statement.value is not None
                and (checking or ast.unparse(statement.annotation) == "TypeAlias")
            ):
                namespace[statement.target.id] = eval(compile(ast.Expression(statement.value), module_name, "eval"), namespace)  # noqa: S307 - the module's own source
    return namespace


@cache
def hints(cls: type) -> dict[str, Any]:
    """Field name -> type hint of a Struct class, resolved in :func:`declared`'s namespace."""
    return typing.get_type_hints(cls, globalns=declared(cls.__module__))


def faults(value: Any, tp: Any, path: str = "$", limit: int = 20, absent: Collection[str] = ()) -> list[str]:
    """Where ``value`` is not of ``tp`` (at most ``limit`` paths, each with what was found).
    A path in ``absent`` may hold ``UNSET`` whatever its type: a required member a conversion
    could not fill, which it reports (an Invalid ``target:<path>`` diagnostic)."""
    found: list[str] = []
    _walk(value, tp, path, found, limit, frozenset(absent))
    return found


def _walk(value: Any, tp: Any, path: str, found: list[str], limit: int, absent: frozenset[str] = frozenset()) -> None:
    if len(found) >= limit or (value is msgspec.UNSET and path in absent):
        return
    origin = typing.get_origin(tp)
    if tp is Any:
        where = _not_json(value, path)
        if where is not None:
            found.append(f"{where}: a {type(_at(value, path, where)).__name__} where a JSON value (Any) is annotated")
        return
    if origin is typing.Annotated:
        _walk(value, typing.get_args(tp)[0], path, found, limit, absent)
        return
    if origin is typing.Union or origin is types.UnionType:
        members = typing.get_args(tp)
        trials = []
        for member in members:
            inner: list[str] = []
            _walk(value, member, path, inner, limit, absent)
            if not inner:
                return
            trials.append(inner)
        best = min(trials, key=lambda t: (t[0].split(":")[0] == path, -len(t[0].split(":")[0])))
        if all(t[0].split(":")[0] == path for t in trials):
            found.append(f"{path}: a {type(value).__name__} is none of {_name(tp)}")
        else:
            found.extend(best[: limit - len(found)])
        return
    if origin is typing.Literal:
        if not any(value == v and type(value) is type(v) for v in typing.get_args(tp)):
            found.append(f"{path}: {value!r} is not one of {typing.get_args(tp)}")
        return
    if origin is list:
        if type(value) is not list:
            found.append(f"{path}: a {type(value).__name__} where {_name(tp)} is annotated")
            return
        (item,) = typing.get_args(tp) or (Any,)
        for index, each in enumerate(value):
            _walk(each, item, f"{path}[{index}]", found, limit, absent)
        return
    if origin is dict:
        if type(value) is not dict:
            found.append(f"{path}: a {type(value).__name__} where {_name(tp)} is annotated")
            return
        key_type, item = typing.get_args(tp) or (str, Any)
        for key, each in value.items():
            if key_type is str and type(key) is not str:
                found.append(f"{path}: a key {key!r} that is not a str")
            _walk(each, item, f"{path}.{key}", found, limit, absent)
        return
    if tp is msgspec.UnsetType:
        if value is not msgspec.UNSET:
            found.append(f"{path}: {type(value).__name__} where UNSET is annotated")
        return
    if tp is None or tp is type(None):
        if value is not None:
            found.append(f"{path}: a {type(value).__name__} where None is annotated")
        return
    if isinstance(tp, type) and issubclass(tp, msgspec.Struct):
        # the Struct itself, or lucent._unknown's holding subclass of it (it also writes members
        # the schema does not define)
        if type(value) is not tp and getattr(type(value), "__lucent_base__", None) is not tp:
            found.append(f"{path}: a {type(value).__name__} where {tp.__name__} is annotated")
            return
        types_of = hints(tp)
        for field in msgspec.structs.fields(tp):
            _walk(getattr(value, field.name), types_of[field.name], f"{path}.{field.encode_name}", found, limit, absent)
        return
    if tp is float:
        if type(value) not in (float, int):
            found.append(f"{path}: a {type(value).__name__} where float is annotated")
        return
    if tp in (int, str, bool):
        if type(value) is not tp:
            found.append(f"{path}: a {type(value).__name__} where {tp.__name__} is annotated")
        return
    found.append(f"{path}: no check for the annotation {tp!r}")


def _name(tp: Any) -> str:
    text = re.sub(r"\b(?:[A-Za-z_]\w*\.)+([A-Za-z_]\w*)", r"\1", str(tp))  # names without their modules
    return text if len(text) < 120 else text[:117] + "..."


def _not_json(value: Any, path: str) -> str | None:
    """The path of the first part of ``value`` that is not a plain JSON value, else None."""
    stack = [(value, path)]
    while stack:
        node, where = stack.pop()
        kind = type(node)
        if kind is dict:
            for key, item in node.items():
                if type(key) is not str:
                    return where
                stack.append((item, f"{where}.{key}"))
        elif kind is list:
            stack.extend((item, f"{where}[{i}]") for i, item in enumerate(node))
        elif kind not in _JSON_SCALARS:
            return where
    return None


def _at(value: Any, path: str, where: str) -> Any:
    """The part of ``value`` that :func:`_not_json` named (for the message only)."""
    stack = [(value, path)]
    while stack:
        node, at = stack.pop()
        if at == where:
            return node
        if type(node) is dict:
            stack.extend((item, f"{at}.{key}") for key, item in node.items())
        elif type(node) is list:
            stack.extend((item, f"{at}[{i}]") for i, item in enumerate(node))
    return value
