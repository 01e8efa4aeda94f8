"""The table of hostile JSON (issue 7, section 3): each row an input, accept or reject, and the
error code, for every format where the row applies.

A format is a schema of ``lucent.SCHEMAS`` and the document it decodes here (a request, or the
diagnostics report), with a small valid document, an integer member (its schema bound), a
string member, and an object that keeps any member and JSON value (when its schema has one: an
open Struct such as Gemini's drops the members it does not define without reading their values,
so it is not one). A row builds its
input from those; ``None`` as the expected code means the document is accepted.

JSON Schema sees the last of duplicate properties; SparkTide's protocol refuses them
(``codegen/protocols.toml``). Integers beyond int64 are JSON numbers: accepted where the schema
sets no bound (JSON Schema has no integer size), refused with the schema's own keyword where it
does (SparkTide's ``deadline`` maximum is 9223372036854775807).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

import lucent
from lucent.errors import DecodeError, LucentError, ValidationError

ROOT = Path(__file__).resolve().parent.parent


@dataclass(frozen=True)
class Format:
    schema: str
    definition: str | None
    document: dict[str, Any]
    integer: tuple[str, ...]  # path of an integer member
    integer_bound: tuple[int, str] | None  # its largest value and the keyword that sets it
    string: tuple[str, ...]  # path of a string member
    open_object: tuple[str, ...] | None  # path of an object that keeps any member and JSON value
    closed_root: bool  # the root object has additionalProperties: false

    def __str__(self) -> str:
        return self.schema


SPARKTIDE_REQUEST = json.loads((ROOT / "examples" / "sparktide-request.json").read_bytes())

FORMATS = [
    Format("sparktide-remote-1.0", "RemoteModelRequest", SPARKTIDE_REQUEST, ("deadline",), (9223372036854775807, "maximum"), ("messages", 0, "content"), None, True),
    Format("lux-ir-v1", "LucentRequest", {"schema_version": "v1", "model": "m", "conversation": [], "options": {"stream": False}, "extra": {}}, ("options", "max_output_tokens"), None, ("model",), ("extra",), False),
    Format("llm-sdk", "LanguageModelInput", {"messages": [{"role": "user", "content": [{"type": "text", "text": "hi"}]}], "extra": {}}, ("maxTokens",), None, ("messages", 0, "content", 0, "text"), ("extra",), True),
    Format("htmlp-model-request", None, {"fragments": [], "model": "m", "thinking_level": "off", "tools": [], "max_output_tokens": 5}, ("max_output_tokens",), (4294967295, "format"), ("model",), None, False),
    Format("lucent-diagnostics-v1", "DiagnosticReport", {"source": "a", "target": "b", "kind": "request", "diagnostics": []}, (), None, ("source",), None, True),
    Format("openai-chat", "CreateChatCompletionRequest", {"model": "m", "messages": [{"role": "user", "content": "hi"}], "metadata": {}}, ("max_completion_tokens",), None, ("model",), None, False),
    Format("openai-responses", "CreateResponse", {"model": "m", "input": "hi"}, ("max_output_tokens",), None, ("model",), None, False),
    Format("anthropic", "CreateMessageParams", {"model": "m", "max_tokens": 1, "messages": [{"role": "user", "content": "hi"}]}, ("max_tokens",), None, ("model",), None, True),
    Format("gemini", "GenerateContentRequest", {"contents": [{"role": "user", "parts": [{"text": "hi"}]}], "generationConfig": {}}, ("generationConfig", "maxOutputTokens"), (2147483647, "maximum"), ("contents", 0, "parts", 0, "text"), None, False),
]

_MARK = "\u0001MARK\u0001"


def with_raw(fmt: Format, path: tuple[Any, ...], raw: bytes) -> bytes:
    """The format's document with the member at ``path`` written as the raw JSON text ``raw``."""
    doc = json.loads(json.dumps(fmt.document))
    node = doc
    for key in path[:-1]:
        node = node[key]
    node[path[-1]] = _MARK
    text = json.dumps(doc, ensure_ascii=False).encode("utf-8")
    return text.replace(json.dumps(_MARK).encode(), raw, 1)


def valid(fmt: Format) -> bytes:
    return json.dumps(fmt.document).encode()


def decode(fmt: Format, data: bytes | str) -> Any:
    return lucent.decode(data, fmt.schema, fmt.definition)


# ------------------------------------------------------------------ the rows
#
# Each row: (name, build(fmt) -> bytes or None when it does not apply, expected(fmt) -> (error
# class, code, path) or None for accept).

MILLION = b"[" + b"0," * 999_999 + b"0]"


def _duplicate_first_key(fmt: Format) -> bytes:
    key, value = next(iter(fmt.document.items()))
    return b"{" + json.dumps(key).encode() + b":" + json.dumps(value).encode() + b"," + valid(fmt)[1:]


def _open(fmt: Format, raw: bytes) -> bytes | None:
    return None if fmt.open_object is None else with_raw(fmt, (*fmt.open_object, "x"), raw)


def _integer(fmt: Format, raw: bytes) -> bytes | None:
    return with_raw(fmt, fmt.integer, raw) if fmt.integer else None


def _over_int64(fmt: Format) -> tuple[type[LucentError], str, str] | None:
    if fmt.integer_bound is None:
        return None
    return ValidationError, fmt.integer_bound[1], "$." + ".".join(map(str, fmt.integer))


SPARKTIDE = "sparktide-remote-1.0"
DEEP = 100_000

ROWS: list[tuple[str, Any, Any]] = [
    ("duplicate key (same value)", _duplicate_first_key,
     lambda f: (ValidationError, "duplicate_key", "$." + next(iter(f.document))) if f.schema == SPARKTIDE else None),
    ("duplicate key in a nested object", lambda f: with_raw(f, f.string, b'"x"').replace(b'"' + f.string[-1].encode() + b'": "x"', b'"' + f.string[-1].encode() + b'": "y", "' + f.string[-1].encode() + b'": "x"') if isinstance(f.string[-1], str) else None,
     lambda f: (ValidationError, "duplicate_key", "$." + ".".join(f"{k}" if isinstance(k, str) else f"[{k}]" for k in f.string).replace(".[", "[")) if f.schema == SPARKTIDE else None),
    ("trailing data", lambda f: valid(f) + b" {}", lambda f: (DecodeError, "malformed_json", "$")),
    ("trailing whitespace", lambda f: valid(f) + b" \r\n\t", lambda f: None),
    ("NaN", lambda f: _integer(f, b"NaN"), lambda f: (DecodeError, "malformed_json", "$")),
    ("Infinity", lambda f: _integer(f, b"Infinity"), lambda f: (DecodeError, "malformed_json", "$")),
    ("-Infinity", lambda f: _integer(f, b"-Infinity"), lambda f: (DecodeError, "malformed_json", "$")),
    ("int64 maximum", lambda f: _integer(f, b"9223372036854775807"),
     lambda f: None if f.integer_bound is None or f.integer_bound[0] >= 2**63 - 1 else _over_int64(f)),
    ("int64 maximum + 1", lambda f: _integer(f, b"9223372036854775808"), _over_int64),
    ("2**64", lambda f: _integer(f, b"18446744073709551616"), _over_int64),
    ("huge float 1e400", lambda f: _integer(f, b"1e400"), lambda f: (ValidationError, "number_out_of_range", "$." + ".".join(f.integer))),
    ("huge float in an open value", lambda f: _open(f, b"-1e400"), lambda f: (ValidationError, "number_out_of_range", "$")),
    ("integer of 5000 digits", lambda f: _open(f, b"1" * 5000), lambda f: (ValidationError, "number_out_of_range", "$")),
    ("lone high surrogate", lambda f: with_raw(f, f.string, b'"a\\ud800b"'), lambda f: (DecodeError, "lone_surrogate", "$")),
    ("lone low surrogate", lambda f: with_raw(f, f.string, b'"\\udc00"'), lambda f: (DecodeError, "lone_surrogate", "$")),
    ("surrogate pair", lambda f: with_raw(f, f.string, b'"\\ud83d\\ude00"'), lambda f: None),
    ("invalid UTF-8 (lone continuation byte)", lambda f: with_raw(f, f.string, b'"a\x80"'), lambda f: (DecodeError, "invalid_utf8", "$")),
    ("invalid UTF-8 (surrogate encoded)", lambda f: with_raw(f, f.string, b'"\xed\xa0\x80"'), lambda f: (DecodeError, "invalid_utf8", "$")),
    ("invalid UTF-8 (overlong)", lambda f: with_raw(f, f.string, b'"\xc0\xaf"'), lambda f: (DecodeError, "invalid_utf8", "$")),
    ("BOM", lambda f: b"\xef\xbb\xbf" + valid(f), lambda f: (DecodeError, "malformed_json", "$")),
    (f"nesting {DEEP:,} deep at the root", lambda f: b"[" * DEEP + b"]" * DEEP, lambda f: (DecodeError, "max_depth", "$")),
    (f"nesting {DEEP:,} deep in a string member", lambda f: with_raw(f, f.string, b"[" * DEEP + b"]" * DEEP), lambda f: (DecodeError, "max_depth", "$")),
    (f"nesting {DEEP:,} deep, unclosed", lambda f: with_raw(f, f.string, b"{\"a\":" * DEEP), lambda f: (DecodeError, "max_depth", "$")),
    ("10^6 small items at the root", lambda f: MILLION,
     lambda f: (ValidationError, "max_body_bytes", "$") if f.schema == SPARKTIDE else (ValidationError, "type", "$")),
    ("10^6 small items in an open value", lambda f: _open(f, MILLION), lambda f: None),
    ("NUL in a key (escaped)", lambda f: b'{"a\\u0000b": 1, ' + valid(f)[1:], lambda f: (ValidationError, "additionalProperties", "$") if f.closed_root else None),
    ("NUL in a key (raw byte)", lambda f: b'{"a\x00b": 1, ' + valid(f)[1:], lambda f: (DecodeError, "malformed_json", "$")),
    ("NUL in a key of an open value", lambda f: None if f.open_object is None else with_raw(f, f.open_object, b'{"\\u0000": 1}'), lambda f: None),
    ("empty input", lambda f: b"", lambda f: (DecodeError, "malformed_json", "$")),
    ("whitespace-only body", lambda f: b" \t\r\n ", lambda f: (DecodeError, "malformed_json", "$")),
]

CELLS = [
    pytest.param(fmt, build, expected, id=f"{name} | {fmt.schema}")
    for name, build, expected in ROWS
    for fmt in FORMATS
    if build(fmt) is not None  # the row applies: the format has the member it needs
]


@pytest.mark.parametrize(("fmt", "build", "expected"), CELLS)
def test_hostile_json(fmt: Format, build: Any, expected: Any) -> None:
    data = build(fmt)
    want = expected(fmt)
    if want is None:
        assert decode(fmt, data) is not None
        return
    cls, code, path = want
    with pytest.raises(LucentError) as raised:
        decode(fmt, data)
    assert (type(raised.value), raised.value.code) == (cls, code)
    if path != "$" or cls is DecodeError:
        assert raised.value.path == path


def test_every_base_document_is_valid() -> None:
    """The rows that expect acceptance mean something only if the base documents decode."""
    for fmt in FORMATS:
        decode(fmt, valid(fmt))


def test_json_schema_sees_the_last_of_duplicate_properties() -> None:
    doc = b'{"model": "first", "model": "last", "input": "hi"}'
    assert lucent.decode(doc, "openai-responses", "CreateResponse").model == "last"


def test_a_million_items_in_an_open_value_keep_every_item() -> None:
    fmt = FORMATS[1]  # lux: extra takes any JSON value
    request = decode(fmt, _open(fmt, MILLION))
    assert len(request.extra["x"]) == 1_000_000


def test_the_row_table_covers_every_schema() -> None:
    assert {f.schema for f in FORMATS} == set(lucent.SCHEMAS)
