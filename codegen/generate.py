"""Compile one schema document into the source of one generated module.

``render_schema(document)`` is what ``python -m codegen`` runs for each file of schemas/ and
what ``python -m tests.schema_suite`` runs for each schema of the JSON-Schema-Test-Suite.
Raises :class:`codegen.schema.SchemaError` naming the keyword and JSON pointer of a construct
that cannot be compiled exactly.
"""

from __future__ import annotations

from typing import Any

from codegen import emit
from codegen.bindings import BindingCompiler
from codegen.schema import SchemaDocument


def render_schema(document: SchemaDocument, protocol: dict[str, Any] | None = None, remotes: dict[str, Any] | None = None) -> str:
    """The generated module's source for ``document``.

    ``protocol`` is the document's table of codegen/protocols.toml (None: no protocol rules);
    ``remotes`` maps absolute URIs to the schemas that references outside the document name.
    """
    return emit.render_module(BindingCompiler(document, protocol).compile())
