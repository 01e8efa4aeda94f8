"""lucent: schema-first bindings and converters for LLM wire protocols.

``import lucent`` gives the few names a user needs:

* :func:`decode` / :func:`encode`: JSON text to generated msgspec Structs and back, validated
  exactly as the JSON Schemas in ``schemas/`` say (plus each protocol's written rules);
* :func:`convert`: any format to any other through the Lux IR hub, with diagnostics;
* :mod:`lucent.streams`: a streamed response (SSE bytes, chunks or events) assembled into its
  final response, every stream rule enforced; :mod:`lucent.sse` is the event-stream parser;
* :mod:`lucent.errors`: the typed errors, each with ``.code`` and ``.path``.

The generated bindings live in ``lucent.generated.<schema module>``.
"""

from __future__ import annotations

from lucent import errors, sse, streams
from lucent._decode import SCHEMAS, decode, encode
from lucent._convert import convert

__all__ = ["SCHEMAS", "convert", "decode", "encode", "errors", "sse", "streams"]
