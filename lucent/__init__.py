"""lucent: schema-first bindings and converters for LLM wire protocols.

``import lucent`` gives the few names a user needs:

* :func:`decode` / :func:`encode`: JSON text to generated msgspec Structs and back, validated
  exactly as the JSON Schemas in ``schemas/`` say (plus each protocol's written rules);
* :func:`convert`: any format to any other through the Lux IR hub, with diagnostics;
* :mod:`lucent.streams`: a streamed response (SSE bytes, chunks or events) assembled into its
  final response, every stream rule enforced; :mod:`lucent.sse` is the event-stream parser;
* :mod:`lucent.errors`: the typed errors, each with ``.code`` and ``.path``;
* :class:`Limits`: the size and depth limits on untrusted input (SECURITY.md);
* :func:`warm_up`: build on start what lucent otherwise builds on first use (for servers, and
  before a fork).
* :mod:`lucent.snapshots`: Responses ``previous_response_id`` continuation through a snapshot
  store (SQLite, Redis, memory: :mod:`lucent.records`);
* :mod:`lucent.capabilities`: model capability declarations, lookup and the pre-flight check.

The generated bindings live in ``lucent.generated.<schema module>``; the formats themselves are
declared once, in :data:`lucent.formats.FORMATS`.
"""

from __future__ import annotations

import os as _os

# An installed lucent holds lucent/generated (pyproject.toml maps the top-level generated/ folder
# there). Imported straight from a source checkout (python run in the repository root), the
# package finds lucent.generated in the checkout's generated/ folder instead.
if not _os.path.isdir(_os.path.join(_os.path.dirname(__file__), "generated")):
    _checkout = _os.path.dirname(_os.path.dirname(_os.path.abspath(__file__)))
    if _os.path.isfile(_os.path.join(_checkout, "generated", "__init__.py")):
        __path__.append(_checkout)

from lucent import errors  # noqa: E402
from lucent._first_use import imported as _imported  # noqa: E402

_TYPE_CHECKING = False  # typing itself is not imported: `import lucent` stays cheap
if _TYPE_CHECKING:
    from typing import Any as _Any

    from lucent import capabilities, records, snapshots, sse, streams
    from lucent._convert import convert
    from lucent._decode import SCHEMAS, decode, encode
    from lucent._limits import Limits
    from lucent._warm_up import warm_up

__all__ = ["SCHEMAS", "Limits", "capabilities", "convert", "decode", "encode", "errors", "records", "snapshots", "sse", "streams", "warm_up"]

# Imported on first use, so that `import lucent` loads no generated binding or converter (nor
# msgspec): a schema's module is imported by the first decode of it
# (lucent._decode.schema_module), a converter's by its first lookup
# (lucent.generated.convert_registry.CONVERTERS). Each is imported under lucent._first_use.LOCK.
_ON_FIRST_USE = {
    "SCHEMAS": ("lucent._decode", "SCHEMAS"),
    "Limits": ("lucent._limits", "Limits"),
    "convert": ("lucent._convert", "convert"),
    "decode": ("lucent._decode", "decode"),
    "encode": ("lucent._decode", "encode"),
    "sse": ("lucent.sse", ""),
    "streams": ("lucent.streams", ""),
    "warm_up": ("lucent._warm_up", "warm_up"),
    "snapshots": ("lucent.snapshots", ""),
    "records": ("lucent.records", ""),
    "capabilities": ("lucent.capabilities", ""),
}


def __getattr__(name: str) -> "_Any":
    try:
        module, attribute = _ON_FIRST_USE[name]
    except KeyError:
        raise AttributeError(f"module 'lucent' has no attribute {name!r}") from None
    loaded = _imported(module)
    value = getattr(loaded, attribute) if attribute else loaded
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
