"""The typed form of a converted value: every value the generated Struct its annotation names.

A converter builds its Structs without their checks (``lucent._transforms.unchecked``) and
leaves some values as JSON: a union that msgspec cannot dispatch is typed ``Any`` at run time
(Anthropic ``CreateMessageParamsToolsItem``, Responses ``Tool``, ``InputItem``) and converted by
a ``dispatch_<Name>`` function in the ``__post_init__`` of the Struct that holds it, which an
unchecked Struct skips; so a converted Anthropic tool is a ``dict`` (with an ``InputSchema``
Struct inside). ``lucent.convert`` returns instead:

* for a valid target, the target check's own decode of the value's JSON text (:func:`typed`):
  :func:`lucent.decode`'s types, dispatched unions included;
* for a target with faults, which no decode accepts, :func:`typed_parts`: a copy whose Structs
  have run their ``__post_init__`` (each dispatched union it reaches gets its Struct); a Struct
  whose rules fail keeps what its ``__post_init__`` typed before the failing rule;
* where a typed form drops members the target's Structs do not define (an open object's, such
  as a tool schema's ``additionalProperties``), that form with them written back on holding
  Structs (subclasses of their Structs with a field per member: lucent._unknown);
* the converter's value as it is when none of these writes the same JSON.
"""

from __future__ import annotations

import copy
import sys
from typing import Any

import msgspec

from lucent._first_use import once

__all__ = ["typed", "typed_parts"]

_SORTED = msgspec.json.Encoder(order="sorted")
_ENCODER = msgspec.json.Encoder()


def typed(value: Any, decoded: Any | None, text: bytes | None = None) -> Any:
    """The value ``lucent.convert`` returns for the converter's ``value``: ``decoded`` (the
    target decode of ``text``, the JSON text of ``value``; None when the target has faults),
    else :func:`typed_parts`, whichever writes the same JSON value as ``value``; else that typed
    form with the members it dropped written back on holding Structs (:func:`_holding`); else
    ``value`` itself.

    The typed forms differ from ``value`` only where the target's Structs read its text
    otherwise than it was built: a member an open object does not define is dropped (a Struct
    has no field for it). A holding Struct, a subclass of the Struct with a field per such
    member (lucent._unknown), writes it; where none can (a closed object, a name msgspec cannot
    write as a field), ``value`` is returned as the converter wrote it, so that the result writes
    what the conversion wrote. When no Struct of the target's module has a
    default (:func:`_adds_no_member`), a decode writes only what its text held, each value as
    the same encoder wrote it there, or less: the text's length, written back, says nothing was
    dropped (one encode; a number respelled, ``1.0`` read as ``1``, is shorter too, and takes the
    slow path). Otherwise, and for :func:`typed_parts`, the two are compared keys sorted (two
    encodes), in C. (Measured on the 13 KB Chat conversation: an encode ~7 us, a sorted one ~8
    us, :func:`lucent._decode.same_colons` ~25 us: it scans the text twice more.)"""
    if decoded is not None:
        if text is not None and _adds_no_member(type(decoded).__module__):
            if len(_ENCODER.encode(decoded)) == len(text):
                return decoded
        elif _SORTED.encode(decoded) == _SORTED.encode(value):
            return decoded
    parts = typed_parts(value)
    if _SORTED.encode(parts) == _SORTED.encode(value):
        return parts
    held = _holding(parts if decoded is None else decoded, value)
    return value if held is None else held


def _holding(form: Any, value: Any) -> Any | None:
    """The typed ``form`` with the members it dropped from ``value`` (an open object's members
    its Struct does not define) written back on holding Structs (:func:`lucent._unknown.holding`:
    still their classes), when that writes what ``value`` writes; else None."""
    from lucent._convert import _unknown_members
    from lucent._unknown import put_members

    dropped = [(steps, item) for _, steps, item in _unknown_members(msgspec.json.decode(_ENCODER.encode(value)), form, "$", [])]
    if not dropped:
        return None
    made, refused = put_members(form, dropped)
    return made if not refused and _SORTED.encode(made) == _SORTED.encode(value) else None


@once
def _adds_no_member(module_name: str) -> bool:
    """No Struct of the generated module has a default other than ``UNSET`` (a decode, its
    dispatched unions included, then writes no member its text lacked)."""
    module = sys.modules[module_name]
    for item in vars(module).values():
        if isinstance(item, type) and issubclass(item, msgspec.Struct) and item.__module__ == module_name:
            for spec in msgspec.structs.fields(item):
                if not spec.required and (spec.default is not msgspec.UNSET or spec.default_factory is not msgspec.NODEFAULT):
                    return False
    return True


def typed_parts(value: Any) -> Any:
    """A copy of ``value`` (Structs, lists and dicts copied, scalars shared) in which every
    Struct, innermost first, has run its class's ``__post_init__``: the dispatched unions it
    holds become their Structs, and JSON integers written as ``1.0`` ints. A rule that fails
    (the faults the target check reported) stops that Struct's ``__post_init__`` there; what it
    typed before stays. The converter's value is not changed (it may share lists with the
    source document)."""
    return _typed(value, 0)


_DEPTH = 400
"""Levels typed, below Python's recursion limit: deeper parts are kept as they are (shared with
the converter's value, so the Struct above them does not run its ``__post_init__``, which could
change them in place)."""


def _typed(node: Any, depth: int) -> Any:
    if depth > _DEPTH:
        return node
    kind = node.__class__
    if kind is dict:
        return {key: _typed(item, depth + 1) for key, item in node.items()}
    if kind is list:
        return [_typed(item, depth + 1) for item in node]
    if not isinstance(node, msgspec.Struct):
        return node
    made = copy.copy(node)  # no __post_init__
    for name in node.__struct_fields__:
        item = getattr(node, name)
        if item.__class__ in _CONTAINERS or isinstance(item, msgspec.Struct):
            setattr(made, name, _typed(item, depth + 1))
    finish = getattr(kind, "__post_init__", None) if depth < _DEPTH else None
    if finish is not None:
        try:
            finish(made)
        except Exception:  # noqa: BLE001 - a rule the faulty value breaks (RuleViolation, or a check
            pass  # that trips on a member left UNSET): the target check has reported the faults
    return made


_CONTAINERS = (dict, list)
