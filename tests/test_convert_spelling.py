"""Side-car spellings and the provenance of composed conversions.

A member of a Lux side-car marked ``spelling = true`` in an X -> Lux spec only records how X
spelled a value Lux holds (``extra.openai_chat.stream_absent``: the request had no ``stream``;
``limit_field``: the limit came from ``max_tokens``). A Lux -> Y conversion loses nothing by
leaving X's spellings out, so it reports X's other side-car members one by one and not the
spellings (codegen.mappings.spellings, ``Cx.report_unread``). A JSON null is a value, not a
spelling: it is named when the target cannot write it.

The members an X -> Lux conversion keeps for a Lux object (``extra.<x>.members``) are named the
same way: the spec's ``[pair]`` lists those that are spellings (``member_spellings``: Anthropic's
``content_form``) or absences (``member_absences``: a Gemini call kept with ``id`` null had
none), and each other member is reported at its own source path, never at a path the source
does not have.

A composed conversion names a second hop's findings at source paths; ``Origins.around`` finds
them by walking only the Lux values on the way to each finding (never the whole document, however
many findings there are: issue 16), and must agree with the whole walk (``Origins.paths``).
"""

from __future__ import annotations

import json
import pathlib

import msgspec
import pytest

import lucent
from lucent._context import read_by
from codegen.mappings import load_specs, spellings
from lucent._convert import _decode_source, _definition, _source_paths
from lucent.generated.convert_registry import CONVERTERS
from lucent._conversion import Origins
from tests.fuzz.harness import CONTEXT
from tests.vendor_convert_corpus import has_path

ROOT = pathlib.Path(__file__).resolve().parent.parent
SMALL = b'{"model":"gpt-4o","messages":[{"role":"system","content":"Brief."},{"role":"user","content":"Hi"}],"max_tokens":256,"temperature":0.2}'


def test_the_spellings_are_read_from_the_specs() -> None:
    found = spellings(load_specs(ROOT))
    # a spelling the format's Lux -> X spec types (carried_types) carries its JSON type
    assert found["request"]["openai_chat"] == ("limit_field:string", "members/content_absent:boolean", "members/content_parts:boolean", "members/part:boolean", "members/refusal=null", "stop_string:boolean", "store=false", "stream_absent:boolean")
    # an idle value ([pair] idle_values) is named with the one value that asks for nothing
    assert found["request"]["openai_responses"] == ("input_absent:boolean", "input_string:boolean", "members/content_string:boolean", "members/output_list:boolean", "members/type:string", "store=false", "stream_absent:boolean")
    assert found["response"]["anthropic"] == ("cache_creation_zero:boolean", "members/caller_direct:boolean", "members/content_form:string", "members/is_error:boolean", "stop_details_null:boolean", "stop_reason_absent:boolean", "stop_sequence_null:boolean")
    assert "restated_defaults:boolean" in found["response"]["openai_responses"]
    assert "members/id=null" in found["request"]["gemini"] and not any(s.startswith("members/id:") for s in found["request"]["gemini"])  # only a null id records an absence
    assert "temperature" not in found["request"]["openai_chat"]  # a kept null is a value


@pytest.mark.parametrize("target", ["anthropic", "gemini", "openai-responses", "llm-sdk"])
def test_a_plain_chat_request_converts_strictly_to_every_vendor(target: str) -> None:
    # strict: no Unsupported or Invalid finding (the Degraded ones name what the target says
    # another way: a system message folded, the model or stream mode given to the call)
    result = lucent.convert(SMALL, source="openai-chat", target=target, strict=True, context=read_by({"model": "m"}, "openai-chat", target))
    assert [d.field for d in result.diagnostics if d.field.startswith(("$.max_tokens", "$.extra"))] == []


def test_another_formats_side_car_is_named_member_by_member_without_its_spellings() -> None:
    data = b'{"model":"m","messages":[{"role":"user","content":"x"}],"max_tokens":9,"logit_bias":{"5":1},"temperature":null,"stop":"END"}'
    result = lucent.convert(data, source="openai-chat", target="anthropic")
    unsupported = sorted(d.field for d in result.diagnostics if d.status == "Unsupported")
    assert unsupported == ["$.logit_bias"]  # temperature: null is Anthropic's absent temperature: no loss


@pytest.mark.parametrize("wrong", [1, "true", [True], {"a": True}])  # a null is an absence: no loss
def test_another_formats_spelling_of_the_wrong_type_is_no_spelling_and_is_reported(wrong: object) -> None:
    lux = msgspec.to_builtins(lucent.convert(b'{"model":"m","messages":[{"role":"user","content":"x"}]}', source="openai-chat", target="lux").value)
    assert lux["extra"]["openai_chat"]["stream_absent"] is True
    lux["extra"]["openai_chat"]["stream_absent"] = wrong
    result = lucent.convert(msgspec.json.encode(lux), source="lux", target="anthropic", context={"max_tokens": 5})
    assert [(d.field, d.status) for d in result.diagnostics if d.field.startswith("$.extra")] == [("$.extra.openai_chat.stream_absent", "Unsupported")]
    lux["extra"]["openai_chat"]["stream_absent"] = True  # the spelling itself: nothing to report
    result = lucent.convert(msgspec.json.encode(lux), source="lux", target="anthropic", context={"max_tokens": 5})
    assert [d.field for d in result.diagnostics if d.field.startswith("$.extra")] == []


def test_a_lux_side_car_of_another_format_is_reported_at_its_members() -> None:
    lux = lucent.convert(b'{"model":"m","messages":[{"role":"user","content":"x"}],"user":"u1"}', source="openai-chat", target="lux").value
    _, found = CONVERTERS[("lux", "anthropic", "request")](lux, {"max_tokens": 5})
    assert sorted(d.field for d in found if d.status == "Unsupported") == ["$.extra.openai_chat.user"]


def _corpus_requests(fmt: str) -> list[bytes]:
    folder = ROOT / "tests" / "data" / "lingua" / "snapshots"
    name = {"openai-chat": "chat-completions", "openai-responses": "responses", "anthropic": "anthropic"}[fmt]
    return [p.read_bytes() for p in sorted(folder.glob(f"*/{name}/*request.json"))][:40]


@pytest.mark.parametrize(("source", "target"), [("openai-chat", "anthropic"), ("openai-responses", "sparktide"), ("anthropic", "openai-chat")])
def test_a_partial_walk_names_what_the_whole_walk_names(source: str, target: str) -> None:
    first, second = CONVERTERS[(source, "lux", "request")], CONVERTERS[("lux", target, "request")]
    compared = 0
    for data in _corpus_requests(source):
        try:
            src, _, _ = _decode_source(data, source, _definition(source, "request"))
        except lucent.errors.LucentError:
            continue
        partial, whole = Origins(), Origins()
        lux, _ = first(src, CONTEXT, partial)
        first(src, CONTEXT, whole)
        _, found = second(lux, CONTEXT)
        full = whole.paths()
        for diagnostic in found:
            assert _source_paths(diagnostic.field, partial.around(diagnostic.field)) == _source_paths(diagnostic.field, full)
            compared += 1
        assert partial._paths is None  # every finding placed without the whole walk
    assert compared >= 10


STRICT = [
    ("openai-responses", "openai-chat", {"model": "gpt-x", "input": [{"role": "user", "content": "What is 2+2?"}]}),
    ("anthropic", "openai-chat", {"model": "m", "max_tokens": 10, "messages": [{"role": "user", "content": [{"type": "text", "text": "hi"}]}]}),
    ("openai-chat", "anthropic", {"model": "m", "max_tokens": 10, "messages": [{"role": "user", "content": [{"type": "text", "text": "hi"}]}]}),
    ("anthropic", "gemini", {"model": "m", "max_tokens": 10, "messages": [{"role": "user", "content": "hi"}]}),
    ("anthropic", "llm-sdk", {"model": "m", "max_tokens": 10, "messages": [{"role": "user", "content": "hi"}]}),
    ("gemini", "openai-chat", {"contents": [{"role": "user", "parts": [{"text": "weather?"}]},
                                            {"role": "model", "parts": [{"functionCall": {"name": "get_weather", "args": {"city": "Oslo"}}}]},
                                            {"role": "user", "parts": [{"functionResponse": {"name": "get_weather", "response": {"t": 3}}}]}],
                               "tools": [{"functionDeclarations": [{"name": "get_weather", "parameters": {"type": "OBJECT", "properties": {"city": {"type": "STRING"}}}}]}]}),
]


@pytest.mark.parametrize(("source", "target", "document"), STRICT, ids=[f"{s}->{t}" for s, t, _ in STRICT])
def test_a_spelling_kept_for_a_lux_object_is_no_loss(source: str, target: str, document: dict[str, object]) -> None:
    context = {"model": "m"} if source == "gemini" else None  # a Gemini body names no model
    result = lucent.convert(json.dumps(document).encode(), source=source, target=target, context=context, strict=True)
    assert all(has_path(document, d.field) for d in result.diagnostics), result.diagnostics
    if source == "gemini":  # the call had no id (derived, as the first hop says); the tool turn, rewritten as a
        # Chat tool message, comes back as it was (lucent._forms): nothing said of it
        assert [d.field for d in result.diagnostics] == ["$.contents[1].parts[0].functionCall"]
    else:
        assert [d.field for d in result.diagnostics] == (["$.model"] if target in ("gemini", "llm-sdk") else [])  # the call names the model


def test_a_member_kept_for_a_lux_object_is_named_at_its_source_path() -> None:
    anthropic = {"model": "m", "max_tokens": 10, "messages": [{"role": "user", "content": [
        {"type": "text", "text": "hi", "cache_control": {"type": "ephemeral"}},
        {"type": "document", "source": {"type": "text", "media_type": "text/plain", "data": "doc"}}]}]}
    result = lucent.convert(json.dumps(anthropic).encode(), source="anthropic", target="openai-chat")
    unsupported = sorted(d.field for d in result.diagnostics if d.status == "Unsupported")
    assert unsupported == ["$.messages[0].content[0].cache_control", "$.messages[0].content[1]"]
    responses = {"model": "m", "input": [{"role": "user", "content": [
        {"type": "input_text", "text": "read"}, {"type": "input_file", "file_url": "https://example.com/a.pdf"}]}]}
    result = lucent.convert(json.dumps(responses).encode(), source="openai-responses", target="openai-chat")
    assert sorted({d.field for d in result.diagnostics}) == ["$.input[0].content[1]"]
    # kept verbatim in the Lux side-car by the first hop, then not read by Chat: dropped, said once
    assert [(d.field, d.status) for d in result.diagnostics] == [("$.input[0].content[1]", "Unsupported")]


def test_a_false_stream_is_the_default_call_of_gemini_and_llm_sdk() -> None:
    for target in ("gemini", "llm-sdk"):
        for stream, named in ((False, []), (True, ["$.stream"])):
            chat = {"model": "m", "messages": [{"role": "user", "content": "hi"}], "stream": stream}
            result = lucent.convert(json.dumps(chat).encode(), source="openai-chat", target=target, context=read_by(CONTEXT, "openai-chat", target))
            assert [d.field for d in result.diagnostics if "stream" in d.field] == named, target


def test_a_first_hop_that_keeps_side_car_values_gives_the_table_it_gave_when_it_walked_at_once(monkeypatch: pytest.MonkeyPatch) -> None:
    # Cx.finish leaves the table to the first question also when it puts kept values into the
    # side-car (Cx._walked_but: the document as it was before them, then their entries); the
    # table, in order, and what around() names must be those of the walk before they went in
    # (forced here by Cx._kept_over, the case of a kept value taking an existing member's place)
    from lucent._conversion import Cx

    folder = ROOT / "tests" / "data" / "lingua" / "snapshots"
    compared = kept = 0
    for (source, target, kind), convert in CONVERTERS.items():
        if target != "lux" or source not in ("openai-chat", "openai-responses", "anthropic", "gemini"):
            continue
        for path in sorted(folder.glob("*/*/*.json"))[:150]:
            try:
                src, _, _ = _decode_source(path.read_bytes(), source, _definition(source, kind))
            except lucent.errors.LucentError:
                continue
            lazy, eager = Origins(), Origins()
            convert(src, CONTEXT, lazy)
            with monkeypatch.context() as patched:
                patched.setattr(Cx, "_kept_over", lambda self, value, sidecar: True)
                convert(src, CONTEXT, eager)
            table = eager.paths()
            for n, field in enumerate(table):  # each kept value's path and one other path in seven, each from a fresh table
                if n % 7 and ".members" not in field and ".media" not in field:
                    continue
                fresh = Origins()
                convert(src, CONTEXT, fresh)
                assert fresh.around(field).get(field) == table[field], (path, field)
                assert fresh._paths is None
            assert list(lazy.paths().items()) == list(table.items()), path
            compared += 1
            kept += any(".members" in p or ".media" in p for p in table)
    assert compared >= 100 and kept >= 10
