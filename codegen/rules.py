"""Compile the JSON Schema keywords that ``msgspec.Meta`` cannot express into Python.

Each Struct gets a ``__post_init__`` body made of straight-line statements. A failed rule raises
``RuleViolation(code, message, path)`` where ``code`` is the JSON Schema keyword that failed
(``required``, ``not``, ``anyOf``, ``const``, ``format``, ...) and ``path`` the JSON path below
the Struct (``""`` for the Struct itself). msgspec turns it into a ``ValidationError`` that names
the Struct's own path; lucent joins the two.

Covered: ``allOf``, ``anyOf``, ``oneOf``, ``not``, ``if``/``then``/``else`` over ``required``,
``properties``, ``const``, ``enum``, ``type``, item/length/number bounds; ``allOf`` narrowing of
a property (``allOf: [{$ref}, {properties: ...}]``); integer ``format`` (uint32, uint, ...);
JSON Schema integers written with a zero fraction (``1.0``). Anything else raises
:class:`codegen.schema.SchemaError` at build time, so nothing is skipped silently.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from codegen.schema import SchemaError

INTEGER_FORMATS_ = ("uint32", "uint", "uint64", "int32", "int64")  # codegen.bindings.INTEGER_FORMATS

if TYPE_CHECKING:
    from codegen.bindings import BindingCompiler, StructDef

ANNOTATIONS = {"description", "title", "$comment", "examples", "default", "deprecated", "readOnly", "writeOnly"}
APPLICATORS = ("allOf", "anyOf", "oneOf", "not", "if")


@dataclass
class Subject:
    """A value the rules talk about: its expression, its Struct (if any) and its JSON path."""

    expr: str
    struct: StructDef | None
    path: str
    optional: bool = False  # the value may be UNSET (an optional property)


class RuleCompiler:
    def __init__(self, compiler: BindingCompiler) -> None:
        self.compiler = compiler

    # ------------------------------------------------------------ predicates
    def pred(self, schema: Any, subj: Subject) -> str:
        if schema is True or schema == {}:
            return "True"
        if schema is False:
            return "False"
        if "$ref" in schema:
            _, node = self.compiler.doc.resolve(schema["$ref"])
            rest = {k: v for k, v in schema.items() if k != "$ref"}
            return _and([self.pred(node.raw, subj), self.pred(rest, subj)])
        parts: list[str] = []
        for kw, val in schema.items():
            if kw in ANNOTATIONS or kw in ("then", "else"):
                continue
            if kw == "required":
                parts.extend(self.present(subj, name) for name in val)
            elif kw == "properties":
                for name, sub in val.items():
                    prop = self.prop(subj, name)
                    if prop is not None:
                        check = self.pred(sub, prop)
                        guarded = prop.optional and name not in schema.get("required", ())
                        parts.append(f"({prop.expr} is UNSET or {check})" if guarded else check)
            elif kw == "not":
                parts.append(f"not ({self.pred(val, subj)})")
            elif kw == "anyOf":
                parts.append("(" + " or ".join(self.pred(s, subj) for s in val) + ")")
            elif kw == "allOf":
                parts.append(_and([self.pred(s, subj) for s in val]))
            elif kw == "oneOf":
                parts.append("[" + ", ".join(f"bool({self.pred(s, subj)})" for s in val) + "].count(True) == 1")
            elif kw == "if":
                then = self.pred(schema.get("then", True), subj)
                other = self.pred(schema.get("else", True), subj)
                parts.append(f"(({then}) if ({self.pred(val, subj)}) else ({other}))")
            else:
                parts.append(self.value_pred(kw, val, subj))
        return _and(parts)

    def value_pred(self, kw: str, val: Any, subj: Subject) -> str:
        x = subj.expr
        if kw == "const":
            return f"{x} == {val!r}"
        if kw == "enum":
            return f"{x} in {tuple(val)!r}"
        if kw == "type":
            types = val if isinstance(val, list) else [val]
            return "(" + " or ".join(_type_pred(t, x) for t in types) + ")"
        if kw in ("minItems", "maxItems"):
            op = ">=" if kw == "minItems" else "<="
            return f"(not isinstance({x}, list) or len({x}) {op} {val!r})"
        if kw in ("minLength", "maxLength"):
            op = ">=" if kw == "minLength" else "<="
            return f"(not isinstance({x}, str) or len({x}) {op} {val!r})"
        ops = {"minimum": ">=", "maximum": "<=", "exclusiveMinimum": ">", "exclusiveMaximum": "<"}
        if kw in ops:
            return f"(isinstance({x}, bool) or not isinstance({x}, (int, float)) or {x} {ops[kw]} {val!r})"
        raise SchemaError(f"rule keyword {kw!r} is not supported inside applicators")

    def present(self, subj: Subject, name: str) -> str:
        if subj.struct is None:
            return f"(not isinstance({subj.expr}, dict) or {name!r} in {subj.expr})"
        field = subj.struct.field_by_json(name)
        if field is not None:
            return f"{subj.expr}.{field.attr} is not UNSET"
        if name == subj.struct.tag_field:
            return "True"
        if subj.struct.forbid_unknown:
            return "False"
        raise SchemaError(f"{subj.struct.name}: rule names {name!r}, which is not a property")

    def prop(self, subj: Subject, name: str) -> Subject | None:
        path = subj.path + _path_part(name)
        if subj.struct is None:
            raise SchemaError(f"rules over properties of a non-Struct value ({subj.expr}) are not supported")
        field = subj.struct.field_by_json(name)
        if field is None:
            if name == subj.struct.tag_field or subj.struct.forbid_unknown:
                return None if name != subj.struct.tag_field else Subject(repr(subj.struct.tag), None, path)
            raise SchemaError(f"{subj.struct.name}: rule names {name!r}, which is not a property")
        struct = self.compiler.model.structs.get(_struct_name(field.annotation))
        return Subject(f"{subj.expr}.{field.attr}", struct, path, optional=not field.required)

    # ------------------------------------------------------------ statements
    def asserts(self, schema: Any, subj: Subject) -> list[str]:
        """Statements that raise ``RuleViolation`` on the first keyword of ``schema`` that fails."""
        if schema is True or schema == {}:
            return []
        lines: list[str] = []
        if "$ref" in schema:
            _, node = self.compiler.doc.resolve(schema["$ref"])
            lines += self.asserts(node.raw, subj)
        for kw, val in schema.items():
            if kw in ANNOTATIONS or kw in ("then", "else", "$ref"):
                continue
            if kw == "required":
                for name in val:
                    check = self.present(subj, name)
                    if check != "True":
                        lines += _raise_unless(check, "required", f"{name!r} is a required property", subj.path)
            elif kw == "properties":
                for name, sub in val.items():
                    prop = self.prop(subj, name)
                    inner = self.asserts(sub, prop) if prop is not None else []
                    if inner and prop is not None and prop.struct is None and prop.expr.startswith("'"):
                        lines += _raise_unless(self.pred(sub, prop), "const", f"{name} must match {json.dumps(sub)}", prop.path)
                    elif inner and prop is not None and prop.optional and name not in schema.get("required", ()):
                        lines.append(f"if {prop.expr} is not UNSET:")
                        lines += ["    " + line for line in inner]
                    else:
                        lines += inner
            elif kw == "if":
                then = self.asserts(schema.get("then", True), subj) or ["pass"]
                other = self.asserts(schema.get("else", True), subj)
                lines.append(f"if {self.pred(val, subj)}:")
                lines += ["    " + line for line in then]
                if other:
                    lines.append("else:")
                    lines += ["    " + line for line in other]
            elif kw == "allOf":
                for sub in val:
                    lines += self.asserts(sub, subj)
            elif kw in ("anyOf", "oneOf"):
                word = "any" if kw == "anyOf" else "exactly one"
                lines += _raise_unless(self.pred({kw: val}, subj), kw, f"must match {word} of {json.dumps(val)}", subj.path)
            elif kw == "not":
                lines.append(f"if {self.pred(val, subj)}:")
                lines.append(f"    raise RuleViolation('not', {('must not match ' + json.dumps(val))!r}, {subj.path!r})")
            else:
                lines += _raise_unless(self.value_pred(kw, val, subj), kw, f"{kw} {json.dumps(val)} is not met", subj.path)
        return lines


def struct_checks(compiler: BindingCompiler, struct: StructDef) -> list[str]:
    """The ``__post_init__`` body of one Struct (empty when nothing needs checking)."""
    rc = RuleCompiler(compiler)
    lines: list[str] = []
    me = Subject("self", struct, "")
    for field in struct.fields:
        raw = field.schema.raw if isinstance(field.schema.raw, dict) else {}
        attr = f"self.{field.attr}"
        path = _path_part(field.json_name)
        first = _split_union(field.annotation)[0].strip()
        if first.startswith("JsonInt"):
            bounds = "".join(
                f", {name}={raw[keyword]!r}"
                for name, keyword in (("ge", "minimum"), ("le", "maximum"), ("gt", "exclusiveMinimum"), ("lt", "exclusiveMaximum"))
                if isinstance(raw.get(keyword), int) and not isinstance(raw.get(keyword), bool)
            )
            lines.append(f"if type({attr}) is float:")
            lines.append(f"    {attr} = as_integer({attr}, {path!r}{bounds})")
            lines += wide_checks(compiler.model, first, attr, _fstring_literal(path))
            fmt = raw.get("format")
            if fmt in INTEGER_FORMATS_:
                from codegen.bindings import INTEGER_FORMATS

                low, high = INTEGER_FORMATS[fmt]
                lines.append(f"if isinstance({attr}, int) and not {low} <= {attr} <= {high}:")
                lines.append(f"    raise RuleViolation('format', 'must be a {fmt} ({low}..{high})', {path!r})")
        elif _strip_annotated(first) == "float" or first in compiler.model.num_aliases:
            lines.append(f"if type({attr}) is float:")
            lines.append(f"    check_finite({attr}, {path!r})")
            lines += wide_checks(compiler.model, first, attr, _fstring_literal(path))
        else:
            annotation = field.annotation if field.required else field.annotation + " | UnsetType"
            lines += int_fixups(compiler.model, annotation, attr, _fstring_literal(path), 0, set())
        if "allOf" in raw:
            narrowing = [s for s in raw["allOf"][1:]]
            sub = Subject(attr, compiler.model.structs.get(_struct_name(field.annotation)), path)
            inner = [line for s in narrowing for line in rc.asserts(s, sub)]
            if inner and field.required:
                lines += inner
            elif inner:
                lines.append(f"if {attr} is not UNSET:")
                lines += ["    " + line for line in inner]
    if struct.node is not None:
        own = {k: v for k, v in struct.node.raw.items() if k in ("allOf", "anyOf", "oneOf", "not", "if", "then", "else")}
        lines += rc.asserts(own, me)
    return lines


def int_fixups(model: Any, annotation: str, target: str, path: str, depth: int, seen: set[str]) -> list[str]:
    """Statements that turn JSON Schema integers written as ``1.0`` into ``int`` inside lists,
    maps and unions, and that convert the plain JSON values of dispatched unions (see
    BindingCompiler.dispatch) to their branch (``target`` is an assignable expression, ``path``
    the body of an f-string)."""
    parts = _runtime_parts(model, annotation, seen)
    dispatched = [p for p in parts if p in model.dispatches]
    if dispatched:
        if len([p for p in parts if p != "UnsetType"]) != 1:
            raise SchemaError(f"{target}: a dispatched union beside other types ({annotation})")
        call = f"{target} = dispatch_{dispatched[0]}({target}, f{path!r})"
        return [f"if {target} is not UNSET:", "    " + call] if "UnsetType" in parts else [call]
    if any(p in ("float", "Any") or p in model.num_aliases for p in parts):
        # a JSON number is valid as it is (integer | number); bounds msgspec.Meta could not hold
        # exactly are checked on it
        return [line for p in parts if p in model.num_aliases for line in wide_checks(model, p, target, path)]
    lines: list[str] = []
    for part in parts:
        if part in model.int_aliases:
            if model.int_formats.get(part):
                raise SchemaError(f"{target}: an integer format {sorted(model.int_formats[part])} inside a container")
            bounds = "".join(f", {k}={v!r}" for k, v in model.int_bounds[part].items() if isinstance(v, int))
            lines += [f"if type({target}) is float:", f"    {target} = as_integer({target}, f{path!r}{bounds})"]
            lines += wide_checks(model, part, target, path)
        elif part.startswith(("list[", "dict[")):
            inner = part[part.index("[") + 1:-1]
            is_list = part.startswith("list[")
            if not is_list:
                inner = inner.split(",", 1)[1].strip()
            index, item = f"i{depth}", f"item{depth}"
            body = int_fixups(model, inner, f"{target}[{index}]", path + ("[{%s}]" % index if is_list else "{key_path(%s)}" % index), depth + 1, seen)
            if body:
                loop = f"for {index} in range(len({target})):" if is_list else f"for {index} in list({target}):"
                lines += [f"if isinstance({target}, {'list' if is_list else 'dict'}):", f"    {loop}"]
                lines += ["        " + line for line in body]
    return lines


def wide_checks(model: Any, alias: str, target: str, path: str) -> list[str]:
    """Bounds that msgspec.Meta cannot hold exactly, checked on the exact value: integer bounds
    beyond int64, and a number's bounds that a double would round (see
    BindingCompiler.number_alias). Python compares an int with a float exactly."""
    ops = {"ge": (">=", "minimum"), "le": ("<=", "maximum"), "gt": (">", "exclusiveMinimum"), "lt": ("<", "exclusiveMaximum")}
    lines = []
    number = alias in model.num_aliases
    bounds = model.num_exact.get(alias, {}) if number else model.int_wide.get(alias, {})
    for key, bound in bounds.items():
        op, keyword = ops[key]
        typed = f"(type({target}) is int or type({target}) is float)" if number else f"type({target}) is int"
        lines += [
            f"if {typed} and not {target} {op} {bound!r}:",
            f"    raise RuleViolation({keyword!r}, {f'Expected a number {op} {bound}' if number else f'Expected `int` {op} {bound}'!r}, f{path!r})",
        ]
    return lines


def _runtime_parts(model: Any, annotation: str, seen: set[str]) -> list[str]:
    """The members of a union at run time, with aliases (not Structs) expanded."""
    parts: list[str] = []
    for part in _split_union(_strip_annotated(annotation)):
        part = _strip_annotated(part.strip())
        if part in model.aliases and part not in model.int_aliases and part not in model.dispatches and part not in seen:
            alias = model.aliases[part]
            parts += _runtime_parts(model, alias.runtime_expr or alias.expr, seen | {part})
        else:
            parts.append(part)
    return parts


def _fstring_literal(text: str) -> str:
    return text.replace("{", "{{").replace("}", "}}")


# ------------------------------------------------------------------ protocol
def protocol_checks(compiler: BindingCompiler) -> dict[str, list[str]]:
    """Straight-line walks from each definition to the fields that protocols.toml names."""
    model = compiler.model
    targets: dict[str, set[str]] = {}
    for spec in model.protocol.get("json_object_strings", []):
        definition, *props = spec.split(".")
        struct = model.structs[definition]
        for prop in props[:-1]:
            field = struct.field_by_json(prop)
            if field is None:
                raise SchemaError(f"protocols.toml: {spec}: no property {prop!r}")
            struct = model.structs[_struct_name(field.annotation)]
        if struct.field_by_json(props[-1]) is None:
            raise SchemaError(f"protocols.toml: {spec}: no property {props[-1]!r}")
        targets.setdefault(struct.name, set()).add(props[-1])
    if not targets:
        return {}
    checks: dict[str, list[str]] = {}
    for name in model.decode_types:
        struct_names = _members(model.decode_types[name], model)
        lines: list[str] = []
        for struct_name in struct_names:
            body = _walk(model, struct_name, "doc", "", targets, set(), 0)
            if body and len(struct_names) > 1:
                lines.append(f"if isinstance(doc, {struct_name}):")
                lines += ["    " + line for line in body]
            else:
                lines += body
        if lines:
            checks[name] = lines
    return checks


def _walk(model: Any, struct_name: str, expr: str, path: str, targets: dict[str, set[str]], seen: set[str], depth: int) -> list[str]:
    if struct_name in seen:
        return []
    struct = model.structs[struct_name]
    lines: list[str] = []
    for field in struct.fields:
        fpath = path + _path_part(field.json_name)
        attr = f"{expr}.{field.attr}"
        if field.json_name in targets.get(struct_name, ()):
            guard = [] if field.required else [f"if {attr} is not UNSET:"]
            call = f"check_json_object_text({attr}, f{('$' + fpath)!r})"
            lines += guard + [("    " if guard else "") + call]
            continue
        kind, inner = _container(field.annotation)
        members = _members(inner, model)
        sub_lines: list[str] = []
        for member in members:
            if kind == "list":
                var = f"item{depth}"
                body = _walk(model, member, var, fpath + "[{i%d}]" % depth, targets, seen | {struct_name}, depth + 1)
            else:
                body = _walk(model, member, attr, fpath, targets, seen | {struct_name}, depth + 1)
            if body and len(members) > 1:
                target = f"item{depth}" if kind == "list" else attr
                body = [f"if isinstance({target}, {member}):"] + ["    " + b for b in body]
            sub_lines += body
        if not sub_lines:
            continue
        if kind == "list":
            sub_lines = [f"for i{depth}, item{depth} in enumerate({attr}):"] + ["    " + b for b in sub_lines]
        if not field.required:
            sub_lines = [f"if {attr} is not UNSET:"] + ["    " + b for b in sub_lines]
        lines += sub_lines
    return lines


def _container(annotation: str) -> tuple[str, str]:
    text = _strip_annotated(annotation)
    if text.startswith("list["):
        return "list", _strip_annotated(text[len("list["):-1])
    return "value", text


def _members(annotation: str, model: Any) -> list[str]:
    names = []
    for part in _split_union(_strip_annotated(annotation)):
        part = part.strip()
        if part in model.aliases:
            names += _members(model.aliases[part].runtime_expr or model.aliases[part].expr, model)
        elif part in model.structs and not part.startswith("_"):
            names.append(part)
    return names


def _split_union(text: str) -> list[str]:
    parts, depth, start = [], 0, 0
    for i, ch in enumerate(text):
        depth += ch in "[(" and 1 or ch in "])" and -1 or 0
        if ch == "|" and depth == 0:
            parts.append(text[start:i])
            start = i + 1
    parts.append(text[start:])
    return parts


def _strip_annotated(text: str) -> str:
    text = text.strip()
    if text.startswith("Annotated["):
        inner = text[len("Annotated["):-1]
        return inner[: inner.rindex(", Meta(")]
    return text


def _struct_name(annotation: str) -> str:
    first = _strip_annotated(_split_union(annotation)[0]).strip()
    return first[: -len("Tagged")] if first.endswith("Tagged") else first


def _path_part(name: str) -> str:
    return f".{name}" if re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", name) else f"[{json.dumps(name)}]"


def _type_pred(json_type: str, x: str) -> str:
    return {
        "string": f"isinstance({x}, str)",
        "null": f"{x} is None",
        "boolean": f"isinstance({x}, bool)",
        "integer": f"(isinstance({x}, int) and not isinstance({x}, bool))",
        "number": f"(isinstance({x}, (int, float)) and not isinstance({x}, bool))",
        "array": f"isinstance({x}, list)",
        "object": f"isinstance({x}, (dict, Struct))",
    }[json_type]


def _raise_unless(check: str, code: str, message: str, path: str) -> list[str]:
    return [f"if not ({check}):", f"    raise RuleViolation({code!r}, {message!r}, {path!r})"]


def _and(parts: list[str]) -> str:
    parts = [p for p in parts if p != "True"]
    if not parts:
        return "True"
    return parts[0] if len(parts) == 1 else "(" + " and ".join(parts) + ")"
