"""The caller's context: one name per value for documents and streams, a key no conversion reads
refused (``invalid_context``), and the keys each conversion reads declared once (lucent._context)."""

from __future__ import annotations

import ast
import importlib
import json
import pathlib

import pytest

import lucent
from lucent import streams
from lucent._context import DeclaredContext, document_keys, listing, stream_keys
from lucent.cli import main
from lucent.errors import UsageError
from lucent.formats import FORMATS
from lucent.generated.convert_registry import CONTEXT, MODULES
from tests.paths import REPO

LUX_RESPONSE = {"schema_version": "v1", "id": "r1", "model": "m", "choices": [
    {"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": [{"type": "text", "text": "Hi"}]}}]}
LUX_STREAM = [
    {"event": "conversation_start", "meta": {"id": "r1", "model": "m"}},
    {"event": "item_start", "index": 0, "item": {"type": "message", "message": {"role": "assistant", "content": []}}},
    {"event": "block_start", "index": 0, "block_type": "text"},
    {"event": "block_delta", "index": 0, "delta": {"type": "text", "text": "Hi"}},
    {"event": "block_end", "index": 0},
    {"event": "item_end", "index": 0},
    {"event": "finish", "finish_reason": "stop"},
    {"event": "done"},
]
VALUES = {"created": 1, "created_at": 1, "id": "r1", "model": "m", "service_tier": "default", "system_fingerprint": "fp"}
CHAT_REQUEST = {"model": "gpt-5-nano", "messages": [{"role": "user", "content": "Hi"}]}


# ------------------------------------------------------------------ one name, documents and streams


def test_a_chat_response_document_and_stream_both_take_created_and_write_its_value() -> None:
    document = lucent.convert(LUX_RESPONSE, "lux", "openai-chat", "response", context={"created": 1_700_000_000})
    assert document.value.created == 1_700_000_000
    assert [(d.field, d.status) for d in document.diagnostics] == []  # Lux had none: the caller's value is no loss, as the stream says nothing
    chunks = list(streams.convert_stream(LUX_STREAM, "lux", "openai-chat", context={"created": 1_700_000_000}))
    assert len(chunks) >= 3
    assert {chunk.created for chunk in chunks} == {1_700_000_000}
    assert document_keys("lux", "openai-chat", "response") == ("created",)
    assert "created" in stream_keys("lux", "openai-chat")


def test_created_at_is_refused_by_a_chat_response_document_and_stream_alike() -> None:
    with pytest.raises(UsageError) as document:
        lucent.convert(LUX_RESPONSE, "lux", "openai-chat", "response", context={"created_at": 1})
    assert (document.value.code, document.value.path) == ("invalid_context", "$.created_at")
    assert document.value.message == "context key 'created_at' not read by a conversion of lux responses to openai-chat; the keys it reads: created"
    with pytest.raises(UsageError) as stream:
        streams.convert_stream(LUX_STREAM, "lux", "openai-chat", context={"created_at": 1})  # at once, not while iterating
    assert (stream.value.code, stream.value.path) == ("invalid_context", "$.created_at")
    assert stream.value.message == (
        "context key 'created_at' not read by a conversion of lux streams to openai-chat; "
        "the keys it reads: created, id, model, service_tier, system_fingerprint"
    )


@pytest.mark.parametrize("target", [name for name, f in FORMATS.items() if f.stream is not None and name != "lux"])
def test_every_target_names_a_value_the_same_in_its_documents_and_its_stream(target: str) -> None:
    """A key both the target's response converter and its stream writer read is one value; and
    each creation-time key is the one the format's response document names."""
    document, stream = set(document_keys("lux", target, "response")), set(stream_keys("lux", target))
    assert document <= stream, (target, document - stream)
    created = {key for key in stream if key.startswith("created")}
    assert created == ({FORMATS[target].gateway.created} if FORMATS[target].gateway and FORMATS[target].gateway.created else set())


# ------------------------------------------------------------------------------- the refusal


def test_an_unknown_key_is_refused_naming_it_and_the_keys_this_conversion_reads() -> None:
    with pytest.raises(UsageError) as raised:
        lucent.convert(CHAT_REQUEST, "openai-chat", "anthropic", context={"max_tokenz": 1})
    assert raised.value.code == "invalid_context"
    assert raised.value.path == "$.max_tokenz"
    assert raised.value.message == "context key 'max_tokenz' not read by a conversion of openai-chat requests to anthropic; the keys it reads: max_tokens, model"


def test_every_unknown_key_is_named_the_first_at_the_path() -> None:
    with pytest.raises(UsageError) as raised:
        lucent.convert(CHAT_REQUEST, "openai-chat", "anthropic", context={"max_tokens": 5, "b": 1, "a": 2})
    assert raised.value.path == "$.b"
    assert raised.value.message.startswith("context keys 'b', 'a' not read by a conversion of openai-chat requests to anthropic;")


def test_a_same_format_conversion_reads_no_key() -> None:
    with pytest.raises(UsageError) as raised:
        lucent.convert(CHAT_REQUEST, "openai-chat", "openai-chat", context={"model": "m"})
    assert raised.value.message.endswith("the keys it reads: none")
    assert lucent.convert(CHAT_REQUEST, "openai-chat", "openai-chat", context={}).value.model == "gpt-5-nano"


def test_a_conversion_through_lux_reads_both_hops_keys() -> None:
    assert document_keys("gemini", "anthropic", "request") == ("max_tokens", "model", "stream")
    gemini = {"contents": [{"role": "user", "parts": [{"text": "Hi"}]}]}
    result = lucent.convert(gemini, "gemini", "anthropic", context={"model": "claude", "stream": False, "max_tokens": 64})
    assert (result.value.model, result.value.max_tokens) == ("claude", 64)
    assert not any(d.status == "Invalid" for d in result.diagnostics)


def test_with_capabilities_a_request_conversion_reads_the_model_too() -> None:
    assert "model" not in document_keys("lux", "openai-chat", "request")
    lux = {"schema_version": "v1", "model": "m", "conversation": [], "options": {"stream": False}}
    with pytest.raises(UsageError) as without:
        lucent.convert(lux, "lux", "openai-chat", context={"model": "m"})
    assert without.value.message.endswith("the keys it reads: none")
    with pytest.raises(UsageError) as given:  # refused before the capabilities are read
        lucent.convert(lux, "lux", "openai-chat", context={"model": "m", "modle": "m"}, capabilities=object())
    assert given.value.message == "context key 'modle' not read by a conversion of lux requests to openai-chat; the keys it reads: model"


def test_every_declared_key_is_accepted_by_its_conversions() -> None:
    for (source, target, kind), keys in CONTEXT.items():
        assert document_keys(source, target, kind) == keys
        assert list(keys) == sorted(set(keys))
    for name, fmt in FORMATS.items():
        for other, second in FORMATS.items():
            if fmt.stream is None or second.stream is None or name == other:
                continue
            keys = stream_keys(name, other)
            assert keys == tuple(sorted(set(keys)))
            streams.convert_stream([], name, other, context={k: v for k, v in VALUES.items() if k in keys})  # not refused


# ------------------------------------------------------------------ one declaration, held to it


def test_each_converter_module_declares_the_keys_the_registry_lists() -> None:
    for key, (module, _function) in MODULES.items():
        assert importlib.import_module(f"lucent.generated.{module}").CONTEXT == CONTEXT[key], key


def test_a_converter_that_reads_a_key_it_does_not_declare_raises(monkeypatch: pytest.MonkeyPatch) -> None:
    module = importlib.import_module("lucent.generated.convert_lux_openai_chat_response")
    monkeypatch.setattr(module, "CONTEXT", ())  # as if the declaration had fallen behind the transform
    with pytest.raises(RuntimeError, match=r"lux_to_openai_chat_response reads context\['created'\], which it does not declare"):
        lucent.convert(LUX_RESPONSE, "lux", "openai-chat", "response")


def test_a_declared_context_raises_on_any_undeclared_read() -> None:
    context = DeclaredContext({"id": "r"}, ("id",), "the test writer")
    assert context["id"] == "r" and context.get("id") == "r" and "id" in context
    for read in (lambda: context["model"], lambda: context.get("model"), lambda: "model" in context):
        with pytest.raises(RuntimeError, match=r"the test writer reads context\['model'\]"):
            read()


def _literal_keys(node: ast.AST) -> set[str]:
    """The literal keys a function or class reads of the context: ``from_context("k", ...)``,
    ``context_value(ctx, "k", ...)``, ``<x>.context.get("k")`` / ``<x>._context.get("k")`` and
    ``<x>.context["k"]``."""
    found: set[str] = set()
    for sub in ast.walk(node):
        if isinstance(sub, ast.Call) and isinstance(sub.func, ast.Attribute) and sub.func.attr == "from_context" and sub.args:
            arg = sub.args[0]
        elif isinstance(sub, ast.Call) and isinstance(sub.func, ast.Name) and sub.func.id == "context_value" and len(sub.args) > 1:
            arg = sub.args[1]
        elif (isinstance(sub, ast.Call) and isinstance(sub.func, ast.Attribute) and sub.func.attr == "get" and sub.args
              and isinstance(sub.func.value, ast.Attribute) and sub.func.value.attr in ("context", "_context")):
            arg = sub.args[0]
        elif isinstance(sub, ast.Subscript) and isinstance(sub.value, ast.Attribute) and sub.value.attr in ("context", "_context"):
            arg = sub.slice
        else:
            continue
        if isinstance(arg, ast.Constant) and isinstance(arg.value, str):
            found.add(arg.value)
    return found


def _declared(decorators: list[ast.expr]) -> set[str]:
    return {a.value for d in decorators if isinstance(d, ast.Call) and isinstance(d.func, ast.Name) and d.func.id == "reads"
            for a in d.args if isinstance(a, ast.Constant)}


def test_every_transform_declares_the_keys_its_source_reads() -> None:
    for path in [REPO / "lucent" / "_transforms.py", *sorted((REPO / "lucent" / "formats").glob("*/transforms.py"))]:
        for node in ast.parse(path.read_text(encoding="utf-8")).body:
            if isinstance(node, ast.FunctionDef):
                assert _literal_keys(node) <= _declared(node.decorator_list), (path.name, node.name)


def test_every_stream_reader_and_writer_declares_the_keys_its_source_reads() -> None:
    from lucent._context import _stream_classes

    for name, fmt in FORMATS.items():
        if fmt.stream is None:
            continue
        reader, writer = _stream_classes(name, name)
        for cls, keys in ((reader, set(reader.context_keys) | set(reader.context_keys_to_lux)), (writer, set(writer.context_keys))):
            module = importlib.import_module(cls.__module__)
            tree = ast.parse(pathlib.Path(module.__file__).read_text(encoding="utf-8"))
            node = next(n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == cls.__name__)
            assert _literal_keys(node) <= keys, (cls.__name__, _literal_keys(node) - keys)


# ---------------------------------------------------------------------------- the command line


def test_the_cli_refuses_an_unknown_context_key_with_status_2(tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str]) -> None:
    source = tmp_path / "request.json"
    source.write_text(json.dumps(CHAT_REQUEST), encoding="utf-8")
    status = main(["convert", "--from", "openai-chat", "--to", "anthropic", "--context", '{"max_tokenz": 1}', str(source)])
    captured = capsys.readouterr()
    assert status == 2
    assert captured.out == ""
    assert captured.err == (
        "lucent: $.max_tokenz: context key 'max_tokenz' not read by a conversion of openai-chat requests to anthropic; "
        "the keys it reads: max_tokens, model [invalid_context]\n"
    )


def test_the_cli_refuses_an_unknown_context_key_of_a_stream(capsys: pytest.CaptureFixture[str]) -> None:
    status = main(["convert", "--kind", "stream", "--from", "anthropic", "--to", "openai-chat", "--context", '{"created_at": 1}', str(REPO / "examples" / "anthropic-stream.sse")])
    captured = capsys.readouterr()
    assert status == 2
    assert captured.out == ""
    assert captured.err == (
        "lucent: $.created_at: context key 'created_at' not read by a conversion of anthropic streams to openai-chat; "
        "the keys it reads: created, id, model, service_tier, system_fingerprint [invalid_context]\n"
    )


def test_convert_help_lists_the_keys_each_target_reads(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exited:
        main(["convert", "--help"])
    assert exited.value.code == 0
    out = capsys.readouterr().out
    assert listing() in out
    lines = listing().splitlines()
    assert "  openai-chat response: created" in lines
    assert "  openai-chat stream: created, id, model, service_tier, system_fingerprint" in lines
    assert "  anthropic request: max_tokens, model" in lines
    assert "  openai-responses response: created_at" in lines
    assert "  gemini request: model, stream" in lines[lines.index("A source reads too (its converter to Lux, its stream reader; to lux, these alone):"):]
