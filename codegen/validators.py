"""Compile a JSON Schema (draft 2020-12) into straight-line Python validation functions.

The approach of fastjsonschema: every subschema becomes one Python function
``_v_<pointer>(v, p)`` whose body is the schema's keywords as plain statements (type tests,
comparisons, loops over items and members, calls to the functions of its subschemas). A failed
keyword raises ``RuleViolation(code, message, path)``: ``code`` is the keyword (``not``,
``minContains``, ``false`` for the ``false`` schema), ``path`` the JSON path below the
document (``.a[0]``). There is no schema interpreter at run time: msgspec decodes the document
into plain JSON values and the generated functions check them.

Covered, in every place a schema may stand (draft 2020-12 core, applicator, unevaluated and
validation vocabularies): boolean schemas; ``type``, ``const``, ``enum`` (any JSON value,
``1`` equals ``1.0``, ``true`` does not equal ``1``); number, string, array and object
bounds; ``multipleOf`` (exact, on the decimal value); ``pattern`` and ``patternProperties``
(ECMA-262, through :func:`codegen.ecma_regex.translate`); ``properties``,
``additionalProperties``, ``propertyNames``, ``required``, ``dependentRequired``,
``dependentSchemas``; ``dependencies`` (draft 7's form of the two); ``prefixItems``, ``items``, ``contains`` with ``minContains`` /
``maxContains``, ``uniqueItems``; ``allOf``, ``anyOf``, ``oneOf``, ``not``,
``if``/``then``/``else``; ``unevaluatedProperties`` / ``unevaluatedItems`` (annotations are
collected by every function of a document that uses them); ``$ref`` (JSON pointers with
``~0``/``~1`` and percent escapes, ``$anchor``, ``$id``-relative and remote references),
``$dynamicRef`` / ``$dynamicAnchor`` (the dynamic scope is known at build time: one function
per schema and outermost dynamic anchor, so nothing is looked up at run time). ``format`` is an
annotation, except the integer formats of :data:`codegen.bindings.INTEGER_FORMATS` (``uint32``,
``uint``, ...) that the shipped schemas assert. ``content*``, ``title`` and the other
annotations do not assert.

Refused with :class:`codegen.schema.SchemaError` (naming the keyword and its JSON pointer): a
``$schema`` other than draft 2020-12 (its vocabularies are not compiled), a reference that
resolves to nothing, a pattern that :mod:`codegen.ecma_regex` cannot translate exactly, a
keyword whose value is not of its kind (``minLength: "2"``), a reference cycle that does not
consume the instance (it would never end).
"""

from __future__ import annotations

import json
import re
import urllib.parse
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from codegen.ecma_regex import UnsupportedPattern, translate
from codegen.schema import SchemaDocument, SchemaError

DRAFT_2020_12 = "https://json-schema.org/draft/2020-12/schema"
_VOCAB = "https://json-schema.org/draft/2020-12/vocab/"
# The keywords each draft 2020-12 vocabulary defines that the compiler asserts (Core §8; the
# applicator §10, unevaluated §11 and validation §6 vocabularies of the Validation spec). The
# core vocabulary is always in force; meta-data, format-annotation and content only annotate.
VOCABULARY_KEYWORDS: dict[str, frozenset[str]] = {
    _VOCAB + "applicator": frozenset({
        "prefixItems", "items", "contains", "additionalProperties", "properties", "patternProperties",
        "dependentSchemas", "propertyNames", "if", "then", "else", "allOf", "anyOf", "oneOf", "not",
        "dependencies",
    }),
    _VOCAB + "unevaluated": frozenset({"unevaluatedItems", "unevaluatedProperties"}),
    _VOCAB + "validation": frozenset({
        "type", "const", "enum", "multipleOf", "maximum", "exclusiveMaximum", "minimum", "exclusiveMinimum",
        "maxLength", "minLength", "pattern", "maxItems", "minItems", "uniqueItems", "maxContains",
        "minContains", "maxProperties", "minProperties", "required", "dependentRequired", "dependencies",
    }),
}
_ANNOTATION_VOCABULARIES = frozenset({_VOCAB + "core", _VOCAB + "meta-data", _VOCAB + "format-annotation", _VOCAB + "content"})
INTEGER_FORMATS = {"uint32": (0, 2**32 - 1), "uint": (0, 2**64 - 1), "uint64": (0, 2**64 - 1), "int32": (-(2**31), 2**31 - 1), "int64": (-(2**63), 2**63 - 1)}
"""codegen.bindings.INTEGER_FORMATS: the formats that assert."""

SINGLE = ("additionalProperties", "unevaluatedProperties", "items", "unevaluatedItems", "contains", "propertyNames", "not", "if", "then", "else")
MAPS = ("properties", "patternProperties", "$defs", "definitions", "dependentSchemas")
LISTS = ("allOf", "anyOf", "oneOf", "prefixItems")
JSON_TYPES = ("null", "boolean", "integer", "number", "string", "array", "object")
TYPE_TESTS = {
    "null": "v is None",
    "boolean": "(v is True or v is False)",
    "integer": "(type(v) is int or (type(v) is float and v.is_integer()))",
    "number": "(type(v) is int or type(v) is float)",
    "string": "type(v) is str",
    "array": "type(v) is list",
    "object": "type(v) is dict",
}
NUMBER_KEYWORDS = ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf")
COUNT_KEYWORDS = ("minLength", "maxLength", "minItems", "maxItems", "minProperties", "maxProperties", "minContains", "maxContains")



def _official(uri: str) -> Any:
    """The json-schema.org document at ``uri`` (the draft metaschemas and their vocabulary
    metaschemas), from the jsonschema-specifications package; None when it holds none."""
    if not uri.startswith("https://json-schema.org/"):
        return None
    try:
        import jsonschema_specifications
    except ImportError:  # pragma: no cover - the codegen extra installs it
        return None
    try:
        return jsonschema_specifications.REGISTRY.contents(uri)
    except LookupError:
        return None


def _json_type_name(v: Any) -> str:
    return "boolean" if isinstance(v, bool) else "null" if v is None else "integer" if isinstance(v, int) else "number" if isinstance(v, float) else "string" if isinstance(v, str) else "array" if isinstance(v, list) else "object"


def join(base: str, ref: str) -> str:
    """``ref`` resolved against ``base`` (RFC 3986), for URN bases too."""
    if re.match(r"[A-Za-z][A-Za-z0-9+.\-]*:", ref):
        return ref
    if ref.startswith("#"):
        return base.partition("#")[0] + ref
    scheme = urllib.parse.urlsplit(base).scheme
    if scheme not in urllib.parse.uses_relative:
        if not ref:
            return base.partition("#")[0]
        raise SchemaError(f"$ref {ref!r}: cannot be resolved against the non-hierarchical base {base!r}")
    return urllib.parse.urljoin(base, ref)


def _no_fragment(uri: str) -> str:
    return uri[:-1] if uri.endswith("#") else uri


def _unescape(token: str) -> str:
    return urllib.parse.unquote(token).replace("~1", "/").replace("~0", "~")


def _pointer_name(pointer: str) -> str:
    name = re.sub(r"[^0-9A-Za-z]+", "_", pointer.replace("$", "")).strip("_")
    return name or "root"


@dataclass
class _Function:
    name: str
    pointer: str
    lines: list[str] = field(default_factory=list)


class ValidatorCompiler:
    """Compiles one document (and the remote documents it references) into validation functions.

    Parameters
    ----------
    raw:
        The document (a dict or a boolean).
    base:
        Its retrieval URI (its ``$id`` takes precedence, resolved against it).
    remotes:
        Absolute URI -> schema, for references outside the document (a ``file:`` URI that
        ``remotes`` does not hold is read from disk).
    """

    def __init__(self, raw: Any, base: str, remotes: dict[str, Any] | None = None) -> None:
        self.raw = raw
        self.remotes = dict(remotes or {})
        self.resources: dict[str, Any] = {}
        self.anchors: dict[str, Any] = {}
        self.dynamic_anchors: dict[str, set[str]] = {}
        self.base_of: dict[int, str] = {}
        self.pointer_of: dict[int, str] = {}
        self.keep: list[Any] = []  # every indexed schema stays alive (base_of is keyed by id)
        self.ignored: dict[int, frozenset[str]] = {}  # keywords of vocabularies a `$schema` leaves out
        self.functions: dict[tuple[Any, ...], _Function] = {}
        self.order: list[_Function] = []
        self.names: set[str] = set()
        self.constants: list[str] = []
        self._constant_of: dict[str, str] = {}
        self.pending: list[tuple[_Function, Any, str, tuple[tuple[str, str], ...]]] = []
        self.annotate = False
        self.root_base = self._index_document(raw, _no_fragment(base), "#")
        self.annotate = self._uses_unevaluated()

    # ------------------------------------------------------------------ index
    def _index_document(self, raw: Any, uri: str, pointer: str) -> str:
        self.resources.setdefault(uri, raw)
        self._index(raw, uri, pointer, frozenset())
        if isinstance(raw, dict) and isinstance(raw.get("$id"), str):
            return _no_fragment(join(uri, raw["$id"]))
        return uri

    def _ignored_by(self, metaschema: Any, pointer: str) -> frozenset[str]:
        """The keywords a resource's ``$schema`` leaves out: those of the draft 2020-12
        vocabularies its metaschema's ``$vocabulary`` does not list (Core §8.1.2).

        Raises SchemaError for a metaschema of another draft, one that requires a vocabulary the
        compiler does not know (an optional one is ignored, as §8.1.2 says), one that uses
        format-assertion (formats are not asserted), or one it cannot read."""
        if not isinstance(metaschema, str):
            raise SchemaError(f"{pointer}/$schema: a URI is expected")
        uri = _no_fragment(metaschema)
        if uri == DRAFT_2020_12:
            return frozenset()
        raw = self.resources.get(uri, self.remotes.get(uri)) or _official(uri)
        if not isinstance(raw, dict) or _no_fragment(str(raw.get("$schema", DRAFT_2020_12))) != DRAFT_2020_12:
            raise SchemaError(f"{pointer}/$schema: {metaschema!r} is not draft 2020-12 nor a known metaschema written in it")
        vocabularies = raw.get("$vocabulary")
        if not isinstance(vocabularies, dict):
            return frozenset()  # no $vocabulary: the default, every draft 2020-12 vocabulary
        if _VOCAB + "format-assertion" in vocabularies:  # known, so in force even when optional (§8.1.2)
            raise SchemaError(f"{pointer}/$schema: its metaschema uses the format-assertion vocabulary; the compiler reads `format` as an annotation only")
        for name, required in vocabularies.items():
            if required is True and name not in VOCABULARY_KEYWORDS and name not in _ANNOTATION_VOCABULARIES:
                raise SchemaError(f"{pointer}/$schema: its metaschema requires the vocabulary {name!r}, which the compiler does not know")
        used = {name for name in vocabularies if name in VOCABULARY_KEYWORDS}
        return frozenset().union(*(words for name, words in VOCABULARY_KEYWORDS.items() if name not in used)) - frozenset().union(
            *(VOCABULARY_KEYWORDS[name] for name in used)
        )

    def _index(self, schema: Any, base: str, pointer: str, ignored: frozenset[str]) -> None:
        if isinstance(schema, bool):
            return
        if not isinstance(schema, dict):
            raise SchemaError(f"{pointer}: a schema is an object or a boolean, not {_json_type_name(schema)}")
        if "$schema" in schema:
            ignored = self._ignored_by(schema["$schema"], pointer)
        if ignored:
            self.ignored[id(schema)] = ignored
        if isinstance(schema.get("$id"), str):
            base = _no_fragment(join(base, schema["$id"]))
            if "#" in base:
                raise SchemaError(f"{pointer}/$id: {schema['$id']!r} holds a fragment")
            self.resources[base] = schema
        self.keep.append(schema)
        self.base_of[id(schema)] = base
        self.pointer_of.setdefault(id(schema), pointer)
        if isinstance(schema.get("$anchor"), str):
            self.anchors[f"{base}#{schema['$anchor']}"] = schema
        if isinstance(schema.get("$dynamicAnchor"), str):
            self.anchors.setdefault(f"{base}#{schema['$dynamicAnchor']}", schema)
            self.dynamic_anchors.setdefault(base, set()).add(schema["$dynamicAnchor"])
        for key in SINGLE:
            if key in schema:
                self._index(schema[key], base, f"{pointer}/{key}", ignored)
        for key in MAPS:
            if key in schema:
                if not isinstance(schema[key], dict):
                    raise SchemaError(f"{pointer}/{key}: an object of schemas is expected")
                for name, sub in schema[key].items():
                    self._index(sub, base, f"{pointer}/{key}/{_escape(name)}", ignored)
        if isinstance(schema.get("dependencies"), dict):  # draft 7's dependentRequired + dependentSchemas
            for name, sub in schema["dependencies"].items():
                if not isinstance(sub, list):
                    self._index(sub, base, f"{pointer}/dependencies/{_escape(name)}", ignored)
        for key in LISTS:
            if key in schema:
                if not isinstance(schema[key], list) or not schema[key]:
                    raise SchemaError(f"{pointer}/{key}: a non-empty array of schemas is expected")
                for i, sub in enumerate(schema[key]):
                    self._index(sub, base, f"{pointer}/{key}/{i}", ignored)

    def _uses_unevaluated(self) -> bool:
        return any(isinstance(s, dict) and ("unevaluatedProperties" in s or "unevaluatedItems" in s) for s in self.keep)

    def _resource(self, uri: str, where: str) -> Any:
        if uri in self.resources:
            return self.resources[uri]
        raw = self.remotes.get(uri)
        if raw is None and uri.startswith("file:"):
            path = Path(urllib.parse.unquote(urllib.parse.urlsplit(uri).path))
            if path.is_file():
                raw = json.loads(path.read_text(encoding="utf-8"))
        if raw is None:
            raw = _official(uri)
        if raw is None:
            raise SchemaError(f"{where}: the reference names {uri!r}, which is neither in the document nor a known remote")
        was_annotating = self.annotate
        self._index_document(raw, uri, uri + "#")
        self.annotate = was_annotating or self._uses_unevaluated()
        if self.annotate and not was_annotating and self.order:
            raise _Restart()
        return raw

    def resolve(self, ref: str, base: str, where: str) -> tuple[Any, str]:
        """The schema a reference names and its base URI."""
        uri = join(base, ref)
        resource_uri, _, fragment = uri.partition("#")
        resource = self._resource(resource_uri, where)
        if not fragment:
            return resource, self.base_of.get(id(resource), resource_uri) if isinstance(resource, dict) else resource_uri
        if fragment.startswith("/"):
            node = resource
            for token in fragment.split("/")[1:]:
                key = _unescape(token)
                if isinstance(node, dict) and key in node:
                    node = node[key]
                elif isinstance(node, list) and key.isdigit() and int(key) < len(node):
                    node = node[int(key)]
                else:
                    raise SchemaError(f"{where}: the JSON pointer {fragment!r} names nothing in {resource_uri!r}")
            if isinstance(node, dict) and id(node) not in self.base_of:
                self._index(node, resource_uri, f"{resource_uri}#{fragment}", self.ignored.get(id(resource), frozenset()))
            return node, self.base_of.get(id(node), resource_uri) if isinstance(node, dict) else resource_uri
        anchor = f"{resource_uri}#{urllib.parse.unquote(fragment)}"
        if anchor not in self.anchors:
            raise SchemaError(f"{where}: no $anchor {fragment!r} in {resource_uri!r}")
        node = self.anchors[anchor]
        return node, self.base_of[id(node)]

    # --------------------------------------------------------------- compile
    def function(self, schema: Any, base: str, dyn: tuple[tuple[str, str], ...], pointer: str) -> str:
        """The name of the function checking ``schema`` (compiled once per base and dynamic
        scope)."""
        if self.dynamic_anchors.get(base):  # evaluating this schema enters its resource's scope
            known = {name for name, _ in dyn}
            added = tuple((name, base) for name in sorted(self.dynamic_anchors.get(base, ())) if name not in known)
            dyn = tuple(sorted(dyn + added))
        key = (id(schema) if isinstance(schema, dict) else schema, base, dyn)
        found = self.functions.get(key)
        if found is not None:
            return found.name
        stem = "_v_" + (_pointer_name(pointer) if not isinstance(schema, bool) else str(schema).lower())
        name, n = stem, 1
        while name in self.names:
            n += 1
            name = f"{stem}_{n}"
        self.names.add(name)
        fn = _Function(name, pointer)
        self.functions[key] = fn
        self.order.append(fn)
        self.pending.append((fn, schema, base, dyn))
        return name

    def compile_all(self, entries: dict[str | None, tuple[Any, str]]) -> dict[str | None, str]:
        """Entry name -> function, for each (schema, pointer) of ``entries``; compiles every
        function they reach."""
        found = {}
        for entry, (schema, pointer) in entries.items():
            base = self.base_of.get(id(schema), self.root_base) if isinstance(schema, dict) else self.root_base
            dyn = self._scope_for(schema, base)
            found[entry] = self.function(schema, base, dyn, pointer)
        while self.pending:
            fn, schema, base, dyn = self.pending.pop()
            fn.lines = self._body(schema, base, dyn, fn.pointer)
        self._check_cycles()
        return found

    def _scope_for(self, schema: Any, base: str) -> tuple[tuple[str, str], ...]:
        """The dynamic scope of an entry: the document root's resource, then the entry's own."""
        dyn: list[tuple[str, str]] = []
        for uri in (self.root_base, base):
            for name in sorted(self.dynamic_anchors.get(uri, ())):
                if name not in {n for n, _ in dyn}:
                    dyn.append((name, uri))
        return tuple(sorted(dyn))

    def constant(self, expr: str) -> str:
        if expr in self._constant_of:
            return self._constant_of[expr]
        name = f"_C{len(self.constants)}"
        self._constant_of[expr] = name
        self.constants.append(f"{name} = {expr}")
        return name

    def regex(self, pattern: Any, where: str) -> str:
        if not isinstance(pattern, str):
            raise SchemaError(f"{where}: a pattern is a string")
        try:
            python = translate(pattern)
        except UnsupportedPattern as exc:
            raise SchemaError(f"{where}: the pattern {pattern!r} has no exact Python equivalent ({exc})") from None
        return self.constant(f"re.compile({python!r})")

    # ------------------------------------------------------------------ body
    def _body(self, schema: Any, base: str, dyn: tuple[tuple[str, str], ...], pointer: str) -> list[str]:
        ann = self.annotate
        out: list[str] = []
        if schema is True or schema == {}:
            return out
        if schema is False:
            return ['raise RuleViolation("false", "no value is allowed here (the schema is false)", p)']
        s: dict[str, Any] = schema
        if id(schema) in self.ignored:  # keywords of a vocabulary the resource's $schema leaves out
            s = {key: value for key, value in schema.items() if key not in self.ignored[id(schema)]}

        def sub(child: Any, at: str, child_base: str | None = None) -> str:
            b = child_base if child_base is not None else (self.base_of.get(id(child), base) if isinstance(child, dict) else base)
            return self.function(child, b, dyn, at)

        def merged(call: str, indent: str = "") -> list[str]:
            if not ann:
                return [f"{indent}{call}"]
            return [f"{indent}_a = {call}", f"{indent}ep |= _a[0]", f"{indent}ei |= _a[1]"]

        # in-place references
        if "$ref" in s:
            ref = _string(s, "$ref", pointer)
            target, target_base = self.resolve(ref, base, f"{pointer}/$ref")
            out += merged(f"{sub(target, self.pointer_of.get(id(target), pointer + '/$ref'), target_base)}(v, p)")
        if "$dynamicRef" in s:
            ref = _string(s, "$dynamicRef", pointer)
            target, target_base = self.resolve(ref, base, f"{pointer}/$dynamicRef")
            fragment = join(base, ref).partition("#")[2]
            if isinstance(target, dict) and fragment and not fragment.startswith("/") and target.get("$dynamicAnchor") == fragment:
                outer = dict(dyn).get(fragment)
                if outer is not None:
                    target, target_base = self.resolve("#" + fragment, outer, f"{pointer}/$dynamicRef")
            out += merged(f"{sub(target, self.pointer_of.get(id(target), pointer + '/$dynamicRef'), target_base)}(v, p)")

        if "type" in s:
            types = s["type"] if isinstance(s["type"], list) else [s["type"]]
            if not types or any(t not in JSON_TYPES for t in types):
                raise SchemaError(f"{pointer}/type: {s['type']!r} is not a JSON type or a list of them")
            test = " or ".join(TYPE_TESTS[t] for t in dict.fromkeys(types))
            want = " or ".join(dict.fromkeys(types))
            out += [f"if not ({test}):", f"    raise RuleViolation(\"type\", {('expected ' + want)!r}, p)"]
        if "const" in s:
            c = self.constant(f"_key({_literal(s['const'])})")
            out += [f"if _key(v) != {c}:", '    raise RuleViolation("const", "the value is not the schema\'s const", p)']
        if "enum" in s:
            if not isinstance(s["enum"], list):
                raise SchemaError(f"{pointer}/enum: an array is expected")
            c = self.constant(f"frozenset(map(_key, {_literal(s['enum'])}))")
            out += [f"if _key(v) not in {c}:", '    raise RuleViolation("enum", "the value is not one of the schema\'s enum", p)']

        for kw in NUMBER_KEYWORDS + COUNT_KEYWORDS:
            if kw in s:
                value = s[kw]
                if isinstance(value, bool) or not isinstance(value, (int, float)):
                    raise SchemaError(f"{pointer}/{kw}: a number is expected, not {_json_type_name(value)}")
                if kw in COUNT_KEYWORDS and (value < 0 or value != int(value)):
                    raise SchemaError(f"{pointer}/{kw}: a non-negative integer is expected")
                if kw == "multipleOf" and value <= 0:
                    raise SchemaError(f"{pointer}/{kw}: a number above 0 is expected")

        number: list[str] = []
        for kw, op in (("minimum", "<"), ("maximum", ">"), ("exclusiveMinimum", "<="), ("exclusiveMaximum", ">=")):
            if kw in s:
                number += [f"if v {op} {s[kw]!r}:", f"    raise RuleViolation({kw!r}, {(kw + ' is ' + repr(s[kw]))!r}, p)"]
        if "multipleOf" in s:
            m = s["multipleOf"]
            c = self.constant(f"Fraction({m!r})" if isinstance(m, int) else f"Fraction({repr(m)!r})")
            number += [f"if not _multiple_of(v, {c}):", f"    raise RuleViolation(\"multipleOf\", {('not a multiple of ' + repr(m))!r}, p)"]
        fmt = s.get("format")
        if fmt in INTEGER_FORMATS:
            low, high = INTEGER_FORMATS[fmt]
            number += [
                f"if (type(v) is int or v.is_integer()) and not ({low} <= v <= {high}):",
                f"    raise RuleViolation(\"format\", {('out of the range of ' + fmt)!r}, p)",
            ]
        if number:
            out += ["if type(v) is int or type(v) is float:"] + _indent(number)

        string: list[str] = []
        if "minLength" in s:
            string += [f"if len(v) < {int(s['minLength'])}:", f"    raise RuleViolation(\"minLength\", \"shorter than {int(s['minLength'])} characters\", p)"]
        if "maxLength" in s:
            string += [f"if len(v) > {int(s['maxLength'])}:", f"    raise RuleViolation(\"maxLength\", \"longer than {int(s['maxLength'])} characters\", p)"]
        if "pattern" in s:
            r = self.regex(s["pattern"], f"{pointer}/pattern")
            string += [f"if {r}.search(v) is None:", f"    raise RuleViolation(\"pattern\", {('does not match ' + repr(s['pattern']))!r}, p)"]
        if string:
            out += ["if type(v) is str:"] + _indent(string)

        out += self._array(s, base, dyn, pointer, sub)
        out += self._object(s, base, dyn, pointer, sub, merged)

        # in-place applicators
        if "allOf" in s:
            for i, child in enumerate(s["allOf"]):
                out += merged(f"{sub(child, f'{pointer}/allOf/{i}')}(v, p)")
        if "anyOf" in s:
            calls = [sub(child, f"{pointer}/anyOf/{i}") for i, child in enumerate(s["anyOf"])]
            if ann:
                out.append("_n = 0")
                for call in calls:
                    out += [f"_a = _evaluated({call}, v, p)", "if _a is not None:", "    _n += 1", "    ep |= _a[0]", "    ei |= _a[1]"]
                out += ["if not _n:", '    raise RuleViolation("anyOf", "no branch of anyOf accepts the value", p)']
            else:
                out += [f"if not ({' or '.join(f'_ok({c}, v, p)' for c in calls)}):", '    raise RuleViolation("anyOf", "no branch of anyOf accepts the value", p)']
        if "oneOf" in s:
            calls = [sub(child, f"{pointer}/oneOf/{i}") for i, child in enumerate(s["oneOf"])]
            if ann:
                out += ["_n = 0", "_one = None"]
                for call in calls:
                    out += [f"_a = _evaluated({call}, v, p)", "if _a is not None:", "    _n += 1", "    _one = _a"]
                out += ["if _n != 1:", '    raise RuleViolation("oneOf", f"{_n} branches of oneOf accept the value, not one", p)', "ep |= _one[0]", "ei |= _one[1]"]
            else:
                out += [f"_n = {' + '.join(f'_ok({c}, v, p)' for c in calls)}", "if _n != 1:", '    raise RuleViolation("oneOf", f"{_n} branches of oneOf accept the value, not one", p)']
        if "not" in s:
            out += [f"if _ok({sub(s['not'], pointer + '/not')}, v, p):", '    raise RuleViolation("not", "the value matches the schema of not", p)']
        if "if" in s and ("then" in s or "else" in s or ann):
            test = sub(s["if"], pointer + "/if")
            then = sub(s["then"], pointer + "/then") if "then" in s else None
            other = sub(s["else"], pointer + "/else") if "else" in s else None
            if ann:
                out += [f"_a = _evaluated({test}, v, p)", "if _a is not None:", "    ep |= _a[0]", "    ei |= _a[1]"]
                out += merged(f"{then}(v, p)", "    ") if then else []
                out += (["else:"] + merged(f"{other}(v, p)", "    ")) if other else []
            else:
                out += [f"if _ok({test}, v, p):", f"    {then}(v, p)" if then else "    pass"]
                out += ["else:", f"    {other}(v, p)"] if other else []

        # unevaluated*, after every other keyword
        if "unevaluatedItems" in s:
            child = s["unevaluatedItems"]
            body = ["for _i in range(len(v)):", "    if _i not in ei:"]
            if child is False:
                body += ['        raise RuleViolation("unevaluatedItems", "an item no keyword evaluates is not allowed", f"{p}[{_i}]")']
            else:
                body += [f"        {sub(child, pointer + '/unevaluatedItems')}(v[_i], f\"{{p}}[{{_i}}]\")", "        ei.add(_i)"]
            out += ["if type(v) is list:"] + _indent(body)
        if "unevaluatedProperties" in s:
            child = s["unevaluatedProperties"]
            body = ["for _k, _x in v.items():", "    if _k not in ep:"]
            if child is False:
                body += ['        raise RuleViolation("unevaluatedProperties", "a member no keyword evaluates is not allowed", member(p, _k))']
            else:
                body += [f"        {sub(child, pointer + '/unevaluatedProperties')}(_x, member(p, _k))", "        ep.add(_k)"]
            out += ["if type(v) is dict:"] + _indent(body)
        if ann:
            out = ["ep = set()", "ei = set()"] + out + ["return ep, ei"]
        return out

    def _array(self, s: dict[str, Any], base: str, dyn: Any, pointer: str, sub: Any) -> list[str]:
        ann = self.annotate
        body: list[str] = []
        if "minItems" in s:
            body += [f"if len(v) < {int(s['minItems'])}:", f"    raise RuleViolation(\"minItems\", \"fewer than {int(s['minItems'])} items\", p)"]
        if "maxItems" in s:
            body += [f"if len(v) > {int(s['maxItems'])}:", f"    raise RuleViolation(\"maxItems\", \"more than {int(s['maxItems'])} items\", p)"]
        if s.get("uniqueItems") is True:
            body += ["if len(set(map(_key, v))) != len(v):", '    raise RuleViolation("uniqueItems", "two items are equal", p)']
        prefix = s.get("prefixItems", [])
        for i, child in enumerate(prefix):
            body += [f"if len(v) > {i}:", f"    {sub(child, f'{pointer}/prefixItems/{i}')}(v[{i}], p + \"[{i}]\")"]
        if prefix and ann:
            body += [f"ei.update(range(min(len(v), {len(prefix)})))"]
        if "items" in s:
            child = s["items"]
            if child is False:
                body += [f"if len(v) > {len(prefix)}:", f"    raise RuleViolation(\"items\", \"more than {len(prefix)} items\", p)"]
            elif not (child is True or child == {}):
                body += [f"for _i in range({len(prefix)}, len(v)):", f"    {sub(child, pointer + '/items')}(v[_i], f\"{{p}}[{{_i}}]\")"]
            if ann:
                body += ["ei.update(range(len(v)))"]
        if "contains" in s:
            check = sub(s["contains"], pointer + "/contains")
            low = int(s.get("minContains", 1))
            high = s.get("maxContains")
            body += ["_n = 0", "for _i, _x in enumerate(v):", f"    if _ok({check}, _x, f\"{{p}}[{{_i}}]\"):", "        _n += 1"]
            if ann:
                body += ["        ei.add(_i)"]
            if low:
                body += [f"if _n < {low}:", f"    raise RuleViolation({'contains' if 'minContains' not in s else 'minContains'!r}, \"fewer than {low} items match contains\", p)"]
            if high is not None:
                body += [f"if _n > {int(high)}:", f"    raise RuleViolation(\"maxContains\", \"more than {int(high)} items match contains\", p)"]
        return ["if type(v) is list:"] + _indent(body) if body else []

    def _object(self, s: dict[str, Any], base: str, dyn: Any, pointer: str, sub: Any, merged: Any) -> list[str]:
        ann = self.annotate
        body: list[str] = []
        if "required" in s:
            names = s["required"]
            if not isinstance(names, list) or not all(isinstance(n, str) for n in names):
                raise SchemaError(f"{pointer}/required: an array of strings is expected")
            for n in dict.fromkeys(names):
                body += [f"if {n!r} not in v:", f"    raise RuleViolation(\"required\", {('the required property ' + json.dumps(n) + ' is missing')!r}, p)"]
        if "minProperties" in s:
            body += [f"if len(v) < {int(s['minProperties'])}:", f"    raise RuleViolation(\"minProperties\", \"fewer than {int(s['minProperties'])} members\", p)"]
        if "maxProperties" in s:
            body += [f"if len(v) > {int(s['maxProperties'])}:", f"    raise RuleViolation(\"maxProperties\", \"more than {int(s['maxProperties'])} members\", p)"]
        legacy = s.get("dependencies") if isinstance(s.get("dependencies"), dict) else {}
        if "dependentRequired" in s or any(isinstance(x, list) for x in legacy.values()):
            deps = dict(s.get("dependentRequired", {}), **{n: x for n, x in legacy.items() if isinstance(x, list)})
            if not isinstance(deps, dict):
                raise SchemaError(f"{pointer}/dependentRequired: an object is expected")
            for n, needs in deps.items():
                if not isinstance(needs, list) or not all(isinstance(x, str) for x in needs):
                    raise SchemaError(f"{pointer}/dependentRequired/{_escape(n)}: an array of strings is expected")
                if needs:
                    body += [f"if {n!r} in v:"]
                    for x in needs:
                        body += [f"    if {x!r} not in v:", f"        raise RuleViolation(\"dependentRequired\", {(json.dumps(n) + ' requires ' + json.dumps(x))!r}, p)"]
        props = s.get("properties", {})
        for n, child in props.items():
            if child is True or child == {}:
                continue
            body += [f"if {n!r} in v:", f"    {sub(child, f'{pointer}/properties/{_escape(n)}')}(v[{n!r}], member(p, {n!r}))"]
        if props and ann:
            body += [f"ep.update(_k for _k in {self.constant(repr(tuple(props)))} if _k in v)"]
        patterns = s.get("patternProperties", {})
        regexes = {}
        for pat, child in patterns.items():
            r = regexes[pat] = self.regex(pat, f"{pointer}/patternProperties/{_escape(pat)}")
            check = sub(child, f"{pointer}/patternProperties/{_escape(pat)}")
            body += ["for _k, _x in v.items():", f"    if {r}.search(_k) is not None:", f"        {check}(_x, member(p, _k))"]
            if ann:
                body += ["        ep.add(_k)"]
        if "additionalProperties" in s:
            child = s["additionalProperties"]
            tests = []
            if props:
                tests.append(f"_k not in {self.constant(repr(frozenset(props)))}")
            tests += [f"{r}.search(_k) is None" for r in regexes.values()]
            cond = " and ".join(tests) or "True"
            if child is False:
                act = ['        raise RuleViolation("additionalProperties", "this member is not allowed", member(p, _k))']
            elif child is True or child == {}:
                act = ["        ep.add(_k)"] if ann else []
            else:
                act = [f"        {sub(child, pointer + '/additionalProperties')}(_x, member(p, _k))"] + (["        ep.add(_k)"] if ann else [])
            if act:
                body += ["for _k, _x in v.items():", f"    if {cond}:"] + act
        if "propertyNames" in s and not (s["propertyNames"] is True or s["propertyNames"] == {}):
            check = sub(s["propertyNames"], pointer + "/propertyNames")
            body += ["for _k in v:", f"    {check}(_k, member(p, _k))"]
        schemas = [("dependentSchemas", n, x) for n, x in s.get("dependentSchemas", {}).items()]
        schemas += [("dependencies", n, x) for n, x in legacy.items() if not isinstance(x, list)]
        for kw, n, child in schemas:
            body += [f"if {n!r} in v:"] + merged(f"{sub(child, f'{pointer}/{kw}/{_escape(n)}')}(v, p)", "    ")
        return ["if type(v) is dict:"] + _indent(body) if body else []

    def _check_cycles(self) -> None:
        """A function that calls itself in place (through $ref, allOf, ... on the same value)
        never ends: refused."""
        calls: dict[str, set[str]] = {}
        in_place = re.compile(r"(_v_\w+)\(v, p\)|_(?:ok|evaluated)\((_v_\w+), v, p\)")
        for fn in self.order:
            calls[fn.name] = {a or b for line in fn.lines for a, b in in_place.findall(line)}
        state: dict[str, int] = {}

        def visit(name: str) -> None:
            state[name] = 1
            for callee in calls.get(name, ()):
                if state.get(callee) == 1:
                    fn = next(f for f in self.order if f.name == callee)
                    raise SchemaError(f"{fn.pointer}: the schema refers to itself in place ($ref, allOf, ... on the same value), so checking it would never end")
                if callee not in state:
                    visit(callee)
            state[name] = 2

        for fn in self.order:
            if fn.name not in state:
                visit(fn.name)


class _Restart(Exception):
    """A remote document uses unevaluated*: every function must collect annotations."""


def _escape(token: str) -> str:
    return token.replace("~", "~0").replace("/", "~1")


def _string(s: dict[str, Any], key: str, pointer: str) -> str:
    if not isinstance(s[key], str):
        raise SchemaError(f"{pointer}/{key}: a string is expected")
    return s[key]


def _literal(value: Any) -> str:
    """A Python expression for a JSON value."""
    return repr(value)


def _indent(lines: list[str], by: str = "    ") -> list[str]:
    return [by + line for line in lines]


def definitions_of(raw: Any) -> dict[str, str]:
    """Definition name -> its JSON pointer, for ``$defs`` (or ``definitions``) of the root."""
    if not isinstance(raw, dict):
        return {}
    key = "$defs" if "$defs" in raw else "definitions"
    members = raw.get(key, {})
    return {name: f"#/{key}/{_escape(name)}" for name in members} if isinstance(members, dict) else {}


def render_validator_module(document: SchemaDocument, remotes: dict[str, Any] | None = None) -> str:
    """The source of a generated module whose types are plain JSON values (msgspec decodes
    into ``Any``) checked by validation functions compiled from ``document``; the same names
    as a module of msgspec Structs (ROOT, DECODE_TYPES, DECODE_CHECKS, PROTOCOL, ...), so
    lucent.decode reads it alike. Raises SchemaError."""
    raw = document.raw
    base = document.path.resolve().as_uri()
    for attempt in range(2):
        compiler = ValidatorCompiler(raw, base, remotes)
        if attempt:
            compiler.annotate = True
        entries: dict[str | None, tuple[Any, str]] = {None: (raw, "#")}
        defs_key = "$defs" if isinstance(raw, dict) and "$defs" in raw else "definitions"
        for name, pointer in definitions_of(raw).items():
            entries[name] = (raw[defs_key][name], pointer)
        try:
            names = compiler.compile_all(entries)
        except _Restart:
            continue
        except RecursionError:
            raise SchemaError("#: the schema nests too deeply to compile") from None
        break
    title = raw.get("title", document.stem) if isinstance(raw, dict) else document.stem
    draft = raw.get("$schema", "no $schema") if isinstance(raw, dict) else "no $schema"
    defs = [n for n in names if n is not None]
    labels: dict[str | None, str] = {}
    for entry in names:
        label = "_decoded_" + ("root" if entry is None else re.sub(r"\W", "_", entry))
        while label in labels.values():
            label += "_"
        labels[entry] = label
    lines = [
        f'"""Validation for {_doc_text(str(title))}.',
        "",
        f"Source: {document.path.name} ({_doc_text(str(draft))}).",
        "Generated by `python -m codegen`; do not edit. No msgspec type expresses this schema exactly:",
        "msgspec decodes a document into plain JSON values (dict, list, str, int, float, bool, None) and",
        "the functions below, compiled from the schema by codegen/validators.py, check it. A failed",
        "keyword raises RuleViolation(keyword, message, JSON path).",
        '"""',
        "",
        "from __future__ import annotations",
        "",
        "import re",
        "from fractions import Fraction",
        "from typing import Any",
        "",
        "from lucent._validation import RuleViolation, member",
        "from lucent._validation import evaluated as _evaluated, json_key as _key, multiple_of as _multiple_of, ok as _ok",
        "",
        "__all__ = ['DECODE_CHECKS', 'DECODE_TYPES', 'PROTOCOL', 'PROTOCOL_CHECKS', 'ROOT', 'ROOT_ONE_OF']",
        "",
    ]
    lines += compiler.constants + ["", ""] if compiler.constants else []
    for fn in sorted(compiler.order, key=lambda f: f.name):
        lines.append(f"def {fn.name}(v: Any, p: str) -> Any:")
        lines.append(f"    {_doc_text(fn.pointer)!r}")
        lines += _indent(fn.lines or (["return set(), set()"] if compiler.annotate else ["pass"]))
        lines += ["", ""]
    for entry, fn_name in names.items():
        lines += [f"def {labels[entry]}(value: Any) -> Any:", f"    {fn_name}(value, \"\")", "    return value", "", ""]
    lines += [
        "PROTOCOL: dict[str, Any] = {}",
        "",
        "DECODE_TYPES: dict[str, Any] = {" + ", ".join(f"{n!r}: Any" for n in defs) + "}",
        '"""Definition name -> the msgspec type decode reads it as (Any: plain JSON values)."""',
        "",
        "ROOT: Any = Any",
        '"""The msgspec type of the schema root."""',
        "",
        "ROOT_ONE_OF: tuple[str, ...] = ()",
        "",
        "DECODE_CHECKS: dict[str | None, Any] = {"
        + ", ".join(f"{e!r}: {labels[e]}" for e in names)
        + "}",
        '"""Definition name (None: the root) -> the function checking a decoded value."""',
        "",
        "PROTOCOL_CHECKS: dict[str, Any] = {}",
    ]
    return "\n".join(lines).rstrip() + "\n"


def _doc_text(text: str) -> str:
    return text.replace("\\", "\\\\").replace('"""', "'''").replace("\n", " ")
