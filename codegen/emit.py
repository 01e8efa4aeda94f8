"""Render compiled modules through the Jinja templates in codegen/templates."""

from __future__ import annotations

import re
import textwrap
from pathlib import Path
from typing import Any

import jinja2

from codegen import rules
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
        + ["DECODE_CHECKS", "DECODE_TYPES", "PROTOCOL", "PROTOCOL_CHECKS", "ROOT", "ROOT_ONE_OF"]
        + (["ROOT_ANY_OF"] if model.root_any_of else [])
    )
    context: dict[str, Any] = {
        "title": doc.raw.get("title", doc.stem),
        "stem": doc.stem,
        "draft": doc.draft or "no $schema",
        "exports": exports,
        "int_aliases": sorted(model.int_aliases.items()) + sorted(model.num_aliases.items()),
        "literal_aliases": sorted(model.literal_aliases.values(), key=lambda a: a.order),
        "structs": structs,
        "type_params": sorted(model.type_params),
        "aliases": aliases,
        "protocol": model.protocol,
        "protocol_checks": sorted(model.protocol_checks.items()),
        "decode_types": list(model.decode_types.items()),
        "root_type": model.root_type,
        "root_one_of": model.root_one_of,
        "root_any_of": model.root_any_of,
    }
    dispatches, wrappers, checks, code = _dispatch_context(model)
    context.update(dispatches=dispatches, wrappers=wrappers, decode_checks=checks)
    tagged = any(d["first"] for d in dispatches)
    context["extra_support"] = _extra_support(model, code + ("convert_union(" if dispatches else "") + ("dispatch_tagged(first_branches(" if tagged else ""))
    return _tidy(environment().get_template("module.py.jinja").render(**context))


_OPTIONAL_SUPPORT = ("convert_union", "dispatch_tagged", "first_branches", "key_path")


def _extra_support(model: ModuleModel, code: str) -> list[str]:
    """Helpers of lucent._validation that only some modules call (imported only where used)."""
    code += "\n".join(line for s in model.structs.values() for line in s.checks)
    return [name for name in _OPTIONAL_SUPPORT if f"{name}(" in code]


def _dispatch_context(model: ModuleModel) -> tuple[list[dict[str, Any]], list[dict[str, Any]], list[dict[str, Any]], str]:
    """The dispatch functions, the branch wrappers they need and the DECODE_CHECKS functions."""
    dispatches = []
    wrappers = []
    for d in model.dispatches.values():
        branches = []
        for i, branch in enumerate(d.branches):
            if branch in model.dispatches:
                branches.append(f"dispatch_{branch}")
                continue
            fixups = rules.int_fixups(model, branch, "value", "{path}", 0, set())
            if fixups:
                wrapper = f"_branch_{d.name}_{i}"
                wrappers.append({"name": wrapper, "type": branch, "lines": fixups})
                branches.append(wrapper)
            else:
                branches.append(branch)  # every name in a branch exists at run time
        first = None
        if d.table:
            # tag value -> the branch to try first: the only one (oneOf), the first one (anyOf)
            first = {tag: found[0] for tag, found in d.table[1].items() if found and (len(found) == 1 or not d.one_of)}
            other = d.table[2]
            if other and (len(other) == 1 or not d.one_of):
                first["\x00other"] = other[0]  # any tag value the table does not list
        dispatches.append({"name": d.name, "branches": branches, "one_of": d.one_of, "table": d.table, "first": first})
    checks = []
    for name, expr in [*model.decode_types.items(), (None, model.root_type)]:
        if expr is None:
            continue
        lines = rules.int_fixups(model, expr, "value", "{path}", 0, set())
        if lines:
            checks.append({"key": name, "name": "_decoded_" + re.sub(r"\W", "_", name or "root"), "lines": lines})
    code = "\n".join(line for group in (wrappers, checks) for item in group for line in item["lines"])
    return dispatches, wrappers, checks, code


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
