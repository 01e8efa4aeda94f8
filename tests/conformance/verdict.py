"""A verdict on one JSON document, and JSON paths as tuples."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

__all__ = ["Verdict", "format_path", "parse_path", "value_at"]

Path = tuple[str | int, ...]


@dataclass(frozen=True)
class Verdict:
    """Whether a judge accepted a document, and if not, where and why.

    Attributes
    ----------
    valid : bool
        True when the document was accepted.
    path : tuple
        The location the judge names (``()`` is the root); empty when valid.
    code : str or None
        A JSON Schema keyword (``"required"``), a protocol code
        (``"tool_arguments"``), ``"malformed_json"`` or ``"crash"``.
    message : str
        The judge's message.
    """

    valid: bool
    path: Path = ()
    code: str | None = None
    message: str = ""

    @property
    def json_path(self) -> str | None:
        """The path as jsonschema spells it (``$.messages[1]``), or None when valid."""
        return None if self.valid else format_path(self.path)


def format_path(path: Path) -> str:
    """Spell a path as jsonschema's ``json_path`` does: ``$.a[0].b``."""
    return "$" + "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in path)


_PART = re.compile(r'\.([^.\[]+)|\[(\d+)\]|\[("(?:[^"\\]|\\.)*")\]')


def parse_path(text: str) -> Path:
    """Read ``$.a[0]["b c"]`` (lucent's spelling) into ``("a", 0, "b c")``.

    A part that does not parse ends the path there.
    """
    parts: list[str | int] = []
    position = 1 if text.startswith("$") else 0
    while position < len(text):
        match = _PART.match(text, position)
        if match is None:
            break
        name, index, quoted = match.groups()
        parts.append(name if name is not None else int(index) if index is not None else json.loads(quoted))
        position = match.end()
    return tuple(parts)


def value_at(document: Any, path: Path) -> Any:
    """The value at *path*, or None when the path does not lead anywhere."""
    node = document
    for part in path:
        try:
            node = node[part]
        except (KeyError, IndexError, TypeError):
            return None
    return node
