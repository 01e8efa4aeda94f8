"""Compile one schema document into the source of one generated module.

``render_schema(document)`` is what ``python -m codegen`` runs for each file of schemas/ and
what ``python -m tests.schema_suite`` runs for each schema of the JSON-Schema-Test-Suite.
Raises :class:`codegen.schema.SchemaError` naming the keyword and JSON pointer of a construct
that cannot be compiled exactly.

Two compilers: codegen/bindings.py makes msgspec Structs (the fast path: msgspec checks types
and bounds while it parses), codegen/validators.py makes validation functions over plain JSON
values (every draft 2020-12 keyword, anywhere). The shipped schemas (schemas/, checked against
jsonschema by ``nox -s conformance``) take the fast path (``trusted``), after
:func:`codegen.exact.refuse_inexact` has refused the forms the Structs compiler gets wrong. Any
other document takes the fast path when neither refuse_inexact nor the Structs compiler refuses
it, else the validation functions.
"""

from __future__ import annotations

from typing import Any

from codegen import emit
from codegen.bindings import BindingCompiler
from codegen.exact import refuse_inexact
from codegen.schema import SchemaDocument, SchemaError
from codegen.validators import DRAFT_2020_12, render_validator_module


def render_schema(
    document: SchemaDocument, protocol: dict[str, Any] | None = None, remotes: dict[str, Any] | None = None, *, trusted: bool = False
) -> str:
    """The generated module's source for ``document``.

    ``protocol`` is the document's table of codegen/protocols.toml (None: no protocol rules);
    ``remotes`` maps absolute URIs to the schemas that references outside the document name;
    ``trusted``: the document is one of schemas/ (its Structs are checked by conformance).
    """
    if trusted:
        refuse_inexact(document.raw)
        return emit.render_module(BindingCompiler(document, protocol).compile())
    try:
        if isinstance(document.raw, dict) and str(document.raw.get("$schema", DRAFT_2020_12)).rstrip("#") != DRAFT_2020_12:
            raise SchemaError("#/$schema: the Structs compiler does not read vocabularies")
        refuse_inexact(document.raw)
        return emit.render_module(BindingCompiler(document, protocol).compile())
    except SchemaError:
        return render_validator_module(document, remotes)
