"""``lucent generate SCHEMA.json --out DIR [--module NAME]``: compile a user's own JSON Schema
into an importable module (issue 17.4).

The module is what ``python -m codegen`` makes of a schema of schemas/ that is not shipped:
msgspec Structs where they express the schema exactly, else validation functions compiled from
it (codegen/generate.py:render_schema). It imports lucent and msgspec only; decode with it in
msgspec's manner::

    import lucent, mymodel
    lucent.decode(data, type=mymodel.Model)   # a Struct of the module
    lucent.decode(data, type=mymodel)         # the root (or definition="NAME")

The compiler is the ``codegen`` package, shipped behind an extra (``pip install
'lucent[codegen]'``); it is imported here only when a schema is compiled.
"""

from __future__ import annotations

import argparse
import json
import keyword
import os
import re
from pathlib import Path
from typing import TYPE_CHECKING

from lucent.errors import UsageError

if TYPE_CHECKING:
    from lucent.cli import _Console

INSTALL = "pip install 'lucent[codegen]'"
"""What makes the compiler importable."""


def generate(schema: str | os.PathLike[str], out: str | os.PathLike[str], module: str | None = None) -> Path:
    """Compile the JSON Schema file ``schema`` into ``out/<module>.py``; returns its path.

    ``module`` defaults to the schema's file stem made a Python name (``my-model.json`` ->
    ``my_model``). References outside the document are not fetched (a ``$ref`` to another file
    is refused).

    Raises
    ------
    UsageError
        ``missing_dependency``: the codegen extra is not installed (``pip install
        'lucent[codegen]'``); ``unreadable_schema``: the file cannot be read or is not JSON;
        ``invalid_module_name``; ``schema_refused``: a keyword or form the compiler cannot
        compile exactly (the message names the keyword and its JSON pointer, from
        codegen's SchemaError).
    """
    try:
        from codegen.generate import render_schema
        from codegen.schema import SchemaDocument, SchemaError
    except ImportError as exc:
        raise UsageError(f"lucent generate needs the schema compiler: {INSTALL} ({exc})", code="missing_dependency") from None
    path = Path(schema)
    try:
        text = path.read_text(encoding="utf-8")
        raw = json.loads(text)
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        raise UsageError(f"{path}: cannot read the schema: {exc}", code="unreadable_schema") from None
    name = module if module is not None else re.sub(r"[^0-9a-zA-Z]+", "_", path.stem).strip("_").lower()
    if not name.isidentifier() or keyword.iskeyword(name):
        raise UsageError(f"{name!r} is not a Python module name (give --module NAME)", code="invalid_module_name")
    document = SchemaDocument(path=path.resolve(), stem=name, raw=raw, text=text)
    try:
        source = render_schema(document, None, {})
    except SchemaError as exc:
        raise UsageError(f"{path}: {exc}", code="schema_refused") from None
    except RecursionError:
        raise UsageError(f"{path}: #: the schema nests too deeply to compile", code="schema_refused") from None
    target = Path(out) / f"{name}.py"
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(source, encoding="utf-8")
    return target


def add_generate(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the ``generate`` command to the CLI's subcommands."""
    command = commands.add_parser(
        "generate", help="compile your own JSON Schema into an importable module",
        description="Compile a draft 2020-12 JSON Schema into DIR/NAME.py, for lucent.decode(data, type=...). "
        f"Needs the codegen extra: {INSTALL}.",
    )
    command.add_argument("schema", metavar="SCHEMA.json")
    command.add_argument("--out", required=True, metavar="DIR", help="the folder the module is written to")
    command.add_argument("--module", default=None, metavar="NAME", help="the module's name (default: the schema's file stem)")
    command.set_defaults(run=_generate)


def _generate(args: argparse.Namespace, console: _Console) -> int:
    written = generate(args.schema, args.out, args.module)
    console.err(f"lucent: wrote {written}")
    return 0
