"""Error details never echo secrets (SECURITY.md): a secret-looking value put anywhere in a
document, in a type the schema refuses, does not appear in ``str(error)``, ``repr(error)``,
``error.path``, a conversion diagnostic or a stream error. Property *names* are named in paths
(they locate the fault); values never are.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest

import lucent
from lucent._context import read_by
from lucent import streams
from lucent._convert import FORMATS as CONVERT_FORMATS
from lucent.errors import ConversionError, LucentError, StreamError, ValidationError
from tests.test_hostile_json_table import FORMATS, Format

SECRET = "sk-live-9f8e7d6c5b4a39281706"  # an API key's shape
WRONG = [{"api_key": SECRET}, [SECRET], SECRET, SECRET * 40, "\t" + SECRET, 17]
"""The secret in a wrong type, a wrong enum/const/pattern value, over a maxLength; and a number
(a string member that gets one)."""


def leaf_paths(value: Any, path: tuple[Any, ...] = ()) -> Iterator[tuple[Any, ...]]:
    if isinstance(value, dict):
        for key, item in value.items():
            yield from leaf_paths(item, (*path, key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from leaf_paths(item, (*path, index))
    elif path:
        yield path


def replaced(doc: Any, path: tuple[Any, ...], value: Any) -> bytes:
    copy = json.loads(json.dumps(doc))
    node = copy
    for key in path[:-1]:
        node = node[key]
    node[path[-1]] = value
    return json.dumps(copy).encode()


def error_text(error: LucentError) -> str:
    details = [getattr(d, "detail", "") + getattr(d, "field", "") for d in getattr(error, "diagnostics", [])]
    return " ".join([str(error), repr(error), error.path, error.message, *details])


@pytest.mark.parametrize("fmt", FORMATS, ids=str)
def test_decode_errors_never_echo_a_value(fmt: Format) -> None:
    refused = 0
    for path in leaf_paths(fmt.document):
        for value in WRONG:
            try:
                lucent.decode(replaced(fmt.document, path, value), fmt.schema, fmt.definition)
            except LucentError as error:
                refused += 1
                assert SECRET not in error_text(error), (path, value)
    assert refused > 0


def test_an_api_key_in_a_wrongly_typed_sparktide_field_is_not_in_the_error() -> None:
    request = json.loads(open("examples/sparktide-request.json", "rb").read())
    request["max_completion_tokens"] = f"Bearer {SECRET}"
    with pytest.raises(ValidationError) as raised:
        lucent.decode(json.dumps(request), "sparktide-remote-1.0", "RemoteModelRequest")
    assert (raised.value.code, raised.value.path) == ("type", "$.max_completion_tokens")
    assert SECRET not in str(raised.value) and "Bearer" not in str(raised.value)


@pytest.mark.parametrize("source", ["sparktide", "lux", "llm-sdk", "htmlp"])
def test_conversion_diagnostics_never_echo_a_value(source: str) -> None:
    fmt = next(f for f in FORMATS if f.schema == CONVERT_FORMATS[source])
    targets = [t for t in ("lux", "sparktide", "llm-sdk", "htmlp") if t != source]
    context = {"invocationId": "i", "deadline": 1, "purpose": "SYNTHETIC_PROBE", "appId": "a", "model": "m", "max_completion_tokens": 1, "stream": False}
    converted = 0
    for path in leaf_paths(fmt.document):
        for value in (SECRET, {"api_key": SECRET}):
            body = replaced(fmt.document, path, value)
            for target in targets:
                for strict in (False, True):
                    try:
                        result = lucent.convert(body, source, target, strict=strict, context=read_by(context, source, target))
                    except (ConversionError, ValidationError) as error:
                        assert SECRET not in error_text(error)
                        continue
                    converted += 1
                    assert all(SECRET not in d.detail + d.field for d in result.diagnostics)
    assert converted > 0


def test_stream_errors_never_echo_frame_values() -> None:
    bad_frame = b'data: {"protocolVersion":"1.0","type":"text.delta","text":{"api_key":"' + SECRET.encode() + b'"}}\n\n'
    with pytest.raises(StreamError) as raised:
        streams.assemble(bad_frame, "sparktide")
    assert raised.value.code == "invalid_frame" and SECRET not in error_text(raised.value)


def test_a_vendor_error_body_stays_on_the_error_not_in_its_message() -> None:
    body = json.dumps({"error": {"message": "invalid x-api-key", "key": SECRET}})
    events = [
        {"event": "conversation_start", "meta": {"id": "r", "model": "m"}},
        {"event": "error", "error": {"kind": "authentication", "message": body}},
        {"event": "done"},
    ]
    with pytest.raises(StreamError) as raised:
        streams.assemble(events, "lux")
    assert raised.value.code == "model_error"
    assert SECRET not in error_text(raised.value)
    assert raised.value.error.message == body  # the caller gets it as data, to handle as it must


@pytest.mark.parametrize(
    ("schema", "definition", "body"),
    [
        ("sparktide-remote-1.0", "RemoteModelRequest", '{"protocolVersion":"1.0","KEY":1}'),
        ("anthropic", "CreateMessageParams", '{"model":"m","max_tokens":1,"messages":[],"KEY":1}'),
    ],
)
def test_a_property_name_an_error_quotes_has_its_control_characters_escaped(schema: str, definition: str, body: str) -> None:
    hostile = body.replace("KEY", "a\\n\\u001b[31m\\u2028\\u202e").encode()
    with pytest.raises(lucent.errors.ValidationError) as info:
        lucent.decode(hostile, schema, definition)
    assert info.value.code == "additionalProperties"
    assert info.value.message == "Object contains unknown field `a\\n\\u001b[31m\\u2028\\u202e`"
