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
* the converter's value as it is when neither typed form writes the same JSON (a member the
  target's Structs do not define, which they would drop).
"""

from __future__ import annotations

import copy
from typing import Any

import msgspec

__all__ = ["typed", "typed_parts"]

_SORTED = msgspec.json.Encoder(order="sorted")


def typed(value: Any, decoded: Any | None) -> Any:
    """The value ``lucent.convert`` returns for the converter's ``value``: ``decoded`` (the
    target decode of its JSON text; None when the target has faults), else :func:`typed_parts`,
    whichever writes the same JSON value as ``value``; else ``value`` itself.

    The typed forms differ from ``value`` only where the target's Structs read its text
    otherwise than it was built: a member an open object does not define is dropped (a Struct
    cannot hold it; NOTES.md), a default is filled in. ``value`` is then returned as the
    converter wrote it, so that the result writes what the conversion wrote. Each check is two
    encodes (keys sorted), in C."""
    written = _SORTED.encode(value)
    if decoded is not None and _SORTED.encode(decoded) == written:
        return decoded
    parts = typed_parts(value)
    return parts if _SORTED.encode(parts) == written else value


def typed_parts(value: Any) -> Any:
    """A copy of ``value`` (Structs, lists and dicts copied, scalars shared) in which every
    Struct, innermost first, has run its class's ``__post_init__``: the dispatched unions it
    holds become their Structs, and JSON integers written as ``1.0`` ints. A rule that fails
    (the faults the target check reported) stops that Struct's ``__post_init__`` there; what it
    typed before stays. The converter's value is not changed (it may share lists with the
    source document)."""
    return _typed(value, 0)


_DEPTH = 400  # below Python's recursion limit; deeper parts are copied as they are


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
    finish = getattr(kind, "__post_init__", None)
    if finish is not None:
        try:
            finish(made)
        except Exception:  # noqa: BLE001 - a rule the faulty value breaks (RuleViolation, or a check
            pass  # that trips on a member left UNSET): the target check has reported the faults
    return made


_CONTAINERS = (dict, list)
