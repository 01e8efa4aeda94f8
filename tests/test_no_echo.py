"""No message lucent produces repeats a value of its input, and none holds a character that can
move a terminal or forge a log line (SECURITY.md, "What an error or a diagnostic may contain";
issue 14, classes 10 and 11).

The scan (:mod:`tests.no_echo`) plants a secret in every string position and in every wrongly
typed position of every seed document and stream event, once per shape, and runs each through
decode, every conversion and every stream entry point; it collects every error message, path,
``str`` and ``repr``, every diagnostic field and detail and every StreamError. The side-car
entries get the same treatment in tests/test_sidecar_types.py.
"""

from __future__ import annotations

import json
import sys
import unicodedata

import pytest

import lucent
from lucent._context import read_by
from lucent import streams
from lucent._best_error import segments
from lucent.errors import LucentError, StreamError, ValidationError
from lucent._validation import CONTROL_CHARACTERS, member, printable
from tests.conformance.paths import shared_dir
from tests.no_echo import HOSTILE_KEY, SECRET, Scan, documents, scan_documents, scan_streams, stream_seeds

ESCAPED_CATEGORIES = {"Cc", "Cf", "Cs", "Zl", "Zp"}


def test_printable_escapes_every_character_of_the_control_and_format_categories() -> None:
    matched = [cp for cp in range(sys.maxunicode + 1) if CONTROL_CHARACTERS.match(chr(cp))]
    categories = {unicodedata.category(chr(cp)) for cp in matched}
    assert categories <= ESCAPED_CATEGORIES | {"Cn"}  # Cn: Unicode 15.1 format controls this Python does not know yet
    missing = [hex(cp) for cp in range(sys.maxunicode + 1) if unicodedata.category(chr(cp)) in ESCAPED_CATEGORIES and cp not in set(matched)]
    assert missing == []
    # the classes of issue 14: C0, DEL, C1 (NEL), the bidirectional controls, line/paragraph separators
    for char in ["\x00", "\n", "\x1b", "\x7f", "\x85", "\x9b", "\u061c", "\u200e", "\u200f", "\u202a", "\u202e", "\u2066", "\u2069", "\u2028", "\u2029", "\ufeff", "\ud800", "\U000e0041"]:
        assert CONTROL_CHARACTERS.search(printable(f"a{char}b")) is None, hex(ord(char))


@pytest.mark.parametrize("text", ["a\nb", "\x1b[2J", "x\u202eevil", "\x85\u2028\u2029", "\ud800", "tag\U000e0041", "quote\"back\\slash", "plain é 城市"])
def test_printable_writes_json_escapes_that_read_back_and_is_idempotent(text: str) -> None:
    escaped = printable(text)
    assert printable(escaped) == escaped
    if '"' not in text and "\\" not in text:
        assert json.loads(f'"{escaped}"') == text  # a quoted path step stays a JSON string
    assert "é" in printable("é") and "城市" in printable("城市")  # letters are not escaped


@pytest.mark.parametrize("key", [HOSTILE_KEY, "a b", "é", "\ud800x", 'q"\\', "a\\u202e"])
def test_a_path_step_escapes_the_key_and_reads_back_as_it(key: str) -> None:
    path = member("$.a", key)
    assert CONTROL_CHARACTERS.search(path) is None
    assert segments(path) == ["a", key]


def test_an_error_escapes_its_message_and_path_whatever_builds_them() -> None:
    error = ValidationError("line\nforged \x1b[31m\u202e", code="x", path='$["k\u2028"]')
    assert (error.message, error.path) == ("line\\nforged \\u001b[31m\\u202e", '$["k\\u2028"]')
    assert CONTROL_CHARACTERS.search(str(error)) is None


def test_msgspec_never_quotes_a_refused_enum_const_or_tag_value() -> None:
    # a Chat role (a tag), a Gemini enum, an Anthropic const type
    bodies = [
        ("openai-chat", "CreateChatCompletionRequest", {"model": "m", "messages": [{"role": SECRET, "content": "x"}]}),
        ("gemini", "GenerateContentRequest", {"contents": [{"parts": [{"text": "x"}]}], "generationConfig": {"mediaResolution": SECRET}}),
        ("anthropic", "CreateMessageParams", {"model": "m", "max_tokens": 1, "messages": [{"role": "user", "content": [{"type": SECRET + "\n\x1b"}]}]}),
    ]
    for schema, definition, body in bodies:
        with pytest.raises(LucentError) as raised:
            lucent.decode(json.dumps(body), schema, definition)
        text = " ".join([raised.value.message, raised.value.path, str(raised.value), repr(raised.value)])
        assert SECRET not in text and CONTROL_CHARACTERS.search(text) is None, text


@pytest.mark.parametrize("event", [
    {"type": "ping", "extra\n\x1b[2J": SECRET},
    {"type": "error", "error": {"type": 5, "message": SECRET}},
    {"type": "error", "error": {"type": "overloaded_error", "message": SECRET}, SECRET: 1},
])
def test_anthropic_side_events_name_the_fault_without_msgspec_raw_text(event: dict[str, object]) -> None:
    with pytest.raises(StreamError) as raised:
        streams.assemble(b"data: " + json.dumps(event).encode() + b"\n\n", "anthropic")
    assert raised.value.code == "invalid_frame"
    text = raised.value.message + raised.value.path
    assert CONTROL_CHARACTERS.search(text) is None and SECRET not in text.replace(f"`{SECRET}`", "")  # a name may appear, escaped


@pytest.mark.parametrize("target", ["anthropic", "gemini"])
@pytest.mark.parametrize("arguments", [json.dumps([SECRET]), json.dumps(SECRET), "7", "null"])
def test_tool_arguments_that_are_json_but_not_an_object_are_named_by_their_type(target: str, arguments: str) -> None:
    chat = {"model": "m", "max_tokens": 5, "messages": [
        {"role": "user", "content": "x"},
        {"role": "assistant", "content": None, "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "f", "arguments": arguments}}]},
    ]}
    result = lucent.convert(json.dumps(chat), "openai-chat", target, context=read_by({"max_tokens": 5}, "openai-chat", target))
    found = [d for d in result.diagnostics if d.field.endswith("arguments")]
    assert found and all(d.status == "Invalid" for d in found)
    assert all(SECRET not in d.detail and "JSON text of" in d.detail for d in found), [d.detail for d in found]


def test_no_message_repeats_a_planted_value_or_holds_a_control_character() -> None:
    shared = shared_dir().is_dir()
    found = Scan()
    scan_documents(found, iter(documents(shared, per_definition=1)))
    scan_streams(found, stream_seeds(shared))
    summary = found.summary()
    assert found.runs > 60_000 and found.texts > 1_000_000, summary
    assert {"decode", "assemble anthropic", "convert openai-chat->anthropic", "convert_stream openai-responses->lux"} <= set(found.by_entry)
    assert (found.echoes, found.controls, dict(found.crashes)) == ([], [], {}), summary["first"]
