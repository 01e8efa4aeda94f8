"""Render compiled modules through the Jinja templates in codegen/templates."""

from __future__ import annotations

import textwrap
from pathlib import Path
from typing import Any

import jinja2

from codegen.bindings import ModuleModel, StructDef

TEMPLATES = Path(__file__).resolve().parent / "templates"


def _docstring(text: str, indent: int) -> str:
    pad = " " * indent
    body = text.strip().replace("\\", "\\\\").replace('"""', '\\"\\"\\"')
    lines = body.splitlines() or [""]
    if len(lines) == 1:
        return f'{pad}"""{lines[0]}"""'
    return "\n".join([f'{pad}"""{lines[0]}'] + [f"{pad}{line}".rstrip() for line in lines[1:]] + [f'{pad}"""'])


def _class_doc(struct: StructDef) -> str:
    summary = struct.doc or f"Schema {struct.pointer}."
    if struct.doc and struct.pointer:
        summary += f"\n\nSchema: {struct.pointer}"
    documented = [f for f in struct.fields if f.doc]
    if documented:
        summary += "\n\nAttributes\n----------"
        for f in documented:
            summary += f"\n{f.attr}:\n" + textwrap.indent(str(f.doc).strip(), "    ")
    return _docstring(summary, 4)


def environment() -> jinja2.Environment:
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(TEMPLATES)),
        keep_trailing_newline=True,
        undefined=jinja2.StrictUndefined,
        autoescape=False,
    )
    env.filters["pyrepr"] = repr
    env.filters["docstring"] = _docstring
    env.filters["class_doc"] = _class_doc
    return env


def render_module(model: ModuleModel) -> str:
    doc = model.document
    structs = list(model.structs.values())
    aliases = sorted(model.aliases.values(), key=lambda a: a.order)
    exports = sorted(
        [s.name for s in structs if not s.name.startswith("_")]
        + [a.name for a in aliases]
        + list(model.literal_aliases)
        + ["DECODE_TYPES", "PROTOCOL", "PROTOCOL_CHECKS", "ROOT", "ROOT_ONE_OF"]
    )
    context: dict[str, Any] = {
        "title": doc.raw.get("title", doc.stem),
        "stem": doc.stem,
        "draft": doc.draft or "no $schema",
        "exports": exports,
        "int_aliases": sorted(model.int_aliases.items()),
        "literal_aliases": sorted(model.literal_aliases.values(), key=lambda a: a.order),
        "structs": structs,
        "aliases": aliases,
        "protocol": model.protocol,
        "protocol_checks": sorted(model.protocol_checks.items()),
        "decode_types": list(model.decode_types.items()),
        "root_type": model.root_type,
        "root_one_of": model.root_one_of,
    }
    return _tidy(environment().get_template("module.py.jinja").render(**context))


def render_support() -> str:
    return environment().get_template("support.py.jinja").render()


def _tidy(text: str) -> str:
    """At most two blank lines in a row, and one newline at the end."""
    lines: list[str] = []
    blank = 0
    for line in text.splitlines():
        line = line.rstrip()
        blank = blank + 1 if not line else 0
        if blank <= 2:
            lines.append(line)
    return "\n".join(lines).strip() + "\n"
