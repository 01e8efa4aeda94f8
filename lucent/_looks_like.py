"""What a document looks like: the format and kind whose root it fits (issue 16, "Mistakes get a
hint").

``lucent convert`` takes ``--from`` and ``--kind`` on trust. A Chat request given as
``--from gemini`` decodes (every Gemini request member is optional and unknown members are
allowed) and "converts" to an empty conversation; a response given without ``--kind response``
fails to decode as a request. Both are mistakes of the call, not of the document: this module
names the format and kind a document fits, so the CLI can say so.

A document *fits* a format and kind when it is a JSON object, every member it has is a member
of that kind's root Struct (``lucent.generated.convert_registry.DOCUMENTS``), and it has every
required one. It is wrongly named when it has members the named kind's root lacks and fits another format or kind.
"""

from __future__ import annotations

from functools import cache
from typing import Any

import msgspec

__all__ = ["fits", "hint", "looks_like", "unknown_members"]


def _known(fmt: str, kind: str) -> bool:
    from lucent.generated.convert_registry import DOCUMENTS

    return (fmt, kind) in DOCUMENTS


@cache
def _members(fmt: str, kind: str) -> tuple[frozenset[str], frozenset[str]]:
    """(every member, the required members) of the root of ``fmt`` ``kind``, by their JSON names."""
    from lucent._decode import schema_module
    from lucent.generated.convert_registry import DOCUMENTS

    schema, definition = DOCUMENTS[(fmt, kind)]
    root = getattr(schema_module(schema), definition)
    fields = msgspec.structs.fields(root)
    return frozenset(f.encode_name for f in fields), frozenset(f.encode_name for f in fields if f.required)


def fits(document: Any, fmt: str, kind: str) -> bool:
    """True when ``document`` is an object whose members are all ``fmt`` ``kind`` members and
    include the required ones."""
    if not isinstance(document, dict) or not document:
        return False
    names, required = _members(fmt, kind)
    return document.keys() <= names and required <= document.keys()


def unknown_members(document: Any, fmt: str, kind: str) -> list[str]:
    """The members of ``document`` (an object) that are no member of the ``fmt`` ``kind`` root, in
    document order; [] for anything else."""
    if not isinstance(document, dict) or not _known(fmt, kind):
        return []
    names = _members(fmt, kind)[0]
    return [name for name in document if name not in names]


def looks_like(document: Any, fmt: str, kind: str) -> list[tuple[str, str]]:
    """The (format, kind) pairs other than ``fmt`` ``kind`` that ``document`` fits: the other
    kinds of ``fmt`` first, then the other formats' same kind, then the rest, each in the
    registry's order."""
    from lucent.generated.convert_registry import DOCUMENTS

    others = [pair for pair in DOCUMENTS if pair != (fmt, kind)]
    order = sorted(others, key=lambda pair: (pair[0] != fmt, pair[1] != kind))
    return [pair for pair in order if fits(document, *pair)]


def hint(document: Any, fmt: str, kind: str) -> str | None:
    """"this looks like a response (--kind response)", "this looks like an openai-chat request
    (--from openai-chat)", or None when ``document`` fits no other format and kind."""
    found = looks_like(document, fmt, kind) if _known(fmt, kind) else []
    if not found:
        return None
    other_fmt, other_kind = found[0]
    if other_fmt == fmt:
        return f"this looks like a{'n' if other_kind[0] in 'aeiou' else ''} {other_kind} (--kind {other_kind})"
    flags = f"--from {other_fmt}" + ("" if other_kind == kind else f" --kind {other_kind}")
    return f"this looks like a{'n' if other_fmt[0] in 'aeiou' else ''} {other_fmt} {other_kind} ({flags})"
