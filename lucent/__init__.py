"""lucent: schema-first bindings and converters for LLM wire protocols.

``import lucent`` gives the few names a user needs:

* :func:`decode` / :func:`encode`: JSON text to generated msgspec Structs and back, validated
  exactly as the JSON Schemas in ``schemas/`` say (plus each protocol's written rules);
* :func:`convert`: any format to any other through the Lux IR hub, with diagnostics;
* :mod:`lucent.streams`: a streamed response (SSE bytes, chunks or events) assembled into its
  final response, every stream rule enforced; :mod:`lucent.sse` is the event-stream parser;
* :mod:`lucent.errors`: the typed errors, each with ``.code`` and ``.path``;
* :class:`Limits`: the size and depth limits on untrusted input (SECURITY.md).

The generated bindings live in ``lucent.generated.<schema module>``.
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

from lucent import errors, sse, streams  # noqa: E402
from lucent._decode import SCHEMAS, decode, encode  # noqa: E402
from lucent._convert import convert  # noqa: E402
from lucent._limits import Limits  # noqa: E402

__all__ = ["SCHEMAS", "Limits", "convert", "decode", "encode", "errors", "sse", "streams"]
